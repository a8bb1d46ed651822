//! Getting the bytes behind a URL the way the page sees them (its cookies,
//! its `blob:` URLs), in pieces small enough for every transport, with a
//! size cap checked before and while reading.
//!
//! Three ways, tried in this order by the callers that need them:
//! 1. [`Tab::resource_from_network_log`]: the response the tab already received
//!    (`Network.getResponseBody`), no second request;
//! 2. [`Tab::fetch_in_page`]: `fetch()` inside the page (same-origin, `blob:`, `data:`,
//!    CORS-enabled URLs), stored in the page and read back in chunks;
//! 3. [`Tab::fetch_by_browser`]: `Network.loadNetworkResource`, the browser's own
//!    loader with the user's cookies, which CORS does not apply to.

use base64::Engine as _;
use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::tab::current::Tab;
use crate::page::tab::network_log::human_bytes;

/// Raw bytes per read: well under every message limit once base64-encoded.
const CHUNK: u64 = 4 * 1024 * 1024;

/// Bytes and what the server said about them.
#[derive(Debug)]
pub struct Fetched {
    pub bytes: Vec<u8>,
    pub mime: String,
    /// A file name the response suggested (Content-Disposition), if any.
    pub suggested_name: Option<String>,
    /// Which way got the bytes, for the report.
    pub via: &'static str,
}

/// Why a way did not deliver; `Fatal` stops the ladder (the cap, a 404).
pub enum Miss {
    /// Try the next way (e.g. CORS refused the in-page fetch).
    Next(String),
    Fatal(ToolError),
}

impl From<ToolError> for Miss {
    fn from(e: ToolError) -> Self {
        Miss::Fatal(e)
    }
}

fn too_big(size: u64, cap: u64) -> Miss {
    Miss::Fatal(ToolError::other(format!(
        "the file is {} and the limit is {} (--max-download-mb); nothing was saved",
        human_bytes(size),
        human_bytes(cap)
    )))
}

fn b64(data: &str) -> Result<Vec<u8>, ToolError> {
    base64::engine::general_purpose::STANDARD
        .decode(data)
        .map_err(|e| ToolError::other(format!("the browser sent undecodable data: {e}")))
}

impl Tab {
    /// Reads the browser stream `stream` to its end (`IO.read`, in chunks of
    /// [`CHUNK`]) and closes it, whatever happens. `each` hears how many bytes
    /// have come after every chunk, and may stop the read with its error.
    pub async fn read_stream<E: From<ToolError>>(
        &self,
        stream: &str,
        mut each: impl FnMut(usize) -> Result<(), E>,
    ) -> Result<Vec<u8>, E> {
        let mut bytes = Vec::new();
        let read = async {
            loop {
                let part = self
                    .cdp("IO.read", json!({"handle": stream, "size": CHUNK}))
                    .await?;
                let data = part["data"].as_str().unwrap_or_default();
                if part["base64Encoded"].as_bool() == Some(true) {
                    bytes.extend(b64(data)?);
                } else {
                    bytes.extend_from_slice(data.as_bytes());
                }
                each(bytes.len())?;
                if part["eof"].as_bool() != Some(false) {
                    return Ok(());
                }
            }
        };
        let outcome: Result<(), E> = read.await;
        let _ = self.cdp("IO.close", json!({"handle": stream})).await;
        outcome.map(|()| bytes)
    }

    /// Way 1: the body of a response the tab already has for `url`.
    pub async fn resource_from_network_log(&self, url: &str, cap: u64) -> Result<Fetched, Miss> {
        let Some(req) = self.with_events(|e| e.network.finished_for(url)) else {
            return Err(Miss::Next("not in the tab's network log".into()));
        };
        if let Some(size) = req.size {
            if size as u64 > cap {
                return Err(too_big(size as u64, cap));
            }
        }
        let body = self
            .response_body(&req.cdp_id)
            .await
            .map_err(|e| Miss::Next(format!("response body no longer available ({e})")))?;
        let bytes = if body.base64 {
            b64(&body.text)?
        } else {
            body.text.into_bytes()
        };
        if bytes.len() as u64 > cap {
            return Err(too_big(bytes.len() as u64, cap));
        }
        Ok(Fetched {
            bytes,
            mime: req.mime,
            suggested_name: disposition_name(header(&req.response_headers, "content-disposition")),
            via: "the response the page already received",
        })
    }

