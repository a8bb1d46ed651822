//! Waiting for what an action or a navigation set off, once it ran: the
//! requests it started and the DOM changes they cause, the replies to
//! the messages it sent on the page's WebSockets, and (in the page) the
//! animations of components and the changes the page's own timers make.
//! [`Tab::settle`] (action.rs) decides when each applies.

use std::time::Duration;

use serde_json::json;
use tokio::sync::broadcast::error::RecvError;

use crate::backend::TabEvent;
use crate::page::navigation::socket_replies::SocketReplies;
use crate::page::navigation::started_requests::LongLived;
use crate::page::navigation::started_requests::{self, After, StartedRequests};
use crate::page::tab::current::Tab;

/// Resolves once the DOM has not changed for 25 ms (at most 300 ms: a
/// spinner or a clock never stops).
const DOM_QUIET: &str = "new Promise(r => { let t; const done = () => { o.disconnect(); r(0); }; \
  const o = new MutationObserver(() => { clearTimeout(t); t = setTimeout(done, 25); }); \
  o.observe(document, {subtree: true, childList: true, characterData: true, attributes: true}); \
  t = setTimeout(done, 25); setTimeout(done, 300); })";

/// How long an action that changed nothing yet waits for a change a
/// timer or animation frame it scheduled makes (see the engine's
/// `settle`).
const LOOK_AHEAD: Duration = Duration::from_millis(400);

impl Tab {
    /// The engine's `settle`: animations in shadow roots come to rest
    /// (at most 400 ms); with `look`, after an activating action that
    /// changed nothing and started nothing the browser reports, waits (at
    /// most [`LOOK_AHEAD`], then at most 300 ms for the DOM to settle) for
    /// a change the page's own timers or animation frames make.
    ///
    /// With `look` it is waited for here: the look-ahead is part of the
    /// action's wait, and what a timer sets off (a download an export
    /// button makes, a dialog, a tab) belongs in this action's answer.
    /// Without, it is owed to the page: it runs before whatever looks at
    /// the page next, in the same message when that is an engine call (the
    /// change report, usually), so a pointer move or typed text pays no
    /// round trip of its own for it (through the extension one is ~4 ms;
    /// see `DueEngineCall`).
    pub(in crate::page) async fn settle_in_page(&self, look: bool) {
        let args = json!({"look": look, "ms": LOOK_AHEAD.as_millis() as u64}).to_string();
        let cap = Duration::from_millis(400) + LOOK_AHEAD + Duration::from_millis(500);
        if !look {
            self.owe_engine_call("settle", args, cap);
            return;
        }
        let began = std::time::Instant::now();
        let settle = self.engine_awaited::<bool>("settle", &args);
        let changed = tokio::time::timeout(cap, settle).await;
        tracing::debug!(target: "tabwire::wait", ?changed, ms = began.elapsed().as_millis() as u64, "looked ahead in page");
    }

