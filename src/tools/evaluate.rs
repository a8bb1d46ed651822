//! `browser_evaluate`: run a JavaScript function in the page.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Kind, Response, ToolDef};
use crate::page::evaluate::evaluate_function;
use crate::page::Client;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EvaluateArgs {
    pub function: String,
    pub target: Option<String>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        "browser_evaluate",
        "Evaluate JavaScript",
        Kind::Action,
        "Run a JS function in the page, e.g. `() => document.title` (`(el) => …` with `target`); returns JSON.",
        |s: Client, a: EvaluateArgs| async move {
            let tab = s.tab().await?;
            let text = evaluate_function(&s, tab, &a.function, a.target.as_deref()).await?;
            Ok(Response::text(format!(
                "Result (page data):\n{}",
                s.fence().wrap(&text)
            )))
        },
    )]
}
