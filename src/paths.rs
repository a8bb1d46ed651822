//! Where tabwire keeps its own files (apart from the runtime sockets).

use std::path::PathBuf;

/// tabwire's data directory: `$TABWIRE_DATA_DIR`, else the platform's local
/// data dir (`~/.local/share/tabwire`, `~/Library/Application Support/tabwire`,
/// `%LOCALAPPDATA%\tabwire\data`), else `<temp>/tabwire-data`.
pub fn data_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("TABWIRE_DATA_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    directories::ProjectDirs::from("", "", "tabwire")
        .map(|p| p.data_local_dir().to_path_buf())
        .unwrap_or_else(|| std::env::temp_dir().join("tabwire-data"))
}
