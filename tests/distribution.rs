//! The way in without Rust, end to end: `installer/package.sh` packs the
//! binaries this `cargo test` built into the release archive, its checksum,
//! the store zip and the npm tarballs; then, in a fresh HOME with no cargo or
//! rustc on PATH,
//! - the npm tarballs are installed into an empty directory, `npx tabwire
//!   install` registers a host that real Chromium starts, an MCP client
//!   (rmcp, the official Rust SDK) drives `npx -y tabwire serve` through the
//!   extension and through the CDP fallback on a real page;
//! - `installer/install.sh` installs a good archive (from a path and by
//!   download) and refuses a corrupted one, installing nothing.
//!
//! package.sh runs with `--bin-dir` on the debug binaries: its packing is the
//! same for any build, and a release build (thin LTO) would add minutes to
//! the suite. `bench/no-rust-install.sh` measures the release packages.
//!
//! Needs node and npm (the launcher is a Node script), zip and unzip, curl.
//! They pack and install the linux-x64 packages, so they build only there.
#![cfg(all(target_os = "linux", target_arch = "x86_64"))]

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use rmcp::model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use common::install_env::{snapshot, tree_diff, FakeHome};
use common::{chromium_path, kill_processes_using, processes_matching, BIN, HOST_BIN};

const VERSION: &str = env!("CARGO_PKG_VERSION");
const TRIPLE: &str = "x86_64-unknown-linux-gnu";
const PLATFORM: &str = "linux-x64";
const ROOT: &str = env!("CARGO_MANIFEST_DIR");

fn text(o: &Output) -> String {
    format!(
        "--- stdout\n{}--- stderr\n{}--- status {:?}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr),
        o.status.code()
    )
}

fn need(program: &str) {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found,
        "{program} is needed for the distribution tests (apt-get install -y nodejs npm zip unzip curl)"
    );
}

/// The packages, made once per run into the test target's temp dir.
fn packages() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        for p in ["node", "npm", "zip", "unzip", "curl"] {
            need(p);
        }
        let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("distribution-packages");
        let _ = std::fs::remove_dir_all(&out);
        let bin_dir = Path::new(BIN).parent().unwrap();
        let o = Command::new("bash")
            .arg(Path::new(ROOT).join("installer/package.sh"))
            .arg("--bin-dir")
            .arg(bin_dir)
            .arg(&out)
            .output()
            .expect("run package.sh");
        eprintln!("$ installer/package.sh\n{}", text(&o));
        assert!(o.status.success(), "package.sh failed");
        out
    })
}

