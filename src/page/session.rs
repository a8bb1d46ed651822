//! Per-client state and the preconditions every page tool shares: "give me
//! this client's tab", "turn a ref or selector into an element", "wait for
//! the page to settle after an action".

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::broadcast::error::RecvError;

use super::events::PageEvents;
use super::refs::SnapshotMark;
use super::worlds::Worlds;
use crate::backend::{Backend, BackendError, TabEvent, TabId};
use crate::error::ToolError;
use crate::fence::Fence;
use crate::policy::Policy;

#[derive(Default)]
pub(super) struct State {
    pub(super) current: Option<TabId>,
    /// Set when the current tab was closed behind the client's back; the next
    /// call that needs a tab reports it once instead of silently moving on.
    pub(super) closed_notice: Option<TabId>,
    /// The notice is about a restart (every handle became void), not a close.
    pub(super) notice_is_restart: bool,
    pub(super) snapshot: Option<SnapshotMark>,
    /// Tabs whose Page and Runtime domains are on (events flow).
    pub(super) domains_on: HashSet<TabId>,
    pub(super) events: PageEvents,
    /// The backend generation our handles belong to.
    pub(super) generation: u64,
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

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, State> {
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

    /// The current tab's last known URL (from navigation events), for the
    /// audit log; no browser round trip.
    pub fn last_url(&self) -> Option<String> {
        let st = self.state();
        st.current.and_then(|t| st.events.url(t))
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
