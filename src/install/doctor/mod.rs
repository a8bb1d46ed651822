//! `tabwire doctor`: checks every link of the chain — host manifests and
//! the binary they name, browser policy, the socket directory, running
//! servers and the extension behind them, the CDP fallback — and says for
//! each what is wrong and how to fix it.
//!
//! One file per job: `report` (the checks' verdicts, as text or JSON),
//! `placed` (what `tabwire install` placed), `manifests` (where each
//! browser reads the host registration, and the manifest and binary found
//! there), `policy` (browser policies that block per-user hosts), `servers`
//! (the socket directory and the serves in it, with the extension behind
//! them), `fallback` (the browser for the CDP fallback) and `wsl` (inside
//! WSL: the Windows side that lets Windows Chrome reach the distribution).
//! This file runs them in order.

mod fallback;
mod manifests;
mod placed;
mod policy;
mod report;
mod servers;
mod wsl;

pub use policy::policy_blocks;
pub use report::{Check, Report, Status};
pub use servers::query_serve;

use std::path::{Path, PathBuf};

use super::record::{self, Record};
use super::source::{self, Source};
use super::{this_binary, Env};
use fallback::fallback_check;
use manifests::{manifest_checks, targets};
use placed::{extension_files_check, install_check};
use policy::policy_checks;
use servers::{runtime_dir_check, server_checks};

#[derive(Debug, Clone, Default)]
pub struct DoctorOptions {
    /// `--browser`: check these (default: every detected browser).
    pub browsers: Vec<String>,
    /// `--user-data-dir`: check the registration in this profile.
    pub user_data_dir: Option<PathBuf>,
}

/// Runs every check.
pub async fn run(opts: &DoctorOptions, env: &Env) -> Report {
    let mut checks = Vec::new();
    let me = this_binary().ok();
    let record = Record::load(&record::path(env.os, &env.data_dir))
        .ok()
        .flatten();
    checks.push(Check::new(
        "binary",
        Status::Info,
        "this tabwire",
        me.as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "its own path is unknown".into()),
    ));
    checks.push(install_check(env, me.as_deref(), record.as_ref()));
    // Fixes name the commands as this install runs them (`npx tabwire …`).
    let source = me
        .as_deref()
        .map(|m| Source::detect(env.os, env.launcher.as_deref(), m, &env.cargo_bin));
    let targets = match targets(opts, env) {
        Ok(t) => t,
        Err(e) => {
            checks.push(Check::new("browsers", Status::Fail, "browsers", e));
            return Report::new(checks);
        }
    };
    // The host `tabwire install` from this binary registers: its copy in
    // the data directory, or (--user-data-dir) the one beside it.
    let expected_host = if opts.user_data_dir.is_some() {
        me.as_deref()
            .map(|m| super::host_binary(env.os, m, Path::is_file))
    } else {
        Some(source::host_path(env.os, &env.data_dir))
    };
    match &env.wsl {
        // Inside WSL: the Windows side too. With no Linux browser to check,
        // Windows Chrome (through the relay) is the browser, so its links
        // are failures when broken and the Linux "no browser found" is not
        // said; beside a Linux browser they are warnings.
        Some(here) => {
            let linux_browsers = targets.iter().any(|t| t.expected);
            if linux_browsers {
                checks.extend(manifest_checks(&targets, me.as_deref(), expected_host));
            }
            let runtime_dir = crate::broker::dir::runtime_dir_path();
            let expect = wsl::Expect {
                binary: me.as_deref(),
                runtime_dir: &runtime_dir,
                severity: if linux_browsers {
                    Status::Warn
                } else {
                    Status::Fail
                },
            };
            checks.extend(wsl::wsl_checks(
                &crate::wsl::interop::SystemInterop,
                here,
                &expect,
            ));
        }
        None => checks.extend(manifest_checks(&targets, me.as_deref(), expected_host)),
    }
    checks.extend(policy_checks(&targets, env));
    checks.push(extension_files_check(env));
    let (dir_check, dir) = runtime_dir_check();
    checks.push(dir_check);
    // With no (safe) socket directory there are no servers to ask.
    checks.extend(server_checks(dir.as_deref()).await);
    checks.push(fallback_check());
    if let Some(source) = source {
        for c in &mut checks {
            c.fix = c.fix.take().map(|f| source.commands_in(&f));
        }
    }
    Report::new(checks)
}
