//! Scripted faults against real processes (issue 7): the native host killed
//! mid-call, a serve killed, the browser closing and coming back, the
//! extension reloaded or its worker stopped, other debuggers on a tab, a tab
//! closed mid-call, an unwritable audit log; and load: many clients at once,
//! a long relay soak.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::install_env::PipeChromium;
use common::*;
use serde_json::{json, Value};

const EXT: [&str; 4] = ["--backend", "extension", "--connect-timeout", "30"];

fn pids_with_cmdline(part: &str, sb: &Sandbox) -> Vec<i32> {
    let needle = format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display());
    processes_matching(|cmd, env| cmd.contains(part) && env.split('\0').any(|kv| kv == needle))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_the_native_host_mid_call_fails_fast_then_the_next_call_succeeds() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let _browser = Chromium::launch(&sb);
    let site = site::Site::start();
    let mcp = std::sync::Arc::new(Mcp::start(&sb, "Survivor", &EXT).await);
    mcp.ok("browser_navigate", json!({"url": site.url("/page/steady")}))
        .await;

    // A call that stays in flight for 20 s, and proof that it started.
    let long = start_long_call(&mcp, "browser_evaluate").await;

    let hosts = pids_with_cmdline(EXTENSION_ORIGIN, &sb);
    assert_eq!(hosts.len(), 1, "one native host expected: {hosts:?}");
    let killed = Instant::now();
    unsafe { libc::kill(hosts[0], libc::SIGKILL) };
    let err = tokio::time::timeout(Duration::from_secs(5), long)
        .await
        .expect("the in-flight call must end soon after the host dies")
        .unwrap()
        .unwrap_err();
    eprintln!(
        "in-flight call failed {:?} after the kill",
        killed.elapsed()
    );
    assert!(
        killed.elapsed() < Duration::from_secs(2),
        "took {:?}",
        killed.elapsed()
    );
    assert!(
        err.contains("native host") || err.contains("went away"),
        "{err}"
    );

    // Chrome restarts the host when the extension reconnects; the same tab
    // works again with no user action.
    let title = mcp
        .ok(
            "browser_evaluate",
            json!({"function": "() => document.title"}),
        )
        .await;
    assert!(title.contains("steady"), "{title}");
    let hosts_after = pids_with_cmdline(EXTENSION_ORIGIN, &sb);
    assert!(!hosts_after.contains(&hosts[0]), "a new host serves now");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_serve_does_not_disturb_other_clients_and_its_socket_is_cleaned_up() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let _browser = Chromium::launch(&sb);
    let site = site::Site::start();
    let doomed = Mcp::start(&sb, "Doomed", &EXT).await;
    let steady = Mcp::start(&sb, "Steady", &EXT).await;
    doomed
        .ok("browser_navigate", json!({"url": site.url("/page/a")}))
        .await;
    steady
        .ok("browser_navigate", json!({"url": site.url("/page/b")}))
        .await;

    let serves = pids_with_cmdline("serve", &sb);
    let doomed_pid = serves
        .iter()
        .copied()
        .find(|p| {
            let log = std::fs::read_to_string(sb.log("serve-Doomed")).unwrap_or_default();
            log.contains(&format!("serve-{p}.sock"))
        })
        .expect("the doomed serve's pid");
    let doomed_socket = sb.runtime.join(format!("serve-{doomed_pid}.sock"));
    unsafe { libc::kill(doomed_pid, libc::SIGKILL) };

    let snap = steady
        .ok(
            "browser_navigate",
            json!({"url": site.url("/page/still-here")}),
        )
        .await;
    assert!(snap.contains("still-here"), "{snap}");
    assert!(
        doomed_socket.exists(),
        "SIGKILL leaves the socket file behind"
    );
    let _next = Mcp::start(&sb, "Next", &EXT).await;
    assert!(
        !doomed_socket.exists(),
        "the next serve removes the dead socket"
    );
    steady.ok("browser_snapshot", json!({})).await;
    drop(doomed);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_browser_closing_is_reported_and_its_return_is_picked_up() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = Chromium::launch(&sb);
    let mcp = Mcp::start(
        &sb,
        "Patient",
        &["--backend", "extension", "--connect-timeout", "3"],
    )
    .await;
    mcp.ok("browser_navigate", json!({"url": site.url("/page/first")}))
        .await;

    drop(browser); // the user quits the browser
    let err = mcp.text("browser_snapshot", json!({})).await.unwrap_err();
    assert!(
        err.contains("not connected") || err.contains("went away"),
        "{err}"
    );

    let _again = Chromium::launch(&sb); // and starts it again
    let deadline = Instant::now() + Duration::from_secs(20);
    while !mcp
        .ok("browser_status", json!({}))
        .await
        .contains("Extension: connected")
    {
        assert!(Instant::now() < deadline, "the extension never came back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/second")}))
        .await;
    assert!(snap.contains("second"), "{snap}");
}

