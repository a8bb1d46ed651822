//! Security properties that need no browser: tool exposure by policy, the
//! socket refusing other users, the runtime dir's owner, no secrets at rest.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::process::Command;

use common::*;
use serde_json::json;

fn is_root() -> bool {
    unsafe { libc::geteuid() == 0 }
}

async fn tool_names(mcp: &Mcp) -> Vec<String> {
    let tools = mcp.client.list_all_tools().await.unwrap();
    tools.iter().map(|t| t.name.to_string()).collect()
}

#[tokio::test]
async fn read_only_no_eval_and_tools_flags_shape_what_is_offered() {
    let sb = Sandbox::new();
    let ro = Mcp::start(&sb, "reader", &["--read-only"]).await;
    let tools = ro.client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "browser_snapshot"));
    for t in &tools {
        let hint = t.annotations.as_ref().and_then(|a| a.read_only_hint);
        assert_eq!(
            hint,
            Some(true),
            "{} is offered to a read-only client",
            t.name
        );
    }
    assert!(!tools
        .iter()
        .any(|t| t.name == "browser_click" || t.name == "browser_navigate"));
    // Calling a page's own tools stays: a read-only server runs only those
    // the page marks read-only (tests/webmcp.rs, tools::webmcp tests).
    assert!(tools.iter().any(|t| t.name == "browser_page_tool_call"));
    let refused = ro
        .text("browser_click", json!({"target": "e1"}))
        .await
        .unwrap_err();
    assert!(
        refused.contains("not available") && refused.contains("read-only"),
        "{refused}"
    );

    let no_eval = Mcp::start(&sb, "no-eval", &["--no-eval"]).await;
    assert!(!tool_names(&no_eval)
        .await
        .contains(&"browser_evaluate".to_string()));
    let refused = no_eval
        .text("browser_evaluate", json!({"function": "() => 1"}))
        .await
        .unwrap_err();
    assert!(refused.contains("--no-eval"), "{refused}");

    let few = Mcp::start(&sb, "few", &["--tools", "browser_snapshot,browser_status"]).await;
    assert_eq!(
        tool_names(&few).await,
        ["browser_snapshot", "browser_status"]
    );
}

#[tokio::test]
async fn the_policy_file_applies_and_a_broken_one_stops_serve() {
    let sb = Sandbox::new();
    let config = sb.tmp.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("policy.toml"),
        "deny_domains = [\"blocked.example\"]\nno_eval = true\n",
    )
    .unwrap();
    let mcp = Mcp::start_with_env(&sb, "configured", &[], &[("TABWIRE_CONFIG_DIR", &config)]).await;
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(
        status.contains("denied domains: blocked.example") && status.contains("eval: off"),
        "{status}"
    );

    std::fs::write(config.join("policy.toml"), "deny_domain = 3\n").unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .env("TABWIRE_CONFIG_DIR", &config)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("policy file") && err.contains("invalid"),
        "{err}"
    );
}

#[tokio::test]
async fn another_user_cannot_reach_a_serve_socket() {
    if !is_root() {
        eprintln!("SKIPPED: needs root to switch to uid 65534 (CI runs as root)");
        return;
    }
    let sb = Sandbox::new();
    // Let the other user walk up to the runtime dir itself.
    std::fs::set_permissions(sb.tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let _mcp = Mcp::start(&sb, "private", &[]).await;
    let socket = std::fs::read_dir(&sb.runtime)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let probe = format!(
        "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ntry:\n s.connect({:?})\n print('CONNECTED')\nexcept Exception as e:\n print('REFUSED', e)",
        socket.display().to_string()
    );
    let out = Command::new("setpriv")
        .args([
            "--reuid=65534",
            "--regid=65534",
            "--clear-groups",
            "/usr/bin/python3",
            "-c",
            &probe,
        ])
        .output()
        .expect("setpriv runs");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("REFUSED") && said.contains("Permission denied"),
        "{said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_runtime_dir_owned_by_someone_else_is_refused() {
    if !is_root() {
        eprintln!("SKIPPED: needs root to chown the directory (CI runs as root)");
        return;
    }
    let sb = Sandbox::new();
    std::fs::create_dir_all(&sb.runtime).unwrap();
    std::fs::set_permissions(&sb.runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    std::os::unix::fs::chown(&sb.runtime, Some(65534), Some(65534)).unwrap();
    let out = Command::new(BIN)
        .arg("serve")
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("owned by uid 65534"), "{err}");
}

#[tokio::test]
async fn no_secret_is_kept_anywhere() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(
        &sb,
        "auditor",
        &["--backend", "extension", "--connect-timeout", "0.2"],
    )
    .await;
    mcp.ok("browser_status", json!({})).await;
    let _ = mcp.text("browser_snapshot", json!({})).await;
    let pid = processes_matching(|cmd, env| {
        cmd.split('\0').nth(1) == Some("serve")
            && env.contains(&format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display()))
    });
    assert_eq!(pid.len(), 1);
    let env = std::fs::read_to_string(format!("/proc/{}/environ", pid[0])).unwrap_or_default();
    let pattern = [
        "token", "secret", "passw", "apikey", "api_key", "bearer", "pairing",
    ];
    for kv in env.split('\0').filter(|kv| kv.starts_with("TABWIRE")) {
        let lower = kv.to_ascii_lowercase();
        assert!(
            !pattern.iter().any(|p| lower.contains(p)),
            "secret-like variable: {kv}"
        );
    }
    // Every file tabwire wrote: runtime dir, data dir (audit log), logs.
    let mut checked = 0;
    for dir in [
        sb.runtime.clone(),
        sb.data_dir(),
        sb.tmp.path().to_path_buf(),
    ] {
        for entry in walk(&dir) {
            let text = std::fs::read(&entry)
                .map(|b| String::from_utf8_lossy(&b).to_ascii_lowercase())
                .unwrap_or_default();
            let name = entry.display().to_string().to_ascii_lowercase();
            for p in pattern {
                assert!(!name.contains(p), "secret-like file name {name}");
                assert!(!text.contains(p), "{} mentions {p:?}", entry.display());
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 2,
        "expected at least the audit log and the serve log"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => out.extend(walk(&p)),
            Ok(t) if t.is_file() => out.push(p),
            _ => {}
        }
    }
    out
}
