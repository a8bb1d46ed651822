//! Waiting for a navigation to give a usable page, the same way for
//! `browser_navigate`, history moves, reloads and actions that navigate.
//!
//! The wait follows the top frame's latest document: a page that replaces
//! itself, redirects by script or refreshes by `<meta>` is followed to the
//! end of the chain, and the load event of a document that was already
//! replaced ends nothing. It ends when that last document
//!
//! - has fired its load event (and announces no short meta refresh), or
//! - was parsed (DOMContentLoaded) and the network has been almost quiet
//!   for 500 ms (the browser's own `networkAlmostIdle`), or
//! - was parsed [`DCL_BUDGET`] ago,
//!
//! whichever comes first, and at the latest after [`LOAD_TIMEOUT`]. In all
//! but the first case the answer says the page was still loading.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::broadcast::{error::TryRecvError, Receiver};
use tokio::time::Instant;

use serde::Deserialize;

use crate::backend::{TabEvent, TabId};
use crate::engine::{self, Detail, Snapshot, MAX_SNAPSHOT};
use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// How long a navigation may take before the tool returns anyway.
pub const LOAD_TIMEOUT: Duration = Duration::from_secs(15);
/// How long after DOMContentLoaded the wait goes on for the load event.
pub const DCL_BUDGET: Duration = Duration::from_millis(2000);
/// A `<meta http-equiv=refresh>` to another page within this many seconds
/// is followed (a person would not act on the page in between).
const REFRESH_FOLLOW_S: f64 = 3.0;
/// How long a navigation the refresh announced may take to start.
const REFRESH_GRACE: Duration = Duration::from_millis(1000);
/// How often the page is asked when no event wakes the wait.
const TICK: Duration = Duration::from_millis(100);
/// How often the page is asked while events say nothing new.
const PROBE_EVERY: Duration = Duration::from_millis(500);
/// How long one probe may take (a busy page answers late).
const PROBE_LIMIT: Duration = Duration::from_millis(1000);
/// How long a probe that also takes the page's snapshot may take (a walk
/// of a huge page takes a good part of a second on a slow machine).
const PROBE_WITH_SNAPSHOT_LIMIT: Duration = Duration::from_millis(3000);

/// Runs after the tasks queued before it (a posted message), then reports
/// the document's state, the delay of a meta refresh to another URL (or
/// -1) and the URL.
const PROBE: &str = r#"new Promise(r => { const c = new MessageChannel(); c.port1.onmessage = () => r(0); c.port2.postMessage(0); }).then(() => {
  let refresh = -1;
  const m = document.querySelector('meta[http-equiv="refresh" i]');
  if (m) {
    const c = m.content || '';
    const d = parseFloat(c);
    if (d >= 0 && /url\s*=/i.test(c)) refresh = d;
  }
  return {state: document.readyState, refresh, url: location.href};
})"#;

/// How a navigation wait ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadEnd {
    /// Why the page was still loading when the wait ended (None: loaded).
    pub still_loading: Option<String>,
    /// The page's own URL (`location.href`) when it answered that it had
    /// loaded, after every event before that answer was seen: the policy's
    /// check after a navigation needs no further round trip. None on the
    /// browser's error page, whose location is not the URL that failed.
    pub url: Option<String>,
    /// The page's skeleton snapshot, taken in the same call in which it
    /// said it had loaded (see [`Tab::probe`]): the answer's outline,
    /// with no round trip of its own. None: take one.
    pub snapshot: Option<Snapshot>,
}

impl LoadEnd {
    fn loaded() -> Self {
        Self::default()
    }

    fn loading(why: impl Into<String>) -> Self {
        Self {
            still_loading: Some(why.into()),
            ..Self::default()
        }
    }

    /// The line tools add to their answer (empty when loaded).
    pub fn note(&self) -> String {
        match &self.still_loading {
            Some(why) => format!(
                "\nNote: the page was still loading ({why}); what it shows may still change \
                 (browser_wait_for or browser_snapshot look again)."
            ),
            None => String::new(),
        }
    }
}

