//! The requests an action or a navigation starts, so that its answer can
//! show their result instead of "Loading…", without ever waiting on a
//! connection the page keeps open.
//!
//! While an action runs (and until the page has run the tasks it queued),
//! or once a navigation's page has loaded, every request the page starts
//! is recorded from the tab's Network events. The answer waits until
//! those requests finish, then until the DOM changes they cause have
//! settled, at the cost of that work and no more.
//!
//! Never waited for:
//! - WebSockets, media, images, fonts, beacons (named in the answer when
//!   a socket opened, never waited for);
//! - requests that no document's loader owns: a worker's script (the
//!   browser reports its end to the worker's own target, which the tab's
//!   session never hears) and everything workers fetch (only their own
//!   targets see it);
//! - requests pending before an action (long polls and streams the page
//!   already keeps open), and requests to a path this tab already held
//!   open that way ([`LongLived`]).
//!
//! Connections that stay open end the wait and are named; which count as
//! open, and how, is in `open_connections.rs`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::open_connections::{path_of, route_of};
pub use super::open_connections::{LongLived, Open, OpenKind, Report, OPEN_AFTER, STREAM_IDLE};

/// The longest an answer waits for the requests it started.
pub const CAP: Duration = Duration::from_secs(5);

/// How a recorded request takes part in the wait.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    /// Asked, no answer yet.
    Asked,
    /// Its headers came at this instant; its body is still coming.
    Answered(Instant),
    /// An event stream the action opened: when it last sent something.
    Streaming(Instant),
}

/// One request started and not finished yet.
#[derive(Debug, Clone)]
struct Pending {
    method: String,
    url: String,
    since: Instant,
    phase: Phase,
    /// A fetch or XHR (what a long poll is made with); a script or a
    /// stylesheet an app imports is never one, however slow.
    may_poll: bool,
    /// A document (a frame's): done once answered. The rest of its load
    /// is the frame's (the load waits, and navigate's wait for frames,
    /// see it), and a frame of another origin ends its request on its own
    /// session, which this tab's events never show.
    document: bool,
}

/// Whether the wait is after a navigation (the page's own long polls and
/// streams are not its result) or after an action (a request it started
/// is its result, however slow, up to the cap).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After {
    Navigation,
    Action,
}

/// The requests of one tab an action or navigation started, fed with its
/// CDP events.
#[derive(Debug)]
pub struct StartedRequests {
    after: After,
    pending: HashMap<String, Pending>,
    /// Connections seen open, in the order they were found so.
    open: Vec<Open>,
    /// Paths this tab held open before (see [`LongLived`]).
    known_open: Vec<String>,
    /// When a request last started or ended (the long-poll rule).
    last_change: Instant,
    /// How many requests were waited for in all (for the answer).
    pub started: usize,
    /// How many of them a page's script asked for (fetch, XHR, event
    /// streams, other, and scripts and stylesheets a script loads): work
    /// whose result the page renders when it comes, unlike the documents,
    /// scripts and stylesheets its HTML names, which a load waits for.
    pub fetched: usize,
}

/// Resource types whose requests carry a result. Images, fonts, media,
/// pings (beacons) and sockets are left out: a page shows its answer
/// without them, or they never end.
fn awaited(kind: &str) -> bool {
    matches!(
        kind,
        "Fetch" | "XHR" | "Document" | "Script" | "Other" | "Stylesheet" | "EventSource"
    )
}

/// A request the browser makes for itself, not for the page: the tab's
/// icon is the one seen (type "Other", initiator "other", no script or
/// parser behind it). The previous page's icon can be asked for late, after
/// the next navigation began, and a request cut short that way may never
/// report its end: waiting for it held an answer for the whole cap.
fn started_by_the_browser(kind: &str, initiator: Option<&str>) -> bool {
    kind == "Other" && initiator == Some("other")
}

/// A request no document loader owns (an empty `loaderId`): a dedicated,
/// shared or service worker's script. Chromium announces it on the page's
/// session and reports its end on the worker's own target only (seen with
/// Material for MkDocs' search worker: every navigation waited the whole
/// cap for it).
fn for_a_worker(params: &Value) -> bool {
    params["loaderId"].as_str() == Some("")
}

