//! `browser_status`: which browser serves this client, and why.

use schemars::JsonSchema;
use serde::Deserialize;

use super::{Kind, Response, Session, ToolDef};

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
            Ok(Response::text(format!(
                "{}\nCurrent tab: {current}\n{}",
                s.backend().status().await,
                s.policy().summary()
            )))
        },
    )
    .without_browser()]
}
