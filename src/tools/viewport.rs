//! `browser_resize`: set the page's viewport size.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::Client;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ResizeArgs {
    pub width: u32,
    pub height: u32,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        "browser_resize",
        "Resize viewport",
        Kind::Action,
        "Set the viewport in CSS px (390x844: a phone).",
        resize,
    )]
}

/// browser_resize.
async fn resize(s: Client, a: ResizeArgs) -> Result<Response, ToolError> {
    for (what, v) in [("width", a.width), ("height", a.height)] {
        if !(100..=4000).contains(&v) {
            return Err(ToolError::other(format!(
                "{what} {v} is out of range (100–4000)"
            )));
        }
    }
    let tab = s.on(s.tab().await?);
    tab.set_viewport(a.width, a.height).await?;
    tab.until_at_rest().await;
    let got = tab.eval("[innerWidth, innerHeight]").await?;
    Ok(Response::text(format!(
        "Viewport is now {got} (width, height)."
    )))
}
