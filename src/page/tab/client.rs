//! One MCP client's view of the browser: its backend and policy, its name
//! and progress, the fence for its answers, its current tab and last
//! snapshot, and the state of each tab ([`TabState`]), kept current from
//! the backend's events. What the client does with a tab lives beside it:
//! `tab.rs` (its calls), `current.rs` (which tab), `action.rs` (acting and
//! what changed), `worlds.rs` and `element.rs` (the engine and refs).

use std::collections::HashMap;
use std::ops::{Deref, DerefMut};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use super::calls::TabState;
use super::console_and_dialogs::TabEvents;
use super::feature::TabFeature;
use super::refs::SnapshotMark;
use super::slots::{SlotGuard, Slots};
use crate::backend::{Backend, TabEvent, TabId};
use crate::fence::Fence;
use crate::page::tab::current::Tab;
use crate::policy::Policy;

#[derive(Default)]
pub(in crate::page) struct State {
    pub(in crate::page) current: Option<TabId>,
    /// Set when the current tab was closed behind the client's back; the next
    /// call that needs a tab reports it once instead of silently moving on.
    pub(in crate::page) closed_notice: Option<TabId>,
    /// The notice is about a restart (every handle became void), not a close.
    pub(in crate::page) notice_is_restart: bool,
    pub(in crate::page) snapshot: Option<SnapshotMark>,
    /// What is known of each tab (dropped when it closes).
    pub(in crate::page) tabs: HashMap<TabId, TabState>,
    /// The backend generation our handles belong to.
    pub(in crate::page) generation: u64,
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
    /// Marks page content in this client's answers (see `crate::fence`).
    fence: Fence,
    /// Counts the changes of the current tab's page tools (its page, its
    /// registry, which tab is current), for `tools/list_changed`.
    page_tools_changed: tokio::sync::watch::Sender<u64>,
    /// What the current call adds to its audit-log line (taken by the
    /// server when it records the call).
    audit_note: Mutex<Option<serde_json::Value>>,
    /// What features keep for the whole client (see [`Client::slot`]).
    slots: Mutex<Slots>,
    /// The features' hooks into each tab's life, in the order they run.
    features: Vec<Arc<dyn TabFeature>>,
}

/// One MCP client's view of the browser: its tabs, the current one, its
/// name and progress. Cheap to clone.
#[derive(Clone)]
pub struct Client {
    inner: Arc<Inner>,
}

/// One tab's state, borrowed from the client's (the client's lock is held
/// while it lives: keep it for a statement, never across an `await`).
pub(in crate::page) struct TabGuard<'a> {
    state: MutexGuard<'a, State>,
    tab: TabId,
}

impl Deref for TabGuard<'_> {
    type Target = TabState;
    fn deref(&self) -> &TabState {
        &self.state.tabs[&self.tab]
    }
}

impl DerefMut for TabGuard<'_> {
    fn deref_mut(&mut self) -> &mut TabState {
        self.state
            .tabs
            .get_mut(&self.tab)
            .expect("entry made with the guard")
    }
}

impl Client {
    /// A client whose tabs get `features`' hooks (`Client::new`, in
    /// `page/mod.rs`, gives every feature).
    pub(in crate::page) fn with_features(
        backend: Arc<dyn Backend>,
        policy: Arc<Policy>,
        features: Vec<Arc<dyn TabFeature>>,
    ) -> Self {
        let session = Self {
            inner: Arc::new(Inner {
                backend,
                policy,
                script_timeout: Mutex::new(Duration::from_secs(25)),
                client_name: Mutex::new("tabwire".into()),
                progress: Mutex::new(None),
                state: Mutex::new(State::default()),
                fence: Fence::new(),
                page_tools_changed: tokio::sync::watch::Sender::new(0),
                audit_note: Mutex::new(None),
                slots: Mutex::new(Slots::default()),
                features,
            }),
        };
        session.watch_events();
        session
    }

    pub fn backend(&self) -> &dyn Backend {
        self.inner.backend.as_ref()
    }

