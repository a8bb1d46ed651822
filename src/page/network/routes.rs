//! Network routes and conditions of one tab (the `network` group of
//! tools): requests answered by tabwire instead of the network (mocked or
//! aborted), the tab's connection (offline, throttled) and extra request
//! headers. All of it is per tab, survives navigations and is sent again
//! when the tab is set up again (a debugger detach voids it in the browser).
//!
//! **Routes** use the Fetch domain at the Request stage. Every tab already
//! pauses its document requests for authentication challenges
//! ([`crate::page::tab::interrupts`]), and the backends let paused requests go on
//! themselves, without a trip through serve. A tab with routes gets one
//! `Fetch.enable` with the document pattern and one pattern per route;
//! seeing a pattern other than the document one, the backend hands that
//! tab's paused requests to serve instead (`backend::holds_paused` is the rule,
//! `extension/relay.js` has the same), and [`Tab::on_paused`] answers
//! each: the newest matching route fulfils or aborts it, anything else
//! goes on. A request whose URL the policy denies is never fulfilled: it
//! goes on, and the browser's own blocking stands.
//!
//! The globs a route matches with are in `url_globs.rs`.

use std::path::Path;

use base64::Engine as _;
use serde_json::{json, Value};

use super::url_globs::{cdp_pattern, glob_matches, literal_host, normalize};
#[cfg(test)]
use crate::backend::holds_paused;
use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// The tab's routes, conditions and headers, sent again on setup; the
/// requests its routes pause.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn setup(&self, state: &mut crate::page::tab::calls::TabState) -> Vec<(&'static str, Value)> {
        state.slot::<TabNet>().setup()
    }

    fn intercept(&self, tab: &Tab, method: &str, params: &Value) -> bool {
        // Backends let these go themselves unless the tab has routes.
        if method != "Fetch.requestPaused" {
            return false;
        }
        tab.on_paused(params);
        true
    }
}

/// Routes kept per tab.
const MAX_ROUTES: usize = 50;
/// The largest mocked body (from `body` or `bodyFile`).
pub const MAX_BODY: u64 = 20 * 1024 * 1024;

/// What a route does with the requests it matches.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Fulfill {
        status: u16,
        /// (name, value), names as given.
        headers: Vec<(String, String)>,
        /// The body, base64 (as `Fetch.fulfillRequest` takes it).
        body_b64: String,
        body_len: usize,
    },
    Abort,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Route {
    /// The glob as the caller gave it.
    pub pattern: String,
    pub answer: Answer,
    /// Requests it answered so far.
    pub hits: u64,
}

impl Route {
    /// One line for a listing.
    pub fn line(&self) -> String {
        let what = match &self.answer {
            Answer::Abort => "abort (the request fails)".to_string(),
            Answer::Fulfill {
                status,
                headers,
                body_len,
                ..
            } => {
                let ct = headers
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                    .map(|(_, v)| format!(" {v}"))
                    .unwrap_or_default();
                format!("fulfill {status}{ct}, {body_len} bytes")
            }
        };
        format!("{} → {what}; answered {} requests", self.pattern, self.hits)
    }
}

/// The network settings of one tab.
#[derive(Default, Debug, Clone)]
pub struct TabNet {
    /// Oldest first; the newest matching one answers.
    pub routes: Vec<Route>,
    /// `Network.emulateNetworkConditions` params while any are set.
    pub conditions: Option<Value>,
    /// `Network.setExtraHTTPHeaders` headers while any are set.
    pub extra_headers: Option<Value>,
}

impl TabNet {
    /// The commands that put these settings into a freshly set-up tab (its
    /// setup already enabled Fetch for documents and the Network domain).
    pub fn setup(&self) -> Vec<(&'static str, Value)> {
        let mut cmds = Vec::new();
        if !self.routes.is_empty() {
            cmds.push(self.fetch_enable());
        }
        if let Some(c) = &self.conditions {
            cmds.push(("Network.emulateNetworkConditions", c.clone()));
        }
        if let Some(h) = &self.extra_headers {
            cmds.push(("Network.setExtraHTTPHeaders", json!({"headers": h})));
        }
        cmds
    }

    /// `Fetch.enable` for the document pattern plus one per route.
    pub fn fetch_enable(&self) -> (&'static str, Value) {
        let (method, mut params) = crate::page::tab::interrupts::fetch_setup();
        if let Some(patterns) = params["patterns"].as_array_mut() {
            for r in &self.routes {
                patterns.push(
                    json!({"urlPattern": cdp_pattern(&r.pattern), "requestStage": "Request"}),
                );
            }
        }
        (method, params)
    }
}

/// Headers given as `["Name: Value", …]` (playwright-mcp's way) or as an
/// object, as pairs.
pub fn parse_headers(v: &Value) -> Result<Vec<(String, String)>, ToolError> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::Array(items) => items
            .iter()
            .map(|i| {
                let s = i.as_str().unwrap_or_default();
                let (n, v) = s.split_once(':').ok_or_else(|| {
                    ToolError::other(format!("header {s:?} is not in the form \"Name: Value\""))
                })?;
                Ok((n.trim().to_string(), v.trim().to_string()))
            })
            .collect(),
        Value::Object(map) => Ok(map
            .iter()
            .map(|(k, v)| {
                let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
                (k.clone(), v)
            })
            .collect()),
        _ => Err(ToolError::other(
            "headers must be a list of \"Name: Value\" strings".into(),
        )),
    }
}

