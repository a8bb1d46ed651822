//! `tabwire install` and `tabwire uninstall`: work out what to write, show
//! it, write it (unless `--dry-run`), and record it for uninstall.
//!
//! One file per job: `install` (the install flow: what to register where),
//! `uninstall` (removing what install recorded), `writer` (writing files,
//! or only planning them in a dry run), `client_config` (tabwire in and out
//! of one MCP client's config) and `next_steps` (what install prints last).

use std::path::{Path, PathBuf};

use super::browsers::{self, Browser, Evidence};
use super::Env;

/// Appends human output; writes to stdout can only fail if stdout is gone.
macro_rules! say {
    ($out:expr) => {{ let _ = writeln!($out); }};
    ($out:expr, $($arg:tt)*) => {{ let _ = writeln!($out, $($arg)*); }};
}

mod client_config;
mod install;
mod next_steps;
mod uninstall;
mod writer;

pub use install::{install, launch_for};
pub use uninstall::uninstall;

#[derive(Debug, Clone, Default)]
pub struct InstallOptions {
    /// `--browser`: register with these (default: every detected browser).
    pub browsers: Vec<String>,
    /// `--user-data-dir`: register into this one profile only.
    pub user_data_dir: Option<PathBuf>,
    /// `--client`: write tabwire into these MCP clients' config files.
    pub clients: Vec<String>,
    pub dry_run: bool,
    /// The tabwire binary to register (default: this program); the host
    /// browsers start is the `tabwire-host` beside it (see [`super::host_binary`]).
    pub binary: Option<PathBuf>,
}

#[derive(Debug, Clone, Default)]
pub struct UninstallOptions {
    /// `--user-data-dir`: remove only the registration in this profile.
    pub user_data_dir: Option<PathBuf>,
    pub dry_run: bool,
}

/// Browsers and evidence, for doctor.
pub fn detected(env: &Env) -> Vec<(&'static Browser, Evidence)> {
    browsers::detect_all(env, &|p: &Path| p.exists())
}
