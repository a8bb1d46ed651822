//! Chrome's side of the host: the extension's messages read from stdin
//! (each routed to its serve on its envelope alone, a large one streamed
//! on in pieces while Chrome is still writing it) and the only writer of
//! stdout. Finding serves and their connections are in `mod.rs`.

use std::io::{Read, Write};
use std::sync::Mutex;

use tokio::sync::mpsc;

use super::Routes;
use crate::protocol::FromExtension;
use crate::wire::{self, Framing, NATIVE_TO_CHROME_MAX};

/// Extension messages larger than this are streamed to their serve.
const STREAM_FROM: usize = 256 * 1024;
/// Size of each streamed piece.
const CHUNK: usize = 256 * 1024;

/// Reads extension messages until Chrome closes stdin (`Ok`) or sends a
/// bad frame, and routes each to its serve.
pub(super) fn read_from_chrome(
    stdin: &mut impl Read,
    max: usize,
    routes: &Mutex<Routes>,
) -> Result<(), wire::FrameError> {
    loop {
        let mut header = [0u8; 4];
        match read_full(stdin, &mut header)? {
            0 => return Ok(()),
            4 => {}
            got => return Err(wire::FrameError::Truncated { got, want: 4 }),
        }
        let len = u32::from_ne_bytes(header) as usize;
        if len == 0 {
            return Err(wire::FrameError::Empty);
        }
        if len > max {
            return Err(wire::FrameError::TooLarge { len, max });
        }
        let truncated = |got: usize| wire::FrameError::Truncated {
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
            .map_err(|got| got.map_or_else(wire::FrameError::Io, truncated))?;
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
pub(super) fn write_to_chrome(mut rx: mpsc::UnboundedReceiver<Vec<u8>>) {
    let stdout = std::io::stdout();
    let mut stdout = stdout.lock();
    while let Some(msg) = rx.blocking_recv() {
        let bytes = match wire::encode(&msg, Framing::Native, NATIVE_TO_CHROME_MAX) {
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

#[cfg(test)]
mod tests {
    use super::super::SERVE_QUEUE;
    use super::*;

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
            Err(wire::FrameError::Truncated { .. })
        ));
    }
}
