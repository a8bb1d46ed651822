//! `tabwire` command line: dispatch to serve, native-host, install,
//! uninstall and doctor.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use rmcp::ServiceExt;

use tabwire::audit::{self, AuditLog};
use tabwire::backend::auto::{AutoBackend, DirectConfig, Mode};
use tabwire::backend::direct::launch::LaunchOptions;
use tabwire::backend::extension::{ExtensionBackend, ExtensionOptions};
use tabwire::backend::Backend;
use tabwire::policy::{Policy, PolicyArgs};
use tabwire::{broker, frame, host, install, server::TabwireServer, tools::Session};

#[derive(Parser)]
#[command(
    name = "tabwire",
    version,
    about = "Drive your real Chrome from any MCP client"
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq)]
enum BackendChoice {
    /// The extension when it is connected, else tabwire's own browser over CDP.
    Auto,
    /// Only the tabwire extension in your running browser.
    Extension,
    /// Only CDP: a browser tabwire launches (or the one at --cdp-url).
    Cdp,
}

#[derive(clap::Args, Clone)]
struct ServeArgs {
    /// Which browser to drive.
    #[arg(long, value_enum, default_value = "auto")]
    backend: BackendChoice,
    /// Seconds the first call waits for the extension before `auto` falls back to CDP.
    #[arg(long, default_value_t = 2.0)]
    extension_grace: f64,
    /// Seconds a call waits for the extension to connect with `--backend extension`.
    #[arg(long, default_value_t = 10.0)]
    connect_timeout: f64,
    /// Seconds any single browser command may take.
    #[arg(long, default_value_t = 30.0)]
    call_timeout: f64,
    /// Largest message accepted on the local socket, in bytes.
    #[arg(long, default_value_t = frame::DEFAULT_MAX_FRAME)]
    max_frame: usize,
    /// CDP fallback: attach to this browser (ws://… or http://host:port) instead of launching one.
    #[arg(long)]
    cdp_url: Option<String>,
    /// CDP fallback: the browser executable to launch (default: search standard locations).
    #[arg(long)]
    browser_path: Option<PathBuf>,
    /// CDP fallback: an extra browser flag (repeatable), e.g. --browser-arg=--lang=en.
    #[arg(long = "browser-arg", allow_hyphen_values = true)]
    browser_args: Vec<String>,
    /// CDP fallback: run the launched browser headless even when a display exists.
    #[arg(long)]
    headless: bool,
    #[command(flatten)]
    policy: PolicyArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Run the MCP server on stdin/stdout (what MCP clients launch).
    Serve(Box<ServeArgs>),
    /// The native-messaging host Chrome starts for the extension.
    NativeHost {
        /// The calling extension's origin (Chrome passes it).
        origin: String,
        /// Largest message accepted from Chrome or a server, in bytes.
        #[arg(long, default_value_t = frame::DEFAULT_MAX_FRAME)]
        max_frame: usize,
    },
    /// Show the audit log of tool calls.
    Audit {
        /// How many of the latest entries to show.
        #[arg(long, default_value_t = 20)]
        tail: usize,
        /// Only calls from this MCP client (its name).
        #[arg(long)]
        client: Option<String>,
    },
    /// Register the native host with every Chromium-family browser found,
    /// place the extension, and print how to finish setup.
    Install {
        /// Register with this browser only (repeatable), e.g. chrome, chromium, edge, brave,
        /// vivaldi, opera, chrome-beta. Default: every browser found.
        #[arg(long = "browser", value_name = "NAME")]
        browsers: Vec<String>,
        /// Register into this one profile (a browser run with --user-data-dir) and nothing else.
        #[arg(long)]
        user_data_dir: Option<PathBuf>,
        /// Also add tabwire to this MCP client's config (repeatable): claude-code,
        /// claude-desktop, cursor, vscode, codex, windsurf. Shows the change; keeps a backup.
        #[arg(long = "client", value_name = "NAME")]
        clients: Vec<String>,
        /// Print what would be done; write nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Remove exactly what `tabwire install` created.
    Uninstall {
        /// Remove only the registration in this profile.
        #[arg(long)]
        user_data_dir: Option<PathBuf>,
        /// Print what would be removed; remove nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Check the setup and explain what is wrong (exit status 1 if something needs fixing).
    Doctor {
        /// Check this browser only (repeatable). Default: every browser found.
        #[arg(long = "browser", value_name = "NAME")]
        browsers: Vec<String>,
        /// Check the registration in this profile (a browser run with --user-data-dir).
        #[arg(long)]
        user_data_dir: Option<PathBuf>,
        /// Machine-readable output on stdout.
        #[arg(long)]
        json: bool,
    },
}

fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("tabwire=info"));
    // stdout is protocol-only in both serve and native-host: logs go to stderr.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .init();
}

/// Chrome runs the manifest's `path` with the origin as its first argument
/// (Windows adds `--parent-window=N`): treat that as `native-host <origin>`.
fn bare_host_origin() -> Option<String> {
    std::env::args()
        .nth(1)
        .filter(|a| a.starts_with("chrome-extension://"))
}

fn main() {
    init_logging();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let code = runtime.block_on(run());
    // Do not wait for the blocking stdin reader thread: exit now.
    std::process::exit(code);
}

