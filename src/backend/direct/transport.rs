//! Byte transports for a direct CDP connection: the launched browser's pipe
//! (NUL-terminated JSON on fds 3/4) or a WebSocket to an existing browser.
//! Both end up as a pair of channels of whole JSON messages.

use tokio::sync::mpsc;

/// Whole CDP messages out and in. `rx` ends when the connection closes.
pub struct Transport {
    pub tx: mpsc::UnboundedSender<String>,
    pub rx: mpsc::UnboundedReceiver<String>,
}

/// Starts `program` with CDP on a pipe: the browser reads fd 3 and writes
/// fd 4. Our ends are close-on-exec, so only the browser holds its ends.
#[cfg(unix)]
pub fn spawn_with_pipe(
    program: &std::path::Path,
    args: &[String],
) -> Result<(tokio::process::Child, Transport), String> {
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    use tokio::net::unix::pipe;

    /// A close-on-exec pipe whose fds are numbered 10 or higher: then the
    /// child's dup2 onto 3 and 4 always creates a new descriptor (clearing
    /// close-on-exec) and never overwrites the other pipe's end.
    fn cloexec_pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
        let mut fds = [0; 2];
        // SAFETY: fds is a valid two-element array for pipe2 to fill.
        #[cfg(target_os = "linux")]
        let made = unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) };
        // macOS has no pipe2; the ends move to close-on-exec descriptors
        // just below.
        // SAFETY: fds is a valid two-element array for pipe to fill.
        #[cfg(not(target_os = "linux"))]
        let made = unsafe { libc::pipe(fds.as_mut_ptr()) };
        if made != 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: pipe2 succeeded, so both fds are open and owned by us.
        let (r, w) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
        let high = |fd: OwnedFd| -> std::io::Result<OwnedFd> {
            // SAFETY: F_DUPFD_CLOEXEC on an open fd returns a new owned fd.
            let n = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 10) };
            if n < 0 {
                return Err(std::io::Error::last_os_error());
            }
            // SAFETY: n is a fresh descriptor we own; `fd` closes on drop.
            Ok(unsafe { OwnedFd::from_raw_fd(n) })
        };
        Ok((high(r)?, high(w)?))
    }

    let (browser_reads, we_write) = cloexec_pipe().map_err(|e| format!("pipe: {e}"))?;
    let (we_read, browser_writes) = cloexec_pipe().map_err(|e| format!("pipe: {e}"))?;
    let (r, w) = (browser_reads.as_raw_fd(), browser_writes.as_raw_fd());

    let mut cmd = tokio::process::Command::new(program);
    // Its own process group, so that closing it can take every helper
    // process it started along (see DirectBackend::shutdown).
    cmd.args(args)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .process_group(0);
    // SAFETY: only async-signal-safe calls (dup2) run between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            // dup2 clears close-on-exec on the new descriptors 3 and 4.
            if libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd
        .spawn()
        .map_err(|e| format!("could not start {}: {e}", program.display()))?;
    drop((browser_reads, browser_writes));

    let mut writer = pipe::Sender::from_owned_fd(we_write).map_err(|e| format!("pipe: {e}"))?;
    let reader = pipe::Receiver::from_owned_fd(we_read).map_err(|e| format!("pipe: {e}"))?;
    let (tx, mut out) = mpsc::unbounded_channel::<String>();
    let (inc, rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        while let Some(msg) = out.recv().await {
            let mut bytes = msg.into_bytes();
            bytes.push(0);
            if writer.write_all(&bytes).await.is_err() {
                break;
            }
        }
    });
    tokio::spawn(async move {
        let mut reader = BufReader::new(reader);
        let mut buf = Vec::new();
        loop {
            buf.clear();
            match reader.read_until(0, &mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if buf.last() == Some(&0) {
                        buf.pop();
                    }
                    let msg = String::from_utf8_lossy(&buf).into_owned();
                    if inc.send(msg).is_err() {
                        break;
                    }
                }
            }
        }
    });
    Ok((child, Transport { tx, rx }))
}