fn archive_name() -> String {
    format!("tabwire-{TRIPLE}.tar.gz")
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// A fresh home whose PATH has node, npm, sh and coreutils but no Rust.
fn rustless_home() -> FakeHome {
    let h = FakeHome::new();
    for tool in ["cargo", "rustc", "rustup"] {
        let o = h
            .command("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        assert!(
            !o.status.success(),
            "{tool} is on the test PATH: {}",
            String::from_utf8_lossy(&o.stdout)
        );
    }
    h
}

fn run(cmd: &mut Command, what: &str) -> Output {
    let o = cmd.output().unwrap_or_else(|e| panic!("run {what}: {e}"));
    eprintln!("$ {what}\n{}", text(&o));
    o
}

#[test]
fn package_sh_makes_the_archive_its_checksum_the_store_zip_and_the_npm_tarballs() {
    let out = packages();
    let archive = out.join(archive_name());
    let bytes = std::fs::read(&archive).unwrap();
    assert_eq!(
        std::fs::read_to_string(out.join(format!("{}.sha256", archive_name()))).unwrap(),
        format!("{}  {}\n", sha256_hex(&bytes), archive_name()),
        "the .sha256 file is what sha256sum prints"
    );

    // The archive: both binaries as built, the extension, README, licences.
    let x = tempfile::tempdir().unwrap();
    let o = run(
        Command::new("tar")
            .arg("-xzf")
            .arg(&archive)
            .arg("-C")
            .arg(x.path()),
        "tar -xzf",
    );
    assert!(o.status.success());
    let top = x.path().join(format!("tabwire-{TRIPLE}"));
    for (name, built) in [("tabwire", BIN), ("tabwire-host", HOST_BIN)] {
        assert_eq!(
            std::fs::read(top.join(name)).unwrap(),
            std::fs::read(built).unwrap(),
            "{name}"
        );
    }
    for f in [
        "README.md",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "extension/manifest.json",
    ] {
        assert!(top.join(f).is_file(), "{f} in the archive");
    }
    let ext_files = |dir: &Path| {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    let repo_ext = Path::new(ROOT).join("extension");
    assert_eq!(ext_files(&top.join("extension")), ext_files(&repo_ext));

    // The store build: every file of the extension, the manifest without "key".
    let store = out.join(format!("tabwire-extension-{VERSION}-store.zip"));
    let o = run(Command::new("unzip").arg("-Z1").arg(&store), "unzip -Z1");
    let mut listed: Vec<String> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    listed.sort();
    assert_eq!(listed, ext_files(&repo_ext));
    let o = run(
        Command::new("unzip")
            .arg("-p")
            .arg(&store)
            .arg("manifest.json"),
        "unzip -p manifest.json",
    );
    let store_manifest: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut dev_manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(repo_ext.join("manifest.json")).unwrap())
            .unwrap();
    assert!(dev_manifest.get("key").is_some());
    dev_manifest.as_object_mut().unwrap().remove("key");
    assert_eq!(store_manifest, dev_manifest);

    // The npm packages: the launcher names this platform's package, which
    // says where npm may install it.
    let read_pkg = |tgz: &str| -> Value {
        let o = run(
            Command::new("tar")
                .arg("-xzOf")
                .arg(out.join(tgz))
                .arg("package/package.json"),
            "tar -xzOf package.json",
        );
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let launcher = read_pkg(&format!("tabwire-{VERSION}.tgz"));
    assert_eq!(launcher["name"], "tabwire");
    assert_eq!(launcher["bin"]["tabwire"], "bin/tabwire.js");
    assert_eq!(
        launcher["optionalDependencies"][format!("@tabwire/{PLATFORM}")],
        VERSION
    );
    assert!(launcher.get("scripts").is_none(), "nothing runs at install");
    let platform = read_pkg(&format!("tabwire-{PLATFORM}-{VERSION}.tgz"));
    assert_eq!(platform["name"], format!("@tabwire/{PLATFORM}"));
    assert_eq!(platform["version"], VERSION);
    assert_eq!(platform["os"], json!(["linux"]));
    assert_eq!(platform["cpu"], json!(["x64"]));
}

/// The MCP client: rmcp, named so serve can tell it apart.
#[derive(Clone)]
struct NpxClient;

impl ClientHandler for NpxClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("npx-client", "1.0"),
        )
    }
}

/// `npx -y tabwire serve ARGS` in `app`, as an MCP client would start it.
async fn npx_serve(
    h: &FakeHome,
    app: &Path,
    args: &[String],
    log: &Path,
) -> RunningService<RoleClient, NpxClient> {
    let std_cmd = {
        let mut c = h.command("npx");
        c.current_dir(app)
            .args(["-y", "tabwire", "serve"])
            .args(args)
            .env("RUST_LOG", "tabwire=debug");
        c
    };
    let cmd = tokio::process::Command::from(std_cmd);
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(std::fs::File::create(log).unwrap())
        .spawn()
        .expect("spawn npx -y tabwire serve");
    NpxClient.serve(transport).await.expect("MCP initialize")
}

async fn call(
    client: &RunningService<RoleClient, NpxClient>,
    tool: &str,
    args: Value,
) -> Result<String, String> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    let r = client
        .call_tool(params)
        .await
        .expect("tools/call transport");
    let t = common::text_of(&r);
    if r.is_error == Some(true) {
        Err(t)
    } else {
        Ok(t)
    }
}

/// Headless Chromium on the profile `tabwire install` registered the host
/// in (`~/.config/chromium`), with the extension copy install placed.
struct Browser(std::process::Child);

