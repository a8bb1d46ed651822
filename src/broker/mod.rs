//! Local sockets between `serve` (listens) and `native-host` (connects).
//!
//! Each `serve` owns one socket file `serve-<pid>.sock` in the private
//! runtime directory ([`dir`]). Nothing here touches the network: the kernel
//! authenticates both ends (directory mode 0700, socket mode 0600, and the
//! peer's uid checked on every accepted connection).

pub mod dir;
pub mod wake;

use std::io;
use std::path::{Path, PathBuf};

use interprocess::local_socket::tokio::{prelude::*, Listener, Stream};
use interprocess::local_socket::{GenericFilePath, ListenerOptions};

/// Suffix that marks a serve socket in the runtime directory.
pub const SOCKET_SUFFIX: &str = ".sock";

/// The socket file a serve with this pid listens on. On Windows it is a
/// named pipe, `\\.\pipe\tabwire-<user>-serve-<pid>`, found by its prefix.
pub fn socket_path(dir: &Path, pid: u32) -> PathBuf {
    named_path(dir, &format!("serve-{pid}"), SOCKET_SUFFIX)
}

/// The path of this user's socket `name`: `<dir>/<name><suffix>`, or on
/// Windows the pipe `\\.\pipe\tabwire-<user>-<name>` (pipes live
/// outside any directory).
pub(crate) fn named_path(dir: &Path, name: &str, suffix: &str) -> PathBuf {
    #[cfg(windows)]
    {
        let _ = (dir, suffix);
        PathBuf::from(format!(r"\\.\pipe\{}{name}", pipe_prefix(&windows_user())))
    }
    #[cfg(not(windows))]
    {
        dir.join(format!("{name}{suffix}"))
    }
}

/// Security descriptor of a serve pipe: a protected DACL (no inherited
/// entries) with one entry, full access for the pipe's owner (the user who
/// started serve). With interprocess's defaults the pipe also rejects remote
/// clients and is created with FILE_FLAG_FIRST_PIPE_INSTANCE.
pub const PIPE_SDDL: &str = "D:P(A;;GA;;;OW)";

/// Pipe names of one user's serves start with this (the name is sanitized:
/// pipe names are global on a Windows machine).
pub fn pipe_prefix(user: &str) -> String {
    let clean: String = user
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("tabwire-{clean}-")
}

#[cfg(windows)]
fn windows_user() -> String {
    std::env::var("USERNAME").unwrap_or_else(|_| "user".into())
}

/// Every candidate serve socket in the directory (sorted, for stable order).
pub fn list_sockets(dir: &Path) -> io::Result<Vec<PathBuf>> {
    list_named(dir, "serve-", SOCKET_SUFFIX)
}

/// This user's pipes named `<pipe prefix><stem>…` (Windows lists pipes,
/// not a directory; `suffix` is not part of pipe names).
#[cfg(windows)]
pub(crate) fn list_named(_dir: &Path, stem: &str, _suffix: &str) -> io::Result<Vec<PathBuf>> {
    let prefix = format!("{}{stem}", pipe_prefix(&windows_user()));
    let mut out: Vec<PathBuf> = std::fs::read_dir(r"\\.\pipe\")?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| PathBuf::from(r"\\.\pipe\").join(e.file_name()))
        .collect();
    out.sort();
    Ok(out)
}

/// Sockets in `dir` named `<stem>…<suffix>` (sorted, for stable order).
#[cfg(not(windows))]
pub(crate) fn list_named(dir: &Path, stem: &str, suffix: &str) -> io::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with(stem) && name.ends_with(suffix) && is_socket(&entry) {
            out.push(entry.path());
        }
    }
    out.sort();
    Ok(out)
}

#[cfg(unix)]
fn is_socket(entry: &std::fs::DirEntry) -> bool {
    use std::os::unix::fs::FileTypeExt;
    entry.file_type().map(|t| t.is_socket()).unwrap_or(false)
}

#[cfg(not(unix))]
fn is_socket(_entry: &std::fs::DirEntry) -> bool {
    true
}

/// A listening serve socket; the file is removed when this is dropped.
pub struct ServeSocket {
    pub listener: Listener,
    pub path: PathBuf,
}

impl Drop for ServeSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Removes socket files nobody listens on any more (a crashed serve). A file
/// is removed only after a connection attempt is refused — a live server's
/// socket is never deleted.
pub async fn remove_stale_sockets(dir: &Path) {
    let Ok(paths) = list_sockets(dir) else { return };
    for path in paths {
        match connect(&path).await {
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                tracing::info!(path = %path.display(), "removing stale socket (nobody listens)");
                let _ = std::fs::remove_file(&path);
            }
            Err(e) => tracing::debug!(path = %path.display(), error = %e, "probe failed"),
        }
    }
}

