//! The per-user runtime directory that holds every `serve` socket.
//!
//! Resolution: `$TABWIRE_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/tabwire`, else
//! `<temp>/tabwire-<uid>`. The directory must be a real directory (not a
//! symlink), owned by the current user, with no group or other permission
//! bits: the socket files inside are only as private as this directory.

use std::io;
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
pub enum DirError {
    #[error("could not create the socket directory {path}: {source}")]
    Create { path: PathBuf, source: io::Error },
    #[error("could not inspect the socket directory {path}: {source}")]
    Inspect { path: PathBuf, source: io::Error },
    #[error(
        "refusing to use {path}: {why}. tabwire keeps its sockets in a private directory; \
         remove it or point TABWIRE_RUNTIME_DIR at a directory only you own (mode 0700)"
    )]
    Unsafe { path: PathBuf, why: String },
}

/// Where the sockets live, from the environment (see module docs).
pub fn runtime_dir_path() -> PathBuf {
    if let Some(dir) = std::env::var_os("TABWIRE_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(dir);
    }
    if let Some(xdg) = std::env::var_os("XDG_RUNTIME_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(xdg).join("tabwire");
    }
    std::env::temp_dir().join(format!("tabwire-{}", current_uid_tag()))
}

#[cfg(unix)]
fn current_uid_tag() -> String {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }.to_string()
}

#[cfg(not(unix))]
fn current_uid_tag() -> String {
    std::env::var("USERNAME").unwrap_or_else(|_| "user".into())
}

/// Creates (if needed) and verifies the runtime directory.
pub fn ensure_runtime_dir(path: &Path) -> Result<PathBuf, DirError> {
    if std::fs::symlink_metadata(path).is_err() {
        create_private_dir(path).map_err(|source| DirError::Create {
            path: path.into(),
            source,
        })?;
    }
    verify_private_dir(path)?;
    Ok(path.to_path_buf())
}

#[cfg(unix)]
fn create_private_dir(path: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match std::fs::DirBuilder::new()
        .recursive(false)
        .mode(0o700)
        .create(path)
    {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            // Parent missing (e.g. a custom TABWIRE_RUNTIME_DIR): create the
            // parents normally, the leaf privately.
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::DirBuilder::new().mode(0o700).create(path)
        }
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        other => other,
    }
}

#[cfg(not(unix))]
fn create_private_dir(path: &Path) -> io::Result<()> {
    std::fs::create_dir_all(path)
}

/// Checks owner, type and mode with `lstat` (a symlink is refused).
#[cfg(unix)]
pub fn verify_private_dir(path: &Path) -> Result<(), DirError> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).map_err(|source| DirError::Inspect {
        path: path.into(),
        source,
    })?;
    let unsafe_dir = |why: String| DirError::Unsafe {
        path: path.into(),
        why,
    };
    if meta.file_type().is_symlink() {
        return Err(unsafe_dir("it is a symbolic link".into()));
    }
    if !meta.is_dir() {
        return Err(unsafe_dir("it is not a directory".into()));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let me = unsafe { libc::geteuid() };
    if meta.uid() != me {
        return Err(unsafe_dir(format!(
            "it is owned by uid {}, not by you (uid {me})",
            meta.uid()
        )));
    }
    let mode = meta.mode() & 0o777;
    if mode & 0o077 != 0 {
        return Err(unsafe_dir(format!(
            "its mode is {mode:03o}; group and others must have no access (0700)"
        )));
    }
    Ok(())
}

/// Windows keeps sockets as named pipes whose DACL admits only the current
/// user; the directory only holds discovery markers there.
#[cfg(not(unix))]
pub fn verify_private_dir(_path: &Path) -> Result<(), DirError> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn creates_a_0700_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("deep/rt");
        ensure_runtime_dir(&dir).unwrap();
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn refuses_a_group_readable_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("rt");
        std::fs::create_dir(&dir).unwrap();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o750)).unwrap();
        let err = ensure_runtime_dir(&dir).unwrap_err().to_string();
        assert!(err.contains("mode is 750"), "{err}");
    }

    #[test]
    fn refuses_a_symlink() {
        let tmp = tempfile::tempdir().unwrap();
        let real = tmp.path().join("real");
        ensure_runtime_dir(&real).unwrap();
        let link = tmp.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let err = ensure_runtime_dir(&link).unwrap_err().to_string();
        assert!(err.contains("symbolic link"), "{err}");
    }

    #[test]
    fn refuses_a_file() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("f");
        std::fs::write(&file, b"x").unwrap();
        assert!(ensure_runtime_dir(&file).is_err());
    }
}
