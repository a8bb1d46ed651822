//! `tabwire` command line: dispatch to serve, native-host, install,
//! uninstall and doctor.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
use rmcp::ServiceExt;

use tabwire::app::{App, BackendChoice, ServeArgs};
use tabwire::audit;
use tabwire::{call, host, install, server::TabwireServer, wire};

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

#[derive(Subcommand)]
enum Command {
    /// Run the MCP server on stdin/stdout (what MCP clients launch).
    Serve(Box<ServeArgs>),
    /// Run one tool against your browser and print the result as JSON (exit status 1 on a
    /// tool error). Calls with the same --session share tabs.
    Call(Box<call::CallArgs>),
    /// The native-messaging host Chrome starts for the extension.
    NativeHost {
        /// The calling extension's origin (Chrome passes it).
        origin: String,
        /// Largest message accepted from Chrome or a server, in bytes.
        #[arg(long, default_value_t = wire::DEFAULT_MAX_FRAME)]
        max_frame: usize,
        /// Milliseconds between scans for serves that did not wake the host.
        #[arg(long, hide = true, default_value_t = host::SCAN_INTERVAL.as_millis() as u64)]
        scan_ms: u64,
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

/// Chrome runs the manifest's `path` with the origin as its first argument
/// (Windows adds `--parent-window=N`): treat that as `native-host <origin>`.
fn bare_host_origin() -> Option<String> {
    std::env::args()
        .nth(1)
        .filter(|a| a.starts_with("chrome-extension://"))
}

fn main() {
    tabwire::use_one_malloc_arena();
    // The native host relays bytes; one thread (plus its two stdio threads)
    // is plenty, and keeps the process Chrome starts small.
    let is_host =
        bare_host_origin().is_some() || std::env::args().nth(1).as_deref() == Some("native-host");
    tabwire::logging::init();
    let runtime = if is_host {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
    } else {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
    }
    .expect("tokio runtime");
    let code = runtime.block_on(run());
    // Do not wait for the blocking stdin reader thread: exit now.
    std::process::exit(code);
}

async fn run() -> i32 {
    if let Some(origin) = bare_host_origin() {
        return host::run_as(
            "tabwire native-host",
            &origin,
            wire::DEFAULT_MAX_FRAME,
            host::SCAN_INTERVAL,
        )
        .await;
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
        Command::Call(args) => call::run(*args).await,
        Command::NativeHost {
            origin,
            max_frame,
            scan_ms,
        } => {
            host::run_as(
                "tabwire native-host",
                &origin,
                max_frame,
                std::time::Duration::from_millis(scan_ms),
            )
            .await
        }
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

async fn run_serve(args: ServeArgs) -> i32 {
    let app = match App::build(&args, BackendChoice::Auto, None, None).await {
        Ok(a) => a,
        Err(e) => {
            eprintln!("tabwire serve: {e}");
            return 1;
        }
    };
    let service = match TabwireServer::new(app.client.clone(), app.audit.clone())
        .serve(rmcp::transport::stdio())
        .await
    {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "MCP session did not start");
            app.shutdown().await;
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
    app.shutdown().await;
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
