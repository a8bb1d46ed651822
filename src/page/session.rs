//! Per-client state and the preconditions every page tool shares: "give me
//! this client's tab", "turn a ref or selector into an element", "wait for
//! the page to settle after an action".

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::events::{ConsoleEntry, Dialog, PageEvents};
use super::started_requests::{self, StartedRequests};
use super::worlds::{SnapshotMark, Worlds};
use crate::backend::{Backend, BackendError, TabEvent, TabId};
use crate::error::ToolError;
use crate::fence::Fence;
use crate::policy::Policy;

/// Commands that still work (or are needed) while a dialog blocks the page;
/// everything else (even `Page.getFrameTree`) hangs until it is handled.
const DIALOG_SAFE: &[&str] = &[
    "Page.handleJavaScriptDialog",
    "Page.enable",
    "Runtime.enable",
    "Network.enable",
];

/// What a tab needs once before tools use it, sent as one batch (one
/// message through the extension).
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
        // Pages that declare tools for agents find a registry even where
        // the browser has none (from the next document on).
        (
            "Page.addScriptToEvaluateOnNewDocument",
            json!({"source": super::page_tools::REGISTRY_SHIM}),
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
        // HTTP authentication challenges reach tabwire (see `interrupts`).
        super::interrupts::fetch_setup(),
    ]
}

use super::load::{LoadEnd, LOAD_TIMEOUT};
/// How long after an action a navigation may still start, when the page
/// cannot tell sooner (see [`Session::navigation_started`]).
const NAV_START_WINDOW: Duration = Duration::from_millis(100);
/// How long an event may trail the answer that followed it in the browser.
const EVENT_HOP: Duration = Duration::from_millis(5);
/// Resolves once the DOM has not changed for 25 ms (at most 300 ms: a
/// spinner or a clock never stops).
const DOM_QUIET: &str = "new Promise(r => { let t; const done = () => { o.disconnect(); r(0); }; \
  const o = new MutationObserver(() => { clearTimeout(t); t = setTimeout(done, 25); }); \
  o.observe(document, {subtree: true, childList: true, characterData: true, attributes: true}); \
  t = setTimeout(done, 25); setTimeout(done, 300); })";

/// Resolves after the tasks queued before it (a posted message is not
/// throttled, unlike timers in background tabs).
///
/// It then also waits (at most 400 ms) for the finite animations running
/// by then (a drawer sliding in, a menu unfolding), so the answer reports
/// where they come to rest. (`getAnimations` brings styles up to date
/// first, so transitions the action caused are running by then.)
const AFTER_QUEUED_TASKS: &str = "new Promise(r => { const c = new MessageChannel(); \
  c.port1.onmessage = () => { \
    const moving = document.getAnimations().filter(a => a.playState === 'running' && a.effect \
      && Number.isFinite(a.effect.getComputedTiming().endTime)); \
    if (!moving.length) return r(0); \
    Promise.race([Promise.all(moving.map(a => a.finished.catch(() => 0))), \
      new Promise(t => setTimeout(t, 400))]).then(() => r(0)); }; \
  c.port2.postMessage(0); })";

#[derive(Default)]
struct State {
    current: Option<TabId>,
    /// Set when the current tab was closed behind the client's back; the next
    /// call that needs a tab reports it once instead of silently moving on.
    closed_notice: Option<TabId>,
    /// The notice is about a restart (every handle became void), not a close.
    notice_is_restart: bool,
    snapshot: Option<SnapshotMark>,
    /// Tabs whose Page and Runtime domains are on (events flow).
    domains_on: HashSet<TabId>,
    events: PageEvents,
    /// The backend generation our handles belong to.
    generation: u64,
}

struct Inner {
    backend: Arc<dyn Backend>,
    policy: Arc<Policy>,
    /// How long a page script may run before the browser stops it (kept
    /// below the per-command timeout, so the tab stays usable).
    script_timeout: Mutex<Duration>,
    client_name: Mutex<String>,
    /// What a long tool is doing now (for progress notifications).
    progress: Mutex<Option<String>>,
    state: Mutex<State>,
    /// The snapshot engine's worlds (see `page_engine`).
    worlds: Mutex<Worlds>,
    /// Authentication challenges, leave questions, failed loads.
    interrupts: Mutex<super::interrupts::Interrupts>,
    /// Marks page content in this client's answers (see `crate::fence`).
    fence: Fence,
}

/// One MCP client's view of the browser. Cheap to clone.
#[derive(Clone)]
pub struct Session {
    inner: Arc<Inner>,
}