/// What the wait knows from events about the top frame's documents.
#[derive(Debug, Default)]
pub(in crate::page) struct Tracker {
    /// The top frame's id (navigation events of child frames are ignored).
    pub main_frame: Option<String>,
    /// The document the wait started for: none (any), or the loaderId
    /// `Page.navigate` returned.
    expect: Option<String>,
    /// A document at least as new as the one the wait is for has committed
    /// (or none was going to).
    pub committed: bool,
    /// The latest committed top document.
    pub loader: Option<String>,
    pub url: Option<String>,
    /// A top-frame navigation was asked for and has not committed yet.
    pub pending: bool,
    /// The browser's lifecycle events for the latest document.
    pub dcl: bool,
    pub load: bool,
    pub quiet: bool,
    /// Something the wait should look at again happened.
    pub woke: bool,
}

impl Tracker {
    /// `navigating`: a navigation is known to have started; `expect`: the
    /// document it creates (None: any new top document).
    pub fn new(main_frame: Option<String>, navigating: bool, expect: Option<String>) -> Self {
        Self {
            main_frame,
            committed: !navigating,
            pending: navigating,
            expect,
            ..Self::default()
        }
    }

    fn is_main(&self, frame: &Value) -> bool {
        match (frame.as_str(), &self.main_frame) {
            (Some(f), Some(m)) => f == m,
            _ => false,
        }
    }

    fn new_document(&mut self, loader: Option<&str>, url: Option<&str>) {
        // Until the document the wait is for commits, a commit of another
        // one is an older navigation ending; after it, every commit is a
        // newer document replacing it.
        if !self.committed {
            self.committed = match (&self.expect, loader) {
                (Some(want), Some(l)) => want == l,
                _ => true,
            };
        }
        self.loader = loader.map(String::from);
        self.url = url.map(String::from);
        self.pending = false;
        self.dcl = false;
        self.load = false;
        self.quiet = false;
    }

    /// Folds one CDP event of the tab into what the wait knows.
    pub fn on_event(&mut self, method: &str, p: &Value) {
        match method {
            "Page.frameNavigated" if p["frame"].get("parentId").is_none() => {
                if self.main_frame.is_none() {
                    self.main_frame = p["frame"]["id"].as_str().map(String::from);
                }
                if self.is_main(&p["frame"]["id"]) {
                    // The browser's error page (chrome-error://) stands for
                    // the URL that failed: that is what the policy judges,
                    // and the page is waited for like any other.
                    let url = p["frame"]["unreachableUrl"]
                        .as_str()
                        .or(p["frame"]["url"].as_str());
                    self.new_document(p["frame"]["loaderId"].as_str(), url);
                    if p["type"] == "BackForwardCacheRestore" {
                        // A page back from the cache was loaded long ago
                        // and fires no lifecycle events again.
                        self.dcl = true;
                        self.load = true;
                    }
                    self.woke = true;
                }
            }
            "Page.frameRequestedNavigation"
                if self.is_main(&p["frameId"])
                    && p["disposition"].as_str().is_none_or(|d| d == "currentTab") =>
            {
                self.pending = true;
                self.woke = true;
            }
            "Page.frameStartedNavigating" if self.is_main(&p["frameId"]) => {
                let same_doc = p["navigationType"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("sameDocument"));
                if !same_doc {
                    self.pending = true;
                    self.woke = true;
                }
            }
            "Page.navigatedWithinDocument" if self.is_main(&p["frameId"]) => {
                self.committed = true;
                self.pending = false;
                self.woke = true;
            }
            // Loading ended without a new document (a download, a 204, a
            // stopped or failed navigation): the current one stays.
            "Page.frameStoppedLoading" if self.is_main(&p["frameId"]) => {
                if self.pending {
                    self.pending = false;
                    self.committed = true;
                }
                self.woke = true;
            }
            "Page.downloadWillBegin" | "Browser.downloadWillBegin"
                if self.is_main(&p["frameId"]) =>
            {
                self.pending = false;
                self.committed = true;
                self.woke = true;
            }
            "Page.lifecycleEvent"
                if self.is_main(&p["frameId"])
                    && self.loader.as_deref() == p["loaderId"].as_str() =>
            {
                match p["name"].as_str() {
                    Some("DOMContentLoaded") => self.dcl = true,
                    Some("load") => self.load = true,
                    Some("networkAlmostIdle") => self.quiet = true,
                    _ => return,
                }
                self.woke = true;
            }
            "Page.domContentEventFired" if self.committed && !self.pending => {
                self.dcl = true;
                self.woke = true;
            }
            "Page.loadEventFired" if self.committed && !self.pending => {
                self.load = true;
                self.woke = true;
            }
            _ => {}
        }
    }
}

