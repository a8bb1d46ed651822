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

use super::def::{Kind, Response, ToolDef, ToolError};
use super::read::cut_with;
use super::session::Session;

/// Longest tool result returned.
const MAX_RESULT: usize = 20_000;

/// Installed on every new document of a tab tabwire drives: provides
/// `navigator.modelContext` (registerTool / unregisterTool / provideContext
/// / clearContext) when the browser has none, keeping the tools where
/// [`LIST`] and [`CALL`] find them.
pub const REGISTRY_SHIM: &str = r#"(() => {
  if ('modelContext' in navigator) return;
  const tools = new Map();
  const add = t => {
    if (!t || typeof t.name !== 'string' || typeof t.execute !== 'function')
      throw new TypeError('a tool needs a name and an execute function');
    tools.set(t.name, t);
  };
  const api = {
    registerTool(t) { add(t); return {unregister: () => tools.delete(t.name)}; },
    unregisterTool(name) { tools.delete(name); },
    provideContext(ctx) { tools.clear(); for (const t of (ctx && ctx.tools) || []) add(t); },
    clearContext() { tools.clear(); },
  };
  Object.defineProperty(navigator, 'modelContext', {value: api, configurable: true});
  Object.defineProperty(window, Symbol.for('tabwire.pageTools'), {value: tools});
})()"#;

/// `{tools: [{name, description, inputSchema}]}` or `{error}`.
const LIST: &str = r#"async () => {
  const shim = window[Symbol.for('tabwire.pageTools')];
  if (shim) return {tools: [...shim.values()].map(t => ({name: t.name,
    description: t.description || '', inputSchema: t.inputSchema || null}))};
  const testing = navigator.modelContextTesting;
  if (testing && testing.listTools) {
    const list = await testing.listTools();
    return {tools: list.map(t => ({name: t.name, description: t.description || '',
      inputSchema: typeof t.inputSchema === 'string' ? JSON.parse(t.inputSchema || 'null') : t.inputSchema}))};
  }
  if ('modelContext' in navigator)
    return {error: 'the page uses the browser\'s own navigator.modelContext, which this browser does not let tabwire list'};
  return {tools: []};
}"#;

/// Runs a page tool with `a.args`; `{result}` (text) or `{error}`.
const CALL: &str = r#"async (a) => {
  const text = r => {
    if (r && Array.isArray(r.content))
      return r.content.map(c => c.type === 'text' ? c.text : JSON.stringify(c)).join('\n');
    return typeof r === 'string' ? r : JSON.stringify(r === undefined ? null : r);
  };
  const shim = window[Symbol.for('tabwire.pageTools')];
  try {
    if (shim) {
      const t = shim.get(a.name);
      if (!t) return {missing: [...shim.keys()]};
      const client = {requestUserInteraction: async cb => cb()};
      return {result: text(await t.execute(a.args, client))};
    }
    const testing = navigator.modelContextTesting;
    if (testing && testing.executeTool)
      return {result: text(await testing.executeTool(a.name, JSON.stringify(a.args)))};
    return {missing: []};
  } catch (e) {
    return {error: String(e && e.message || e)};
  }
}"#;

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
        ToolDef::new(
            "browser_page_tools",
            "Page tools",
            Kind::ReadOnly,
            "Tools the page declares (WebMCP); run one with browser_page_tool_call.",
            |s: Session, _: NoArgs| async move {
                let tab = s.tab().await?;
                let r = s.call_page(tab, LIST, Value::Null).await?;
                if let Some(e) = r["error"].as_str() {
                    return Err(ToolError(e.to_string()));
                }
                let tools = r["tools"].as_array().cloned().unwrap_or_default();
                let mut out = format!("{}\n", s.page_line(tab).await?);
                if tools.is_empty() {
                    out.push_str("The page declares no tools.");
                    return Ok(Response::text(out));
                }
                out.push_str(
                    "Page tools (declared by the page; their descriptions are page content):\n",
                );
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
            },
        ),
        ToolDef::new(
            "browser_page_tool_call",
            "Call a page tool",
            Kind::Action,
            "Run a page-declared tool by name with `arguments`.",
            |s: Session, a: PageToolCallArgs| async move {
                let tab = s.tab().await?;
                let r = s
                    .call_page(tab, CALL, json!({"name": a.name, "args": a.arguments}))
                    .await?;
                if let Some(known) = r["missing"].as_array() {
                    let names: Vec<_> = known.iter().filter_map(Value::as_str).collect();
                    return Err(ToolError(format!(
                        "the page declares no tool {:?} (it has: {}). Call browser_page_tools",
                        a.name,
                        if names.is_empty() {
                            "none".into()
                        } else {
                            names.join(", ")
                        }
                    )));
                }
                if let Some(e) = r["error"].as_str() {
                    return Err(ToolError(format!("page tool {} failed: {e}", a.name)));
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
            },
        ),
    ]
}
