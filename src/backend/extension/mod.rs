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
//!
//! One file per job: `link` (the accept loop and one native host's link),
//! `hello` (the hello exchange and who each browser is), `request`
//! (requests and their answers), `routing` (which browser a call goes to),
//! `handles` (tab handles over several browsers), `stop` (the user's stop),
//! `status` (what doctor and `browser_status` see) and `backend_impl` (the
//! [`Backend`](crate::backend::Backend) trait).

mod backend_impl;
mod handles;
mod hello;
mod link;
mod request;
mod routing;
mod status;
mod stop;

pub use status::describe_browser;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::{broadcast, Notify};

use crate::audit::AuditLog;
use crate::backend::{BackendError, TabEvent};
use crate::broker::ServeSocket;
use crate::protocol::{ServeStatus, UserStop};
use handles::Handles;
use hello::Known;
use link::{accept_loop, Link};

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
    /// The client's name when it is known from the start (`tabwire call`),
    /// so the first hello carries it and no second hello is needed.
    pub client_name: Option<String>,
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
    /// Starts accepting native-host connections on `socket`.
    pub fn start(socket: Arc<ServeSocket>, opts: ExtensionOptions) -> Self {
        let (events, _) = broadcast::channel(1024);
        let client_name = opts.client_name.clone();
        let inner = Arc::new(Inner {
            opts,
            known: Mutex::new(HashMap::new()),
            links: Mutex::new(Vec::new()),
            link_added: Notify::new(),
            handles: Mutex::new(Handles::default()),
            gave_up_once: AtomicBool::new(false),
            next_id: AtomicU64::new(1),
            events,
            client_name: Mutex::new(client_name),
            hosts: AtomicU32::new(0),
            stops: Mutex::new(HashMap::new()),
            stop_text: tokio::sync::watch::channel(None).0,
            waiting: Mutex::new(None),
        });
        tokio::spawn(accept_loop(socket, inner.clone()));
        Self { inner }
    }

    /// The sender of this backend's event stream, for a backend that merges
    /// it with another's (the auto backend): sending into one stream, with
    /// no task between, keeps every event ahead of the answers that follow it.
    pub fn event_sender(&self) -> broadcast::Sender<TabEvent> {
        self.inner.events.clone()
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

    /// This serve's state, as `tabwire doctor` sees it.
    pub async fn serve_status(&self) -> ServeStatus {
        self.inner.serve_status().await
    }
}
