//! One tab's calls: its CDP commands (in its top frame or a child session
//! of an out-of-process frame), the setup every tab gets once, scripts run
//! in the page, and what its recorded events say (URL, document, dialog,
//! console, file chooser).

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::console_and_dialogs::{ConsoleEntry, Dialog, TabEvents};
use super::feature::TopWorld;
use super::slots::Slots;
use crate::backend::{BackendError, TabEvent, TabId};
use crate::error::{ErrorKind, ToolError};
use crate::page::tab::current::Tab;

/// What tabwire keeps about one tab: whether it is set up and what its
/// events said; each feature's own per-tab state is in a slot
/// ([`TabState::slot`]), so the tab names no feature.
#[derive(Default)]
pub struct TabState {
    /// The tab got [`tab_setup`] (its Page and Runtime events flow).
    pub(in crate::page) set_up: bool,
    pub events: TabEvents,
    slots: Slots,
}

impl TabState {
    /// A feature's state for this tab, made with `Default` on first use.
    pub fn slot<T: Default + Send + 'static>(&mut self) -> &mut T {
        self.slots.get_mut()
    }

    /// The debugger let go of the tab: events may have been missed, and it
    /// needs setting up again (features forget what they must in their
    /// `detached` hooks).
    pub(in crate::page) fn detached(&mut self) {
        self.set_up = false;
        self.events.forget_doc();
    }
}

/// Commands that still work (or are needed) while a dialog blocks the page;
/// everything else (even `Page.getFrameTree`) hangs until it is handled.
const DIALOG_SAFE: &[&str] = &[
    "Page.handleJavaScriptDialog",
    "Page.enable",
    "Runtime.enable",
    "Network.enable",
];

/// What every tab needs once before tools use it, sent as one batch (one
/// message through the extension) with what the features add.
fn tab_setup() -> Vec<(&'static str, Value)> {
    vec![
        // Page events drive waiting and dialogs, Runtime events the console
        // log, Network events the request log.
        ("Page.enable", json!({})),
        ("Runtime.enable", json!({})),
        ("Network.enable", json!({})),
        // Lifecycle events (with the document they belong to) tell the
        // navigation wait when the latest page was parsed, loaded, quiet.
        ("Page.setLifecycleEventsEnabled", json!({"enabled": true})),
        // File choosers the page opens are caught (a native dialog would
        // wait for a human) and filled by browser_file_upload.
        (
            "Page.setInterceptFileChooserDialog",
            json!({"enabled": true}),
        ),
        // The snapshot engine is put into every new document's "tabwire"
        // world as it is created, so a navigation's snapshot need not send
        // the engine's source (40 KB) and wait for it to compile; a
        // document older than this setup gets it with its first call.
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": crate::engine::SOURCE, "worldName": crate::engine::WORLD}),
        ),
        // Out-of-process (cross-site) frames get child sessions, so the
        // snapshot engine can run in them and actions can reach inside.
        (
            "Target.setAutoAttach",
            json!({"autoAttach": true, "waitForDebuggerOnStart": false, "flatten": true}),
        ),
    ]
}

/// The command that runs `source` in the page's own world of every new
/// document of the tab, before the page's scripts (a feature's setup).
pub fn on_new_documents(source: &str) -> (&'static str, Value) {
    (
        "Page.addScriptToEvaluateOnNewDocument",
        json!({ "source": source }),
    )
}

/// `Runtime.callFunctionOn` of `function(arg)` on the object `object_id`,
/// awaited, its result by value (what [`Tab::call_on`] sends).
pub(in crate::page) fn call_params(object_id: &str, function: &str, arg: Value) -> Value {
    json!({
        "objectId": object_id,
        "functionDeclaration": function,
        "arguments": [{"value": arg}],
        "returnByValue": true,
        "awaitPromise": true,
    })
}

/// The JSON value of a `Runtime.evaluate`/`callFunctionOn` result, or the
/// exception the page script threw.
pub(in crate::page) fn page_value(r: Value) -> Result<Value, ToolError> {
    if let Some(ex) = r.get("exceptionDetails") {
        return Err(ToolError::other(format!(
            "page script threw: {}",
            exception_text(ex)
        )));
    }
    Ok(r["result"]["value"].clone())
}