/// Creates this serve's listening socket (mode 0600) in `dir`.
pub fn listen(dir: &Path) -> io::Result<ServeSocket> {
    let path = socket_path(dir, std::process::id());
    let listener = bind_private(&path)?;
    Ok(ServeSocket { listener, path })
}

/// Listens on `path` so that only the current user may connect: a 0600
/// socket file (in the 0700 runtime dir), or on Windows a pipe with
/// [`PIPE_SDDL`]. A file left there by an earlier process of our pid is
/// replaced (that process cannot still be alive).
pub(crate) fn bind_private(path: &Path) -> io::Result<Listener> {
    let _ = std::fs::remove_file(path);
    let name = path.to_fs_name::<GenericFilePath>()?;
    let opts = ListenerOptions::new().name(name).reclaim_name(false);
    #[cfg(target_os = "linux")]
    let opts = {
        use interprocess::os::unix::local_socket::ListenerOptionsExt;
        opts.mode(0o600)
    };
    #[cfg(windows)]
    let opts = {
        use interprocess::os::windows::local_socket::ListenerOptionsExt;
        use interprocess::os::windows::security_descriptor::SecurityDescriptor;
        let sddl = widestring::U16CString::from_str(PIPE_SDDL)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e.to_string()))?;
        opts.security_descriptor(SecurityDescriptor::deserialize(&sddl)?)
    };
    let listener = opts.create_tokio()?;
    #[cfg(unix)]
    {
        // macOS cannot set the mode at bind time; the 0700 directory covers
        // the moment in between.
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(listener)
}

/// Connects to a serve socket.
pub async fn connect(path: &Path) -> io::Result<Stream> {
    let name = path.to_fs_name::<GenericFilePath>()?;
    Stream::connect(name).await
}

/// Refuses a peer that runs as another user.
pub fn check_peer(stream: &Stream) -> io::Result<()> {
    #[cfg(unix)]
    {
        let creds = stream.peer_creds()?;
        // SAFETY: geteuid has no preconditions and cannot fail.
        let me = unsafe { libc::geteuid() };
        match creds.euid() {
            Some(uid) if uid == me => Ok(()),
            other => Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                format!("peer runs as uid {other:?}, not as uid {me}"),
            )),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        Ok(())
    }
}

#[cfg(test)]
mod pure_tests {
    use super::*;

    #[test]
    fn pipe_names_are_per_user_and_sanitized() {
        assert_eq!(pipe_prefix("alice"), "tabwire-alice-");
        assert_eq!(pipe_prefix("Dom\\Bob Smith"), "tabwire-Dom_Bob_Smith-");
    }

    #[test]
    fn pipe_dacl_is_protected_and_owner_only() {
        // D: DACL, P: protected (ignore inheritance), one allow ACE granting
        // generic all to OW (owner rights) and nothing for anyone else.
        assert!(PIPE_SDDL.starts_with("D:P"));
        assert_eq!(PIPE_SDDL.matches("(A;").count(), 1);
        assert!(PIPE_SDDL.ends_with(";OW)"));
        assert!(!PIPE_SDDL.contains("WD") && !PIPE_SDDL.contains("AU"));
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn socket_is_0600_listed_and_removed_on_drop() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = dir::ensure_runtime_dir(&tmp.path().join("rt")).unwrap();
        let sock = listen(&dir).unwrap();
        let mode = std::fs::metadata(&sock.path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        assert_eq!(list_sockets(&dir).unwrap(), vec![sock.path.clone()]);
        let client = connect(&sock.path).await.unwrap();
        let accepted = sock.listener.accept().await.unwrap();
        check_peer(&accepted).unwrap();
        check_peer(&client).unwrap();
        let path = sock.path.clone();
        drop(sock);
        assert!(!path.exists());
    }

    #[tokio::test]
    async fn stale_socket_is_removed_but_live_one_kept() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = dir::ensure_runtime_dir(&tmp.path().join("rt")).unwrap();
        // A socket file whose listener is gone: bind with std, then drop.
        let stale = dir.join("serve-999999.sock");
        drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
        assert!(stale.exists());
        let live = listen(&dir).unwrap();
        remove_stale_sockets(&dir).await;
        assert!(!stale.exists(), "stale socket should be gone");
        assert!(live.path.exists(), "live socket must stay");
    }
}
