//! Waking native hosts, so a new serve is found at once.
//!
//! A native host finds serves by listing the runtime directory. Listing it
//! often costs the host wake-ups all day; listing it rarely makes every new
//! serve (every `tabwire call`) wait. So each host also listens on a wake
//! socket of its own, `host-<pid>.wake` beside the serve sockets (mode
//! 0600; on Windows a pipe only the current user may open), and a serve,
//! once its own socket is bound, connects to every wake socket and closes
//! the connection again ([`wake_hosts`]). The connection is the whole
//! message: "list the directory now". Nothing is read or written on it, so
//! a wake can make a host do nothing but one more listing.
//!
//! The host keeps a slow periodic listing as the fallback: for a serve
//! from before wake sockets, or a wake that was missed (on Windows, a pipe
//! between two instances). A wake socket nobody listens on any more (a
//! host that was killed) is removed by the first serve it refuses, as stale
//! serve sockets are.

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use interprocess::local_socket::tokio::Listener;

/// Suffix that marks a host's wake socket in the runtime directory.
pub const WAKE_SUFFIX: &str = ".wake";
/// Name stem of wake sockets (and of their pipes on Windows).
const STEM: &str = "host-";
/// Longest a serve waits to wake one host (a connect to a local socket is
/// immediate; this only bounds a host that hangs).
const WAKE_WAIT: Duration = Duration::from_millis(250);

/// A host's listening wake socket; the file is removed when this is dropped.
pub struct WakeSocket {
    pub listener: Listener,
    pub path: PathBuf,
}

impl Drop for WakeSocket {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The wake socket of the host with this pid.
pub fn wake_path(dir: &Path, pid: u32) -> PathBuf {
    super::named_path(dir, &format!("{STEM}{pid}"), WAKE_SUFFIX)
}

/// Creates this host's wake socket (mode 0600) in `dir`.
pub fn listen(dir: &Path) -> io::Result<WakeSocket> {
    let path = wake_path(dir, std::process::id());
    let listener = super::bind_private(&path)?;
    Ok(WakeSocket { listener, path })
}

/// Every host wake socket in `dir` (sorted).
pub fn list(dir: &Path) -> io::Result<Vec<PathBuf>> {
    super::list_named(dir, STEM, WAKE_SUFFIX)
}

/// Waits for the next wake on `socket`, from a peer of this user.
pub async fn next_wake(socket: &WakeSocket) -> io::Result<()> {
    use interprocess::local_socket::traits::tokio::Listener as _;
    loop {
        let stream = socket.listener.accept().await?;
        match super::check_peer(&stream) {
            Ok(()) => return Ok(()),
            Err(e) => tracing::warn!(error = %e, "ignoring a wake from another user"),
        }
    }
}

/// Wakes every native host listening in `dir`; returns how many were
/// reached. Wake sockets that refuse (their host is gone) are removed.
pub async fn wake_hosts(dir: &Path) -> usize {
    let Ok(paths) = list(dir) else { return 0 };
    let mut woken = 0;
    for path in paths {
        match tokio::time::timeout(WAKE_WAIT, super::connect(&path)).await {
            // Connected is woken: the host lists the directory on accept.
            Ok(Ok(_stream)) => woken += 1,
            Ok(Err(e)) if e.kind() == io::ErrorKind::ConnectionRefused => {
                tracing::info!(path = %path.display(), "removing stale wake socket (its host is gone)");
                let _ = std::fs::remove_file(&path);
            }
            Ok(Err(e)) => {
                tracing::debug!(path = %path.display(), error = %e, "could not wake a host")
            }
            Err(_) => tracing::debug!(path = %path.display(), "a host did not take its wake"),
        }
    }
    woken
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn a_serve_wakes_each_live_host_and_removes_dead_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = crate::broker::dir::ensure_runtime_dir(&tmp.path().join("rt")).unwrap();
        let host = listen(&dir).unwrap();
        let mode = std::fs::metadata(&host.path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        // A host that was killed left its socket file behind.
        let dead = wake_path(&dir, 999_999);
        drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
        // Serve sockets are not wake sockets, nor the other way round.
        let serve = crate::broker::listen(&dir).unwrap();
        let mut both = vec![dead.clone(), host.path.clone()];
        both.sort();
        assert_eq!(list(&dir).unwrap(), both);
        assert_eq!(
            crate::broker::list_sockets(&dir).unwrap(),
            vec![serve.path.clone()]
        );

        assert_eq!(wake_hosts(&dir).await, 1);
        tokio::time::timeout(Duration::from_secs(5), next_wake(&host))
            .await
            .expect("the live host is woken")
            .unwrap();
        assert!(!dead.exists(), "the dead host's socket is removed");
        assert!(host.path.exists(), "the live host's socket stays");
        let path = host.path.clone();
        drop(host);
        assert!(!path.exists());
        assert_eq!(wake_hosts(&dir).await, 0);
    }
}
