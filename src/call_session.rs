//! `tabwire call --backend cdp --session NAME`: calls from a shell that
//! share one browser of tabwire's own, as calls through the extension share
//! the user's.
//!
//! The first call of a session starts a small session process (this same
//! binary with `--serve-session`), detached from the shell, which owns the
//! browser and the client's state (tabs, refs, dialogs) and listens on a
//! private socket in the runtime directory, `call-<NAME>.sock` (0600 in the
//! 0700 directory; on Windows a current-user pipe): no port. Each call
//! connects, sends one request frame and prints the answer. The process
//! ends on `--close`, or after `--idle` seconds without a call, closing its
//! browser. A session whose process died is started again, and the call
//! says so on stderr.
//!
//! Frames are the serve⇄host framing (`wire::Framing::Socket`): one JSON
//! request, one JSON answer per connection.

use std::path::{Path, PathBuf};
use std::time::Duration;

use interprocess::local_socket::tokio::prelude::*;
use serde_json::{json, Value};

use crate::app::{App, BackendChoice};
use crate::broker;
use crate::call::{CallArgs, EXIT_USAGE};
use crate::server::TabwireServer;
use crate::wire::{self, Framing};

/// Longest session name (bytes).
pub const MAX_NAME: usize = 64;
/// How long a call waits for a session process it started to listen.
const START_WAIT: Duration = Duration::from_secs(10);
/// The socket names of sessions start with this.
const STEM: &str = "call-";

/// A session name as given, refused when it could name a path.
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() || name.len() > MAX_NAME {
        return Err(format!(
            "--session must be 1 to {MAX_NAME} bytes, not {}",
            name.len()
        ));
    }
    if name.contains(['/', '\\']) || name == "." || name == ".." || name.contains('\0') {
        return Err(format!(
            "--session {name:?} may not hold a path separator (it names a socket)"
        ));
    }
    Ok(())
}

/// The socket of session `name` in the runtime directory `dir`.
pub fn socket_path(dir: &Path, name: &str) -> PathBuf {
    broker::named_path(dir, &format!("{STEM}{name}"), broker::SOCKET_SUFFIX)
}

/// The runtime directory, made private if new.
pub fn runtime_dir() -> Result<PathBuf, String> {
    broker::dir::ensure_runtime_dir(&broker::dir::runtime_dir_path()).map_err(|e| e.to_string())
}

/// Sends `request` to the session listening at `path`; its answer.
pub async fn ask(path: &Path, request: &Value) -> std::io::Result<Value> {
    let stream = broker::connect(path).await?;
    broker::check_peer(&stream)?;
    let (read, mut write) = tokio::io::split(stream);
    let body = serde_json::to_vec(request)?;
    wire::write_frame(&mut write, &body, Framing::Socket, wire::DEFAULT_MAX_FRAME)
        .await
        .map_err(std::io::Error::other)?;
    let mut reader = wire::FrameReader::new(read, Framing::Socket, wire::DEFAULT_MAX_FRAME);
    let frame = reader
        .read_frame()
        .await
        .map_err(std::io::Error::other)?
        .ok_or_else(|| {
            std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "the session closed without answering",
            )
        })?;
    serde_json::from_slice(&frame).map_err(std::io::Error::other)
}