impl StartedRequests {
    /// A wait `after` a navigation or an action; `known_open`: the routes
    /// (`METHOD /path`) this tab held open before ([`LongLived::routes`]).
    pub fn new(after: After, known_open: Vec<String>) -> Self {
        Self {
            after,
            pending: HashMap::new(),
            open: Vec::new(),
            known_open,
            last_change: Instant::now(),
            started: 0,
            fetched: 0,
        }
    }

    /// Records one Network event (`method`, `params`) of the tab.
    pub fn observe(&mut self, method: &str, params: &Value) {
        self.observe_at(method, params, Instant::now());
    }

    fn observe_at(&mut self, method: &str, params: &Value, now: Instant) {
        let Some(id) = params["requestId"].as_str() else {
            return;
        };
        match method {
            "Network.requestWillBeSent" => {
                // A redirect reuses the id: the same request goes on.
                if self.pending.contains_key(id) {
                    return;
                }
                let kind = params["type"].as_str().unwrap_or("Other");
                let url = params["request"]["url"].as_str().unwrap_or_default();
                let verb = params["request"]["method"].as_str().unwrap_or("GET");
                let initiator = params["initiator"]["type"].as_str();
                if !awaited(kind)
                    || started_by_the_browser(kind, initiator)
                    || for_a_worker(params)
                    || url.starts_with("data:")
                    || url.starts_with("blob:")
                {
                    return;
                }
                let what = format!("{verb} {}", path_of(url));
                // A loading page's event streams are its own: named, never
                // waited for.
                if kind == "EventSource" && self.after == After::Navigation {
                    self.opened(id, OpenKind::EventStream, what);
                    return;
                }
                if self.known_open.contains(&route_of(verb, url)) {
                    tracing::debug!(target: "tabwire::wait", url, "not waiting for a connection this tab held open before");
                    // A navigation names it (an action's renewal is noise).
                    if self.after == After::Navigation {
                        self.opened(id, OpenKind::LongPoll, what);
                    }
                    return;
                }
                self.started += 1;
                // A script or stylesheet a script asked for (a dynamic
                // import, an injected tag) is an app building itself:
                // what it renders comes after the load event.
                if initiator == Some("script")
                    || !matches!(kind, "Document" | "Script" | "Stylesheet")
                {
                    self.fetched += 1;
                }
                tracing::debug!(target: "tabwire::wait", kind, url, initiator, "waiting for a request the page started");
                self.last_change = now;
                self.pending.insert(
                    id.to_string(),
                    Pending {
                        method: verb.to_string(),
                        url: url.to_string(),
                        since: now,
                        phase: if kind == "EventSource" {
                            Phase::Streaming(now)
                        } else {
                            Phase::Asked
                        },
                        may_poll: matches!(kind, "Fetch" | "XHR"),
                        document: kind == "Document",
                    },
                );
            }
            // An event stream is known by its headers; any other answer
            // whose body is still coming is watched as a possible stream.
            "Network.responseReceived" => {
                let mime = params["response"]["mimeType"].as_str().unwrap_or_default();
                let Some(p) = self.pending.get_mut(id) else {
                    return;
                };
                if mime.starts_with("text/event-stream") {
                    if self.after == After::Navigation {
                        let what = format!("{} {}", p.method, path_of(&p.url));
                        self.pending.remove(id);
                        self.opened(id, OpenKind::EventStream, what);
                    } else {
                        p.phase = Phase::Streaming(now);
                    }
                } else if p.document {
                    tracing::debug!(target: "tabwire::wait", url = p.url, ms = p.since.elapsed().as_millis() as u64, "document answered");
                    self.pending.remove(id);
                    self.last_change = now;
                } else if p.phase == Phase::Asked {
                    p.phase = Phase::Answered(now);
                }
            }
            "Network.dataReceived" | "Network.eventSourceMessageReceived" => {
                if let Some(p) = self.pending.get_mut(id) {
                    if let Phase::Streaming(_) = p.phase {
                        p.phase = Phase::Streaming(now);
                    }
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                if let Some(p) = self.pending.remove(id) {
                    self.last_change = now;
                    tracing::debug!(target: "tabwire::wait", url = p.url, ms = p.since.elapsed().as_millis() as u64, "request done");
                }
                self.open.retain(|o| o.id != id);
            }
            "Network.webSocketCreated" => {
                let url = params["url"].as_str().unwrap_or_default();
                let what = match url.split_once("://") {
                    Some((_, rest)) => rest.to_string(),
                    None => url.to_string(),
                };
                self.opened(id, OpenKind::WebSocket, what);
            }
            "Network.webSocketClosed" => self.open.retain(|o| o.id != id),
            _ => {}
        }
    }

    fn opened(&mut self, id: &str, kind: OpenKind, what: String) {
        self.open.push(Open {
            kind,
            what,
            id: id.to_string(),
        });
    }

    /// How `p` stands at `now`: None while it holds the answer, else the
    /// kind of open connection it is.
    fn open_now(&self, p: &Pending, now: Instant) -> Option<OpenKind> {
        match p.phase {
            Phase::Streaming(last) => {
                (now.duration_since(last) >= STREAM_IDLE).then_some(OpenKind::EventStream)
            }
            Phase::Answered(at) => {
                (now.duration_since(at) >= STREAM_IDLE).then_some(OpenKind::StreamedResponse)
            }
            Phase::Asked => (self.after == After::Navigation
                && p.may_poll
                && now.duration_since(self.last_change) >= OPEN_AFTER)
                .then_some(OpenKind::LongPoll),
        }
    }

    /// Nothing left to wait for: every request finished or is a
    /// connection the page keeps open.
    pub fn is_done(&self) -> bool {
        self.is_done_at(Instant::now())
    }

    fn is_done_at(&self, now: Instant) -> bool {
        self.pending
            .values()
            .all(|p| self.open_now(p, now).is_some())
    }

    /// When the answer to [`Self::is_done`] may next change with no new
    /// event (a stream going quiet, the long-poll rule), if ever.
    pub fn next_change(&self) -> Option<Instant> {
        self.pending
            .values()
            .filter_map(|p| match p.phase {
                Phase::Streaming(last) => Some(last + STREAM_IDLE),
                Phase::Answered(at) => Some(at + STREAM_IDLE),
                Phase::Asked => (self.after == After::Navigation && p.may_poll)
                    .then_some(self.last_change + OPEN_AFTER),
            })
            .min()
    }

    /// What the wait ends with: the requests still loading (their result
    /// is not in the answer) and the connections found open.
    pub fn report(&self) -> Report {
        self.report_at(Instant::now())
    }

    fn report_at(&self, now: Instant) -> Report {
        let mut loading: Vec<&Pending> = Vec::new();
        let mut open = self.open.clone();
        let mut pending: Vec<&Pending> = self.pending.values().collect();
        pending.sort_by_key(|p| p.since);
        for p in pending {
            // At the cap, a stream still sending is open all the same.
            let kind = self.open_now(p, now).or(match p.phase {
                Phase::Streaming(_) => Some(OpenKind::EventStream),
                _ => None,
            });
            match kind {
                Some(kind) => open.push(Open {
                    kind,
                    what: format!("{} {}", p.method, path_of(&p.url)),
                    id: String::new(),
                }),
                None => loading.push(p),
            }
        }
        let mut still_loading: Vec<String> = loading
            .iter()
            .take(3)
            .map(|p| {
                format!(
                    "{} {} ({:.1} s)",
                    p.method,
                    path_of(&p.url),
                    now.duration_since(p.since).as_secs_f64()
                )
            })
            .collect();
        if loading.len() > 3 {
            still_loading.push(format!("{} more", loading.len() - 3));
        }
        Report {
            still_loading: still_loading.join(", "),
            open,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(id: &str, kind: &str, url: &str) -> Value {
        json!({"requestId": id, "type": kind, "loaderId": "L1", "request": {"url": url, "method": "POST"}})
    }

    fn action() -> StartedRequests {
        StartedRequests::new(After::Action, Vec::new())
    }

    #[test]
    fn waits_for_fetches_not_for_streams_media_or_beacons() {
        let mut r = action();
        r.observe(
            "Network.requestWillBeSent",
            &sent("1", "Fetch", "http://h/api/compute?x=1"),
        );
        r.observe(
            "Network.requestWillBeSent",
            &sent("3", "Media", "http://h/a.mp4"),
        );
        r.observe(
            "Network.requestWillBeSent",
            &sent("4", "Ping", "http://h/beacon"),
        );
        r.observe(
            "Network.requestWillBeSent",
            &sent("5", "Image", "http://h/i.png"),
        );
        assert_eq!(r.started, 1);
        assert!(!r.is_done());
        let report = r.report();
        assert!(
            report.still_loading.starts_with("POST /api/compute?x=1 ("),
            "{report:?}"
        );
        r.observe("Network.loadingFinished", &json!({"requestId": "1"}));
        assert!(r.is_done());
    }

    #[test]
    fn a_pages_own_documents_scripts_and_styles_are_not_fetched_work() {
        let mut r = action();
        for (id, kind) in [("1", "Document"), ("2", "Script"), ("3", "Stylesheet")] {
            r.observe("Network.requestWillBeSent", &sent(id, kind, "http://h/x"));
        }
        assert_eq!((r.started, r.fetched), (3, 0));
        r.observe(
            "Network.requestWillBeSent",
            &sent("4", "XHR", "http://h/api"),
        );
        r.observe(
            "Network.requestWillBeSent",
            &sent("5", "Other", "http://h/o"),
        );
        assert_eq!((r.started, r.fetched), (5, 2));
        // A module a script imports is the app building itself (Gradio
        // imports its UI after the load event).
        let mut import = sent("6", "Script", "http://h/assets/Index.js");
        import["initiator"] = json!({"type": "script"});
        r.observe("Network.requestWillBeSent", &import);
        let mut tag = sent("7", "Script", "http://h/static/app.js");
        tag["initiator"] = json!({"type": "parser"});
        r.observe("Network.requestWillBeSent", &tag);
        assert_eq!((r.started, r.fetched), (7, 3));
    }

    #[test]
    fn the_browsers_own_requests_and_workers_scripts_are_not_the_pages_work() {
        let mut r = action();
        let mut icon = sent("1", "Other", "http://h/favicon.ico");
        icon["initiator"] = json!({"type": "other"});
        r.observe("Network.requestWillBeSent", &icon);
        // A worker's script: no loader owns it (Material for MkDocs).
        let mut worker = sent("W", "Script", "http://h/assets/workers/search.js");
        worker["loaderId"] = json!("");
        worker["initiator"] = json!({"type": "other"});
        r.observe("Network.requestWillBeSent", &worker);
        assert_eq!(r.started, 0);
        assert!(r.is_done());
        // A navigation's document has the same initiator: still awaited.
        let mut doc = sent("2", "Document", "http://h/next");
        doc["initiator"] = json!({"type": "other"});
        r.observe("Network.requestWillBeSent", &doc);
        // What a script asked for, typed "Other", is awaited too.
        let mut beacon = sent("3", "Other", "http://h/o");
        beacon["initiator"] = json!({"type": "script"});
        r.observe("Network.requestWillBeSent", &beacon);
        assert_eq!((r.started, r.fetched), (2, 1));
    }

    #[test]
    fn a_stream_the_action_opened_holds_the_answer_while_it_sends() {
        let t0 = Instant::now();
        let mut r = action();
        r.observe_at(
            "Network.requestWillBeSent",
            &sent("9", "Fetch", "http://h/queue/data"),
            t0,
        );
        r.observe_at(
            "Network.responseReceived",
            &json!({"requestId": "9", "type": "Fetch", "response": {"mimeType": "text/event-stream"}}),
            t0,
        );
        // Open and just heard from: still awaited.
        assert!(!r.is_done_at(t0));
        // Quiet for STREAM_IDLE: no longer holds the answer, and is named.
        let later = t0 + STREAM_IDLE;
        assert!(r.is_done_at(later));
        assert_eq!(r.next_change(), Some(later));
        assert_eq!(
            r.report_at(later).open_line().unwrap().split(". ").next(),
            Some("Open: event stream POST /queue/data")
        );
        // It sends again: awaited again, until it closes.
        r.observe_at("Network.dataReceived", &json!({"requestId": "9"}), later);
        assert!(!r.is_done_at(later));
        r.observe("Network.loadingFinished", &json!({"requestId": "9"}));
        assert!(r.is_done());
        assert_eq!(r.report().open_line(), None);
    }

    #[test]
    fn a_loading_pages_streams_sockets_and_long_polls_are_named_not_waited_for() {
        let t0 = Instant::now();
        let mut r = StartedRequests::new(After::Navigation, Vec::new());
        r.observe_at(
            "Network.requestWillBeSent",
            &sent("5", "EventSource", "http://h/ev"),
            t0,
        );
        r.observe_at(
            "Network.requestWillBeSent",
            &sent("6", "Fetch", "http://h/s"),
            t0,
        );
        r.observe_at(
            "Network.responseReceived",
            &json!({"requestId": "6", "type": "Fetch", "response": {"mimeType": "text/event-stream"}}),
            t0,
        );
        r.observe_at(
            "Network.webSocketCreated",
            &json!({"requestId": "7", "url": "ws://h/live"}),
            t0,
        );
        assert!(r.is_done_at(t0));
        // A fetch with no answer: waited for while other requests come
        // and go, a long poll once nothing else has for OPEN_AFTER.
        r.observe_at(
            "Network.requestWillBeSent",
            &sent("8", "Fetch", "http://h/poll?since=1"),
            t0,
        );
        r.observe_at(
            "Network.requestWillBeSent",
            &sent("9", "XHR", "http://h/data"),
            t0,
        );
        let t1 = t0 + OPEN_AFTER;
        r.observe_at("Network.loadingFinished", &json!({"requestId": "9"}), t1);
        assert!(!r.is_done_at(t1 + OPEN_AFTER / 2));
        assert_eq!(r.next_change(), Some(t1 + OPEN_AFTER));
        assert!(r.is_done_at(t1 + OPEN_AFTER));
        let report = r.report_at(t1 + OPEN_AFTER);
        assert_eq!(report.still_loading, "");
        assert_eq!(
            report.open_line().unwrap().split(". ").next(),
            Some(
                "Open: event stream POST /ev, event stream POST /s, WebSocket h/live, \
                 long poll POST /poll?since=1"
            )
        );
        // The tab remembers them: an action that opens the poll again
        // does not wait for it.
        let mut known = LongLived::default();
        known.learn(&report);
        assert_eq!(known.routes(), ["POST /ev", "POST /s", "POST /poll"]);
        let mut a = StartedRequests::new(After::Action, known.routes());
        a.observe(
            "Network.requestWillBeSent",
            &sent("10", "Fetch", "http://h/poll?since=2"),
        );
        assert_eq!(a.started, 0);
        assert!(a.is_done());
        // A socket that closed is not named.
        r.observe("Network.webSocketClosed", &json!({"requestId": "7"}));
        assert!(!r
            .report_at(t1 + OPEN_AFTER)
            .open_line()
            .unwrap()
            .contains("WebSocket"));
    }

    #[test]
    fn after_an_action_a_slow_request_is_its_result_and_a_streamed_body_ends_the_wait() {
        let t0 = Instant::now();
        let mut r = action();
        r.observe_at(
            "Network.requestWillBeSent",
            &sent("1", "Fetch", "http://h/api/slow"),
            t0,
        );
        // No long-poll rule after an action: the cap ends it.
        assert!(!r.is_done_at(t0 + CAP));
        assert_eq!(r.next_change(), None);
        r.observe_at(
            "Network.responseReceived",
            &json!({"requestId": "1", "response": {"mimeType": "application/x-ndjson"}}),
            t0,
        );
        assert!(!r.is_done_at(t0 + STREAM_IDLE / 2));
        assert!(r.is_done_at(t0 + STREAM_IDLE));
        assert!(r
            .report_at(t0 + STREAM_IDLE)
            .open_line()
            .unwrap()
            .starts_with("Open: streamed response POST /api/slow."));
    }

    #[test]
    fn failures_and_redirects_end_or_continue_the_same_request() {
        let mut r = action();
        r.observe("Network.requestWillBeSent", &sent("7", "XHR", "http://h/a"));
        r.observe("Network.requestWillBeSent", &sent("7", "XHR", "http://h/b"));
        assert_eq!(r.started, 1);
        r.observe("Network.loadingFailed", &json!({"requestId": "7"}));
        assert!(r.is_done());
        assert_eq!(path_of("http://h"), "http://h");
        assert_eq!(path_of("https://h.example/p?q=1"), "/p?q=1");
    }
}
