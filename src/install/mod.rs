//! `tabwire install`: registers the native-messaging host with a browser.
//!
//! This first slice handles one browser per call (`--browser chromium` or
//! `chrome`, …) and an explicit `--user-data-dir`, which is what tests and
//! custom profiles need. Chrome reads host manifests from
//! `<user-data-dir>/NativeMessagingHosts/<name>.json` when it runs with that
//! user data dir.

use std::path::{Path, PathBuf};

use crate::protocol::{extension_origin, HOST_NAME};

/// The manifest template, shipped in `nm-manifests/`.
const TEMPLATE: &str = include_str!("../../nm-manifests/com.tabwire.host.json");

#[derive(Debug, thiserror::Error)]
pub enum InstallError {
    #[error("unknown browser {0:?}; known: chromium, chrome")]
    UnknownBrowser(String),
    #[error("could not find this program's own path: {0}")]
    SelfPath(std::io::Error),
    #[error("could not write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("no user data dir given and no home directory known; pass --user-data-dir")]
    NoHome,
}

/// Fills the template for a host binary at `binary`.
pub fn render_manifest(binary: &Path) -> String {
    let path = serde_json::to_string(&binary.to_string_lossy()).expect("string serializes");
    TEMPLATE
        .replace("\"@TABWIRE_BINARY@\"", &path)
        .replace("@EXTENSION_ORIGIN@", &extension_origin())
}

/// Where `browser` looks for per-user host manifests on Linux by default.
fn default_user_data_dir(browser: &str) -> Result<PathBuf, InstallError> {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .ok_or(InstallError::NoHome)?;
    let sub = match browser {
        "chromium" => "chromium",
        "chrome" => "google-chrome",
        other => return Err(InstallError::UnknownBrowser(other.into())),
    };
    Ok(home.join(".config").join(sub))
}

/// Writes the host manifest; returns its path.
pub fn install(browser: &str, user_data_dir: Option<&Path>) -> Result<PathBuf, InstallError> {
    if !matches!(browser, "chromium" | "chrome") {
        return Err(InstallError::UnknownBrowser(browser.into()));
    }
    let udd = match user_data_dir {
        Some(d) => d.to_path_buf(),
        None => default_user_data_dir(browser)?,
    };
    let binary = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .map_err(InstallError::SelfPath)?;
    let dir = udd.join("NativeMessagingHosts");
    let path = dir.join(format!("{HOST_NAME}.json"));
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        std::fs::write(&path, render_manifest(&binary))
    };
    write().map_err(|source| InstallError::Write {
        path: path.clone(),
        source,
    })?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_names_host_binary_and_origin() {
        let m: serde_json::Value =
            serde_json::from_str(&render_manifest(Path::new("/opt/tw \"x\"/tabwire"))).unwrap();
        assert_eq!(m["name"], HOST_NAME);
        assert_eq!(m["type"], "stdio");
        assert_eq!(m["path"], "/opt/tw \"x\"/tabwire");
        assert_eq!(
            m["allowed_origins"],
            serde_json::json!([extension_origin()])
        );
    }

    #[test]
    fn install_writes_into_the_user_data_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let path = install("chromium", Some(tmp.path())).unwrap();
        assert_eq!(
            path,
            tmp.path()
                .join("NativeMessagingHosts/com.tabwire.host.json")
        );
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        assert!(Path::new(m["path"].as_str().unwrap()).is_absolute());
    }

    #[test]
    fn unknown_browser_is_refused() {
        assert!(install("netscape", None).is_err());
    }
}
