//! The requests an action starts, so that its answer can show their
//! result instead of "Loading…".
//!
//! While an action runs (and until the page has run the tasks it queued),
//! every request the page starts is recorded from the tab's Network
//! events. The answer waits until those requests finish, then until the
//! DOM changes they cause have settled, at the cost of that work and no
//! more. Never waited for: WebSockets, media, images, beacons, and
//! requests that were already pending before the action (long polls and
//! event streams the page keeps open). An event stream the action itself
//! opens is waited for while it sends: apps such as Gradio deliver a
//! job's result over a stream they open for it and close after it; a
//! stream quiet for [`STREAM_IDLE`] no longer holds the answer. A request
//! that outlives [`CAP`] ends the wait and is named in the answer, so the
//! model can decide to `browser_wait_for`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The longest an action's answer waits for the requests it started.
pub const CAP: Duration = Duration::from_secs(5);

/// An event stream the action opened that has sent nothing for this long
/// no longer holds the answer (it may stay open for good).
pub const STREAM_IDLE: Duration = Duration::from_millis(1500);

/// One request the action started and that has not finished yet.
#[derive(Debug, Clone)]
struct Pending {
    method: String,
    url: String,
    since: Instant,
    /// An event stream: when it last sent something.
    stream: Option<Instant>,
}

/// The requests of one tab an action started, fed with its CDP events.
#[derive(Debug, Default)]
pub struct StartedRequests {
    pending: HashMap<String, Pending>,
    /// How many requests were waited for in all (for the answer).
    pub started: usize,
    /// How many of them a page's script asked for (fetch, XHR, event
    /// streams, other, and scripts and stylesheets a script loads): work
    /// whose result the page renders when it comes, unlike the documents,
    /// scripts and stylesheets its HTML names, which a load waits for.
    pub fetched: usize,
    /// Event streams are waited for while they send (after an action); a
    /// page that is loading opens streams it keeps, which are not.
    pub streams_too: bool,
}

/// Resource types whose requests carry an action's result. Images, fonts,
/// media, pings (beacons), streams and sockets are left out: a page shows
/// its answer without them, or they never end.
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

impl StartedRequests {
    /// `streams_too`: see the field.
    pub fn new(streams_too: bool) -> Self {
        Self {
            streams_too,
            ..Self::default()
        }
    }

    /// Records one Network event (`method`, `params`) of the tab.
    pub fn observe(&mut self, method: &str, params: &Value) {
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
                let initiator = params["initiator"]["type"].as_str();
                if !awaited(kind)
                    || started_by_the_browser(kind, initiator)
                    || (kind == "EventSource" && !self.streams_too)
                    || url.starts_with("data:")
                    || url.starts_with("blob:")
                {
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
                self.pending.insert(
                    id.to_string(),
                    Pending {
                        method: params["request"]["method"]
                            .as_str()
                            .unwrap_or("GET")
                            .to_string(),
                        url: url.to_string(),
                        since: Instant::now(),
                        stream: (kind == "EventSource").then(Instant::now),
                    },
                );
            }
            // A stream is known by its headers; what it sends keeps it
            // awaited.
            "Network.responseReceived" => {
                let mime = params["response"]["mimeType"].as_str().unwrap_or_default();
                if mime.starts_with("text/event-stream") {
                    if !self.streams_too {
                        self.pending.remove(id);
                    } else if let Some(p) = self.pending.get_mut(id) {
                        p.stream = Some(Instant::now());
                    }
                }
            }
            "Network.dataReceived" | "Network.eventSourceMessageReceived" => {
                if let Some(p) = self.pending.get_mut(id) {
                    if p.stream.is_some() {
                        p.stream = Some(Instant::now());
                    }
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                if let Some(p) = self.pending.remove(id) {
                    tracing::debug!(target: "tabwire::wait", url = p.url, ms = p.since.elapsed().as_millis() as u64, "request done");
                }
            }
            _ => {}
        }
    }

    /// Nothing left to wait for: every request finished, and the event
    /// streams still open have gone quiet.
    pub fn is_done(&self) -> bool {
        self.pending
            .values()
            .all(|p| p.stream.is_some_and(|last| last.elapsed() >= STREAM_IDLE))
    }

    /// Whether a request (not a stream) is still running.
    pub fn requests_pending(&self) -> bool {
        self.pending.values().any(|p| p.stream.is_none())
    }

    /// The event streams the action opened that are still open.
    pub fn open_streams(&self) -> String {
        let streams: Vec<String> = self
            .pending
            .values()
            .filter(|p| p.stream.is_some())
            .map(|p| format!("{} {}", p.method, path_of(&p.url)))
            .collect();
        streams.join(", ")
    }

