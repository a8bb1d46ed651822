//! Micro benchmarks: the frame codec, the native-host relay against a raw
//! native-messaging pipe, and snapshot rendering on fixture pages.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tabwire::wire::{self, Decoded, Framing};

use crate::procs::EXTENSION_ORIGIN;
use crate::stats::{median, ms, percentile};

/// Size of the "screenshot" payload sent through the relay.
pub const BIG: usize = 8 << 20;

// ---- codec ------------------------------------------------------------

/// Encode and decode throughput of one body size, in MB/s.
pub fn codec(size: usize) -> Value {
    let body = vec![b'x'; size];
    let max = wire::DEFAULT_MAX_FRAME;
    let budget = Duration::from_millis(300);

    let (mut n, t0) = (0usize, Instant::now());
    while t0.elapsed() < budget {
        let out = wire::encode(&body, Framing::Socket, max).expect("encode");
        std::hint::black_box(&out);
        n += 1;
    }
    let encode_mbs = (n * size) as f64 / t0.elapsed().as_secs_f64() / 1e6;

    let encoded = wire::encode(&body, Framing::Socket, max).expect("encode");
    let (mut n, t0) = (0usize, Instant::now());
    while t0.elapsed() < budget {
        match wire::decode(std::hint::black_box(&encoded), Framing::Socket, max) {
            Ok(Decoded::Frame { body, .. }) => {
                std::hint::black_box(body);
            }
            other => panic!("decode: {other:?}"),
        }
        n += 1;
    }
    // decode borrows the body: its cost is per frame, not per byte.
    let decode_ns = t0.elapsed().as_secs_f64() * 1e9 / n as f64;

    // The stream reader, which allocates and copies each body.
    let frames = (4 << 20) / size.max(1) + 1;
    let stream: Vec<u8> = (0..frames).flat_map(|_| encoded.iter().copied()).collect();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let (mut n, t0) = (0usize, Instant::now());
    while t0.elapsed() < budget {
        rt.block_on(async {
            let mut r = wire::FrameReader::new(&stream[..], Framing::Socket, max);
            while let Some(f) = r.read_frame().await.expect("read") {
                std::hint::black_box(f);
                n += 1;
            }
        });
    }
    let reader_mbs = (n * size) as f64 / t0.elapsed().as_secs_f64() / 1e6;
    json!({
        "body_bytes": size,
        "encode_mb_s": encode_mbs,
        "decode_ns_per_frame": decode_ns,
        "reader_mb_s": reader_mbs,
    })
}

// ---- the fake extension -----------------------------------------------

/// `bench --fake-extension`: plays the extension on stdin/stdout with
/// native-messaging framing. Answers every `{"c":…,"m":{"id":…}}` request;
/// method `big` gets an 8 MiB result. Runs until stdin closes.
pub fn fake_extension() -> i32 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let mut input = stdin.lock();
    let mut output = stdout.lock();
    let payload = vec![b'A'; BIG];
    loop {
        let Some(msg) = read_native(&mut input) else {
            return 0;
        };
        let Ok(v) = serde_json::from_slice::<Value>(&msg) else {
            continue;
        };
        let (c, m) = (&v["c"], &v["m"]);
        let Some(id) = m["id"].as_u64() else {
            continue; // "gone" and other notices
        };
        let ok = if m["method"] == "big" {
            let head = format!("{{\"c\":{c},\"m\":{{\"id\":{id},\"result\":{{\"data\":\"");
            let tail = b"\"}}}";
            let len = (head.len() + payload.len() + tail.len()) as u32;
            output.write_all(&len.to_ne_bytes()).is_ok()
                && output.write_all(head.as_bytes()).is_ok()
                && output.write_all(&payload).is_ok()
                && output.write_all(tail).is_ok()
        } else {
            let body = format!(
                "{{\"c\":{c},\"m\":{{\"id\":{id},\"result\":{{\"result\":{{\"type\":\"number\",\"value\":2}}}}}}}}"
            );
            output.write_all(&(body.len() as u32).to_ne_bytes()).is_ok()
                && output.write_all(body.as_bytes()).is_ok()
        };
        if !ok || output.flush().is_err() {
            return 0;
        }
    }
}

fn read_native(r: &mut impl Read) -> Option<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len).ok()?;
    let mut body = vec![0u8; u32::from_ne_bytes(len) as usize];
    r.read_exact(&mut body).ok()?;
    Some(body)
}

fn read_le(r: &mut impl Read) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    r.read_exact(&mut body)?;
    Ok(body)
}

fn write_framed(w: &mut impl Write, body: &[u8], native: bool) -> std::io::Result<()> {
    let len = body.len() as u32;
    let header = if native {
        len.to_ne_bytes()
    } else {
        len.to_le_bytes()
    };
    let mut buf = Vec::with_capacity(4 + body.len());
    buf.extend_from_slice(&header);
    buf.extend_from_slice(body);
    w.write_all(&buf)?;
    w.flush()
}

