//! The requests an action starts, so that its answer can show their
//! result instead of "Loading…".
//!
//! While an action runs (and until the page has run the tasks it queued),
//! every request the page starts is recorded from the tab's Network
//! events. The answer waits until those requests finish, then until the
//! DOM changes they cause have settled, at the cost of that work and no
//! more. What never ends is never waited for: event streams, WebSockets,
//! media, beacons, and requests that were already pending before the
//! action (long polls). A request that outlives [`CAP`] ends the wait and
//! is named in the answer, so the model can decide to `browser_wait_for`.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use serde_json::Value;

/// The longest an action's answer waits for the requests it started.
pub const CAP: Duration = Duration::from_secs(5);

/// One request the action started and that has not finished yet.
#[derive(Debug, Clone)]
struct Pending {
    method: String,
    url: String,
    since: Instant,
}

/// The requests of one tab an action started, fed with its CDP events.
#[derive(Debug, Default)]
pub struct StartedRequests {
    pending: HashMap<String, Pending>,
    /// How many requests were waited for in all (for the answer).
    pub started: usize,
}

/// Resource types whose requests carry an action's result. Images, fonts,
/// media, pings (beacons), streams and sockets are left out: a page shows
/// its answer without them, or they never end.
fn awaited(kind: &str) -> bool {
    matches!(
        kind,
        "Fetch" | "XHR" | "Document" | "Script" | "Other" | "Stylesheet"
    )
}

impl StartedRequests {
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
                if !awaited(kind) || url.starts_with("data:") || url.starts_with("blob:") {
                    return;
                }
                self.started += 1;
                self.pending.insert(
                    id.to_string(),
                    Pending {
                        method: params["request"]["method"]
                            .as_str()
                            .unwrap_or("GET")
                            .to_string(),
                        url: url.to_string(),
                        since: Instant::now(),
                    },
                );
            }
            // A stream has started once its headers are in: its result is
            // whatever it sends, forever.
            "Network.responseReceived" => {
                let mime = params["response"]["mimeType"].as_str().unwrap_or_default();
                if mime.starts_with("text/event-stream") || params["type"] == "EventSource" {
                    self.pending.remove(id);
                }
            }
            "Network.loadingFinished" | "Network.loadingFailed" => {
                self.pending.remove(id);
            }
            _ => {}
        }
    }

    pub fn is_done(&self) -> bool {
        self.pending.is_empty()
    }

    /// What is still loading, for progress and for the answer:
    /// `GET /api/slow (5.0 s)`, at most three.
    pub fn still_loading(&self) -> String {
        let mut items: Vec<&Pending> = self.pending.values().collect();
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
    fn a_stream_counts_as_started_once_its_headers_arrive() {
        let mut r = StartedRequests::default();
        r.observe(
            "Network.requestWillBeSent",
            &sent("9", "Fetch", "http://h/stream"),
        );
        r.observe(
            "Network.responseReceived",
            &json!({"requestId": "9", "type": "Fetch", "response": {"mimeType": "text/event-stream"}}),
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
