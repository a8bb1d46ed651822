//! Where this tabwire came from — the npm package, a release archive,
//! `cargo install`, a build directory — and the copy of the host binary that
//! `tabwire install` keeps in tabwire's data directory.
//!
//! Browsers start the host from the path in its manifest, so that path must
//! outlive wherever tabwire itself runs from: npx's package cache is cleaned
//! and moved between versions, a release archive may be unpacked in a
//! temporary folder, a build directory goes with `cargo clean`. Install
//! therefore copies the host into `<data dir>/bin/` and registers the copy;
//! the next install (of a later version, say) replaces it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::browsers::join;
use super::Os;

/// Set by the npm launcher (`npm`) and by `installer/install.sh` for a
/// release archive (`archive`) when they run tabwire.
pub const LAUNCHER_VAR: &str = "TABWIRE_LAUNCHER";

/// How this tabwire was installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    /// The npm package (`npx tabwire`): the binary sits in `node_modules`.
    Npm,
    /// A release archive, installed by `installer/install.sh` or `install.ps1`.
    Archive,
    /// `cargo install` (the binary is in cargo's bin directory).
    Cargo,
    /// A cargo build directory (`target/debug`, `target/release`).
    Build,
    /// A binary somewhere else, put there by hand.
    Binary,
}

impl Source {
    /// Works out the source from the launcher variable (when a launcher set
    /// it) or else from where `binary` lies.
    pub fn detect(os: Os, launcher: Option<&str>, binary: &Path, cargo_bin: &Path) -> Self {
        match launcher.map(str::trim) {
            Some("npm") => return Source::Npm,
            Some("archive") => return Source::Archive,
            _ => {}
        }
        // Windows paths compare without regard to case.
        let norm = |p: &Path| match os {
            Os::Windows => normalized(p).to_lowercase(),
            Os::Linux | Os::MacOs => normalized(p),
        };
        let text = norm(binary);
        if text.contains("/node_modules/") {
            return Source::Npm;
        }
        if let Some((dir, _)) = text.rsplit_once('/') {
            if dir == norm(cargo_bin).trim_end_matches('/') {
                return Source::Cargo;
            }
        }
        if text.contains("/target/debug/") || text.contains("/target/release/") {
            return Source::Build;
        }
        // `cargo build --target T` puts binaries in target/T/release.
        let parts: Vec<&str> = text.split('/').collect();
        if parts.len() >= 4 {
            let n = parts.len();
            if parts[n - 4] == "target" && matches!(parts[n - 2], "debug" | "release") {
                return Source::Build;
            }
        }
        Source::Binary
    }

    /// For people: what kind of install this is.
    pub fn describe(self) -> &'static str {
        match self {
            Source::Npm => "the npm package",
            Source::Archive => "a release archive",
            Source::Cargo => "cargo install",
            Source::Build => "a cargo build directory",
            Source::Binary => "a binary installed by hand",
        }
    }

    /// How the user runs tabwire's commands: `npx tabwire` for the npm
    /// package (which puts nothing on PATH), else `tabwire`.
    pub fn command(self) -> &'static str {
        match self {
            Source::Npm => "npx tabwire",
            _ => "tabwire",
        }
    }

    /// Rewrites the `tabwire …` commands quoted in `text` (between
    /// backticks) the way this install runs them.
    pub fn commands_in(self, text: &str) -> String {
        match self {
            Source::Npm => text.replace("`tabwire ", "`npx tabwire "),
            _ => text.to_string(),
        }
    }

    /// The short name (`npm`, `archive`, `cargo`, `build`, `binary`).
    pub fn name(self) -> &'static str {
        match self {
            Source::Npm => "npm",
            Source::Archive => "archive",
            Source::Cargo => "cargo",
            Source::Build => "build",
            Source::Binary => "binary",
        }
    }
}

/// A path as text with `/` separators, for matching on either OS.
fn normalized(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}

/// `<data dir>/bin`: where install keeps its copy of the host.
pub fn dir(os: Os, data_dir: &Path) -> PathBuf {
    join(os, data_dir, "bin")
}

fn host_file_name(os: Os) -> &'static str {
    match os {
        Os::Windows => "tabwire-host.exe",
        Os::Linux | Os::MacOs => "tabwire-host",
    }
}

/// The host binary the manifests name: `<data dir>/bin/tabwire-host[.exe]`.
pub fn host_path(os: Os, data_dir: &Path) -> PathBuf {
    join(os, &dir(os, data_dir), host_file_name(os))
}

/// Where a replaced host is moved on Windows, which refuses to overwrite
/// (but allows renaming) a program that is running — a browser keeps its
/// host running as long as the extension is connected.
pub fn aside_path(os: Os, data_dir: &Path) -> PathBuf {
    let name = match os {
        Os::Windows => "tabwire-host.old.exe",
        Os::Linux | Os::MacOs => "tabwire-host.old",
    };
    join(os, &dir(os, data_dir), name)
}