/// A child process killed on drop.
struct Kid(Child);

impl Drop for Kid {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn request(id: u64, method: &str) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "id": id,
        "method": method,
        "params": {"tabId": 1, "method": "Runtime.evaluate", "params": {"expression": "1+1"}},
    }))
    .expect("request serializes")
}

/// Round trips and 8 MiB transfers: raw pipe vs through the native host,
/// measured alternately so both see the same machine load.
pub fn relay(tabwire: &Path, work: &Path, round_trips: usize) -> Result<Value, String> {
    let me = std::env::current_exe().map_err(|e| e.to_string())?;

    // Raw: bench ⇄ fake extension over its stdio (what a host sees of Chrome).
    let mut raw = Kid(Command::new(&me)
        .arg("--fake-extension")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("spawn fake extension: {e}"))?);
    let mut to = raw.0.stdin.take().expect("stdin");
    let mut from = raw.0.stdout.take().expect("stdout");
    let mut raw_once = |id: u64, method: &str| {
        let mut msg = b"{\"c\":1,\"m\":".to_vec();
        msg.extend(request(id, method));
        msg.push(b'}');
        write_framed(&mut to, &msg, true).map_err(|e| e.to_string())?;
        read_native(&mut from).ok_or_else(|| "fake extension closed".to_string())
    };

    // Broker: bench (as serve) ⇄ socket ⇄ native host ⇄ fake extension.
    let rt_dir = work.join("relay-rt");
    tabwire::broker::dir::ensure_runtime_dir(&rt_dir).map_err(|e| e.to_string())?;
    let sock = rt_dir.join("serve-1.sock");
    let listener = UnixListener::bind(&sock).map_err(|e| format!("bind: {e}"))?;
    // The program `tabwire install` registers: tabwire-host when built.
    let host_bin = tabwire::install::host_binary(
        tabwire::install::Os::Linux,
        tabwire,
        std::path::Path::is_file,
    );
    let mut host = Kid(Command::new(host_bin)
        .arg(EXTENSION_ORIGIN)
        .env("TABWIRE_RUNTIME_DIR", &rt_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(work.join("relay-host.log")).map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("spawn native host: {e}"))?);
    let host_in = host.0.stdin.take().expect("stdin");
    let host_out = host.0.stdout.take().expect("stdout");
    let _ext = Kid(Command::new(&me)
        .arg("--fake-extension")
        .stdin(Stdio::from(host_out))
        .stdout(Stdio::from(host_in))
        .spawn()
        .map_err(|e| format!("spawn fake extension: {e}"))?);
    let mut conn = accept_within(&listener, Duration::from_secs(10))?;
    let hello: Value = serde_json::from_slice(&read_le(&mut conn).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    if hello["type"] != "host-hello" {
        return Err(format!("expected host-hello, got {hello}"));
    }
    let host_pid = host.0.id();
    let mut broker_once = |id: u64, method: &str| {
        write_framed(&mut conn, &request(id, method), false).map_err(|e| e.to_string())?;
        read_le(&mut conn).map_err(|e| format!("native host closed: {e}"))
    };

    let (mut raw_rt, mut broker_rt) = (Vec::new(), Vec::new());
    for i in 0..(round_trips + round_trips / 10) {
        let id = i as u64 + 1;
        let a = round_trip(id, &mut raw_once)?;
        let b = round_trip(id, &mut broker_once)?;
        if i >= round_trips / 10 {
            raw_rt.push(a);
            broker_rt.push(b);
        }
    }
    let host_mem = crate::procs::memory(host_pid);
    let (mut raw_big, mut broker_big) = (Vec::new(), Vec::new());
    for i in 0..22u64 {
        let a = big_transfer(1_000_000 + i, &mut raw_once)?;
        let b = big_transfer(1_000_000 + i, &mut broker_once)?;
        if i >= 2 {
            raw_big.push(a);
            broker_big.push(b);
        }
    }
    let host_mem_after = crate::procs::memory(host_pid);
    let _ = std::fs::remove_file(&sock);

    let p50 = |v: &[f64]| percentile(v, 50.0);
    let p99 = |v: &[f64]| percentile(v, 99.0);
    Ok(json!({
        "round_trips": round_trips,
        "raw_pipe_p50_ms": p50(&raw_rt),
        "raw_pipe_p99_ms": p99(&raw_rt),
        "broker_p50_ms": p50(&broker_rt),
        "broker_p99_ms": p99(&broker_rt),
        "broker_added_p50_ms": p50(&broker_rt) - p50(&raw_rt),
        "big_bytes": BIG,
        "raw_big_median_ms": median(&raw_big),
        "broker_big_median_ms": median(&broker_big),
        "big_ratio": median(&broker_big) / median(&raw_big),
        "raw_big_min_ms": percentile(&raw_big, 0.0),
        "broker_big_min_ms": percentile(&broker_big, 0.0),
        "big_ratio_of_minima": percentile(&broker_big, 0.0) / percentile(&raw_big, 0.0),
        "broker_big_mb_s": BIG as f64 / 1e6 / (median(&broker_big) / 1e3),
        "native_host_rss_kib_idle": host_mem.map(|m| m.rss_kib),
        "native_host_rss_kib_after_big": host_mem_after.map(|m| m.rss_kib),
        "native_host_hwm_kib": host_mem_after.map(|m| m.hwm_kib),
    }))
}

