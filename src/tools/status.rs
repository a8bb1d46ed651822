//! `browser_status`: which browser serves this client, and why.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Kind, Response, ToolDef};
use super::session::Session;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StatusArgs {}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        "browser_status",
        "Browser status",
        Kind::ReadOnly,
        "Which browser serves you and why; extension state; policy.",
        |s: Session, _: StatusArgs| async move {
            let current = match s.current_tab() {
                Some(_) => "yes",
                None => "none yet",
            };
            // The user's stop, first: it is why every other call fails.
            let stopped = s
                .backend()
                .user_stop()
                .and_then(|rx| rx.borrow().clone())
                .map(|why| format!("STOPPED BY THE USER: {why}\n"))
                .unwrap_or_default();
            Ok(Response::text(format!(
                "{stopped}{}\nCurrent tab: {current}\n{}",
                s.backend().status().await,
                s.policy().summary()
            )))
        },
    )
    .without_browser()]
}
