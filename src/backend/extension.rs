//! The extension backend: CDP through `chrome.debugger`, relayed by the
//! native hosts connected to this serve's socket — one per browser or
//! profile that runs the tabwire extension.
//!
//! The accept loop takes native-host connections (peer uid checked), expects
//! a `host-hello`, sends our `hello` request through to the extension and,
//! once the extension answers, keeps that link beside the others: a second
//! browser never replaces the first. Requests carry an id and wait (with a
//! timeout) for the matching response; events are broadcast to the tools.
//!
//! Tab handles are this serve's own numbers ([`Handles`]): Chrome's tab ids
//! of two browsers can be equal, so each handle names its browser and the
//! tab there. A handle works while its browser stays connected; when the
//! browser's extension restarts (a new worker instance), only that
//! browser's handles become void.
//!
//! A connection whose first frame is a `status-query` (from `tabwire
//! doctor`) gets one [`ServeStatus`] frame back and is closed.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::{broadcast, mpsc, oneshot, Notify};

use super::{Backend, BackendError, TabEvent, TabId, TabInfo};
use crate::audit::AuditLog;
use crate::broker::{self, ServeSocket};
use crate::frame::{self, FrameReader, Framing};
use crate::protocol::{
    self, error_code, method, BrowserInfo, ExtensionInfo, FirstFrame, HostHello, Incoming,
    RemoteError, Request, ServeStatus, StatusQuery, UserStop,
};

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Box<RawValue>, RemoteError>>>>;

/// How long a call on a tab waits for that tab's browser to come back (a
/// restarted native host) while other browsers are connected, before the
/// handle is reported stale.
const AWAY_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone)]
pub struct ExtensionOptions {
    /// Identifies this serve to the extension across host reconnects.
    pub server_id: String,
    /// How long the first call waits for a native host to connect.
    pub connect_timeout: Duration,
    /// How long any one request may take.
    pub call_timeout: Duration,
    pub max_frame: usize,
    /// The domain rules, sent with `hello` so the extension checks them too.
    pub policy: Value,
    /// Where the user's stops and resumes are recorded.
    pub audit: Option<Arc<AuditLog>>,
}

/// Who is at the other end of a link, from the extension's hello answer.
#[derive(Debug, Clone)]
struct Ident {
    /// Stable per browser profile (kept in the extension's storage).
    browser_id: String,
    /// The browser's tabwire name ("Chromium (kfad)", or the user's own).
    name: String,
    version: String,
    /// The browser product, e.g. "Chromium 156.0.7000.0".
    product: Option<String>,
    /// When the user marked it "Agents open new tabs here" (ms), if they did.
    new_tabs_here: Option<u64>,
}

/// One native-host connection: one browser (or profile).
struct Link {
    tx: mpsc::Sender<Vec<u8>>,
    host_pid: u32,
    pending: Pending,
    /// Ids of hello requests in flight: their answers name the browser.
    hello_ids: Mutex<HashSet<u64>>,
    /// Set from the first hello answer, before any event is routed.
    ident: Mutex<Option<Ident>>,
    closed: AtomicBool,
}

impl Link {
    fn fail_all(&self, why: &str) {
        self.closed.store(true, Ordering::SeqCst);
        for (_, waiter) in self.pending.lock().expect("pending lock").drain() {
            let _ = waiter.send(Err(RemoteError {
                code: "disconnected".into(),
                message: why.into(),
            }));
        }
    }

    fn ident(&self) -> Option<Ident> {
        self.ident.lock().expect("ident lock").clone()
    }

    fn browser_id(&self) -> Option<String> {
        self.ident().map(|i| i.browser_id)
    }

    fn name(&self) -> String {
        self.ident()
            .map_or_else(|| "the browser".to_string(), |i| i.name)
    }
}

/// This serve's tab handles: each names a browser and Chrome's tab id
/// there. Handles are never reused, so a void one cannot reach another tab.
#[derive(Debug, Default)]
struct Handles {
    last: TabId,
    of: HashMap<TabId, (String, i64)>,
    by_tab: HashMap<(String, i64), TabId>,
    /// Handles that no longer work, and why.
    void: HashMap<TabId, String>,
}

impl Handles {
    /// The handle of tab `tab` in browser `browser`, made on first sight.
    fn intern(&mut self, browser: &str, tab: i64) -> TabId {
        let key = (browser.to_string(), tab);
        if let Some(h) = self.by_tab.get(&key) {
            return *h;
        }
        self.last += 1;
        let h = self.last;
        self.of.insert(h, key.clone());
        self.by_tab.insert(key, h);
        h
    }

    /// Voids every handle of `browser` (its extension restarted and no
    /// longer knows which tabs were this client's).
    fn void_browser(&mut self, browser: &str, why: &str) {
        let gone: Vec<TabId> = self
            .of
            .iter()
            .filter(|(_, (b, _))| b == browser)
            .map(|(h, _)| *h)
            .collect();
        for h in gone {
            if let Some(key) = self.of.remove(&h) {
                self.by_tab.remove(&key);
            }
            self.void.insert(h, why.to_string());
        }
    }
}

