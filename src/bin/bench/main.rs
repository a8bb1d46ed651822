//! `bench`: tabwire's benchmark runner.
//!
//! - micro: frame codec throughput; round trips and an 8 MiB transfer
//!   through the real native host (`tabwire-host`) against a raw native-messaging
//!   pipe; `getFullAXTree` against the in-page snapshot engine on fixture pages.
//! - macro: a scripted MCP client runs a 15-step scenario against a local
//!   fixture site on `tabwire serve --backend extension` (headless Chromium
//!   with the real extension) and `--backend cdp`, and with `--peers` on
//!   playwright-mcp and chrome-devtools-mcp from npm, alternating runs.
//!
//! Prints tables on stdout, progress on stderr, and writes everything as
//! JSON to `bench/results/<time>.json`. Numbers are reported, never judged:
//! the exit status is non-zero only when a correctness check of one of
//! tabwire's steps fails (or the bench cannot run at all).
//!
//! `cargo run --release --features bench --bin bench -- --help`

mod ax;
mod mcp;
mod micro;
mod peers;
mod procs;
mod report;
mod scenario;
mod site;
mod stats;

use std::path::{Path, PathBuf};

use clap::{Parser, ValueEnum};
use serde_json::{json, Value};

use procs::Chromium;
use scenario::{Dialect, STEPS};

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum, Debug)]
enum Backends {
    Extension,
    Cdp,
    Both,
    None,
}

#[derive(Parser, Debug)]
#[command(
    name = "bench",
    about = "tabwire benchmarks: micro, macro scenario, peers"
)]
struct Args {
    /// tabwire backends to run the scenario on.
    #[arg(long, value_enum, default_value = "both")]
    backend: Backends,
    /// Measured runs of the scenario per server (after the warm-up).
    #[arg(long, default_value_t = 20)]
    iterations: usize,
    /// Unmeasured runs first (browser start, caches).
    #[arg(long, default_value_t = 2)]
    warmup: usize,
    /// Also run playwright-mcp and chrome-devtools-mcp (npm, cached in bench/.cache).
    #[arg(long)]
    peers: bool,
    /// Skip the micro benchmarks.
    #[arg(long)]
    skip_micro: bool,
    /// Round trips measured in the relay micro benchmark.
    #[arg(long, default_value_t = 2000)]
    round_trips: usize,
    /// Fresh processes measured for spawn → initialize.
    #[arg(long, default_value_t = 5)]
    spawn_samples: usize,
    /// The Chromium every server drives.
    #[arg(long, default_value = "/usr/lib/chromium/chromium")]
    chromium: PathBuf,
    /// The tabwire binary to measure (default: the one built next to this bench).
    #[arg(long)]
    tabwire: Option<PathBuf>,
    /// Where the JSON result goes.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also run the extension in a second Chromium started with
    /// --silent-debugger-extension-api (no "started debugging this
    /// browser" bar). Chrome hides and re-adds that bar after every
    /// navigation of a debugged tab (the page is resized twice within
    /// ~150 ms): this measures what the bar costs. A user's browser shows
    /// the bar, so the headline row keeps it.
    #[arg(long)]
    no_debugging_bar: bool,
    /// Keep the work directory (every server's stderr log) and print its
    /// path; with RUST_LOG=tabwire::cdp=debug the tabwire logs time each
    /// CDP command.
    #[arg(long)]
    keep_logs: bool,
    /// Internal: play the extension on stdio for the relay benchmark.
    #[arg(long, hide = true)]
    fake_extension: bool,
}

fn main() {
    let args = Args::parse();
    if args.fake_extension {
        std::process::exit(micro::fake_extension());
    }
    procs::mark_environment();
    // Even a panic must not leave browsers or servers behind.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        procs::kill_marked();
    }));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let code = runtime.block_on(async {
        tokio::select! {
            code = run(args) => code,
            _ = tokio::signal::ctrl_c() => {
                eprintln!("\nbench: interrupted");
                130
            }
        }
    });
    procs::kill_marked();
    std::process::exit(code);
}

