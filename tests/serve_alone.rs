//! `tabwire serve` on its own (no browser): the failure a user hits first,
//! protocol hygiene on stdout, clean exit, and the socket directory rules.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::PermissionsExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use serde_json::{json, Value};

#[tokio::test]
async fn without_extension_a_call_reports_progress_then_a_clear_error() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(
        &sb,
        "lonely",
        &["--backend", "extension", "--connect-timeout", "2.5"],
    )
    .await;
    let r = mcp.call_with_progress("browser_snapshot", json!({})).await;
    assert_eq!(r.is_error, Some(true));
    let text = text_of(&r);
    assert!(text.contains("extension is not connected"), "{text}");
    assert!(text.contains("tabwire install"), "{text}");
    let progress = mcp.progress.lock().unwrap().clone();
    assert!(
        !progress.is_empty(),
        "no progress notification while waiting"
    );
    assert!(progress[0]
        .message
        .as_deref()
        .unwrap_or("")
        .contains("extension to connect"));
    // A later call fails fast instead of waiting the whole grace period again.
    let t = Instant::now();
    let again = mcp.text("browser_snapshot", json!({})).await.unwrap_err();
    assert!(again.contains("not connected"), "{again}");
    assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
}

#[test]
fn stdout_is_protocol_only_and_stdin_close_ends_serve_and_removes_its_socket() {
    let sb = Sandbox::new();
    let mut child = Command::new(BIN)
        .arg("serve")
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .env("RUST_LOG", "tabwire=trace")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "0"}}});
    writeln!(stdin, "{init}").unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
    )
    .unwrap();
    writeln!(
        stdin,
        "{}",
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    )
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for want in [1, 2] {
        let line = lines.next().unwrap().unwrap();
        let msg: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON-RPC ({e}): {line}"));
        assert_eq!(msg["id"], want, "{line}");
        if want == 2 {
            // Budget from issue 3: the whole tools/list response within 10 KiB.
            assert!(
                line.len() <= 10 * 1024,
                "tools/list is {} bytes",
                line.len()
            );
            // Every tool has the human title clients show people.
            for t in msg["result"]["tools"].as_array().unwrap() {
                assert!(
                    t["title"].as_str().is_some_and(|s| !s.is_empty()),
                    "{} has no title",
                    t["name"]
                );
            }
        }
    }
    let socket = std::fs::read_dir(&sb.runtime)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();

    drop(stdin);
    let t = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            t.elapsed() < Duration::from_secs(1),
            "serve still running 1 s after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success());
    assert!(lines.next().is_none(), "nothing more on stdout");
    assert!(!socket.exists(), "socket file left behind");
}

#[test]
fn an_unsafe_runtime_dir_is_refused_with_a_clear_message() {
    let sb = Sandbox::new();
    std::fs::create_dir_all(&sb.runtime).unwrap();
    std::fs::set_permissions(&sb.runtime, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to use") && err.contains("0700"),
        "{err}"
    );
}

#[tokio::test]
async fn a_dead_servers_socket_is_cleaned_up_but_a_live_one_is_kept() {
    let sb = Sandbox::new();
    let live = Mcp::start(&sb, "live", &[]).await;
    let live_socket = std::fs::read_dir(&sb.runtime)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let dead = sb.runtime.join("serve-3999999.sock");
    drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());

    let _second = Mcp::start(&sb, "second", &[]).await;
    assert!(!dead.exists(), "stale socket should have been removed");
    assert!(
        live_socket.exists(),
        "a live server's socket must never be removed"
    );
    drop(live);
}