/// One timed round trip; the answer is checked.
fn round_trip(
    id: u64,
    once: &mut impl FnMut(u64, &str) -> Result<Vec<u8>, String>,
) -> Result<f64, String> {
    let t0 = Instant::now();
    let answer = once(id, "cdp.send")?;
    let took = ms(t0.elapsed());
    let v: Value = serde_json::from_slice(&answer).map_err(|e| e.to_string())?;
    let m = if v.get("m").is_some() { &v["m"] } else { &v };
    if m["id"] != id || m["result"]["result"]["value"] != 2 {
        return Err(format!("wrong answer to request {id}: {v}"));
    }
    Ok(took)
}

/// One timed 8 MiB answer; its size is checked.
fn big_transfer(
    id: u64,
    once: &mut impl FnMut(u64, &str) -> Result<Vec<u8>, String>,
) -> Result<f64, String> {
    let t0 = Instant::now();
    let answer = once(id, "big")?;
    let took = ms(t0.elapsed());
    if answer.len() < BIG {
        return Err(format!("8 MiB answer arrived with {} bytes", answer.len()));
    }
    Ok(took)
}

fn accept_within(listener: &UnixListener, limit: Duration) -> Result<UnixStream, String> {
    listener.set_nonblocking(true).map_err(|e| e.to_string())?;
    let deadline = Instant::now() + limit;
    loop {
        match listener.accept() {
            Ok((s, _)) => {
                s.set_nonblocking(false).map_err(|e| e.to_string())?;
                s.set_read_timeout(Some(Duration::from_secs(20)))
                    .map_err(|e| e.to_string())?;
                return Ok(s);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() > deadline {
                    return Err("the native host never connected to the bench socket".into());
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => return Err(format!("accept: {e}")),
        }
    }
}

// ---- snapshot rendering -------------------------------------------------

/// Runs `f` on a blank tab of a headless Chromium that tabwire's own
/// backend launches over a CDP pipe; the browser is closed afterwards,
/// whatever `f` returned.
async fn on_launched_tab(
    chromium: &Path,
    profile: &Path,
    f: impl AsyncFnOnce(
        &tabwire::backend::direct::DirectBackend,
        tabwire::backend::TabId,
    ) -> Result<Value, String>,
) -> Result<Value, String> {
    use tabwire::backend::direct::{launch::LaunchOptions, DirectBackend};
    use tabwire::backend::Backend;
    let opts = LaunchOptions {
        browser_path: Some(chromium.to_path_buf()),
        extra_args: crate::procs::HEADLESS_FLAGS[3..]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        headless: true,
        profile_dir: Some(profile.to_path_buf()),
        webmcp: false,
    };
    let d = DirectBackend::launch(&opts, Duration::from_secs(30), None).await?;
    let result = match d.new_tab("about:blank", "bench").await {
        Ok(tab) => f(&d, tab.tab_id).await,
        Err(e) => Err(e.to_string()),
    };
    d.shutdown().await;
    result
}

/// Time of `Accessibility.getFullAXTree` over a CDP pipe (what snapshots
/// read before the engine) and of the in-page engine's snapshot, on
/// fixture pages in a Chromium tabwire launches.
pub async fn snapshots(
    chromium: &Path,
    site: &crate::site::Site,
    work: &Path,
) -> Result<Value, String> {
    use super::ax::AxTree;
    use tabwire::backend::Backend;
    use tabwire::engine;

    on_launched_tab(chromium, &work.join("snapshot-profile"), async |d, tab| {
        let mut pages = Vec::new();
        for (label, path) in [
            ("form", "/form"),
            ("200 links", "/links"),
            ("long article", "/article"),
        ] {
            d.cdp(tab, "Page.navigate", json!({"url": site.url(path)}))
                .await
                .map_err(|e| e.to_string())?;
            for _ in 0..200 {
                let r = d
                    .cdp(
                        tab,
                        "Runtime.evaluate",
                        json!({"expression": "document.readyState + ' ' + location.pathname", "returnByValue": true}),
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                if r["result"]["value"] == format!("complete {path}") {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let mut ax_ms = Vec::new();
            let mut raw = None;
            for _ in 0..10 {
                let t0 = Instant::now();
                raw = Some(
                    d.cdp_raw(tab, "Accessibility.getFullAXTree", json!({}))
                        .await
                        .map_err(|e| e.to_string())?,
                );
                ax_ms.push(ms(t0.elapsed()));
            }
            let raw = raw.ok_or("no tree")?;
            let ax_bytes = raw.get().len();
            let ax_nodes = AxTree::parse(&raw).map_err(|e| e.to_string())?.nodes.len();
            // The snapshot engine in an isolated world, as serve runs it:
            // the first call carries the source, later ones reuse it.
            let frame = d
                .cdp(tab, "Page.getFrameTree", json!({}))
                .await
                .map_err(|e| e.to_string())?["frameTree"]["frame"]["id"]
                .clone();
            let ctx = d
                .cdp(
                    tab,
                    "Page.createIsolatedWorld",
                    json!({"frameId": frame, "worldName": engine::WORLD}),
                )
                .await
                .map_err(|e| e.to_string())?["executionContextId"]
                .clone();
            let budget = engine::budget_args(engine::MAX_SNAPSHOT);
            let mut engine_ms = Vec::new();
            let mut outline_bytes = 0;
            for i in 0..20 {
                let t0 = Instant::now();
                let r = d
                    .cdp(
                        tab,
                        "Runtime.evaluate",
                        json!({"expression": engine::call(i > 0, "e", "snapshot", &budget), "contextId": ctx, "returnByValue": true}),
                    )
                    .await
                    .map_err(|e| e.to_string())?;
                engine_ms.push(ms(t0.elapsed()));
                outline_bytes = r["result"]["value"]["text"].as_str().map_or(0, str::len);
            }
            pages.push(json!({
                "page": label,
                "ax_nodes": ax_nodes,
                "ax_bytes": ax_bytes,
                "get_full_ax_tree_median_ms": median(&ax_ms),
                "engine_first_ms": engine_ms[0],
                "engine_median_ms": median(&engine_ms[1..]),
                "outline_bytes": outline_bytes,
            }));
        }
        Ok::<_, String>(Value::Array(pages))
    })
    .await
}

// ---- the browser's own navigation time ----------------------------------

/// The pages the scenario loads, in its order: its six navigations (the
/// form's answer is `/result`; going back reloads `/links`).
const SCENARIO_LOADS: [&str; 6] = [
    "/form",
    "/result?name=Ada&color=green&subscribe=on&size=m",
    "/links",
    "/page/item-7",
    "/links",
    "/article",
];

/// `Page.navigate` until `Page.loadEventFired`, straight over a CDP pipe
/// with no MCP server in between: the floor under any server's navigating
/// steps on this machine. Reports per page medians and the scenario's six
/// loads summed.
pub async fn navigation_floor(
    chromium: &Path,
    site: &crate::site::Site,
    work: &Path,
    iterations: usize,
) -> Result<Value, String> {
    use tabwire::backend::{Backend, TabEvent};

    on_launched_tab(chromium, &work.join("navigation-profile"), async |d, tab| {
        d.cdp(tab, "Page.enable", json!({}))
            .await
            .map_err(|e| e.to_string())?;
        let mut events = d.subscribe();
        let mut samples: Vec<Vec<f64>> = vec![Vec::new(); SCENARIO_LOADS.len()];
        // One unmeasured round first (caches, renderer start).
        for round in 0..=iterations {
            for (i, path) in SCENARIO_LOADS.iter().enumerate() {
                while events.try_recv().is_ok() {}
                let t0 = Instant::now();
                d.cdp(tab, "Page.navigate", json!({"url": site.url(path)}))
                    .await
                    .map_err(|e| e.to_string())?;
                tokio::time::timeout(Duration::from_secs(10), async {
                    loop {
                        match events.recv().await {
                            Ok(TabEvent::Cdp { tab: t, method, .. })
                                if t == tab && method == "Page.loadEventFired" =>
                            {
                                return Ok(());
                            }
                            Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                            Err(e) => return Err(e.to_string()),
                        }
                    }
                })
                .await
                .map_err(|_| format!("{path} did not load within 10 s"))??;
                if round > 0 {
                    samples[i].push(ms(t0.elapsed()));
                }
            }
        }
        let medians: Vec<f64> = samples.iter().map(|s| median(s)).collect();
        Ok::<_, String>(json!({
            "iterations": iterations,
            "loads": SCENARIO_LOADS.iter().zip(&medians).map(|(p, m)| json!({"path": p, "median_ms": m})).collect::<Vec<_>>(),
            "scenario_loads_sum_ms": medians.iter().sum::<f64>(),
        }))
    })
    .await
}