/// The most useful line of a CDP `exceptionDetails`.
pub fn exception_text(ex: &Value) -> String {
    ex["exception"]["description"]
        .as_str()
        .or_else(|| ex["text"].as_str())
        .unwrap_or("unknown error")
        .lines()
        .next()
        .unwrap_or("unknown error")
        .to_string()
}

impl Tab {
    /// What every page command needs first: the tab's events flowing, and
    /// no dialog blocking `method`.
    pub async fn ready(&self, method: &str) -> Result<(), ToolError> {
        let tab = self.id();
        let on = self.tab_state().set_up;
        if !on {
            let mut setup = tab_setup();
            for f in self.client().features() {
                let more = f.setup(&mut self.tab_state());
                setup.extend(more);
            }
            // The document and the engine's world ride along: a new serve
            // (each `tabwire call`) needs both for its first tool.
            let then = vec![
                ("Page.getFrameTree", json!({})),
                (
                    "Page.createIsolatedWorld",
                    json!({"frameId": crate::protocol::MAIN_FRAME, "worldName": crate::engine::WORLD}),
                ),
            ];
            let done = self
                .client()
                .backend()
                .set_up_tab(tab, setup, then)
                .await
                .map_err(|e| self.tab_error(e))?;
            {
                let mut state = self.tab_state();
                state.set_up = true;
                let mut world = None;
                if let [tree, made] = done.then.as_slice() {
                    let doc = doc_of_tree(tree);
                    if state.events.doc().is_none() {
                        state.events.set_doc(doc.clone());
                    }
                    // A session set up before gave every later document
                    // the engine; else its source goes with the first call.
                    world = made["executionContextId"]
                        .as_i64()
                        .map(|context_id| TopWorld {
                            loader_id: doc.loader_id,
                            context_id,
                            installed: done.before,
                        });
                }
                for f in self.client().features() {
                    f.set_up(&mut state, world.as_ref());
                }
            }
            for f in self.client().features() {
                f.after_set_up(self).await;
            }
        }
        if !DIALOG_SAFE.contains(&method) {
            if let Some(d) = self.dialog() {
                return Err(ToolError::new(
                    ErrorKind::Dialog,
                    d.describe(self.client().fence()),
                ));
            }
        }
        // A crashed page answers nothing; only a new navigation revives it.
        if method != "Page.navigate" && self.tab_state().events.crashed() {
            return Err(ToolError::new(
                ErrorKind::Crashed,
                "the page in this tab crashed. Load it again with browser_navigate (its URL is \
                     in browser_tabs), or close the tab"
                    .into(),
            ));
        }
        Ok(())
    }

    /// What features owe the page before `method` goes to it (the
    /// in-page settle an action left for the page's next look, when no
    /// engine call took it along).
    async fn owed_steps(&self, method: &str) {
        let _tab = self.id();
        for f in self.client().features() {
            if let Some(step) = f.before_command(self, method) {
                step.await;
            }
        }
    }

