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
        "Which browser serves your calls (the extension or tabwire's own over CDP), why, and whether the extension is connected. Does not start a browser.",
        |s: Session, _: StatusArgs| async move {
            let current = match s.current_tab() {
                Some(_) => "yes",
                None => "none yet",
            };
            Ok(Response::text(format!(
                "{}\nCurrent tab: {current}",
                s.backend().status().await
            )))
        },
    )
    .without_browser()]
}
