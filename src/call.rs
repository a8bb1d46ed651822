//! `tabwire call <tool> --args JSON`: one tool call from a shell script,
//! through the same tool registry, policy and audit log as `tabwire serve`,
//! with the result printed as the JSON of an MCP `CallToolResult`.
//!
//! By default it drives the user's browser through the extension. Calls
//! with the same `--session` name share tabs: the extension keeps tab
//! ownership per server id, and the id is derived from the session name, so
//! a script's second call finds the tab its first call opened. Over the
//! CDP fallback (`--backend cdp`) a session is a process of its own that
//! keeps the browser between calls (see `call_session`).

use rmcp::model::JsonObject;

use crate::app::{App, BackendChoice, ServeArgs};
use crate::call_session;
use crate::server::TabwireServer;

/// Exit status for a call the tool itself failed (the JSON says why).
pub const EXIT_TOOL_ERROR: i32 = 1;
/// Exit status for a command line that could not be run at all.
pub const EXIT_USAGE: i32 = 2;

#[derive(clap::Args, Clone, Debug)]
pub struct CallArgs {
    /// The tool to run, e.g. browser_navigate (`--list` shows them all).
    #[arg(required_unless_present_any = ["list", "close", "sessions"])]
    pub tool: Option<String>,
    /// The tool's arguments as a JSON object.
    #[arg(long, default_value = "{}")]
    pub args: String,
    /// Calls with the same session name share tabs (while the browser runs;
    /// with --backend cdp, one browser kept by a session process).
    #[arg(long, default_value = "default")]
    pub session: String,
    /// End the session (--backend cdp): its process and its browser.
    #[arg(long)]
    pub close: bool,
    /// List the running sessions of --backend cdp as JSON, and exit.
    #[arg(long)]
    pub sessions: bool,
    /// Seconds a --backend cdp session waits for its next call before it
    /// closes its browser and ends.
    #[arg(long, default_value_t = 900)]
    pub idle: u64,
    /// Run as the session process (started by the first call of a session).
    #[arg(long, hide = true)]
    pub serve_session: bool,
    /// Print the tools (name, title, description, input schema) as JSON and exit.
    #[arg(long)]
    pub list: bool,
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// Runs the call; returns the process exit status. Only the result JSON
/// goes to stdout.
pub async fn run(args: CallArgs) -> i32 {
    let arguments = match parse_arguments(&args.args) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tabwire call: {e}");
            return EXIT_USAGE;
        }
    };
    if let Err(e) = call_session::check_name(&args.session) {
        eprintln!("tabwire call: {e}");
        return EXIT_USAGE;
    }
    let idle = std::time::Duration::from_secs(args.idle.max(1));
    if args.serve_session {
        return call_session::serve(&args, idle).await;
    }
    if args.sessions || args.close || (args.serve.backend == Some(BackendChoice::Cdp) && !args.list)
    {
        return in_session(&args, arguments).await;
    }
    let server_id = format!("call-{}", args.session);
    // Named from the start: the extension's first hello carries the name.
    let client_name = format!("tabwire call ({})", args.session);
    let app = match App::build(
        &args.serve,
        BackendChoice::Extension,
        Some(server_id),
        Some(client_name),
    )
    .await
    {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tabwire call: {e}");
            return EXIT_USAGE;
        }
    };
    let server = TabwireServer::new(app.client.clone(), app.audit.clone());
    let code = match &args.tool {
        None => {
            let tools = server.tool_list();
            println!(
                "{}",
                serde_json::to_string_pretty(&tools).unwrap_or_default()
            );
            0
        }
        Some(tool) => {
            let result = server
                .run_tool(tool, arguments, std::future::pending())
                .await;
            println!("{}", serde_json::to_string(&result).unwrap_or_default());
            if result.is_error == Some(true) {
                EXIT_TOOL_ERROR
            } else {
                0
            }
        }
    };
    app.shutdown().await;
    code
}

/// A call over the CDP fallback: through the session's process (started
/// if none runs), or `--close` / `--sessions`.
async fn in_session(args: &CallArgs, arguments: JsonObject) -> i32 {
    let fail = |e: String| {
        eprintln!("tabwire call: {e}");
        EXIT_USAGE
    };
    let dir = match call_session::runtime_dir() {
        Ok(d) => d,
        Err(e) => return fail(e),
    };
    let name = args.session.as_str();
    if args.sessions {
        let live = call_session::live_sessions(&dir).await;
        println!("{}", serde_json::json!(live));
        return 0;
    }
    if args.close {
        let path = call_session::socket_path(&dir, name);
        return match call_session::ask(&path, &serde_json::json!({"close": true})).await {
            Ok(answer) => {
                println!("{answer}");
                0
            }
            Err(_) => fail(format!(
                "no session {name:?} is running (sessions through the extension have no \
                 process to close: their tabs are in your browser)"
            )),
        };
    }
    let Some(tool) = &args.tool else {
        return fail("name a tool to call".into());
    };
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let path = match call_session::reach(&dir, name, &argv).await {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let request = serde_json::json!({"tool": tool, "arguments": arguments});
    let answer = match call_session::ask(&path, &request).await {
        Ok(a) => a,
        Err(e) => {
            return fail(format!(
                "session {name:?} ended during the call ({e}); see {}",
                call_session::log_path(name).display()
            ))
        }
    };
    let result = &answer["result"];
    println!("{}", serde_json::to_string(result).unwrap_or_default());
    if result["isError"] == true {
        EXIT_TOOL_ERROR
    } else {
        0
    }
}

fn parse_arguments(text: &str) -> Result<JsonObject, String> {
    match serde_json::from_str(text) {
        Ok(serde_json::Value::Object(map)) => Ok(map),
        Ok(other) => Err(format!(
            "--args must be a JSON object like '{{\"url\": \"https://example.com\"}}', not {other}"
        )),
        Err(e) => Err(format!("--args is not valid JSON: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_must_be_a_json_object() {
        assert_eq!(parse_arguments("{\"a\": 1}").unwrap()["a"], 1);
        assert!(parse_arguments("[1]").unwrap_err().contains("JSON object"));
        assert!(parse_arguments("{nope")
            .unwrap_err()
            .contains("not valid JSON"));
    }
}
