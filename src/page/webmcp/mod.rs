//! Tools a page declares for agents (WebMCP): the browser's own registry
//! where it has one, tabwire's shim where it has none, and calling them.
//!
//! **The browser's registry.** Chromium with WebMCP on (`--enable-features=
//! WebMCP`; only in a secure context) keeps each page's tools, script
//! (`document.modelContext.registerTool`) and declarative (`<form
//! toolname tooldescription>`) alike, and reports them over the DevTools
//! protocol's `WebMCP` domain, through `chrome.debugger` as well as a
//! direct connection: `WebMCP.enable` lists the top frame's tools, and
//! `toolsAdded` / `toolsRemoved` keep the list current ([`NativeTools`],
//! fed by the tab's events). A call is `WebMCP.invokeTool` and its answer
//! the `toolResponded` event of its invocation; `cancelInvocation` stops
//! it. The domain answers even without the feature (with no tools), so
//! whether the page has the browser's registry is asked in the page.
//!
//! **The shim** (`shim.rs`) serves pages where `document.modelContext` is
//! missing, and pages written for the older `navigator.modelContext`.
//!
//! What tabwire adds on top: arguments are checked against the tool's
//! `inputSchema` before the page sees them (`schema.rs`), and a call that
//! does not answer in time, or whose MCP request is cancelled or stopped,
//! is cancelled in the page too.

mod call;
mod registry;
pub mod schema;
pub mod shim;

pub use registry::{Annotations, NativeTools, PageTool};

use serde_json::{json, Value};

use crate::backend::TabEvent;
use crate::error::ToolError;
use crate::page::tab::current::Tab;
/// A page's tools: the browser's (when the page has its registry) first,
/// then the shim's.
pub struct Listing {
    /// The page has the browser's own `document.modelContext`.
    pub native: bool,
    pub tools: Vec<PageTool>,
}

/// What a call of a page tool answered.
pub struct Output {
    /// The tool's result as text (a string as it is, anything else as
    /// JSON): page data.
    pub text: String,
}

impl Tab {
    /// The tools the page in `tab` declares now.
    pub async fn page_tools(&self) -> Result<Listing, ToolError> {
        let probe = self.call_page(shim::LIST, Value::Null).await?;
        let native = probe["native"] == true;
        let mut tools = Vec::new();
        if native {
            self.enable_registry().await?;
            tools.extend(self.tab_state().slot::<NativeTools>().tools.iter().cloned());
        }
        for t in probe["tools"].as_array().into_iter().flatten() {
            if let Some(tool) = PageTool::from_shim(t) {
                if !tools.iter().any(|k| k.name == tool.name) {
                    tools.push(tool);
                }
            }
        }
        Ok(Listing { native, tools })
    }

    /// Enables the browser's registry as a tab is set up, before its next
    /// page loads, so the tools its frames declare are announced as they
    /// come (enabling later lists only the top frame's). Not waited for:
    /// a dialog open at that moment would hold the command, and no tool
    /// should wait on it; a browser without the domain just says no.
    ///
    /// `frame_session`: an out-of-process frame's own session, as it
    /// attaches (its tools are announced on the tab's events with the
    /// frame's id); None: the tab's.
    fn enable_registry_soon(&self, frame_session: Option<String>) {
        let tab = self.id();
        let client = self.client().clone();
        tokio::spawn(async move {
            // Straight to the backend: a tab closed meanwhile must not be
            // set up again, nor its closing notice spent, by this.
            let backend = client.backend();
            let sent = match &frame_session {
                Some(session) => {
                    backend
                        .cdp_raw_in(tab, session, "WebMCP.enable", json!({}))
                        .await
                }
                None => backend.cdp_raw(tab, "WebMCP.enable", json!({})).await,
            };
            match sent {
                Ok(_) if frame_session.is_none() => client
                    .on(tab)
                    .if_tab_known(|t| t.slot::<NativeTools>().enabled = true),
                Ok(_) => {}
                Err(e) => tracing::debug!(error = %e, "enabling the browser's WebMCP registry"),
            }
        });
    }

    /// Sends `WebMCP.enable` once per debugger session, and takes in the
    /// tools it announces: they arrive before its answer, so they are in
    /// this receiver once the answer is in, whether or not the event
    /// watcher has caught up.
    async fn enable_registry(&self) -> Result<(), ToolError> {
        let tab = self.id();
        if self.tab_state().slot::<NativeTools>().enabled {
            return Ok(());
        }
        let mut events = self.client().backend().subscribe();
        self.cdp("WebMCP.enable", json!({})).await?;
        let mut state = self.tab_state();
        state.slot::<NativeTools>().enabled = true;
        loop {
            match events.try_recv() {
                Ok(TabEvent::Cdp {
                    tab: t,
                    method,
                    params,
                }) if t == tab && method.starts_with("WebMCP.") => {
                    state.slot::<NativeTools>().record(&method, &params);
                }
                Ok(_) | Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => {}
                Err(_) => break,
            }
        }
        Ok(())
    }
}

/// Gives every tab the shim's registry, enables the browser's registry
/// in the tab and in its out-of-process frames, and keeps the tools it
/// announces.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn setup(&self, _: &mut crate::page::tab::calls::TabState) -> Vec<(&'static str, Value)> {
        // Pages that declare tools for agents find a registry even where
        // the browser has none (from the next document on).
        vec![crate::page::tab::calls::on_new_documents(
            shim::REGISTRY_SHIM,
        )]
    }

    fn after_set_up<'a>(&'a self, tab: &'a Tab) -> crate::page::tab::feature::Hook<'a, ()> {
        tab.enable_registry_soon(None);
        Box::pin(async {})
    }

    fn record(
        &self,
        tab: &Tab,
        state: &mut crate::page::tab::calls::TabState,
        current: bool,
        method: &str,
        params: &Value,
    ) {
        let tools_changed = state.slot::<NativeTools>().record(method, params)
            || (method == "Page.frameNavigated" && params["frame"].get("parentId").is_none());
        if current && tools_changed {
            tab.client().page_tools_changed();
        }
        // An out-of-process frame's page tools are in its own session's
        // registry.
        if method == "Target.attachedToTarget" && params["targetInfo"]["type"] == "iframe" {
            if let Some(child) = params["sessionId"].as_str() {
                tab.enable_registry_soon(Some(child.to_string()));
            }
        }
    }

    fn detached(&self, state: &mut crate::page::tab::calls::TabState) {
        state.slot::<NativeTools>().detached();
    }
}

/// For unit tests: a [`crate::backend::fake::FakeBrowser`] whose page at
/// `url` has the shim with `tools` (as [`shim::LIST`] lists them); each call
/// of one that reaches the page is pushed to `ran`, and answers "done".
#[cfg(test)]
pub fn shim_page(
    url: &'static str,
    tools: Value,
    ran: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
) -> std::sync::Arc<crate::backend::fake::FakeBrowser> {
    use crate::backend::fake::{plain_page, FakeBrowser};
    std::sync::Arc::new(FakeBrowser::with_tab(url, move |_, method, params| {
        let expr = params["expression"].as_str().unwrap_or("");
        let value = |v: Value| Some(Ok(json!({"result": {"type": "object", "value": v}})));
        match method {
            "Runtime.evaluate" if expr.contains("reg.calls.set") => {
                ran.lock().unwrap().push(expr.to_string());
                value(json!({"output": "done"}))
            }
            "Runtime.evaluate" if expr.contains("tabwireShim") => {
                value(json!({"native": false, "tools": tools}))
            }
            _ => plain_page(method, url),
        }
    }))
}
