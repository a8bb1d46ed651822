//! The extension backend: CDP through `chrome.debugger`, relayed by a native
//! host connected to this serve's socket.
//!
//! The accept loop takes native-host connections (peer uid checked), expects
//! a `host-hello`, sends our `hello` request through to the extension and,
//! once the extension answers, makes that link the active one. Requests carry
//! an id and wait (with a timeout) for the matching response; events are
//! broadcast to the tools.
//!
//! A connection whose first frame is a `status-query` (from `tabwire
//! doctor`) gets one [`ServeStatus`] frame back and is closed.

use std::collections::HashMap;
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
    self, error_code, method, ExtensionInfo, FirstFrame, HostHello, Incoming, RemoteError, Request,
    ServeStatus, StatusQuery, UserStop,
};

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Box<RawValue>, RemoteError>>>>;

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

/// One native-host connection.
struct Link {
    tx: mpsc::Sender<Vec<u8>>,
    /// The extension's version, from its hello answer.
    version: std::sync::OnceLock<String>,
    /// The browser the extension runs in, from its hello answer.
    browser: std::sync::OnceLock<Option<String>>,
    host_pid: u32,
    pending: Pending,
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
}

struct Inner {
    opts: ExtensionOptions,
    /// The extension worker instance that answered the last hello.
    instance: Mutex<Option<String>>,
    /// Bumped when that instance changes (its tab ownership is gone).
    generation: AtomicU64,
    links: Mutex<Vec<Arc<Link>>>,
    link_added: Notify,
    /// Set once a call has waited the full grace period without a host.
    gave_up_once: AtomicBool,
    next_id: AtomicU64,
    events: broadcast::Sender<TabEvent>,
    /// The MCP client's name, told to the extension so its popup can name us.
    client_name: Mutex<Option<String>>,
    /// Native hosts connected right now (whether or not they answered hello).
    hosts: AtomicU32,
    /// The user's stop of this client, as the extension last reported it.
    stop: Mutex<Option<UserStop>>,
    /// The same, as the error text calls get, for tool calls to watch.
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
    /// Starts accepting native-host connections on `socket`.
    pub fn start(socket: Arc<ServeSocket>, opts: ExtensionOptions) -> Self {
        let (events, _) = broadcast::channel(1024);
        let inner = Arc::new(Inner {
            opts,
            instance: Mutex::new(None),
            generation: AtomicU64::new(0),
            links: Mutex::new(Vec::new()),
            link_added: Notify::new(),
            gave_up_once: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            events,
            client_name: Mutex::new(None),
            hosts: AtomicU32::new(0),
            stop: Mutex::new(None),
            stop_text: tokio::sync::watch::channel(None).0,
            waiting: Mutex::new(None),
        });
        tokio::spawn(accept_loop(socket, inner.clone()));
        Self { inner }
    }

    /// True when a native host with a live extension is connected.
    pub fn is_connected(&self) -> bool {
        self.inner.active_link().is_some()
    }

