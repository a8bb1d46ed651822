//! What `tabwire install` created, kept in `<data dir>/install-record.json`
//! so that `tabwire uninstall` removes exactly that: the files it wrote,
//! the directories it had to create, registry keys, and client entries.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::browsers::join;
use super::source::Source;
use super::{InstallError, Os};

pub const FILE_NAME: &str = "install-record.json";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Directories install created, parents before children.
    #[serde(default)]
    pub dirs: Vec<PathBuf>,
    /// Files install wrote (host manifests, extension files).
    #[serde(default)]
    pub files: Vec<PathBuf>,
    /// Windows registry keys (under HKCU) install set.
    #[serde(default)]
    pub registry: Vec<String>,
    /// MCP client configs install edited.
    #[serde(default)]
    pub clients: Vec<ClientRecord>,
    /// How the tabwire that last ran install was installed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The tabwire binary that last ran install.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binary: Option<PathBuf>,
    /// The host binary install copied into the data directory (and
    /// registered) came from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_from: Option<PathBuf>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClientRecord {
    pub client: String,
    pub config: PathBuf,
    /// The config as it was before tabwire first changed it (None: the file
    /// did not exist).
    pub backup: Option<PathBuf>,
    /// A hash of the text tabwire last wrote: if the file still has it,
    /// uninstall puts the backup back byte for byte.
    pub written_hash: String,
}

/// Where the record lives.
pub fn path(os: Os, data_dir: &Path) -> PathBuf {
    join(os, data_dir, FILE_NAME)
}

/// FNV-1a, 64 bits, as hex: stable across Rust versions, unlike std's hasher.
pub fn hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

impl Record {
    /// Reads the record; Ok(None) if there is none.
    pub fn load(path: &Path) -> Result<Option<Self>, InstallError> {
        match std::fs::read_to_string(path) {
            Ok(text) => serde_json::from_str(&text).map(Some).map_err(|e| {
                InstallError::Other(format!(
                    "the install record {} is damaged ({e}); remove it and run `tabwire install` \
                     again",
                    path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(InstallError::io("read", path)(e)),
        }
    }

    pub fn to_text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("record serializes");
        s.push('\n');
        s
    }

    pub fn add_dir(&mut self, dir: &Path) {
        if !self.dirs.iter().any(|d| d == dir) {
            self.dirs.push(dir.to_path_buf());
        }
    }

    pub fn add_file(&mut self, file: &Path) {
        if !self.files.iter().any(|f| f == file) {
            self.files.push(file.to_path_buf());
        }
    }

    pub fn add_registry(&mut self, key: &str) {
        if !self.registry.iter().any(|k| k == key) {
            self.registry.push(key.to_string());
        }
    }

    /// Records a client edit; the first backup of a config is kept.
    pub fn add_client(&mut self, rec: ClientRecord) {
        match self.clients.iter_mut().find(|c| c.config == rec.config) {
            Some(existing) => existing.written_hash = rec.written_hash,
            None => self.clients.push(rec),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.dirs.is_empty()
            && self.files.is_empty()
            && self.registry.is_empty()
            && self.clients.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_from_before_the_install_source_still_load() {
        let old = r#"{"dirs": ["/a"], "files": ["/a/f"], "registry": [], "clients": []}"#;
        let r: Record = serde_json::from_str(old).unwrap();
        assert_eq!(r.source, None);
        assert_eq!(r.files, vec![PathBuf::from("/a/f")]);
        let mut r = r;
        r.source = Some(Source::Npm);
        r.host_from = Some("/n/tabwire-host".into());
        let back: Record = serde_json::from_str(&r.to_text()).unwrap();
        assert_eq!(back, r);
        assert!(r.to_text().contains("\"source\": \"npm\""));
    }

    #[test]
    fn hash_is_stable_fnv1a() {
        assert_eq!(hash(""), "cbf29ce484222325");
        assert_eq!(hash("a"), "af63dc4c8601ec8c");
    }

    #[test]
    fn adds_are_idempotent_and_first_backup_wins() {
        let mut r = Record::default();
        r.add_dir(Path::new("/a"));
        r.add_dir(Path::new("/a"));
        r.add_file(Path::new("/a/f"));
        r.add_file(Path::new("/a/f"));
        r.add_client(ClientRecord {
            client: "cursor".into(),
            config: "/c.json".into(),
            backup: Some("/c.json.bak".into()),
            written_hash: "1".into(),
        });
        r.add_client(ClientRecord {
            client: "cursor".into(),
            config: "/c.json".into(),
            backup: None,
            written_hash: "2".into(),
        });
        assert_eq!(r.dirs.len(), 1);
        assert_eq!(r.files.len(), 1);
        assert_eq!(r.clients.len(), 1);
        assert_eq!(
            r.clients[0].backup.as_deref(),
            Some(Path::new("/c.json.bak"))
        );
        assert_eq!(r.clients[0].written_hash, "2");
        let back: Record = serde_json::from_str(&r.to_text()).unwrap();
        assert_eq!(back, r);
    }
}
