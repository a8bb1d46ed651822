//! Assembling a server from its flags: the policy, the socket the native
//! host connects to, the backends, the per-client state (Client) and the audit
//! log. Shared by `tabwire serve` (an MCP client on stdio) and `tabwire
//! call` (one tool from a shell).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::ValueEnum;

use crate::audit::{self, AuditLog};
use crate::backend::auto::{AutoBackend, DirectConfig, Mode};
use crate::backend::direct::launch::LaunchOptions;
use crate::backend::extension::{ExtensionBackend, ExtensionOptions};
use crate::backend::Backend;
use crate::broker;
use crate::page::signin::storage_state::StorageState;
use crate::page::Client;
use crate::policy::{Policy, PolicyArgs};
use crate::wire;

#[derive(Debug, Clone, Copy, ValueEnum, PartialEq)]
pub enum BackendChoice {
    /// The extension when it is connected, else tabwire's own browser over CDP.
    Auto,
    /// Only the tabwire extension in your running browser.
    Extension,
    /// Only CDP: a browser tabwire launches (or the one at --cdp-url).
    Cdp,
}

#[derive(clap::Args, Clone, Debug)]
pub struct ServeArgs {
    /// Which browser to drive (serve: auto; call: extension).
    #[arg(long, value_enum)]
    pub backend: Option<BackendChoice>,
    /// Seconds the first call waits for the extension before `auto` falls back to CDP.
    #[arg(long, default_value_t = 2.0)]
    pub extension_grace: f64,
    /// Seconds a call waits for the extension to connect with `--backend extension`.
    #[arg(long, default_value_t = 10.0)]
    pub connect_timeout: f64,
    /// Seconds any single browser command may take.
    #[arg(long, default_value_t = 30.0)]
    pub call_timeout: f64,
    /// Largest message accepted on the local socket, in bytes.
    #[arg(long, default_value_t = wire::DEFAULT_MAX_FRAME)]
    pub max_frame: usize,
    /// CDP fallback: attach to this browser (ws://… or http://host:port) instead of launching one.
    #[arg(long)]
    pub cdp_url: Option<String>,
    /// CDP fallback: the browser executable to launch (default: search standard locations).
    #[arg(long)]
    pub browser_path: Option<PathBuf>,
    /// CDP fallback: an extra browser flag (repeatable), e.g. --browser-arg=--lang=en.
    #[arg(long = "browser-arg", allow_hyphen_values = true)]
    pub browser_args: Vec<String>,
    /// CDP fallback: run the launched browser headless even when a display exists.
    #[arg(long)]
    pub headless: bool,
    /// CDP fallback: launch the browser without WebMCP (pages' own tool
    /// registry, on by default); page tools then come from tabwire's shim.
    #[arg(long)]
    pub no_webmcp: bool,
    /// CDP fallback: sign in from this storage-state file (what
    /// browser_storage_state or Playwright saved): its cookies and
    /// localStorage are loaded before the browser's first page. Never
    /// loaded into your own browser.
    #[arg(long, value_name = "FILE")]
    pub storage_state: Option<PathBuf>,
    /// CDP fallback: give every tab a virtual authenticator (WebAuthn), so
    /// sites' passkey sign-up and sign-in work; its passkeys are saved with
    /// browser_storage_state. On by itself when --storage-state holds passkeys.
    #[arg(long)]
    pub virtual_authenticator: bool,
    #[command(flatten)]
    pub policy: PolicyArgs,
}

/// A running server's parts.
pub struct App {
    pub client: Client,
    pub backend: Arc<AutoBackend>,
    pub audit: Arc<AuditLog>,
    /// The socket the native host connects to (None with `--backend cdp`).
    socket: Option<PathBuf>,
}

impl App {
    /// Builds everything `args` asks for; `default_backend` applies when
    /// `--backend` is not given. `server_id` names this server to the
    /// extension, which keeps tab ownership per id (None: unique per process).
    /// `client_name`: the client's name when known before it connects.
    pub async fn build(
        args: &ServeArgs,
        default_backend: BackendChoice,
        server_id: Option<String>,
        client_name: Option<String>,
    ) -> Result<Self, String> {
        let policy = Arc::new(Policy::load(&args.policy)?);
        let start_state = args
            .storage_state
            .as_deref()
            // Read and checked before anything starts.
            .map(|p| {
                StorageState::read(p)
                    .map_err(|why| format!("--storage-state {}: {why}", p.display()))
            })
            .transpose()?;
        let mode = match args.backend.unwrap_or(default_backend) {
            BackendChoice::Auto => Mode::Auto,
            BackendChoice::Extension => Mode::Extension,
            BackendChoice::Cdp => Mode::Cdp,
        };
        let call_timeout = Duration::from_secs_f64(args.call_timeout.max(0.1));
        let audit = Arc::new(AuditLog::new(
            audit::default_path(),
            audit::DEFAULT_MAX_BYTES,
        ));

        // The socket for the native host exists unless only CDP is wanted.
        let mut socket = None;
        let mut ext = None;
        if mode != Mode::Cdp {
            let dir = broker::dir::ensure_runtime_dir(&broker::dir::runtime_dir_path())
                .map_err(|e| e.to_string())?;
            broker::remove_stale_sockets(&dir).await;
            let listening = broker::listen(&dir)
                .map_err(|e| format!("could not listen in {}: {e}", dir.display()))?;
            let listening = Arc::new(listening);
            tracing::info!(socket = %listening.path.display(), "listening for the native host");
            let started = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap_or_default()
                .as_nanos();
            ext = Some(ExtensionBackend::start(
                listening.clone(),
                ExtensionOptions {
                    server_id: server_id
                        .unwrap_or_else(|| format!("{}-{started}", std::process::id())),
                    connect_timeout: Duration::from_secs_f64(args.connect_timeout.max(0.0)),
                    call_timeout,
                    max_frame: args.max_frame,
                    policy: policy.for_extension(),
                    audit: Some(audit.clone()),
                    client_name: client_name.clone(),
                },
            ));
            socket = Some(listening.path.clone());
            // Running native hosts list the directory now, not at their
            // next periodic scan.
            let woken = broker::wake::wake_hosts(&dir).await;
            tracing::debug!(hosts = woken, "woke the native hosts");
        }
        let direct = match &args.cdp_url {
            Some(url) => DirectConfig::Attach(url.clone()),
            None => DirectConfig::Launch(LaunchOptions {
                browser_path: args.browser_path.clone(),
                extra_args: args.browser_args.clone(),
                headless: args.headless,
                profile_dir: None,
                webmcp: !args.no_webmcp,
            }),
        };
        let backend = Arc::new(AutoBackend::new(
            mode,
            ext,
            direct,
            Duration::from_secs_f64(args.extension_grace.max(0.0)),
            call_timeout,
        ));
        let client = Client::new(backend.clone(), policy);
        if let Some(name) = &client_name {
            client.set_client_name(name);
        }
        if args.virtual_authenticator {
            client.use_virtual_authenticator();
        }
        if let Some(state) = start_state {
            client.start_with_state(state);
        }
        // Scripts stop a little before the command times out, so the tab
        // stays usable.
        client.set_script_timeout(
            call_timeout
                .saturating_sub(Duration::from_millis(500))
                .max(Duration::from_millis(100)),
        );
        Ok(Self {
            client,
            backend,
            audit,
            socket,
        })
    }

    /// Removes the socket and closes a browser this server launched.
    pub async fn shutdown(&self) {
        if let Some(path) = &self.socket {
            let _ = std::fs::remove_file(path);
        }
        self.backend.shutdown().await;
    }
}