/// What the caller asked a route to do.
pub struct RouteSpec<'a> {
    pub pattern: &'a str,
    pub abort: bool,
    pub status: Option<u16>,
    pub body: Option<&'a str>,
    pub body_file: Option<&'a Path>,
    pub content_type: Option<&'a str>,
    pub headers: Vec<(String, String)>,
}

impl Tab {
    /// Adds a route to `tab` (replacing one with the same pattern) and
    /// starts pausing what it matches.
    pub async fn add_route(&self, spec: RouteSpec<'_>) -> Result<Route, ToolError> {
        let pattern = normalize(spec.pattern);
        if spec.pattern.trim().is_empty() {
            return Err(ToolError::other(
                "pattern is empty: give a URL glob such as **/api/*".into(),
            ));
        }
        if let Some((scheme, host)) = literal_host(&pattern) {
            self.client().policy()
                    .check_url(&format!("{scheme}://{host}/"))
                    .map_err(|why| {
                        ToolError::other(format!(
                            "refused: {why}; tabwire does not answer requests for a site the policy keeps out"
                        ))
                    })?;
        }
        let answer = if spec.abort {
            Answer::Abort
        } else {
            let bytes = match (spec.body, spec.body_file) {
                (Some(_), Some(_)) => {
                    return Err(ToolError::other("give body or bodyFile, not both".into()))
                }
                (Some(b), None) => b.as_bytes().to_vec(),
                (None, Some(path)) => {
                    let real = self
                        .client()
                        .policy()
                        .check_upload(path)
                        .map_err(|e| ToolError::other(format!("bodyFile refused: {e}")))?;
                    let len = std::fs::metadata(&real).map(|m| m.len()).unwrap_or(0);
                    if len > MAX_BODY {
                        return Err(ToolError::other(format!(
                            "bodyFile is {len} bytes; a mocked body may have at most {MAX_BODY}"
                        )));
                    }
                    std::fs::read(&real).map_err(|e| {
                        ToolError::other(format!("cannot read {}: {e}", real.display()))
                    })?
                }
                (None, None) => Vec::new(),
            };
            if bytes.len() as u64 > MAX_BODY {
                return Err(ToolError::other(format!(
                    "body is {} bytes; a mocked body may have at most {MAX_BODY}",
                    bytes.len()
                )));
            }
            let mut headers: Vec<(String, String)> = spec
                .headers
                .into_iter()
                .filter(|(n, _)| {
                    !(spec.content_type.is_some() && n.eq_ignore_ascii_case("content-type"))
                })
                .collect();
            if let Some(ct) = spec.content_type {
                headers.push(("Content-Type".into(), ct.to_string()));
            }
            let status = spec.status.unwrap_or(200);
            if !(100..=599).contains(&status) {
                return Err(ToolError::other(format!(
                    "status {status} is not an HTTP status"
                )));
            }
            Answer::Fulfill {
                status,
                headers,
                body_len: bytes.len(),
                body_b64: base64::engine::general_purpose::STANDARD.encode(&bytes),
            }
        };
        let route = Route {
            pattern: pattern.clone(),
            answer,
            hits: 0,
        };
        let enable = {
            let mut st = self.tab_state();
            let routes = &mut st.slot::<TabNet>().routes;
            routes.retain(|r| r.pattern != pattern);
            if routes.len() >= MAX_ROUTES {
                return Err(ToolError::other(format!(
                    "this tab has {MAX_ROUTES} routes already: remove some with browser_unroute"
                )));
            }
            routes.push(route.clone());
            st.slot::<TabNet>().fetch_enable()
        };
        if let Err(e) = self.cdp(enable.0, enable.1).await {
            self.tab_state()
                .slot::<TabNet>()
                .routes
                .retain(|r| r.pattern != pattern);
            return Err(e);
        }
        Ok(route)
    }

    /// Removes `tab`'s routes with this pattern (all when None); returns
    /// how many went.
    pub async fn remove_routes(&self, pattern: Option<&str>) -> Result<usize, ToolError> {
        let (gone, enable) = {
            let mut st = self.tab_state();
            let before = st.slot::<TabNet>().routes.len();
            match pattern.map(normalize) {
                Some(p) => st.slot::<TabNet>().routes.retain(|r| r.pattern != p),
                None => st.slot::<TabNet>().routes.clear(),
            }
            (
                before - st.slot::<TabNet>().routes.len(),
                st.slot::<TabNet>().fetch_enable(),
            )
        };
        if gone > 0 {
            self.cdp(enable.0, enable.1).await?;
        }
        Ok(gone)
    }

    /// `tab`'s routes, oldest first.
    pub fn routes(&self) -> Vec<Route> {
        self.tab_state().slot::<TabNet>().routes.clone()
    }

