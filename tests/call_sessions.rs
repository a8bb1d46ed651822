//! `tabwire call --backend cdp --session NAME` (issue 48): calls from a
//! shell share one browser of tabwire's own, kept by a session process on
//! a private socket. A field typed into by one call is read by the next;
//! `--sessions` lists the session; a session process killed is started
//! again by the next call, which says so; `--close` ends it and its
//! browser; an idle session ends by itself; names that could be paths are
//! refused.

mod common;

use common::*;
use serde_json::{json, Value};

struct Called {
    code: i32,
    json: Value,
    stderr: String,
}

fn call(sb: &Sandbox, args: &[&str]) -> Called {
    let out = std::process::Command::new(BIN)
        .arg("call")
        .args(args)
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .env("TABWIRE_DATA_DIR", sb.data_dir())
        .output()
        .expect("run tabwire call");
    let stdout = String::from_utf8_lossy(&out.stdout);
    Called {
        code: out.status.code().unwrap_or(-1),
        json: serde_json::from_str(stdout.trim()).unwrap_or(Value::Null),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A call in session `name` over the CDP fallback.
fn in_session(sb: &Sandbox, name: &str, extra: &[&str], tool: &str, args: Value) -> Called {
    let launch = cdp_launch_args();
    let mut argv: Vec<&str> = vec!["--backend", "cdp", "--session", name];
    argv.extend(launch.iter().map(String::as_str));
    argv.extend(extra);
    let args = args.to_string();
    argv.extend([tool, "--args", &args]);
    call(sb, &argv)
}

fn text(c: &Called) -> String {
    c.json["content"][0]["text"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// Session processes of this sandbox.
fn session_processes(sb: &Sandbox) -> Vec<i32> {
    let needle = format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display());
    processes_matching(|cmd, env| {
        cmd.contains("--serve-session") && env.split('\0').any(|kv| kv == needle)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cdp_session_keeps_its_browser_between_calls() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let url = site.url("/pages/batch-form.html");

    let nav = in_session(&sb, "work", &[], "browser_navigate", json!({"url": url}));
    assert_eq!(nav.code, 0, "{}{}", nav.json, nav.stderr);
    let field = find_ref(&text(&nav), "textbox", "Your name");
    let typed = in_session(
        &sb,
        "work",
        &[],
        "browser_type",
        json!({"target": field, "text": "Ada"}),
    );
    assert_eq!(
        typed.code, 0,
        "the ref of the first call works: {}",
        typed.json
    );
    let read = in_session(
        &sb,
        "work",
        &[],
        "browser_evaluate",
        json!({"function": "() => document.querySelector('input').value"}),
    );
    assert!(text(&read).contains("Ada"), "the same page: {}", read.json);

    let listed = call(&sb, &["--sessions"]);
    assert_eq!(listed.json, json!(["work"]));
    let sessions = session_processes(&sb);
    assert_eq!(sessions.len(), 1);
    // Its command line (readable by every local user) holds no tool
    // arguments of the call that started it.
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", sessions[0])).unwrap();
    let cmdline = String::from_utf8_lossy(&cmdline);
    assert!(cmdline.contains("--serve-session"), "{cmdline}");
    assert!(!cmdline.contains("batch-form"), "{cmdline}");

    // Its process killed, the next call starts another and says so.
    for pid in session_processes(&sb) {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    let again = in_session(&sb, "work", &[], "browser_navigate", json!({"url": url}));
    assert_eq!(again.code, 0, "{}", again.json);
    assert!(again.stderr.contains("had ended"), "{}", again.stderr);

    // Closed: no process, no browser, no session listed.
    let closed = call(&sb, &["--backend", "cdp", "--session", "work", "--close"]);
    assert_eq!(closed.json, json!({"closed": "work"}), "{}", closed.stderr);
    assert!(session_processes(&sb).is_empty());
    assert_eq!(call(&sb, &["--sessions"]).json, json!([]));
    let needle = format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display());
    let browsers = processes_matching(|cmd, env| {
        cmd.contains("chromium") && env.split('\0').any(|kv| kv == needle)
    });
    assert!(
        browsers.is_empty(),
        "the session's browser is closed: {browsers:?}"
    );
    let none = call(&sb, &["--backend", "cdp", "--session", "work", "--close"]);
    assert_eq!(none.code, 2, "{}", none.stderr);
    assert!(none.stderr.contains("no session"), "{}", none.stderr);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_sessions_end_and_names_that_could_be_paths_are_refused() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let status = in_session(&sb, "brief", &["--idle", "1"], "browser_status", json!({}));
    assert_eq!(status.code, 0, "{}{}", status.json, status.stderr);
    assert_eq!(call(&sb, &["--sessions"]).json, json!(["brief"]));
    eventually(10, "the idle session to end", || {
        session_processes(&sb).is_empty().then_some(())
    })
    .await;
    assert_eq!(call(&sb, &["--sessions"]).json, json!([]));

    let long = "x".repeat(65);
    for bad in ["a/b", "..", long.as_str()] {
        let refused = in_session(&sb, bad, &[], "browser_status", json!({}));
        assert_eq!(refused.code, 2, "{bad}: {}", refused.stderr);
        assert!(refused.stderr.contains("--session"), "{}", refused.stderr);
    }
}
