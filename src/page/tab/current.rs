//! Which tab a client's call works on: the current tab (one is opened when
//! the client has none), and the one-time notice when it was closed behind
//! the client's back or its browser restarted.

use super::client::Client;
use crate::backend::{BackendError, TabId};
use crate::error::ToolError;

impl Client {
    pub fn current_tab(&self) -> Option<TabId> {
        self.state().current
    }

    /// Makes `tab` the current tab. A handle the client just chose (from a
    /// fresh `browser_tabs` list) belongs to the backend's current
    /// generation, so the generation is taken in first.
    pub fn set_current(&self, tab: Option<TabId>) {
        self.forget_void_handles();
        let mut st = self.state();
        let changed = st.current != tab;
        st.current = tab;
        st.closed_notice = None;
        drop(st);
        if changed {
            self.page_tools_changed();
        }
    }

    /// The tab page tools read or act on, after checking that the policy
    /// allows its page (reads are how data leaves a page).
    pub async fn tab(&self) -> Result<TabId, ToolError> {
        let tab = self.tab_or_notice().await?;
        let url = self.on(tab).url().await?;
        self.policy().check_url(&url).map_err(|why| {
            ToolError::new(
                crate::error::ErrorKind::PolicyRefused,
                format!(
                    "the current tab's page is off limits: {why}. Navigate elsewhere with \
                 browser_navigate or pick another tab with browser_tabs"
                ),
            )
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
            return Err(ToolError::other(if restart {
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
        let tab = match self.current_tab() {
            Some(tab) => tab,
            None => {
                let tabs = self.backend().list_tabs().await?;
                let tab = match tabs.iter().find(|t| t.active).or(tabs.first()) {
                    Some(t) => t.tab_id,
                    None => {
                        let name = self.client_name();
                        self.backend().new_tab("about:blank", &name).await?.tab_id
                    }
                };
                self.set_current(Some(tab));
                tab
            }
        };
        // What features do before a tab's first use (`serve
        // --storage-state`: before the first page of tabwire's own browser).
        for f in self.features() {
            f.chosen(&self.on(tab)).await?;
        }
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
            st.tabs.clear();
        } else if st.current.is_some_and(|t| self.backend().is_void(t)) {
            // One browser of several restarted: only its tabs are void.
            st.closed_notice = st.current.take();
            st.notice_is_restart = true;
            if st.snapshot.as_ref().map(|m| m.tab) == st.closed_notice {
                st.snapshot = None;
            }
        }
    }
}

impl Tab {
    /// A closed tab reported by an error needs no second notice later.
    pub fn tab_error(&self, e: BackendError) -> ToolError {
        let tab = self.id();
        if matches!(e, BackendError::NoSuchTab | BackendError::Stale(_)) {
            let mut st = self.client().state();
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
}

/// One tab of a client, and the home of what a tab can do: every room of
/// `page/` adds the methods of its job in an `impl Tab` block of its own
/// (`tab.go(url)` in navigation, `tab.click_at(…)` in input,
/// `tab.snapshot()` in reading, …). A tool gets its tab from
/// `ToolDef::on_tab`, chosen and its page checked against the policy before
/// the tool runs; code that holds a client and a tab id asks
/// [`Client::on`]. It is cheap to make: the client is one `Arc`.
///
/// [`Client`] keeps what is the client's: its tabs and which is current,
/// the policy, the fence, progress, and the features' client-wide slots.
#[derive(Clone)]
pub struct Tab {
    client: Client,
    id: TabId,
}

impl Client {
    /// The tab `tab` of this client, to call its methods: what a tab can do
    /// lives on [`Tab`].
    pub fn on(&self, tab: TabId) -> Tab {
        Tab {
            client: self.clone(),
            id: tab,
        }
    }
}

impl Tab {
    /// The client's current tab ([`Client::tab`]).
    pub async fn current(client: Client) -> Result<Tab, ToolError> {
        let id = client.tab().await?;
        Ok(Tab { client, id })
    }

    pub fn client(&self) -> &Client {
        &self.client
    }

    pub fn id(&self) -> TabId {
        self.id
    }
}
