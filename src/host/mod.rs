//! `tabwire native-host`: the relay Chrome spawns for the extension.
//!
//! It checks the calling origin, then brokers between the extension (its
//! stdin/stdout, native-messaging framing) and every running `serve` (one
//! socket connection each, found by scanning the runtime directory, including
//! servers that start later: each new serve wakes the host through its
//! wake socket, [`broker::wake`], and a slow periodic scan catches the
//! rest). Messages from a serve are tagged with that
//! connection's number `c` and passed through unparsed; messages from the
//! extension are routed on `c`. One bad connection is closed alone; the host
//! exits when Chrome closes its stdin (Chrome sends no other signal).
//!
//! Chrome's side is read and written by two plain threads with blocking
//! I/O (no hop through a blocking pool per read). An extension message is
//! routed on its envelope alone: `{"c":N,"m":` is matched at the start and
//! the payload is passed on as bytes, never parsed; a large one (a
//! screenshot) is streamed to its serve in chunks while Chrome is still
//! writing it, so it is never held whole in the host. That side is
//! `chrome.rs`; this file starts the host, finds serves and runs their
//! connections.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::broker;
use crate::protocol::{self, HostHello};
use crate::wire::{self, FrameReader, Framing, NATIVE_TO_CHROME_MAX};

mod chrome;

use chrome::{read_from_chrome, write_to_chrome};

/// How often the runtime directory is scanned for new servers when no
/// serve wakes the host (a serve from before wake sockets, a missed wake).
pub const SCAN_INTERVAL: Duration = Duration::from_secs(1);
/// A socket that refused a connection is retried after this long.
const RETRY_AFTER: Duration = Duration::from_secs(2);
/// Messages (or chunks of one) queued toward one serve before it is
/// considered stuck.
const SERVE_QUEUE: usize = 1024;

#[derive(Debug, thiserror::Error)]
pub enum HostError {
    #[error(
        "refusing to serve origin {got:?}: this host only talks to the tabwire extension ({want})"
    )]
    WrongOrigin { got: String, want: String },
    #[error(transparent)]
    Dir(#[from] broker::dir::DirError),
    #[error("reading from Chrome failed: {0}")]
    Stdin(wire::FrameError),
}

pub struct HostOptions {
    pub runtime_dir: PathBuf,
    pub max_frame: usize,
    /// The periodic scan's interval ([`SCAN_INTERVAL`]; tests lengthen it
    /// to show that wakes alone find new serves).
    pub scan_interval: Duration,
}

/// Accepts `chrome-extension://<id>/` for tabwire's pinned ID, and for the
/// store build's ID when one was given at build time
/// ([`protocol::STORE_EXTENSION_ID`]); nothing else.
pub fn check_origin(origin: &str) -> Result<(), HostError> {
    let wanted = protocol::extension_origins();
    if wanted
        .iter()
        .any(|want| origin == want || origin.trim_end_matches('/') == want.trim_end_matches('/'))
    {
        Ok(())
    } else {
        Err(HostError::WrongOrigin {
            got: origin.into(),
            want: wanted.join(" or "),
        })
    }
}

/// State shared by the stdin router and the per-serve connection tasks.
#[derive(Default)]
struct Routes {
    /// Connection number → queue of bytes to write to that serve's socket
    /// (whole frames, or consecutive pieces of one).
    by_conn: HashMap<u64, mpsc::Sender<Vec<u8>>>,
    /// Socket paths with a live connection.
    connected: HashSet<PathBuf>,
    /// Socket paths that refused recently, with the time of refusal.
    refused: HashMap<PathBuf, Instant>,
    next_conn: u64,
}

/// The host as a program runs it (`tabwire native-host`, `tabwire-host`):
/// [`run`] with the user's runtime dir; returns the exit status, and says
/// what went wrong on stderr as `name`.
pub async fn run_as(name: &str, origin: &str, max_frame: usize, scan_interval: Duration) -> i32 {
    let opts = HostOptions {
        runtime_dir: broker::dir::runtime_dir_path(),
        max_frame,
        scan_interval,
    };
    match run(origin, opts).await {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("{name}: {e}");
            1
        }
    }
}

