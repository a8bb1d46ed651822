//! `tabwire doctor` against real setups: a fresh fake home, an unsafe socket
//! directory, and a real headless Chromium whose extension is connected to a
//! real `tabwire serve` — then with the manifest's binary path broken.

mod common;

use common::install_env::*;
use common::*;
use serde_json::{json, Value};

fn doctor_json(cmd: &mut std::process::Command) -> (i32, Value) {
    let out = cmd.args(["doctor", "--json"]).output().expect("run doctor");
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "doctor --json:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // stdout is the JSON document and nothing else.
    let v: Value = serde_json::from_str(&text).expect("doctor --json prints JSON only");
    (out.status.code().unwrap(), v)
}

fn check<'a>(report: &'a Value, id: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id} in {report:#}"))
}

#[test]
fn fresh_home_fails_with_the_fix_then_passes_after_install() {
    let h = FakeHome::new();
    // Chromium is installed system-wide here, so it counts as present.
    chromium_path();
    let (code, report) = doctor_json(&mut h.command(BIN));
    assert_eq!(code, 1);
    assert_eq!(report["ok"], false);
    let m = check(&report, "manifest.chromium");
    assert_eq!(m["status"], "fail");
    assert!(
        m["detail"].as_str().unwrap().contains("not registered"),
        "{m}"
    );
    assert!(
        m["fix"].as_str().unwrap().contains("tabwire install"),
        "{m}"
    );
    assert_eq!(check(&report, "extension-files")["status"], "warn");
    assert_eq!(check(&report, "cdp-fallback")["status"], "ok");

    assert!(h.tabwire(&["install"]).status.success());
    let (code, report) = doctor_json(&mut h.command(BIN));
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(check(&report, "manifest.chromium")["status"], "ok");
    assert_eq!(check(&report, "binary.chromium")["status"], "ok");
    assert_eq!(check(&report, "extension-files")["status"], "ok");
    assert_eq!(check(&report, "policy")["status"], "ok");
    // No serve runs: nothing to connect yet, which is not a failure.
    assert_eq!(check(&report, "extension")["status"], "info");

    // The human report says the same, with the fix lines.
    assert!(h.tabwire(&["uninstall"]).status.success());
    let out = h.tabwire(&["doctor"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("FAIL  host manifest for Chromium"), "{text}");
    assert!(
        text.contains("fix: run `tabwire install --browser chromium`"),
        "{text}"
    );
}

#[test]
fn an_unsafe_socket_directory_is_a_named_failure() {
    use std::os::unix::fs::PermissionsExt;
    let h = FakeHome::new();
    std::fs::create_dir_all(&h.runtime).unwrap();
    std::fs::set_permissions(&h.runtime, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, report) = doctor_json(&mut h.command(BIN));
    assert_eq!(code, 1);
    let c = check(&report, "runtime-dir");
    assert_eq!(c["status"], "fail");
    assert!(c["detail"].as_str().unwrap().contains("mode is 755"), "{c}");
    assert!(c["fix"].as_str().unwrap().contains("chmod 700"), "{c}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reports_the_connected_extension_then_a_broken_host_binary() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let _browser = Chromium::launch(&sb);
    let mcp = Mcp::start(
        &sb,
        "Doctor Patient",
        &["--backend", "extension", "--connect-timeout", "30"],
    )
    .await;
    // A call that needs the extension: it is connected once this returns.
    mcp.ok("browser_tabs", json!({"action": "list"})).await;

    let home = tempfile::tempdir().unwrap();
    // `tabwire doctor [EXTRA] --user-data-dir <profile>` in a private home.
    let run = |extra: &[&str]| {
        let mut cmd = std::process::Command::new(BIN);
        cmd.env_clear()
            .env("HOME", home.path())
            .env("PATH", "/usr/bin:/bin")
            .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
            .env("TABWIRE_DATA_DIR", sb.data_dir())
            .arg("doctor")
            .args(extra)
            .arg("--user-data-dir")
            .arg(&sb.udd);
        let out = cmd.output().unwrap();
        eprintln!("{}", String::from_utf8_lossy(&out.stdout));
        out
    };

    let out = run(&["--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    assert_eq!(out.status.code(), Some(0), "{report:#}");
    assert_eq!(check(&report, "manifest.chromium")["status"], "ok");
    assert_eq!(check(&report, "binary.chromium")["status"], "ok");
    let ext = check(&report, "extension");
    assert_eq!(ext["status"], "ok", "{ext}");
    assert_eq!(ext["data"]["version"], "0.1.0");
    let browser = ext["data"]["browser"].as_str().unwrap();
    assert!(browser.contains("Chrom"), "{browser}");
    assert!(ext["data"]["host_pid"].as_u64().unwrap() > 0);
    let server = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"].as_str().unwrap().starts_with("server."))
        .expect("a server check");
    assert_eq!(server["status"], "ok");
    assert_eq!(server["data"]["client"], "Doctor Patient");
    assert!(
        server["detail"]
            .as_str()
            .unwrap()
            .contains("Doctor Patient"),
        "{server}"
    );

    let text = String::from_utf8_lossy(&run(&[]).stdout).into_owned();
    assert!(
        text.contains("OK    extension connection: connected: tabwire extension 0.1.0 in"),
        "{text}"
    );

    // Break the binary path in the manifest.
    let manifest = sb.udd.join("NativeMessagingHosts/com.tabwire.host.json");
    std::fs::write(
        &manifest,
        expected_manifest(std::path::Path::new("/nonexistent/tabwire")),
    )
    .unwrap();
    let out = run(&["--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(1));
    let b = check(&report, "binary.chromium");
    assert_eq!(b["status"], "fail", "{b}");
    assert!(
        b["detail"]
            .as_str()
            .unwrap()
            .contains("/nonexistent/tabwire does not exist"),
        "{b}"
    );
    assert!(
        b["fix"].as_str().unwrap().contains("tabwire install"),
        "{b}"
    );
    let text = String::from_utf8_lossy(&run(&[]).stdout).into_owned();
    assert!(text.contains("FAIL  host binary for Chromium"), "{text}");
    assert!(text.contains("1 problem(s) need fixing"), "{text}");
}

/// "Host registered but never connects": a serve is running, no browser
/// reaches it. Doctor names the server and its client and fails with the
/// likely causes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_the_extension_never_reached_is_a_failure_with_the_causes() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb, "Lonely Client", &["--backend", "extension"]).await;
    let home = tempfile::tempdir().unwrap();
    let socket_seen = eventually(10, "the serve socket", || {
        std::fs::read_dir(&sb.runtime)
            .ok()?
            .flatten()
            .any(|e| e.file_name().to_string_lossy().ends_with(".sock"))
            .then_some(())
    });
    socket_seen.await;
    // The serve learns its client's name from MCP initialize.
    let report = eventually(10, "the client's name in the status", || {
        let out = std::process::Command::new(BIN)
            .env_clear()
            .env("HOME", home.path())
            .env("PATH", "/usr/bin:/bin")
            .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
            .args(["doctor", "--json", "--user-data-dir"])
            .arg(&sb.udd)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let named = v["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["data"]["client"] == "Lonely Client");
        named.then_some((out.status.code(), v))
    })
    .await;
    let (code, report) = report;
    assert_eq!(code, Some(1), "{report:#}");
    let ext = check(&report, "extension");
    assert_eq!(ext["status"], "fail");
    assert!(
        ext["detail"]
            .as_str()
            .unwrap()
            .contains("none reached by the extension"),
        "{ext}"
    );
    assert!(
        ext["fix"].as_str().unwrap().contains("extensions page"),
        "{ext}"
    );
    let server = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"].as_str().unwrap().starts_with("server."))
        .unwrap();
    assert_eq!(server["status"], "warn");
    assert!(
        server["detail"]
            .as_str()
            .unwrap()
            .contains("no native host connected"),
        "{server}"
    );
    drop(mcp);
}