async fn run() -> i32 {
    if let Some(origin) = bare_host_origin() {
        return run_host(origin, frame::DEFAULT_MAX_FRAME).await;
    }
    let cli = Cli::parse();
    let command = match cli.command {
        Some(c) => c,
        // Bare `tabwire` serves with defaults (what an MCP client may run).
        None => match Cli::try_parse_from(["tabwire", "serve"]) {
            Ok(Cli {
                command: Some(c), ..
            }) => c,
            _ => unreachable!("`tabwire serve` parses"),
        },
    };
    match command {
        Command::Serve(args) => run_serve(*args).await,
        Command::NativeHost { origin, max_frame } => run_host(origin, max_frame).await,
        Command::Audit { tail, client } => {
            for e in audit::tail(&audit::default_path(), tail, client.as_deref()) {
                println!("{}", audit::format_line(&e));
            }
            0
        }
        Command::Install {
            browsers,
            user_data_dir,
            clients,
            dry_run,
        } => {
            let opts = install::InstallOptions {
                browsers,
                user_data_dir,
                clients,
                dry_run,
                binary: None,
            };
            with_env("install", |env| {
                install::install(&opts, env, &mut std::io::stdout())
            })
        }
        Command::Uninstall {
            user_data_dir,
            dry_run,
        } => {
            let opts = install::UninstallOptions {
                user_data_dir,
                dry_run,
            };
            with_env("uninstall", |env| {
                install::uninstall(&opts, env, &mut std::io::stdout())
            })
        }
        Command::Doctor {
            browsers,
            user_data_dir,
            json,
        } => {
            let env = match install::Env::from_process() {
                Ok(env) => env,
                Err(e) => {
                    eprintln!("tabwire doctor: {e}");
                    return 1;
                }
            };
            let opts = install::doctor::DoctorOptions {
                browsers,
                user_data_dir,
            };
            let report = install::doctor::run(&opts, &env).await;
            if json {
                println!("{}", report.to_json());
            } else {
                print!("{}", report.to_text());
            }
            report.exit_code()
        }
    }
}

/// Runs an install-family command with the real environment; errors go to
/// stderr with exit status 1.
fn with_env(what: &str, f: impl FnOnce(&install::Env) -> Result<(), install::InstallError>) -> i32 {
    match install::Env::from_process().and_then(|env| f(&env)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tabwire {what}: {e}");
            1
        }
    }
}

async fn run_host(origin: String, max_frame: usize) -> i32 {
    let opts = host::HostOptions {
        runtime_dir: broker::dir::runtime_dir_path(),
        max_frame,
    };
    match host::run(&origin, opts).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("tabwire native-host: {e}");
            1
        }
    }
}

async fn run_serve(args: ServeArgs) -> i32 {
    let policy = match Policy::load(&args.policy) {
        Ok(p) => Arc::new(p),
        Err(e) => {
            eprintln!("tabwire serve: {e}");
            return 1;
        }
    };
    let mode = match args.backend {
        BackendChoice::Auto => Mode::Auto,
        BackendChoice::Extension => Mode::Extension,
        BackendChoice::Cdp => Mode::Cdp,
    };
    let call_timeout = Duration::from_secs_f64(args.call_timeout.max(0.1));

    // The socket for the native host exists unless only CDP is wanted.
    let mut socket = None;
    let mut ext = None;
    if mode != Mode::Cdp {
        let dir = match broker::dir::ensure_runtime_dir(&broker::dir::runtime_dir_path()) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("tabwire serve: {e}");
                return 1;
            }
        };
        broker::remove_stale_sockets(&dir).await;
        let listening = match broker::listen(&dir) {
            Ok(s) => Arc::new(s),
            Err(e) => {
                eprintln!("tabwire serve: could not listen in {}: {e}", dir.display());
                return 1;
            }
        };
        tracing::info!(socket = %listening.path.display(), "serve listening for the native host");
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos();
        ext = Some(ExtensionBackend::start(
            listening.clone(),
            ExtensionOptions {
                server_id: format!("{}-{started}", std::process::id()),
                connect_timeout: Duration::from_secs_f64(args.connect_timeout.max(0.0)),
                call_timeout,
                max_frame: args.max_frame,
                policy: policy.for_extension(),
            },
        ));
        socket = Some(listening);
    }
    let direct = match args.cdp_url {
        Some(url) => DirectConfig::Attach(url),
        None => DirectConfig::Launch(LaunchOptions {
            browser_path: args.browser_path,
            extra_args: args.browser_args,
            headless: args.headless,
            profile_dir: None,
        }),
    };
    let backend = Arc::new(AutoBackend::new(
        mode,
        ext,
        direct,
        Duration::from_secs_f64(args.extension_grace.max(0.0)),
        call_timeout,
    ));
    let session = Session::new(backend.clone(), policy);
    session.set_script_timeout(
        call_timeout
            .saturating_sub(Duration::from_millis(500))
            .max(Duration::from_millis(100)),
    );
    let audit = Arc::new(AuditLog::new(
        audit::default_path(),
        audit::DEFAULT_MAX_BYTES,
    ));
    let remove_socket = || {
        if let Some(s) = &socket {
            let _ = std::fs::remove_file(&s.path);
        }
    };
    let service = match TabwireServer::new(session, audit)
        .serve(rmcp::transport::stdio())
        .await
    {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "MCP session did not start");
            remove_socket();
            return 1;
        }
    };
    tokio::select! {
        r = service.waiting() => {
            if let Err(e) = r {
                tracing::warn!(error = %e, "MCP session ended with an error");
            }
        }
        _ = shutdown_signal() => tracing::info!("signal received; shutting down"),
    }
    remove_socket();
    backend.shutdown().await;
    0
}

#[cfg(unix)]
async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

#[cfg(not(unix))]
async fn shutdown_signal() {
    let _ = tokio::signal::ctrl_c().await;
}
