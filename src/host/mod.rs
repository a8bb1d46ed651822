//! `tabwire native-host`: the relay Chrome spawns for the extension.
//!
//! It checks the calling origin, then brokers between the extension (its
//! stdin/stdout, native-messaging framing) and every running `serve` (one
//! socket connection each, found by scanning the runtime directory, including
//! servers that start later). Messages from a serve are tagged with that
//! connection's number `c` and passed through unparsed; messages from the
//! extension are routed on `c`. One bad connection is closed alone; the host
//! exits when Chrome closes its stdin (Chrome sends no other signal).

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::broker;
use crate::frame::{self, FrameReader, Framing, NATIVE_TO_CHROME_MAX};
use crate::protocol::{self, FromExtension, HostHello};

/// How often the runtime directory is scanned for new servers.
const SCAN_INTERVAL: Duration = Duration::from_millis(200);
/// A socket that refused a connection is retried after this long.
const RETRY_AFTER: Duration = Duration::from_secs(2);
/// Messages queued toward one serve before it is considered stuck.
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
    Stdin(frame::FrameError),
}

pub struct HostOptions {
    pub runtime_dir: PathBuf,
    pub max_frame: usize,
}

/// Accepts `chrome-extension://<id>/` for tabwire's pinned ID only.
pub fn check_origin(origin: &str) -> Result<(), HostError> {
    let want = protocol::extension_origin();
    if origin == want || origin.trim_end_matches('/') == want.trim_end_matches('/') {
        Ok(())
    } else {
        Err(HostError::WrongOrigin {
            got: origin.into(),
            want,
        })
    }
}

/// State shared by the stdin router and the per-serve connection tasks.
#[derive(Default)]
struct Routes {
    /// Connection number → queue of raw messages for that serve.
    by_conn: HashMap<u64, mpsc::Sender<Vec<u8>>>,
    /// Socket paths with a live connection.
    connected: HashSet<PathBuf>,
    /// Socket paths that refused recently, with the time of refusal.
    refused: HashMap<PathBuf, Instant>,
    next_conn: u64,
}

pub async fn run(origin: &str, opts: HostOptions) -> Result<(), HostError> {
    check_origin(origin)?;
    let dir = broker::dir::ensure_runtime_dir(&opts.runtime_dir)?;
    tracing::info!(dir = %dir.display(), "native host started");

    let routes = Arc::new(Mutex::new(Routes::default()));
    let (to_chrome, chrome_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    tokio::spawn(write_to_chrome(chrome_rx));
    tokio::spawn(discover(
        dir,
        origin.to_string(),
        opts.max_frame,
        routes.clone(),
        to_chrome,
    ));

    let mut stdin = FrameReader::new(tokio::io::stdin(), Framing::Native, opts.max_frame);
    loop {
        match stdin.read_frame().await {
            Ok(Some(msg)) => route_from_chrome(&msg, &routes),
            Ok(None) => {
                tracing::info!("Chrome closed stdin; native host exiting");
                return Ok(());
            }
            Err(e) => return Err(HostError::Stdin(e)),
        }
    }
}

/// Sends one extension message to the serve it names.
fn route_from_chrome(msg: &[u8], routes: &Mutex<Routes>) {
    let env: FromExtension = match serde_json::from_slice(msg) {
        Ok(env) => env,
        Err(e) => {
            tracing::warn!(error = %e, "dropping malformed message from the extension");
            return;
        }
    };
    let (Some(c), Some(m)) = (env.c, env.m) else {
        tracing::debug!("extension message without a route; ignored");
        return;
    };
    let mut routes = routes.lock().expect("routes lock");
    let Some(tx) = routes.by_conn.get(&c) else {
        tracing::debug!(conn = c, "message for a serve that is gone; dropped");
        return;
    };
    if let Err(mpsc::error::TrySendError::Full(_)) = tx.try_send(m.get().as_bytes().to_vec()) {
        tracing::error!(
            conn = c,
            "serve is not reading its messages; closing that connection"
        );
        routes.by_conn.remove(&c);
    }
}

/// The only writer of stdout: one native-messaging frame per message.
async fn write_to_chrome(mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    let mut stdout = tokio::io::stdout();
    while let Some(msg) = rx.recv().await {
        let bytes = match frame::encode(&msg, Framing::Native, NATIVE_TO_CHROME_MAX) {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(error = %e, "message toward Chrome refused");
                continue;
            }
        };
        if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
            tracing::info!("stdout closed; native host exiting");
            std::process::exit(0);
        }
    }
}

/// Finds serve sockets, now and later, and connects to each new one.
async fn discover(
    dir: PathBuf,
    origin: String,
    max_frame: usize,
    routes: Arc<Mutex<Routes>>,
    to_chrome: mpsc::UnboundedSender<Vec<u8>>,
) {
    loop {
        for path in broker::list_sockets(&dir).unwrap_or_default() {
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
        tokio::time::sleep(SCAN_INTERVAL).await;
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
            routes
                .lock()
                .expect("routes lock")
                .refused
                .insert(path.to_path_buf(), Instant::now());
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
    if let Err(e) = frame::write_frame(&mut &*stream, &hello, Framing::Socket, max_frame).await {
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

    // Extension → serve: drain this connection's queue into the socket.
    let write_side = stream.clone();
    let writer = tokio::spawn(async move {
        while let Some(msg) = rx.recv().await {
            if let Err(e) =
                frame::write_frame(&mut &*write_side, &msg, Framing::Socket, max_frame).await
            {
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
        let err = check_origin("chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/")
            .unwrap_err()
            .to_string();
        assert!(err.contains("refusing"), "{err}");
        assert!(check_origin("").is_err());
        assert!(check_origin("https://example.com/").is_err());
    }
}