#[tokio::test]
async fn an_unwritable_audit_log_does_not_break_calls() {
    let sb = Sandbox::new();
    let blocker = sb.tmp.path().join("not-a-dir");
    std::fs::write(&blocker, b"a file where the data dir should be").unwrap();
    let mcp = Mcp::start_with_env(&sb, "Diskless", &[], &[("TABWIRE_DATA_DIR", &blocker)]).await;
    for _ in 0..3 {
        let status = mcp.ok("browser_status", json!({})).await;
        assert!(status.contains("Backend mode"), "{status}");
    }
    let log = std::fs::read_to_string(sb.log("serve-Diskless")).unwrap();
    assert!(
        log.contains("could not write the audit log"),
        "the failure is logged"
    );
}

/// A tiny tmpfs, unmounted on drop: a disk that fills up for real.
struct FullDisk(std::path::PathBuf);

impl FullDisk {
    fn mount(at: std::path::PathBuf, size: &str) -> Option<Self> {
        std::fs::create_dir_all(&at).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(Self(at))
    }
}

impl Drop for FullDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_or_unusable_download_dir_is_a_clear_error_and_nothing_is_left() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    // 256 KiB of disk for a 600 KB file (under the 1 MiB cap).
    let Some(disk) = FullDisk::mount(sb.tmp.path().join("small-disk"), "256k") else {
        panic!("this test needs to mount a tmpfs (run as root, as CI does)");
    };
    let extra: Vec<String> = vec![
        "--download-dir".into(),
        disk.0.join("dl").display().to_string(),
        "--max-download-mb".into(),
        "1".into(),
    ];
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let mcp = start_cdp(&sb, "DiskFull", &extra).await;
    mcp.ok("browser_navigate", json!({"url": site.url("/media")}))
        .await;
    let e = mcp
        .text(
            "browser_download",
            json!({"url": site.url("/files/big.bin?bytes=600000")}),
        )
        .await
        .unwrap_err();
    assert!(
        e.contains("No space left on device") && e.contains("nothing was saved"),
        "{e}"
    );
    let left: Vec<_> = std::fs::read_dir(disk.0.join("dl"))
        .unwrap()
        .flatten()
        .collect();
    assert!(left.is_empty(), "a partial file was left: {left:?}");
    // Small files still fit, and serving goes on.
    let ok = mcp
        .ok(
            "browser_download",
            json!({"url": site.url("/files/report.csv")}),
        )
        .await;
    assert!(ok.starts_with("Saved "), "{ok}");

    // A download dir that cannot exist (under a regular file).
    let blocker = sb.tmp.path().join("a-file");
    std::fs::write(&blocker, b"x").unwrap();
    let extra: Vec<String> = vec![
        "--download-dir".into(),
        blocker.join("dl").display().to_string(),
    ];
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let mcp2 = start_cdp(&sb, "NoDir", &extra).await;
    mcp2.ok("browser_navigate", json!({"url": site.url("/media")}))
        .await;
    let e = mcp2
        .text("browser_download", json!({"target": "#report"}))
        .await
        .unwrap_err();
    assert!(e.contains("cannot create the download directory"), "{e}");
    mcp2.ok("browser_status", json!({})).await;
}

