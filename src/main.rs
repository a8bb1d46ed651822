//! `tabwire` command line: dispatch to serve, native-host and install.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{Parser, Subcommand, ValueEnum};
use rmcp::ServiceExt;

use tabwire::backend::extension::{ExtensionBackend, ExtensionOptions};
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
    /// Use the extension (the CDP fallback is not built yet, so this equals `extension`).
    Auto,
    /// Only the tabwire extension in your running browser.
    Extension,
}

#[derive(Subcommand)]
enum Command {
    /// Run the MCP server on stdin/stdout (what MCP clients launch).
    Serve {
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendChoice,
        /// Seconds the first tool call waits for the browser extension to connect.
        #[arg(long, default_value_t = 10.0)]
        connect_timeout: f64,
        /// Seconds any single browser command may take.
        #[arg(long, default_value_t = 30.0)]
        call_timeout: f64,
        /// Largest message accepted on the local socket, in bytes.
        #[arg(long, default_value_t = frame::DEFAULT_MAX_FRAME)]
        max_frame: usize,
    },
    /// The native-messaging host Chrome starts for the extension.
    NativeHost {
        /// The calling extension's origin (Chrome passes it).
        origin: String,
        /// Largest message accepted from Chrome or a server, in bytes.
        #[arg(long, default_value_t = frame::DEFAULT_MAX_FRAME)]
        max_frame: usize,
    },
    /// Register the native host with a browser.
    Install {
        /// Browser to register with: chromium or chrome.
        #[arg(long, default_value = "chromium")]
        browser: String,
        /// Register into this user data dir (for custom profiles and tests).
        #[arg(long)]
        user_data_dir: Option<PathBuf>,
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
    match cli.command.unwrap_or(Command::Serve {
        backend: BackendChoice::Auto,
        connect_timeout: 10.0,
        call_timeout: 30.0,
        max_frame: frame::DEFAULT_MAX_FRAME,
    }) {
        Command::Serve {
            backend: _,
            connect_timeout,
            call_timeout,
            max_frame,
        } => run_serve(connect_timeout, call_timeout, max_frame).await,
        Command::NativeHost { origin, max_frame } => run_host(origin, max_frame).await,
        Command::Install {
            browser,
            user_data_dir,
        } => match install::install(&browser, user_data_dir.as_deref()) {
            Ok(path) => {
                eprintln!(
                    "tabwire: registered native host for {browser} at {}",
                    path.display()
                );
                0
            }
            Err(e) => {
                eprintln!("tabwire: install failed: {e}");
                1
            }
        },
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

async fn run_serve(connect_timeout: f64, call_timeout: f64, max_frame: usize) -> i32 {
    let dir = match broker::dir::ensure_runtime_dir(&broker::dir::runtime_dir_path()) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("tabwire serve: {e}");
            return 1;
        }
    };
    broker::remove_stale_sockets(&dir).await;
    let socket = match broker::listen(&dir) {
        Ok(s) => Arc::new(s),
        Err(e) => {
            eprintln!("tabwire serve: could not listen in {}: {e}", dir.display());
            return 1;
        }
    };
    tracing::info!(socket = %socket.path.display(), "serve listening for the native host");
    let started = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default()
        .as_nanos();
    let backend = ExtensionBackend::start(
        socket.clone(),
        ExtensionOptions {
            server_id: format!("{}-{started}", std::process::id()),
            connect_timeout: Duration::from_secs_f64(connect_timeout.max(0.0)),
            call_timeout: Duration::from_secs_f64(call_timeout.max(0.1)),
            max_frame,
        },
    );
    let session = Session::new(Arc::new(backend));
    let service = match TabwireServer::new(session)
        .serve(rmcp::transport::stdio())
        .await
    {
        Ok(s) => s,
        Err(e) => {
            tracing::error!(error = %e, "MCP session did not start");
            let _ = std::fs::remove_file(&socket.path);
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
    let _ = std::fs::remove_file(&socket.path);
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
