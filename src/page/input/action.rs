//! Running an action and reporting what it did: [`Tab::settle`] waits
//! for a navigation the action started (its commit and load), for the
//! requests it started and the DOM changes they cause, and collects
//! dialogs, downloads, new tabs, file choosers and console errors into an
//! [`Outcome`].

use std::time::Duration;

use serde_json::{json, Value};

use crate::backend::{TabEvent, TabId};
use crate::engine::{self, Changes, MAX_SNAPSHOT};
use crate::error::ToolError;
use crate::fence::Fence;
use crate::page::downloads::download::ExpectDownload;
use crate::page::navigation::load::{LoadEnd, LOAD_TIMEOUT};
use crate::page::navigation::navigate::AFTER_QUEUED_TASKS;
use crate::page::navigation::started_requests::After;
use crate::page::reading::snapshot::View;
use crate::page::tab::calls::next_event;
use crate::page::tab::console_and_dialogs::{ConsoleEntry, Dialog};
use crate::page::tab::current::Tab;
use crate::page::tab::refs::SnapshotMark;

/// How long after an action a navigation may still start, when the page
/// cannot tell sooner (see [`Tab::navigation_started`]).
const NAV_START_WINDOW: Duration = Duration::from_millis(100);

/// How long an action's answer still looks for a navigation or download
/// the page started in the task the probe ran after: a download link's
/// `Page.downloadWillBegin` comes a moment after that task (measured: a
/// look without waiting misses `<a download>` under load).
const LATE_START: Duration = Duration::from_millis(5);

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
    /// The action may have changed anything CSS alone shows (emulated
    /// media), which the snapshot engine's change tracking does not see.
    pub css_may_change: bool,
    /// The action moved the pointer: what :hover rules style may have
    /// changed (the engine works out what, see `engine::changes_args`).
    pub pointer_moved: bool,
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
            out.push_str(&format!("\nNote: {}.", d.describe(fence)));
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

impl Tab {
    /// Runs `action`, then waits for a navigation it started (if any) to
    /// load. A dialog the action opens ends the wait at once (the page is
    /// blocked until it is handled) and is reported in the outcome.
    pub async fn settle<F, Fut>(&self, action: F) -> Result<Outcome, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<(), ToolError>>,
    {
        self.settle_after(LATE_START, action).await
    }

    /// [`Self::settle`] for an action that activates nothing (a pointer
    /// move, a key that scrolls, moves the caret or closes a menu, text
    /// put into a field at once): a
    /// navigation such an action starts is a script's, announced by the
    /// page itself before the probe's answer, so there is no late download
    /// start to look for.
    pub async fn settle_passive<F, Fut>(&self, action: F) -> Result<Outcome, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<(), ToolError>>,
    {
        self.settle_after(Duration::ZERO, action).await
    }

