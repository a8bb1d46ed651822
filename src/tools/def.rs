//! What a tool is: a declarative [`ToolDef`] (name, model-facing
//! description, argument schema, kind, handler), its [`Response`] and its
//! [`ToolError`]. Tool files build on this module; `tools/mod.rs` only joins
//! them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;

pub use crate::error::ToolError;
pub use crate::page::reading::snapshot::View;
use crate::page::Outcome;
use crate::page::{Client, Tab};
pub use crate::policy::{Cap, Kind};

type BoxFuture = Pin<Box<dyn Future<Output = Result<Response, ToolError>> + Send>>;
type Handler = Arc<dyn Fn(Client, Value) -> BoxFuture + Send + Sync>;

pub struct ToolDef {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub kind: Kind,
    /// Whether the call needs a browser chosen (and started) first.
    pub needs_browser: bool,
    /// The opt-in group the tool belongs to (None: always offered).
    pub cap: Option<Cap>,
    schema: Arc<JsonObject>,
    handler: Handler,
}

impl ToolDef {
    /// Declares a tool whose arguments deserialize into `A`.
    pub fn new<A, F, Fut>(
        name: &'static str,
        title: &'static str,
        kind: Kind,
        description: &'static str,
        handler: F,
    ) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(Client, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Response, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        Self {
            name,
            title,
            description,
            kind,
            needs_browser: true,
            cap: None,
            schema: Arc::new(schema_for::<A>()),
            handler: Arc::new(move |client, args| {
                let handler = handler.clone();
                Box::pin(async move {
                    let args: A = serde_json::from_value(args).map_err(|e| {
                        ToolError::new(
                            crate::error::ErrorKind::BadArguments,
                            format!(
                                "invalid arguments for {name}: {e}. Check the tool's input schema"
                            ),
                        )
                    })?;
                    handler(client, args).await
                })
            }),
        }
    }

    /// Declares a tool that works on the client's current tab: the tab is
    /// chosen, and its page checked against the policy, before `handler`
    /// runs.
    pub fn on_tab<A, F, Fut>(
        name: &'static str,
        title: &'static str,
        kind: Kind,
        description: &'static str,
        handler: F,
    ) -> Self
    where
        A: DeserializeOwned + JsonSchema + Send + 'static,
        F: Fn(Tab, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Response, ToolError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        Self::new(name, title, kind, description, move |s: Client, a: A| {
            let handler = handler.clone();
            async move { handler(Tab::current(s).await?, a).await }
        })
    }

    /// Puts the tool in an opt-in group (`serve --caps`).
    pub fn in_group(mut self, cap: Cap) -> Self {
        self.cap = Some(cap);
        self
    }

    /// Marks a tool that works without a browser (it never starts one).
    pub fn without_browser(mut self) -> Self {
        self.needs_browser = false;
        self
    }

    /// The MCP description of this tool, with its human title (clients
    /// show it to people in place of the name; the default list holds the
    /// titles within its 10 KiB budget, which `tests/serve_alone.rs` keeps).
    pub fn to_mcp(&self) -> Tool {
        let mut tool = Tool::new(self.name, self.description, self.schema.clone());
        tool.title = Some(self.title.to_string());
        match annotations(self.kind) {
            Some(a) => tool.with_annotations(a),
            None => tool,
        }
    }

    /// [`Self::to_mcp`] as a server offers it under its policy: on a
    /// read-only server a tool that runs what the page declares can run
    /// only what the page marks read-only, so it is read-only there.
    pub fn to_mcp_under(&self, policy: &crate::policy::Policy) -> Tool {
        let tool = self.to_mcp();
        if self.kind == Kind::PageDeclared && policy.read_only {
            return tool.with_annotations(ToolAnnotations::new().read_only(true));
        }
        tool
    }

    pub async fn call(&self, client: Client, args: Value) -> Result<Response, ToolError> {
        (self.handler)(client, args).await
    }
}

/// The single mapping from a tool's kind to MCP hints. MCP's defaults (not
/// read-only, destructive, open world) already describe an action on a
/// real web page, so only read-only tools carry a hint and `tools/list`
/// stays small.
pub(super) fn annotations(kind: Kind) -> Option<ToolAnnotations> {
    (kind == Kind::ReadOnly).then(|| ToolAnnotations::new().read_only(true))
}

fn schema_for<A: JsonSchema>() -> JsonObject {
    let schema = schemars::SchemaGenerator::new(schemars::generate::SchemaSettings::draft2020_12())
        .into_root_schema_for::<A>();
    let mut obj = match serde_json::to_value(schema) {
        Ok(Value::Object(o)) => o,
        _ => JsonObject::new(),
    };
    // Keep tools/list lean: the model needs the shape, not the metadata.
    obj.remove("$schema");
    obj.remove("title");
    let defs = obj.remove("$defs").unwrap_or(Value::Null);
    let mut value = Value::Object(obj);
    compact(&mut value, &defs);
    let Value::Object(mut obj) = value else {
        unreachable!("compacting keeps an object an object")
    };
    obj.entry("type").or_insert_with(|| Value::from("object"));
    obj.entry("properties")
        .or_insert_with(|| Value::Object(JsonObject::new()));
    obj
}

