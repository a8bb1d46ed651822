//! The native host between real `tabwire serve` processes and a scripted
//! Chrome: the test spawns `tabwire native-host` with pipes and speaks
//! native-messaging framing on its stdio, as Chrome would.

mod common;

use std::io::{Read, Write};
use std::os::unix::net::UnixListener;
use std::process::Stdio;
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use tabwire::wire::{self, FrameReader, Framing};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

/// Plays Chrome: answers `hello` and `tabs.list` like the extension would
/// (each server gets a tab titled after its server id) and reports every
/// message it receives to the test.
struct FakeChrome {
    child: Child,
    to_host: mpsc::UnboundedSender<Vec<u8>>,
    seen: mpsc::UnboundedReceiver<Value>,
}

impl FakeChrome {
    async fn start(sb: &Sandbox, args: &[&str]) -> Self {
        let mut child = Command::new(BIN)
            .args(args)
            .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
            .env("RUST_LOG", "tabwire=debug")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(sb.log("native-host")).unwrap())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn native host");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (to_host, mut outbox) = mpsc::unbounded_channel::<Vec<u8>>();
        tokio::spawn(async move {
            // An empty buffer is the signal to close stdin, as Chrome does on exit.
            while let Some(bytes) = outbox.recv().await {
                if bytes.is_empty() || stdin.write_all(&bytes).await.is_err() {
                    break;
                }
            }
        });
        let (seen_tx, seen) = mpsc::unbounded_channel();
        let answer = to_host.clone();
        tokio::spawn(async move {
            let mut reader = FrameReader::new(stdout, Framing::Native, 64 << 20);
            let mut servers = std::collections::HashMap::new();
            while let Ok(Some(bytes)) = reader.read_frame().await {
                assert!(
                    bytes.len() <= wire::NATIVE_TO_CHROME_MAX,
                    "host sent {} bytes",
                    bytes.len()
                );
                let msg: Value = serde_json::from_slice(&bytes).expect("host sent JSON");
                let c = msg["c"].clone();
                let m = &msg["m"];
                let reply = match m["method"].as_str() {
                    Some("hello") => {
                        servers.insert(c.to_string(), m["params"]["server"].clone());
                        Some(json!({"v": 1, "version": "fake"}))
                    }
                    Some("tabs.list") => Some(json!({"tabs": [{
                        "tabId": 1, "url": "about:blank", "active": true,
                        "title": format!("tab of {}", servers[&c.to_string()].as_str().unwrap()),
                    }]})),
                    _ => None,
                };
                if let Some(result) = reply {
                    let out = json!({"c": c, "m": {"id": m["id"], "result": result}});
                    let body = serde_json::to_vec(&out).unwrap();
                    let _ = answer.send(wire::encode(&body, Framing::Native, 1 << 20).unwrap());
                }
                let _ = seen_tx.send(msg);
            }
        });
        Self {
            child,
            to_host,
            seen,
        }
    }

    fn send_raw(&self, body: &[u8]) {
        let mut bytes = (body.len() as u32).to_ne_bytes().to_vec();
        bytes.extend_from_slice(body);
        self.to_host.send(bytes).unwrap();
    }

    fn close_stdin(&self) {
        self.to_host.send(Vec::new()).unwrap();
    }

    /// The next message the host sent that satisfies `pred`.
    async fn expect(&mut self, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
        loop {
            let msg = tokio::time::timeout_at(deadline, self.seen.recv())
                .await
                .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
                .unwrap_or_else(|| panic!("host closed stdout while waiting for {what}"));
            if pred(&msg) {
                return msg;
            }
        }
    }
}

fn serve_args() -> [&'static str; 2] {
    ["--connect-timeout", "15"]
}

/// The tab title a client sees through the fake Chrome.
async fn tab_title(mcp: &Mcp) -> String {
    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    let start = list.find("[tab of ").unwrap_or_else(|| panic!("{list}")) + 1;
    list[start..start + list[start..].find(']').unwrap()].to_string()
}

#[tokio::test]
async fn routes_each_server_including_one_started_after_the_host() {
    let sb = Sandbox::new();
    let early = Mcp::start(&sb, "early", &serve_args()).await;
    let _chrome = FakeChrome::start(&sb, &["native-host", EXTENSION_ORIGIN]).await;
    let title_early = tab_title(&early).await;

    let late = Mcp::start(&sb, "late", &serve_args()).await;
    let title_late = tab_title(&late).await;
    assert_ne!(
        title_early, title_late,
        "each server must get its own answers"
    );

    // Interleaved calls stay routed to the right server.
    let (a, b) = tokio::join!(tab_title(&early), tab_title(&late));
    assert_eq!((a, b), (title_early, title_late));
}

/// A serve started after the host is found because it wakes the host, not
/// by the host's periodic scan: here that scan is ten minutes apart.
#[tokio::test]
async fn a_new_serve_wakes_the_host_instead_of_waiting_for_its_scan() {
    let sb = Sandbox::new();
    let early = Mcp::start(&sb, "early", &serve_args()).await;
    let _chrome = FakeChrome::start(
        &sb,
        &["native-host", EXTENSION_ORIGIN, "--scan-ms", "600000"],
    )
    .await;
    // The host's first scan is done: it found the early serve.
    tab_title(&early).await;

    let late = Mcp::start(&sb, "late", &["--connect-timeout", "5"]).await;
    let title = tab_title(&late).await;
    assert!(title.contains("tab of "), "{title}");
}