    /// Sends several CDP commands in order (one message through the
    /// extension); the first error ends the sequence.
    pub async fn cdp_batch(
        &self,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<Vec<Value>, ToolError> {
        match self.cdp_batch_or_command_error(commands).await? {
            Ok(answers) => Ok(answers),
            Err(e) => Err(self.tab_error(e)),
        }
    }

    /// [`Self::cdp_batch`], with a command's own failure (the browser or
    /// the extension refused one of them) as the inner error, for callers
    /// that then try another way; errors about the tab, the link or the
    /// user's stop are the outer one (some are told only once).
    pub async fn cdp_batch_or_command_error(
        &self,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<Result<Vec<Value>, BackendError>, ToolError> {
        let tab = self.id();
        let first = commands.first().map_or("", |c| c.0);
        self.ready(first).await?;
        self.owed_steps(first).await;
        let (n, started) = (commands.len(), std::time::Instant::now());
        let r = self.client().backend().cdp_batch(tab, commands).await;
        tracing::debug!(target: "tabwire::cdp", first, n, ms = started.elapsed().as_secs_f64() * 1e3, "cdp batch");
        match r {
            Ok(answers) => Ok(Ok(answers)),
            Err(
                e @ (BackendError::Cdp { .. } | BackendError::Other(_) | BackendError::Refused(_)),
            ) => Ok(Err(e)),
            Err(e) => Err(self.tab_error(e)),
        }
    }

    /// Sends a CDP command, making sure the Page domain is on for the tab
    /// (navigation events drive [`Self::settle`]).
    pub async fn cdp(&self, method: &str, params: Value) -> Result<Value, ToolError> {
        let raw = self.cdp_raw(method, params).await?;
        crate::backend::parse_result(method, &raw).map_err(|e| self.tab_error(e))
    }

    /// [`Self::cdp`], sent to the child session `session` of the tab (an
    /// out-of-process frame) when given.
    pub async fn cdp_in(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, ToolError> {
        let tab = self.id();
        let Some(session) = session else {
            return self.cdp(method, params).await;
        };
        self.ready(method).await?;
        self.owed_steps(method).await;
        let raw = self
            .client()
            .backend()
            .cdp_raw_in(tab, session, method, params)
            .await
            .map_err(|e| self.tab_error(e))?;
        crate::backend::parse_result(method, &raw).map_err(|e| self.tab_error(e))
    }

    /// [`Self::cdp`] with the result left as JSON text, for answers big
    /// enough to parse straight into their own types.
    pub async fn cdp_raw(&self, method: &str, params: Value) -> Result<Box<RawValue>, ToolError> {
        let tab = self.id();
        self.ready(method).await?;
        self.owed_steps(method).await;
        let started = std::time::Instant::now();
        let r = self.client().backend().cdp_raw(tab, method, params).await;
        // Per-command timings, for profiling with RUST_LOG=tabwire::cdp=debug.
        tracing::debug!(target: "tabwire::cdp", method, ms = started.elapsed().as_secs_f64() * 1e3, "cdp");
        r.map_err(|e| self.tab_error(e))
    }

    /// The child session of the out-of-process frame `frame_id`, if any.
    pub fn child_session(&self, frame_id: &str) -> Option<String> {
        self.tab_state().events.child_session(frame_id)
    }

    /// Evaluates an expression in the page and returns its JSON value.
    pub async fn eval(&self, expression: &str) -> Result<Value, ToolError> {
        let r = self
            .cdp(
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await?;
        page_value(r)
    }

    /// Calls `function` (a JS function expression) in the page with `arg`
    /// (JSON) as its argument; returns the JSON result, promises awaited.
    pub async fn call_page(&self, function: &str, arg: Value) -> Result<Value, ToolError> {
        self.eval(&format!("({function})({arg})")).await
    }

    /// The URL of the tab's page: from the browser, or (while a dialog
    /// blocks the page) the last one seen in navigation events.
    pub async fn url(&self) -> Result<String, ToolError> {
        let stuck = self.dialog().is_some() || self.tab_state().events.crashed();
        if stuck {
            if let Some(u) = self.tab_state().events.url() {
                return Ok(u);
            }
        }
        Ok(self.doc().await?.url)
    }

    /// The URL of the tab's page as the browser says it now (not as the
    /// events said it: their record can trail the browser by the events
    /// still queued for it). For the policy's check after a navigation.
    pub async fn url_now(&self) -> Result<String, ToolError> {
        if self.dialog().is_some() || self.tab_state().events.crashed() {
            return self.url().await;
        }
        Ok(self.browser_doc().await?.url)
    }

    /// The top frame's document as the browser says it now.
    async fn browser_doc(&self) -> Result<super::console_and_dialogs::Doc, ToolError> {
        let tree = self.cdp("Page.getFrameTree", json!({})).await?;
        Ok(doc_of_tree(&tree))
    }

    /// The top frame's document: as the latest navigation event described
    /// it, else asked from the browser once. Events and answers share one
    /// ordered stream, so the record is fresh once the event watcher has
    /// caught up (it can trail by the events still queued for it: the
    /// policy's check after a navigation uses [`Self::url_now`]).
    pub(in crate::page) async fn doc(&self) -> Result<super::console_and_dialogs::Doc, ToolError> {
        // Make sure events flow before trusting them.
        self.ready("Page.getFrameTree").await?;
        if let Some(doc) = self.tab_state().events.doc() {
            return Ok(doc);
        }
        let doc = self.browser_doc().await?;
        self.tab_state().events.set_doc(doc.clone());
        Ok(doc)
    }

    /// The main frame's current document id (changes on every navigation).
    pub async fn loader_id(&self) -> Result<String, ToolError> {
        Ok(self.doc().await?.loader_id)
    }

    /// The top frame's id, if navigation events told it.
    pub(in crate::page) fn known_main_frame(&self) -> Option<String> {
        self.tab_state().events.doc().map(|d| d.frame_id)
    }

    /// The page line (title and URL), and under it the lines features add
    /// about how the tab shows the page (what it emulates).
    pub fn page_head(&self, title: &str, url: &str) -> String {
        let mut head = crate::engine::page_line(title, url, self.client().fence());
        let mut state = self.tab_state();
        for f in self.client().features() {
            if let Some(note) = f.head_note(&mut state) {
                head.push('\n');
                head.push_str(&note);
            }
        }
        head
    }

    /// Title and URL of the tab's page, for tool responses.
    pub async fn page_line(&self) -> Result<String, ToolError> {
        let v = self
            .eval("({url: location.href, title: document.title})")
            .await?;
        Ok(self.page_head(
            v["title"].as_str().unwrap_or(""),
            v["url"].as_str().unwrap_or(""),
        ))
    }

    /// Accepts or dismisses the dialog blocking `tab` (with `prompt_text`
    /// as a prompt's answer), and forgets it.
    pub async fn answer_dialog(
        &self,
        accept: bool,
        prompt_text: Option<&str>,
    ) -> Result<(), ToolError> {
        let mut params = json!({"accept": accept});
        if let Some(t) = prompt_text {
            params["promptText"] = json!(t);
        }
        self.cdp("Page.handleJavaScriptDialog", params).await?;
        self.dialog_handled();
        Ok(())
    }

    /// Makes sure `tab`'s events flow (the first command turns them on),
    /// for readers of what they recorded (console, network).
    pub async fn ensure_tab_events(&self) -> Result<(), ToolError> {
        self.cdp("Runtime.evaluate", json!({"expression": "0"}))
            .await
            .map(|_| ())
    }

    /// The JavaScript dialog blocking `tab`, if any.
    pub fn dialog(&self) -> Option<Dialog> {
        self.tab_state().events.dialog()
    }

    /// Forgets `tab`'s dialog once a tool has handled it.
    pub fn dialog_handled(&self) {
        self.tab_state()
            .events
            .record("Page.javascriptDialogClosed", &Value::Null);
    }

    /// A navigation replaced a crashed page's renderer.
    pub fn crash_replaced(&self) {
        self.tab_state()
            .events
            .record("Page.frameNavigated", &json!({"frame": {}}));
    }

    /// Takes the file input of the chooser the page opened, if any.
    pub fn take_file_chooser(&self) -> Option<i64> {
        self.tab_state().events.take_file_chooser()
    }

    /// The console output recorded for `tab`.
    pub fn console(&self) -> Vec<ConsoleEntry> {
        self.tab_state().events.console()
    }
}

/// Waits for the first event of `tab` that `pred` accepts and returns its
/// params; None if the tab closes or the event stream ends first.
pub async fn next_event(
    events: &mut tokio::sync::broadcast::Receiver<TabEvent>,
    tab: TabId,
    pred: fn(&str, &Value) -> bool,
) -> Option<Value> {
    loop {
        match events.recv().await {
            Ok(TabEvent::Cdp {
                tab: t,
                method,
                params,
            }) if t == tab && pred(&method, &params) => return Some(params),
            Ok(TabEvent::Closed { tab: t }) if t == tab => return None,
            Err(RecvError::Closed) => return None,
            _ => {}
        }
    }
}

/// The top frame's document in a `Page.getFrameTree` answer.
fn doc_of_tree(tree: &Value) -> super::console_and_dialogs::Doc {
    let frame = &tree["frameTree"]["frame"];
    super::console_and_dialogs::Doc {
        frame_id: frame["id"].as_str().unwrap_or_default().to_string(),
        url: frame["unreachableUrl"]
            .as_str()
            .or(frame["url"].as_str())
            .unwrap_or("about:blank")
            .to_string(),
        loader_id: frame["loaderId"].as_str().unwrap_or_default().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_text_prefers_description_first_line() {
        let ex = json!({"text": "Uncaught", "exception": {"description": "Error: boom\n    at x"}});
        assert_eq!(exception_text(&ex), "Error: boom");
        assert_eq!(exception_text(&json!({"text": "Uncaught"})), "Uncaught");
    }
}