    async fn settle_after<F, Fut>(
        &self,
        late_start: Duration,
        action: F,
    ) -> Result<Outcome, ToolError>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<(), ToolError>>,
    {
        let tab = self.id();
        // Subscribe before acting so no event can slip past.
        let mut events = self.client().backend().subscribe();
        let mut load_events = self.client().backend().subscribe();
        let mut dialogs = self.client().backend().subscribe();
        let mut opened = self.client().backend().subscribe();
        let mut downloads = self.client().backend().subscribe();
        let mut network = self.client().backend().subscribe();
        let console_before = self.tab_state().events.console_len();
        let chooser_before = self.tab_state().events.file_chooser();
        // Notes from before the action are not about it.
        self.take_notes();
        // A tool leaving on purpose has its leave question answered.
        let dialog_opened = next_event(
            &mut dialogs,
            tab,
            if self.is_leaving() {
                is_dialog_but_leave_question
            } else {
                is_dialog_opening
            },
        );
        tokio::pin!(dialog_opened);
        let mut outcome = Outcome::default();
        let began = std::time::Instant::now();
        tokio::select! {
            r = action() => r?,
            Some(params) = &mut dialog_opened => {
                // Record it now: the event watcher may not have run yet.
                let mut t = self.tab_state();
                t.events.record("Page.javascriptDialogOpening", &params);
                outcome.dialog = t.events.dialog();
                return Ok(outcome);
            }
        }
        let acted = began.elapsed();
        let started = self.navigation_started(&mut events, late_start).await;
        if !started {
            // The page has run the tasks the action queued: the requests
            // they started are announced by now.
            // Only an action that activates something asks its sockets a
            // question: text typed into a field may be sent to the server
            // with no reply to wait for.
            let activates = !late_start.is_zero();
            let (notes, waited) = self
                .wait_for_started_requests(&mut network, After::Action, activates)
                .await;
            outcome.notes.extend(notes);
            // Components' animations come to rest; and with nothing to
            // wait for that the browser can see, a timer or animation
            // frame the action scheduled may still change the page (only
            // when nothing changed yet).
            // (Not when the browser already reported what the action did:
            // a file chooser, or a download the click was known to start.)
            let reported = self.tab_state().events.file_chooser() != chooser_before
                || self.tab_state().slot::<ExpectDownload>().0;
            if self.dialog().is_none() {
                self.settle_in_page(!waited && activates && !reported).await;
            }
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
            if committed_url.is_some_and(|u| self.client().policy().check_url(u).is_err()) {
                self.enforce_after_navigation_to(committed_url).await?;
            }
            outcome.load = self.wait_usable(&mut load_events, true, None).await?;
            self.enforce_after_navigation_to(committed_url).await?;
        }
        // Downloads announce themselves before the navigation that turned
        // into one ends, or (a download link, a script) by now.
        let expect = match std::mem::take(&mut self.tab_state().slot::<ExpectDownload>().0) {
            true => crate::page::downloads::download::DOWNLOAD_ANNOUNCE,
            false => Duration::ZERO,
        };
        outcome.downloads = self.downloads_started(&mut downloads, expect).await;
        if !new_document && !outcome.downloads.is_empty() {
            // The navigation became a download: the page stayed.
            outcome.navigated = false;
        }
        outcome.dialog = self.dialog();
        let chooser_now = self.tab_state().events.file_chooser();
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
            if let Ok(tabs) = self.client().backend().list_tabs().await {
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
        let notes = self.take_notes();
        outcome
            .notes
            .extend(notes.into_iter().map(|n| format!("Note: {}.", n.text)));
        if outcome.navigated {
            outcome.notes.extend(self.failed_load_note());
        }
        // A same-document move can take several history steps (a theme
        // saves its scroll position on the old URL, then moves): name
        // where the page is now.
        if outcome.within_document.is_some() && !outcome.fragment_only {
            if let Ok(url) = self.url().await {
                outcome.within_document = Some(url);
            }
        }
        outcome.new_errors = self
            .with_events(|e| e.console_since(console_before))
            .into_iter()
            .filter(|e| e.level == "error")
            .collect();
        tracing::debug!(
            target: "tabwire::timing",
            action_ms = acted.as_secs_f64() * 1e3,
            wait_ms = (began.elapsed() - acted).as_secs_f64() * 1e3,
            "settled"
        );
        Ok(outcome)
    }

    /// Whether the action just run started a navigation. The page is asked
    /// to run one task queued after everything the action queued (a posted
    /// message): a navigation those tasks start announces itself before that
    /// answer, so the wait ends as soon as the page answers instead of after
    /// a fixed window. When the page cannot answer (busy, blocked by a
    /// dialog, already unloading) the wait is the old [`NAV_START_WINDOW`].
    async fn navigation_started(
        &self,
        events: &mut tokio::sync::broadcast::Receiver<TabEvent>,
        late_start: Duration,
    ) -> bool {
        let tab = self.id();
        use futures_util::FutureExt as _;
        // Fused: polled again after it has ended, it stays pending.
        let nav = next_event(events, tab, is_navigation_start).fuse();
        let probe = self.cdp(
            "Runtime.evaluate",
            json!({"expression": AFTER_QUEUED_TASKS, "awaitPromise": true, "returnByValue": true}),
        );
        let window = tokio::time::sleep(NAV_START_WINDOW);
        tokio::pin!(nav, probe, window);
        tokio::select! {
            Some(_) = &mut nav => true,
            r = &mut probe => {
                if r.is_ok_and(|v| v.get("exceptionDetails").is_none()) {
                    // Events the browser sent before this answer are in the
                    // stream already; some start a moment later (LATE_START).
                    if late_start.is_zero() {
                        return (&mut nav).now_or_never().flatten().is_some();
                    }
                    tokio::time::timeout(late_start, &mut nav).await.ok().flatten().is_some()
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
}

impl Tab {
    /// What an action changed, for its report: after a navigation the new
    /// page's whole snapshot; otherwise, when the model has a snapshot of this
    /// document, the lines the engine saw added and removed since its last
    /// rendering (refs stay valid). None when there is nothing to compare
    /// with (the caller reports the page line). The engine walks the page
    /// again only when it saw the DOM or a control change, or
    /// `outcome.css_may_change`; after a pointer move it renders again what
    /// the page's :hover rules can have restyled.
    pub async fn after_action(&self, outcome: &Outcome) -> Result<Option<View>, ToolError> {
        let s = self.client();
        let tab = self.id();
        let navigated = outcome.navigated;
        if navigated {
            return self
                .snapshot_loaded(outcome.load.snapshot.clone())
                .await
                .map(|t| Some(View::Snapshot(t)));
        }
        let Some(before) = s.last_snapshot().filter(|m| m.tab == tab) else {
            return Ok(None);
        };
        if self.loader_id().await? != before.loader_id {
            return self.snapshot().await.map(|t| Some(View::Snapshot(t)));
        }
        let began = std::time::Instant::now();
        let args =
            engine::changes_args(MAX_SNAPSHOT, outcome.css_may_change, outcome.pointer_moved);
        let Some(mut changes) = self.engine_value::<Changes>(0, "changes", &args).await? else {
            return Ok(None);
        };
        // Frames rendered through their own worlds report their own changes.
        for frame in self.frame_numbers() {
            if let Ok(Some(c)) = self.engine_value::<Changes>(frame, "changes", &args).await {
                changes.added.extend(c.added);
                changes.removed.extend(c.removed);
                changes.hidden += c.hidden;
                changes.walked |= c.walked;
            }
        }
        tracing::debug!(
            target: "tabwire::timing",
            changes_ms = began.elapsed().as_secs_f64() * 1e3,
            walked = changes.walked,
            "change report"
        );
        let added = changes.added.join("\n");
        s.remember_snapshot(SnapshotMark::new(tab, before.loader_id, &added));
        Ok(Some(View::Changes(format!(
            "{}\n{}",
            self.page_head(&changes.title, &changes.url),
            engine::render_changes(&changes, s.fence())
        ))))
    }
}
