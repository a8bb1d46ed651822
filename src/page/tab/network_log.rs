//! The requests a tab made, folded from CDP `Network.*` events, so
//! `browser_network_requests` can list them and media can be captured from
//! a response the page already received.

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::page::tab::current::Tab;

/// Requests kept per tab (oldest dropped first).
const KEEP: usize = 500;
/// What one entry keeps at most (bytes): 500 entries of a page that sends
/// `data:` URLs or big posts stay small. The response body is never kept
/// (it is asked from the browser by the request's id).
const URL_MAX: usize = 4096;
const POST_MAX: usize = 8192;
const HEADER_VALUE_MAX: usize = 1024;
const HEADERS_MAX: usize = 100;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Request {
    /// Short id for the model (`1`, `2`, … per tab).
    pub id: u64,
    /// CDP's requestId (for `Network.getResponseBody`).
    pub cdp_id: String,
    pub method: String,
    pub url: String,
    /// Document, Script, Image, XHR, Fetch …
    pub kind: String,
    pub status: Option<i64>,
    pub status_text: String,
    pub mime: String,
    pub request_headers: Value,
    pub response_headers: Value,
    pub post_data: Option<String>,
    pub failed: Option<String>,
    pub finished: bool,
    /// Bytes on the wire, once finished.
    pub size: Option<f64>,
    /// A top-level document request: a new page starts here.
    pub top_document: bool,
    /// When it was sent: wall clock (seconds since the epoch) and the
    /// browser's monotonic clock; when it ended (monotonic), and over
    /// which protocol ("http/1.1", "h2"), for HAR export.
    pub wall_time: Option<f64>,
    pub started: Option<f64>,
    pub ended: Option<f64>,
    pub protocol: String,
}

impl Request {
    /// One line for a listing.
    pub fn line(&self) -> String {
        let status = match (&self.failed, self.status) {
            (Some(err), _) => format!("FAILED {err}"),
            (None, Some(s)) => s.to_string(),
            (None, None) => "pending".into(),
        };
        let size = self
            .size
            .map(|b| format!(" {}", human_bytes(b as u64)))
            .unwrap_or_default();
        format!(
            "[{}] {} {} → {status} {}{size}",
            self.id, self.method, self.url, self.kind
        )
    }
}

pub fn human_bytes(b: u64) -> String {
    match b {
        0..=1023 => format!("{b} B"),
        1024..=1_048_575 => format!("{:.1} KiB", b as f64 / 1024.0),
        _ => format!("{:.1} MiB", b as f64 / 1_048_576.0),
    }
}

/// `text` cut to at most `max` bytes (on a character boundary), marked
/// (also console entries, `console_and_dialogs.rs`).
pub(in crate::page) fn cut(text: &str, max: usize) -> String {
    crate::text::cut_bytes(text, max, |rest| {
        format!("… ({} more bytes not kept)", rest.len())
    })
}

/// Headers with at most [`HEADERS_MAX`] entries of values cut to
/// [`HEADER_VALUE_MAX`] bytes.
fn capped_headers(headers: &Value) -> Value {
    let Some(map) = headers.as_object() else {
        return headers.clone();
    };
    Value::Object(
        map.iter()
            .take(HEADERS_MAX)
            .map(|(k, v)| {
                let v = match v.as_str() {
                    Some(t) => Value::from(cut(t, HEADER_VALUE_MAX)),
                    None => v.clone(),
                };
                (cut(k, HEADER_VALUE_MAX), v)
            })
            .collect(),
    )
}

/// The requests one tab made, newest last.
#[derive(Default)]
pub struct NetworkLog {
    next_id: u64,
    requests: VecDeque<Request>,
    /// CDP requestId → our id (a redirect reuses the CDP id: the newest wins).
    by_cdp: HashMap<String, u64>,
    /// Open WebSockets: CDP requestId → address without the scheme (an
    /// action's answer names the sockets it waited on).
    sockets: HashMap<String, String>,
}

impl NetworkLog {
    /// The open WebSockets: CDP requestId → address without the scheme.
    pub fn socket_addresses(&self) -> HashMap<String, String> {
        self.sockets.clone()
    }