    /// Way 2: `fetch()` in the page.
    pub async fn fetch_in_page(&self, url: &str, cap: u64) -> Result<Fetched, Miss> {
        let s = self.client();
        let r = self
            .call_page(PAGE_FETCH, json!({"url": url, "cap": cap}))
            .await?;
        if let Some(size) = r["tooBig"].as_u64() {
            return Err(too_big(size, cap));
        }
        if let Some(status) = r["status"].as_i64() {
            return Err(Miss::Fatal(ToolError::other(format!(
                "the server answered HTTP {status} for {url}; nothing was saved"
            ))));
        }
        let Some(key) = r["key"].as_str() else {
            let why = r["error"].as_str().unwrap_or("no answer");
            return Err(Miss::Next(format!("in-page fetch failed: {why}")));
        };
        let size = r["size"].as_u64().unwrap_or(0);
        let mut bytes = Vec::with_capacity(size as usize);
        let read = async {
            while (bytes.len() as u64) < size {
                s.set_progress(Some(format!(
                    "reading {url}: {} of {}",
                    human_bytes(bytes.len() as u64),
                    human_bytes(size)
                )));
                let part = self
                    .call_page(
                        PAGE_CHUNK,
                        json!({"key": key, "offset": bytes.len(), "length": CHUNK}),
                    )
                    .await?;
                let Some(part) = part.as_str().filter(|p| !p.is_empty()) else {
                    return Err(ToolError::other(
                        "the page lost the fetched bytes (it navigated?)".into(),
                    ));
                };
                bytes.extend(b64(part)?);
            }
            Ok(())
        };
        let outcome = read.await;
        let _ = self
            .call_page(PAGE_CHUNK, json!({"key": key, "done": true}))
            .await;
        outcome?;
        Ok(Fetched {
            bytes,
            mime: r["mime"].as_str().unwrap_or_default().to_string(),
            suggested_name: disposition_name(r["disposition"].as_str()),
            via: "a fetch inside the page",
        })
    }

    /// Way 3: the browser's resource loader (cookies included, no CORS).
    pub async fn fetch_by_browser(&self, url: &str, cap: u64) -> Result<Fetched, Miss> {
        let s = self.client();
        let frame = self.doc().await?.frame_id;
        let r = self
            .cdp(
                "Network.loadNetworkResource",
                json!({"frameId": frame, "url": url,
                       "options": {"disableCache": false, "includeCredentials": true}}),
            )
            .await
            .map_err(|e| Miss::Next(format!("the browser could not load it ({e})")))?;
        let res = &r["resource"];
        if res["success"].as_bool() != Some(true) {
            let why = match res["httpStatusCode"].as_i64() {
                Some(code) if code >= 400 => format!("the server answered HTTP {code}"),
                _ => res["netErrorName"]
                    .as_str()
                    .unwrap_or("the load failed")
                    .to_string(),
            };
            return Err(Miss::Fatal(ToolError::other(format!(
                "{why} for {url}; nothing was saved"
            ))));
        }
        let headers = &res["headers"];
        if let Some(declared) = header(headers, "content-length").and_then(|v| v.parse().ok()) {
            if declared > cap {
                return Err(too_big(declared, cap));
            }
        }
        let Some(stream) = res["stream"].as_str() else {
            return Err(Miss::Next("the browser returned no stream".into()));
        };
        s.set_progress(Some(format!("downloading {url}")));
        let bytes = self
            .read_stream(stream, |got| {
                if got as u64 > cap {
                    return Err(too_big(got as u64, cap));
                }
                s.set_progress(Some(format!(
                    "downloading {url}: {}",
                    human_bytes(got as u64)
                )));
                Ok(())
            })
            .await?;
        Ok(Fetched {
            bytes,
            mime: header(headers, "content-type")
                .unwrap_or_default()
                .to_string(),
            suggested_name: disposition_name(header(headers, "content-disposition")),
            via: "the browser's loader",
        })
    }