#[cfg(not(unix))]
pub fn spawn_with_pipe(
    _program: &std::path::Path,
    _args: &[String],
) -> Result<(tokio::process::Child, Transport), String> {
    Err(
        "launching a browser over a CDP pipe is not supported on this OS yet; \
         use the tabwire extension or --cdp-url"
            .into(),
    )
}

/// Turns `http://host:port` into the browser's WebSocket URL (via
/// `/json/version`); a `ws://` URL is used as is.
pub async fn resolve_ws_url(url: &str) -> Result<String, String> {
    if url.starts_with("ws://") || url.starts_with("wss://") {
        return Ok(url.to_string());
    }
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("--cdp-url must start with ws:// or http:// (got {url})"))?;
    let host = rest.trim_end_matches('/').split('/').next().unwrap_or(rest);
    let body = http_get(host, "/json/version").await?;
    let v: serde_json::Value =
        serde_json::from_str(&body).map_err(|e| format!("{url}/json/version is not JSON: {e}"))?;
    v["webSocketDebuggerUrl"]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{url}/json/version has no webSocketDebuggerUrl"))
}

/// A minimal HTTP/1.1 GET (the DevTools HTTP endpoint is local and tiny).
/// Chrome may keep the connection open, so the body is read by its length.
async fn http_get(host: &str, path: &str) -> Result<String, String> {
    use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
    let fetch = async {
        let mut s = tokio::net::TcpStream::connect(host)
            .await
            .map_err(|e| format!("could not reach {host}: {e}"))?;
        let req = format!("GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n");
        s.write_all(req.as_bytes())
            .await
            .map_err(|e| e.to_string())?;
        let mut r = BufReader::new(s);
        let mut status = String::new();
        r.read_line(&mut status).await.map_err(|e| e.to_string())?;
        if !status.contains(" 200 ") {
            return Err(format!("{host}{path} answered {}", status.trim()));
        }
        let mut length = None;
        loop {
            let mut line = String::new();
            if r.read_line(&mut line).await.map_err(|e| e.to_string())? == 0 {
                break;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((k, v)) = line.split_once(':') {
                if k.eq_ignore_ascii_case("content-length") {
                    length = v.trim().parse::<usize>().ok();
                }
            }
        }
        let mut body = Vec::new();
        match length {
            Some(n) => {
                body.resize(n.min(1 << 20), 0);
                r.read_exact(&mut body).await.map_err(|e| e.to_string())?;
            }
            None => {
                r.take(1 << 20)
                    .read_to_end(&mut body)
                    .await
                    .map_err(|e| e.to_string())?;
            }
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    };
    tokio::time::timeout(std::time::Duration::from_secs(10), fetch)
        .await
        .map_err(|_| format!("{host}{path} did not answer within 10 s"))?
}

/// Connects to a browser's DevTools WebSocket.
pub async fn connect_websocket(url: &str) -> Result<Transport, String> {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::Message;
    let (ws, _) = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        tokio_tungstenite::connect_async(url),
    )
    .await
    .map_err(|_| format!("{url} did not accept a WebSocket within 10 s"))?
    .map_err(|e| format!("could not connect to {url}: {e}"))?;
    let (mut sink, mut stream) = ws.split();
    let (tx, mut out) = mpsc::unbounded_channel::<String>();
    let (inc, rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        while let Some(msg) = out.recv().await {
            if sink.send(Message::text(msg)).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    tokio::spawn(async move {
        while let Some(Ok(msg)) = stream.next().await {
            let text = match msg {
                Message::Text(t) => t.to_string(),
                Message::Binary(b) => String::from_utf8_lossy(&b).into_owned(),
                Message::Close(_) => break,
                _ => continue,
            };
            if inc.send(text).is_err() {
                break;
            }
        }
    });
    Ok(Transport { tx, rx })
}
