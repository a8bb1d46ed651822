//! `browser_status`: which browser serves this client, and why.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::Client;

/// With this variable set in serve's environment, browser_status ends with
/// a `Debug counts:` line: the sizes of what tabwire keeps about the
/// current tab's page (tests and bench/soak.py check that a long session
/// does not grow them). Not for models: it says nothing they can use.
pub const DEBUG_COUNTS: &str = "TABWIRE_DEBUG_COUNTS";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StatusArgs {}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        "browser_status",
        "Browser status",
        Kind::ReadOnly,
        "Which browser serves you and why; extension state; policy.",
        status,
    )
    .without_browser()]
}

/// browser_status.
async fn status(s: Client, _: StatusArgs) -> Result<Response, ToolError> {
    let current = match s.current_tab() {
        Some(_) => "yes",
        None => "none yet",
    };
    // The user's stop, first: it is why every other call fails.
    let stopped = s
        .stopped_by_user()
        .map(|why| format!("STOPPED BY THE USER: {why}\n"))
        .unwrap_or_default();
    let counts = if std::env::var_os(DEBUG_COUNTS).is_some() {
        debug_counts(&s).await
    } else {
        String::new()
    };
    Ok(Response::text(format!(
        "{stopped}{}\nCurrent tab: {current}\n{}{counts}",
        s.browser_status().await,
        s.policy().summary()
    )))
}

/// The `Debug counts:` line: `name=count` pairs for the current tab —
/// `engine.*` from the page's snapshot engine (`stats()`: ref table
/// entries, refs made, sweeps, lines of the last rendering), `serve.*`
/// from this serve (ref marks, frame worlds, console entries, requests
/// and their id map).
async fn debug_counts(s: &Client) -> String {
    let Some(tab) = s.current_tab().map(|id| s.on(id)) else {
        return String::new();
    };
    let mut out = String::from("\nDebug counts:");
    if let Ok(Some(stats)) = tab
        .engine_value::<serde_json::Map<String, serde_json::Value>>(0, "stats", "")
        .await
    {
        for (k, v) in stats {
            out.push_str(&format!(" engine.{k}={v}"));
        }
    }
    let marks = s.last_snapshot().map_or(0, |m| m.entries());
    let frames = tab.frame_count();
    let (console, (requests, request_ids)) =
        tab.with_events(|e| (e.console_kept(), e.network.kept()));
    out.push_str(&format!(
        " serve.marks={marks} serve.frames={frames} serve.console={console} \
         serve.requests={requests} serve.request_ids={request_ids}"
    ));
    out
}