    /// Runs the ladder `ways` in order: the first success wins, a fatal miss
    /// ends it, and if all pass, the error lists why each one did.
    pub async fn fetch_first_that_works(
        &self,
        url: &str,
        cap: u64,
        ways: &[Way],
    ) -> Result<Fetched, ToolError> {
        let mut why = Vec::new();
        for way in ways {
            let r = match way {
                Way::NetworkLog => self.resource_from_network_log(url, cap).await,
                Way::InPage => self.fetch_in_page(url, cap).await,
                Way::Browser => self.fetch_by_browser(url, cap).await,
            };
            match r {
                Ok(f) => return Ok(f),
                Err(Miss::Fatal(e)) => return Err(e),
                Err(Miss::Next(w)) => why.push(w),
            }
        }
        Err(ToolError::other(format!(
            "could not get {url}: {}",
            why.join("; ")
        )))
    }
}

/// Fetches in the page and parks the bytes there under a random key.
const PAGE_FETCH: &str = r#"async (a) => {
  let r;
  try { r = await fetch(a.url, {credentials: 'include'}); }
  catch (e) { return {error: String(e)}; }
  if (!r.ok) return {status: r.status};
  const declared = Number(r.headers.get('content-length') || 0);
  if (declared > a.cap) return {tooBig: declared};
  const reader = r.body.getReader(), parts = [];
  let size = 0;
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    size += value.length;
    if (size > a.cap) { reader.cancel(); return {tooBig: size}; }
    parts.push(value);
  }
  const buf = new Uint8Array(size);
  let at = 0;
  for (const p of parts) { buf.set(p, at); at += p.length; }
  const key = Math.random().toString(36).slice(2);
  (globalThis.__tabwireFetched ||= new Map()).set(key, buf);
  return {key, size, mime: r.headers.get('content-type') || '',
          disposition: r.headers.get('content-disposition') || ''};
}"#;

/// Reads a base64 chunk of parked bytes (and forgets them with `done`).
const PAGE_CHUNK: &str = r#"(a) => {
  const m = globalThis.__tabwireFetched, buf = m && m.get(a.key);
  if (!buf) return null;
  if (a.done) { m.delete(a.key); return ''; }
  const part = buf.subarray(a.offset, a.offset + a.length);
  let bin = '';
  for (let i = 0; i < part.length; i += 32768)
    bin += String.fromCharCode.apply(null, part.subarray(i, i + 32768));
  return btoa(bin);
}"#;

/// A header value by case-insensitive name.
pub fn header<'a>(headers: &'a Value, name: &str) -> Option<&'a str> {
    headers
        .as_object()?
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .and_then(|(_, v)| v.as_str())
}

/// `attachment; filename="a b.pdf"` → `a b.pdf` (sanitized later).
fn disposition_name(v: Option<&str>) -> Option<String> {
    let v = v?;
    let part = v
        .split(';')
        .map(str::trim)
        .find(|p| p.to_ascii_lowercase().starts_with("filename="))?;
    let name = part["filename=".len()..].trim().trim_matches('"');
    (!name.is_empty()).then(|| name.to_string())
}

#[derive(Debug, Clone, Copy)]
pub enum Way {
    NetworkLog,
    InPage,
    Browser,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn disposition_names() {
        assert_eq!(
            disposition_name(Some("attachment; filename=\"a b.pdf\"")).as_deref(),
            Some("a b.pdf")
        );
        assert_eq!(
            disposition_name(Some("attachment;FILENAME=x.csv")).as_deref(),
            Some("x.csv")
        );
        assert_eq!(disposition_name(Some("inline")), None);
        assert_eq!(disposition_name(None), None);
    }

    #[test]
    fn headers_match_any_case() {
        let h = json!({"Content-Type": "image/png"});
        assert_eq!(header(&h, "content-type"), Some("image/png"));
        assert_eq!(header(&h, "content-length"), None);
    }
}
