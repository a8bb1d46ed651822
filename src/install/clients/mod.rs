//! MCP client configuration: what to paste for each client, and safe edits
//! of their config files for `tabwire install --client NAME`.
//!
//! Edits keep everything else in the file as it was: JSON configs are read as
//! an ordered list of raw entries (other servers keep their exact text and
//! order), and Codex's TOML gets one `[mcp_servers.tabwire]` table added,
//! replaced or removed as text.
//!
//! This file holds the clients, their config paths, how tabwire is started
//! and what to paste; the edits of each format are in `json_config.rs` and
//! `codex_toml.rs`.

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use super::browsers::join;
use super::{Env, Os};

mod codex_toml;
mod json_config;

use codex_toml::{codex_table, toml_add, toml_remove};
use json_config::{emit_object, entry_text, json_add, json_remove, servers_key};

/// The server's name in every client config.
pub const SERVER_NAME: &str = "tabwire";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `{"mcpServers": {"tabwire": {"command", "args"}}}`
    McpServers,
    /// VS Code: `{"servers": {"tabwire": {"type": "stdio", "command", "args"}}}`
    VsCodeServers,
    /// Codex CLI: `[mcp_servers.tabwire]` in TOML.
    CodexToml,
}

#[derive(Debug)]
pub struct McpClient {
    pub id: &'static str,
    pub aliases: &'static [&'static str],
    pub name: &'static str,
    pub format: Format,
}

pub const CLIENTS: &[McpClient] = &[
    McpClient {
        id: "claude-code",
        aliases: &["claude"],
        name: "Claude Code",
        format: Format::McpServers,
    },
    McpClient {
        id: "claude-desktop",
        aliases: &[],
        name: "Claude Desktop",
        format: Format::McpServers,
    },
    McpClient {
        id: "cursor",
        aliases: &[],
        name: "Cursor",
        format: Format::McpServers,
    },
    McpClient {
        id: "vscode",
        aliases: &["vs-code", "code"],
        name: "VS Code",
        format: Format::VsCodeServers,
    },
    McpClient {
        id: "codex",
        aliases: &["codex-cli"],
        name: "Codex CLI",
        format: Format::CodexToml,
    },
    McpClient {
        id: "windsurf",
        aliases: &[],
        name: "Windsurf",
        format: Format::McpServers,
    },
];

pub fn by_name(name: &str) -> Option<&'static McpClient> {
    let name = name.trim().to_ascii_lowercase();
    CLIENTS
        .iter()
        .find(|c| c.id == name || c.aliases.contains(&name.as_str()))
}

pub fn known_names() -> String {
    CLIENTS.iter().map(|c| c.id).collect::<Vec<_>>().join(", ")
}

/// The user-level config file tabwire edits for `c` on `env.os`.
pub fn config_path(c: &McpClient, env: &Env) -> PathBuf {
    let os = env.os;
    match c.id {
        "claude-code" => join(os, &env.home, ".claude.json"),
        "claude-desktop" => match os {
            Os::MacOs => join(
                os,
                &env.home,
                "Library/Application Support/Claude/claude_desktop_config.json",
            ),
            Os::Windows => join(os, &env.app_data, "Claude/claude_desktop_config.json"),
            Os::Linux => join(os, &env.config_home, "Claude/claude_desktop_config.json"),
        },
        "cursor" => join(os, &env.home, ".cursor/mcp.json"),
        "vscode" => match os {
            Os::MacOs => join(
                os,
                &env.home,
                "Library/Application Support/Code/User/mcp.json",
            ),
            Os::Windows => join(os, &env.app_data, "Code/User/mcp.json"),
            Os::Linux => join(os, &env.config_home, "Code/User/mcp.json"),
        },
        "codex" => join(os, &env.codex_home, "config.toml"),
        "windsurf" => join(os, &env.home, ".codeium/windsurf/mcp_config.json"),
        other => unreachable!("client {other} has no config path"),
    }
}

/// How a client starts tabwire: a command and its arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    pub command: String,
    pub args: Vec<String>,
}

impl Launch {
    /// `<binary> serve`: a tabwire installed as a file (cargo, an archive).
    pub fn binary(binary: &Path) -> Self {
        Self {
            command: binary.to_string_lossy().into_owned(),
            args: vec!["serve".into()],
        }
    }