    /// Waits (within the connect timeout) for a live extension link, so that
    /// the link's generation is known before any tab handle is used.
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
        let links: Vec<Arc<Link>> = self.inner.links.lock().expect("links lock").clone();
        for link in links {
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
    pub fn serve_status(&self) -> ServeStatus {
        self.inner.serve_status()
    }

    async fn call(&self, method: &str, params: Value) -> Result<Value, BackendError> {
        let link = self.inner.wait_for_link().await?;
        self.inner.request(&link, method, params).await
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

    /// Takes the extension's word on this client's stop; a change is
    /// recorded in the audit log and ends the tool calls in flight.
    fn set_stop(&self, now: Option<UserStop>) {
        let before = {
            let mut stop = self.stop.lock().expect("stop lock");
            if *stop == now {
                return;
            }
            std::mem::replace(&mut *stop, now.clone())
        };
        let client = self
            .client_name
            .lock()
            .expect("name lock")
            .clone()
            .unwrap_or_else(|| "an unnamed MCP client".into());
        match &now {
            Some(s) => {
                tracing::warn!(scope = %s.scope, cause = %s.cause, "the user stopped browser control")
            }
            None => tracing::info!("the user resumed browser control"),
        }
        if let Some(audit) = &self.opts.audit {
            let (event, stop) = match (&now, &before) {
                (Some(s), _) => ("stopped_by_user", s),
                (None, Some(s)) => ("resumed_by_user", s),
                (None, None) => return,
            };
            audit.record_event(&client, event, &stop.scope, &stop.cause);
        }
        self.stop_text.send_replace(now.map(|s| s.message()));
    }

    fn serve_status(&self) -> ServeStatus {
        let extension = self.active_link().map(|link| ExtensionInfo {
            version: link.version.get().cloned().unwrap_or_else(|| "?".into()),
            browser: link.browser.get().cloned().flatten(),
            host_pid: link.host_pid,
        });
        ServeStatus {
            kind: ServeStatus::KIND.into(),
            v: protocol::PROTOCOL_VERSION,
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").into(),
            client: self.client_name.lock().expect("name lock").clone(),
            hosts: self.hosts.load(Ordering::SeqCst),
            extension,
        }
    }

    fn active_link(&self) -> Option<Arc<Link>> {
        let links = self.links.lock().expect("links lock");
        links
            .iter()
            .rev()
            .find(|l| !l.closed.load(Ordering::SeqCst))
            .cloned()
    }

    async fn wait_for_link(&self) -> Result<Arc<Link>, BackendError> {
        let grace = if self.gave_up_once.load(Ordering::SeqCst) {
            Duration::from_secs(1)
        } else {
            self.opts.connect_timeout
        };
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.link_added.notified();
            if let Some(link) = self.active_link() {
                return Ok(link);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                self.gave_up_once.store(true, Ordering::SeqCst);
                return Err(BackendError::NotConnected(format!(
                    "the tabwire browser extension is not connected (waited {:.0} s). \
                     Make sure Chrome is running with the tabwire extension loaded (see \
                     chrome://extensions) and that `tabwire install` registered the native \
                     host for that browser, then retry",
                    grace.as_secs_f64()
                )));
            }
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
        let reply = serde_json::to_vec(&inner.serve_status()).expect("status serializes");
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
        version: std::sync::OnceLock::new(),
        browser: std::sync::OnceLock::new(),
        host_pid: hello.pid,
        pending: Mutex::new(HashMap::new()),
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
                    tracing::info!(extension = %info, "extension answered hello");
                    let _ = link
                        .version
                        .set(info["version"].as_str().unwrap_or("?").to_string());
                    let _ = link
                        .browser
                        .set(info["browser"].as_str().map(str::to_string));
                    // Absent (an older extension) or null: not stopped.
                    inner.set_stop(serde_json::from_value(info["stopped"].clone()).ok());
                    let instance = info["instance"].as_str().unwrap_or("").to_string();
                    let previous = inner
                        .instance
                        .lock()
                        .expect("instance lock")
                        .replace(instance.clone());
                    if previous.is_some_and(|p| p != instance) {
                        tracing::info!("the extension restarted: earlier tab handles are void");
                        inner.generation.fetch_add(1, Ordering::SeqCst);
                    }
                    inner.links.lock().expect("links lock").push(link.clone());
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
    if inc.event.as_deref() == Some("control") {
        inner.set_stop(inc.stopped);
        return;
    }
    if inc.event.as_deref() == Some("waiting") {
        *inner.waiting.lock().expect("waiting lock") = inc.waiting;
        return;
    }
    let (Some(kind), Some(tab)) = (inc.event.as_deref(), inc.tab_id) else {
        return;
    };
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
    async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError> {
        let v = self.call(method::TABS_LIST, json!({})).await?;
        serde_json::from_value(v["tabs"].clone())
            .map_err(|e| BackendError::Other(format!("bad tab list from the extension: {e}")))
    }

    async fn new_tab(&self, url: &str, group: &str) -> Result<TabInfo, BackendError> {
        // Tools name the group after the MCP client.
        if self.inner.client_name.lock().expect("name lock").is_none() {
            self.name_client(group);
        }
        let v = self
            .call(method::TABS_CREATE, json!({"url": url, "group": group}))
            .await?;
        serde_json::from_value(v["tab"].clone())
            .map_err(|e| BackendError::Other(format!("bad tab from the extension: {e}")))
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.call(method::TABS_CLOSE, json!({"tabId": tab}))
            .await
            .map(|_| ())
    }

    async fn select_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.call(method::TABS_SELECT, json!({"tabId": tab}))
            .await
            .map(|_| ())
    }

    async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let link = self.inner.wait_for_link().await?;
        self.inner
            .request_raw(
                &link,
                method::CDP_SEND,
                json!({"tabId": tab, "method": method, "params": params}),
            )
            .await
            .map_err(|e| match e {
                // Name the CDP method, not the relay method, in errors.
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

    async fn cdp_raw_in(
        &self,
        tab: TabId,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let link = self.inner.wait_for_link().await?;
        self.inner
            .request_raw(
                &link,
                method::CDP_SEND,
                json!({"tabId": tab, "sessionId": session, "method": method, "params": params}),
            )
            .await
            .map_err(|e| match e {
                BackendError::Cdp { message, .. } => BackendError::Cdp {
                    method: method.into(),
                    message,
                },
                other => other,
            })
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
        let link = self.inner.wait_for_link().await?;
        let r = self
            .inner
            .request(
                &link,
                method::CDP_BATCH,
                json!({"tabId": tab, "commands": list}),
            )
            .await;
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

    fn generation(&self) -> u64 {
        self.inner.generation.load(Ordering::SeqCst)
    }

    fn note_call(&self, tool: &str, ok: bool) {
        let Some(link) = self.inner.active_link() else {
            return;
        };
        let inner = self.inner.clone();
        let params = json!({"tool": tool, "ok": ok});
        tokio::spawn(async move {
            let _ = inner.request(&link, method::NOTE, params).await;
        });
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
        match self.inner.active_link() {
            Some(link) => format!(
                "your browser through the tabwire extension {}",
                link.version.get().map(String::as_str).unwrap_or("?")
            ),
            None => "the tabwire extension (not connected)".into(),
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
        self.inner.events.subscribe()
    }
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
    fn a_tab_closed_during_a_call_is_no_such_tab() {
        let e = remote_to_backend("cdp.send", remote("no_such_tab", "tab 7 was closed"));
        assert!(matches!(e, BackendError::NoSuchTab), "{e:?}");
        assert!(e.to_string().contains("was closed"));
    }
}