/// What the page said when asked.
#[derive(Deserialize)]
struct Probe {
    state: String,
    refresh: f64,
    #[serde(deserialize_with = "page_url")]
    url: Option<String>,
    /// Asked for with the load event seen: the snapshot of a complete page.
    #[serde(default)]
    snapshot: Option<Snapshot>,
}

/// The page's URL, or None on the browser's own error page (a status it
/// shows itself), which is at chrome-error://…, not at the URL that failed.
fn page_url<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let url = Option::<String>::deserialize(d)?;
    Ok(url.filter(|u| !u.starts_with("chrome-error:")))
}

impl Tab {
    /// Waits until the navigation an action or `Page.navigate` started has
    /// given a usable page (see the module docs). `events` must have been
    /// subscribed before the navigation was asked for; `expect` is the
    /// document `Page.navigate` announced, `navigating` whether a new
    /// document is on its way at all.
    pub async fn wait_usable(
        &self,
        events: &mut Receiver<TabEvent>,
        navigating: bool,
        expect: Option<String>,
    ) -> Result<LoadEnd, ToolError> {
        let tab = self.id();
        let started = Instant::now();
        let deadline = started + LOAD_TIMEOUT;
        let main = match self.known_main_frame() {
            Some(m) => Some(m),
            None => self.doc().await.ok().map(|d| d.frame_id),
        };
        let mut t = Tracker::new(main, navigating, expect);
        let mut dcl_at: Option<Instant> = None;
        let mut refresh_until: Option<Instant> = None;
        let mut doc_seen: Option<String> = None;
        // When a navigation is under way its events say when to look.
        let mut last_probe: Option<Instant> = navigating.then_some(started);
        loop {
            if drain(events, tab, &mut t) {
                return Ok(LoadEnd::loading("the tab closed"));
            }
            if t.loader != doc_seen {
                // A new document: its own clocks start now.
                doc_seen = t.loader.clone();
                dcl_at = None;
                refresh_until = None;
                last_probe = Some(Instant::now());
            }
            // A page the policy blocks is left by the caller; a dialog
            // blocks the page until it is handled (the caller reports it).
            if t.url
                .as_deref()
                .is_some_and(|u| self.client().policy().check_url(u).is_err())
                || self.dialog().is_some()
            {
                return Ok(LoadEnd::loaded());
            }
            if t.committed && !t.pending {
                let now = Instant::now();
                if t.dcl && dcl_at.is_none() {
                    dcl_at = Some(now);
                }
                // Asked when the load event says it is done (a meta refresh
                // may still follow), or now and then when events say
                // nothing (they can be missed).
                let ask = t.load || last_probe.is_none_or(|at| now >= at + PROBE_EVERY);
                let mut state = None;
                if ask {
                    t.woke = false;
                    // Once the load event is in, the page's answer brings
                    // its snapshot along when it is done.
                    let probe = self.probe(t.load).await;
                    last_probe = Some(Instant::now());
                    tracing::debug!(target: "tabwire::load", ms = started.elapsed().as_secs_f64() * 1e3, state = ?probe.as_ref().map(|p| p.state.clone()), "probe");
                    // The events the browser sent before the answer are in
                    // the stream already (each backend sends them there
                    // before it hands over the answer that followed).
                    if drain(events, tab, &mut t) {
                        return Ok(LoadEnd::loading("the tab closed"));
                    }
                    if t.committed && !t.pending && t.loader == doc_seen {
                        state = Some(probe.map(|p| (p.state, p.refresh, p.url, p.snapshot)));
                    } else {
                        // Another document came meanwhile: start over.
                        continue;
                    }
                }
                let now = Instant::now();
                match state {
                    // The page answered: its word counts.
                    Some(Some((s, refresh, url, snapshot))) if s == "complete" => {
                        if !(0.0..=REFRESH_FOLLOW_S).contains(&refresh) {
                            return Ok(LoadEnd {
                                url,
                                snapshot,
                                ..LoadEnd::loaded()
                            });
                        }
                        let until = *refresh_until
                            .get_or_insert(now + Duration::from_secs_f64(refresh) + REFRESH_GRACE);
                        if now >= until {
                            return Ok(LoadEnd::loaded());
                        }
                    }
                    Some(Some((s, _, _, _))) if s == "interactive" => {
                        dcl_at.get_or_insert(now);
                    }
                    // Loaded, but too busy to answer: done all the same.
                    Some(None) if t.load => return Ok(LoadEnd::loaded()),
                    _ => {}
                }
                if let Some(at) = dcl_at {
                    if t.quiet && !t.load {
                        return Ok(LoadEnd::loading(
                            "parsed and the network quiet, but its load event had not fired: \
                                 some request never finished",
                        ));
                    }
                    if now >= at + DCL_BUDGET && refresh_until.is_none() {
                        return Ok(LoadEnd::loading(format!(
                            "parsed {:.1} s before, its load event had not fired",
                            DCL_BUDGET.as_secs_f64()
                        )));
                    }
                }
                if ask && t.woke {
                    // Something happened while the page answered: look again.
                    continue;
                }
            }
            let now = Instant::now();
            if now >= deadline {
                tracing::info!(tab, "page still loading after {LOAD_TIMEOUT:?}; going on");
                return Ok(LoadEnd::loading(format!(
                    "after {} s{}",
                    LOAD_TIMEOUT.as_secs(),
                    if t.pending {
                        ", a navigation had not finished"
                    } else {
                        ""
                    }
                )));
            }
            // Sleep until an event worth a look, or the next tick.
            let tick = (now + TICK).min(deadline);
            t.woke = false;
            loop {
                match tokio::time::timeout_at(tick, events.recv()).await {
                    Err(_) => break,
                    Ok(Ok(TabEvent::Cdp {
                        tab: tt,
                        method,
                        params,
                    })) if tt == tab => {
                        tracing::debug!(target: "tabwire::load", ms = started.elapsed().as_secs_f64() * 1e3, method, "event");
                        t.on_event(&method, &params);
                        if t.woke {
                            break;
                        }
                    }
                    Ok(Ok(TabEvent::Closed { tab: tt })) if tt == tab => {
                        return Ok(LoadEnd::loading("the tab closed"));
                    }
                    Ok(Ok(_)) | Ok(Err(tokio::sync::broadcast::error::RecvError::Lagged(_))) => {}
                    Ok(Err(tokio::sync::broadcast::error::RecvError::Closed)) => {
                        tokio::time::sleep_until(tick).await;
                        break;
                    }
                }
            }
        }
    }

