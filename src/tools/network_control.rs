//! The `network` group (`serve --caps network`): requests answered by
//! tabwire (mocked or aborted), the connection (offline, throttled), extra
//! request headers, and the tab's requests exported as a HAR file. The
//! page side is `page/network/routes.rs` and `page/network/har.rs`.

use std::path::PathBuf;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::def::{Cap, Kind, Response, ToolDef, ToolError};
use crate::page::downloads::save::{sanitize_name, save};
use crate::page::network::routes::{parse_headers, RouteSpec};
use crate::page::Tab;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RouteAction {
    Fulfill,
    Abort,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RouteArgs {
    /// URL glob, e.g. "**/api/users", "https://example.com/*.json", "**/*.{png,jpg}".
    pub pattern: String,
    /// fulfill (default): answer with the mock; abort: the request fails.
    pub action: Option<RouteAction>,
    /// HTTP status of the mock (default 200).
    pub status: Option<u16>,
    /// Response body text.
    pub body: Option<String>,
    /// Absolute path of a file (in an upload dir) to answer with instead of `body`.
    #[serde(rename = "bodyFile")]
    pub body_file: Option<PathBuf>,
    /// Content-Type of the mock.
    #[serde(rename = "contentType")]
    pub content_type: Option<String>,
    /// Response headers, "Name: Value" each.
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub headers: Value,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UnrouteArgs {
    /// The pattern given to browser_route; leave out to remove every route.
    pub pattern: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

#[derive(Debug, Deserialize, JsonSchema, PartialEq)]
#[serde(rename_all = "lowercase")]
pub enum State {
    Online,
    Offline,
}

#[derive(Debug, Deserialize, JsonSchema, Clone, Copy)]
pub enum Preset {
    #[serde(rename = "Slow 3G")]
    Slow3g,
    #[serde(rename = "Fast 3G")]
    Fast3g,
    #[serde(rename = "Slow 4G")]
    Slow4g,
    #[serde(rename = "Fast 4G")]
    Fast4g,
}

impl Preset {
    /// Download kbps, upload kbps, latency ms (Chrome DevTools' presets).
    fn values(self) -> (f64, f64, f64) {
        match self {
            Preset::Slow3g => (400.0, 400.0, 2000.0),
            Preset::Fast3g | Preset::Slow4g => (1440.0, 675.0, 562.5),
            Preset::Fast4g => (8100.0, 1350.0, 165.0),
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NetworkStateArgs {
    /// offline: every request fails.
    pub state: State,
    /// Throttle to a preset connection.
    pub throttle: Option<Preset>,
    /// Download limit in kbit/s (overrides the preset's).
    #[serde(rename = "downloadKbps")]
    pub download_kbps: Option<f64>,
    /// Upload limit in kbit/s.
    #[serde(rename = "uploadKbps")]
    pub upload_kbps: Option<f64>,
    /// Added round-trip latency in ms.
    #[serde(rename = "latencyMs")]
    pub latency_ms: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExtraHeadersArgs {
    /// "Name: Value" each; an empty list removes them.
    #[schemars(with = "Vec<String>")]
    pub headers: Value,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct HarArgs {
    /// File name in the download dir (default: after the page's host).
    pub filename: Option<String>,
    /// Every request kept for the tab (its last 500), not only the current page's.
    #[serde(default)]
    pub all: bool,
    /// Leave response bodies out.
    #[serde(default, rename = "omitBodies")]
    pub omit_bodies: bool,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_route",
            "Mock or block requests",
            Kind::Action,
            "Answer the current tab's requests whose URL matches `pattern` yourself instead of \
             the network: mock an API or file (`body` or `bodyFile`, `status`, `contentType`, \
             `headers`), or make them fail (`action: \"abort\"`). Globs: ** any characters, * \
             any but /, {a,b} either; \"/api/*\" matches on any host. Routes last across \
             navigations until browser_unroute; the newest matching route answers. Takes effect \
             for requests made from now on: reload or act to refetch. Returns the tab's routes \
             (each with how many requests it answered). Refused for a site the policy denies, \
             and a request to a denied URL is never answered.",
            route,
        )
        .in_group(Cap::Network),
        ToolDef::on_tab(
            "browser_route_list",
            "List routes",
            Kind::ReadOnly,
            "The current tab's routes from browser_route: pattern, what it answers, how many \
             requests it answered (0: the page has not asked for that URL since; check the \
             pattern against browser_network_requests).",
            |t: Tab, _: NoArgs| async move { Ok(Response::text(route_list(&t))) },
        )
        .in_group(Cap::Network),
        ToolDef::on_tab(
            "browser_unroute",
            "Remove routes",
            Kind::Action,
            "Remove the current tab's route with `pattern` (as given to browser_route), or every \
             route when left out: matching requests reach the network again. Returns the routes \
             left.",
            unroute,
        )
        .in_group(Cap::Network),
        ToolDef::on_tab(
            "browser_network_state_set",
            "Set network state",
            Kind::Action,
            "Take the current tab offline (its requests and navigations fail with \
             net::ERR_INTERNET_DISCONNECTED) or back online, optionally throttled to a \
             `throttle` preset or to your own downloadKbps/uploadKbps/latencyMs. Lasts across \
             navigations; state online without throttling restores the real connection. Use it \
             to test offline pages and slow loads. Returns the tab's network state.",
            network_state_set,
        )
        .in_group(Cap::Network),
        ToolDef::on_tab(
            "browser_set_extra_headers",
            "Add request headers",
            Kind::Action,
            "Send these headers with every request of the current tab, to every site (an API \
             key, an Accept-Language, a feature flag); an empty list removes them. Replaces \
             earlier extra headers; lasts across navigations. Returns the headers now sent.",
            set_extra_headers,
        )
        .in_group(Cap::Network),
        ToolDef::on_tab(
            "browser_network_har",
            "Export requests as HAR",
            Kind::ReadOnly,
            "Save the current page's requests (`all`: every request kept for the tab) as a HAR \
             1.2 file in the download dir: URLs, headers, status, timings and the response \
             bodies the browser still holds (`omitBodies` leaves them out). For a developer to \
             open in DevTools or a HAR viewer; it holds cookies and tokens, so treat it as \
             secret. Bodies of sites the policy denies are never written. Returns the path and \
             counts; reload first to capture a page's own requests.",
            network_har,
        )
        .in_group(Cap::Network),
    ]
}

/// browser_route.
async fn route(tab: Tab, a: RouteArgs) -> Result<Response, ToolError> {
    let headers = parse_headers(&a.headers)?;
    let route = tab
        .add_route(RouteSpec {
            pattern: &a.pattern,
            abort: matches!(a.action, Some(RouteAction::Abort)),
            status: a.status,
            body: a.body.as_deref(),
            body_file: a.body_file.as_deref(),
            content_type: a.content_type.as_deref(),
            headers,
        })
        .await?;
    Ok(Response::text(format!(
        "Routed {}.\n{}",
        route.line(),
        route_list(&tab)
    )))
}

/// browser_unroute.
async fn unroute(tab: Tab, a: UnrouteArgs) -> Result<Response, ToolError> {
    let gone = tab.remove_routes(a.pattern.as_deref()).await?;
    let what = match (&a.pattern, gone) {
        (Some(p), 0) => {
            format!("No route has the pattern {p:?} (nothing removed); see the list below")
        }
        (_, n) => format!("Removed {n} route{}", if n == 1 { "" } else { "s" }),
    };
    Ok(Response::text(format!("{what}.\n{}", route_list(&tab))))
}

/// browser_network_state_set.
async fn network_state_set(tab: Tab, a: NetworkStateArgs) -> Result<Response, ToolError> {
    let preset = a.throttle.map(Preset::values);
    let down = a.download_kbps.or(preset.map(|p| p.0));
    let up = a.upload_kbps.or(preset.map(|p| p.1));
    let latency = a.latency_ms.or(preset.map(|p| p.2));
    for v in [down, up, latency].into_iter().flatten() {
        if !(v.is_finite() && v >= 0.0) {
            return Err(ToolError::other(
                "downloadKbps, uploadKbps and latencyMs must be 0 or more".into(),
            ));
        }
    }
    let offline = a.state == State::Offline;
    let throttled = down.is_some() || up.is_some() || latency.is_some();
    let conditions = (offline || throttled).then(|| {
        json!({
            "offline": offline,
            "latency": latency.unwrap_or(0.0),
            "downloadThroughput": down.map_or(-1.0, |k| k * 125.0),
            "uploadThroughput": up.map_or(-1.0, |k| k * 125.0),
        })
    });
    tab.set_conditions(conditions).await?;
    Ok(Response::text(format!("{}.", network_state(&tab))))
}

/// browser_set_extra_headers.
async fn set_extra_headers(tab: Tab, a: ExtraHeadersArgs) -> Result<Response, ToolError> {
    let headers = parse_headers(&a.headers)?;
    let n = headers.len();
    tab.set_extra_headers(headers).await?;
    Ok(Response::text(if n == 0 {
        "Extra request headers removed.".to_string()
    } else {
        format!("{}.", network_state(&tab))
    }))
}

/// browser_network_har.
async fn network_har(tab: Tab, a: HarArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let requests = tab.with_events(|e| {
        if a.all {
            e.network.all()
        } else {
            e.network.current_page()
        }
    });
    if requests.is_empty() {
        return Err(ToolError::other(
            "this tab's request log is empty (it starts when tabwire first touches \
             the tab): reload the page with browser_reload, then export"
                .into(),
        ));
    }
    s.set_progress(Some("reading response bodies for the HAR".into()));
    let cap = s.policy().max_download_bytes();
    let har = tab.har(&requests, !a.omit_bodies, cap).await?;
    s.set_progress(None);
    if har.json.len() as u64 > cap {
        return Err(ToolError::other(
            "the HAR is larger than --max-download-mb; try omitBodies: true".into(),
        ));
    }
    let raw = a.filename.unwrap_or_else(|| {
        let url = s.last_url().unwrap_or_default();
        let host = url
            .split("://")
            .nth(1)
            .and_then(|r| r.split(['/', ':']).next());
        format!(
            "{}.har",
            host.filter(|h| !h.is_empty()).unwrap_or("requests")
        )
    });
    let mut name = sanitize_name(&raw, "requests");
    if !name.to_ascii_lowercase().ends_with(".har") {
        name.push_str(".har");
    }
    let json = crate::page::downloads::save::without_secrets(&s.policy().secrets, &har.json);
    let saved = save(&s.policy().download_dir(), &name, &json, "application/json")?;
    let denied = match har.denied {
        0 => String::new(),
        n => format!(", {n} without body (sites the policy denies)"),
    };
    Ok(Response::text(format!(
        "{}\nHAR 1.2: {} requests, {} with response bodies{denied}.",
        saved.describe(s.fence()),
        har.entries,
        har.bodies
    )))
}

/// The tab's routes, for answers.
fn route_list(tab: &Tab) -> String {
    let routes = tab.routes();
    if routes.is_empty() {
        return "No routes in this tab: its requests reach the network.".into();
    }
    let mut out = format!("Routes in this tab ({}, newest last):", routes.len());
    for r in routes {
        out.push_str(&format!("\n- {}", r.line()));
    }
    out
}

/// "Network: offline, throttled to …; extra headers: …".
fn network_state(tab: &Tab) -> String {
    let line = match tab.conditions() {
        None => "Network: online, not throttled".to_string(),
        Some(c) => {
            let mut parts = vec![if c["offline"] == true {
                "offline (requests fail)".to_string()
            } else {
                "online".to_string()
            }];
            let kbps = |v: &Value| v.as_f64().filter(|b| *b >= 0.0).map(|b| b / 125.0);
            if let Some(d) = kbps(&c["downloadThroughput"]) {
                parts.push(format!("download {d} kbit/s"));
            }
            if let Some(u) = kbps(&c["uploadThroughput"]) {
                parts.push(format!("upload {u} kbit/s"));
            }
            if let Some(l) = c["latency"].as_f64().filter(|l| *l > 0.0) {
                parts.push(format!("latency +{l} ms"));
            }
            format!("Network: {}", parts.join(", "))
        }
    };
    match tab.extra_headers() {
        Some(Value::Object(h)) if !h.is_empty() => {
            let names: Vec<&str> = h.keys().map(String::as_str).collect();
            format!("{line}; extra request headers: {}", names.join(", "))
        }
        _ => line,
    }
}
