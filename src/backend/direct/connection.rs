//! One connection to a browser, as tabwire keeps it: commands sent and
//! the answers they wait for, the page targets that are tabs and the
//! sessions they are driven through, and which tab a download belongs to.
//! `reader.rs` feeds it what the browser sends; `mod.rs` opens it
//! (launching or attaching) and puts the `Backend` trait on top.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::{broadcast, oneshot};

use super::TAB_ID_BASE;
use crate::backend::{BackendError, TabEvent, TabId};

/// Tab ids are never reused within a process, not even by a browser
/// launched to replace one that died: an old handle must not name a tab of
/// the new browser.
static NEXT_TAB: AtomicU64 = AtomicU64::new(0);

/// Error code given to commands still waiting when the browser's pipe
/// closes (CDP's own codes are negative JSON-RPC codes, never this).
pub(super) const CONNECTION_CLOSED: i64 = i64::MIN;

pub(super) type Reply = Result<Box<RawValue>, (i64, String)>;

/// A command waiting for its answer, and the session it was sent on.
pub(super) struct Waiter {
    pub(super) session: Option<String>,
    pub(super) reply: oneshot::Sender<Reply>,
}

/// What a command gets when its tab's session ends before it is answered
/// (Chromium never answers it: without this it would wait out the timeout).
pub(super) const SESSION_ENDED: &str = "the tab's debugging session ended during the call";

#[derive(Default)]
pub(super) struct Targets {
    /// Page targets in creation order.
    pub(super) order: Vec<String>,
    pub(super) info: HashMap<String, (String, String)>, // targetId → (url, title)
    pub(super) tab_of: HashMap<String, TabId>,
    target_of: HashMap<TabId, String>,
    pub(super) session_of: HashMap<TabId, String>,
    pub(super) tab_of_session: HashMap<String, TabId>,
    /// Child sessions (out-of-process frames) and the tab they are in:
    /// only their attach/detach events reach the tab (for frames inside
    /// frames); the rest of their traffic is not the tab's page events.
    pub(super) tab_of_child: HashMap<String, TabId>,
    /// Tab sessions whose paused requests serve answers (it routes some
    /// of them: [`crate::backend::holds_paused`]); others go on from here.
    pub(super) held: std::collections::HashSet<String>,
    pub(super) active: Option<TabId>,
    /// The blank tab a launched browser starts with, until something uses
    /// it: the first "new tab" adopts it instead of opening a second one.
    pub(super) spare: Option<TabId>,
}

pub(super) struct Inner {
    pub(super) tx: tokio::sync::mpsc::UnboundedSender<String>,
    pub(super) pending: Mutex<HashMap<u64, Waiter>>,
    pub(super) next_id: AtomicU64,
    pub(super) targets: Mutex<Targets>,
    pub(super) attach_lock: tokio::sync::Mutex<()>,
    pub(super) events: broadcast::Sender<TabEvent>,
    pub(super) call_timeout: Duration,
    pub(super) closed: std::sync::atomic::AtomicBool,
    /// Where a launched browser writes the files pages download, each
    /// under its download's guid (`Browser.setDownloadBehavior`
    /// `allowAndName`); tabwire moves them into its download directory.
    pub(super) download_dir: std::sync::OnceLock<std::path::PathBuf>,
    /// The tab each download started in, by guid.
    pub(super) download_tabs: Mutex<HashMap<String, TabId>>,
}