    /// Asks the page for its state after the tasks it has queued; None
    /// when it cannot answer now (busy, between documents). With
    /// `with_snapshot` the engine's world answers, and a page that is done
    /// answers with its skeleton snapshot too (one round trip for the last
    /// look and the answer's outline); where the engine cannot answer (a
    /// page it cannot enter), the page's own world is asked as before.
    async fn probe(&self, with_snapshot: bool) -> Option<Probe> {
        if with_snapshot {
            let args = format!(
                "{{snapshot: {}, follow: {REFRESH_FOLLOW_S}}}",
                engine::snapshot_args(MAX_SNAPSHOT, Detail::Skeleton)
            );
            match tokio::time::timeout(
                PROBE_WITH_SNAPSHOT_LIMIT,
                self.engine_awaited::<Probe>("loaded", &args),
            )
            .await
            {
                Ok(Ok(Some(p))) => return Some(p),
                // Too busy to answer: asking again would wait as long.
                Err(_) => return None,
                Ok(r) => {
                    tracing::debug!(target: "tabwire::load", error = ?r.err(), "the engine's load probe did not answer");
                }
            }
        }
        let r = tokio::time::timeout(
            PROBE_LIMIT,
            self.cdp(
                "Runtime.evaluate",
                json!({"expression": PROBE, "awaitPromise": true, "returnByValue": true}),
            ),
        )
        .await
        .ok()?
        .ok()?;
        Probe::deserialize(&r["result"]["value"]).ok()
    }
}