    /// Waits (at most [`started_requests::CAP`]) for the requests the
    /// action or navigation started to finish and for the DOM changes they
    /// cause to settle; what is still loading then, and the connections
    /// the page holds open, are named in the notes returned (see
    /// [`started_requests`] for what is waited for). `network` was
    /// subscribed before the action (or navigation) began. With
    /// `watch_sockets`, replies to the messages the action sent on the
    /// page's WebSockets are waited for too (see [`SocketReplies`]). The
    /// bool: whether it waited at all (the page may have changed meanwhile).
    pub(in crate::page) async fn wait_for_started_requests(
        &self,
        network: &mut tokio::sync::broadcast::Receiver<TabEvent>,
        after: After,
        watch_sockets: bool,
    ) -> (Vec<String>, bool) {
        let tab = self.id();
        let known = self.tab_state().slot::<LongLived>().routes();
        let mut requests = StartedRequests::new(after, known);
        // An action's messages on the page's sockets are questions whose
        // answers come back on them (see `socket_replies`).
        let addresses = self.with_events(|e| e.network.socket_addresses());
        let mut sockets = SocketReplies::new(addresses);
        let observe = |event: TabEvent,
                       requests: &mut StartedRequests,
                       sockets: &mut SocketReplies,
                       acting: bool| {
            if let TabEvent::Cdp {
                tab: t,
                method,
                params,
            } = event
            {
                if t == tab && method.starts_with("Network.") {
                    if watch_sockets && method.starts_with("Network.webSocket") {
                        sockets.observe(&method, &params, acting);
                    }
                    requests.observe(&method, &params);
                }
            }
        };
        let drain = |network: &mut tokio::sync::broadcast::Receiver<TabEvent>,
                     requests: &mut StartedRequests,
                     sockets: &mut SocketReplies,
                     acting: bool| loop {
            match network.try_recv() {
                Ok(event) => observe(event, requests, sockets, acting),
                Err(tokio::sync::broadcast::error::TryRecvError::Lagged(_)) => continue,
                Err(_) => break,
            }
        };
        // What arrived while the action and the tasks it queued ran.
        drain(network, &mut requests, &mut sockets, true);
        if requests.started == 0 && !sockets.any() {
            let report = requests.report();
            return (report.open_line().into_iter().collect(), false);
        }
        // After a navigation whose only requests were its documents and
        // the scripts and stylesheets their HTML names, all done by now,
        // the load wait has already seen the page through them: nothing a
        // script fetched is left to render (this saves every plain page the
        // DOM quiet wait below, 25 ms at least). A script that loaded more
        // code (an app importing its UI) may still be rendering: it waits.
        if after == After::Navigation && requests.fetched == 0 && requests.is_done() {
            let report = requests.report();
            return (report.open_line().into_iter().collect(), false);
        }
        tracing::debug!(target: "tabwire::wait", started = requests.started, fetched = requests.fetched, sockets = sockets.any(), done = requests.is_done(), "waiting for what was started");
        let started_at = std::time::Instant::now();
        let deadline = tokio::time::Instant::now() + started_requests::CAP;
        let mut said = false;
        let done = |requests: &StartedRequests, sockets: &SocketReplies| {
            requests.is_done() && sockets.is_done()
        };
        // A response's handler may start the next request (fetch, then
        // fetch the details): after the DOM settles, look again.
        loop {
            while !done(&requests, &sockets) && self.dialog().is_none() {
                if !said && started_at.elapsed() > Duration::from_secs(1) {
                    said = true;
                    let loading = requests.report().still_loading;
                    self.client().set_progress(Some(format!(
                        "waiting for what the action started: {}",
                        if loading.is_empty() {
                            "replies on the page's WebSocket".to_string()
                        } else {
                            loading
                        }
                    )));
                }
                // Woken by the next event, or when a stream may have gone
                // quiet or a request become a long poll.
                let mut wake = tokio::time::Instant::now() + Duration::from_millis(250);
                for at in [requests.next_change(), sockets.next_change()]
                    .into_iter()
                    .flatten()
                {
                    wake = wake.min(tokio::time::Instant::from_std(at));
                }
                tokio::select! {
                    r = network.recv() => match r {
                        Ok(event) => observe(event, &mut requests, &mut sockets, false),
                        Err(RecvError::Lagged(_)) => {}
                        Err(RecvError::Closed) => break,
                    },
                    _ = tokio::time::sleep_until(wake.min(deadline)) => {
                        if tokio::time::Instant::now() >= deadline {
                            break;
                        }
                    }
                }
            }
            // The responses are in: let the page render them (the DOM
            // quiet for 25 ms, at most 300 ms; never while a dialog blocks it).
            if self.dialog().is_some() {
                break;
            }
            let quiet = self.eval(DOM_QUIET);
            let _ = tokio::time::timeout(Duration::from_millis(1500), quiet).await;
            if !done(&requests, &sockets) || tokio::time::Instant::now() >= deadline {
                break;
            }
            drain(network, &mut requests, &mut sockets, false);
            if done(&requests, &sockets) {
                break;
            }
        }
        if said {
            self.client().set_progress(None);
        }
        let report = requests.report();
        self.tab_state().slot::<LongLived>().learn(&report);
        let mut notes = Vec::new();
        if !report.still_loading.is_empty() {
            notes.push(format!(
                "Still loading after {} s: {}. Its result is not in this answer; browser_wait_for \
                     waits for it.",
                started_requests::CAP.as_secs(),
                report.still_loading
            ));
        }
        notes.extend(sockets.notes());
        notes.extend(report.open_line());
        tracing::debug!(target: "tabwire::wait", socket_frames = sockets.frames, ms = started_at.elapsed().as_millis() as u64, "waited");
        (notes, true)
    }
}