/// What a serve remembers about a browser it has seen, connected or not.
#[derive(Debug, Clone)]
struct Known {
    instance: String,
    name: String,
}

struct Inner {
    opts: ExtensionOptions,
    /// Every browser seen so far, by browser id.
    known: Mutex<HashMap<String, Known>>,
    /// Live links that answered hello, in the order they connected.
    links: Mutex<Vec<Arc<Link>>>,
    link_added: Notify,
    handles: Mutex<Handles>,
    /// Set once a call has waited the full grace period without a host.
    gave_up_once: AtomicBool,
    next_id: AtomicU64,
    events: broadcast::Sender<TabEvent>,
    /// The MCP client's name, told to the extension so its popup can name us.
    client_name: Mutex<Option<String>>,
    /// Native hosts connected right now (whether or not they answered hello).
    hosts: AtomicU32,
    /// The user's stop of this client, per browser id, as each extension
    /// last reported it.
    stops: Mutex<HashMap<String, UserStop>>,
    /// The stop as the error text calls get, once every connected browser
    /// has stopped this client (a stop in one browser leaves the others
    /// running; that browser's extension refuses its own calls).
    stop_text: tokio::sync::watch::Sender<Option<String>>,
    /// What the extension waits for on this client's behalf (the user's
    /// answer about a site), for progress notifications.
    waiting: Mutex<Option<String>>,
}

/// Cheap to clone: clones share one connection state.
#[derive(Clone)]
pub struct ExtensionBackend {
    inner: Arc<Inner>,
}

impl ExtensionBackend {
    /// One CDP command through the extension, to the tab or to its child
    /// `session`; errors name the CDP method, not the relay method.
    async fn cdp_send(
        &self,
        tab: TabId,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let mut envelope = json!({"method": method, "params": params});
        if let Some(s) = session {
            envelope["sessionId"] = json!(s);
        }
        self.inner
            .tab_request_raw(tab, method::CDP_SEND, envelope)
            .await
            .map_err(|e| match e {
                BackendError::Cdp { message, .. } => BackendError::Cdp {
                    method: method.into(),
                    message,
                },
                BackendError::Timeout { secs, .. } => BackendError::Timeout {
                    what: method.into(),
                    secs,
                },
                other => other,
            })
    }

    /// Starts accepting native-host connections on `socket`.
    pub fn start(socket: Arc<ServeSocket>, opts: ExtensionOptions) -> Self {
        let (events, _) = broadcast::channel(1024);
        let inner = Arc::new(Inner {
            opts,
            known: Mutex::new(HashMap::new()),
            links: Mutex::new(Vec::new()),
            link_added: Notify::new(),
            handles: Mutex::new(Handles::default()),
            gave_up_once: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            events,
            client_name: Mutex::new(None),
            hosts: AtomicU32::new(0),
            stops: Mutex::new(HashMap::new()),
            stop_text: tokio::sync::watch::channel(None).0,
            waiting: Mutex::new(None),
        });
        tokio::spawn(accept_loop(socket, inner.clone()));
        Self { inner }
    }

    /// True when at least one native host with a live extension is connected.
    pub fn is_connected(&self) -> bool {
        !self.inner.live_links().is_empty()
    }

    /// Waits (within the connect timeout) for a live extension link.
    pub async fn ensure_link(&self) -> Result<(), BackendError> {
        self.inner.wait_for_link().await.map(|_| ())
    }

    /// Waits up to `limit` for the extension; true if it is connected.
    pub async fn wait_connected(&self, limit: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let notified = self.inner.link_added.notified();
            if self.is_connected() {
                return true;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return self.is_connected();
            }
        }
    }

    /// Records the MCP client's name and tells every connected extension,
    /// so the popup lists this client by name.
    fn name_client(&self, name: &str) {
        let name = name.trim();
        if name.is_empty() {
            return;
        }
        {
            let mut current = self.inner.client_name.lock().expect("name lock");
            if current.as_deref() == Some(name) {
                return;
            }
            *current = Some(name.to_string());
        }
        for link in self.inner.live_links() {
            let inner = self.inner.clone();
            tokio::spawn(async move {
                if let Err(e) = inner
                    .request(&link, method::HELLO, inner.hello_params())
                    .await
                {
                    tracing::debug!(error = %e, "could not tell the extension our client name");
                }
            });
        }
    }

    /// This serve's state, as `tabwire doctor` sees it.
    pub async fn serve_status(&self) -> ServeStatus {
        self.inner.serve_status().await
    }

    /// The tabs this client has in the browser of `link`, as handles.
    async fn tabs_in(&self, link: &Arc<Link>) -> Result<Vec<TabInfo>, BackendError> {
        let v = self
            .inner
            .request(link, method::TABS_LIST, json!({}))
            .await?;
        let tabs: Vec<TabInfo> = serde_json::from_value(v["tabs"].clone())
            .map_err(|e| BackendError::Other(format!("bad tab list from the extension: {e}")))?;
        Ok(tabs
            .into_iter()
            .filter_map(|t| self.inner.to_handle(link, t))
            .collect())
    }
}

