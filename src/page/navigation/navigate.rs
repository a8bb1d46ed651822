//! Navigating a tab: policy first, then the load wait, what the page
//! fetches after it loads, and what interrupted the way there; and the
//! wait for a page at rest (queued tasks, finite animations) that actions
//! use too.

use serde_json::{json, Value};

use super::load::LoadEnd;
use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// Longest a failed navigation's answer waits for the error page.
const ERROR_PAGE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Resolves after the tasks queued before it (a posted message is not
/// throttled, unlike timers in background tabs).
///
/// It then also waits (at most 400 ms) for the finite animations running
/// by then (a drawer sliding in, a menu unfolding), so the answer reports
/// where they come to rest. (`getAnimations` brings styles up to date
/// first, so transitions the action caused are running by then.)
pub(in crate::page) const AFTER_QUEUED_TASKS: &str =
    "new Promise(r => { const c = new MessageChannel(); \
  c.port1.onmessage = () => { \
    const moving = document.getAnimations().filter(a => a.playState === 'running' && a.effect \
      && Number.isFinite(a.effect.getComputedTiming().endTime)); \
    if (!moving.length) return r(0); \
    Promise.race([Promise.all(moving.map(a => a.finished.catch(() => 0))), \
      new Promise(t => setTimeout(t, 400))]).then(() => r(0)); }; \
  c.port2.postMessage(0); })";

impl Tab {
    /// Lets the page run what it queued and the finite animations running
    /// then come to rest (at most 400 ms; a layout that changes with the
    /// viewport's size transitions its parts), so what is read next is
    /// the page at rest.
    pub async fn until_at_rest(&self) {
        let _ = tokio::time::timeout(
            std::time::Duration::from_secs(1),
            self.eval(AFTER_QUEUED_TASKS),
        )
        .await;
    }
}

impl Tab {
    /// Reloads the tab's page (the load is awaited by the caller's settle).
    pub async fn reload(&self) -> Result<(), ToolError> {
        self.cdp("Page.reload", json!({})).await.map(|_| ())
    }

    /// The tab's session history: its entries (`id`, `url`, `title`) and the
    /// index of the current one.
    pub async fn history(&self) -> Result<(Vec<Value>, i64), ToolError> {
        let h = self.cdp("Page.getNavigationHistory", json!({})).await?;
        Ok((
            h["entries"].as_array().cloned().unwrap_or_default(),
            h["currentIndex"].as_i64().unwrap_or(0),
        ))
    }

    /// Moves the tab to the history entry `id` (from [`Tab::history`]).
    pub async fn go_to_entry(&self, id: Value) -> Result<(), ToolError> {
        self.cdp("Page.navigateToHistoryEntry", json!({"entryId": id}))
            .await
            .map(|_| ())
    }

    /// Navigates `tab` to `url` and waits until the page it ends on is usable
    /// (see [`super::load`]); also returns lines for the answer about what
    /// interrupted the way there (see [`crate::page::tab::interrupts`]).
    ///
    /// A navigation that fails (a network error, an authentication challenge
    /// nobody could answer) is an error the model can act on; an error page
    /// the server sends (a 404) is a page, returned with its status stated.
    pub async fn go(&self, url: &str) -> Result<(LoadEnd, String), ToolError> {
        let s = self.client();
        s.policy()
            .check_url(url)
            .map_err(|why| ToolError::other(format!("not navigating: {why}")))?;
        // Leaving the current page is the point: a leave question is accepted.
        let _leaving = self.leaving();
        self.take_notes();
        // Subscribed first, so the wait sees every event the navigation causes.
        let mut events = s.backend().subscribe();
        let mut network = s.backend().subscribe();
        let mut downloads = s.backend().subscribe();
        let r = self.cdp("Page.navigate", json!({"url": url})).await?;
        // A committed navigation runs in a live renderer, even if the old page
        // had crashed.
        self.crash_replaced();
        if let Some(err) = r["errorText"]
            .as_str()
            .filter(|e| !e.is_empty() && *e != "net::ERR_HTTP_RESPONSE_CODE_FAILURE")
        {
            // A navigation to a file (an attachment, a type the browser does
            // not show) is aborted and becomes a download; the tab stays.
            if err == "net::ERR_ABORTED" {
                // (Its announcement may trail the navigation's answer.)
                let saved = self
                    .downloads_started(&mut downloads, std::time::Duration::from_millis(500))
                    .await;
                if !saved.is_empty() {
                    let mut notes = String::from(
                        "\nThe address is a file: the browser downloaded it and the tab stayed \
                         on its page (below).",
                    );
                    for line in saved {
                        notes.push_str(&format!("\n{line}"));
                    }
                    return Ok((LoadEnd::default(), notes));
                }
            }
            // The tab goes on to show the browser's error page: the answer
            // waits (briefly) for it, so the next tool finds it parsed, not
            // an empty document. (An aborted load shows none.)
            if err != "net::ERR_ABORTED" {
                let loader = r["loaderId"].as_str().map(String::from);
                let _ = tokio::time::timeout(
                    ERROR_PAGE_WAIT,
                    self.wait_usable(&mut events, loader.is_some(), loader),
                )
                .await;
            }
            if let Some(n) = self.take_notes().into_iter().find(|n| n.fatal) {
                return Err(ToolError::other(n.text));
            }
            return Err(ToolError::other(format!(
                "could not load {url}: {err} ({}). The tab shows the browser's error page",
                crate::page::tab::interrupts::explain_net_error(err)
            )));
        }
        // Same-document navigations return no loaderId: then only the current
        // document's load state matters.
        let loader = r["loaderId"].as_str().map(String::from);
        let mut load = self
            .wait_usable(&mut events, loader.is_some(), loader)
            .await?;
        match &load.url {
            // The page said where it is once loaded, after the events before.
            Some(url) => self.enforce_at(url).await?,
            None => self.enforce_after_navigation().await?,
        }
        // An app that fetches its content after it loads shows it once those
        // requests are done (the same rule as for actions).
        let mut notes = String::new();
        let (started, waited) = self
            .wait_for_started_requests(
                &mut network,
                super::started_requests::After::Navigation,
                false,
            )
            .await;
        if waited {
            // What they brought may arrive with a transition (a theme moving
            // to its dark palette fades its colours): the page is judged where
            // it comes to rest (at most 400 ms), not mid-way, when its text can
            // have the colour of its background.
            self.until_at_rest().await;
            // What those requests brought is not in the snapshot taken at load.
            load.snapshot = None;
        }
        for n in started {
            notes.push_str(&format!("\n{n}"));
        }
        for n in self.take_notes() {
            if n.fatal {
                return Err(ToolError::other(n.text));
            }
            notes.push_str(&format!("\nNote: {}.", n.text));
        }
        if let Some(failed) = self.failed_load_note() {
            notes.push_str(&format!("\n{failed}"));
        } else if let Some(status) = self.error_status() {
            notes.push_str(&format!(
                "\nNote: the server answered {status}; the page below is what it sent with it."
            ));
        }
        Ok((load, notes))
    }
}

impl Tab {
    /// After a navigation: if the page landed on a blocked domain (a
    /// redirect, a link), leave it for about:blank and say why.
    pub async fn enforce_after_navigation(&self) -> Result<(), ToolError> {
        self.enforce_after_navigation_to(None).await
    }

    /// [`Self::enforce_after_navigation`] for a page known to be at `url`.
    pub(in crate::page) async fn enforce_at(&self, url: &str) -> Result<(), ToolError> {
        match self.client().policy().check_url(url) {
            Ok(()) => Ok(()),
            Err(why) => self.leave_blocked(&why).await,
        }
    }

    /// Leaves a page the policy blocks for about:blank; the error says why.
    async fn leave_blocked(&self, why: &str) -> Result<(), ToolError> {
        let _ = self
            .cdp("Page.navigate", json!({"url": "about:blank"}))
            .await;
        Err(ToolError::other(format!(
            "the page went to a place the policy blocks ({why}); tabwire left it for about:blank"
        )))
    }

    /// [`Self::enforce_after_navigation`], also checking `committed`: the
    /// URL of the commit event the caller saw itself. The recorded URL
    /// comes from the event-recording task, which may not have caught up
    /// with that event yet.
    pub(in crate::page) async fn enforce_after_navigation_to(
        &self,
        committed: Option<&str>,
    ) -> Result<(), ToolError> {
        let url = self.url_now().await?;
        let verdict = committed
            .map_or(Ok(()), |u| self.client().policy().check_url(u))
            .and_then(|()| self.client().policy().check_url(&url));
        match verdict {
            Ok(()) => Ok(()),
            Err(why) => self.leave_blocked(&why).await,
        }
    }
}