/// Inlines `$ref`s, drops machine-only keywords (`format`, `minimum: 0`)
/// and turns `["string", "null"]` into `"string"` (optional fields are the
/// ones missing from `required`).
fn compact(v: &mut Value, defs: &Value) {
    match v {
        Value::Object(map) => {
            if let Some(target) = map
                .get("$ref")
                .and_then(Value::as_str)
                .and_then(|r| r.strip_prefix("#/$defs/"))
                .and_then(|name| defs.get(name))
            {
                let mut inlined = target.clone();
                if let (Value::Object(inl), Some(desc)) = (&mut inlined, map.get("description")) {
                    inl.insert("description".into(), desc.clone());
                }
                *v = inlined;
                compact(v, defs);
                return;
            }
            map.remove("format");
            if map.get("minimum") == Some(&Value::from(0)) {
                map.remove("minimum");
            }
            // Limits that only restate the Rust integer type.
            if matches!(
                map.get("maximum").and_then(Value::as_u64),
                Some(255 | 65_535 | 4_294_967_295)
            ) {
                map.remove("maximum");
            }
            // JSON Schema's defaults, said again.
            if map.get("additionalProperties") == Some(&Value::Bool(true)) {
                map.remove("additionalProperties");
            }
            if map.get("default") == Some(&Value::Object(JsonObject::new())) {
                map.remove("default");
            }
            // `false` is what an absent flag means anyway.
            if map.get("default") == Some(&Value::Bool(false)) {
                map.remove("default");
            }
            if let Some(Value::Array(types)) = map.get("type") {
                let real: Vec<_> = types.iter().filter(|t| *t != "null").cloned().collect();
                if real.len() == 1 {
                    map.insert("type".into(), real[0].clone());
                }
            }
            if let Some(Value::Array(any)) = map.get("anyOf") {
                let real: Vec<_> = any
                    .iter()
                    .filter(|t| t.get("type") != Some(&Value::from("null")))
                    .cloned()
                    .collect();
                if real.len() == 1 {
                    let desc = map.get("description").cloned();
                    let mut one = real[0].clone();
                    if let (Value::Object(o), Some(d)) = (&mut one, desc) {
                        o.insert("description".into(), d);
                    }
                    *v = one;
                    compact(v, defs);
                    return;
                }
            }
            for child in map.values_mut() {
                compact(child, defs);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|i| compact(i, defs)),
        _ => {}
    }
}

/// What a tool answers, in parts: what it did or found (`lead`, in
/// tabwire's words; a page string in it is already fenced inline), what it
/// shows of the page now ([`View`]: the page line, a whole snapshot or the
/// changes), notes after that, and images. The server renders it once
/// ([`Response::render`]); `browser_batch` reads the parts, not the text.
#[derive(Debug, Default)]
pub struct Response {
    lead: String,
    view: Option<View>,
    tail: String,
    images: Vec<(String, &'static str)>,
}

impl Response {
    /// An answer that is only words (page strings fenced by the caller).
    pub fn text(s: impl Into<String>) -> Self {
        Self {
            lead: s.into(),
            ..Self::default()
        }
    }

    /// An answer that shows the page and says nothing before it.
    pub fn showing(view: View) -> Self {
        Self::default().with_view(view)
    }

    /// What the answer shows of the page, after its lead.
    pub fn with_view(mut self, view: View) -> Self {
        self.view = Some(view);
        self
    }

    /// Text that follows the page as it is (a note starts its own line).
    pub fn with_tail(mut self, s: &str) -> Self {
        self.tail.push_str(s);
        self
    }

    /// An image already encoded as base64 (CDP hands screenshots over so).
    pub fn with_image(mut self, base64: String, mime: &'static str) -> Self {
        self.images.push((base64, mime));
        self
    }

    /// Whether the answer holds a whole snapshot of the page (what a later
    /// change report builds on).
    pub fn shows_whole_page(&self) -> bool {
        matches!(self.view, Some(View::Snapshot(_)))
    }

    /// The answer's first line: its lead's, or the page line's.
    pub fn headline(&self) -> &str {
        let first = if self.lead.is_empty() {
            self.view.as_ref().map_or("", View::text)
        } else {
            &self.lead
        };
        let line = first.lines().next().unwrap_or("").trim();
        // A fence's opening line alone is no headline (page content
        // follows it).
        if crate::fence::opens_block(line) {
            return "";
        }
        line
    }

    /// The images, in order.
    pub fn take_images(&mut self) -> Vec<(String, &'static str)> {
        std::mem::take(&mut self.images)
    }

    /// The answer's text: the lead, the page on the next line, the tail.
    pub fn render(&self) -> String {
        let mut out = self.lead.clone();
        if let Some(view) = &self.view {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(view.text());
        }
        out.push_str(&self.tail);
        out
    }

    pub fn into_result(self) -> CallToolResult {
        let text = self.render();
        let mut content = Vec::new();
        if !text.is_empty() {
            content.push(ContentBlock::text(text));
        }
        for (data, mime) in self.images {
            content.push(ContentBlock::image(data, mime));
        }
        CallToolResult::success(content)
    }
}

/// Cuts `text` at `max` bytes with a marker that says how much is left
/// out, followed by `hint`.
pub(super) fn cut_with(text: &str, max: usize, hint: &str) -> String {
    crate::text::cut_bytes(text, max, |rest| {
        format!("\n[… cut: {} more characters{hint}]", rest.chars().count())
    })
}

/// The result of an action: what was done, what changed, where we are.
pub(super) async fn done(
    tab: &Tab,
    what: String,
    outcome: &Outcome,
) -> Result<Response, ToolError> {
    done_with(tab, format!("{what}."), outcome).await
}

/// [`done`] with the lead already worded (`lead` ends as it should).
pub(super) async fn done_with(
    tab: &Tab,
    lead: String,
    outcome: &Outcome,
) -> Result<Response, ToolError> {
    let s = tab.client();
    let lead = format!("{lead}{}", outcome.report(s.fence()));
    // While a dialog blocks the page, its title and URL cannot be read.
    if outcome.dialog.is_some() {
        return Ok(Response::text(lead));
    }
    let view = match tab.after_action(outcome).await? {
        Some(view) => view,
        None => View::Line(tab.page_line().await?),
    };
    Ok(Response::text(lead).with_view(view))
}
