//! `browser_evaluate`: run a JavaScript function in the page.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::Tab;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EvaluateArgs {
    pub function: String,
    pub target: Option<String>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::on_tab(
            "browser_evaluate",
            "Evaluate JavaScript",
            Kind::Action,
            "Run a JS function in the page, e.g. `() => document.title` (`(el) => …` with `target`); returns JSON.",
            evaluate_tool,
    )]
}

/// browser_evaluate.
async fn evaluate_tool(tab: Tab, a: EvaluateArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let text = tab
        .evaluate_function(&a.function, a.target.as_deref())
        .await?;
    Ok(Response::text(format!(
        "Result (page data):\n{}",
        s.fence().wrap(&text)
    )))
}
