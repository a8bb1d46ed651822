//! The `network` group (`serve --caps network`) on both backends: a route
//! answers a page's API request with a mock (from `body` or `bodyFile`) or
//! makes it fail, unroute gives the network back, routes for a denied site
//! are refused and a denied URL is never answered, offline makes a
//! navigation fail with a clear answer and online restores it, throttling
//! slows requests down, and the HAR export holds the tab's requests with
//! bodies, but none of a denied site. Without the group its tools are
//! neither listed nor run.

#[macro_use]
mod common;

use std::time::Instant;

use common::world::*;
use serde_json::{json, Value};

on_both_backends!(routes_state_and_har, mocked_answer_in_a_real_app);

/// What the page's `/api/data.json` request shows now (the fixture's
/// `show()` fetches it again).
async fn items(mcp: &common::Mcp) -> String {
    let v = eval_json(
        mcp,
        "async () => { await show(); return document.getElementById('out').textContent; }",
    )
    .await;
    v.as_str().unwrap_or_default().to_string()
}

async fn routes_state_and_har(w: World) {
    // Off by default: not listed, and a call says how to switch it on.
    let plain = client(&w, "plain").await;
    let listed = plain.client.list_all_tools().await.unwrap();
    assert!(!listed.iter().any(|t| t.name == "browser_route"));
    let err = plain
        .text("browser_route", json!({"pattern": "**/x"}))
        .await
        .unwrap_err();
    assert!(err.contains("--caps network"), "{err}");
    drop(plain);

    let uploads = tempfile::tempdir().unwrap();
    let downloads = tempfile::tempdir().unwrap();
    let mock_file = uploads.path().join("items.json");
    std::fs::write(&mock_file, r#"{"items":["from a file"]}"#).unwrap();
    let outside = tempfile::NamedTempFile::new().unwrap();
    let flags: Vec<String> = [
        "--caps",
        "network",
        "--deny-domain",
        "localhost",
        "--upload-dir",
        &uploads.path().display().to_string(),
        "--download-dir",
        &downloads.path().display().to_string(),
    ]
    .map(String::from)
    .to_vec();
    let mcp = client_with(&w, "network", &flags).await;
    let listed = mcp.client.list_all_tools().await.unwrap();
    for name in [
        "browser_route",
        "browser_route_list",
        "browser_unroute",
        "browser_network_state_set",
        "browser_set_extra_headers",
        "browser_network_har",
    ] {
        assert!(listed.iter().any(|t| t.name == name), "{name} not listed");
    }

    let port = w.site.base.rsplit(':').next().unwrap().to_string();
    let page = w
        .site
        .url(&format!("/pages/network.html?img=http://localhost:{port}"));
    mcp.ok("browser_navigate", json!({"url": page})).await;
    assert_eq!(items(&mcp).await, r#"status 200: {"items":[1,2,3]}"#);

    // A mocked JSON answer is what the page shows.
    let out = mcp
        .ok(
            "browser_route",
            json!({"pattern": "**/api/data.json", "body": "{\"items\":[\"mocked\"]}",
                   "contentType": "application/json", "status": 201}),
        )
        .await;
    assert!(out.contains("Routes in this tab (1"), "{out}");
    assert_eq!(items(&mcp).await, r#"status 201: {"items":["mocked"]}"#);
    // …and keeps being after a navigation (the page fetches on load).
    mcp.ok("browser_reload", json!({})).await;
    let shown = eval_json(&mcp, "() => document.getElementById('out').textContent").await;
    assert_eq!(shown, json!(r#"status 201: {"items":["mocked"]}"#));
    let out = mcp.ok("browser_route_list", json!({})).await;
    assert!(out.contains("answered 2 requests"), "{out}");

    // A body from a file in an upload dir; one outside is refused.
    mcp.ok(
        "browser_route",
        json!({"pattern": "**/api/data.json", "bodyFile": mock_file}),
    )
    .await;
    assert_eq!(
        items(&mcp).await,
        r#"status 200: {"items":["from a file"]}"#
    );
    let err = mcp
        .text(
            "browser_route",
            json!({"pattern": "**/other", "bodyFile": outside.path()}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("outside the upload directories"), "{err}");

    // Abort: the page's fetch fails.
    mcp.ok(
        "browser_route",
        json!({"pattern": "**/api/data.json", "action": "abort"}),
    )
    .await;
    assert!(items(&mcp).await.starts_with("failed:"));

    // Unroute: the real answer again.
    let out = mcp
        .ok("browser_unroute", json!({"pattern": "**/api/data.json"}))
        .await;
    assert!(
        out.contains("Removed 1 route") && out.contains("No routes"),
        "{out}"
    );
    assert_eq!(items(&mcp).await, r#"status 200: {"items":[1,2,3]}"#);

    // A denied site: no route for it, and a request to it is never
    // answered by a broader route.
    let err = mcp
        .text(
            "browser_route",
            json!({"pattern": format!("http://localhost:{port}/**"), "body": "x"}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("blocked by the policy"), "{err}");
    mcp.ok(
        "browser_route",
        json!({"pattern": "**/img/dot.png", "body": "mocked", "contentType": "text/plain"}),
    )
    .await;
    let got = eval_json(
        &mcp,
        &format!(
            "async () => Promise.all(['/img/dot.png', 'http://localhost:{port}/img/dot.png']\
             .map(u => fetch(u).then(r => r.text()).then(t => t === 'mocked' ? 'mocked' : 'real', \
             e => 'failed')))"
        ),
    )
    .await;
    assert_eq!(got[0], "mocked", "{got}");
    assert_ne!(got[1], "mocked", "a denied URL was answered: {got}");
    mcp.ok("browser_unroute", json!({})).await;

    // The HAR: the current page's requests, with bodies, none for the
    // denied site.
    mcp.ok("browser_reload", json!({})).await;
    let out = mcp
        .ok("browser_network_har", json!({"filename": "run"}))
        .await;
    assert!(
        out.contains("HAR 1.2:") && out.contains("without body"),
        "{out}"
    );
    let har: Value =
        serde_json::from_slice(&std::fs::read(downloads.path().join("run.har")).unwrap()).unwrap();
    assert_eq!(har["log"]["version"], "1.2");
    let entries = har["log"]["entries"].as_array().unwrap();
    let find = |part: &str| {
        entries
            .iter()
            .find(|e| e["request"]["url"].as_str().unwrap().starts_with(part))
            .unwrap_or_else(|| panic!("no {part} in {entries:?}"))
    };
    let doc = find(&w.site.url("/pages/network.html"));
    assert_eq!(doc["response"]["status"], 200);
    let data = find(&w.site.url("/api/data.json"));
    assert_eq!(data["response"]["content"]["text"], r#"{"items":[1,2,3]}"#);
    let denied = find("http://localhost:");
    assert!(
        denied["response"]["content"].get("text").is_none(),
        "{denied}"
    );
    assert!(
        denied["comment"]
            .as_str()
            .unwrap()
            .contains("blocked by the policy"),
        "{denied}"
    );

    // Offline: a navigation fails and says why; online restores it.
    let out = mcp
        .ok("browser_network_state_set", json!({"state": "offline"}))
        .await;
    assert!(out.contains("offline"), "{out}");
    let err = mcp
        .text(
            "browser_navigate",
            json!({"url": w.site.url("/pages/network.html")}),
        )
        .await;
    let text = match err {
        Ok(t) | Err(t) => t,
    };
    assert!(text.contains("ERR_INTERNET_DISCONNECTED"), "{text}");
    let out = mcp
        .ok("browser_network_state_set", json!({"state": "online"}))
        .await;
    assert!(out.contains("online, not throttled"), "{out}");
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/network.html")}),
    )
    .await;
    assert_eq!(items(&mcp).await, r#"status 200: {"items":[1,2,3]}"#);

    // Throttled: an added latency is felt by the page's own requests.
    let out = mcp
        .ok(
            "browser_network_state_set",
            json!({"state": "online", "latencyMs": 1200, "downloadKbps": 1000}),
        )
        .await;
    assert!(out.contains("latency +1200 ms"), "{out}");
    let started = Instant::now();
    assert!(items(&mcp).await.starts_with("status 200"));
    assert!(
        started.elapsed().as_millis() >= 1100,
        "{:?}",
        started.elapsed()
    );
    mcp.ok("browser_network_state_set", json!({"state": "online"}))
        .await;
    let started = Instant::now();
    items(&mcp).await;
    assert!(
        started.elapsed().as_millis() < 1100,
        "{:?}",
        started.elapsed()
    );

    // Extra headers go with the page's requests.
    let out = mcp
        .ok(
            "browser_set_extra_headers",
            json!({"headers": ["X-Tabwire-Test: yes"]}),
        )
        .await;
    assert!(out.contains("X-Tabwire-Test"), "{out}");
    items(&mcp).await;
    let list = mcp
        .ok("browser_network_requests", json!({"filter": "data.json"}))
        .await;
    let id = list
        .lines()
        .rev()
        .find_map(|l| l.strip_prefix('[')?.split(']').next()?.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("{list}"));
    let detail = mcp.ok("browser_network_request", json!({"id": id})).await;
    assert!(
        detail.to_ascii_lowercase().contains("x-tabwire-test: yes"),
        "{detail}"
    );
}

/// A Gradio app (bench/apps/gradio_compute.py), stopped when dropped.
struct Gradio {
    child: std::process::Child,
    url: String,
}

impl Drop for Gradio {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_gradio(w: &World) -> Gradio {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let app = concat!(env!("CARGO_MANIFEST_DIR"), "/bench/apps/gradio_compute.py");
    let child = std::process::Command::new("python3")
        .arg(app)
        .arg(port.to_string())
        .env("GRADIO_ANALYTICS_ENABLED", "False")
        .stdout(std::fs::File::create(w.sb.log("gradio")).unwrap())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("python3 runs the Gradio app (pip install gradio)");
    let app = Gradio {
        child,
        url: format!("http://127.0.0.1:{port}/"),
    };
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed().as_secs() < 90,
            "the Gradio app did not start (pip install gradio); see its log"
        );
        std::thread::sleep(std::time::Duration::from_millis(300));
    }
    app
}

/// A real app's own API answer, mocked: Gradio's Compute button asks its
/// queue (join, then an event stream of results); both are answered by
/// routes, and the app shows the mocked result instead of computing.
async fn mocked_answer_in_a_real_app(w: World) {
    let app = start_gradio(&w);
    let mcp = client_with(&w, "network", &["--caps".into(), "network".into()]).await;
    mcp.ok("browser_navigate", json!({"url": app.url})).await;
    mcp.ok("browser_wait_for", json!({"text": "Compute"})).await;
    mcp.ok(
        "browser_route",
        json!({"pattern": "**/gradio_api/queue/join*", "contentType": "application/json",
               "body": "{\"event_id\":\"mock-1\"}"}),
    )
    .await;
    let stream = [
        json!({"msg": "process_starts", "event_id": "mock-1"}),
        json!({"msg": "process_completed", "event_id": "mock-1", "success": true,
               "output": {"data": ["Mocked by tabwire"], "is_generating": false}}),
        json!({"msg": "close_stream", "event_id": null}),
    ]
    .iter()
    .map(|m| format!("data: {m}\n\n"))
    .collect::<String>();
    mcp.ok(
        "browser_route",
        json!({"pattern": "**/gradio_api/queue/data*", "contentType": "text/event-stream",
               "body": stream}),
    )
    .await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let button = common::find_ref(&snap, "button", "Compute");
    mcp.ok("browser_click", json!({"target": button})).await;
    shows(&mcp, "Mocked by tabwire").await;
    let out = mcp.ok("browser_route_list", json!({})).await;
    assert!(!out.contains("answered 0 requests"), "{out}");
    // Unrouted, the app computes for real again.
    mcp.ok("browser_unroute", json!({})).await;
    mcp.ok("browser_click", json!({"target": button})).await;
    shows(&mcp, "The square of 3 is 9").await;
}

/// Waits until the page's snapshot holds `text` (the result is a
/// textbox's value, which browser_wait_for does not search).
async fn shows(mcp: &common::Mcp, text: &str) {
    let started = Instant::now();
    loop {
        let snap = mcp.ok("browser_snapshot", json!({})).await;
        if snap.contains(text) {
            return;
        }
        assert!(started.elapsed().as_secs() < 20, "no {text:?} in:\n{snap}");
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
}
