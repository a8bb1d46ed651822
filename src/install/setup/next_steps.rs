//! What install prints last: the three things to do next, each with what
//! success looks like.

use std::io::Write;
use std::path::Path;

use crate::install::browsers::Browser;
use crate::install::clients::{self, Launch, McpClient};
use crate::install::source::Source;
use crate::install::Env;
use crate::protocol::EXTENSION_ID;

/// The three things to do after install, each with what success looks like.
pub(super) fn next_steps(
    env: &Env,
    source: Source,
    launch: &Launch,
    ext_dir: &Path,
    browsers: &[&Browser],
    configured: &[&McpClient],
    out: &mut dyn Write,
) {
    say!(out);
    say!(out, "Next steps");
    say!(out);
    say!(out, "1. Load the extension, once per browser. Open");
    let width = browsers.iter().map(|b| b.name.len()).max().unwrap_or(0) + 1;
    for b in browsers {
        say!(
            out,
            "     {:<width$} {}",
            format!("{}:", b.name),
            b.extensions_page,
            width = width
        );
    }
    say!(
        out,
        "   switch on \"Developer mode\", click \"Load unpacked\" and choose"
    );
    say!(out, "     {}", ext_dir.display());
    say!(
        out,
        "   Success: a \"tabwire\" card with ID {EXTENSION_ID} appears, and tabwire's toolbar"
    );
    say!(out, "   button shows \"Native host: connected\".");
    say!(out);
    say!(
        out,
        "2. Add tabwire to your MCP client. The server command is:"
    );
    say!(out, "     {}", launch.shell_line());
    say!(
        out,
        "   Let tabwire edit the client's config (it shows the change, keeps a backup"
    );
    say!(out, "   and leaves other servers alone):");
    say!(
        out,
        "     {} install --client {}",
        source.command(),
        clients::CLIENTS
            .iter()
            .map(|c| c.id)
            .collect::<Vec<_>>()
            .join("|")
    );
    if !configured.is_empty() {
        let names: Vec<&str> = configured.iter().map(|c| c.name).collect();
        say!(out, "   (done above for {})", names.join(", "));
    }
    say!(out, "   Or by hand:");
    for c in clients::CLIENTS {
        if let Some(cmd) = clients::cli_command(c, launch) {
            say!(out, "   - {}: {cmd}", c.name);
        }
    }
    // Clients that take the same text share one listing.
    let mut groups: Vec<(String, Vec<&McpClient>)> = Vec::new();
    for c in clients::CLIENTS.iter().filter(|c| c.id != "claude-code") {
        let text = clients::snippet(c, launch);
        match groups.iter_mut().find(|(t, _)| *t == text) {
            Some((_, members)) => members.push(c),
            None => groups.push((text, vec![c])),
        }
    }
    for (text, members) in &groups {
        say!(out, "   - add to the config file of");
        for c in members {
            say!(
                out,
                "       {}: {}",
                c.name,
                clients::config_path(c, env).display()
            );
        }
        for line in text.lines() {
            say!(out, "         {line}");
        }
    }
    say!(out);
    say!(
        out,
        "   Success: after a restart the client lists tabwire's tools (browser_navigate,"
    );
    say!(
        out,
        "   browser_snapshot, …); ask it to \"open example.com with tabwire\" and a tab group"
    );
    say!(out, "   named after the client opens in your browser.");
    say!(out);
    say!(
        out,
        "3. Check the whole chain any time: {} doctor",
        source.command()
    );
}
