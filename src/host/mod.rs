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
//! writing it, so it is never held whole in the host.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::value::RawValue;
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::broker;
use crate::frame::{self, FrameReader, Framing, NATIVE_TO_CHROME_MAX};
use crate::protocol::{self, FromExtension, HostHello};

/// How often the runtime directory is scanned for new servers when no
/// serve wakes the host (a serve from before wake sockets, a missed wake).
pub const SCAN_INTERVAL: Duration = Duration::from_secs(1);
/// A socket that refused a connection is retried after this long.
const RETRY_AFTER: Duration = Duration::from_secs(2);
/// Messages (or chunks of one) queued toward one serve before it is
/// considered stuck.
const SERVE_QUEUE: usize = 1024;
/// Extension messages larger than this are streamed to their serve.
const STREAM_FROM: usize = 256 * 1024;
/// Size of each streamed piece.
const CHUNK: usize = 256 * 1024;

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

/// Reads extension messages until Chrome closes stdin (`Ok`) or sends a
/// bad frame, and routes each to its serve.
fn read_from_chrome(
    stdin: &mut impl Read,
    max: usize,
    routes: &Mutex<Routes>,
) -> Result<(), frame::FrameError> {
    loop {
        let mut header = [0u8; 4];
        match read_full(stdin, &mut header)? {
            0 => return Ok(()),
            4 => {}
            got => return Err(frame::FrameError::Truncated { got, want: 4 }),
        }
        let len = u32::from_ne_bytes(header) as usize;
        if len == 0 {
            return Err(frame::FrameError::Empty);
        }
        if len > max {
            return Err(frame::FrameError::TooLarge { len, max });
        }
        let truncated = |got: usize| frame::FrameError::Truncated {
            got: 4 + got,
            want: 4 + len,
        };
        if len <= STREAM_FROM {
            let mut msg = vec![0u8; len];
            let got = read_full(stdin, &mut msg)?;
            if got < len {
                return Err(truncated(got));
            }
            route_from_chrome(&msg, routes);
            continue;
        }
        // Large: look at the envelope, then stream the payload on.
        let mut head = vec![0u8; 32];
        let got = read_full(stdin, &mut head)?;
        if got < head.len() {
            return Err(truncated(got));
        }
        let Some((c, start)) = envelope(&head) else {
            // Not the usual shape: read it whole and take the slow path.
            head.resize(len, 0);
            let got = read_full(stdin, &mut head[32..])?;
            if got < len - 32 {
                return Err(truncated(32 + got));
            }
            route_from_chrome(&head, routes);
            continue;
        };
        stream_to_serve(stdin, routes, c, head, start, len)
            .map_err(|got| got.map_or_else(frame::FrameError::Io, truncated))?;
    }
}

/// Passes the payload of a large `{"c":c,"m":<payload>}` message to serve
/// `c` as one socket frame, in pieces, as it arrives. `head` holds the
/// message's first bytes, the payload starting at `start`. Err(Ok(n)) means
/// stdin ended after `n` bytes of the message.
fn stream_to_serve(
    stdin: &mut impl Read,
    routes: &Mutex<Routes>,
    c: u64,
    head: Vec<u8>,
    start: usize,
    len: usize,
) -> Result<(), Result<usize, std::io::Error>> {
    // The payload is everything between the prefix and the closing brace.
    let payload_len = len - start - 1;
    let mut tx = routes.lock().expect("routes lock").by_conn.get(&c).cloned();
    if tx.is_none() {
        tracing::debug!(conn = c, "message for a serve that is gone; dropped");
    }
    let mut piece = Vec::with_capacity(CHUNK + 4);
    piece.extend_from_slice(&(payload_len as u32).to_le_bytes());
    piece.extend_from_slice(&head[start..]);
    // Bytes of this message still unread on stdin.
    let mut remaining = len - head.len();
    loop {
        let take = remaining.min(CHUNK.saturating_sub(piece.len()));
        if take > 0 {
            let at = piece.len();
            piece.resize(at + take, 0);
            let n = read_full(stdin, &mut piece[at..]).map_err(Err)?;
            if n < take {
                return Err(Ok(len - remaining + n));
            }
            remaining -= take;
        }
        let last = remaining == 0;
        // The closing brace of the envelope is not the serve's.
        if last && piece.pop() != Some(b'}') {
            tracing::warn!(conn = c, "extension message did not close its envelope");
        }
        if let Some(sender) = &tx {
            if !queue(routes, c, sender, std::mem::take(&mut piece)) {
                tx = None;
            }
        }
        if last {
            return Ok(());
        }
        piece = Vec::with_capacity(CHUNK);
    }
}

/// `{"c":<digits>,"m":` at the start of an extension message (Chrome
/// writes the keys sorted): the route and where the payload starts.
fn envelope(msg: &[u8]) -> Option<(u64, usize)> {
    let rest = msg.strip_prefix(b"{\"c\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    if digits == 0 || digits > 18 {
        return None;
    }
    let c = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    let after = rest[digits..].strip_prefix(b",\"m\":")?;
    Some((c, msg.len() - after.len()))
}