/// What an action did to the page, for the tool's report.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The top frame showed another page (a new document, or an app's
    /// own route change within its document): the answer is its snapshot.
    pub navigated: bool,
    /// The navigation stayed in the same document (history API, or a
    /// link to a part of the page): refs stay valid. Its URL.
    pub within_document: Option<String>,
    /// It only moved to a `#fragment` of the same page (nothing to
    /// snapshot again).
    pub fragment_only: bool,
    /// How the navigation's wait ended (still loading, or not).
    pub load: LoadEnd,
    /// A dialog the action opened (it blocks the page until handled).
    pub dialog: Option<Dialog>,
    /// Console errors logged while the action ran.
    pub new_errors: Vec<ConsoleEntry>,
    /// Downloads the page started while the action ran: what became of
    /// each (saved where, how large; or why not).
    pub downloads: Vec<String>,
    /// Tabs the page opened while the action ran (id, first URL).
    pub opened_tabs: Vec<(TabId, String)>,
    /// The action opened a file chooser (waiting for browser_file_upload).
    pub file_chooser: bool,
    /// The action may have changed what CSS alone shows (a hover), which
    /// the snapshot engine's change tracking does not see.
    pub css_may_change: bool,
    /// What interrupted the page meanwhile (see `interrupts`), as sentences.
    pub notes: Vec<String>,
}

impl Outcome {
    /// Lines to append to an action's result, in a fixed order.
    pub fn report(&self, fence: &Fence) -> String {
        let mut out = String::new();
        match (&self.within_document, self.fragment_only) {
            (Some(url), true) => out.push_str(&format!(
                "\nThe page scrolled to {} (the same page: refs stay valid). browser_snapshot \
                 shows what is in view now.",
                url.find('#').map_or(url.as_str(), |at| &url[at..])
            )),
            (Some(url), false) => out.push_str(&format!(
                "\nThe page moved to {url} within the same document: refs of elements still \
                 there stay valid; its new snapshot follows."
            )),
            (None, _) if self.navigated => out.push_str(
                "\nThe page navigated: earlier refs are stale; its new snapshot follows.",
            ),
            (None, _) => {}
        }
        out.push_str(&self.load.note());
        for n in &self.notes {
            out.push('\n');
            out.push_str(n);
        }
        if let Some(d) = &self.dialog {
            out.push_str(&format!("\nNote: {}.", fence.neutralise(&d.describe())));
        }
        if self.file_chooser {
            out.push_str(
                "\nA file chooser opened: call browser_file_upload with `paths` (no target needed).",
            );
        }
        for d in &self.downloads {
            out.push('\n');
            out.push_str(d);
        }
        for (_, url) in &self.opened_tabs {
            out.push_str(&format!(
                "\nThe page opened a new tab ({}); switch to it with browser_tabs.",
                if url.is_empty() || url == "about:blank" {
                    "still loading"
                } else {
                    url
                }
            ));
        }
        if !self.new_errors.is_empty() {
            out.push_str("\nNew console errors (page output):\n");
            let errors: String = self
                .new_errors
                .iter()
                .take(5)
                .map(|e| format!("  {}\n", e.text))
                .collect();
            out.push_str(fence.wrap(&errors).trim_end());
        }
        out
    }
}

/// An element resolved from a ref or CSS selector.
#[derive(Debug, Clone)]
pub struct Element {
    /// The browser's node id, for elements known only by it (a file
    /// chooser's input).
    pub backend_node_id: Option<i64>,
    /// A handle to the node from resolving it (in the snapshot engine's
    /// world), valid until its document goes away.
    pub object_id: Option<Arc<str>>,
    /// The snapshot frame the element is in (0: the top document).
    pub frame: u32,
    /// The child session of the out-of-process frame the element is in.
    pub session: Option<Arc<str>>,
}

impl Element {
    /// An element known only by its backend node id.
    pub fn by_node(backend_node_id: i64) -> Self {
        Self {
            backend_node_id: Some(backend_node_id),
            object_id: None,
            frame: 0,
            session: None,
        }
    }

    /// The element as `DOM.*` commands take it (`objectId` or
    /// `backendNodeId`), merged into `params`.
    pub fn dom_params(&self, mut params: Value) -> Value {
        match (&self.object_id, self.backend_node_id) {
            (Some(o), _) => params["objectId"] = json!(o.as_ref()),
            (None, Some(id)) => params["backendNodeId"] = json!(id),
            (None, None) => {}
        }
        params
    }
}

impl Session {
    pub fn new(backend: Arc<dyn Backend>, policy: Arc<Policy>) -> Self {
        let session = Self {
            inner: Arc::new(Inner {
                backend,
                policy,
                script_timeout: Mutex::new(Duration::from_secs(25)),
                client_name: Mutex::new("tabwire".into()),
                progress: Mutex::new(None),
                state: Mutex::new(State::default()),
                worlds: Mutex::new(Worlds::default()),
                interrupts: Mutex::default(),
                fence: Fence::new(),
            }),
        };
        session.watch_events();
        session
    }

    pub fn backend(&self) -> &dyn Backend {
        self.inner.backend.as_ref()
    }

    pub fn policy(&self) -> &Policy {
        &self.inner.policy
    }

    /// The fence around page content in this client's answers.
    pub fn fence(&self) -> &Fence {
        &self.inner.fence
    }

    /// Scripts stop after `limit` (set just below the command timeout).
    pub fn set_script_timeout(&self, limit: Duration) {
        *self.inner.script_timeout.lock().expect("timeout lock") = limit;
    }