    /// What a feature keeps for the whole client: its `T`, made with
    /// `Default` on first use (the lock is held while the guard lives).
    pub(in crate::page) fn slot<T: Default + Send + 'static>(&self) -> SlotGuard<'_, T> {
        SlotGuard::new(self.inner.slots.lock().expect("slots lock"))
    }

    /// The features' hooks, in order.
    pub(in crate::page) fn features(&self) -> &[Arc<dyn TabFeature>] {
        &self.inner.features
    }

    /// Adds `note` to the current call's audit-log line.
    pub fn note_for_audit(&self, note: serde_json::Value) {
        *self.inner.audit_note.lock().expect("audit note lock") = Some(note);
    }

    /// The current call's note for the audit log (see [`Self::note_for_audit`]).
    pub fn take_audit_note(&self) -> Option<serde_json::Value> {
        self.inner
            .audit_note
            .lock()
            .expect("audit note lock")
            .take()
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

    pub(in crate::page) fn state(&self) -> MutexGuard<'_, State> {
        self.inner.state.lock().expect("state lock")
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
                let session = Client { inner };
                let features = session.features();
                if let TabEvent::Cdp {
                    tab,
                    method,
                    params,
                } = &event
                {
                    if features
                        .iter()
                        .any(|f| f.intercept(&session.on(*tab), method, params))
                    {
                        continue;
                    }
                }
                if let TabEvent::Closed { tab } | TabEvent::Detached { tab, .. } = &event {
                    let gone = session.on(*tab);
                    features.iter().for_each(|f| f.gone(&gone));
                }
                let mut st = session.state();
                match event {
                    TabEvent::Closed { tab } => {
                        st.tabs.remove(&tab);
                        if st.current == Some(tab) {
                            st.current = None;
                            st.closed_notice = Some(tab);
                            st.notice_is_restart = false;
                        }
                    }
                    // Events may have been missed, and the worlds are gone.
                    TabEvent::Detached { tab, .. } => {
                        if let Some(t) = st.tabs.get_mut(&tab) {
                            t.detached();
                            features.iter().for_each(|f| f.detached(t));
                        }
                    }
                    TabEvent::Opened { .. } => {}
                    TabEvent::Cdp {
                        tab,
                        method,
                        params,
                    } => {
                        let current = st.current == Some(tab);
                        let t = st.tabs.entry(tab).or_default();
                        t.events.record(&method, &params);
                        let on = session.on(tab);
                        for f in features {
                            f.record(&on, t, current, &method, &params);
                        }
                    }
                }
            }
        });
    }

    /// The page tools of the current tab may have changed.
    pub(in crate::page) fn page_tools_changed(&self) {
        self.inner.page_tools_changed.send_modify(|n| *n += 1);
    }

    /// Wakes whenever the current tab's page tools may have changed.
    pub fn page_tools_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.inner.page_tools_changed.subscribe()
    }

    /// The current tab's last known URL (from navigation events), for the
    /// audit log; no browser round trip.
    pub fn last_url(&self) -> Option<String> {
        let st = self.state();
        st.current
            .and_then(|t| st.tabs.get(&t).and_then(|t| t.events.url()))
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
}

impl Tab {
    /// Whether `tab` was set up for tools (its events flowing).
    pub(in crate::page) fn is_set_up(&self) -> bool {
        let tab = self.id();
        self.client()
            .state()
            .tabs
            .get(&tab)
            .is_some_and(|t| t.set_up)
    }

    /// Runs `f` with what `tab`'s events recorded (console, network …).
    pub fn with_events<T>(&self, f: impl FnOnce(&TabEvents) -> T) -> T {
        f(&self.tab_state().events)
    }

    /// What is kept about `tab` (made empty on first use).
    pub(in crate::page) fn tab_state(&self) -> TabGuard<'_> {
        let tab = self.id();
        let mut state = self.client().state();
        state.tabs.entry(tab).or_default();
        TabGuard { state, tab }
    }

    /// Runs `f` on `tab`'s state if anything is kept about it (a closed
    /// tab's is not made again).
    pub(in crate::page) fn if_tab_known(&self, f: impl FnOnce(&mut TabState)) {
        let tab = self.id();
        if let Some(t) = self.client().state().tabs.get_mut(&tab) {
            f(t);
        }
    }
}
