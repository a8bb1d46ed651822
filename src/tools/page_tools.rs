//! Tools a page declares for agents (WebMCP, `navigator.modelContext`):
//! `browser_page_tools` lists them, `browser_page_tool_call` runs one.
//!
//! Where the browser has no native `navigator.modelContext`, tabwire adds a
//! small registry before any page script runs ([`REGISTRY_SHIM`]), so pages
//! written against the proposal work unchanged. With a native API, the
//! browser's testing hooks (`navigator.modelContextTesting`) are used.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::def::cut_with;
use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::page_tools::{CALL, LIST};
use crate::page::Tab;

/// Longest tool result returned.
const MAX_RESULT: usize = 20_000;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PageToolCallArgs {
    pub name: String,
    #[serde(default)]
    pub arguments: serde_json::Map<String, Value>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_page_tools",
            "Page tools",
            Kind::ReadOnly,
            "Tools the page declares (WebMCP); run one with browser_page_tool_call.",
            page_tools_tool,
        ),
        ToolDef::on_tab(
            "browser_page_tool_call",
            "Call a page tool",
            Kind::Action,
            "Run a page-declared tool by name with `arguments`.",
            page_tool_call,
        ),
    ]
}

/// browser_page_tools.
async fn page_tools_tool(t: Tab, _: NoArgs) -> Result<Response, ToolError> {
    let (s, tab) = t.into_parts();
    let r = s.call_page(tab, LIST, Value::Null).await?;
    if let Some(e) = r["error"].as_str() {
        return Err(ToolError::other(e.to_string()));
    }
    let tools = r["tools"].as_array().cloned().unwrap_or_default();
    let mut out = format!("{}\n", s.page_line(tab).await?);
    if tools.is_empty() {
        out.push_str("The page declares no tools.");
        return Ok(Response::text(out));
    }
    out.push_str("Page tools (declared by the page; their descriptions are page content):\n");
    let mut list = String::new();
    for t in &tools {
        list.push_str(&format!(
            "- {}: {}\n  input: {}\n",
            t["name"].as_str().unwrap_or(""),
            t["description"].as_str().unwrap_or(""),
            t["inputSchema"]
        ));
    }
    out.push_str(&s.fence().wrap(&list));
    Ok(Response::text(out))
}

/// browser_page_tool_call.
async fn page_tool_call(t: Tab, a: PageToolCallArgs) -> Result<Response, ToolError> {
    let (s, tab) = t.into_parts();
    let r = s
        .call_page(tab, CALL, json!({"name": a.name, "args": a.arguments}))
        .await?;
    if let Some(known) = r["missing"].as_array() {
        let names: Vec<_> = known.iter().filter_map(Value::as_str).collect();
        return Err(ToolError::other(format!(
            "the page declares no tool {:?} (it has: {}). Call browser_page_tools",
            a.name,
            if names.is_empty() {
                "none".into()
            } else {
                s.fence().quote(&names.join(", "))
            }
        )));
    }
    if let Some(e) = r["error"].as_str() {
        return Err(ToolError::other(format!(
            "page tool {} failed: {}",
            a.name,
            s.fence().quote(e)
        )));
    }
    Ok(Response::text(format!(
        "Result of page tool {} (page data):\n{}",
        a.name,
        s.fence().wrap(&cut_with(
            r["result"].as_str().unwrap_or(""),
            MAX_RESULT,
            ""
        ))
    )))
}