impl Inner {
    fn hello_params(&self) -> Value {
        let mut params = json!({
            "v": protocol::PROTOCOL_VERSION,
            "server": self.opts.server_id,
            // The extension enforces the domain rules again (defense in depth).
            "policy": self.opts.policy,
            // How long the extension may wait for the user's answer about a
            // site: less than a call may take, so the answer still arrives.
            "consentTimeoutMs": self.opts.call_timeout.saturating_sub(Duration::from_secs(2)).max(Duration::from_secs(1)).as_millis() as u64,
        });
        if let Some(name) = self.client_name.lock().expect("name lock").clone() {
            params["client"] = json!(name);
        }
        params
    }

    /// Takes an extension's word on this client's stop in its browser; a
    /// change is recorded in the audit log, and once every connected
    /// browser has stopped this client the tool calls in flight end.
    fn set_stop(&self, browser_id: &str, name: &str, now: Option<UserStop>) {
        let before = {
            let mut stops = self.stops.lock().expect("stop lock");
            if stops.get(browser_id) == now.as_ref() {
                return;
            }
            match &now {
                Some(s) => stops.insert(browser_id.to_string(), s.clone()),
                None => stops.remove(browser_id),
            }
        };
        let client = self
            .client_name
            .lock()
            .expect("name lock")
            .clone()
            .unwrap_or_else(|| "an unnamed MCP client".into());
        match &now {
            Some(s) => {
                tracing::warn!(browser = %name, scope = %s.scope, cause = %s.cause, "the user stopped browser control")
            }
            None => tracing::info!(browser = %name, "the user resumed browser control"),
        }
        if let Some(audit) = &self.opts.audit {
            let (event, stop) = match (&now, &before) {
                (Some(s), _) => ("stopped_by_user", s),
                (None, Some(s)) => ("resumed_by_user", s),
                (None, None) => return self.recompute_stop(),
            };
            audit.record_event(&client, event, &stop.scope, &stop.cause);
        }
        self.recompute_stop();
    }

    /// The stop calls see: set when every connected browser (or, with none
    /// connected, every browser seen) has stopped this client.
    fn recompute_stop(&self) {
        let mut ids: Vec<String> = self
            .live_links()
            .iter()
            .filter_map(|l| l.browser_id())
            .collect();
        if ids.is_empty() {
            ids = self
                .known
                .lock()
                .expect("known lock")
                .keys()
                .cloned()
                .collect();
        }
        let stops = self.stops.lock().expect("stop lock");
        let text = if !ids.is_empty() && ids.iter().all(|b| stops.contains_key(b)) {
            stops.get(&ids[0]).map(UserStop::message)
        } else {
            None
        };
        drop(stops);
        self.stop_text.send_if_modified(|cur| {
            if *cur == text {
                false
            } else {
                *cur = text;
                true
            }
        });
    }

    fn stopped_in(&self, browser_id: &str) -> bool {
        self.stops
            .lock()
            .expect("stop lock")
            .contains_key(browser_id)
    }

    /// Reads a hello answer: who the browser is. A new worker instance
    /// voids that browser's handles (its tab ownership is gone).
    fn adopt_hello(&self, link: &Link, info: &Value) {
        let instance = info["instance"].as_str().unwrap_or("").to_string();
        // An extension from before browser names: one browser, one id.
        let browser_id = info["browserId"]
            .as_str()
            .filter(|s| !s.is_empty())
            .unwrap_or("default")
            .to_string();
        let product = info["browser"].as_str().map(str::to_string);
        let name = info["browserLabel"]
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .or_else(|| product.clone())
            .unwrap_or_else(|| "the browser".into());
        let ident = Ident {
            browser_id: browser_id.clone(),
            name: name.clone(),
            version: info["version"].as_str().unwrap_or("?").to_string(),
            product,
            new_tabs_here: info["newTabsHere"].as_u64(),
        };
        let previous = self.known.lock().expect("known lock").insert(
            browser_id.clone(),
            Known {
                instance: instance.clone(),
                name: name.clone(),
            },
        );
        if previous.is_some_and(|p| p.instance != instance) {
            tracing::info!(browser = %name, "the extension restarted: its earlier tab handles are void");
            self.handles.lock().expect("handles lock").void_browser(
                &browser_id,
                &format!(
                    "the browser \"{name}\" or its tabwire extension restarted, so this tab is no \
                     longer under tabwire's control (it stays open in the browser). Call \
                     browser_tabs with action \"list\" and pick a tab again, or open one"
                ),
            );
        }
        *link.ident.lock().expect("ident lock") = Some(ident);
        // Absent (an older extension) or null: not stopped.
        self.set_stop(
            &browser_id,
            &name,
            serde_json::from_value(info["stopped"].clone()).ok(),
        );
    }