pub async fn run(origin: &str, opts: HostOptions) -> Result<(), HostError> {
    check_origin(origin)?;
    let dir = broker::dir::ensure_runtime_dir(&opts.runtime_dir)?;
    tracing::info!(dir = %dir.display(), "native host started");
    // Listening for wakes before the first scan: a serve that binds after
    // that scan finds this socket and wakes us.
    let wake = match broker::wake::listen(&dir) {
        Ok(w) => Some(w),
        Err(e) => {
            tracing::warn!(error = %e, "no wake socket; new serves are found by the periodic scan");
            None
        }
    };
    let wake_path = wake.as_ref().map(|w| w.path.clone());

    let routes = Arc::new(Mutex::new(Routes::default()));
    let (to_chrome, chrome_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    std::thread::Builder::new()
        .name("to-chrome".into())
        .spawn(move || write_to_chrome(chrome_rx))
        .expect("spawn the stdout thread");
    tokio::spawn(discover(
        Discovery {
            dir,
            wake,
            scan_interval: opts.scan_interval,
        },
        origin.to_string(),
        opts.max_frame,
        routes.clone(),
        to_chrome,
    ));

    let (done, stdin_ended) = tokio::sync::oneshot::channel();
    let max_frame = opts.max_frame;
    std::thread::Builder::new()
        .name("from-chrome".into())
        .spawn(move || {
            let _ = done.send(read_from_chrome(
                &mut std::io::stdin().lock(),
                max_frame,
                &routes,
            ));
        })
        .expect("spawn the stdin thread");
    let ended = stdin_ended.await;
    // The process exits without running destructors: remove the wake
    // socket here (one left behind is removed by the next serve).
    if let Some(path) = wake_path {
        let _ = std::fs::remove_file(path);
    }
    match ended {
        Ok(Err(e)) => Err(HostError::Stdin(e)),
        _ => {
            tracing::info!("Chrome closed stdin; native host exiting");
            Ok(())
        }
    }
}

/// Where and when [`discover`] looks for serves.
struct Discovery {
    dir: PathBuf,
    /// This host's wake socket: a serve connects to it right after it binds.
    wake: Option<broker::wake::WakeSocket>,
    scan_interval: Duration,
}

/// Finds serve sockets, now and later, and connects to each new one: it
/// lists the directory at start, whenever a serve wakes it, and every
/// `scan_interval`.
async fn discover(
    how: Discovery,
    origin: String,
    max_frame: usize,
    routes: Arc<Mutex<Routes>>,
    to_chrome: mpsc::UnboundedSender<Vec<u8>>,
) {
    let woken = Arc::new(tokio::sync::Notify::new());
    if let Some(wake) = how.wake {
        let woken = woken.clone();
        tokio::spawn(async move {
            loop {
                match broker::wake::next_wake(&wake).await {
                    // A wake that comes during a scan is kept (one permit)
                    // and starts the next scan at once.
                    Ok(()) => woken.notify_one(),
                    Err(e) => {
                        tracing::warn!(error = %e, "accepting a wake failed");
                        tokio::time::sleep(Duration::from_millis(100)).await;
                    }
                }
            }
        });
    }
    loop {
        for path in broker::list_sockets(&how.dir).unwrap_or_default() {
            if !claim(&routes, &path) {
                continue;
            }
            let routes = routes.clone();
            let to_chrome = to_chrome.clone();
            let origin = origin.clone();
            tokio::spawn(async move {
                serve_connection(&path, &origin, max_frame, &routes, &to_chrome).await;
                routes.lock().expect("routes lock").connected.remove(&path);
            });
        }
        tokio::select! {
            _ = tokio::time::sleep(how.scan_interval) => {}
            _ = woken.notified() => tracing::debug!("woken by a new serve"),
        }
    }
}

/// Marks a path as being connected; false if it already is or refused lately.
fn claim(routes: &Mutex<Routes>, path: &Path) -> bool {
    let mut r = routes.lock().expect("routes lock");
    if r.connected.contains(path) {
        return false;
    }
    if let Some(t) = r.refused.get(path) {
        if t.elapsed() < RETRY_AFTER {
            return false;
        }
    }
    r.connected.insert(path.to_path_buf());
    true
}

/// Runs one serve connection until either side ends it.
async fn serve_connection(
    path: &Path,
    origin: &str,
    max_frame: usize,
    routes: &Mutex<Routes>,
    to_chrome: &mpsc::UnboundedSender<Vec<u8>>,
) {
    let stream = match broker::connect(path).await {
        Ok(s) => s,
        Err(e) => {
            tracing::debug!(path = %path.display(), error = %e, "serve socket not reachable");
            let mut r = routes.lock().expect("routes lock");
            // Refusals past their wait count for nothing: dropped, so
            // sockets of long-gone serves do not pile up here.
            r.refused.retain(|_, t| t.elapsed() < RETRY_AFTER);
            r.refused.insert(path.to_path_buf(), Instant::now());
            return;
        }
    };
    if let Err(e) = broker::check_peer(&stream) {
        tracing::error!(path = %path.display(), error = %e, "refusing serve socket");
        return;
    }
    // `&Stream` reads and writes: share it instead of splitting.
    let stream = Arc::new(stream);

    let hello = serde_json::to_vec(&HostHello::new(origin)).expect("hello serializes");
    if let Err(e) = wire::write_frame(&mut &*stream, &hello, Framing::Socket, max_frame).await {
        tracing::warn!(path = %path.display(), error = %e, "could not greet serve");
        return;
    }

    let (tx, mut rx) = mpsc::channel::<Vec<u8>>(SERVE_QUEUE);
    let conn = {
        let mut r = routes.lock().expect("routes lock");
        r.next_conn += 1;
        let c = r.next_conn;
        r.by_conn.insert(c, tx);
        c
    };
    tracing::info!(conn, path = %path.display(), "connected to serve");

    // Extension → serve: drain this connection's queue (framed bytes) into
    // the socket.
    let write_side = stream.clone();
    let writer = tokio::spawn(async move {
        while let Some(bytes) = rx.recv().await {
            if let Err(e) = (&*write_side).write_all(&bytes).await {
                tracing::info!(conn, error = %e, "write to serve failed");
                break;
            }
        }
    });

    // Serve → extension: tag and forward every frame.
    let mut reader = FrameReader::new(&*stream, Framing::Socket, max_frame);
    let mut chunk_ids = 0u64;
    loop {
        match reader.read_frame().await {
            Ok(Some(msg)) => {
                let raw: &RawValue = match serde_json::from_slice(&msg) {
                    Ok(raw) => raw,
                    Err(e) => {
                        tracing::error!(conn, error = %e, "serve sent invalid JSON; closing it");
                        break;
                    }
                };
                let wrapped = protocol::wrap_for_extension(conn, raw);
                if wrapped.len() <= NATIVE_TO_CHROME_MAX {
                    let _ = to_chrome.send(wrapped);
                } else {
                    chunk_ids += 1;
                    for part in
                        protocol::chunk_for_extension(conn, chunk_ids, raw, NATIVE_TO_CHROME_MAX)
                    {
                        let _ = to_chrome.send(part);
                    }
                }
            }
            Ok(None) => {
                tracing::info!(conn, "serve disconnected");
                break;
            }
            Err(e) => {
                tracing::error!(conn, error = %e, "bad frame from serve; closing that connection");
                break;
            }
        }
    }
    routes.lock().expect("routes lock").by_conn.remove(&conn);
    writer.abort();
    let _ = to_chrome.send(protocol::gone_message(conn));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_only_the_pinned_origin() {
        check_origin(&protocol::extension_origin()).unwrap();
        // And the store build's, in a build given its ID.
        for origin in protocol::extension_origins() {
            check_origin(&origin).unwrap();
            check_origin(origin.trim_end_matches('/')).unwrap();
        }
        let err = check_origin("chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/")
            .unwrap_err()
            .to_string();
        assert!(err.contains("refusing"), "{err}");
        assert!(check_origin("").is_err());
        assert!(check_origin("https://example.com/").is_err());
    }
}
