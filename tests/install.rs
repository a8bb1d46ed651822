//! `tabwire install` / `uninstall` and `installer/install.sh`, run as real
//! processes against a fake HOME, with the files checked byte for byte.

mod common;

use std::path::{Path, PathBuf};

use common::install_env::*;
use common::{BIN, HOST_BIN};

fn stdout(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The repository's extension folder, file by file.
fn extension_folder() -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("extension");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

/// Browsers whose system-wide executable exists on this machine: they count
/// as installed whatever HOME is (Linux table of absolute paths).
fn system_browsers() -> Vec<&'static str> {
    let table: &[(&str, &[&str])] = &[
        (
            "chrome",
            &[
                "/opt/google/chrome/chrome",
                "/usr/bin/google-chrome-stable",
                "/usr/bin/google-chrome",
            ],
        ),
        (
            "chrome-beta",
            &[
                "/opt/google/chrome-beta/chrome",
                "/usr/bin/google-chrome-beta",
            ],
        ),
        (
            "chrome-dev",
            &[
                "/opt/google/chrome-unstable/chrome",
                "/usr/bin/google-chrome-unstable",
            ],
        ),
        (
            "chrome-canary",
            &[
                "/opt/google/chrome-canary/chrome",
                "/usr/bin/google-chrome-canary",
            ],
        ),
        (
            "chromium",
            &[
                "/usr/lib/chromium/chromium",
                "/usr/lib/chromium-browser/chromium-browser",
                "/usr/lib64/chromium-browser/chromium-browser",
                "/usr/bin/chromium",
                "/usr/bin/chromium-browser",
            ],
        ),
        (
            "edge",
            &[
                "/opt/microsoft/msedge/msedge",
                "/usr/bin/microsoft-edge-stable",
                "/usr/bin/microsoft-edge",
            ],
        ),
        (
            "edge-beta",
            &[
                "/opt/microsoft/msedge-beta/msedge",
                "/usr/bin/microsoft-edge-beta",
            ],
        ),
        (
            "edge-dev",
            &[
                "/opt/microsoft/msedge-dev/msedge",
                "/usr/bin/microsoft-edge-dev",
            ],
        ),
        (
            "brave",
            &[
                "/opt/brave.com/brave/brave",
                "/usr/bin/brave-browser",
                "/usr/bin/brave",
            ],
        ),
        ("vivaldi", &["/opt/vivaldi/vivaldi", "/usr/bin/vivaldi"]),
        (
            "opera",
            &["/usr/lib/x86_64-linux-gnu/opera/opera", "/usr/bin/opera"],
        ),
    ];
    table
        .iter()
        .filter(|(_, paths)| paths.iter().any(|p| Path::new(p).exists()))
        .map(|(id, _)| *id)
        .collect()
}

/// The Linux profile directory (under ~/.config) each browser id reads.
fn linux_dir(id: &str) -> &'static str {
    match id {
        "chrome" | "opera" => "google-chrome",
        "chrome-beta" => "google-chrome-beta",
        "chrome-dev" => "google-chrome-unstable",
        "chrome-canary" => "google-chrome-canary",
        "chromium" => "chromium",
        "edge" => "microsoft-edge",
        "edge-beta" => "microsoft-edge-beta",
        "edge-dev" => "microsoft-edge-dev",
        "brave" => "BraveSoftware/Brave-Browser",
        "vivaldi" => "vivaldi",
        other => panic!("no dir for {other}"),
    }
}

const CURSOR_BEFORE: &str = r#"{
  "mcpServers": {
    "files": {
      "command": "files-mcp",
      "args": ["--root", "/srv"]
    }
  }
}
"#;

const CODEX_BEFORE: &str = "model = \"o4-mini\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";

