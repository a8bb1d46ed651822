//! Which storage-state files are the user's word. Any page can put a file
//! in the download directory (every download lands there), so a state file
//! found there may be a stranger's: loaded into the user's own browser it
//! could sign them into someone else's account on any site (a login CSRF
//! that needs no bug in the site). So the user's browser loads only files
//! tabwire wrote itself with browser_storage_state (recorded here by path,
//! size and modification time: a download never overwrites a file, so a
//! recorded file that changed is no longer one) or files in an upload
//! directory, which the user chose. tabwire's own browser loads any.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// The record, in the data directory (0600).
const RECORD: &str = "storage-states.json";
/// The most files remembered (the oldest are forgotten first).
const KEEP: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Written {
    path: PathBuf,
    len: u64,
    modified_ns: u128,
}

fn stamp(path: &Path) -> Option<Written> {
    let real = path.canonicalize().ok()?;
    let meta = std::fs::metadata(&real).ok()?;
    let modified_ns = meta
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?
        .as_nanos();
    Some(Written {
        path: real,
        len: meta.len(),
        modified_ns,
    })
}

fn read(record: &Path) -> Vec<Written> {
    std::fs::read(record)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default()
}

/// Remembers `path` as written by browser_storage_state, in `data_dir`.
pub fn record_written(data_dir: &Path, path: &Path) -> std::io::Result<()> {
    let Some(w) = stamp(path) else {
        return Ok(());
    };
    let record = data_dir.join(RECORD);
    let mut all = read(&record);
    all.retain(|x| x.path != w.path);
    all.push(w);
    if all.len() > KEEP {
        all.drain(..all.len() - KEEP);
    }
    std::fs::create_dir_all(data_dir)?;
    let tmp = data_dir.join(format!("{RECORD}.tmp"));
    let mut opts = std::fs::OpenOptions::new();
    opts.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        opts.mode(0o600);
    }
    use std::io::Write as _;
    opts.open(&tmp)?
        .write_all(&serde_json::to_vec(&all).unwrap_or_default())?;
    std::fs::rename(tmp, record)
}

/// Whether `path` is a file browser_storage_state wrote, unchanged since.
pub fn written_by_tabwire(data_dir: &Path, path: &Path) -> bool {
    let Some(now) = stamp(path) else {
        return false;
    };
    read(&data_dir.join(RECORD)).contains(&now)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_recorded_unchanged_file_counts() {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let file = tmp.path().join("state.json");
        std::fs::write(&file, b"{}").unwrap();
        assert!(!written_by_tabwire(&data, &file));
        record_written(&data, &file).unwrap();
        assert!(written_by_tabwire(&data, &file));
        // Replaced (a different size): no longer the file tabwire wrote.
        std::fs::write(&file, b"{\"cookies\": []}").unwrap();
        assert!(!written_by_tabwire(&data, &file));
        let other = tmp.path().join("other.json");
        std::fs::write(&other, b"{}").unwrap();
        assert!(!written_by_tabwire(&data, &other));
    }
}