/// One server the scenario runs against.
struct Target {
    label: &'static str,
    dialect: Dialect,
    /// Builds the command that starts the server.
    command: Box<dyn Fn() -> tokio::process::Command>,
    /// The runtime dir whose native host to measure (extension backend).
    runtime: Option<PathBuf>,
    version: String,
    /// Keeps the extension's browser alive for the target's lifetime.
    _browser: Option<Chromium>,
    is_ours: bool,
}

/// What the macro run measured for one target.
#[derive(Default)]
pub struct Measured {
    pub label: String,
    pub version: String,
    pub is_ours: bool,
    pub spawn_init_ms: Vec<f64>,
    pub tools: usize,
    pub tools_list_bytes: usize,
    /// Per step: the elapsed ms of each measured run.
    pub step_ms: Vec<Vec<f64>>,
    /// Per step: answer bytes of each measured run.
    pub step_bytes: Vec<Vec<usize>>,
    pub server_mem: Option<procs::Memory>,
    pub host_mem: Option<procs::Memory>,
    pub error: Option<String>,
}

async fn run(args: Args) -> i32 {
    let work = match tempfile::Builder::new().prefix("tabwire-bench-").tempdir() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("bench: temp dir: {e}");
            return 2;
        }
    };
    if !args.chromium.exists() {
        eprintln!(
            "bench: Chromium not found at {} (apt-get install -y chromium, or pass --chromium)",
            args.chromium.display()
        );
        return 2;
    }
    let found = match &args.tabwire {
        Some(p) => Ok(p.clone()),
        None => procs::tabwire_binary(),
    };
    let tabwire = match found {
        Ok(b) => b,
        Err(e) => {
            eprintln!("bench: {e}");
            return 2;
        }
    };
    let site = match site::Site::start() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("bench: fixture site: {e}");
            return 2;
        }
    };

    let mut result = json!({
        "when": tabwire::audit::rfc3339_now(),
        "machine": machine(&args.chromium),
        "git": git_commit(),
        "config": {
            "backend": format!("{:?}", args.backend).to_lowercase(),
            "iterations": args.iterations,
            "warmup": args.warmup,
            "peers": args.peers,
            "spawn_samples": args.spawn_samples,
        },
    });

    if !args.skip_micro {
        result["micro"] = micro_all(&args, &tabwire, &site, work.path()).await;
        report::print_micro(&result["micro"]);
    }

    let mut exit = 0;
    if args.backend != Backends::None || args.peers {
        let measured = macro_all(&args, &tabwire, &site, work.path()).await;
        if measured.iter().any(|m| m.is_ours && m.error.is_some()) {
            exit = 1;
        }
        report::print_macro(&measured, args.iterations, args.warmup);
        result["macro"] = report::macro_json(&measured);
    }

    let dir = args
        .out
        .clone()
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/results"));
    let name = format!(
        "{}.json",
        result["when"]
            .as_str()
            .unwrap_or("result")
            .replace(':', "-")
    );
    let path = dir.join(name);
    let written = std::fs::create_dir_all(&dir).and_then(|_| {
        std::fs::write(
            &path,
            serde_json::to_string_pretty(&result).unwrap_or_default() + "\n",
        )
    });
    match written {
        Ok(()) => eprintln!("bench: wrote {}", path.display()),
        Err(e) => {
            eprintln!("bench: could not write {}: {e}", path.display());
            exit = exit.max(2);
        }
    }
    if args.keep_logs {
        eprintln!("bench: logs kept in {}", work.keep().display());
    }
    exit
}

async fn micro_all(args: &Args, tabwire: &Path, site: &site::Site, work: &Path) -> Value {
    progress("micro: frame codec");
    let codec: Vec<Value> = tokio::task::spawn_blocking(|| {
        [1 << 10, 1 << 20, 8 << 20]
            .into_iter()
            .map(micro::codec)
            .collect()
    })
    .await
    .unwrap_or_default();
    progress("micro: relay through native-host vs raw pipe");
    let relay = {
        let (tabwire, work, n) = (tabwire.to_path_buf(), work.to_path_buf(), args.round_trips);
        tokio::task::spawn_blocking(move || micro::relay(&tabwire, &work, n))
            .await
            .unwrap_or_else(|e| Err(e.to_string()))
    };
    progress("micro: snapshots of fixture pages");
    let snaps = micro::snapshots(&args.chromium, site, work).await;
    progress("micro: the browser's own navigation time");
    let floor = micro::navigation_floor(&args.chromium, site, work, args.iterations).await;
    progress_done();
    json!({
        "codec": codec,
        "relay": relay.unwrap_or_else(|e| json!({"error": e})),
        "snapshot": snaps.unwrap_or_else(|e| json!({"error": e})),
        "navigation_floor": floor.unwrap_or_else(|e| json!({"error": e})),
    })
}