/// Puts the new host (already written to `staged`, next to `dest`) in
/// place. On Unix a rename over the old file is atomic, and a running host
/// keeps its old inode; on Windows the old file is first renamed to `aside`
/// (removed now if nothing runs it, else by the next install or uninstall).
pub fn replace(os: Os, staged: &Path, dest: &Path, aside: &Path) -> std::io::Result<()> {
    if os == Os::Windows && dest.exists() {
        let _ = std::fs::remove_file(aside);
        std::fs::rename(dest, aside)?;
    }
    if let Err(e) = std::fs::rename(staged, dest) {
        if os == Os::Windows && aside.exists() && !dest.exists() {
            let _ = std::fs::rename(aside, dest);
        }
        return Err(e);
    }
    if os == Os::Windows {
        let _ = std::fs::remove_file(aside);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_copy_paths_per_os() {
        let p = |os, data: &str| {
            host_path(os, Path::new(data))
                .to_string_lossy()
                .into_owned()
        };
        assert_eq!(
            p(Os::Linux, "/home/ada/.local/share/tabwire"),
            "/home/ada/.local/share/tabwire/bin/tabwire-host"
        );
        assert_eq!(
            p(Os::MacOs, "/Users/ada/Library/Application Support/tabwire"),
            "/Users/ada/Library/Application Support/tabwire/bin/tabwire-host"
        );
        assert_eq!(
            p(Os::Windows, r"C:\Users\ada\AppData\Local\tabwire\data"),
            r"C:\Users\ada\AppData\Local\tabwire\data\bin\tabwire-host.exe"
        );
        assert_eq!(
            aside_path(Os::Windows, Path::new(r"C:\d")).to_string_lossy(),
            r"C:\d\bin\tabwire-host.old.exe"
        );
    }

    #[test]
    fn sources_are_told_apart() {
        let cargo = Path::new("/home/ada/.cargo/bin");
        let d = |launcher, bin: &str| Source::detect(Os::Linux, launcher, Path::new(bin), cargo);
        assert_eq!(d(Some("npm"), "/anywhere/tabwire"), Source::Npm);
        assert_eq!(
            d(Some("archive"), "/home/ada/.local/bin/tabwire"),
            Source::Archive
        );
        assert_eq!(
            d(
                None,
                "/home/ada/.npm/_npx/1f2e/node_modules/@tabwire/linux-x64/bin/tabwire"
            ),
            Source::Npm
        );
        assert_eq!(d(None, "/home/ada/.cargo/bin/tabwire"), Source::Cargo);
        assert_eq!(d(None, "/src/tabwire/target/debug/tabwire"), Source::Build);
        assert_eq!(
            d(
                None,
                "/src/tabwire/target/x86_64-unknown-linux-gnu/release/tabwire"
            ),
            Source::Build
        );
        assert_eq!(d(None, "/usr/local/bin/tabwire"), Source::Binary);
        assert_eq!(d(Some("other"), "/usr/local/bin/tabwire"), Source::Binary);
        let win = Source::detect(
            Os::Windows,
            None,
            Path::new(
                r"C:\Users\ada\AppData\Roaming\npm\node_modules\@tabwire\win32-x64\bin\tabwire.exe",
            ),
            Path::new(r"C:\Users\ada\.cargo\bin"),
        );
        assert_eq!(win, Source::Npm);
        let win_cargo = Source::detect(
            Os::Windows,
            None,
            Path::new(r"C:\Users\ada\.cargo\bin\tabwire.exe"),
            Path::new(r"C:\Users\ada\.cargo\bin"),
        );
        assert_eq!(win_cargo, Source::Cargo);
        assert_eq!(
            serde_json::to_string(&Source::Npm).unwrap(),
            "\"npm\"",
            "the record stores the short name"
        );
        assert_eq!(Source::Archive.name(), "archive");
        assert_eq!(
            Source::Npm.commands_in("run `tabwire install --browser x`, then `tabwire doctor`"),
            "run `npx tabwire install --browser x`, then `npx tabwire doctor`"
        );
        assert_eq!(
            Source::Cargo.commands_in("run `tabwire install`"),
            "run `tabwire install`"
        );
    }

    /// The Windows way (rename the running file aside first) works on any
    /// OS, so it is tested here with real files.
    #[test]
    fn replacing_the_host_keeps_no_half_written_file() {
        for os in [Os::Linux, Os::Windows] {
            let tmp = tempfile::tempdir().unwrap();
            let dest = tmp.path().join("tabwire-host");
            let aside = tmp.path().join("tabwire-host.old");
            let staged = tmp.path().join(".tabwire-host.new");
            std::fs::write(&dest, "v1").unwrap();
            std::fs::write(&staged, "v2").unwrap();
            replace(os, &staged, &dest, &aside).unwrap();
            assert_eq!(std::fs::read_to_string(&dest).unwrap(), "v2");
            assert!(!staged.exists() && !aside.exists(), "{os:?}");
            // A failed rename (the staged file is gone) leaves the old host.
            let err = replace(os, &staged, &dest, &aside);
            assert!(err.is_err());
            assert_eq!(std::fs::read_to_string(&dest).unwrap(), "v2", "{os:?}");
        }
    }
}
