//! Editing a JSON client config (`mcpServers` or VS Code's `servers`):
//! the file is read as an ordered list of raw entries, so other servers and
//! settings keep their exact text and order, and only the tabwire entry is
//! added, replaced or removed.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::Value;

use super::{server_entry, Edit, Format, Launch, McpClient, SERVER_NAME};

pub(super) fn servers_key(c: &McpClient) -> &'static str {
    match c.format {
        Format::VsCodeServers => "servers",
        _ => "mcpServers",
    }
}

/// The server entry's text at nesting `depth`, keys in reading order
/// (`serde_json` would sort them).
pub(super) fn entry_text(c: &McpClient, launch: &Launch, depth: usize) -> String {
    let command = serde_json::to_string(&launch.command).expect("string serializes");
    let mut entries = Vec::new();
    if c.format == Format::VsCodeServers {
        entries.push(("type".to_string(), "\"stdio\"".to_string()));
    }
    entries.push(("command".to_string(), command));
    let pad = "  ".repeat(depth + 2);
    let close = "  ".repeat(depth + 1);
    let args: Vec<String> = launch
        .args
        .iter()
        .map(|a| {
            format!(
                "{pad}{}",
                serde_json::to_string(a).expect("string serializes")
            )
        })
        .collect();
    entries.push((
        "args".to_string(),
        format!("[\n{}\n{close}]", args.join(",\n")),
    ));
    emit_object(&entries, depth)
}

/// A JSON object as its entries in file order, values kept as raw text.
struct Entries(Vec<(String, Box<RawValue>)>);

impl<'de> Deserialize<'de> for Entries {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Entries, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = map.next_entry::<String, Box<RawValue>>()? {
                    out.push((k, v));
                }
                Ok(Entries(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn parse_entries(text: &str, what: &str) -> Result<Vec<(String, String)>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    let Entries(entries) = serde_json::from_str(text).map_err(|e| {
        format!(
            "{what} is not a plain JSON object ({e}). tabwire edits only plain JSON (no \
                 comments or trailing commas): fix the file, or add the tabwire entry that \
                 `tabwire install` prints by hand"
        )
    })?;
    Ok(entries
        .into_iter()
        .map(|(k, v)| (k, v.get().to_string()))
        .collect())
}

/// An object at nesting `depth` (0 = top level), two-space indented; values
/// are emitted as given.
pub(super) fn emit_object(entries: &[(String, String)], depth: usize) -> String {
    if entries.is_empty() {
        return "{}".into();
    }
    let pad = "  ".repeat(depth + 1);
    let body: Vec<String> = entries
        .iter()
        .map(|(k, v)| format!("{pad}{}: {v}", serde_json::to_string(k).expect("key")))
        .collect();
    format!("{{\n{}\n{}}}", body.join(",\n"), "  ".repeat(depth))
}

pub(super) fn json_add(c: &McpClient, text: &str, launch: &Launch) -> Result<Edit, String> {
    let key = servers_key(c);
    let mut top = parse_entries(text, "the config file")?;
    let ours = server_entry(c, launch);
    let servers_at = top.iter().position(|(k, _)| k == key);
    let mut servers = match servers_at {
        Some(i) => parse_entries(&top[i].1, &format!("\"{key}\""))?,
        None => Vec::new(),
    };
    match servers.iter().position(|(k, _)| k == SERVER_NAME) {
        Some(i) => {
            let current: Value = serde_json::from_str(&servers[i].1).unwrap_or(Value::Null);
            if current == ours {
                return Ok(Edit::Unchanged);
            }
            servers[i].1 = entry_text(c, launch, 2);
        }
        None => servers.push((SERVER_NAME.to_string(), entry_text(c, launch, 2))),
    }
    let servers_text = emit_object(&servers, 1);
    match servers_at {
        Some(i) => top[i].1 = servers_text,
        None => top.push((key.to_string(), servers_text)),
    }
    Ok(Edit::Changed(format!("{}\n", emit_object(&top, 0))))
}

pub(super) fn json_remove(c: &McpClient, text: &str) -> Result<Option<String>, String> {
    let key = servers_key(c);
    let mut top = parse_entries(text, "the config file")?;
    let Some(i) = top.iter().position(|(k, _)| k == key) else {
        return Ok(None);
    };
    let mut servers = parse_entries(&top[i].1, &format!("\"{key}\""))?;
    let before = servers.len();
    servers.retain(|(k, _)| k != SERVER_NAME);
    if servers.len() == before {
        return Ok(None);
    }
    top[i].1 = emit_object(&servers, 1);
    Ok(Some(format!("{}\n", emit_object(&top, 0))))
}