    /// Folds one CDP event (non-Network ones are ignored). `main_frame` is
    /// the tab's top frame id, when known: only its documents start a page.
    pub fn record(&mut self, method: &str, p: &Value, main_frame: Option<&str>) {
        if !method.starts_with("Network.") {
            return;
        }
        let log = self;
        let cdp_id = p["requestId"].as_str().unwrap_or_default();
        match method {
            "Network.webSocketCreated" => {
                let url = p["url"].as_str().unwrap_or_default();
                let what = url.split_once("://").map_or(url, |(_, rest)| rest);
                // (A page that opens sockets in a loop keeps a bounded map.)
                if log.sockets.len() < KEEP {
                    log.sockets.insert(cdp_id.to_string(), cut(what, URL_MAX));
                }
            }
            "Network.webSocketClosed" => {
                log.sockets.remove(cdp_id);
            }
            "Network.requestWillBeSent" => {
                let req = &p["request"];
                let kind = p["type"].as_str().unwrap_or("Other").to_string();
                let same_frame = match (main_frame, p["frameId"].as_str()) {
                    (Some(main), Some(f)) => main == f,
                    _ => true,
                };
                let top_document =
                    kind == "Document" && p["loaderId"].as_str() == Some(cdp_id) && same_frame;
                log.next_id += 1;
                let entry = Request {
                    id: log.next_id,
                    cdp_id: cdp_id.to_string(),
                    method: req["method"].as_str().unwrap_or("GET").to_string(),
                    url: cut(req["url"].as_str().unwrap_or_default(), URL_MAX),
                    kind,
                    request_headers: capped_headers(&req["headers"]),
                    post_data: req["postData"].as_str().map(|p| cut(p, POST_MAX)),
                    top_document,
                    wall_time: p["wallTime"].as_f64(),
                    started: p["timestamp"].as_f64(),
                    ..Default::default()
                };
                log.by_cdp.insert(cdp_id.to_string(), entry.id);
                if log.requests.len() == KEEP {
                    if let Some(old) = log.requests.pop_front() {
                        if log.by_cdp.get(&old.cdp_id) == Some(&old.id) {
                            log.by_cdp.remove(&old.cdp_id);
                        }
                    }
                }
                log.requests.push_back(entry);
            }
            "Network.responseReceived" => {
                if let Some(r) = log.find_mut(cdp_id) {
                    let resp = &p["response"];
                    r.status = resp["status"].as_i64();
                    r.status_text = resp["statusText"].as_str().unwrap_or_default().into();
                    r.mime = resp["mimeType"].as_str().unwrap_or_default().into();
                    r.response_headers = capped_headers(&resp["headers"]);
                    r.protocol = resp["protocol"].as_str().unwrap_or_default().into();
                }
            }
            "Network.loadingFinished" => {
                if let Some(r) = log.find_mut(cdp_id) {
                    r.finished = true;
                    r.size = p["encodedDataLength"].as_f64();
                    r.ended = p["timestamp"].as_f64();
                }
            }
            "Network.loadingFailed" => {
                if let Some(r) = log.find_mut(cdp_id) {
                    let why = if p["canceled"].as_bool() == Some(true) {
                        "canceled"
                    } else {
                        p["errorText"].as_str().unwrap_or("failed")
                    };
                    r.failed = Some(why.to_string());
                    r.ended = p["timestamp"].as_f64();
                }
            }
            _ => {}
        }
    }

    /// Requests of the current page: from its top-level document request
    /// on (everything kept, when that request is not in the log).
    pub fn current_page(&self) -> Vec<Request> {
        let log = self;
        let start = log
            .requests
            .iter()
            .rposition(|r| r.top_document)
            .unwrap_or(0);
        log.requests.iter().skip(start).cloned().collect()
    }

    /// Every request kept, oldest first.
    pub fn all(&self) -> Vec<Request> {
        self.requests.iter().cloned().collect()
    }

    pub fn get(&self, id: u64) -> Option<Request> {
        self.requests.iter().find(|r| r.id == id).cloned()
    }

    /// The newest finished response for `url`.
    pub fn finished_for(&self, url: &str) -> Option<Request> {
        self.requests
            .iter()
            .rev()
            .find(|r| r.url == url && r.finished && r.failed.is_none())
            .cloned()
    }

    /// Requests and requestId mappings kept (for the debug counts of
    /// browser_status).
    pub fn kept(&self) -> (usize, usize) {
        (self.requests.len(), self.by_cdp.len())
    }

    fn find_mut(&mut self, cdp_id: &str) -> Option<&mut Request> {
        let id = *self.by_cdp.get(cdp_id)?;
        self.requests.iter_mut().rev().find(|r| r.id == id)
    }
}

/// A response's body as the browser still holds it: its text, and
/// whether that text is base64 (a binary body). The browser drops the
/// bodies of older pages.
pub struct Body {
    pub text: String,
    pub base64: bool,
}