/// p50 and p99 of durations, in milliseconds.
fn percentiles(mut d: Vec<Duration>) -> (f64, f64) {
    d.sort();
    let at = |q: f64| d[((d.len() as f64 - 1.0) * q).round() as usize].as_secs_f64() * 1000.0;
    (at(0.5), at(0.99))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn eight_clients_two_hundred_calls_each_no_failure_no_leak() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let _browser = Chromium::launch(&sb);
    let site = std::sync::Arc::new(site::Site::start());
    let mut clients = Vec::new();
    for i in 0..8 {
        clients.push(Mcp::start(&sb, &format!("Load {i}"), &EXT).await);
    }
    let started = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .enumerate()
        .map(|(i, mcp)| {
            let site = site.clone();
            tokio::spawn(async move {
                let me = format!("client-{i}");
                mcp.ok(
                    "browser_navigate",
                    json!({"url": site.url(&format!("/page/{me}"))}),
                )
                .await;
                let mut times = Vec::new();
                for n in 0..200 {
                    let t = Instant::now();
                    let text = match n % 4 {
                        0 => {
                            mcp.ok(
                                "browser_evaluate",
                                json!({"function": "() => document.title"}),
                            )
                            .await
                        }
                        1 => mcp.ok("browser_snapshot", json!({})).await,
                        2 => mcp.ok("browser_tabs", json!({"action": "list"})).await,
                        _ => mcp.ok("browser_get_text", json!({})).await,
                    };
                    times.push(t.elapsed());
                    assert!(text.contains(&me), "client {i} call {n} saw: {text}");
                    for other in (0..8).filter(|&o| o != i) {
                        assert!(
                            !text.contains(&format!("client-{other}")),
                            "client {i} saw client {other}: {text}"
                        );
                    }
                }
                times
            })
        })
        .collect();
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.expect("a client failed"));
    }
    let (p50, p99) = percentiles(all.clone());
    eprintln!(
        "load: {} calls by 8 clients in {:.1} s through the extension; per call p50 {p50:.1} ms, p99 {p99:.1} ms",
        all.len(),
        started.elapsed().as_secs_f64()
    );
    assert_eq!(all.len(), 1600);
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn fd_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/fd"))
        .map(|d| d.count())
        .unwrap_or(0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_thousand_relayed_frames_leave_memory_and_fds_flat() {
    use std::process::Stdio;
    use tabwire::wire::{self, FrameReader, Framing};
    use tokio::io::AsyncWriteExt;

    let sb = Sandbox::new();
    let mut serve = RawServeListener::bind(&sb, 4_100_000);
    let mut host = tokio::process::Command::new(BIN)
        .args(["native-host", EXTENSION_ORIGIN])
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let pid = host.id().unwrap();
    // The fake extension echoes every message back to the serve it came from.
    let mut to_host = host.stdin.take().unwrap();
    let mut from_host = FrameReader::new(host.stdout.take().unwrap(), Framing::Native, 64 << 20);
    let echo = tokio::spawn(async move {
        while let Ok(Some(bytes)) = from_host.read_frame().await {
            let msg: Value = serde_json::from_slice(&bytes).unwrap();
            if msg.get("m").is_some() {
                let back = serde_json::to_vec(&json!({"c": msg["c"], "m": msg["m"]})).unwrap();
                let framed = wire::encode(&back, Framing::Native, 64 << 20).unwrap();
                if to_host.write_all(&framed).await.is_err() {
                    break;
                }
            }
        }
    });
    let mut conn = serve.accept().await;

    const TOTAL: u64 = 100_000;
    const WINDOW: u64 = 256; // frames in flight at once
    let mut sent = 0u64;
    let mut received = 0u64;
    let mut start = (0, 0);
    let t = Instant::now();
    while received < TOTAL {
        while sent < TOTAL && sent - received < WINDOW {
            conn.send(&json!({"id": sent, "method": "ping", "params": {"pad": "x".repeat(64)}}));
            sent += 1;
        }
        let msg = conn.recv();
        assert_eq!(msg["id"], received, "frames must come back in order");
        received += 1;
        if received == 1_000 {
            start = (rss_kib(pid), fd_count(pid));
        }
    }
    let end = (rss_kib(pid), fd_count(pid));
    eprintln!(
        "soak: {TOTAL} frames round trip in {:.1} s; host RSS {} → {} KiB, fds {} → {}",
        t.elapsed().as_secs_f64(),
        start.0,
        end.0,
        start.1,
        end.1
    );
    assert_eq!(start.1, end.1, "open file descriptors grew");
    assert!(
        end.0 < start.0 + 8 * 1024,
        "host memory grew by more than 8 MiB"
    );
    drop(conn);
    echo.abort();
    let _ = host.kill().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_starting_at_the_same_moment_both_get_through() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let _browser = Chromium::launch(&sb);
    let site = site::Site::start();
    let (a, b) = tokio::join!(
        Mcp::start(&sb, "Twin A", &EXT),
        Mcp::start(&sb, "Twin B", &EXT)
    );
    let (ra, rb) = tokio::join!(
        a.text("browser_navigate", json!({"url": site.url("/page/twin-a")})),
        b.text("browser_navigate", json!({"url": site.url("/page/twin-b")})),
    );
    assert!(ra.unwrap().contains("twin-a"));
    assert!(rb.unwrap().contains("twin-b"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_that_never_answers_is_bounded_and_the_tab_stays_usable() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let args = [
        vec![
            "--backend".to_string(),
            "cdp".to_string(),
            "--call-timeout".to_string(),
            "3".to_string(),
        ],
        cdp_launch_args(),
    ]
    .concat();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let mcp = Mcp::start(&sb, "Hanging", &args).await;
    let t = Instant::now();
    let err = mcp
        .text("browser_navigate", json!({"url": site.url("/never")}))
        .await
        .unwrap_err();
    assert!(
        err.contains("did not answer") || err.contains("still loading"),
        "{err}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "bounded, took {:?}",
        t.elapsed()
    );
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/after")}))
        .await;
    assert!(snap.contains("after"), "{snap}");
}

#[tokio::test]
async fn a_cancelled_call_stops_and_is_recorded_as_cancelled() {
    use rmcp::model::{CallToolRequestParams, ClientRequest, Request};
    let sb = Sandbox::new();
    // No extension will come: the call waits for it until cancelled.
    let mcp = Mcp::start(
        &sb,
        "Impatient",
        &["--backend", "extension", "--connect-timeout", "30"],
    )
    .await;
    let params = CallToolRequestParams::new("browser_snapshot");
    let handle = mcp
        .client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(params)),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await; // let it start waiting
    let t = Instant::now();
    handle.cancel(Some("user gave up".into())).await.unwrap();
    let audit = sb.data_dir().join("audit.log");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let text = std::fs::read_to_string(&audit).unwrap_or_default();
        if text.contains("cancelled by the client") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the cancelled call kept running: {text}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("cancelled call ended {:?} after the cancel", t.elapsed());
    // The server goes on serving.
    assert!(mcp
        .ok("browser_status", json!({}))
        .await
        .contains("Backend mode"));
}

// ---- the browser seen from the test's own CDP pipe ------------------------

/// Every target of the browser (tabs, pages, workers).
fn targets(b: &PipeChromium) -> Vec<Value> {
    b.call(None, "Target.getTargets", json!({"filter": [{}]}))
        .expect("Target.getTargets")["targetInfos"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

fn target_where(b: &PipeChromium, pred: impl Fn(&str, &str) -> bool) -> Option<Value> {
    targets(b).into_iter().find(|t| {
        pred(
            t["type"].as_str().unwrap_or_default(),
            t["url"].as_str().unwrap_or_default(),
        )
    })
}

/// The page target showing `url_part`.
fn page_showing(b: &PipeChromium, url_part: &str) -> Option<Value> {
    target_where(b, |kind, url| kind == "page" && url.contains(url_part))
}

/// The service worker of the extension with `origin`.
fn worker_of(b: &PipeChromium, origin: &str) -> Option<Value> {
    target_where(b, |kind, url| {
        kind == "service_worker" && url.starts_with(origin)
    })
}

/// Evaluates `expr` (promises awaited) in a target through a new session.
fn eval_in(b: &PipeChromium, target: &Value, expr: &str) -> Result<Value, String> {
    let s = b.call(
        None,
        "Target.attachToTarget",
        json!({"targetId": target["targetId"], "flatten": true}),
    )?;
    let session = s["sessionId"].as_str().unwrap_or_default().to_string();
    let r = b.call(
        Some(&session),
        "Runtime.evaluate",
        json!({"expression": expr, "awaitPromise": true, "returnByValue": true}),
    )?;
    let _ = b.call(
        None,
        "Target.detachFromTarget",
        json!({"sessionId": session}),
    );
    match r.get("exceptionDetails") {
        Some(ex) => Err(ex["exception"]["description"]
            .as_str()
            .unwrap_or("exception")
            .to_string()),
        None => Ok(r["result"]["value"].clone()),
    }
}

async fn connected(mcp: &Mcp) -> bool {
    mcp.ok("browser_status", json!({}))
        .await
        .contains("Extension: connected")
}

/// Waits for a call that must end by itself; returns its error and how
/// long after `since` it ended.
async fn failure_of(
    call: tokio::task::JoinHandle<Result<String, String>>,
    since: Instant,
) -> (String, Duration) {
    let err = tokio::time::timeout(Duration::from_secs(30), call)
        .await
        .expect("the call in flight never ended")
        .unwrap()
        .expect_err("the call in flight succeeded");
    (err, since.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_closed_in_the_browser_mid_call_ends_the_call_at_once_and_the_client_goes_on() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);
    let mcp = Arc::new(Mcp::start(&sb, "Closer", &EXT).await);
    for tool in ["browser_evaluate", "browser_wait_for"] {
        let page = format!("/page/doomed-{tool}");
        mcp.ok("browser_navigate", json!({"url": site.url(&page)}))
            .await;
        let call = start_long_call(&mcp, tool).await;

        // The user closes the tab.
        let tab = page_showing(&browser, &page).expect("the client's tab");
        let closed = Instant::now();
        browser
            .call(
                None,
                "Target.closeTarget",
                json!({"targetId": tab["targetId"]}),
            )
            .unwrap();
        let (err, after) = failure_of(call, closed).await;
        eprintln!("{tool} in flight failed {after:?} after its tab was closed: {err}");
        assert!(after < Duration::from_secs(2), "{tool} took {after:?}");
        assert!(err.contains("was closed"), "{tool}: {err}");

        let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
        assert!(list.contains("You have no tabs"), "{list}");
    }
    // A new tab works.
    let list = mcp
        .ok(
            "browser_tabs",
            json!({"action": "new", "url": site.url("/page/next")}),
        )
        .await;
    assert!(list.contains("/page/next"), "{list}");
    let title = mcp
        .ok(
            "browser_evaluate",
            json!({"function": "() => document.title"}),
        )
        .await;
    assert!(title.contains("next"), "{title}");
}

/// Chromium flags that let the test reload the extension over its pipe.
const RELOADABLE: &[&str] = &["--enable-unsafe-extension-debugging"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reloaded_extension_is_picked_up_and_old_tab_handles_say_why_they_are_void() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch_with_flags(&sb, &[], RELOADABLE);
    let mcp = Arc::new(Mcp::start(&sb, "Reloaded", &EXT).await);
    mcp.ok("browser_navigate", json!({"url": site.url("/page/before")}))
        .await;
    let call = start_long_call(&mcp, "browser_evaluate").await;
    let hosts = pids_with_cmdline(EXTENSION_ORIGIN, &sb);
    let old_worker = worker_of(&browser, EXTENSION_ORIGIN).expect("the extension's worker");

    // The extension is reloaded (as by the reload button or an update).
    // chrome.runtime.reload() would do, but in this headless Chromium it
    // leaves a command-line extension disabled; loading it again reloads it.
    let reloaded = Instant::now();
    browser
        .call(
            None,
            "Extensions.loadUnpacked",
            json!({"path": EXTENSION_DIR}),
        )
        .expect("reload the extension");
    let (err, after) = failure_of(call, reloaded).await;
    eprintln!("in-flight call failed {after:?} after the reload: {err}");
    assert!(after < Duration::from_secs(2), "took {after:?}");
    assert!(err.contains("went away"), "{err}");

    // The next call waits for the new worker and succeeds. The new worker
    // owns no tab: the old one is no longer this client's.
    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    assert!(list.contains("You have no tabs"), "{list}");
    let new_worker = worker_of(&browser, EXTENSION_ORIGIN).expect("a new worker");
    assert_ne!(old_worker["targetId"], new_worker["targetId"]);
    let hosts_after = pids_with_cmdline(EXTENSION_ORIGIN, &sb);
    assert!(
        hosts_after.iter().all(|p| !hosts.contains(p)),
        "a new native host serves now: {hosts:?} → {hosts_after:?}"
    );

    // The old handle is reported once, with its cause; the tab itself is
    // still open in the browser.
    let err = mcp
        .text(
            "browser_evaluate",
            json!({"function": "() => document.title"}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("restarted"), "{err}");
    assert!(page_showing(&browser, "/page/before").is_some());
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/after")}))
        .await;
    assert!(snap.contains("after"), "{snap}");
}

/// Stops the extension's service worker the way Chrome does when it ends
/// an idle or crashed worker.
fn stop_extension_worker(browser: &PipeChromium) {
    let worker = worker_of(browser, EXTENSION_ORIGIN).expect("the extension's worker");
    browser
        .call(
            None,
            "Target.closeTarget",
            json!({"targetId": worker["targetId"]}),
        )
        .expect("stop the worker");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopped_extension_worker_comes_back_by_itself() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);
    let mcp = Mcp::start(&sb, "Idle", &EXT).await;
    // Connected, with no tab whose events could wake the worker.
    mcp.ok("browser_tabs", json!({"action": "list"})).await;
    // Chrome stops the worker (as after a crash, or "Stop" in
    // chrome://serviceworker-internals); nobody touches the browser.
    let stopped = Instant::now();
    stop_extension_worker(&browser);
    let deadline = Instant::now() + Duration::from_secs(10);
    while connected(&mcp).await {
        assert!(Instant::now() < deadline, "the worker never stopped");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Chrome's shortest alarm period is 30 s.
    let deadline = Instant::now() + Duration::from_secs(45);
    while !connected(&mcp).await {
        assert!(
            Instant::now() < deadline,
            "the extension did not come back without user action"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    eprintln!(
        "the stopped worker reconnected {:?} after the stop",
        stopped.elapsed()
    );
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/back")}))
        .await;
    assert!(snap.contains("back"), "{snap}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tab_an_earlier_worker_left_attached_is_taken_over_not_refused() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);
    let mcp = Mcp::start(&sb, "Heir", &EXT).await;
    mcp.ok("browser_navigate", json!({"url": site.url("/page/kept")}))
        .await;
    let hosts = pids_with_cmdline(EXTENSION_ORIGIN, &sb);
    stop_extension_worker(&browser);

    // A new worker connects (through a new native host) by itself.
    let deadline = Instant::now() + Duration::from_secs(45);
    loop {
        let now = pids_with_cmdline(EXTENSION_ORIGIN, &sb);
        if !now.is_empty() && now.iter().all(|p| !hosts.contains(p)) && connected(&mcp).await {
            break;
        }
        assert!(Instant::now() < deadline, "the worker never came back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // It does not know the tab (the old worker's debugger session on it
    // lives on in Chrome), so the client no longer sees it.
    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    assert!(list.contains("You have no tabs"), "{list}");

    // The user shares that tab with the client again (as the popup does).
    let options = browser.open(&format!("{EXTENSION_ORIGIN}options.html"));
    eventually(20, "the options page", || {
        browser
            .eval(&options, "document.body?.dataset.ready === 'true'")
            .ok()
            .filter(|v| v == &json!(true))
    })
    .await;
    let shared = browser.eval(
        &options,
        &format!(
            "(async () => {{ const [tab] = await chrome.tabs.query({{url: {:?}}}); \
             const state = await chrome.runtime.sendMessage({{type: 'tabwire.state'}}); \
             return await chrome.runtime.sendMessage({{type: 'tabwire.share', tabId: tab.id, \
             client: state.clients[0].id}}); }})()",
            site.url("/page/kept")
        ),
    );
    assert!(
        shared.as_ref().is_ok_and(|v| v.get("error").is_none()),
        "{shared:?}"
    );
    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    let index = list
        .lines()
        .find(|l| l.contains("/page/kept"))
        .and_then(|l| {
            l.trim_start_matches("- ")
                .split(':')
                .next()?
                .trim()
                .parse::<usize>()
                .ok()
        })
        .unwrap_or_else(|| panic!("the shared tab is not listed: {list}"));
    mcp.ok("browser_tabs", json!({"action": "select", "index": index}))
        .await;
    // Chrome refuses a second attach by the same extension ("Another
    // debugger is already attached"): the extension takes its own old
    // session over instead of blaming DevTools.
    let title = mcp
        .ok(
            "browser_evaluate",
            json!({"function": "() => document.title"}),
        )
        .await;
    assert!(title.contains("kept"), "{title}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn devtools_a_cdp_client_and_another_extension_on_a_tab_do_not_block_it() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    // A second extension that can attach chrome.debugger to tabs.
    let other = sb.tmp.path().join("other-extension");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(
        other.join("manifest.json"),
        r#"{"manifest_version": 3, "name": "another debugger", "version": "1.0",
            "permissions": ["debugger", "tabs"], "background": {"service_worker": "bg.js"}}"#,
    )
    .unwrap();
    std::fs::write(other.join("bg.js"), "// attaches when the test says so\n").unwrap();
    let both = format!("{EXTENSION_DIR},{}", other.display());
    let load = format!("--load-extension={both}");
    let only = format!("--disable-extensions-except={both}");
    let browser =
        PipeChromium::launch_with_flags(&sb, &[], &[&load, &only, "--auto-open-devtools-for-tabs"]);
    let mcp = Mcp::start(&sb, "Crowded", &EXT).await;

    // A new tab: DevTools opens on it (the flag) before tabwire attaches.
    mcp.ok("browser_tabs", json!({"action": "new"})).await;
    let tab = eventually(20, "DevTools attached to the new tab", || {
        target_where(&browser, |kind, url| kind == "tab" && url == "about:blank")
            .filter(|t| t["attached"] == true)
    })
    .await;
    assert!(
        target_where(&browser, |_, url| url.starts_with("devtools://")).is_some(),
        "no DevTools window"
    );
    // The test attaches its own CDP client to the page too.
    let page = page_showing(&browser, "about:blank").expect("the page target");
    browser
        .call(
            None,
            "Target.attachToTarget",
            json!({"targetId": page["targetId"], "flatten": true}),
        )
        .expect("attach the test's CDP client");
    // And another extension attaches chrome.debugger to it.
    let other_worker = eventually(20, "the other extension's worker", || {
        target_where(&browser, |kind, url| {
            kind == "service_worker" && !url.starts_with(EXTENSION_ORIGIN)
        })
    })
    .await;
    let attach_it = "(async () => { const [t] = await chrome.tabs.query({url: 'about:blank'}); \
                     await chrome.debugger.attach({tabId: t.id}, '1.3'); return t.id; })()";
    eval_in(&browser, &other_worker, attach_it).expect("the other extension attaches");

    // tabwire still attaches and drives the tab.
    let two = mcp
        .ok("browser_evaluate", json!({"function": "() => 1 + 1"}))
        .await;
    assert_eq!(fenced(&two), "2", "{two}");
    let snap = mcp
        .ok(
            "browser_navigate",
            json!({"url": site.url("/page/crowded")}),
        )
        .await;
    assert!(snap.contains("crowded"), "{snap}");
    eprintln!(
        "tab {} driven with DevTools, a CDP client and another extension attached",
        tab["targetId"]
    );

    // The refusal tabwire maps (and takes over, see the test above) only
    // comes from the same extension attaching twice.
    let again = eval_in(
        &browser,
        &other_worker,
        &attach_it.replace("about:blank", "*://*/*"),
    );
    let refused = again.expect_err("a second attach by one extension is refused");
    assert!(
        refused.contains("Another debugger is already attached"),
        "{refused}"
    );
}