/// Folds the events already queued into `t`; true when the tab closed.
fn drain(events: &mut Receiver<TabEvent>, tab: TabId, t: &mut Tracker) -> bool {
    loop {
        match events.try_recv() {
            Ok(TabEvent::Cdp {
                tab: tt,
                method,
                params,
            }) if tt == tab => t.on_event(&method, &params),
            Ok(TabEvent::Closed { tab: tt }) if tt == tab => return true,
            Ok(_) | Err(TryRecvError::Lagged(_)) => {}
            Err(TryRecvError::Empty) | Err(TryRecvError::Closed) => return false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nav(t: &mut Tracker, loader: &str, url: &str) {
        t.on_event(
            "Page.frameNavigated",
            &json!({"frame": {"id": "M", "loaderId": loader, "url": url}}),
        );
    }

    #[test]
    fn the_engine_probe_answer_reads_with_its_snapshot_and_without_error_page_urls() {
        let p: Probe = serde_json::from_value(json!({
            "state": "complete", "refresh": -1, "url": "http://x/a",
            "snapshot": {"text": "- heading \"A\"\n", "url": "http://x/a", "title": "A"}
        }))
        .unwrap();
        assert_eq!(p.url.as_deref(), Some("http://x/a"));
        assert_eq!(p.snapshot.unwrap().title, "A");
        let p: Probe = serde_json::from_value(json!({
            "state": "complete", "refresh": 0.5, "url": "chrome-error://chromewebdata/"
        }))
        .unwrap();
        assert_eq!((p.url, p.snapshot.is_none(), p.refresh), (None, true, 0.5));
    }

    #[test]
    fn a_replacement_requested_while_loading_keeps_the_wait_going() {
        let mut t = Tracker::new(Some("M".into()), true, Some("L1".into()));
        t.on_event(
            "Page.frameStartedNavigating",
            &json!({"frameId": "M", "loaderId": "L1", "navigationType": "differentDocument"}),
        );
        assert!(t.pending && !t.committed);
        nav(&mut t, "L1", "http://x/jump");
        assert!(t.committed && !t.pending);
        t.on_event(
            "Page.frameRequestedNavigation",
            &json!({"frameId": "M", "reason": "scriptInitiated", "disposition": "currentTab"}),
        );
        // The replaced document's load ends nothing.
        t.on_event("Page.loadEventFired", &json!({}));
        t.on_event(
            "Page.lifecycleEvent",
            &json!({"frameId": "M", "loaderId": "L1", "name": "load"}),
        );
        assert!(t.pending);
        nav(&mut t, "L2", "http://x/landed");
        assert!(!t.pending && !t.load && t.loader.as_deref() == Some("L2"));
        t.on_event(
            "Page.lifecycleEvent",
            &json!({"frameId": "M", "loaderId": "L2", "name": "load"}),
        );
        assert!(t.load);
    }

    #[test]
    fn child_frames_and_new_tabs_do_not_count() {
        let mut t = Tracker::new(Some("M".into()), false, None);
        t.on_event(
            "Page.frameRequestedNavigation",
            &json!({"frameId": "C", "disposition": "currentTab"}),
        );
        t.on_event(
            "Page.frameRequestedNavigation",
            &json!({"frameId": "M", "disposition": "newTab"}),
        );
        t.on_event(
            "Page.frameNavigated",
            &json!({"frame": {"id": "C", "parentId": "M", "loaderId": "x"}}),
        );
        assert!(!t.pending && t.loader.is_none());
    }

    #[test]
    fn a_page_back_from_the_cache_counts_as_loaded() {
        let mut t = Tracker::new(Some("M".into()), true, None);
        t.on_event(
            "Page.frameNavigated",
            &json!({"frame": {"id": "M", "loaderId": "L0", "url": "http://x/"}, "type": "BackForwardCacheRestore"}),
        );
        assert!(t.committed && t.load && t.dcl);
    }

    #[test]
    fn a_navigation_that_never_commits_ends_with_the_old_document() {
        let mut t = Tracker::new(Some("M".into()), true, None);
        t.on_event("Page.frameStoppedLoading", &json!({"frameId": "M"}));
        assert!(t.committed && !t.pending);
    }

    #[test]
    fn the_note_says_why() {
        assert_eq!(LoadEnd::loaded().note(), "");
        assert!(LoadEnd::loading("x").note().contains("still loading (x)"));
    }
}