impl Inner {
    /// [`Self::send_raw`], parsed.
    pub(super) async fn send(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, BackendError> {
        let raw = self.send_raw(session, method, params).await?;
        crate::backend::parse_result(method, &raw)
    }

    pub(super) async fn send_raw(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(BackendError::NotConnected(
                "the browser connection is closed (the browser exited)".into(),
            ));
        }
        if let (Some(session), "Fetch.enable" | "Fetch.disable") = (session, method) {
            let mut t = self.targets.lock().expect("targets lock");
            if method == "Fetch.enable" && crate::backend::holds_paused(&params) {
                t.held.insert(session.to_string());
            } else {
                t.held.remove(session);
            }
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = oneshot::channel();
        let waiter = Waiter {
            session: session.map(str::to_string),
            reply: tx,
        };
        self.pending
            .lock()
            .expect("pending lock")
            .insert(id, waiter);
        if self.tx.send(msg.to_string()).is_err() {
            self.pending.lock().expect("pending lock").remove(&id);
            return Err(BackendError::NotConnected(
                "the browser connection is closed".into(),
            ));
        }
        match tokio::time::timeout(self.call_timeout, rx).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err((CONNECTION_CLOSED, _)))) => Err(BackendError::NotConnected(
                "the browser closed during the call (it crashed or was quit); the next call \
                 starts a new one"
                    .into(),
            )),
            Ok(Ok(Err((_, message)))) => Err(classify(method, message)),
            Ok(Err(_)) => Err(BackendError::NotConnected(
                "the browser connection closed during the call".into(),
            )),
            Err(_) => {
                self.pending.lock().expect("pending lock").remove(&id);
                Err(BackendError::Timeout {
                    what: method.into(),
                    secs: self.call_timeout.as_secs(),
                })
            }
        }
    }

    /// Records a target from `Target.getTargets` / `targetCreated` /
    /// `targetInfoChanged`; returns its tab id for a page.
    pub(super) fn target_seen(&self, info: &Value) -> Option<TabId> {
        if info["type"] != "page" {
            return None;
        }
        let id = info["targetId"].as_str()?;
        let mut t = self.targets.lock().expect("targets lock");
        if !t.tab_of.contains_key(id) {
            let tab = TAB_ID_BASE + NEXT_TAB.fetch_add(1, Ordering::SeqCst) as TabId;
            t.tab_of.insert(id.to_string(), tab);
            t.target_of.insert(tab, id.to_string());
            t.order.push(id.to_string());
        }
        t.info.insert(
            id.to_string(),
            (
                info["url"].as_str().unwrap_or("").to_string(),
                info["title"].as_str().unwrap_or("").to_string(),
            ),
        );
        t.tab_of.get(id).copied()
    }

    /// A download started in `tab` (its page session announced it).
    pub(super) fn download_started(&self, guid: &str, tab: TabId) {
        let mut d = self.download_tabs.lock().expect("download tabs lock");
        // (A browser session can download a lot; the map is a routing
        // table, not a history.)
        if d.len() > 256 {
            d.clear();
        }
        d.insert(guid.to_string(), tab);
    }

    /// The tab a browser-wide download event belongs to, and the event as
    /// the tab sees it: the tab that announced the guid, else the tab
    /// whose main frame started it, else the active tab (a download in an
    /// out-of-process frame has no page-session announcement). A finished
    /// download gets `filePath` if the browser left it out.
    pub(super) fn download_event(&self, method: &str, mut params: Value) -> Option<(TabId, Value)> {
        let guid = params["guid"].as_str()?.to_string();
        let known = self
            .download_tabs
            .lock()
            .expect("download tabs lock")
            .get(&guid)
            .copied();
        let tab = match known {
            Some(tab) => tab,
            None => {
                let t = self.targets.lock().expect("targets lock");
                let tab = params["frameId"]
                    .as_str()
                    .and_then(|f| t.tab_of.get(f).copied())
                    .or(t.active)?;
                drop(t);
                self.download_started(&guid, tab);
                tab
            }
        };
        if method == "Browser.downloadProgress" {
            if params["state"] != "inProgress" {
                self.download_tabs
                    .lock()
                    .expect("download tabs lock")
                    .remove(&guid);
            }
            let missing = params["filePath"].as_str().is_none_or(str::is_empty);
            if params["state"] == "completed" && missing {
                if let Some(dir) = self.download_dir.get() {
                    params["filePath"] = json!(dir.join(&guid));
                }
            }
        }
        Some((tab, params))
    }

    /// Answers every command still waiting on `session` with [`SESSION_ENDED`].
    pub(super) fn session_ended(&self, session: &str) {
        let mut pending = self.pending.lock().expect("pending lock");
        let ids: Vec<u64> = pending
            .iter()
            .filter(|(_, w)| w.session.as_deref() == Some(session))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            if let Some(w) = pending.remove(&id) {
                let _ = w.reply.send(Err((0, SESSION_ENDED.into())));
            }
        }
    }

    pub(super) fn target_gone(&self, target: &str) -> Option<TabId> {
        let (tab, session) = {
            let mut t = self.targets.lock().expect("targets lock");
            let tab = t.tab_of.remove(target)?;
            t.target_of.remove(&tab);
            t.tab_of_child.retain(|_, of| *of != tab);
            t.info.remove(target);
            t.order.retain(|x| x != target);
            let session = t.session_of.remove(&tab);
            if let Some(s) = &session {
                t.tab_of_session.remove(s);
            }
            if t.active == Some(tab) {
                t.active = None;
            }
            if t.spare == Some(tab) {
                t.spare = None;
            }
            (tab, session)
        };
        if let Some(s) = session {
            self.session_ended(&s);
        }
        Some(tab)
    }

    pub(super) fn target(&self, tab: TabId) -> Result<String, BackendError> {
        self.targets
            .lock()
            .expect("targets lock")
            .target_of
            .get(&tab)
            .cloned()
            .ok_or(BackendError::NoSuchTab)
    }

    fn cached_session(&self, tab: TabId) -> Option<String> {
        let t = self.targets.lock().expect("targets lock");
        t.session_of.get(&tab).cloned()
    }

    /// The tab's CDP session, attaching once (concurrent callers wait).
    pub(super) async fn session(&self, tab: TabId) -> Result<String, BackendError> {
        if let Some(s) = self.cached_session(tab) {
            return Ok(s);
        }
        let _guard = self.attach_lock.lock().await;
        if let Some(s) = self.cached_session(tab) {
            return Ok(s);
        }
        let target = self.target(tab)?;
        let r = self
            .send(
                None,
                "Target.attachToTarget",
                json!({"targetId": target, "flatten": true}),
            )
            .await?;
        let session = r["sessionId"]
            .as_str()
            .ok_or_else(|| BackendError::Other("attachToTarget returned no session".into()))?
            .to_string();
        let mut t = self.targets.lock().expect("targets lock");
        t.session_of.insert(tab, session.clone());
        t.tab_of_session.insert(session.clone(), tab);
        Ok(session)
    }
}

/// Maps CDP error text to the backend's error kinds.
fn classify(method: &str, message: String) -> BackendError {
    if message.contains("No target with given id")
        || message.contains("Session with given id not found")
    {
        BackendError::NoSuchTab
    } else {
        BackendError::Cdp {
            method: method.into(),
            message,
        }
    }
}