/// A home with a Vivaldi profile, an Edge Beta in PATH, and existing
/// Cursor and Codex configs plus an unrelated file.
fn populated_home() -> FakeHome {
    let h = FakeHome::new();
    let prefs = h.config().join("vivaldi/Default/Preferences");
    std::fs::create_dir_all(prefs.parent().unwrap()).unwrap();
    std::fs::write(&prefs, b"{\"profile\":{}}").unwrap();
    h.fake_program("microsoft-edge-beta", "#!/bin/sh\nexit 0\n");
    std::fs::create_dir_all(h.home.join(".cursor")).unwrap();
    std::fs::write(h.home.join(".cursor/mcp.json"), CURSOR_BEFORE).unwrap();
    std::fs::create_dir_all(h.home.join(".codex")).unwrap();
    std::fs::write(h.home.join(".codex/config.toml"), CODEX_BEFORE).unwrap();
    std::fs::write(h.home.join("notes.txt"), b"mine").unwrap();
    h
}

fn manifests_under(home: &Path) -> Vec<PathBuf> {
    snapshot(home)
        .into_keys()
        .filter(|p| p.ends_with("com.tabwire.host.json"))
        .collect()
}

#[test]
fn install_writes_exact_files_is_idempotent_and_uninstall_leaves_the_home_as_it_was() {
    let h = populated_home();
    let before = snapshot(&h.home);
    let bin = bin_path();

    let out = h.tabwire(&[
        "install",
        "--client",
        "cursor",
        "--client",
        "codex",
        "--client",
        "claude-desktop",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);

    // One manifest per detected browser's location: the Vivaldi profile, the
    // Edge Beta in PATH, and whatever is installed system-wide here.
    let mut want: Vec<&str> = vec!["vivaldi", "edge-beta"];
    want.extend(system_browsers());
    let mut want_paths: Vec<PathBuf> = want
        .iter()
        .map(|id| {
            Path::new(".config")
                .join(linux_dir(id))
                .join("NativeMessagingHosts/com.tabwire.host.json")
        })
        .collect();
    want_paths.sort();
    want_paths.dedup();
    assert_eq!(manifests_under(&h.home), want_paths, "{text}");
    // They name install's copy of the host in the data dir, which outlives
    // wherever the binary runs from (a build dir here, npx's cache, …).
    let host_copy = h.data_dir().join("bin/tabwire-host");
    assert_eq!(
        std::fs::read(&host_copy).unwrap(),
        std::fs::read(host_bin_path()).unwrap()
    );
    let manifest = expected_manifest(&host_copy);
    for p in &want_paths {
        assert_eq!(
            std::fs::read_to_string(h.home.join(p)).unwrap(),
            manifest,
            "{}",
            p.display()
        );
    }

    // The extension, byte for byte, in the data dir.
    let ext = h.data_dir().join("extension");
    for (name, bytes) in extension_folder() {
        assert_eq!(
            std::fs::read(ext.join(&name)).unwrap(),
            bytes,
            "extension/{name}"
        );
    }
    assert_eq!(
        std::fs::read_dir(&ext).unwrap().count(),
        extension_folder().len()
    );

    // Client configs: tabwire added, everything else kept; backups of the originals.
    let cursor = std::fs::read_to_string(h.home.join(".cursor/mcp.json")).unwrap();
    let bin_json = serde_json::to_string(&bin.display().to_string()).unwrap();
    assert_eq!(
        cursor,
        format!(
            r#"{{
  "mcpServers": {{
    "files": {{
      "command": "files-mcp",
      "args": ["--root", "/srv"]
    }},
    "tabwire": {{
      "command": {bin_json},
      "args": [
        "serve"
      ]
    }}
  }}
}}
"#
        )
    );
    assert_eq!(
        std::fs::read_to_string(h.home.join(".cursor/mcp.json.tabwire-backup")).unwrap(),
        CURSOR_BEFORE
    );
    assert_eq!(
        std::fs::read_to_string(h.home.join(".codex/config.toml")).unwrap(),
        format!(
            "{CODEX_BEFORE}\n[mcp_servers.tabwire]\ncommand = {bin_json}\nargs = [\"serve\"]\n"
        )
    );
    let desktop: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(h.config().join("Claude/claude_desktop_config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        desktop,
        serde_json::json!({"mcpServers": {"tabwire": {"command": bin.display().to_string(), "args": ["serve"]}}})
    );

    // What the user reads next.
    for needle in [
        "Next steps",
        "Load unpacked",
        &ext.display().to_string(),
        "Vivaldi:",
        "vivaldi://extensions",
        "Microsoft Edge Beta:",
        "edge://extensions",
        "claude mcp add --scope user tabwire --",
        "+     \"tabwire\": {",
        "tabwire doctor",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in:\n{text}");
    }

    // Re-running changes nothing.
    let first = snapshot(&h.home);
    let again = h.tabwire(&[
        "install",
        "--client",
        "cursor",
        "--client",
        "codex",
        "--client",
        "claude-desktop",
    ]);
    assert!(again.status.success());
    assert!(stdout(&again).contains("up to date"));
    assert_eq!(tree_diff(&first, &snapshot(&h.home)), Vec::<String>::new());

    // Uninstall removes exactly that: the home is as it was, byte for byte.
    let un = h.tabwire(&["uninstall"]);
    assert!(un.status.success(), "{}", stderr(&un));
    assert_eq!(tree_diff(&before, &snapshot(&h.home)), Vec::<String>::new());
    let twice = h.tabwire(&["uninstall"]);
    assert!(twice.status.success());
    assert!(
        stdout(&twice).contains("nothing to remove"),
        "{}",
        stdout(&twice)
    );
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let h = populated_home();
    let before = snapshot(&h.home);
    let out = h.tabwire(&["install", "--dry-run", "--client", "cursor"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("dry run"), "{text}");
    assert!(text.contains("would write"), "{text}");
    assert!(
        text.contains("+     \"tabwire\": {"),
        "the change is shown:\n{text}"
    );
    assert_eq!(tree_diff(&before, &snapshot(&h.home)), Vec::<String>::new());

    h.tabwire(&["install"]);
    let installed = snapshot(&h.home);
    let out = h.tabwire(&["uninstall", "--dry-run"]);
    assert!(stdout(&out).contains("would remove"), "{}", stdout(&out));
    assert_eq!(
        tree_diff(&installed, &snapshot(&h.home)),
        Vec::<String>::new()
    );
}

#[test]
fn uninstall_keeps_what_the_user_changed_after_install() {
    let h = populated_home();
    assert!(h
        .tabwire(&["install", "--client", "cursor"])
        .status
        .success());
    // The user adds a server of their own afterwards.
    let path = h.home.join(".cursor/mcp.json");
    let edited = std::fs::read_to_string(&path).unwrap().replacen(
        "\"mcpServers\": {",
        "\"mcpServers\": {\n    \"mine\": {\"command\": \"mine\"},",
        1,
    );
    std::fs::write(&path, &edited).unwrap();

    assert!(h.tabwire(&["uninstall"]).status.success());
    let after: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let servers = after["mcpServers"].as_object().unwrap();
    assert!(
        servers.contains_key("mine") && servers.contains_key("files"),
        "{after}"
    );
    assert!(!servers.contains_key("tabwire"), "{after}");
    assert!(!h.home.join(".cursor/mcp.json.tabwire-backup").exists());
    assert!(manifests_under(&h.home).is_empty());
}

#[test]
fn a_stale_registration_from_elsewhere_is_updated_and_a_foreign_manifest_left_alone() {
    let h = FakeHome::new();
    // An old registration pointing at a binary that is gone.
    let old = h
        .config()
        .join("chromium/NativeMessagingHosts/com.tabwire.host.json");
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    std::fs::write(&old, expected_manifest(Path::new("/gone/tabwire"))).unwrap();
    let out = h.tabwire(&["install", "--browser", "chromium"]);
    assert!(out.status.success());
    assert!(stdout(&out).contains("updated"), "{}", stdout(&out));
    assert_eq!(
        std::fs::read_to_string(&old).unwrap(),
        expected_manifest(&h.data_dir().join("bin/tabwire-host"))
    );
    // Uninstall removes tabwire's manifest but not another host's.
    let other = old.with_file_name("org.example.host.json");
    std::fs::write(&other, r#"{"name":"org.example.host"}"#).unwrap();
    assert!(h.tabwire(&["uninstall"]).status.success());
    assert!(!old.exists());
    assert!(other.exists());
}

#[test]
fn unknown_names_and_bad_combinations_are_refused_with_what_to_do() {
    let h = FakeHome::new();
    let out = h.tabwire(&["install", "--browser", "netscape"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("unknown browser \"netscape\""),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("chromium"), "lists the known ones");
    let out = h.tabwire(&["install", "--client", "emacs"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("claude-desktop"), "{}", stderr(&out));
    let out = h.tabwire(&["install", "--client", "cursor", "--user-data-dir", "/tmp/x"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--client cannot be combined"),
        "{}",
        stderr(&out)
    );
    assert!(snapshot(&h.home).is_empty(), "nothing written on refusal");
}

#[test]
fn a_broken_client_config_is_not_clobbered() {
    let h = FakeHome::new();
    std::fs::create_dir_all(h.home.join(".cursor")).unwrap();
    std::fs::write(h.home.join(".cursor/mcp.json"), "{ \"mcpServers\": { oops").unwrap();
    let out = h.tabwire(&["install", "--browser", "chromium", "--client", "cursor"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("add the tabwire entry"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        std::fs::read_to_string(h.home.join(".cursor/mcp.json")).unwrap(),
        "{ \"mcpServers\": { oops"
    );
}

/// `installer/install.sh --bin` in a fake HOME: the CI path, reusing the
/// built binary. Its printed next steps are shown in the test output.
#[test]
fn install_sh_with_a_built_binary_registers_and_prints_next_steps() {
    let h = FakeHome::new();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("installer/install.sh");
    let out = h
        .command("sh")
        .arg(&script)
        .args(["--bin", BIN])
        .output()
        .unwrap();
    println!("{}", stdout(&out));
    eprintln!("{}", stderr(&out));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("Next steps") && text.contains("Load unpacked"),
        "{text}"
    );
    assert!(!manifests_under(&h.home).is_empty());
    assert!(h.data_dir().join("extension/manifest.json").exists());
    // Safe to re-run.
    let again = h
        .command("sh")
        .arg(&script)
        .args(["--bin", BIN])
        .output()
        .unwrap();
    assert!(again.status.success());
}

/// Without --bin the script really runs `cargo install --path <repo> --locked`
/// (a stand-in cargo records the call and installs the built binary, so the
/// test does not spend minutes compiling), then registers that binary.
#[test]
fn install_sh_by_default_runs_cargo_install_and_registers_its_binary() {
    let h = FakeHome::new();
    let log = h.tmp.path().join("cargo-args");
    h.fake_program(
        "cargo",
        &format!(
            "#!/bin/sh\necho \"$@\" > {log}\nmkdir -p \"$HOME/.cargo/bin\"\ncp {BIN} \"$HOME/.cargo/bin/tabwire\"\ncp {HOST_BIN} \"$HOME/.cargo/bin/tabwire-host\"\n",
            log = log.display()
        ),
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = h
        .command("sh")
        .arg(root.join("installer/install.sh"))
        .args(["--browser", "chromium"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&log).unwrap().trim(),
        format!(
            "install --path {} --locked",
            root.canonicalize().unwrap().display()
        )
    );
    // cargo install puts both binaries in place; browsers start install's
    // copy of the small one.
    let installed = h.home.join(".cargo/bin/tabwire-host");
    let copy = h.data_dir().join("bin/tabwire-host");
    assert_eq!(
        std::fs::read(&copy).unwrap(),
        std::fs::read(&installed).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(
            h.config()
                .join("chromium/NativeMessagingHosts/com.tabwire.host.json")
        )
        .unwrap(),
        expected_manifest(&copy)
    );
    assert!(stdout(&out).contains("(cargo install)"), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("not in your PATH"),
        "{}",
        stderr(&out)
    );
}