impl Browser {
    fn launch(h: &FakeHome, extension: &Path) -> Self {
        use std::os::unix::process::CommandExt;
        let log = std::fs::File::create(h.tmp.path().join("chromium.log")).unwrap();
        let mut cmd = h.command(chromium_path());
        cmd.args(common::HEADLESS_FLAGS)
            .arg(format!(
                "--user-data-dir={}",
                h.config().join("chromium").display()
            ))
            .arg(format!("--load-extension={}", extension.display()))
            .arg(format!(
                "--disable-extensions-except={}",
                extension.display()
            ))
            .arg("about:blank")
            .env("RUST_LOG", "tabwire=debug")
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        Self(cmd.spawn().expect("launch chromium"))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // SAFETY: signalling our own child's process group.
        unsafe { libc::killpg(self.0.id() as i32, libc::SIGKILL) };
        let _ = self.0.wait();
    }
}

/// Kills what the test started through npx (hosts Chromium spawned, a
/// serve whose client went away) when the test ends, pass or fail.
struct Cleanup(PathBuf);

impl Drop for Cleanup {
    fn drop(&mut self) {
        kill_processes_using(&self.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn npm_tarballs_to_a_working_mcp_session_in_a_fresh_home_without_rust() {
    let _serial = common::BROWSER_LOCK.lock().await;
    let out = packages();
    let h = rustless_home();
    let _cleanup = Cleanup(h.runtime.clone());
    let app = h.tmp.path().join("app");
    std::fs::create_dir_all(&app).unwrap();
    let npm = |args: &[&str]| {
        let mut c = h.command("npm");
        c.current_dir(&app).args(args);
        c
    };
    let npx = |args: &[&str]| {
        let mut c = h.command("npx");
        c.current_dir(&app).args(args);
        c
    };

    // 1. npm install from the tarballs (standing in for the registry).
    let o = run(
        npm(&[
            "install",
            "--offline",
            "--no-audit",
            "--no-fund",
            "--no-update-notifier",
        ])
        .arg(out.join(format!("tabwire-{VERSION}.tgz")))
        .arg(out.join(format!("tabwire-{PLATFORM}-{VERSION}.tgz"))),
        "npm install tabwire.tgz tabwire-linux-x64.tgz",
    );
    assert!(o.status.success());
    let platform_bin = app.join(format!("node_modules/@tabwire/{PLATFORM}/bin"));
    assert_eq!(
        std::fs::read(platform_bin.join("tabwire")).unwrap(),
        std::fs::read(BIN).unwrap()
    );

    let o = run(&mut npx(&["tabwire", "--version"]), "npx tabwire --version");
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8_lossy(&o.stdout).trim(),
        format!("tabwire {VERSION}")
    );

    // The launcher passes the binary's exit status through.
    let o = run(
        &mut npx(&["tabwire", "install", "--browser", "netscape"]),
        "npx tabwire install --browser netscape",
    );
    assert_eq!(o.status.code(), Some(1));
    let o = run(
        &mut npx(&["tabwire", "--no-such-flag"]),
        "npx tabwire --no-such-flag",
    );
    assert_eq!(o.status.code(), Some(2), "clap's usage status");

    // 2. A dry run writes nothing and shows the npx form of the config.
    let before = snapshot(&h.home);
    let o = run(
        &mut npx(&["tabwire", "install", "--dry-run"]),
        "npx tabwire install --dry-run",
    );
    assert!(o.status.success());
    let plan = String::from_utf8_lossy(&o.stdout).into_owned();
    for needle in [
        "dry run",
        "the npm package",
        "would place",
        "bin/tabwire-host",
        "npx -y tabwire serve",
        "claude mcp add --scope user tabwire -- npx -y tabwire serve",
        "npx tabwire install --client",
        "npx tabwire doctor",
    ] {
        assert!(plan.contains(needle), "missing {needle:?} in:\n{plan}");
    }
    let after = snapshot(&h.home);
    let ours = |p: &PathBuf| p.starts_with(".config") || p.starts_with(".local");
    let diff: Vec<String> = tree_diff(
        &before.into_iter().filter(|(p, _)| ours(p)).collect(),
        &after.into_iter().filter(|(p, _)| ours(p)).collect(),
    );
    assert_eq!(diff, Vec::<String>::new(), "the dry run wrote nothing");

    // 3. The install: the host copied out of node_modules and registered,
    // the client configured to start tabwire through npx.
    let o = run(
        &mut npx(&["tabwire", "install", "--client", "claude-desktop"]),
        "npx tabwire install --client claude-desktop",
    );
    assert!(o.status.success());
    let data = h.data_dir();
    let host_copy = data.join("bin/tabwire-host");
    assert_eq!(
        std::fs::read(&host_copy).unwrap(),
        std::fs::read(platform_bin.join("tabwire-host")).unwrap()
    );
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(
            h.config()
                .join("chromium/NativeMessagingHosts/com.tabwire.host.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["path"], host_copy.display().to_string());
    let desktop: Value = serde_json::from_str(
        &std::fs::read_to_string(h.config().join("Claude/claude_desktop_config.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        desktop["mcpServers"]["tabwire"],
        json!({"command": "npx", "args": ["-y", "tabwire", "serve"]})
    );

    // 4. Chromium starts the registered host; an MCP client reaches the
    // browser through it with `npx -y tabwire serve`.
    let _browser = Browser::launch(&h, &data.join("extension"));
    let host_str = host_copy.display().to_string();
    common::eventually(30, "Chromium to start the registered host", || {
        let pids = processes_matching(|cmd, _| {
            let mut args = cmd.split('\0');
            args.next() == Some(host_str.as_str()) && args.next() == Some(common::EXTENSION_ORIGIN)
        });
        (!pids.is_empty()).then_some(())
    })
    .await;
    let via_extension = npx_serve(
        &h,
        &app,
        &[
            "--backend".into(),
            "extension".into(),
            "--connect-timeout".into(),
            "30".into(),
        ],
        &h.tmp.path().join("serve-extension.log"),
    )
    .await;
    let status = call(&via_extension, "browser_status", json!({}))
        .await
        .expect("browser_status");
    assert!(status.contains("extension"), "{status}");
    let tabs = call(&via_extension, "browser_tabs", json!({"action": "list"})).await;
    assert!(tabs.is_ok(), "{tabs:?}");

    // doctor, run through npx, names the install and the host's origin, and
    // sees the connected extension.
    let o = run(
        &mut npx(&["tabwire", "doctor", "--json", "--browser", "chromium"]),
        "npx tabwire doctor --json",
    );
    let report: Value = serde_json::from_slice(&o.stdout).expect("doctor --json");
    let check = |id: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no {id} in {report:#}"))
            .clone()
    };
    let install = check("install");
    assert_eq!(install["status"], "ok", "{install}");
    assert_eq!(install["data"]["source"], "npm");
    assert_eq!(install["data"]["host"], host_str);
    assert!(
        install["data"]["host_from"]
            .as_str()
            .unwrap()
            .ends_with(&format!(
                "node_modules/@tabwire/{PLATFORM}/bin/tabwire-host"
            )),
        "{install}"
    );
    assert_eq!(check("binary.chromium")["status"], "ok");
    assert_eq!(check("extension")["status"], "ok", "{report:#}");
    via_extension.cancel().await.ok();

    // 5. The CDP fallback, through a real page.
    let site = common::site::Site::start();
    let mut args: Vec<String> = vec!["--backend".into(), "cdp".into()];
    args.extend(common::cdp_launch_args());
    let via_cdp = npx_serve(&h, &app, &args, &h.tmp.path().join("serve-cdp.log")).await;
    let page = call(
        &via_cdp,
        "browser_navigate",
        json!({"url": site.url("/form")}),
    )
    .await
    .expect("browser_navigate");
    assert!(
        page.contains("Order form") && page.contains("Send order"),
        "{page}"
    );
    via_cdp.cancel().await.ok();

    // 6. Uninstall removes the host copy with the rest.
    let o = run(&mut npx(&["tabwire", "uninstall"]), "npx tabwire uninstall");
    assert!(o.status.success());
    assert!(!host_copy.exists());
    assert!(!data.join("extension").exists());
    assert!(!h
        .config()
        .join("chromium/NativeMessagingHosts/com.tabwire.host.json")
        .exists());
}

/// The archive and its checksum file, copied into `dir`.
fn archive_in(dir: &Path) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    for f in [archive_name(), format!("{}.sha256", archive_name())] {
        std::fs::copy(packages().join(&f), dir.join(&f)).unwrap();
    }
    dir.join(archive_name())
}

fn install_sh(h: &FakeHome, args: &[&str]) -> Output {
    let mut cmd = h.command("sh");
    cmd.arg(Path::new(ROOT).join("installer/install.sh"))
        .args(args);
    run(&mut cmd, &format!("install.sh {}", args.join(" ")))
}

#[test]
fn install_sh_installs_a_checked_archive_and_refuses_a_corrupted_one() {
    // A corrupted archive: a clear error, and nothing is installed.
    let h = rustless_home();
    let bad = archive_in(&h.tmp.path().join("bad"));
    let mut bytes = std::fs::read(&bad).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x55;
    std::fs::write(&bad, bytes).unwrap();
    let o = install_sh(
        &h,
        &["--archive", bad.to_str().unwrap(), "--browser", "chromium"],
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("checksum mismatch"), "{err}");
    assert!(err.contains("Nothing was installed"), "{err}");
    assert!(snapshot(&h.home).is_empty(), "nothing written in HOME");

    // An archive without its checksum file is refused too.
    let lone = h.tmp.path().join("lone");
    std::fs::create_dir_all(&lone).unwrap();
    std::fs::copy(packages().join(archive_name()), lone.join(archive_name())).unwrap();
    let o = install_sh(
        &h,
        &["--archive", lone.join(archive_name()).to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("no checksum file"),
        "{}",
        text(&o)
    );
    // The download path checks the same way: a release whose checksum file
    // does not match its archive.
    let o = install_sh(
        &h,
        &[
            "--base-url",
            &format!("file://{}", bad.parent().unwrap().display()),
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("checksum mismatch"),
        "{}",
        text(&o)
    );
    assert!(snapshot(&h.home).is_empty(), "nothing written in HOME");

    // A good archive: binaries in ~/.local/bin, the host copy registered.
    let good = archive_in(&h.tmp.path().join("good"));
    let o = install_sh(
        &h,
        &["--archive", good.to_str().unwrap(), "--browser", "chromium"],
    );
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("SHA-256 checked"));
    let local_bin = h.home.join(".local/bin");
    for (name, built) in [("tabwire", BIN), ("tabwire-host", HOST_BIN)] {
        assert_eq!(
            std::fs::read(local_bin.join(name)).unwrap(),
            std::fs::read(built).unwrap(),
            "{name}"
        );
    }
    let host_copy = h.data_dir().join("bin/tabwire-host");
    let manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(
            h.config()
                .join("chromium/NativeMessagingHosts/com.tabwire.host.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(manifest["path"], host_copy.display().to_string());
    assert!(String::from_utf8_lossy(&o.stdout).contains("(a release archive)"));
    // doctor, run straight from ~/.local/bin, still knows it came from an archive.
    let o = run(
        h.command(local_bin.join("tabwire"))
            .args(["doctor", "--json", "--browser", "chromium"]),
        "tabwire doctor --json",
    );
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let install = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "install")
        .unwrap();
    assert_eq!(install["data"]["source"], "archive", "{install}");
    assert_eq!(install["status"], "ok", "{install}");

    // Without cargo and without options, install.sh takes the prebuilt
    // release from the download URL (here a local folder), checked.
    let h2 = rustless_home();
    let o = {
        let mut cmd = h2.command("sh");
        cmd.arg(Path::new(ROOT).join("installer/install.sh"))
            .args(["--browser", "chromium"])
            .env(
                "TABWIRE_RELEASE_URL",
                format!("file://{}", good.parent().unwrap().display()),
            );
        run(&mut cmd, "install.sh (no cargo)")
    };
    assert!(o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("cargo (Rust) is not installed"), "{err}");
    assert!(err.contains("SHA-256 checked"), "{err}");
    assert!(h2.home.join(".local/bin/tabwire").is_file());
}
