//! `tabwire install`, `tabwire uninstall` and `tabwire doctor`: registering
//! the native-messaging host with every Chromium-family browser, placing the
//! extension, wiring up MCP clients, and explaining what is wrong.
//!
//! - [`browsers`]  the browser table, detection (pure)
//! - [`host_locations`] where each browser reads the host registration, per
//!   OS (pure)
//! - [`manifest`]  the host manifest: rendering from `nm-manifests/`, checking
//! - [`extension_files`] the extension, embedded in the binary and placed in
//!   tabwire's data directory
//! - [`clients`]   MCP client configuration snippets and safe config edits
//! - [`registry`]  Windows registry commands (built here, run only on Windows)
//! - [`record`]    what install created, so uninstall removes exactly that
//! - [`source`]    how this tabwire was installed (npm, archive, cargo), and
//!   the host copy install registers
//! - [`setup`]     install and uninstall: plan, print, apply
//! - [`doctor`]    the checks behind `tabwire doctor`
//!
//! Inside WSL, install and doctor also do the Windows side (the relay that
//! lets Windows Chrome reach the distribution): see [`crate::wsl`].
//!
//! Paths are computed from an [`Env`] rather than read from the process
//! environment deep inside, so every OS's answers are testable on Linux.

pub mod browsers;
pub mod clients;
pub mod doctor;
pub mod extension_files;
pub mod host_locations;
pub mod manifest;
pub mod record;
pub mod registry;
pub mod setup;
pub mod source;

use std::path::{Path, PathBuf};

pub use setup::{install, uninstall, InstallOptions, UninstallOptions};

/// The operating systems tabwire installs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Os {
    Linux,
    MacOs,
    Windows,
}

impl Os {
    /// The OS this binary was built for (other Unixes are treated as Linux).
    pub fn current() -> Self {
        if cfg!(target_os = "macos") {
            Os::MacOs
        } else if cfg!(windows) {
            Os::Windows
        } else {
            Os::Linux
        }
    }

    pub fn separator(self) -> char {
        match self {
            Os::Windows => '\\',
            Os::Linux | Os::MacOs => '/',
        }
    }
}

/// The directories install and doctor work with, taken from the process
/// environment once ([`Env::from_process`]) or given by tests.
#[derive(Debug, Clone)]
pub struct Env {
    pub os: Os,
    pub home: PathBuf,
    /// Linux: `$XDG_CONFIG_HOME`, else `~/.config`.
    pub config_home: PathBuf,
    /// Windows: `%APPDATA%` (roaming).
    pub app_data: PathBuf,
    /// Windows: `%LOCALAPPDATA%`.
    pub local_app_data: PathBuf,
    /// tabwire's data directory ([`crate::paths::data_dir`]).
    pub data_dir: PathBuf,
    /// `$PATH`, to find browsers installed under a command name.
    pub path_dirs: Vec<PathBuf>,
    /// Windows: Program Files directories.
    pub program_dirs: Vec<PathBuf>,
    /// Codex CLI's home (`$CODEX_HOME`, else `~/.codex`).
    pub codex_home: PathBuf,
    /// Where `cargo install` puts binaries (`$CARGO_INSTALL_ROOT/bin`,
    /// `$CARGO_HOME/bin`, else `~/.cargo/bin`).
    pub cargo_bin: PathBuf,
    /// `$TABWIRE_LAUNCHER`: `npm` when the npm package's launcher runs
    /// tabwire, `archive` when install.sh runs a release archive's binary.
    pub launcher: Option<String>,
    /// Linux inside WSL ([`crate::wsl::Wsl::here`]; None with
    /// `TABWIRE_WSL=0`): install and doctor also do the Windows side, for
    /// Windows Chrome.
    pub wsl: Option<crate::wsl::Wsl>,
}

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error(
        "unknown browser {0:?}. Known browsers: {known}",
        known = browsers::known_names()
    )]
    UnknownBrowser(String),
    #[error(
        "unknown MCP client {0:?}. Known clients: {known}",
        known = clients::known_names()
    )]
    UnknownClient(String),
    #[error("could not find this program's own path: {0}")]
    SelfPath(std::io::Error),
    #[error("no home directory is known (HOME is not set); set HOME or pass --user-data-dir")]
    NoHome,
    #[error("{0}")]
    Usage(String),
    #[error("could not {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Other(String),
}

impl InstallError {
    pub fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> Self {
        let path = path.to_path_buf();
        move |source| InstallError::Io {
            action,
            path,
            source,
        }
    }
}

fn var_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