    pub fn script_timeout(&self) -> Duration {
        *self.inner.script_timeout.lock().expect("timeout lock")
    }

    /// Names this client's tab group (from the MCP `clientInfo`).
    pub fn set_client_name(&self, name: &str) {
        if !name.trim().is_empty() {
            *self.inner.client_name.lock().expect("name lock") = name.trim().to_string();
            self.backend().client_named(name.trim());
        }
    }

    pub fn client_name(&self) -> String {
        self.inner.client_name.lock().expect("name lock").clone()
    }

    /// Tells progress notifications what the running tool is doing
    /// (None: fall back to the backend's own message).
    pub fn set_progress(&self, message: Option<String>) {
        *self.inner.progress.lock().expect("progress lock") = message;
    }

    /// What a slow call is doing, for progress notifications.
    pub fn progress_message(&self) -> String {
        self.inner
            .progress
            .lock()
            .expect("progress lock")
            .clone()
            .unwrap_or_else(|| self.backend().progress_message())
    }

    /// Runs `f` with the session's page-event record (console, network …).
    pub fn with_events<T>(&self, f: impl FnOnce(&PageEvents) -> T) -> T {
        f(&self.state().events)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.inner.state.lock().expect("state lock")
    }

    pub(super) fn worlds(&self) -> std::sync::MutexGuard<'_, Worlds> {
        self.inner.worlds.lock().expect("worlds lock")
    }

    pub(super) fn interrupts(&self) -> std::sync::MutexGuard<'_, super::interrupts::Interrupts> {
        self.inner.interrupts.lock().expect("interrupts lock")
    }

    /// Keeps the state honest when tabs close or debuggers detach.
    fn watch_events(&self) {
        let weak = Arc::downgrade(&self.inner);
        let mut events = self.inner.backend.subscribe();
        tokio::spawn(async move {
            loop {
                let event = match events.recv().await {
                    Ok(e) => e,
                    Err(RecvError::Lagged(_)) => continue,
                    Err(RecvError::Closed) => return,
                };
                let Some(inner) = weak.upgrade() else { return };
                let session = Session { inner };
                if let TabEvent::Closed { tab } | TabEvent::Detached { tab, .. } = &event {
                    session.worlds().forget_tab(*tab);
                    session.interrupts_forget(*tab);
                }
                if let TabEvent::Cdp {
                    tab,
                    method,
                    params,
                } = &event
                {
                    if super::interrupts::intercept(&session, *tab, method, params) {
                        continue;
                    }
                }
                let inner = session.inner;
                let mut st = inner.state.lock().expect("state lock");
                match event {
                    TabEvent::Closed { tab } => {
                        st.domains_on.remove(&tab);
                        st.events.forget(tab);
                        if st.current == Some(tab) {
                            st.current = None;
                            st.closed_notice = Some(tab);
                            st.notice_is_restart = false;
                        }
                    }
                    TabEvent::Detached { tab, .. } => {
                        st.domains_on.remove(&tab);
                        st.events.forget_doc(tab);
                    }
                    TabEvent::Opened { .. } => {}

                    TabEvent::Cdp {
                        tab,
                        method,
                        params,
                    } => {
                        st.events.record(tab, &method, &params);
                    }
                }
            }
        });
    }

    pub fn current_tab(&self) -> Option<TabId> {
        self.state().current
    }

    /// Makes `tab` the current tab. A handle the client just chose (from a
    /// fresh `browser_tabs` list) belongs to the backend's current
    /// generation, so the generation is taken in first.
    pub fn set_current(&self, tab: Option<TabId>) {
        self.forget_void_handles();
        let mut st = self.state();
        st.current = tab;
        st.closed_notice = None;
    }

    /// The tab page tools read or act on, after checking that the policy
    /// allows its page (reads are how data leaves a page).
    pub async fn tab(&self) -> Result<TabId, ToolError> {
        let tab = self.tab_or_notice().await?;
        let url = self.url(tab).await?;
        self.policy().check_url(&url).map_err(|why| {
            ToolError(format!(
                "the current tab's page is off limits: {why}. Navigate elsewhere with \
                 browser_navigate or pick another tab with browser_tabs"
            ))
        })?;
        Ok(tab)
    }

    /// The tab a navigation will replace the page of (its current page is
    /// not read, so the policy is checked on the destination instead).
    /// Opens one (in this client's group) if the client has none yet. A tab
    /// closed behind the client's back is reported once.
    pub async fn tab_to_navigate(&self) -> Result<TabId, ToolError> {
        // Navigating needs no old page: a closed tab is simply replaced.
        self.forget_void_handles();
        self.state().closed_notice = None;
        self.tab_or_notice().await
    }

    async fn tab_or_notice(&self) -> Result<TabId, ToolError> {
        self.forget_void_handles();
        let notice = {
            let mut st = self.state();
            st.closed_notice.take().map(|t| (t, st.notice_is_restart))
        };
        if let Some((tab, restart)) = notice {
            return Err(ToolError(if restart {
                format!(
                    "the browser or its tabwire extension restarted, so the current tab (id {tab}) \
                     and any other tab this client had are no longer under its control (they stay \
                     open in the browser). Use browser_tabs to list or open tabs; the next call \
                     opens a fresh tab if you do nothing"
                )
            } else {
                format!(
                    "the current tab (id {tab}) was closed. Use browser_tabs to list your \
                     remaining tabs or open a new one; the next call opens a fresh tab if you do nothing"
                )
            }));
        }
        if let Some(tab) = self.current_tab() {
            return Ok(tab);
        }
        let tabs = self.backend().list_tabs().await?;
        let tab = match tabs.iter().find(|t| t.active).or(tabs.first()) {
            Some(t) => t.tab_id,
            None => {
                let name = self.client_name();
                self.backend().new_tab("about:blank", &name).await?.tab_id
            }
        };
        self.set_current(Some(tab));
        Ok(tab)
    }

    /// If the backend's tabs were all voided since we last looked (browser
    /// restarted), drop every handle now, before anything uses one; if only
    /// the current tab's browser restarted, drop that handle.
    fn forget_void_handles(&self) {
        let now = self.backend().generation();
        let mut st = self.state();
        if st.generation != now {
            st.generation = now;
            st.closed_notice = st.current.take();
            st.notice_is_restart = true;
            st.snapshot = None;
            st.domains_on.clear();
            st.events = PageEvents::default();
            drop(st);
            *self.worlds() = Worlds::default();
        } else if st.current.is_some_and(|t| self.backend().is_void(t)) {
            // One browser of several restarted: only its tabs are void.
            st.closed_notice = st.current.take();
            st.notice_is_restart = true;
            if st.snapshot.as_ref().map(|m| m.tab) == st.closed_notice {
                st.snapshot = None;
            }
        }
    }

    /// Sends several CDP commands in order (one message through the
    /// extension); the first error ends the sequence.
    pub async fn cdp_batch(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<Vec<Value>, ToolError> {
        let first = commands.first().map_or("", |c| c.0);
        self.ready(tab, first).await?;
        let (n, started) = (commands.len(), std::time::Instant::now());
        let r = self.backend().cdp_batch(tab, commands).await;
        tracing::debug!(target: "tabwire::cdp", first, n, ms = started.elapsed().as_secs_f64() * 1e3, "cdp batch");
        r.map_err(|e| self.tab_error(tab, e))
    }

    /// Sends a CDP command, making sure the Page domain is on for the tab
    /// (navigation events drive [`Self::settle`]).
    pub async fn cdp(&self, tab: TabId, method: &str, params: Value) -> Result<Value, ToolError> {
        let raw = self.cdp_raw(tab, method, params).await?;
        crate::backend::parse_result(method, &raw).map_err(|e| self.tab_error(tab, e))
    }

    /// [`Self::cdp`], sent to the child session `session` of the tab (an
    /// out-of-process frame) when given.
    pub async fn cdp_in(
        &self,
        tab: TabId,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, ToolError> {
        let Some(session) = session else {
            return self.cdp(tab, method, params).await;
        };
        self.ready(tab, method).await?;
        let raw = self
            .backend()
            .cdp_raw_in(tab, session, method, params)
            .await
            .map_err(|e| self.tab_error(tab, e))?;
        crate::backend::parse_result(method, &raw).map_err(|e| self.tab_error(tab, e))
    }

    /// The child session of the out-of-process frame `frame_id`, if any.
    pub fn child_session(&self, tab: TabId, frame_id: &str) -> Option<String> {
        self.state().events.child_session(tab, frame_id)
    }

    /// [`Self::cdp`] with the result left as JSON text, for answers big
    /// enough to parse straight into their own types.
    pub async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, ToolError> {
        self.ready(tab, method).await?;
        let started = std::time::Instant::now();
        let r = self.backend().cdp_raw(tab, method, params).await;
        // Per-command timings, for profiling with RUST_LOG=tabwire::cdp=debug.
        tracing::debug!(target: "tabwire::cdp", method, ms = started.elapsed().as_secs_f64() * 1e3, "cdp");
        r.map_err(|e| self.tab_error(tab, e))
    }

    /// What every page command needs first: the tab's events flowing, and
    /// no dialog blocking `method`.
    pub async fn ready(&self, tab: TabId, method: &str) -> Result<(), ToolError> {
        let on = self.state().domains_on.contains(&tab);
        if !on {
            self.backend()
                .cdp_batch(tab, tab_setup())
                .await
                .map_err(|e| self.tab_error(tab, e))?;
            self.state().domains_on.insert(tab);
        }
        if !DIALOG_SAFE.contains(&method) {
            if let Some(d) = self.dialog(tab) {
                return Err(ToolError(d.describe()));
            }
        }
        // A crashed page answers nothing; only a new navigation revives it.
        if method != "Page.navigate" && self.state().events.crashed(tab) {
            return Err(ToolError(
                "the page in this tab crashed. Load it again with browser_navigate (its URL is \
                 in browser_tabs), or close the tab"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The JavaScript dialog blocking `tab`, if any.
    pub fn dialog(&self, tab: TabId) -> Option<Dialog> {
        self.state().events.dialog(tab)
    }

    /// Forgets `tab`'s dialog once a tool has handled it.
    /// A navigation replaced a crashed page's renderer.
    pub fn crash_replaced(&self, tab: TabId) {
        self.state()
            .events
            .record(tab, "Page.frameNavigated", &json!({"frame": {}}));
    }

    pub fn dialog_handled(&self, tab: TabId) {
        self.state()
            .events
            .record(tab, "Page.javascriptDialogClosed", &Value::Null);
    }

    /// Takes the file input of the chooser the page opened, if any.
    pub fn take_file_chooser(&self, tab: TabId) -> Option<i64> {
        self.state().events.take_file_chooser(tab)
    }

    /// The console output recorded for `tab`.
    pub fn console(&self, tab: TabId) -> Vec<ConsoleEntry> {
        self.state().events.console(tab)
    }

    /// A closed tab reported by an error needs no second notice later.
    pub fn tab_error(&self, tab: TabId, e: BackendError) -> ToolError {
        if matches!(e, BackendError::NoSuchTab | BackendError::Stale(_)) {
            let mut st = self.state();
            if st.current == Some(tab) {
                st.current = None;
            }
            if st.closed_notice == Some(tab) {
                st.closed_notice = None;
            }
            if st.snapshot.as_ref().is_some_and(|m| m.tab == tab) {
                st.snapshot = None;
            }
        }
        e.into()
    }

    /// Evaluates an expression in the page and returns its JSON value.
    pub async fn eval(&self, tab: TabId, expression: &str) -> Result<Value, ToolError> {
        let r = self
            .cdp(
                tab,
                "Runtime.evaluate",
                json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
            )
            .await?;
        page_value(r)
    }

    /// Calls `function` (a JS function expression) in the page with `arg`
    /// (JSON) as its argument; returns the JSON result, promises awaited.
    pub async fn call_page(
        &self,
        tab: TabId,
        function: &str,
        arg: Value,
    ) -> Result<Value, ToolError> {
        self.eval(tab, &format!("({function})({arg})")).await
    }

    /// Calls `function` (a JS function declaration) with the element as
    /// `this` and `arg` as its argument; returns the JSON result.
    pub async fn call_on(
        &self,
        tab: TabId,
        el: Element,
        function: &str,
        arg: Value,
    ) -> Result<Value, ToolError> {
        let session = el.session.as_deref();
        let resolved = el.object_id.is_none();
        let object_id = match &el.object_id {
            Some(id) => id.to_string(),
            None => {
                let node = self
                    .cdp_in(tab, session, "DOM.resolveNode", el.dom_params(json!({})))
                    .await?;
                node["object"]["objectId"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            }
        };
        let r = self
            .cdp_in(
                tab,
                session,
                "Runtime.callFunctionOn",
                json!({
                    "objectId": object_id,
                    "functionDeclaration": function,
                    "arguments": [{"value": arg}],
                    "returnByValue": true,
                    "awaitPromise": true,
                }),
            )
            .await;
        // A handle made for this call only: the browser would keep it (and
        // the element) for the document's life.
        if resolved {
            let _ = self
                .cdp_in(
                    tab,
                    session,
                    "Runtime.releaseObject",
                    json!({"objectId": object_id}),
                )
                .await;
        }
        page_value(r?)
    }

    /// The URL of the tab's page: from the browser, or (while a dialog
    /// blocks the page) the last one seen in navigation events.
    pub async fn url(&self, tab: TabId) -> Result<String, ToolError> {
        let stuck = self.dialog(tab).is_some() || self.state().events.crashed(tab);
        if stuck {
            if let Some(u) = self.state().events.url(tab) {
                return Ok(u);
            }
        }
        Ok(self.doc(tab).await?.url)
    }

    /// The top frame's document: as the latest navigation event described
    /// it, else asked from the browser once. Events and answers share one
    /// ordered stream, so an event-tracked document is as fresh as asking.
    pub(super) async fn doc(&self, tab: TabId) -> Result<super::events::Doc, ToolError> {
        // Make sure events flow before trusting them.
        self.ready(tab, "Page.getFrameTree").await?;
        if let Some(doc) = self.state().events.doc(tab) {
            return Ok(doc);
        }
        let tree = self.cdp(tab, "Page.getFrameTree", json!({})).await?;
        let frame = &tree["frameTree"]["frame"];
        let doc = super::events::Doc {
            frame_id: frame["id"].as_str().unwrap_or_default().to_string(),
            url: frame["unreachableUrl"]
                .as_str()
                .or(frame["url"].as_str())
                .unwrap_or("about:blank")
                .to_string(),
            loader_id: frame["loaderId"].as_str().unwrap_or_default().to_string(),
        };
        self.state().events.set_doc(tab, doc.clone());
        Ok(doc)
    }

    /// The current tab's last known URL (from navigation events), for the
    /// audit log; no browser round trip.
    pub fn last_url(&self) -> Option<String> {
        let st = self.state();
        st.current.and_then(|t| st.events.url(t))
    }

    /// After a navigation: if the page landed on a blocked domain (a
    /// redirect, a link), leave it for about:blank and say why.
    pub async fn enforce_after_navigation(&self, tab: TabId) -> Result<(), ToolError> {
        self.enforce_after_navigation_to(tab, None).await
    }

    /// [`Self::enforce_after_navigation`], also checking `committed`: the
    /// URL of the commit event the caller saw itself. The recorded URL
    /// comes from the event-recording task, which may not have caught up
    /// with that event yet.
    async fn enforce_after_navigation_to(
        &self,
        tab: TabId,
        committed: Option<&str>,
    ) -> Result<(), ToolError> {
        let url = self.url(tab).await?;
        let verdict = committed
            .map_or(Ok(()), |u| self.policy().check_url(u))
            .and_then(|()| self.policy().check_url(&url));
        if let Err(why) = verdict {
            let _ = self
                .cdp(tab, "Page.navigate", json!({"url": "about:blank"}))
                .await;
            return Err(ToolError(format!(
                "the page went to a place the policy blocks ({why}); tabwire left it for about:blank"
            )));
        }
        Ok(())
    }

    /// The main frame's current document id (changes on every navigation).
    pub async fn loader_id(&self, tab: TabId) -> Result<String, ToolError> {
        Ok(self.doc(tab).await?.loader_id)
    }

    /// Records a new snapshot: refs of the same document accumulate; a new
    /// document's snapshot turns the old document's refs stale.
    pub fn remember_snapshot(&self, mut mark: SnapshotMark) {
        let mut st = self.state();
        if let Some(prev) = st.snapshot.take() {
            mark.follow(prev);
        }
        st.snapshot = Some(mark);
    }

    pub fn last_snapshot(&self) -> Option<SnapshotMark> {
        self.state().snapshot.clone()
    }

    /// Runs `action`, then waits for a navigation it started (if any) to
    /// load. A dialog the action opens ends the wait at once (the page is
    /// blocked until it is handled) and is reported in the outcome.
    pub async fn settle<F, Fut>(&self, tab: TabId, action: F) -> Result<Outcome, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<(), ToolError>>,
    {
        // Subscribe before acting so no event can slip past.
        let mut events = self.backend().subscribe();
        let mut load_events = self.backend().subscribe();
        let mut dialogs = self.backend().subscribe();
        let mut opened = self.backend().subscribe();
        let mut downloads = self.backend().subscribe();
        let mut network = self.backend().subscribe();
        let console_before = self.state().events.console_len(tab);
        let chooser_before = self.state().events.file_chooser(tab);
        // Notes from before the action are not about it.
        self.take_notes(tab);
        // A tool leaving on purpose has its leave question answered.
        let dialog_opened = next_event(
            &mut dialogs,
            tab,
            if self.is_leaving(tab) {
                is_dialog_but_leave_question
            } else {
                is_dialog_opening
            },
        );
        tokio::pin!(dialog_opened);
        let mut outcome = Outcome::default();
        tokio::select! {
            r = action() => r?,
            Some(params) = &mut dialog_opened => {
                // Record it now: the event watcher may not have run yet.
                let mut st = self.state();
                st.events.record(tab, "Page.javascriptDialogOpening", &params);
                outcome.dialog = st.events.dialog(tab);
                return Ok(outcome);
            }
        }
        let started = self.navigation_started(tab, &mut events).await;
        if !started {
            // The page has run the tasks the action queued: the requests
            // they started are announced by now.
            let notes = self
                .wait_for_started_requests(tab, &mut network, true)
                .await;
            outcome.notes.extend(notes);
        }
        let mut new_document = false;
        if started {
            // The old document still answers until the new one commits:
            // wait for the commit (or the end of a load that never commits,
            // such as a download) before polling the new document.
            let commit = tokio::time::timeout(
                LOAD_TIMEOUT,
                next_event(&mut events, tab, is_navigation_commit),
            )
            .await
            .ok()
            .flatten();
            // A new top document's URL, as this wait saw it commit.
            let committed_url = commit
                .as_ref()
                .filter(|p| p["frame"].is_object() && p["frame"].get("parentId").is_none())
                // An error page stands for the URL that failed.
                .and_then(|p| {
                    p["frame"]["unreachableUrl"]
                        .as_str()
                        .or(p["frame"]["url"].as_str())
                });
            // The same document at another URL (Page.navigatedWithinDocument).
            let within = commit
                .as_ref()
                .filter(|p| p.get("frame").is_none())
                .and_then(|p| Some((p["url"].as_str()?, p["navigationType"].as_str())));
            new_document = committed_url.is_some();
            if let Some((url, kind)) = within {
                outcome.within_document = Some(url.to_string());
                outcome.fragment_only = kind == Some("fragment");
            }
            outcome.navigated = !outcome.fragment_only;
            // A page the policy blocks is left at once: nothing waits on
            // it, and the extension would refuse to read it anyway.
            if committed_url.is_some_and(|u| self.policy().check_url(u).is_err()) {
                self.enforce_after_navigation_to(tab, committed_url).await?;
            }
            outcome.load = self.wait_usable(tab, &mut load_events, true, None).await?;
            self.enforce_after_navigation_to(tab, committed_url).await?;
        }
        // Downloads announce themselves before the navigation that turned
        // into one ends, or (a download link, a script) by now.
        let mut started_downloads = Vec::new();
        while let Ok(event) = downloads.try_recv() {
            if let TabEvent::Cdp {
                tab: t,
                method,
                params,
            } = event
            {
                if t == tab && method == "Page.downloadWillBegin" {
                    started_downloads.push(params);
                }
            }
        }
        for d in started_downloads {
            let url = d["url"].as_str().unwrap_or_default();
            let name = d["suggestedFilename"].as_str().map(String::from);
            outcome
                .downloads
                .push(super::download::save_page_download(self, tab, url, name).await);
        }
        if !new_document && !outcome.downloads.is_empty() {
            // The navigation became a download: the page stayed.
            outcome.navigated = false;
        }
        outcome.dialog = self.dialog(tab);
        let chooser_now = self.state().events.file_chooser(tab);
        outcome.file_chooser = chooser_now.is_some() && chooser_now != chooser_before;
        // Tabs announce themselves before the action's answer comes back,
        // or within the navigation wait above.
        while let Ok(event) = opened.try_recv() {
            if let TabEvent::Opened { tab, url } = event {
                outcome.opened_tabs.push((tab, url));
            }
        }
        if !outcome.opened_tabs.is_empty() {
            // The first URL is often about:blank; the tab list knows more.
            if let Ok(tabs) = self.backend().list_tabs().await {
                // A popup that closed itself already (a sign-in window
                // that answered its opener) is no tab to switch to.
                let opened = outcome.opened_tabs.len();
                outcome
                    .opened_tabs
                    .retain(|(id, _)| tabs.iter().any(|t| t.tab_id == *id));
                if outcome.opened_tabs.len() < opened {
                    outcome.notes.push(
                        "The page opened a tab (a popup) that has closed itself again.".into(),
                    );
                }
                for (id, url) in &mut outcome.opened_tabs {
                    if let Some(t) = tabs.iter().find(|t| t.tab_id == *id) {
                        if !t.url.is_empty() {
                            *url = t.url.clone();
                        }
                    }
                }
            }
        }
        let notes = self.take_notes(tab);
        outcome
            .notes
            .extend(notes.into_iter().map(|n| format!("Note: {}.", n.text)));
        if outcome.navigated {
            outcome
                .notes
                .extend(super::interrupts::failed_load_note(self, tab));
        }
        // A same-document move can take several history steps (a theme
        // saves its scroll position on the old URL, then moves): name
        // where the page is now.
        if outcome.within_document.is_some() && !outcome.fragment_only {
            if let Ok(url) = self.url(tab).await {
                outcome.within_document = Some(url);
            }
        }
        outcome.new_errors = self
            .with_events(|e| e.console_since(tab, console_before))
            .into_iter()
            .filter(|e| e.level == "error")
            .collect();
        Ok(outcome)
    }

    /// Waits (at most [`started_requests::CAP`]) for the requests the
    /// action started to finish and for the DOM changes they cause to
    /// settle; what is still loading then is named in the note returned.
    /// `network` was subscribed before the action (or navigation) began.
    /// `streams`: wait for event streams started meanwhile while they send
    /// (after an action; a loading page's streams are its own).
    pub(super) async fn wait_for_started_requests(
        &self,
        tab: TabId,
        network: &mut tokio::sync::broadcast::Receiver<TabEvent>,
        streams: bool,
    ) -> Vec<String> {
        let mut requests = StartedRequests::new(streams);
        let observe = |event: TabEvent, requests: &mut StartedRequests| {
            if let TabEvent::Cdp {
                tab: t,
                method,
                params,
            } = event
            {
                if t == tab && method.starts_with("Network.") {
                    requests.observe(&method, &params);
                }
            }
        };
        loop {
            match network.try_recv() {
                Ok(event) => observe(event, &mut requests),
                Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => continue,
                Err(_) => break,
            }
        }
        if requests.started == 0 {
            return Vec::new();
        }
        let started_at = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + started_requests::CAP;
        let mut said = false;
        // A response's handler may start the next request (fetch, then
        // fetch the details): after the DOM settles, look again.
        loop {
            while !requests.is_done() && self.dialog(tab).is_none() {
                if !said && started_at.elapsed() > Duration::from_secs(1) {
                    said = true;
                    self.set_progress(Some(format!(
                        "waiting for what the action started: {}",
                        requests.still_loading()
                    )));
                }
                let tick = tokio::time::Instant::now() + Duration::from_millis(250);
                tokio::select! {
                    r = network.recv() => match r {
                        Ok(event) => observe(event, &mut requests),
                        Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => break,
                    },
                    _ = tokio::time::sleep_until(tick.min(deadline)) => {
                        if tokio::time::Instant::now() >= deadline {
                            break;
                        }
                    }
                }
            }
            // The responses are in: let the page render them (the DOM
            // quiet for 25 ms, at most 300 ms; never while a dialog blocks it).
            if self.dialog(tab).is_some() {
                break;
            }
            let quiet = self.eval(tab, DOM_QUIET);
            let _ = tokio::time::timeout(Duration::from_millis(1500), quiet).await;
            if !requests.is_done() || tokio::time::Instant::now() >= deadline {
                break;
            }
            loop {
                match network.try_recv() {
                    Ok(event) => observe(event, &mut requests),
                    Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => continue,
                    Err(_) => break,
                }
            }
            if requests.is_done() {
                break;
            }
        }
        if said {
            self.set_progress(None);
        }
        let mut notes = Vec::new();
        if requests.requests_pending() {
            notes.push(format!(
                "Still loading after {} s: {}. Its result is not in this answer; browser_wait_for \
                 waits for it.",
                started_requests::CAP.as_secs(),
                requests.still_loading()
            ));
        }
        let streams = requests.open_streams();
        if !streams.is_empty() {
            notes.push(format!(
                "An event stream the action opened is still open ({streams}): what it sends \
                 later is not in this answer; browser_wait_for waits for text it brings."
            ));
        }
        notes
    }

    /// Whether the action just run started a navigation. The page is asked
    /// to run one task queued after everything the action queued (a posted
    /// message): a navigation those tasks start announces itself before that
    /// answer, so the wait ends as soon as the page answers instead of after
    /// a fixed window. When the page cannot answer (busy, blocked by a
    /// dialog, already unloading) the wait is the old [`NAV_START_WINDOW`].
    async fn navigation_started(
        &self,
        tab: TabId,
        events: &mut tokio::sync::broadcast::Receiver<TabEvent>,
    ) -> bool {
        use futures_util::FutureExt as _;
        // Fused: polled again after it has ended, it stays pending.
        let nav = next_event(events, tab, is_navigation_start).fuse();
        let probe = self.cdp(
            tab,
            "Runtime.evaluate",
            json!({"expression": AFTER_QUEUED_TASKS, "awaitPromise": true, "returnByValue": true}),
        );
        let window = tokio::time::sleep(NAV_START_WINDOW);
        tokio::pin!(nav, probe, window);
        tokio::select! {
            Some(_) = &mut nav => true,
            r = &mut probe => {
                if r.is_ok_and(|v| v.get("exceptionDetails").is_none()) {
                    // The answer can overtake the event on its way through
                    // the backends' event fan-out: allow that hop a moment.
                    tokio::time::timeout(EVENT_HOP, &mut nav).await.ok().flatten().is_some()
                } else {
                    tokio::select! {
                        Some(_) = &mut nav => true,
                        _ = &mut window => false,
                    }
                }
            }
            _ = &mut window => false,
        }
    }

    /// The top frame's id, if navigation events told it.
    pub(super) fn known_main_frame(&self, tab: TabId) -> Option<String> {
        self.state().events.doc(tab).map(|d| d.frame_id)
    }

    /// Title and URL of the tab's page, for tool responses.
    pub async fn page_line(&self, tab: TabId) -> Result<String, ToolError> {
        let v = self
            .eval(tab, "({url: location.href, title: document.title})")
            .await?;
        Ok(format!(
            "Page: {} ({})",
            v["title"].as_str().unwrap_or(""),
            v["url"].as_str().unwrap_or("")
        ))
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

/// A JavaScript dialog opened.
fn is_dialog_opening(method: &str, _params: &Value) -> bool {
    method == "Page.javascriptDialogOpening"
}

/// A JavaScript dialog other than a `beforeunload` question opened.
fn is_dialog_but_leave_question(method: &str, params: &Value) -> bool {
    method == "Page.javascriptDialogOpening" && params["type"] != "beforeunload"
}

/// An action asked the page to navigate.
fn is_navigation_start(method: &str, _params: &Value) -> bool {
    matches!(
        method,
        "Page.frameRequestedNavigation"
            | "Page.frameStartedNavigating"
            | "Page.frameStartedLoading"
    )
}

/// The top frame committed a new document, or loading ended without one.
fn is_navigation_commit(method: &str, params: &Value) -> bool {
    match method {
        "Page.frameNavigated" => params["frame"].get("parentId").is_none(),
        "Page.navigatedWithinDocument" | "Page.frameStoppedLoading" => true,
        _ => false,
    }
}

/// The JSON value of a `Runtime.evaluate`/`callFunctionOn` result, or the
/// exception the page script threw.
fn page_value(r: Value) -> Result<Value, ToolError> {
    if let Some(ex) = r.get("exceptionDetails") {
        return Err(ToolError(format!(
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
