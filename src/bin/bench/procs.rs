//! Processes the benchmark starts: where the binaries are, a headless
//! Chromium with the extension, memory from `/proc`, and cleanup.
//!
//! Every process the bench starts (and everything those start: browsers,
//! native hosts, node's children) inherits `TABWIRE_BENCH_RUN=<id>` from the
//! bench's own environment; [`kill_marked`] ends all of them, and runs on
//! normal exit, on error and on Ctrl-C.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub const MARK_VAR: &str = "TABWIRE_BENCH_RUN";
pub const EXTENSION_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/extension");
pub const EXTENSION_ORIGIN: &str = "chrome-extension://ebbhhpakakegkmbpbfbllokdfijmbljf/";

/// Flags for headless Chromium as root on this kind of machine.
pub const HEADLESS_FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
];

/// Marks this process's environment so every descendant can be found.
pub fn mark_environment() -> String {
    let id = format!(
        "{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_millis()
    );
    // Set once at start, before any thread that reads the environment.
    std::env::set_var(MARK_VAR, &id);
    id
}

/// Pids (not ours) whose environment carries this run's mark.
pub fn marked_pids() -> Vec<i32> {
    let Ok(mark) = std::env::var(MARK_VAR) else {
        return Vec::new();
    };
    let needle = format!("{MARK_VAR}={mark}");
    pids_where(|_, env| env.split('\0').any(|kv| kv == needle))
}

/// Kills every process this run started, directly or not.
pub fn kill_marked() {
    for _ in 0..3 {
        let pids = marked_pids();
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            // SAFETY: plain kill(2) on a pid we found in /proc.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Pids whose (cmdline, environ), NUL-separated, satisfy `pred`.
pub fn pids_where(pred: impl Fn(&str, &str) -> bool) -> Vec<i32> {
    let me = std::process::id() as i32;
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let env = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if pred(
            &String::from_utf8_lossy(&cmd),
            &String::from_utf8_lossy(&env),
        ) {
            out.push(pid);
        }
    }
    out
}

/// VmRSS and VmHWM of a process, in KiB.
#[derive(Debug, Clone, Copy, Default)]
pub struct Memory {
    pub rss_kib: u64,
    pub hwm_kib: u64,
}

pub fn memory(pid: u32) -> Option<Memory> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
    };
    Some(Memory {
        rss_kib: field("VmRSS:")?,
        hwm_kib: field("VmHWM:")?,
    })
}

/// The `tabwire` binary next to this one. Under `cargo run` it is built
/// first with the same profile (a no-op when fresh), so the bench always
/// measures the code of this checkout.
pub fn tabwire_binary() -> Result<PathBuf, String> {
    let me = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let dir = me.parent().ok_or("bench binary has no directory")?;
    let bin = dir.join("tabwire");
    if let Some(cargo) = std::env::var_os("CARGO") {
        let profile = dir.file_name().and_then(|n| n.to_str()).unwrap_or("debug");
        let profile = if profile == "debug" { "dev" } else { profile };
        eprintln!("bench: building tabwire ({profile} profile) next to the bench binary");
        let status = Command::new(cargo)
            .args(["build", "--locked", "--profile", profile])
            .args(["--features", "bench", "--bin", "tabwire"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .map_err(|e| format!("could not run cargo build: {e}"))?;
        if !status.success() {
            return Err("cargo build --bin tabwire failed".into());
        }
    }
    if bin.exists() {
        Ok(bin)
    } else {
        Err(format!(
            "{} not found: build it with `cargo build --release --features bench` (or run the bench with `cargo run`)",
            bin.display()
        ))
    }
}

/// A headless Chromium with the tabwire extension loaded and the native
/// host registered into its own profile (`tabwire install --user-data-dir`).
/// Killed with its process group on drop.
pub struct Chromium {
    child: Child,
}

impl Chromium {
    pub fn launch(
        chromium: &Path,
        tabwire: &Path,
        udd: &Path,
        runtime: &Path,
        log: &Path,
        extra_flags: &[&str],
    ) -> Result<Self, String> {
        let out = Command::new(tabwire)
            .args(["install", "--browser", "chromium", "--user-data-dir"])
            .arg(udd)
            .stdin(Stdio::null())
            .output()
            .map_err(|e| format!("tabwire install: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "tabwire install failed: {}",
                String::from_utf8_lossy(&out.stderr)
            ));
        }
        let log = std::fs::File::create(log).map_err(|e| e.to_string())?;
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(chromium);
        cmd.args(HEADLESS_FLAGS)
            .args(extra_flags)
            .arg(format!("--user-data-dir={}", udd.display()))
            .arg(format!("--load-extension={EXTENSION_DIR}"))
            .arg(format!("--disable-extensions-except={EXTENSION_DIR}"))
            .arg("about:blank")
            .env("TABWIRE_RUNTIME_DIR", runtime)
            .stdin(Stdio::null())
            .stdout(log.try_clone().map_err(|e| e.to_string())?)
            .stderr(log)
            .process_group(0);
        // SAFETY: prctl is async-signal-safe; the browser dies with the bench.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("launch {}: {e}", chromium.display()))?;
        Ok(Self { child })
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        // SAFETY: the browser leads its own process group.
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// The native host Chromium spawned for our runtime dir, if running.
pub fn native_host_pid(runtime: &Path) -> Option<u32> {
    let needle = format!("TABWIRE_RUNTIME_DIR={}", runtime.display());
    pids_where(|cmd, env| {
        cmd.split('\0')
            .next()
            .is_some_and(|a| a.ends_with("tabwire") || a.ends_with("tabwire-host"))
            && cmd.contains(EXTENSION_ORIGIN)
            && env.split('\0').any(|kv| kv == needle)
    })
    .first()
    .map(|p| *p as u32)
}

/// `Chromium 156.0.…` from the binary.
pub fn chromium_version(chromium: &Path) -> String {
    Command::new(chromium)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|_| "unknown".into())
}