impl Env {
    /// Reads the real environment.
    pub fn from_process() -> Result<Self, InstallError> {
        let os = Os::current();
        let home = var_path("HOME")
            .or_else(|| var_path("USERPROFILE"))
            .ok_or(InstallError::NoHome)?;
        let config_home = var_path("XDG_CONFIG_HOME")
            .filter(|p| p.is_absolute())
            .unwrap_or_else(|| browsers::join(os, &home, ".config"));
        let app_data =
            var_path("APPDATA").unwrap_or_else(|| browsers::join(os, &home, "AppData/Roaming"));
        let local_app_data =
            var_path("LOCALAPPDATA").unwrap_or_else(|| browsers::join(os, &home, "AppData/Local"));
        let path_dirs = std::env::var_os("PATH")
            .map(|p| std::env::split_paths(&p).collect())
            .unwrap_or_default();
        let program_dirs = ["ProgramFiles", "ProgramFiles(x86)", "ProgramW6432"]
            .iter()
            .filter_map(|v| var_path(v))
            .collect();
        let codex_home =
            var_path("CODEX_HOME").unwrap_or_else(|| browsers::join(os, &home, ".codex"));
        let cargo_bin = var_path("CARGO_INSTALL_ROOT")
            .or_else(|| var_path("CARGO_HOME"))
            .map(|root| browsers::join(os, &root, "bin"))
            .unwrap_or_else(|| browsers::join(os, &home, ".cargo/bin"));
        let launcher = std::env::var(source::LAUNCHER_VAR)
            .ok()
            .filter(|v| !v.is_empty());
        let wsl = match os {
            Os::Linux => crate::wsl::Wsl::here(),
            Os::MacOs | Os::Windows => None,
        };
        Ok(Self {
            os,
            home,
            config_home,
            app_data,
            local_app_data,
            data_dir: crate::paths::data_dir(),
            path_dirs,
            program_dirs,
            codex_home,
            cargo_bin,
            launcher,
            wsl,
        })
    }

    /// A typical environment for `os` with the given home, for tests.
    pub fn for_tests(os: Os, home: &str) -> Self {
        let home = PathBuf::from(home);
        let j = |rel: &str| browsers::join(os, &home, rel);
        let local_app_data = j("AppData/Local");
        let data_dir = match os {
            Os::Linux => j(".local/share/tabwire"),
            Os::MacOs => j("Library/Application Support/tabwire"),
            Os::Windows => browsers::join(os, &local_app_data, "tabwire/data"),
        };
        Self {
            os,
            config_home: j(".config"),
            app_data: j("AppData/Roaming"),
            local_app_data,
            data_dir,
            path_dirs: vec!["/usr/local/bin".into(), "/usr/bin".into()],
            program_dirs: vec![
                PathBuf::from(r"C:\Program Files"),
                PathBuf::from(r"C:\Program Files (x86)"),
            ],
            codex_home: j(".codex"),
            cargo_bin: j(".cargo/bin"),
            launcher: None,
            wsl: None,
            home,
        }
    }
}

/// The program browsers start as the native host: `tabwire-host` next to
/// the tabwire `binary` when it is there (it links only the relay, so the
/// process a browser keeps alive for the extension stays small), else
/// `binary` itself, which runs the host when started with an extension
/// origin as its first argument.
pub fn host_binary(os: Os, binary: &Path, exists: impl Fn(&Path) -> bool) -> PathBuf {
    let name = match os {
        Os::Windows => "tabwire-host.exe",
        Os::Linux | Os::MacOs => "tabwire-host",
    };
    let text = binary.to_string_lossy();
    // Split by the target OS's rules, not the running one's (tests render
    // Windows paths on Linux).
    let cut = match os {
        Os::Windows => text.rfind(['\\', '/']),
        Os::Linux | Os::MacOs => text.rfind('/'),
    };
    let Some(cut) = cut else {
        return binary.to_path_buf();
    };
    let sibling = PathBuf::from(format!("{}{}", &text[..=cut], name));
    if exists(&sibling) {
        sibling
    } else {
        binary.to_path_buf()
    }
}

/// The absolute path of the running tabwire binary.
pub fn this_binary() -> Result<PathBuf, InstallError> {
    let path = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(InstallError::SelfPath)?;
    Ok(strip_verbatim(path))
}

/// Windows' canonical form `\\?\C:\…` is not understood everywhere (Chrome's
/// manifest `path` included): use the plain drive form.
fn strip_verbatim(path: PathBuf) -> PathBuf {
    match path.to_str().and_then(|s| s.strip_prefix(r"\\?\")) {
        Some(rest) if !rest.starts_with("UNC") => PathBuf::from(rest),
        _ => path,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_is_the_small_sibling_binary_when_present() {
        let has = |p: &Path| {
            let s = p.to_string_lossy();
            s == "/opt/tw/tabwire-host" || s == r"C:\Tools\tw\tabwire-host.exe"
        };
        assert_eq!(
            host_binary(Os::Linux, Path::new("/opt/tw/tabwire"), has),
            Path::new("/opt/tw/tabwire-host")
        );
        assert_eq!(
            host_binary(Os::Windows, Path::new(r"C:\Tools\tw\tabwire.exe"), has),
            Path::new(r"C:\Tools\tw\tabwire-host.exe")
        );
        // Without it, the tabwire binary itself serves as the host.
        assert_eq!(
            host_binary(Os::MacOs, Path::new("/usr/local/bin/tabwire"), has),
            Path::new("/usr/local/bin/tabwire")
        );
        assert_eq!(
            host_binary(Os::Linux, Path::new("tabwire"), |_| true),
            Path::new("tabwire")
        );
    }
}