    /// The user renamed the browser or marked it for new tabs.
    fn adopt_browser_event(&self, link: &Link, params: &Value) {
        let mut guard = link.ident.lock().expect("ident lock");
        let Some(ident) = guard.as_mut() else {
            return;
        };
        if let Some(name) = params["browserLabel"]
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            ident.name = name.to_string();
            if let Some(k) = self
                .known
                .lock()
                .expect("known lock")
                .get_mut(&ident.browser_id)
            {
                k.name = name.to_string();
            }
        }
        if params.get("newTabsHere").is_some() {
            ident.new_tabs_here = params["newTabsHere"].as_u64();
        }
    }

    /// A tab as the extension described it, with this serve's handle.
    fn to_handle(&self, link: &Link, mut t: TabInfo) -> Option<TabInfo> {
        let ident = link.ident()?;
        t.tab_id = self
            .handles
            .lock()
            .expect("handles lock")
            .intern(&ident.browser_id, t.tab_id);
        t.browser = Some(ident.name);
        Some(t)
    }

    fn live_links(&self) -> Vec<Arc<Link>> {
        self.links
            .lock()
            .expect("links lock")
            .iter()
            .filter(|l| !l.closed.load(Ordering::SeqCst))
            .cloned()
            .collect()
    }

    /// The newest live link to browser `browser_id`.
    fn link_of(&self, browser_id: &str) -> Option<Arc<Link>> {
        self.live_links()
            .into_iter()
            .rev()
            .find(|l| l.browser_id().as_deref() == Some(browser_id))
    }

    /// Where new tabs open: the browser the user marked "Agents open new
    /// tabs here" (the latest mark wins), else the one connected first; a
    /// browser where the user stopped this client only when all did.
    fn default_link(&self) -> Option<Arc<Link>> {
        let links = self.live_links();
        let running: Vec<&Arc<Link>> = links
            .iter()
            .filter(|l| !l.browser_id().is_some_and(|b| self.stopped_in(&b)))
            .collect();
        let marked = running
            .iter()
            .filter_map(|l| Some((l.ident()?.new_tabs_here?, *l)))
            .max_by_key(|(since, _)| *since)
            .map(|(_, l)| l.clone());
        marked
            .or_else(|| running.first().map(|l| (*l).clone()))
            .or_else(|| links.first().cloned())
    }

    /// The live link whose browser is called `name` (its tabwire name,
    /// case aside, or a unique part of it).
    fn link_named(&self, name: &str) -> Result<Arc<Link>, BackendError> {
        let links = self.live_links();
        let want = name.trim().to_lowercase();
        let named = |l: &&Arc<Link>| l.ident().map(|i| (i.name.to_lowercase(), i.browser_id));
        if let Some(l) = links
            .iter()
            .find(|l| named(l).is_some_and(|(n, id)| n == want || id == name))
        {
            return Ok(l.clone());
        }
        let partial: Vec<&Arc<Link>> = links
            .iter()
            .filter(|l| named(l).is_some_and(|(n, _)| !want.is_empty() && n.contains(&want)))
            .collect();
        if let [one] = partial.as_slice() {
            return Ok((*one).clone());
        }
        let names: Vec<String> = links.iter().map(|l| format!("\"{}\"", l.name())).collect();
        Err(BackendError::Other(format!(
            "no connected browser is named {name:?}; connected: {}. Pass one of these names as \
             `browser`, or leave it out",
            names.join(", ")
        )))
    }

    async fn wait_for_link(&self) -> Result<Arc<Link>, BackendError> {
        let grace = self.grace();
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.link_added.notified();
            if let Some(link) = self.live_links().into_iter().next() {
                return Ok(link);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(self.not_connected(grace));
            }
        }
    }

    fn grace(&self) -> Duration {
        if self.gave_up_once.load(Ordering::SeqCst) {
            Duration::from_secs(1)
        } else {
            self.opts.connect_timeout
        }
    }

    fn not_connected(&self, grace: Duration) -> BackendError {
        self.gave_up_once.store(true, Ordering::SeqCst);
        BackendError::NotConnected(format!(
            "the tabwire browser extension is not connected (waited {:.0} s). \
             Make sure Chrome is running with the tabwire extension loaded (see \
             chrome://extensions) and that `tabwire install` registered the native \
             host for that browser, then retry",
            grace.as_secs_f64()
        ))
    }

    /// The link and Chrome's tab id behind a handle. A handle whose browser
    /// is away is waited for a moment (a native host restarting), then
    /// reported stale while other browsers carry on.
    async fn resolve(&self, handle: TabId) -> Result<(Arc<Link>, i64), BackendError> {
        let alone = self.live_links().is_empty();
        let grace = if alone { self.grace() } else { AWAY_GRACE };
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.link_added.notified();
            let (browser, tab) = {
                let h = self.handles.lock().expect("handles lock");
                if let Some(why) = h.void.get(&handle) {
                    return Err(BackendError::Stale(why.clone()));
                }
                match h.of.get(&handle) {
                    Some(k) => k.clone(),
                    None => {
                        return Err(BackendError::Stale(format!(
                            "tab handle {handle} is not one of this client's tabs. Call \
                             browser_tabs with action \"list\" and pick a tab again"
                        )))
                    }
                }
            };
            if let Some(link) = self.link_of(&browser) {
                return Ok((link, tab));
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                if self.live_links().is_empty() {
                    return Err(self.not_connected(grace));
                }
                let name = self
                    .known
                    .lock()
                    .expect("known lock")
                    .get(&browser)
                    .map_or_else(|| "its browser".to_string(), |k| format!("\"{}\"", k.name));
                return Err(BackendError::Stale(format!(
                    "that tab is in {name}, which is no longer connected (the browser quit, or its \
                     tabwire extension stopped); your tabs in other browsers still work. Call \
                     browser_tabs with action \"list\" and pick a tab again"
                )));
            }
        }
    }

    /// One line per connected browser: its name, extension, this client's
    /// tabs there, the user's marks.
    async fn browsers(&self) -> Vec<BrowserInfo> {
        let links = self.live_links();
        let default = self.default_link();
        let mut out = Vec::new();
        for link in links {
            let Some(ident) = link.ident() else { continue };
            let tabs = tokio::time::timeout(
                Duration::from_secs(2),
                self.request(&link, method::TABS_LIST, json!({})),
            )
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|v| v["tabs"].as_array().map(Vec::len));
            out.push(BrowserInfo {
                name: ident.name.clone(),
                version: ident.version.clone(),
                browser: ident.product.clone(),
                host_pid: link.host_pid,
                tabs,
                new_tabs_here: default.as_ref().is_some_and(|d| Arc::ptr_eq(d, &link)),
                stopped: self.stopped_in(&ident.browser_id),
            });
        }
        out
    }

    async fn serve_status(&self) -> ServeStatus {
        let browsers = self.browsers().await;
        let extension = browsers.first().map(|b| ExtensionInfo {
            version: b.version.clone(),
            browser: b.browser.clone(),
            host_pid: b.host_pid,
        });
        ServeStatus {
            kind: ServeStatus::KIND.into(),
            v: protocol::PROTOCOL_VERSION,
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").into(),
            client: self.client_name.lock().expect("name lock").clone(),
            hosts: self.hosts.load(Ordering::SeqCst),
            extension,
            browsers,
        }
    }

    /// [`Self::request_raw`], parsed.
    async fn request(
        &self,
        link: &Link,
        method: &str,
        params: Value,
    ) -> Result<Value, BackendError> {
        let raw = self.request_raw(link, method, params).await?;
        super::parse_result(method, &raw)
    }

    async fn request_raw(
        &self,
        link: &Link,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        link.pending.lock().expect("pending lock").insert(id, tx);
        if method == method::HELLO {
            link.hello_ids.lock().expect("hello lock").insert(id);
        }
        let body = serde_json::to_vec(&Request {
            id,
            method: method.into(),
            params,
        })
        .map_err(|e| BackendError::Other(format!("could not encode {method}: {e}")))?;
        if link.tx.send(body).await.is_err() {
            link.pending.lock().expect("pending lock").remove(&id);
            return Err(BackendError::NotConnected(
                "the native host connection closed; retry in a moment".into(),
            ));
        }
        let secs = self.opts.call_timeout.as_secs();
        match tokio::time::timeout(self.opts.call_timeout, rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(remote_to_backend(method, e)),
            Ok(Err(_)) => Err(BackendError::NotConnected(
                "the native host connection closed during the call; retry in a moment".into(),
            )),
            Err(_) => {
                link.pending.lock().expect("pending lock").remove(&id);
                Err(BackendError::Timeout {
                    what: method.into(),
                    secs,
                })
            }
        }
    }

    /// Sends a tab request to the browser the handle lives in, with
    /// Chrome's tab id in place of the handle.
    async fn tab_request_raw(
        &self,
        handle: TabId,
        method: &str,
        mut params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let (link, tab) = self.resolve(handle).await?;
        params["tabId"] = json!(tab);
        self.request_raw(&link, method, params).await
    }
}

