//! Editing Codex CLI's TOML config: one `[mcp_servers.tabwire]` table
//! added, replaced or removed as text, everything else left as it was;
//! forms of it tabwire does not edit are refused with a reason.

use super::{Edit, Launch};

const TOML_HEADER: &str = "[mcp_servers.tabwire]";

pub(super) fn codex_table(launch: &Launch) -> String {
    // A JSON string is a valid TOML basic string.
    let quote = |s: &str| serde_json::to_string(s).expect("string serializes");
    let command = quote(&launch.command);
    let args: Vec<String> = launch.args.iter().map(|a| quote(a)).collect();
    format!(
        "{TOML_HEADER}\ncommand = {command}\nargs = [{}]\n",
        args.join(", ")
    )
}

/// Normalizes a table header line: `[ mcp_servers . "tabwire" ]` → `mcp_servers.tabwire`.
fn header_name(line: &str) -> Option<String> {
    let t = line.trim();
    if t.starts_with("[[") {
        return Some(String::new());
    }
    let inner = t.strip_prefix('[')?.split(']').next()?;
    Some(
        inner
            .split('.')
            .map(|p| p.trim().trim_matches('"').trim_matches('\''))
            .collect::<Vec<_>>()
            .join("."),
    )
}

/// Line range (start, end) of the `[mcp_servers.tabwire]` table and its
/// sub-tables; errors if tabwire is configured in a form we do not edit.
fn toml_block(lines: &[&str]) -> Result<Option<(usize, usize)>, String> {
    let mut start = None;
    let mut end = lines.len();
    let mut section = String::new();
    for (i, line) in lines.iter().enumerate() {
        if let Some(name) = header_name(line) {
            let ours = name == "mcp_servers.tabwire" || name.starts_with("mcp_servers.tabwire.");
            match (start, ours) {
                (None, true) if name == "mcp_servers.tabwire" => start = Some(i),
                (None, true) => {
                    return Err(
                        "the tabwire server is configured in sub-tables tabwire does not \
                                edit; edit it by hand"
                            .into(),
                    )
                }
                (Some(_), false) if end == lines.len() => end = i,
                (Some(_), true) if end != lines.len() => {
                    return Err(
                        "the file has more than one [mcp_servers.tabwire] table; keep one \
                                and retry"
                            .into(),
                    )
                }
                _ => {}
            }
            section = name;
            continue;
        }
        let key = line.split('=').next().unwrap_or("").trim();
        let dotted_ours = (section.is_empty() && key.starts_with("mcp_servers.tabwire"))
            || (section == "mcp_servers" && (key == "tabwire" || key.starts_with("tabwire.")));
        if line.contains('=') && dotted_ours {
            return Err(
                "the tabwire server is configured with inline or dotted keys, which \
                        tabwire does not edit; replace it with a [mcp_servers.tabwire] table or \
                        edit it by hand"
                    .into(),
            );
        }
    }
    Ok(start.map(|s| (s, end)))
}

pub(super) fn toml_add(text: &str, launch: &Launch) -> Result<Edit, String> {
    let lines: Vec<&str> = text.lines().collect();
    let table = codex_table(launch);
    match toml_block(&lines)? {
        Some((s, e)) => {
            let current = lines[s..e].join("\n");
            if current.trim_end() == table.trim_end() {
                return Ok(Edit::Unchanged);
            }
            let mut out: Vec<String> = lines[..s].iter().map(|l| l.to_string()).collect();
            out.extend(table.lines().map(str::to_string));
            // Keep the blank line that separated the next table.
            if e < lines.len() {
                out.push(String::new());
            }
            out.extend(lines[e..].iter().map(|l| l.to_string()));
            Ok(Edit::Changed(format!("{}\n", out.join("\n"))))
        }
        None => {
            let mut out = text.to_string();
            if !out.is_empty() {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
            }
            out.push_str(&table);
            Ok(Edit::Changed(out))
        }
    }
}

pub(super) fn toml_remove(text: &str) -> Result<Option<String>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let Some((s, mut e)) = toml_block(&lines)? else {
        return Ok(None);
    };
    // Trailing blank lines of the block go with it…
    while e > s && lines[e - 1].trim().is_empty() {
        e -= 1;
    }
    let mut keep: Vec<&str> = lines[..s].to_vec();
    // …and so does the blank line install put before it.
    if e == lines.len() {
        while keep.last().is_some_and(|l| l.trim().is_empty()) {
            keep.pop();
        }
    } else {
        let mut e2 = e;
        while e2 < lines.len() && lines[e2].trim().is_empty() {
            e2 += 1;
        }
        e = e2;
    }
    keep.extend(&lines[e..]);
    if keep.is_empty() {
        return Ok(Some(String::new()));
    }
    Ok(Some(format!("{}\n", keep.join("\n"))))
}