    /// Sets (Some) or clears (None) the tab's network conditions.
    pub async fn set_conditions(&self, conditions: Option<Value>) -> Result<(), ToolError> {
        let params = conditions.clone().unwrap_or_else(|| {
                json!({"offline": false, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
            });
        self.cdp("Network.emulateNetworkConditions", params).await?;
        self.tab_state().slot::<TabNet>().conditions = conditions;
        Ok(())
    }

    /// The tab's network conditions, if any are set.
    pub fn conditions(&self) -> Option<Value> {
        self.tab_state().slot::<TabNet>().conditions.clone()
    }

    /// Sets the headers added to every request of the tab (empty: none).
    pub async fn set_extra_headers(&self, headers: Vec<(String, String)>) -> Result<(), ToolError> {
        let map: serde_json::Map<String, Value> = headers
            .into_iter()
            .map(|(n, v)| (n, Value::String(v)))
            .collect();
        let value = Value::Object(map);
        self.cdp("Network.setExtraHTTPHeaders", json!({"headers": value}))
            .await?;
        self.tab_state().slot::<TabNet>().extra_headers =
            (!value.as_object().is_some_and(|m| m.is_empty())).then_some(value);
        Ok(())
    }

    /// The extra request headers of the tab, if any.
    pub fn extra_headers(&self) -> Option<Value> {
        self.tab_state().slot::<TabNet>().extra_headers.clone()
    }
}

impl Tab {
    /// Answers a request the tab paused: the newest route that matches it
    /// fulfils or aborts it; anything else (documents paused for sign-in
    /// challenges, requests no route matches, URLs the policy denies) goes on.
    pub(in crate::page) fn on_paused(&self, p: &Value) {
        let s = self.client();
        let tab = self.id();
        let id = p["requestId"].clone();
        let url = p["request"]["url"].as_str().unwrap_or_default();
        let answer = {
            let mut st = self.tab_state();
            st.slot::<TabNet>()
                .routes
                .iter_mut()
                .rev()
                .find(|r| glob_matches(&r.pattern, url))
                .map(|r| {
                    r.hits += 1;
                    r.answer.clone()
                })
        };
        let go_on = json!({"requestId": id});
        let (method, params) = match answer {
            None => ("Fetch.continueRequest", go_on.clone()),
            Some(_) if s.policy().check_url(url).is_err() => {
                tracing::info!(target: "tabwire::routes", url, "not answering a request the policy denies");
                ("Fetch.continueRequest", go_on.clone())
            }
            Some(Answer::Abort) => (
                "Fetch.failRequest",
                json!({"requestId": id, "errorReason": "Failed"}),
            ),
            Some(Answer::Fulfill {
                status,
                headers,
                body_b64,
                ..
            }) => {
                let mut list: Vec<Value> = headers
                    .iter()
                    .map(|(n, v)| json!({"name": n, "value": v}))
                    .collect();
                // A cross-origin fetch reads a mocked answer only if CORS
                // allows it: allow the asking origin unless the route said.
                let origin = p["request"]["headers"]
                    .as_object()
                    .and_then(|h| h.iter().find(|(k, _)| k.eq_ignore_ascii_case("origin")))
                    .and_then(|(_, v)| v.as_str());
                let has_acao = headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case("access-control-allow-origin"));
                if let (Some(origin), false) = (origin, has_acao) {
                    list.push(json!({"name": "Access-Control-Allow-Origin", "value": origin}));
                    list.push(json!({"name": "Access-Control-Allow-Credentials", "value": "true"}));
                }
                (
                    "Fetch.fulfillRequest",
                    json!({"requestId": id, "responseCode": status, "responseHeaders": list, "body": body_b64}),
                )
            }
        };
        let s = s.clone();
        tokio::spawn(async move {
            let r = s.backend().cdp(tab, method, params).await;
            if let Err(e) = r {
                tracing::warn!(target: "tabwire::routes", method, "could not answer a paused request: {e}");
                // Never leave the request hanging.
                if method != "Fetch.continueRequest" {
                    let _ = s.backend().cdp(tab, "Fetch.continueRequest", go_on).await;
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_document_pauses_stay_with_the_backend() {
        let net = TabNet::default();
        assert!(!holds_paused(&net.fetch_enable().1));
        let net = TabNet {
            routes: vec![Route {
                pattern: "**/x".into(),
                answer: Answer::Abort,
                hits: 0,
            }],
            ..Default::default()
        };
        assert!(holds_paused(&net.fetch_enable().1));
    }

    #[test]
    fn headers_in_both_shapes() {
        assert_eq!(
            parse_headers(&json!(["X-A: 1", "B:two"])).unwrap(),
            vec![("X-A".into(), "1".into()), ("B".into(), "two".into())]
        );
        assert_eq!(
            parse_headers(&json!({"X-A": "1"})).unwrap(),
            vec![("X-A".into(), "1".into())]
        );
        assert!(parse_headers(&json!(["nope"])).is_err());
    }
}
