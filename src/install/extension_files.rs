//! The tabwire extension, embedded in the binary and placed in tabwire's
//! data directory by `tabwire install`, so that a `cargo clean`, a moved
//! checkout or a binary installed with `cargo install` still has the exact
//! extension that matches it.

use std::path::{Path, PathBuf};

use super::browsers::join;
use super::Os;

/// Every file of `extension/`, with its contents.
pub const FILES: &[(&str, &str)] = &[
    (
        "manifest.json",
        include_str!("../../extension/manifest.json"),
    ),
    (
        "background.js",
        include_str!("../../extension/background.js"),
    ),
    ("protocol.js", include_str!("../../extension/protocol.js")),
    ("policy.js", include_str!("../../extension/policy.js")),
    ("popup.html", include_str!("../../extension/popup.html")),
    ("popup.css", include_str!("../../extension/popup.css")),
    ("popup.js", include_str!("../../extension/popup.js")),
    ("options.html", include_str!("../../extension/options.html")),
    ("sites.js", include_str!("../../extension/sites.js")),
    ("downloads.js", include_str!("../../extension/downloads.js")),
    ("host.js", include_str!("../../extension/host.js")),
    ("identity.js", include_str!("../../extension/identity.js")),
    ("consent.js", include_str!("../../extension/consent.js")),
    ("stop.js", include_str!("../../extension/stop.js")),
    ("relay.js", include_str!("../../extension/relay.js")),
    ("pages.js", include_str!("../../extension/pages.js")),
    ("confirm.html", include_str!("../../extension/confirm.html")),
    ("confirm.js", include_str!("../../extension/confirm.js")),
];

/// The folder the user loads unpacked: `<data dir>/extension`.
pub fn dir(os: Os, data_dir: &Path) -> PathBuf {
    join(os, data_dir, "extension")
}

/// The embedded extension's version (its manifest's `version`).
pub fn version() -> String {
    let manifest: serde_json::Value =
        serde_json::from_str(FILES[0].1).expect("extension/manifest.json is JSON");
    manifest["version"].as_str().unwrap_or("?").to_string()
}

/// Files of the placed extension that differ from (or are missing against)
/// the embedded ones.
pub fn stale_files(placed: &Path) -> Vec<String> {
    FILES
        .iter()
        .filter(|(name, text)| {
            std::fs::read(placed.join(name)).map_or(true, |bytes| bytes != text.as_bytes())
        })
        .map(|(name, _)| name.to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Adding a file to `extension/` without embedding it would ship a
    /// broken extension: the embedded list must match the folder exactly.
    #[test]
    fn embedded_files_are_exactly_the_extension_folder() {
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("extension");
        let mut on_disk: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut embedded: Vec<String> = FILES.iter().map(|(n, _)| n.to_string()).collect();
        embedded.sort();
        assert_eq!(embedded, on_disk);
        for (name, text) in FILES {
            assert_eq!(
                std::fs::read_to_string(folder.join(name)).unwrap(),
                *text,
                "{name}"
            );
        }
    }

    #[test]
    fn version_comes_from_the_manifest() {
        assert_eq!(version(), "0.1.0");
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(stale_files(tmp.path()).len(), FILES.len());
        for (name, text) in FILES {
            std::fs::write(tmp.path().join(name), text).unwrap();
        }
        assert!(stale_files(tmp.path()).is_empty());
        std::fs::write(tmp.path().join("popup.js"), "old").unwrap();
        assert_eq!(stale_files(tmp.path()), vec!["popup.js".to_string()]);
    }
}
