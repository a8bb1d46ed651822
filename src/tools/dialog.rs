//! `browser_handle_dialog`: accept or dismiss an alert, confirm or prompt.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{done, Kind, Response, ToolDef, ToolError};
use crate::page::Tab;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DialogArgs {
    pub accept: bool,
    #[serde(rename = "promptText")]
    pub prompt_text: Option<String>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::on_tab(
        "browser_handle_dialog",
        "Handle a dialog",
        Kind::Action,
        "Accept or dismiss the alert/confirm/prompt blocking the page.",
        handle_dialog,
    )]
}

/// browser_handle_dialog.
async fn handle_dialog(tab: Tab, a: DialogArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let Some(d) = tab.dialog() else {
        return Err(ToolError::other(
            "no dialog is open on the current page".into(),
        ));
    };
    let outcome = tab
        .settle(|| tab.answer_dialog(a.accept, a.prompt_text.as_deref()))
        .await?;
    let verb = if a.accept { "Accepted" } else { "Dismissed" };
    done(
        &tab,
        format!(
            "{verb} the {} dialog {}",
            d.kind,
            s.fence().quote(&d.message)
        ),
        &outcome,
    )
    .await
}
