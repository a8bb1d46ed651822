//! A tab's request log as a HAR 1.2 archive (the `network` group's
//! export): requests, headers, timings and the response bodies the
//! browser still holds. A site the policy denies keeps its bodies (and the
//! data posted to it) out of the file; its entry's comment says so.

use serde_json::{json, Map, Value};

use crate::error::ToolError;
use crate::page::tab::current::Tab;
use crate::page::tab::network_log::Request;

/// Bodies larger than this are left out (the entry's comment says so).
const MAX_ONE_BODY: usize = 10 * 1024 * 1024;

/// What an export held.
pub struct Har {
    pub json: Vec<u8>,
    pub entries: usize,
    pub bodies: usize,
    /// Entries whose body the policy kept out.
    pub denied: usize,
}

impl Tab {
    /// The HAR of `requests` (from `tab`'s log); bodies are asked from the
    /// browser when `bodies` and the total stays within `cap` bytes.
    pub async fn har(
        &self,
        requests: &[Request],
        bodies: bool,
        cap: u64,
    ) -> Result<Har, ToolError> {
        let s = self.client();
        let page = self.url().await.unwrap_or_default();
        let (mut entries, mut with_body, mut denied, mut total) = (Vec::new(), 0, 0, 0u64);
        for r in requests {
            let mut notes = Vec::new();
            let refused = s.policy().check_url(&r.url).err();
            let mut content =
                json!({"size": r.size.unwrap_or(0.0).max(0.0) as u64, "mimeType": r.mime});
            if let Some(why) = &refused {
                denied += 1;
                notes.push(format!("body left out: {why}"));
            } else if bodies && r.finished && r.failed.is_none() {
                match self.response_body(&r.cdp_id).await {
                    Ok(b) => {
                        let text = b.text.as_str();
                        if text.len() > MAX_ONE_BODY || total + text.len() as u64 > cap {
                            notes.push(format!(
                                "body left out: {} bytes is over the size limit",
                                text.len()
                            ));
                        } else {
                            total += text.len() as u64;
                            with_body += 1;
                            content["text"] = Value::from(text);
                            if b.base64 {
                                content["encoding"] = Value::from("base64");
                            }
                        }
                    }
                    Err(_) => notes.push(
                        "body not available: the browser no longer holds it (it drops bodies of \
                         older pages)"
                            .into(),
                    ),
                }
            }
            if let Some(f) = &r.failed {
                notes.push(format!("failed: {f}"));
            }
            entries.push(entry(r, content, refused.is_none(), notes.join("; ")));
        }
        let har = json!({"log": {
            "version": "1.2",
            "creator": {"name": "tabwire", "version": env!("CARGO_PKG_VERSION")},
            "pages": [],
            "entries": entries,
            "comment": format!("requests of the tab showing {page}, as tabwire's request log kept them"),
        }});
        let json = serde_json::to_vec_pretty(&har)
            .map_err(|e| ToolError::other(format!("could not write the HAR: {e}")))?;
        Ok(Har {
            json,
            entries: requests.len(),
            bodies: with_body,
            denied,
        })
    }
}

/// One HAR entry; `allowed`: the post data may go in.
fn entry(r: &Request, content: Value, allowed: bool, comment: String) -> Value {
    let http = match r.protocol.as_str() {
        "" => "HTTP/1.1".to_string(),
        p => p.to_ascii_uppercase(),
    };
    let time = match (r.started, r.ended) {
        (Some(a), Some(b)) if b >= a => (b - a) * 1000.0,
        _ => 0.0,
    };
    let mut request = json!({
        "method": r.method,
        "url": r.url,
        "httpVersion": http,
        "cookies": [],
        "headers": headers(&r.request_headers),
        "queryString": query(&r.url),
        "headersSize": -1,
        "bodySize": r.post_data.as_ref().map_or(0, |p| p.len() as i64),
    });
    if let (Some(p), true) = (&r.post_data, allowed) {
        let mime = header(&r.request_headers, "content-type").unwrap_or_default();
        request["postData"] = json!({"mimeType": mime, "text": p});
    }
    let response = json!({
        "status": r.status.unwrap_or(0),
        "statusText": r.status_text,
        "httpVersion": http,
        "cookies": [],
        "headers": headers(&r.response_headers),
        "content": content,
        "redirectURL": header(&r.response_headers, "location").unwrap_or_default(),
        "headersSize": -1,
        "bodySize": r.size.map_or(-1, |s| s as i64),
    });
    let mut e = json!({
        "startedDateTime": iso8601(r.wall_time.unwrap_or(0.0)),
        "time": time,
        "request": request,
        "response": response,
        "cache": {},
        "timings": {"send": 0, "wait": time, "receive": 0},
        "_resourceType": r.kind,
    });
    if !comment.is_empty() {
        e["comment"] = Value::from(comment);
    }
    e
}

fn headers(h: &Value) -> Vec<Value> {
    h.as_object()
        .map(Map::iter)
        .into_iter()
        .flatten()
        .flat_map(|(k, v)| {
            // Repeated headers arrive joined by newlines.
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            v.split('\n')
                .map(|one| json!({"name": k, "value": one}))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn header(h: &Value, name: &str) -> Option<String> {
    h.as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str().map(str::to_string))
}

fn query(url: &str) -> Vec<Value> {
    let Some((_, q)) = url.split_once('?') else {
        return Vec::new();
    };
    let q = q.split('#').next().unwrap_or_default();
    q.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, v) = p.split_once('=').unwrap_or((p, ""));
            json!({"name": n, "value": v})
        })
        .collect()
}

/// Seconds since the epoch as ISO 8601 in UTC, with milliseconds.
fn iso8601(secs: f64) -> String {
    let ms = (secs * 1000.0).max(0.0) as i64;
    let (days, rem) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (h, m, s, frac) = (
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000,
    );
    let (y, mo, d) = crate::audit::civil_date(days);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{frac:03}Z")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_iso8601() {
        assert_eq!(iso8601(0.0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso8601(1_700_000_000.5), "2023-11-14T22:13:20.500Z");
        assert_eq!(iso8601(951_782_400.0), "2000-02-29T00:00:00.000Z");
    }

    #[test]
    fn entries_have_what_har_requires() {
        let r = Request {
            method: "POST".into(),
            url: "https://a.test/x?q=1&r".into(),
            status: Some(200),
            request_headers: json!({"Content-Type": "application/json"}),
            response_headers: json!({"Set-Cookie": "a=1\nb=2"}),
            post_data: Some("{}".into()),
            started: Some(1.0),
            ended: Some(1.25),
            ..Default::default()
        };
        let e = entry(&r, json!({"size": 0, "mimeType": ""}), false, String::new());
        assert_eq!(e["time"], 250.0);
        assert_eq!(e["request"]["queryString"][1]["name"], "r");
        assert_eq!(e["response"]["headers"].as_array().unwrap().len(), 2);
        assert!(
            e["request"].get("postData").is_none(),
            "denied: no post data"
        );
        for k in ["startedDateTime", "cache", "timings"] {
            assert!(e.get(k).is_some(), "{k}");
        }
    }
}