fn remote_to_backend(method: &str, e: RemoteError) -> BackendError {
    match e.code.as_str() {
        "no_such_tab" => BackendError::NoSuchTab,
        "disconnected" => BackendError::NotConnected(e.message),
        // Chrome refused to attach to the tab: asking again will not help,
        // so this is final and says what to do.
        "debugger_busy" => BackendError::Other(e.message),
        // The user's emergency stop: final until they resume.
        error_code::STOPPED_BY_USER => BackendError::StoppedByUser(e.message),
        // The user's answer about a site: final for this call.
        error_code::SITE_DENIED => BackendError::Other(e.message),
        "cdp" => BackendError::Cdp {
            method: method.into(),
            message: e.message,
        },
        _ => BackendError::Other(e.message),
    }
}

async fn accept_loop(socket: Arc<ServeSocket>, inner: Arc<Inner>) {
    use interprocess::local_socket::traits::tokio::Listener as _;
    loop {
        match socket.listener.accept().await {
            Ok(stream) => {
                let inner = inner.clone();
                tokio::spawn(async move {
                    if let Err(why) = run_link(stream, inner).await {
                        tracing::debug!(%why, "native host connection ended");
                    }
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

/// Handshake, then pump one native-host connection until it closes.
async fn run_link(
    stream: interprocess::local_socket::tokio::Stream,
    inner: Arc<Inner>,
) -> Result<(), String> {
    broker::check_peer(&stream).map_err(|e| format!("peer refused: {e}"))?;
    let max = inner.opts.max_frame;
    // `&Stream` reads and writes: share it instead of splitting.
    let stream = Arc::new(stream);
    let mut reader = FrameReader::new(&*stream, Framing::Socket, max);

    let first = tokio::time::timeout(Duration::from_secs(5), reader.read_frame())
        .await
        .map_err(|_| "no host-hello within 5 s".to_string())?
        .map_err(|e| e.to_string())?
        .ok_or("closed before host-hello")?;
    let kind: FirstFrame =
        serde_json::from_slice(&first).map_err(|e| format!("bad first frame: {e}"))?;
    if kind.kind == StatusQuery::KIND {
        let reply = serde_json::to_vec(&inner.serve_status().await).expect("status serializes");
        frame::write_frame(&mut &*stream, &reply, Framing::Socket, max)
            .await
            .map_err(|e| format!("could not answer a status query: {e}"))?;
        return Ok(());
    }
    let hello: HostHello =
        serde_json::from_slice(&first).map_err(|e| format!("bad host-hello: {e}"))?;
    if hello.kind != HostHello::KIND || hello.v != protocol::PROTOCOL_VERSION {
        tracing::error!(
            got = hello.v,
            want = protocol::PROTOCOL_VERSION,
            "native host speaks another protocol version; run `tabwire install` again so \
             browser and server use the same tabwire"
        );
        return Err("protocol version mismatch".into());
    }
    tracing::info!(host_pid = hello.pid, "native host connected");
    inner.hosts.fetch_add(1, Ordering::SeqCst);

    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
    let link = Arc::new(Link {
        tx,
        host_pid: hello.pid,
        pending: Mutex::new(HashMap::new()),
        hello_ids: Mutex::new(HashSet::new()),
        ident: Mutex::new(None),
        closed: AtomicBool::new(false),
    });
    let write_side = stream.clone();
    let writer = tokio::spawn(async move {
        while let Some(body) = rx.recv().await {
            if let Err(e) = frame::write_frame(&mut &*write_side, &body, Framing::Socket, max).await
            {
                tracing::info!(error = %e, "write to native host failed");
                break;
            }
        }
    });

    // Say hello to the extension in the background, so the reader below is
    // already pumping when the answer arrives.
    let greeter = {
        let inner = inner.clone();
        let link = link.clone();
        tokio::spawn(async move {
            let params = inner.hello_params();
            match inner.request(&link, method::HELLO, params.clone()).await {
                Ok(info) => {
                    // Who the browser is was read from this answer as it
                    // arrived (see dispatch), before any of its events.
                    tracing::info!(extension = %info, browser = %link.name(), "extension answered hello");
                    inner.links.lock().expect("links lock").push(link.clone());
                    inner.recompute_stop();
                    inner.link_added.notify_waiters();
                    // The client's name may have arrived while we waited.
                    let now = inner.hello_params();
                    if now != params {
                        let _ = inner.request(&link, method::HELLO, now).await;
                    }
                }
                Err(e) => tracing::warn!(error = %e, "extension did not answer hello"),
            }
        })
    };

    let end = loop {
        match reader.read_frame().await {
            Ok(Some(msg)) => dispatch(&msg, &link, &inner),
            Ok(None) => break "native host disconnected".to_string(),
            Err(e) => break format!("bad frame from native host: {e}"),
        }
    };
    tracing::info!(reason = %end, "native host link closed");
    inner.hosts.fetch_sub(1, Ordering::SeqCst);
    greeter.abort();
    writer.abort();
    link.fail_all(&format!(
        "{end}; the browser or its extension went away. Retry; if it persists, check that Chrome is running"
    ));
    inner
        .links
        .lock()
        .expect("links lock")
        .retain(|l| !Arc::ptr_eq(l, &link));
    inner.recompute_stop();
    Ok(())
}

/// Routes one message from the extension: a response or an event.
fn dispatch(msg: &[u8], link: &Link, inner: &Inner) {
    let inc: Incoming = match serde_json::from_slice(msg) {
        Ok(m) => m,
        Err(e) => {
            tracing::warn!(error = %e, "ignoring malformed message from the extension");
            return;
        }
    };
    if let Some(id) = inc.id {
        let hello = link.hello_ids.lock().expect("hello lock").remove(&id);
        if hello && inc.error.is_none() {
            if let Some(info) = inc
                .result
                .as_ref()
                .and_then(|r| serde_json::from_str::<Value>(r.get()).ok())
            {
                inner.adopt_hello(link, &info);
            }
        }
        let waiter = link.pending.lock().expect("pending lock").remove(&id);
        if let Some(waiter) = waiter {
            let outcome = match inc.error {
                Some(e) => Err(e),
                None => Ok(inc.result.unwrap_or_else(|| RawValue::NULL.to_owned())),
            };
            let _ = waiter.send(outcome);
        }
        return;
    }
    let Some(ident) = link.ident() else {
        // Nothing is routed before the extension said who it is.
        return;
    };
    if inc.event.as_deref() == Some("control") {
        inner.set_stop(&ident.browser_id, &ident.name, inc.stopped);
        return;
    }
    if inc.event.as_deref() == Some("browser") {
        inner.adopt_browser_event(link, inc.params.as_ref().unwrap_or(&Value::Null));
        return;
    }
    if inc.event.as_deref() == Some("waiting") {
        *inner.waiting.lock().expect("waiting lock") = inc.waiting;
        return;
    }
    let (Some(kind), Some(tab)) = (inc.event.as_deref(), inc.tab_id) else {
        return;
    };
    let tab = inner
        .handles
        .lock()
        .expect("handles lock")
        .intern(&ident.browser_id, tab);
    // A child session's events (an out-of-process frame) are not the
    // tab's page events: navigation and dialogs are the top frame's.
    // Frames attaching inside a frame are let through (for frames inside
    // frames).
    if kind == "cdp"
        && inc.session_id.is_some()
        && !matches!(
            inc.method.as_deref(),
            Some("Target.attachedToTarget" | "Target.detachedFromTarget")
        )
    {
        return;
    }
    let event = match kind {
        "cdp" => TabEvent::Cdp {
            tab,
            method: inc.method.unwrap_or_default(),
            params: inc.params.unwrap_or(Value::Null),
        },
        "tabClosed" => TabEvent::Closed { tab },
        "tabOpened" => TabEvent::Opened {
            tab,
            url: inc
                .params
                .as_ref()
                .and_then(|p| p["url"].as_str())
                .unwrap_or("")
                .to_string(),
        },
        "detached" => TabEvent::Detached {
            tab,
            reason: inc.reason.unwrap_or_default(),
        },
        _ => return,
    };
    let _ = inner.events.send(event);
}

#[async_trait]
impl Backend for ExtensionBackend {
    /// Every connected browser's tabs of this client, browser by browser in
    /// the order they connected, each labelled with its browser.
    async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError> {
        self.inner.wait_for_link().await?;
        let links = self.inner.live_links();
        let answers = futures_util::future::join_all(links.iter().map(|l| self.tabs_in(l))).await;
        let mut tabs = Vec::new();
        let mut first_error = None;
        let mut answered = false;
        for (link, answer) in links.iter().zip(answers) {
            match answer {
                Ok(t) => {
                    answered = true;
                    tabs.extend(t);
                }
                Err(e) => {
                    // A browser going away or stopped leaves the others listed.
                    tracing::debug!(browser = %link.name(), error = %e, "no tab list from a browser");
                    first_error.get_or_insert(e);
                }
            }
        }
        match (answered, first_error) {
            (false, Some(e)) => Err(e),
            _ => Ok(tabs),
        }
    }

    async fn new_tab(&self, url: &str, group: &str) -> Result<TabInfo, BackendError> {
        self.new_tab_in(url, group, None).await
    }

    async fn new_tab_in(
        &self,
        url: &str,
        group: &str,
        browser: Option<&str>,
    ) -> Result<TabInfo, BackendError> {
        // Tools name the group after the MCP client.
        if self.inner.client_name.lock().expect("name lock").is_none() {
            self.name_client(group);
        }
        let first = self.inner.wait_for_link().await?;
        let link = match browser {
            Some(name) => self.inner.link_named(name)?,
            None => self.inner.default_link().unwrap_or(first),
        };
        let v = self
            .inner
            .request(
                &link,
                method::TABS_CREATE,
                json!({"url": url, "group": group}),
            )
            .await?;
        let tab: TabInfo = serde_json::from_value(v["tab"].clone())
            .map_err(|e| BackendError::Other(format!("bad tab from the extension: {e}")))?;
        self.inner.to_handle(&link, tab).ok_or_else(|| {
            BackendError::Other("the extension has not said which browser it is".into())
        })
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.inner
            .tab_request_raw(tab, method::TABS_CLOSE, json!({}))
            .await
            .map(|_| ())
    }

    async fn select_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.inner
            .tab_request_raw(tab, method::TABS_SELECT, json!({}))
            .await
            .map(|_| ())
    }

    async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        self.cdp_send(tab, None, method, params).await
    }

    async fn cdp_raw_in(
        &self,
        tab: TabId,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        self.cdp_send(tab, Some(session), method, params).await
    }

    async fn cdp_batch(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<Vec<Value>, BackendError> {
        let first = commands.first().map_or("", |c| c.0);
        let list: Vec<Value> = commands
            .iter()
            .map(|(m, p)| json!({"method": m, "params": p}))
            .collect();
        let r = self
            .inner
            .tab_request_raw(tab, method::CDP_BATCH, json!({"commands": list}))
            .await
            .and_then(|raw| super::parse_result(method::CDP_BATCH, &raw));
        match r {
            Ok(v) => Ok(v["results"].as_array().cloned().unwrap_or_default()),
            // An extension from before cdp.batch: one message per command.
            Err(BackendError::Other(m)) | Err(BackendError::Cdp { message: m, .. })
                if m.contains("unknown method") =>
            {
                super::cdp_in_order(self, tab, commands).await
            }
            Err(BackendError::Cdp { message, .. }) => Err(BackendError::Cdp {
                method: first.into(),
                message,
            }),
            Err(e) => Err(e),
        }
    }

    fn client_named(&self, name: &str) {
        self.name_client(name);
    }

    fn is_void(&self, tab: TabId) -> bool {
        self.inner
            .handles
            .lock()
            .expect("handles lock")
            .void
            .contains_key(&tab)
    }

    fn browsers(&self) -> Vec<(String, bool)> {
        let default = self.inner.default_link();
        self.inner
            .live_links()
            .iter()
            .map(|l| {
                let here = default.as_ref().is_some_and(|d| Arc::ptr_eq(d, l));
                (l.name(), here)
            })
            .collect()
    }

    fn note_call(&self, tool: &str, ok: bool) {
        let params = json!({"tool": tool, "ok": ok});
        for link in self.inner.live_links() {
            let inner = self.inner.clone();
            let params = params.clone();
            tokio::spawn(async move {
                let _ = inner.request(&link, method::NOTE, params).await;
            });
        }
    }

    fn progress_message(&self) -> String {
        if let Some(what) = self.inner.waiting.lock().expect("waiting lock").clone() {
            return format!("waiting for {what}");
        }
        if self.is_connected() {
            "waiting for the browser".into()
        } else {
            "waiting for the tabwire browser extension to connect".into()
        }
    }

    fn user_stop(&self) -> Option<tokio::sync::watch::Receiver<Option<String>>> {
        Some(self.inner.stop_text.subscribe())
    }

    async fn status(&self) -> String {
        let browsers = self.inner.browsers().await;
        let Some(first) = browsers.first() else {
            return "the tabwire extension (not connected)".into();
        };
        let mut out = format!(
            "your browser through the tabwire extension {}\nBrowsers connected: {}",
            first.version,
            browsers.len()
        );
        for b in &browsers {
            out.push_str(&format!("\n- {}", describe_browser(b)));
        }
        out
    }

    fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
        self.inner.events.subscribe()
    }
}

/// One connected browser in words, for `browser_status` and doctor:
/// `"Work Chrome" (Chromium 156, extension 0.1.0): 2 tabs of yours, new tabs open here`.
pub fn describe_browser(b: &BrowserInfo) -> String {
    let mut s = format!(
        "\"{}\" ({}, extension {}): ",
        b.name,
        b.browser.as_deref().unwrap_or("an unknown browser"),
        b.version
    );
    match b.tabs {
        Some(1) => s.push_str("1 tab"),
        Some(n) => s.push_str(&format!("{n} tabs")),
        None => s.push_str("tabs unknown"),
    }
    if b.new_tabs_here {
        s.push_str(", new tabs open here");
    }
    if b.stopped {
        s.push_str(", STOPPED by the user here");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(code: &str, message: &str) -> RemoteError {
        RemoteError {
            code: code.into(),
            message: message.into(),
        }
    }

    #[test]
    fn a_refused_attach_is_a_final_error_that_names_the_cause() {
        let why = "another debugger (DevTools or another extension) is attached to this tab and \
                   tabwire could not take it over (Another debugger is already attached to the \
                   tab with id: 7.). Close that debugger or use another tab";
        let e = remote_to_backend("cdp.send", remote("debugger_busy", why));
        assert!(matches!(e, BackendError::Other(_)), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains("another debugger") && text.contains("another tab"),
            "{text}"
        );
    }

    #[test]
    fn the_users_stop_is_its_own_final_error() {
        let why = UserStop {
            scope: "all".into(),
            cause: UserStop::CANCELED_BY_USER.into(),
        }
        .message();
        let e = remote_to_backend("cdp.send", remote("stopped_by_user", &why));
        assert!(matches!(e, BackendError::StoppedByUser(_)), "{e:?}");
        assert!(e.to_string().contains("stopped by the user"), "{e}");
        assert!(e.to_string().contains("Resume"), "{e}");
    }

    #[test]
    fn equal_tab_ids_of_two_browsers_get_distinct_handles_and_a_restart_voids_only_its_own() {
        let mut h = Handles::default();
        let a7 = h.intern("browser-a", 7);
        let b7 = h.intern("browser-b", 7);
        assert_ne!(a7, b7);
        assert_eq!(h.intern("browser-a", 7), a7, "a tab keeps its handle");
        assert_eq!(h.of[&b7], ("browser-b".to_string(), 7));
        h.void_browser("browser-b", "restarted");
        assert_eq!(h.void.get(&b7).map(String::as_str), Some("restarted"));
        assert!(!h.void.contains_key(&a7));
        assert_eq!(h.of[&a7], ("browser-a".to_string(), 7));
        // The same tab id seen again after the restart is a new handle.
        let b7_again = h.intern("browser-b", 7);
        assert!(b7_again != b7 && b7_again != a7);
    }

    #[test]
    fn a_browser_is_described_with_its_name_tabs_and_marks() {
        let b = BrowserInfo {
            name: "Work Chrome".into(),
            version: "0.1.0".into(),
            browser: Some("Chromium 156".into()),
            host_pid: 9,
            tabs: Some(2),
            new_tabs_here: true,
            stopped: true,
        };
        assert_eq!(
            describe_browser(&b),
            "\"Work Chrome\" (Chromium 156, extension 0.1.0): 2 tabs, new tabs open here, \
             STOPPED by the user here"
        );
    }

    #[test]
    fn a_tab_closed_during_a_call_is_no_such_tab() {
        let e = remote_to_backend("cdp.send", remote("no_such_tab", "tab 7 was closed"));
        assert!(matches!(e, BackendError::NoSuchTab), "{e:?}");
        assert!(e.to_string().contains("was closed"));
    }
}