/// The wake sockets of the hosts running now, in the runtime directory.
fn wake_sockets(sb: &Sandbox) -> Vec<String> {
    std::fs::read_dir(&sb.runtime)
        .map(|d| {
            d.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".wake"))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn bare_origin_invocation_is_host_mode_and_stdin_close_ends_it() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb, "solo", &serve_args()).await;
    // Chrome runs the manifest's path with only the origin as argument.
    let mut chrome = FakeChrome::start(&sb, &[EXTENSION_ORIGIN]).await;
    tab_title(&mcp).await;
    let pid = chrome.child.id().unwrap();
    assert_eq!(wake_sockets(&sb), vec![format!("host-{pid}.wake")]);

    chrome.close_stdin();
    let status = tokio::time::timeout(Duration::from_secs(3), chrome.child.wait())
        .await
        .expect("host must exit when Chrome closes its stdin")
        .unwrap();
    assert!(status.success());
    // It took its wake socket with it.
    assert_eq!(wake_sockets(&sb), Vec::<String>::new());
}

#[tokio::test]
async fn wrong_origin_is_refused() {
    let sb = Sandbox::new();
    let out = Command::new(BIN)
        .args([
            "native-host",
            "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/",
        ])
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .stdin(Stdio::piped())
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("refusing to serve origin"), "{err}");
    assert!(
        out.stdout.is_empty(),
        "stdout must carry protocol bytes only"
    );
}

#[tokio::test]
async fn malformed_messages_from_chrome_are_dropped_and_routing_goes_on() {
    let sb = Sandbox::new();
    let mcp = Mcp::start(&sb, "sturdy", &serve_args()).await;
    let chrome = FakeChrome::start(&sb, &["native-host", EXTENSION_ORIGIN]).await;
    let before = tab_title(&mcp).await;
    chrome.send_raw(b"this is not json");
    chrome.send_raw(b"{\"no\":\"route\"}");
    chrome.send_raw(b"{\"c\":999,\"m\":{\"id\":1,\"result\":{}}}");
    chrome.send_raw(&[0xff, 0xfe, 0xfd]);
    assert_eq!(tab_title(&mcp).await, before);
}

/// A hand-made "serve" socket in the runtime dir, to misbehave on purpose.
fn rogue_serve(sb: &Sandbox) -> UnixListener {
    tabwire::broker::dir::ensure_runtime_dir(&sb.runtime).unwrap();
    UnixListener::bind(sb.runtime.join("serve-4000000.sock")).unwrap()
}

fn read_hello(conn: &mut std::os::unix::net::UnixStream) -> Value {
    let mut len = [0u8; 4];
    conn.read_exact(&mut len).unwrap();
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    conn.read_exact(&mut body).unwrap();
    serde_json::from_slice(&body).unwrap()
}

#[tokio::test]
async fn oversize_frame_closes_only_that_server_connection() {
    let sb = Sandbox::new();
    let good = Mcp::start(&sb, "good", &serve_args()).await;
    let rogue = rogue_serve(&sb);
    let mut chrome = FakeChrome::start(&sb, &["native-host", EXTENSION_ORIGIN]).await;
    let before = tab_title(&good).await;

    let (mut conn, _) = tokio::task::spawn_blocking(move || rogue.accept().unwrap())
        .await
        .unwrap();
    let hello = read_hello(&mut conn);
    assert_eq!(hello["type"], "host-hello");
    assert_eq!(hello["origin"], EXTENSION_ORIGIN);
    // Announce a 4 GiB frame: the host must refuse it without allocating.
    conn.write_all(&[0xff, 0xff, 0xff, 0xff]).unwrap();
    chrome
        .expect("the rogue server reported gone", |m| m["gone"] == true)
        .await;
    assert_eq!(
        tab_title(&good).await,
        before,
        "the good server is unaffected"
    );
}

#[tokio::test]
async fn messages_over_chromes_1_mib_cap_are_chunked() {
    let sb = Sandbox::new();
    let rogue = rogue_serve(&sb);
    let mut chrome = FakeChrome::start(&sb, &["native-host", EXTENSION_ORIGIN]).await;
    let (mut conn, _) = tokio::task::spawn_blocking(move || rogue.accept().unwrap())
        .await
        .unwrap();
    read_hello(&mut conn);

    let big = json!({"id": 5, "method": "cdp.send", "params": {"blob": "x\"y\\".repeat(700_000)}});
    let body = serde_json::to_vec(&big).unwrap();
    assert!(body.len() > 2 * wire::NATIVE_TO_CHROME_MAX);
    conn.write_all(&wire::encode(&body, Framing::Socket, 64 << 20).unwrap())
        .unwrap();

    let first = chrome.expect("a chunk", |m| m.get("chunk").is_some()).await;
    let n = first["chunk"]["n"].as_u64().unwrap() as usize;
    assert!(n >= 3, "expected several chunks, got {n}");
    let mut parts = vec![first];
    while parts.len() < n {
        parts.push(
            chrome
                .expect("more chunks", |m| m.get("chunk").is_some())
                .await,
        );
    }
    parts.sort_by_key(|p| p["chunk"]["i"].as_u64());
    let joined: String = parts
        .iter()
        .map(|p| p["chunk"]["data"].as_str().unwrap())
        .collect();
    assert_eq!(serde_json::from_str::<Value>(&joined).unwrap(), big);
}