    /// `npx -y tabwire serve`: a tabwire run from npm, whose binary lives in
    /// a package cache that may move or be cleaned.
    pub fn npx() -> Self {
        Self {
            command: "npx".into(),
            args: vec!["-y".into(), "tabwire".into(), "serve".into()],
        }
    }

    /// The command line as one would type it.
    pub fn shell_line(&self) -> String {
        std::iter::once(shell_quote(&self.command))
            .chain(self.args.iter().map(|a| shell_quote(a)))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// The server entry for `c`, as JSON.
pub fn server_entry(c: &McpClient, launch: &Launch) -> Value {
    match c.format {
        Format::VsCodeServers => {
            json!({"type": "stdio", "command": launch.command, "args": launch.args})
        }
        _ => json!({"command": launch.command, "args": launch.args}),
    }
}

/// The part of the config file that names tabwire, to paste by hand.
pub fn snippet(c: &McpClient, launch: &Launch) -> String {
    match c.format {
        Format::CodexToml => codex_table(launch),
        _ => {
            let servers = emit_object(&[(SERVER_NAME.to_string(), entry_text(c, launch, 2))], 1);
            emit_object(&[(servers_key(c).to_string(), servers)], 0)
        }
    }
}

/// A one-line command of the client's own CLI that adds tabwire, if it has one.
pub fn cli_command(c: &McpClient, launch: &Launch) -> Option<String> {
    let line = launch.shell_line();
    match c.id {
        "claude-code" => Some(format!(
            "claude mcp add --scope user {SERVER_NAME} -- {line}"
        )),
        "codex" => Some(format!("codex mcp add {SERVER_NAME} -- {line}")),
        _ => None,
    }
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:\\".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The result of adding tabwire to a config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    /// tabwire is already configured exactly like this.
    Unchanged,
    /// The new file text.
    Changed(String),
}

/// Adds (or updates) tabwire in `existing` (None: the file does not exist).
pub fn add(c: &McpClient, existing: Option<&str>, launch: &Launch) -> Result<Edit, String> {
    match c.format {
        Format::CodexToml => toml_add(existing.unwrap_or(""), launch),
        _ => json_add(c, existing.unwrap_or(""), launch),
    }
}

/// Removes tabwire from `existing`; None if it has no tabwire entry.
pub fn remove(c: &McpClient, existing: &str) -> Result<Option<String>, String> {
    match c.format {
        Format::CodexToml => toml_remove(existing),
        _ => json_remove(c, existing),
    }
}

/// True if `existing` configures a server named tabwire.
pub fn has_tabwire(c: &McpClient, existing: &str) -> bool {
    matches!(remove(c, existing), Ok(Some(_)))
}

// ---- showing a change ---------------------------------------------------

/// A short line diff (common head and tail trimmed) for showing a change.
pub fn diff(old: &str, new: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let head = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let tail = a[head..]
        .iter()
        .rev()
        .zip(b[head..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let mut out = String::new();
    if head > 0 {
        out.push_str(&format!("    {}\n", a[head - 1]));
    }
    for l in &a[head..a.len() - tail] {
        out.push_str(&format!("  - {l}\n"));
    }
    for l in &b[head..b.len() - tail] {
        out.push_str(&format!("  + {l}\n"));
    }
    if tail > 0 {
        out.push_str(&format!("    {}\n", a[a.len() - tail]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BIN: &str = "/home/ada/.cargo/bin/tabwire";

    fn bin() -> Launch {
        Launch::binary(Path::new(BIN))
    }

    fn client(id: &str) -> &'static McpClient {
        by_name(id).unwrap()
    }

    fn changed(e: Edit) -> String {
        match e {
            Edit::Changed(s) => s,
            Edit::Unchanged => panic!("expected a change"),
        }
    }

    #[test]
    fn config_paths_per_os() {
        let linux = Env::for_tests(Os::Linux, "/home/ada");
        let mac = Env::for_tests(Os::MacOs, "/Users/ada");
        let win = Env::for_tests(Os::Windows, r"C:\Users\ada");
        let p = |id: &str, env: &Env| config_path(client(id), env).to_string_lossy().into_owned();
        assert_eq!(p("claude-code", &linux), "/home/ada/.claude.json");
        assert_eq!(
            p("claude-desktop", &mac),
            "/Users/ada/Library/Application Support/Claude/claude_desktop_config.json"
        );
        assert_eq!(
            p("claude-desktop", &win),
            r"C:\Users\ada\AppData\Roaming\Claude\claude_desktop_config.json"
        );
        assert_eq!(
            p("claude-desktop", &linux),
            "/home/ada/.config/Claude/claude_desktop_config.json"
        );
        assert_eq!(p("cursor", &win), r"C:\Users\ada\.cursor\mcp.json");
        assert_eq!(p("vscode", &linux), "/home/ada/.config/Code/User/mcp.json");
        assert_eq!(
            p("vscode", &mac),
            "/Users/ada/Library/Application Support/Code/User/mcp.json"
        );
        assert_eq!(
            p("vscode", &win),
            r"C:\Users\ada\AppData\Roaming\Code\User\mcp.json"
        );
        assert_eq!(p("codex", &linux), "/home/ada/.codex/config.toml");
        assert_eq!(
            p("windsurf", &mac),
            "/Users/ada/.codeium/windsurf/mcp_config.json"
        );
    }

    #[test]
    fn json_add_keeps_other_servers_and_order_byte_for_byte() {
        let before = r#"{
  "theme": "dark",
  "mcpServers": {
    "zeta": {"command": "zeta-mcp", "args": ["--x"]},
    "alpha": {
      "command": "alpha"
    }
  },
  "after": [1, 2]
}
"#;
        let after = changed(add(client("cursor"), Some(before), &bin()).unwrap());
        assert_eq!(
            after,
            format!(
                r#"{{
  "theme": "dark",
  "mcpServers": {{
    "zeta": {{"command": "zeta-mcp", "args": ["--x"]}},
    "alpha": {{
      "command": "alpha"
    }},
    "tabwire": {{
      "command": "{BIN}",
      "args": [
        "serve"
      ]
    }}
  }},
  "after": [1, 2]
}}
"#
            )
        );
        // Idempotent.
        assert_eq!(
            add(client("cursor"), Some(&after), &bin()).unwrap(),
            Edit::Unchanged
        );
        // Removing gives back the original text.
        assert_eq!(remove(client("cursor"), &after).unwrap().unwrap(), before);
        assert_eq!(remove(client("cursor"), before).unwrap(), None);
    }

    #[test]
    fn json_add_creates_a_file_and_updates_a_moved_binary() {
        let created = changed(add(client("claude-desktop"), None, &bin()).unwrap());
        let v: Value = serde_json::from_str(&created).unwrap();
        assert_eq!(v["mcpServers"]["tabwire"]["command"], BIN);
        assert_eq!(v["mcpServers"]["tabwire"]["args"], json!(["serve"]));
        let moved = changed(
            add(
                client("claude-desktop"),
                Some(&created),
                &Launch::binary(Path::new("/opt/tabwire")),
            )
            .unwrap(),
        );
        let v: Value = serde_json::from_str(&moved).unwrap();
        assert_eq!(v["mcpServers"]["tabwire"]["command"], "/opt/tabwire");
        assert_eq!(v["mcpServers"].as_object().unwrap().len(), 1);
    }

    #[test]
    fn vscode_uses_servers_with_a_type() {
        let out = changed(add(client("vscode"), Some("{}"), &bin()).unwrap());
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["servers"]["tabwire"],
            json!({"type": "stdio", "command": BIN, "args": ["serve"]})
        );
        assert!(v.get("mcpServers").is_none());
    }

    #[test]
    fn broken_json_is_refused_not_clobbered() {
        let err = add(client("cursor"), Some("{\"mcpServers\": {"), &bin()).unwrap_err();
        assert!(err.contains("by hand"), "{err}");
        let err = add(client("cursor"), Some("{\"mcpServers\": []}"), &bin()).unwrap_err();
        assert!(
            err.contains("\"mcpServers\" is not a plain JSON object"),
            "{err}"
        );
    }

    #[test]
    fn codex_toml_add_replace_remove() {
        let before = "model = \"o3\"\n\n[mcp_servers.other]\ncommand = \"other\"\n";
        let after = changed(add(client("codex"), Some(before), &bin()).unwrap());
        assert_eq!(
            after,
            format!("{before}\n[mcp_servers.tabwire]\ncommand = \"{BIN}\"\nargs = [\"serve\"]\n")
        );
        assert_eq!(
            add(client("codex"), Some(&after), &bin()).unwrap(),
            Edit::Unchanged
        );
        assert_eq!(remove(client("codex"), &after).unwrap().unwrap(), before);

        // A table in the middle is replaced in place, the rest untouched.
        let middle =
            "[mcp_servers.tabwire]\ncommand = \"/old\"\nargs = [\"serve\"]\n\n[profile]\nx = 1\n";
        let replaced = changed(add(client("codex"), Some(middle), &bin()).unwrap());
        assert_eq!(
            replaced,
            format!("[mcp_servers.tabwire]\ncommand = \"{BIN}\"\nargs = [\"serve\"]\n\n[profile]\nx = 1\n")
        );
        assert_eq!(
            remove(client("codex"), &replaced).unwrap().unwrap(),
            "[profile]\nx = 1\n"
        );

        // Created from nothing; removed back to nothing.
        let fresh = changed(add(client("codex"), None, &bin()).unwrap());
        assert_eq!(remove(client("codex"), &fresh).unwrap().unwrap(), "");

        // Forms we do not edit are refused with a reason.
        let dotted = "[mcp_servers]\ntabwire = { command = \"x\" }\n";
        assert!(add(client("codex"), Some(dotted), &bin())
            .unwrap_err()
            .contains("by hand"));
    }

    #[test]
    fn windows_paths_are_escaped_in_json_and_toml() {
        let bin = Path::new(r"C:\Users\ada\.cargo\bin\tabwire.exe");
        let toml = codex_table(&Launch::binary(bin));
        assert!(
            toml.contains(r#"command = "C:\\Users\\ada\\.cargo\\bin\\tabwire.exe""#),
            "{toml}"
        );
        let out = changed(add(client("cursor"), None, &Launch::binary(bin)).unwrap());
        let v: Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v["mcpServers"]["tabwire"]["command"],
            bin.to_string_lossy().as_ref()
        );
    }

    #[test]
    fn cli_commands_and_diff() {
        assert_eq!(
            cli_command(
                client("claude-code"),
                &Launch::binary(Path::new("/a b/tabwire"))
            )
            .unwrap(),
            "claude mcp add --scope user tabwire -- '/a b/tabwire' serve"
        );
        assert!(cli_command(client("cursor"), &bin()).is_none());
        let d = diff("a\nb\nc\n", "a\nb\nx\ny\nc\n");
        assert_eq!(d, "    b\n  + x\n  + y\n    c\n");
    }

    #[test]
    fn npm_installs_are_configured_as_npx() {
        let npx = Launch::npx();
        assert_eq!(npx.shell_line(), "npx -y tabwire serve");
        let out = changed(add(client("claude-desktop"), None, &npx).unwrap());
        assert_eq!(
            serde_json::from_str::<Value>(&out).unwrap(),
            json!({"mcpServers": {"tabwire": {"command": "npx", "args": ["-y", "tabwire", "serve"]}}})
        );
        assert_eq!(
            out,
            "{\n  \"mcpServers\": {\n    \"tabwire\": {\n      \"command\": \"npx\",\n      \
             \"args\": [\n        \"-y\",\n        \"tabwire\",\n        \"serve\"\n      ]\n    }\n  }\n}\n"
        );
        assert_eq!(
            add(client("claude-desktop"), Some(&out), &npx).unwrap(),
            Edit::Unchanged
        );
        // A binary entry written earlier is replaced by the npx one.
        let earlier = changed(add(client("cursor"), None, &bin()).unwrap());
        let now = changed(add(client("cursor"), Some(&earlier), &npx).unwrap());
        assert_eq!(
            serde_json::from_str::<Value>(&now).unwrap()["mcpServers"]["tabwire"]["command"],
            "npx"
        );
        let vs = changed(add(client("vscode"), None, &npx).unwrap());
        assert_eq!(
            serde_json::from_str::<Value>(&vs).unwrap()["servers"]["tabwire"],
            json!({"type": "stdio", "command": "npx", "args": ["-y", "tabwire", "serve"]})
        );
        assert_eq!(
            codex_table(&npx),
            "[mcp_servers.tabwire]\ncommand = \"npx\"\nargs = [\"-y\", \"tabwire\", \"serve\"]\n"
        );
        assert_eq!(
            cli_command(client("claude-code"), &npx).unwrap(),
            "claude mcp add --scope user tabwire -- npx -y tabwire serve"
        );
    }
}