/// Connects to session `name`, starting its process (with `argv`, this
/// call's own arguments) when none answers. Err: why it could not.
pub async fn reach(dir: &Path, name: &str, argv: &[String]) -> Result<PathBuf, String> {
    let path = socket_path(dir, name);
    if ask(&path, &json!({"ping": true})).await.is_ok() {
        return Ok(path);
    }
    if path.exists() {
        eprintln!(
            "tabwire call: session {name:?} had ended (its process is gone); starting a new one, \
             with a new browser"
        );
        let _ = std::fs::remove_file(&path);
    }
    spawn(name, argv)?;
    let began = std::time::Instant::now();
    while began.elapsed() < START_WAIT {
        if ask(&path, &json!({"ping": true})).await.is_ok() {
            return Ok(path);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Err(format!(
        "the session process for {name:?} did not start listening within {} s; see {}",
        START_WAIT.as_secs(),
        log_path(name).display()
    ))
}

/// Where a session process writes its log.
pub fn log_path(name: &str) -> PathBuf {
    crate::paths::data_dir()
        .join("logs")
        .join(format!("call-session-{name}.log"))
}

/// The session process's command line: this call's, without the tool's
/// arguments (a process's command line is readable by every local user,
/// and the arguments may hold typed text; the process never runs the
/// first call's tool itself: the call sends it over the socket).
fn without_tool_arguments(argv: &[String]) -> Vec<String> {
    let mut out = Vec::with_capacity(argv.len());
    let mut args = argv.iter();
    while let Some(a) = args.next() {
        if a == "--args" {
            out.push(a.clone());
            out.push("{}".into());
            args.next();
        } else if a.starts_with("--args=") {
            out.push("--args={}".into());
        } else {
            out.push(a.clone());
        }
    }
    out
}

/// Starts the session process, detached from this call and its terminal.
fn spawn(name: &str, argv: &[String]) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find tabwire itself: {e}"))?;
    let log = log_path(name);
    if let Some(parent) = log.parent() {
        let _ = std::fs::create_dir_all(parent);
    }
    let mut options = std::fs::OpenOptions::new();
    options.create(true).append(true);
    #[cfg(unix)]
    {
        // What the pages were is the user's own business.
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    let err = options
        .open(&log)
        .map_err(|e| format!("cannot open {}: {e}", log.display()))?;
    let mut cmd = std::process::Command::new(exe);
    cmd.args(without_tool_arguments(argv))
        .arg("--serve-session")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(err);
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group: the shell's Ctrl-C on a later call does
        // not reach it.
        cmd.process_group(0);
    }
    #[cfg(windows)]
    {
        use std::os::windows::process::CommandExt;
        const DETACHED_PROCESS: u32 = 0x0000_0008;
        const CREATE_NEW_PROCESS_GROUP: u32 = 0x0000_0200;
        cmd.creation_flags(DETACHED_PROCESS | CREATE_NEW_PROCESS_GROUP);
    }
    cmd.spawn()
        .map(|_| ())
        .map_err(|e| format!("cannot start the session process: {e}"))
}

/// The live sessions (their names), removing sockets nobody listens on.
pub async fn live_sessions(dir: &Path) -> Vec<String> {
    let mut names = Vec::new();
    for path in broker::list_named(dir, STEM, broker::SOCKET_SUFFIX).unwrap_or_default() {
        match ask(&path, &json!({"ping": true})).await {
            Ok(answer) => {
                if let Some(name) = answer["session"].as_str() {
                    names.push(name.to_string());
                }
            }
            Err(_) => {
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    names
}

/// The session process (`--serve-session`): serves the calls of session
/// `name` with a browser of its own until `--close` or `idle` without a
/// call; the process's exit status.
pub async fn serve(args: &CallArgs, idle: Duration) -> i32 {
    let name = args.session.as_str();
    let dir = match runtime_dir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("tabwire session {name}: {e}");
            return EXIT_USAGE;
        }
    };
    let path = socket_path(&dir, name);
    // Two first calls at once start two processes: the later one leaves.
    if ask(&path, &json!({"ping": true})).await.is_ok() {
        return 0;
    }
    let listener = match broker::bind_private(&path) {
        Ok(l) => l,
        Err(e) => {
            eprintln!(
                "tabwire session {name}: cannot listen on {}: {e}",
                path.display()
            );
            return EXIT_USAGE;
        }
    };
    let app = match App::build(
        &args.serve,
        BackendChoice::Cdp,
        Some(format!("call-{name}")),
        Some(format!("tabwire call ({name})")),
    )
    .await
    {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tabwire session {name}: {e}");
            let _ = std::fs::remove_file(&path);
            return EXIT_USAGE;
        }
    };
    let server = TabwireServer::new(app.client.clone(), app.audit.clone());
    tracing::info!(session = name, "serving calls");
    loop {
        let stream = tokio::select! {
            s = listener.accept() => s,
            _ = tokio::time::sleep(idle) => {
                tracing::info!(session = name, secs = idle.as_secs(), "idle: closing");
                break;
            }
        };
        let Ok(stream) = stream else { continue };
        if broker::check_peer(&stream).is_err() {
            continue;
        }
        let (read, mut write) = tokio::io::split(stream);
        let mut reader = wire::FrameReader::new(read, Framing::Socket, wire::DEFAULT_MAX_FRAME);
        let request: Value = match reader.read_frame().await {
            Ok(Some(frame)) => serde_json::from_slice(&frame).unwrap_or(Value::Null),
            _ => continue,
        };
        let (answer, close) = answer(&server, name, &request).await;
        if close {
            // The caller hears "closed" once the browser is.
            app.shutdown().await;
        }
        let body = serde_json::to_vec(&answer).unwrap_or_default();
        let _ =
            wire::write_frame(&mut write, &body, Framing::Socket, wire::DEFAULT_MAX_FRAME).await;
        if close {
            drop(listener);
            let _ = std::fs::remove_file(&path);
            return 0;
        }
    }
    drop(listener);
    let _ = std::fs::remove_file(&path);
    app.shutdown().await;
    0
}

/// One request's answer, and whether the session ends with it.
async fn answer(server: &TabwireServer, name: &str, request: &Value) -> (Value, bool) {
    if request["ping"] == true {
        return (json!({"session": name}), false);
    }
    if request["close"] == true {
        return (json!({"closed": name}), true);
    }
    let (Some(tool), Some(arguments)) =
        (request["tool"].as_str(), request["arguments"].as_object())
    else {
        return (
            json!({"error": "a request names a tool and its arguments"}),
            false,
        );
    };
    let result = server
        .run_tool(tool, arguments.clone(), std::future::pending())
        .await;
    (json!({ "result": result }), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_could_be_paths_are_refused() {
        assert!(check_name("work").is_ok());
        assert!(check_name("a/b").is_err());
        assert!(check_name("a\\b").is_err());
        assert!(check_name("..").is_err());
        assert!(check_name("").is_err());
        assert!(check_name(&"x".repeat(64)).is_ok());
        assert!(check_name(&"x".repeat(65)).unwrap_err().contains("64"));
    }

    #[test]
    fn the_session_process_never_sees_the_tools_arguments() {
        let argv: Vec<String> = [
            "call",
            "--backend",
            "cdp",
            "browser_type",
            "--args",
            r#"{"text":"hunter2"}"#,
            "--session",
            "s",
        ]
        .map(String::from)
        .to_vec();
        let kept = without_tool_arguments(&argv);
        assert!(!kept.iter().any(|a| a.contains("hunter2")), "{kept:?}");
        assert_eq!(kept[4..6], ["--args", "{}"]);
        assert_eq!(kept[6..], ["--session", "s"]);
        let joined = without_tool_arguments(&["--args={\"text\":\"pw\"}".to_string()]);
        assert_eq!(joined, ["--args={}"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_sessions_socket_is_named_after_it_in_the_runtime_dir() {
        let p = socket_path(Path::new("/run/user/1/tabwire"), "work");
        assert_eq!(p, Path::new("/run/user/1/tabwire/call-work.sock"));
    }
}