fn progress(msg: &str) {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K{msg}");
    } else {
        eprintln!("{msg}");
    }
}

fn progress_done() {
    use std::io::IsTerminal;
    if std::io::stderr().is_terminal() {
        eprint!("\r\x1b[2K");
    }
}

fn serve_command(
    tabwire: &Path,
    runtime: &Path,
    data: &Path,
    args: &[String],
) -> tokio::process::Command {
    let mut cmd = tokio::process::Command::new(tabwire);
    cmd.arg("serve")
        .args(args)
        .env("TABWIRE_RUNTIME_DIR", runtime)
        .env("TABWIRE_DATA_DIR", data);
    cmd
}

async fn macro_all(args: &Args, tabwire: &Path, site: &site::Site, work: &Path) -> Vec<Measured> {
    let mut targets: Vec<Target> = Vec::new();
    let mut failed: Vec<Measured> = Vec::new();
    let version = format!("tabwire {}", env!("CARGO_PKG_VERSION"));
    if matches!(args.backend, Backends::Extension | Backends::Both) {
        // The extension in the browser a user has, and (asked for) in a
        // second browser without the debugging bar, alternating with the
        // others so both meet the same machine.
        let mut variants: Vec<(&'static str, &'static str, &[&str])> =
            vec![("tabwire ext", "ext", &[])];
        if args.no_debugging_bar {
            variants.push((
                "tabwire ext, no debugging bar",
                "ext-nobar",
                &["--silent-debugger-extension-api"],
            ));
        }
        for (label, dir, flags) in variants {
            let runtime = work.join(format!("rt-{dir}"));
            let udd = work.join(format!("{dir}-profile"));
            let _ = std::fs::create_dir_all(&udd);
            match Chromium::launch(
                &args.chromium,
                tabwire,
                &udd,
                &runtime,
                &work.join(format!("chromium-{dir}.log")),
                flags,
            ) {
                Ok(browser) => {
                    let (t, r, d) = (
                        tabwire.to_path_buf(),
                        runtime.clone(),
                        work.join(format!("data-{dir}")),
                    );
                    targets.push(Target {
                        label,
                        dialect: Dialect::Tabwire,
                        command: Box::new(move || {
                            serve_command(
                                &t,
                                &r,
                                &d,
                                &[
                                    "--backend".into(),
                                    "extension".into(),
                                    "--connect-timeout".into(),
                                    "30".into(),
                                ],
                            )
                        }),
                        runtime: Some(runtime),
                        version: version.clone(),
                        _browser: Some(browser),
                        is_ours: true,
                    });
                }
                Err(e) => failed.push(Measured {
                    label: label.into(),
                    is_ours: true,
                    error: Some(e),
                    ..Default::default()
                }),
            }
        }
    }
    if matches!(args.backend, Backends::Cdp | Backends::Both) {
        let (t, r, d) = (
            tabwire.to_path_buf(),
            work.join("rt-cdp"),
            work.join("data-cdp"),
        );
        let chromium = args.chromium.display().to_string();
        targets.push(Target {
            label: "tabwire cdp",
            dialect: Dialect::Tabwire,
            command: Box::new(move || {
                let a: Vec<String> = [
                    "--backend",
                    "cdp",
                    "--browser-path",
                    &chromium,
                    "--headless",
                    "--browser-arg=--disable-background-networking",
                    "--browser-arg=--disable-component-update",
                    "--browser-arg=--disable-sync",
                ]
                .iter()
                .map(|s| s.to_string())
                .collect();
                serve_command(&t, &r, &d, &a)
            }),
            runtime: None,
            version: version.clone(),
            _browser: None,
            is_ours: true,
        });
    }
    if args.peers {
        match peers::targets(&args.chromium, work) {
            Ok(p) => targets.extend(p),
            Err(e) => failed.push(Measured {
                label: "peers".into(),
                error: Some(e),
                ..Default::default()
            }),
        }
    }

    // Spawn → initialize, on fresh processes.
    let mut measured: Vec<Measured> = targets
        .iter()
        .map(|t| Measured {
            label: t.label.into(),
            version: t.version.clone(),
            is_ours: t.is_ours,
            step_ms: vec![Vec::new(); STEPS.len()],
            step_bytes: vec![Vec::new(); STEPS.len()],
            ..Default::default()
        })
        .collect();
    for (t, m) in targets.iter().zip(measured.iter_mut()) {
        for i in 0..args.spawn_samples {
            progress(&format!(
                "macro: spawn → initialize {} {}/{}",
                t.label,
                i + 1,
                args.spawn_samples
            ));
            match mcp::Server::start(
                (t.command)(),
                &work.join(format!("spawn-{}.log", slug(t.label))),
            )
            .await
            {
                Ok((s, took)) => {
                    m.spawn_init_ms.push(stats::ms(took));
                    s.stop().await;
                }
                Err(e) => {
                    m.error = Some(format!("could not start: {e}"));
                    break;
                }
            }
        }
    }

    // One long-lived session per target.
    let mut servers: Vec<Option<mcp::Server>> = Vec::new();
    for (t, m) in targets.iter().zip(measured.iter_mut()) {
        if m.error.is_some() {
            servers.push(None);
            continue;
        }
        progress(&format!("macro: starting {}", t.label));
        let server =
            match mcp::Server::start((t.command)(), &work.join(format!("{}.log", slug(t.label))))
                .await
            {
                Ok((s, _)) => s,
                Err(e) => {
                    m.error = Some(format!("could not start: {e}"));
                    servers.push(None);
                    continue;
                }
            };
        match server.tools().await {
            Ok((tools, bytes)) => {
                m.tools = tools.len();
                m.tools_list_bytes = bytes;
                let missing: Vec<_> = t
                    .dialect
                    .needed_tools()
                    .iter()
                    .filter(|n| !tools.iter().any(|tool| tool.name == **n))
                    .collect();
                if !missing.is_empty() {
                    m.error = Some(format!(
                        "tools/list lacks {missing:?}: cannot run the scenario"
                    ));
                }
            }
            Err(e) => m.error = Some(e),
        }
        servers.push(Some(server));
    }

    // Warm-up, then alternating measured runs.
    for round in 0..(args.warmup + args.iterations) {
        let measuring = round >= args.warmup;
        for ((t, m), server) in targets.iter().zip(measured.iter_mut()).zip(&servers) {
            let Some(server) = server else { continue };
            if m.error.is_some() {
                continue;
            }
            let what = if measuring {
                format!("iteration {}/{}", round - args.warmup + 1, args.iterations)
            } else {
                format!("warm-up {}/{}", round + 1, args.warmup)
            };
            progress(&format!("macro: {what} · {}", t.label));
            match scenario::run(server, t.dialect, site).await {
                Ok(r) if measuring => {
                    for (i, c) in r.calls.iter().enumerate() {
                        m.step_ms[i].push(stats::ms(c.elapsed));
                        m.step_bytes[i].push(c.bytes);
                    }
                }
                Ok(_) => {}
                Err(e) => m.error = Some(format!("{what}: {e}")),
            }
        }
    }

    for ((t, m), server) in targets.iter().zip(measured.iter_mut()).zip(servers) {
        let Some(server) = server else { continue };
        m.server_mem = procs::memory(server.pid);
        if let Some(rt) = &t.runtime {
            m.host_mem = procs::native_host_pid(rt).and_then(procs::memory);
        }
        server.stop().await;
    }
    progress_done();
    drop(targets);
    measured.extend(failed);
    measured
}

fn slug(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn machine(chromium: &Path) -> Value {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_default();
    json!({
        "cpus": std::thread::available_parallelism().map(|n| n.get()).unwrap_or(0),
        "cpu": cpu,
        "kernel": std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default().trim(),
        "chromium": procs::chromium_version(chromium),
    })
}

fn git_commit() -> Value {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| Value::from(String::from_utf8_lossy(&o.stdout).trim().to_string()))
        .unwrap_or(Value::Null)
}