    /// What is still loading, for progress and for the answer:
    /// `GET /api/slow (5.0 s)`, at most three.
    pub fn still_loading(&self) -> String {
        let mut items: Vec<&Pending> = self
            .pending
            .values()
            .filter(|p| p.stream.is_none())
            .collect();
        items.sort_by_key(|p| p.since);
        let mut out: Vec<String> = items
            .iter()
            .take(3)
            .map(|p| {
                format!(
                    "{} {} ({:.1} s)",
                    p.method,
                    path_of(&p.url),
                    p.since.elapsed().as_secs_f64()
                )
            })
            .collect();
        if items.len() > 3 {
            out.push(format!("{} more", items.len() - 3));
        }
        out.join(", ")
    }
}

/// The path and query of a URL (what names a request to the model);
/// the whole URL when it has no path.
fn path_of(url: &str) -> &str {
    let rest = url.split_once("://").map_or(url, |(_, r)| r);
    match rest.find('/') {
        Some(at) => {
            let p = &rest[at..];
            if p.len() > 120 {
                &p[..p.char_indices().nth(120).map_or(p.len(), |(i, _)| i)]
            } else {
                p
            }
        }
        None => url,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sent(id: &str, kind: &str, url: &str) -> Value {
        json!({"requestId": id, "type": kind, "request": {"url": url, "method": "POST"}})
    }

    #[test]
    fn waits_for_fetches_not_for_streams_media_or_beacons() {
        let mut r = StartedRequests::default();
        r.observe(
            "Network.requestWillBeSent",
            &sent("1", "Fetch", "http://h/api/compute?x=1"),
        );
        r.observe(
            "Network.requestWillBeSent",
            &sent("2", "EventSource", "http://h/events"),
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
        assert!(
            r.still_loading().starts_with("POST /api/compute?x=1 ("),
            "{}",
            r.still_loading()
        );
        r.observe("Network.loadingFinished", &json!({"requestId": "1"}));
        assert!(r.is_done());
    }

    #[test]
    fn a_pages_own_documents_scripts_and_styles_are_not_fetched_work() {
        let mut r = StartedRequests::default();
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
    fn the_browsers_own_requests_are_not_the_pages_work() {
        let mut r = StartedRequests::default();
        let mut icon = sent("1", "Other", "http://h/favicon.ico");
        icon["initiator"] = json!({"type": "other"});
        r.observe("Network.requestWillBeSent", &icon);
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
        let mut r = StartedRequests {
            streams_too: true,
            ..Default::default()
        };
        r.observe(
            "Network.requestWillBeSent",
            &sent("9", "Fetch", "http://h/queue/data"),
        );
        r.observe(
            "Network.responseReceived",
            &json!({"requestId": "9", "type": "Fetch", "response": {"mimeType": "text/event-stream"}}),
        );
        // Open and just heard from: still awaited, but not a request.
        assert!(!r.is_done());
        assert!(!r.requests_pending());
        assert_eq!(r.open_streams(), "POST /queue/data");
        // Quiet for STREAM_IDLE: no longer holds the answer.
        r.pending.get_mut("9").unwrap().stream = Some(Instant::now() - STREAM_IDLE);
        assert!(r.is_done());
        // It sends again: awaited again, until it closes.
        r.observe("Network.dataReceived", &json!({"requestId": "9"}));
        assert!(!r.is_done());
        r.observe("Network.loadingFinished", &json!({"requestId": "9"}));
        assert!(r.is_done());
        assert_eq!(r.open_streams(), "");
        // While a page loads, its streams are not waited for.
        let mut r = StartedRequests::default();
        r.observe(
            "Network.requestWillBeSent",
            &sent("5", "EventSource", "http://h/ev"),
        );
        r.observe(
            "Network.requestWillBeSent",
            &sent("6", "Fetch", "http://h/s"),
        );
        r.observe(
            "Network.responseReceived",
            &json!({"requestId": "6", "type": "Fetch", "response": {"mimeType": "text/event-stream"}}),
        );
        assert!(r.is_done());
    }

    #[test]
    fn failures_and_redirects_end_or_continue_the_same_request() {
        let mut r = StartedRequests::default();
        r.observe("Network.requestWillBeSent", &sent("7", "XHR", "http://h/a"));
        r.observe("Network.requestWillBeSent", &sent("7", "XHR", "http://h/b"));
        assert_eq!(r.started, 1);
        r.observe("Network.loadingFailed", &json!({"requestId": "7"}));
        assert!(r.is_done());
        assert_eq!(path_of("http://h"), "http://h");
        assert_eq!(path_of("https://h.example/p?q=1"), "/p?q=1");
    }
}
