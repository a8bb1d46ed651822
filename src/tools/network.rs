//! `browser_network_requests` / `browser_network_request`: what the current
//! page loaded, from the tab's request log (see [`crate::page::tab::network_log`]).

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

use super::def::cut_with;
use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::Tab;

/// Longest response body shown (the rest is cut with a marker).
const MAX_BODY: usize = 20_000;
/// Longest listing (newest requests are kept).
const MAX_LISTED: usize = 200;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RequestsArgs {
    pub filter: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RequestArgs {
    pub id: u64,
    #[serde(default)]
    pub body: bool,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_network_requests",
            "Network requests",
            Kind::ReadOnly,
            "Requests since the page loaded (`filter`: URL has): `[id] METHOD url → status type size`.",
            network_requests,
        ),
        ToolDef::on_tab(
            "browser_network_request",
            "Request details",
            Kind::ReadOnly,
            "Headers, status, post data of request `id` (`body`: its body too).",
            network_request,
        ),
    ]
}

/// browser_network_requests.
async fn network_requests(tab: Tab, a: RequestsArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let all = tab.with_events(|e| e.network.current_page());
    let matching: Vec<_> = all
        .iter()
        .filter(|r| a.filter.as_deref().is_none_or(|f| r.url.contains(f)))
        .collect();
    let mut out = format!("{}\n", tab.page_line().await?);
    if matching.is_empty() {
        out.push_str(if all.is_empty() {
            "No requests recorded (the log starts when tabwire first touches the tab; reload to see a page's own requests)."
        } else {
            "No request matches the filter."
        });
    } else {
        let skip = matching.len().saturating_sub(MAX_LISTED);
        if skip > 0 {
            out.push_str(&format!("({skip} older requests not shown)\n"));
        }
        // URLs and types are the page's: inside the fence.
        let mut list = String::new();
        for r in matching.iter().skip(skip) {
            list.push_str(&r.line());
            list.push('\n');
        }
        out.push_str(&s.fence().wrap(&list));
    }
    Ok(Response::text(out))
}

/// browser_network_request.
async fn network_request(tab: Tab, a: RequestArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let Some(r) = tab.with_events(|e| e.network.get(a.id)) else {
        return Err(ToolError::other(format!(
            "no request [{}] in this tab's log. Call browser_network_requests for current ids",
            a.id
        )));
    };
    let line = r.line();
    let mut out = String::new();
    out.push_str(&format!(
        "Request headers:\n{}",
        headers(&r.request_headers)
    ));
    if let Some(p) = &r.post_data {
        out.push_str(&format!("Post data:\n{}\n", cut_with(p, MAX_BODY, "")));
    }
    if r.status.is_some() {
        out.push_str(&format!(
            "Response: {} {} ({})\nResponse headers:\n{}",
            r.status.unwrap_or_default(),
            r.status_text,
            r.mime,
            headers(&r.response_headers)
        ));
    }
    if a.body {
        out.push_str(&body(&tab, &r).await?);
    }
    Ok(Response::text(format!(
        "Request (page data):\n{}",
        s.fence().wrap(&format!("{line}\n{out}"))
    )))
}

fn headers(h: &Value) -> String {
    let mut lines: Vec<String> = h
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| format!("  {k}: {}\n", v.as_str().unwrap_or(&v.to_string())))
        .collect();
    lines.sort();
    lines.concat()
}

async fn body(tab: &Tab, r: &crate::page::tab::network_log::Request) -> Result<String, ToolError> {
    if !r.finished {
        return Ok("Body: not available (the request has not finished or failed).\n".into());
    }
    let text = r.mime.starts_with("text/")
        || r.mime.contains("json")
        || r.mime.contains("xml")
        || r.mime.contains("javascript");
    if !text {
        return Ok(format!(
            "Body: binary ({}); save it with browser_capture_media or browser_download.\n",
            r.mime
        ));
    }
    match tab.response_body(&r.cdp_id).await {
        Ok(b) if !b.base64 => Ok(format!("Body:\n{}\n", cut_with(&b.text, MAX_BODY, ""))),
        Ok(_) => Ok("Body: binary; save it with browser_download.\n".into()),
        Err(e) => Ok(format!(
            "Body: no longer available ({e}); the browser drops bodies of old pages.\n"
        )),
    }
}