impl super::client::Client {}

impl Tab {
    /// The body of the response to the request CDP calls `cdp_id`.
    pub async fn response_body(&self, cdp_id: &str) -> Result<Body, crate::error::ToolError> {
        let b = self
            .cdp(
                "Network.getResponseBody",
                serde_json::json!({"requestId": cdp_id}),
            )
            .await?;
        Ok(Body {
            text: b["body"].as_str().unwrap_or_default().to_string(),
            base64: b["base64Encoded"].as_bool() == Some(true),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_entry_keeps_bounded_urls_posts_and_headers() {
        let mut log = NetworkLog::default();
        let big = "x".repeat(1 << 20);
        let headers: serde_json::Map<String, Value> = (0..500)
            .map(|i| (format!("h{i}"), Value::from(big.clone())))
            .collect();
        log.record(
            "Network.requestWillBeSent",
            &json!({"requestId": "1", "type": "XHR", "request": {
                "url": format!("data:text/plain,{big}"), "method": "POST",
                "postData": big, "headers": headers}}),
            None,
        );
        let r = log.get(1).unwrap();
        assert!(r.url.len() < URL_MAX + 64 && r.url.contains("more bytes not kept"));
        assert!(r.post_data.unwrap().len() < POST_MAX + 64);
        let h = r.request_headers.as_object().unwrap();
        assert_eq!(h.len(), HEADERS_MAX);
        assert!(h
            .values()
            .all(|v| v.as_str().unwrap().len() < HEADER_VALUE_MAX + 64));
    }

    fn sent(log: &mut NetworkLog, id: &str, url: &str, kind: &str, loader: &str) {
        log.record(
            "Network.requestWillBeSent",
            &json!({"requestId": id, "loaderId": loader, "type": kind, "frameId": "F",
                    "request": {"url": url, "method": "GET", "headers": {}}}),
            Some("F"),
        );
    }

    #[test]
    fn requests_fold_status_size_and_failure() {
        let mut log = NetworkLog::default();
        sent(&mut log, "A", "http://x/", "Document", "A");
        sent(&mut log, "B", "http://x/a.png", "Image", "A");
        sent(&mut log, "C", "http://x/b.js", "Script", "A");
        log.record("Network.responseReceived", &json!({"requestId": "B", "response": {"status": 200, "mimeType": "image/png", "headers": {"a": "b"}}}), None);
        log.record(
            "Network.loadingFinished",
            &json!({"requestId": "B", "encodedDataLength": 2048}),
            None,
        );
        log.record(
            "Network.loadingFailed",
            &json!({"requestId": "C", "errorText": "net::ERR_ABORTED"}),
            None,
        );
        let page = log.current_page();
        assert_eq!(page.len(), 3);
        assert!(
            page[1].line().contains("→ 200 Image 2.0 KiB"),
            "{}",
            page[1].line()
        );
        assert!(page[2].line().contains("FAILED net::ERR_ABORTED"));
        assert!(page[0].line().contains("pending"));
        assert_eq!(log.finished_for("http://x/a.png").unwrap().cdp_id, "B");
        assert!(log.finished_for("http://x/b.js").is_none());
    }

    #[test]
    fn a_new_top_document_starts_a_new_page() {
        let mut log = NetworkLog::default();
        sent(&mut log, "A", "http://x/", "Document", "A");
        sent(&mut log, "B", "http://x/a.png", "Image", "A");
        // A child frame's document does not start a page.
        log.record(
            "Network.requestWillBeSent",
            &json!({"requestId": "I", "loaderId": "I", "type": "Document", "frameId": "child",
                    "request": {"url": "http://x/frame", "method": "GET"}}),
            Some("F"),
        );
        sent(&mut log, "D", "http://y/", "Document", "D");
        sent(&mut log, "E", "http://y/s.css", "Stylesheet", "D");
        let page: Vec<_> = log.current_page().into_iter().map(|r| r.url).collect();
        assert_eq!(page, ["http://y/", "http://y/s.css"]);
        assert_eq!(log.get(2).unwrap().url, "http://x/a.png");
    }

    #[test]
    fn the_log_is_bounded() {
        let mut log = NetworkLog::default();
        for i in 0..(KEEP + 20) {
            sent(
                &mut log,
                &format!("r{i}"),
                &format!("http://x/{i}"),
                "XHR",
                "L",
            );
        }
        let page = log.current_page();
        assert_eq!(page.len(), KEEP);
        assert_eq!(page[0].id, 21);
        assert!(log.get(1).is_none());
    }
}