/// Queues bytes for serve `c`; a serve that stopped reading loses its
/// route (false).
fn queue(routes: &Mutex<Routes>, c: u64, tx: &mpsc::Sender<Vec<u8>>, bytes: Vec<u8>) -> bool {
    match tx.try_send(bytes) {
        Ok(()) => true,
        Err(mpsc::error::TrySendError::Full(_)) => {
            tracing::error!(
                conn = c,
                "serve is not reading its messages; closing that connection"
            );
            routes.lock().expect("routes lock").by_conn.remove(&c);
            false
        }
        Err(mpsc::error::TrySendError::Closed(_)) => false,
    }
}

/// Fills `buf` unless the stream ends first; returns how many bytes were read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Sends one (whole) extension message to the serve it names.
fn route_from_chrome(msg: &[u8], routes: &Mutex<Routes>) {
    let (c, payload) = match envelope(msg) {
        Some((c, start)) if msg.len() > start + 1 && msg.ends_with(b"}") => {
            (c, &msg[start..msg.len() - 1])
        }
        _ => {
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
            route_raw(c, m.get().as_bytes(), routes);
            return;
        }
    };
    route_raw(c, payload, routes);
}

/// Queues one payload for serve `c` as a socket frame.
fn route_raw(c: u64, payload: &[u8], routes: &Mutex<Routes>) {
    let tx = routes.lock().expect("routes lock").by_conn.get(&c).cloned();
    let Some(tx) = tx else {
        tracing::debug!(conn = c, "message for a serve that is gone; dropped");
        return;
    };
    let mut framed = Vec::with_capacity(payload.len() + 4);
    framed.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    framed.extend_from_slice(payload);
    queue(routes, c, &tx, framed);
}

/// The only writer of stdout: one native-messaging frame per message.
fn write_to_chrome(mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    while let Some(msg) = rx.blocking_recv() {
        let bytes = match frame::encode(&msg, Framing::Native, NATIVE_TO_CHROME_MAX) {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(error = %e, "message toward Chrome refused");
                continue;
            }
        };
        if stdout.write_all(&bytes).is_err() || stdout.flush().is_err() {
            tracing::info!("stdout closed; native host exiting");
            std::process::exit(0);
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

    #[test]
    fn the_envelope_is_matched_without_parsing_the_payload() {
        assert_eq!(envelope(br#"{"c":12,"m":{"id":1}}"#), Some((12, 12)));
        assert_eq!(envelope(br#"{"m":1,"c":2}"#), None);
        assert_eq!(envelope(br#"{"c":,"m":1}"#), None);
        assert_eq!(envelope(br#"{"c":1}"#), None);
    }

    fn native(msg: &str) -> Vec<u8> {
        let mut bytes = (msg.len() as u32).to_ne_bytes().to_vec();
        bytes.extend_from_slice(msg.as_bytes());
        bytes
    }

    /// Small and streamed messages reach their serve as exact socket frames.
    #[test]
    fn messages_reach_their_serve_as_whole_frames() {
        let routes = Mutex::new(Routes::default());
        let (tx, mut rx) = mpsc::channel(SERVE_QUEUE);
        routes.lock().unwrap().by_conn.insert(3, tx);
        let big = format!(
            r#"{{"id":1,"result":{{"data":"{}"}}}}"#,
            "A".repeat(3 * CHUNK)
        );
        let mut stdin = native(r#"{"c":3,"m":{"id":7,"result":{}}}"#);
        stdin.extend(native(&format!(r#"{{"c":3,"m":{big}}}"#)));
        stdin.extend(native(r#"{"c":9,"m":{"id":8}}"#)); // no such serve
        stdin.extend(native(r#"{"m":{"id":9},"c":3}"#)); // other key order
        read_from_chrome(&mut &stdin[..], 64 << 20, &routes).unwrap();
        let mut bytes = Vec::new();
        while let Ok(piece) = rx.try_recv() {
            bytes.extend(piece);
        }
        let mut frames = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            let len = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
            frames.push(String::from_utf8(bytes[at + 4..at + 4 + len].to_vec()).unwrap());
            at += 4 + len;
        }
        assert_eq!(
            frames,
            [r#"{"id":7,"result":{}}"#, big.as_str(), r#"{"id":9}"#]
        );
    }

    #[test]
    fn a_truncated_large_message_is_an_error() {
        let routes = Mutex::new(Routes::default());
        let msg = native(&format!(r#"{{"c":1,"m":"{}"}}"#, "A".repeat(2 * CHUNK)));
        let cut = &msg[..msg.len() - 10];
        assert!(matches!(
            read_from_chrome(&mut &cut[..], 64 << 20, &routes),
            Err(frame::FrameError::Truncated { .. })
        ));
    }
}
