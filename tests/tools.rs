//! End to end, on both backends (extension and CDP fallback), for the tools
//! that read and keep data: Markdown, network log, cookies, storage,
//! downloads, media capture, PDF, drag and drop, page-declared tools,
//! snapshot diffs after actions and same-origin iframes.

#[macro_use]
mod common;

use common::install_env::png_size;
use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    markdown_keeps_the_article_and_drops_the_chrome,
    network_log_cookies_and_storage,
    downloads_media_and_pdf_land_in_the_download_dir_only,
    drag_and_drop_page_tools_and_snapshot_diffs,
    same_origin_iframes_can_be_read_and_driven,
    cross_site_iframes_and_shadow_roots_can_be_read_and_driven,
    find_reaches_the_whole_page_and_its_frames,
    modifiers_slow_typing_element_scripts_and_file_choosers,
);

async fn modifiers_slow_typing_element_scripts_and_file_choosers(w: World) {
    let allowed = w.sb.tmp.path().join("uploads");
    std::fs::create_dir_all(&allowed).unwrap();
    std::fs::write(allowed.join("notes.txt"), b"abc").unwrap();
    let mcp = client_with(
        &w,
        "Keyboard",
        &["--upload-dir".into(), allowed.display().to_string()],
    )
    .await;
    mcp.ok("browser_navigate", json!({"url": w.site.url("/keys")}))
        .await;
    // slowly: one keydown per character (the page logs each; the field is
    // cleared first, as a user would, with Delete).
    mcp.ok(
        "browser_type",
        json!({"target": "#k", "text": "ab", "slowly": true}),
    )
    .await;
    assert_eq!(
        eval_json(&mcp, "() => [document.querySelector('#k').value, document.querySelector('#log').textContent]").await,
        json!(["ab", "[Delete][a][b]"])
    );
    mcp.ok(
        "browser_click",
        json!({"target": "#mod", "modifiers": ["Control", "Shift"]}),
    )
    .await;
    // A function gets the target element as its argument.
    let r = mcp
        .ok(
            "browser_evaluate",
            json!({"function": "(el) => el.textContent + ' / ' + el.id", "target": "#mod"}),
        )
        .await;
    assert!(r.contains("clicked with CtrlShift / mod"), "{r}");

    // A button that opens the file chooser: the chooser is caught, reported,
    // and filled without naming the input.
    mcp.ok("browser_navigate", json!({"url": w.site.url("/upload")}))
        .await;
    let e = mcp
        .text(
            "browser_file_upload",
            json!({"paths": [allowed.join("notes.txt").display().to_string()]}),
        )
        .await
        .unwrap_err();
    assert!(e.contains("no file chooser is open"), "{e}");
    let clicked = mcp.ok("browser_click", json!({"target": "#pick"})).await;
    assert!(clicked.contains("A file chooser opened"), "{clicked}");
    mcp.ok(
        "browser_file_upload",
        json!({"paths": [allowed.join("notes.txt").display().to_string()]}),
    )
    .await;
    assert_eq!(
        eval_json(&mcp, "() => document.querySelector('#files').textContent").await,
        "notes.txt:3"
    );
}

async fn markdown_keeps_the_article_and_drops_the_chrome(w: World) {
    let mcp = client(&w, "Reader").await;
    mcp.ok("browser_navigate", json!({"url": w.site.url("/article")}))
        .await;
    let md = mcp.ok("browser_read_markdown", json!({})).await;
    for want in [
        "# On Tidepools",
        "Tidepools are **rocky** pools by the *sea*.",
        &format!("[anemones]({})", w.site.url("/page/anemones")),
        "## What lives there",
        "- Anemones",
        "  - Hermit crabs",
        "1. Look\n2. Do not touch",
        "```\ntide = low\nvisit()\n```",
        "| Tide | Height |\n| --- | --- |\n| Low | 0.3 m |",
        &format!("![A red dot]({})", w.site.url("/img/dot.png")),
        "> The sea is patient.",
        "Paragraph 60: the tide",
    ] {
        assert!(md.contains(want), "missing {want:?} in:\n{md}");
    }
    for gone in [
        "Home",
        "newsletter",
        "Footer text",
        "Hidden text",
        "notInMarkdown",
    ] {
        assert!(!md.contains(gone), "{gone:?} should be left out:\n{md}");
    }
    // A target limits it to one element.
    let part = mcp
        .ok("browser_read_markdown", json!({"target": "table"}))
        .await;
    assert!(part.contains("| Low | 0.3 m |") && !part.contains("Paragraph 1:"));
    // A full-page screenshot of the long article: taller than the viewport,
    // as tall as the document (through the extension: one >1 MiB answer).
    let shot = mcp
        .call("browser_take_screenshot", json!({"fullPage": true}))
        .await;
    let (_, _, full_h) = image_size(&shot);
    let dims = eval_json(
        &mcp,
        "() => [innerHeight * devicePixelRatio, document.documentElement.scrollHeight * devicePixelRatio]",
    )
    .await;
    let (view_h, doc_h) = (dims[0].as_f64().unwrap(), dims[1].as_f64().unwrap());
    assert!(doc_h > view_h * 2.0, "the fixture must be tall: {dims}");
    assert!(
        (full_h as f64 - doc_h).abs() <= 2.0,
        "full page {full_h} vs document {doc_h}"
    );
    eprintln!(
        "article: markdown {} bytes, snapshot {} bytes",
        md.len(),
        mcp.ok("browser_snapshot", json!({})).await.len()
    );
}

async fn network_log_cookies_and_storage(w: World) {
    let mcp = client_with(&w, "Data", &["--caps".into(), "storage".into()]).await;
    mcp.ok("browser_navigate", json!({"url": w.site.url("/media")}))
        .await;
    // The page's own fetch lands in the log with its status and type.
    let json_url = w.site.url("/api/data.json");
    let list = wait_for_text(&mcp, "browser_network_requests", json!({}), &json_url).await;
    let line = list
        .lines()
        .find(|l| l.contains(&json_url))
        .unwrap_or_else(|| panic!("{list}"));
    assert!(line.contains("→ 200 Fetch"), "{line}");
    assert!(
        list.contains(&format!("GET {} → 200 Document", w.site.url("/media"))),
        "{list}"
    );
    let only = mcp
        .ok("browser_network_requests", json!({"filter": "dot.png"}))
        .await;
    assert!(
        only.contains("dot.png") && !only.contains("data.json"),
        "{only}"
    );
    let id: u64 = line[1..line.find(']').unwrap()].parse().unwrap();
    let detail = mcp
        .ok("browser_network_request", json!({"id": id, "body": true}))
        .await;
    assert!(
        detail.contains("content-type: application/json")
            || detail.contains("Content-Type: application/json"),
        "{detail}"
    );
    assert!(detail.contains(r#"{"items":[1,2,3]}"#), "{detail}");
    let e = mcp
        .text("browser_network_request", json!({"id": 99999}))
        .await
        .unwrap_err();
    assert!(e.contains("no request [99999]"), "{e}");

    // Cookies: one set by the server, one by the tool, then deleted.
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/set-cookie")}),
    )
    .await;
    let cookies = mcp.ok("browser_cookies", json!({"action": "list"})).await;
    assert!(cookies.contains("visit=first"), "{cookies}");
    mcp.ok(
        "browser_cookies",
        json!({"action": "set", "name": "theme", "value": "dark"}),
    )
    .await;
    assert_eq!(
        eval_json(&mcp, "() => document.cookie.split('; ').sort().join('; ')").await,
        "theme=dark; visit=first"
    );
    let one = mcp
        .ok("browser_cookies", json!({"action": "get", "name": "theme"}))
        .await;
    assert!(fenced(&one).starts_with("theme=dark"), "{one}");
    mcp.ok(
        "browser_cookies",
        json!({"action": "delete", "name": "visit"}),
    )
    .await;
    assert_eq!(eval_json(&mcp, "() => document.cookie").await, "theme=dark");
    let e = mcp
        .text("browser_cookies", json!({"action": "get"}))
        .await
        .unwrap_err();
    assert!(e.contains("needs `name`"), "{e}");
    mcp.ok("browser_cookies", json!({"action": "clear"})).await;
    assert_eq!(eval_json(&mcp, "() => document.cookie").await, "");

    // Web storage, both areas.
    mcp.ok(
        "browser_storage",
        json!({"area": "local", "action": "set", "key": "cart", "value": "3 items"}),
    )
    .await;
    mcp.ok(
        "browser_storage",
        json!({"area": "session", "action": "set", "key": "step", "value": "2"}),
    )
    .await;
    assert_eq!(
        eval_json(
            &mcp,
            "() => [localStorage.getItem('cart'), sessionStorage.getItem('step')]"
        )
        .await,
        json!(["3 items", "2"])
    );
    let listed = mcp
        .ok(
            "browser_storage",
            json!({"area": "local", "action": "list"}),
        )
        .await;
    assert!(listed.contains("cart = 3 items"), "{listed}");
    let got = mcp
        .ok(
            "browser_storage",
            json!({"area": "session", "action": "get", "key": "step"}),
        )
        .await;
    assert!(fenced(&got).starts_with("step = 2"), "{got}");
    mcp.ok(
        "browser_storage",
        json!({"area": "local", "action": "delete", "key": "cart"}),
    )
    .await;
    mcp.ok(
        "browser_storage",
        json!({"area": "session", "action": "clear"}),
    )
    .await;
    assert_eq!(
        eval_json(&mcp, "() => localStorage.length + sessionStorage.length").await,
        0
    );
}

/// Calls `tool` until its text contains `want` (the page may still be
/// fetching).
async fn wait_for_text(mcp: &Mcp, tool: &str, args: serde_json::Value, want: &str) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let text = mcp.ok(tool, args.clone()).await;
        if text.contains(want) {
            return text;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{tool} never showed {want:?}:\n{text}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

/// The path in a "Saved /x/y (N bytes, type)" answer.
fn saved_path(answer: &str) -> std::path::PathBuf {
    let answer = &plain(answer);
    let first = answer.lines().next().unwrap_or("");
    let rest = first
        .strip_prefix("Saved ")
        .unwrap_or_else(|| panic!("not a saved answer: {answer}"));
    std::path::PathBuf::from(&rest[..rest.rfind(" (").unwrap()])
}

async fn downloads_media_and_pdf_land_in_the_download_dir_only(w: World) {
    let dir = w.sb.tmp.path().join("downloads");
    let mcp = client_with(
        &w,
        "Saver",
        &[
            "--download-dir".into(),
            dir.display().to_string(),
            "--max-download-mb".into(),
            "1".into(),
        ],
    )
    .await;
    let snap = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/media")}))
        .await;

    // A link whose server suggests "../../evil report.csv": saved inside
    // the dir, under the sanitized name, with the exact bytes.
    let report = find_ref(&snap, "link", "Report");
    let got = mcp.ok("browser_download", json!({"target": report})).await;
    let path = saved_path(&got);
    assert_eq!(path, dir.join("evil report.csv"), "{got}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), site::REPORT_CSV);
    assert!(got.contains("text/csv"), "{got}");
    // Again: a second file, never an overwrite.
    let again = mcp
        .ok("browser_download", json!({"target": "#report"}))
        .await;
    assert_eq!(saved_path(&again), dir.join("evil report (2).csv"));
    // The page's own download name.
    let named = mcp
        .ok("browser_download", json!({"target": "#named"}))
        .await;
    assert_eq!(saved_path(&named), dir.join("data export.json"));

    // Cross-origin (no CORS headers): the browser's loader gets it.
    let other = site::Site::start();
    let url = other.url("/files/big.bin?bytes=300000");
    let big = mcp.ok("browser_download", json!({"url": url})).await;
    let bytes = std::fs::read(saved_path(&big)).unwrap();
    assert_eq!(bytes.len(), 300_000);
    assert!(bytes.iter().enumerate().all(|(i, b)| *b == (i % 251) as u8));

    // Over the cap (1 MiB): a clear error and nothing written.
    let before = std::fs::read_dir(&dir).unwrap().count();
    for url in [
        w.site.url("/files/big.bin?bytes=1200000"),
        other.url("/files/big.bin?bytes=1200000"),
    ] {
        let e = mcp
            .text("browser_download", json!({"url": url}))
            .await
            .unwrap_err();
        assert!(e.contains("limit is 1.0 MiB"), "{e}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), before);
    let e = mcp.text("browser_download", json!({})).await.unwrap_err();
    assert!(e.contains("exactly one of `url` or `target`"), "{e}");

    // Media: the image from the response the page already has, the canvas
    // from its pixels, a blob the page made.
    let dot = mcp
        .ok("browser_capture_media", json!({"target": "#dot"}))
        .await;
    assert!(
        dot.contains("via the response the page already received"),
        "{dot}"
    );
    assert_eq!(std::fs::read(saved_path(&dot)).unwrap(), site::DOT_PNG);
    assert!(saved_path(&dot).ends_with("dot.png"));
    let canvas = mcp
        .ok("browser_capture_media", json!({"target": "#canvas"}))
        .await;
    let png = std::fs::read(saved_path(&canvas)).unwrap();
    assert_eq!(png_size(&png), (4, 4), "{canvas}");
    mcp.ok("browser_click", json!({"target": "#make"})).await;
    let blob = mcp
        .ok("browser_download", json!({"target": "#bloblink"}))
        .await;
    assert_eq!(
        std::fs::read_to_string(saved_path(&blob)).unwrap(),
        "made in the page"
    );

    let pdf = mcp.ok("browser_pdf_save", json!({})).await;
    let path = saved_path(&pdf);
    assert!(
        path.starts_with(&dir) && path.extension().unwrap() == "pdf",
        "{pdf}"
    );
    assert!(std::fs::read(&path).unwrap().starts_with(b"%PDF-"));
    let entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        entries
            .iter()
            .all(|n| !n.contains('/') && !n.starts_with('.')),
        "{entries:?}"
    );
}

async fn drag_and_drop_page_tools_and_snapshot_diffs(w: World) {
    let mcp = client(&w, "Dragger").await;
    mcp.ok("browser_navigate", json!({"url": w.site.url("/drag")}))
        .await;
    let dropped = mcp
        .ok(
            "browser_drag",
            json!({"startTarget": "#card", "endTarget": "#zone"}),
        )
        .await;
    assert_eq!(
        eval_json(&mcp, "() => document.querySelector('#log').textContent").await,
        "dropped card-1",
        "{dropped}"
    );
    // The navigate answer was a snapshot, so the drag reports the change.
    assert!(
        dropped.contains("added:") && dropped.contains("dropped card-1"),
        "{dropped}"
    );
    assert!(
        dropped.contains("removed:") && dropped.contains("nothing dropped"),
        "{dropped}"
    );

    // A change that does not touch the outline says so.
    let same = mcp.ok("browser_hover", json!({"target": "#zone"})).await;
    assert!(same.contains("The snapshot did not change."), "{same}");

    // Tabs the page opens are reported and become the client's tabs.
    mcp.ok("browser_navigate", json!({"url": w.site.url("/opener")}))
        .await;
    let popup = mcp.ok("browser_click", json!({"target": "button"})).await;
    assert!(popup.contains("The page opened a new tab ("), "{popup}");
    let linked = mcp.ok("browser_click", json!({"target": "a"})).await;
    assert!(linked.contains("The page opened a new tab ("), "{linked}");
    wait_for_text(
        &mcp,
        "browser_tabs",
        json!({"action": "list"}),
        "/page/popup",
    )
    .await;
    wait_for_text(
        &mcp,
        "browser_tabs",
        json!({"action": "list"}),
        "/page/new-tab",
    )
    .await;

    // Page-declared tools (WebMCP).
    mcp.ok("browser_navigate", json!({"url": w.site.url("/webmcp")}))
        .await;
    let listed = mcp.ok("browser_page_tools", json!({})).await;
    assert!(
        listed.contains("- add_to_total: Adds n to the total"),
        "{listed}"
    );
    assert!(listed.contains(r#""required":["n"]"#), "{listed}");
    let r = mcp
        .ok(
            "browser_page_tool_call",
            json!({"name": "add_to_total", "arguments": {"n": 5}}),
        )
        .await;
    assert_eq!(fenced(&r), "total is 5", "{r}");
    assert_eq!(
        eval_json(&mcp, "() => document.querySelector('#total').textContent").await,
        "5"
    );
    let e = mcp
        .text("browser_page_tool_call", json!({"name": "nope"}))
        .await
        .unwrap_err();
    assert!(
        plain(&e).contains("no tool \"nope\" (it has: add_to_total)"),
        "{e}"
    );
    let e = mcp
        .text(
            "browser_page_tool_call",
            json!({"name": "add_to_total", "arguments": {"n": "x"}}),
        )
        .await;
    // The page's own code decides what bad input means; it must not hang.
    assert!(e.is_ok() || e.unwrap_err().contains("page tool"));
    mcp.ok("browser_navigate", json!({"url": w.site.url("/form")}))
        .await;
    let none = mcp.ok("browser_page_tools", json!({})).await;
    assert!(none.contains("declares no tools"), "{none}");
}

async fn same_origin_iframes_can_be_read_and_driven(w: World) {
    let mcp = client(&w, "Framer").await;
    let snap = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/frames")}))
        .await;
    assert!(
        snap.contains("Inner button"),
        "the iframe's content is in the snapshot:\n{snap}"
    );
    let field = find_ref(&snap, "textbox", "Inner name");
    let button = find_ref(&snap, "button", "Inner button");
    mcp.ok("browser_type", json!({"target": field, "text": "Ada"}))
        .await;
    let clicked = mcp.ok("browser_click", json!({"target": button})).await;
    assert!(clicked.contains("inner clicked Ada"), "{clicked}");
}

async fn cross_site_iframes_and_shadow_roots_can_be_read_and_driven(w: World) {
    let mcp = client(&w, "Far framer").await;
    let snap = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/xframes")}))
        .await;
    // An out-of-process frame's content sits under its Iframe line, with
    // refs of its own (f<frame>e<n>).
    assert!(snap.contains("Iframe \"Far frame\""), "{snap}");
    let field = find_ref(&snap, "textbox", "Inner name");
    let button = find_ref(&snap, "button", "Inner button");
    assert!(field.starts_with('f') && button.starts_with('f'), "{snap}");
    mcp.ok("browser_type", json!({"target": field, "text": "Ada"}))
        .await;
    let clicked = mcp.ok("browser_click", json!({"target": button})).await;
    assert!(clicked.contains("inner clicked Ada"), "{clicked}");
    // An element screenshot inside the frame is the element's size.
    let shot = mcp
        .call("browser_take_screenshot", json!({"target": field}))
        .await;
    let (_, width, height) = image_size(&shot);
    assert!(
        (50..400).contains(&width) && (10..60).contains(&height),
        "{width}x{height}"
    );
    // Open shadow roots are walked; their elements take refs like any.
    let shadow = find_ref(&snap, "button", "Shadow button");
    let pressed = mcp.ok("browser_click", json!({"target": shadow})).await;
    assert!(pressed.contains("shadow clicked"), "{pressed}");
    // A frame of the top page's site inside a cross-site frame: rendered
    // under both Iframe lines and driven at the right place.
    let nested = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/xframes-nested")}),
        )
        .await;
    assert!(
        nested.contains("Middle page") && nested.contains("Iframe \"Innermost\""),
        "{nested}"
    );
    let deep_field = find_ref(&nested, "textbox", "Inner name");
    let deep_button = find_ref(&nested, "button", "Inner button");
    mcp.ok("browser_type", json!({"target": deep_field, "text": "Bo"}))
        .await;
    let deep = mcp
        .ok("browser_click", json!({"target": deep_button}))
        .await;
    assert!(deep.contains("inner clicked Bo"), "{deep}");
    mcp.ok("browser_navigate", json!({"url": w.site.url("/xframes")}))
        .await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let button = find_ref(&snap, "button", "Inner button");
    // A frame ref after the page navigated is refused, not sent anywhere.
    mcp.ok("browser_navigate", json!({"url": w.site.url("/xframes")}))
        .await;
    let stale = mcp
        .text("browser_click", json!({"target": button}))
        .await
        .unwrap_err();
    assert!(stale.contains("stale"), "{stale}");
}

async fn find_reaches_the_whole_page_and_its_frames(w: World) {
    let mcp = client(&w, "Finder").await;
    mcp.ok("browser_navigate", json!({"url": w.site.url("/links")}))
        .await;
    // A link far down a long list: found with a ref that works.
    let found = mcp.ok("browser_find", json!({"text": "item 150"})).await;
    assert!(found.contains("1 match for"), "{found}");
    let item = find_ref(&found, "link", "Item 150");
    let went = mcp.ok("browser_click", json!({"target": item})).await;
    assert!(went.contains("/page/item-150"), "{went}");
    // By role alone, and nothing at all.
    mcp.ok("browser_navigate", json!({"url": w.site.url("/form")}))
        .await;
    let boxes = mcp.ok("browser_find", json!({"role": "textbox"})).await;
    assert!(boxes.contains("- textbox \"Name\""), "{boxes}");
    assert!(!boxes.contains("- button"), "{boxes}");
    let none = mcp
        .ok("browser_find", json!({"text": "no such words anywhere"}))
        .await;
    assert!(none.contains("Nothing on the page matches"), "{none}");
    let bad = mcp.text("browser_find", json!({})).await.unwrap_err();
    assert!(bad.contains("give `text`"), "{bad}");
    // Inside a cross-site frame the latest snapshot reached.
    mcp.ok("browser_navigate", json!({"url": w.site.url("/xframes")}))
        .await;
    let inner = mcp
        .ok("browser_find", json!({"text": "inner button"}))
        .await;
    assert!(inner.contains("— in frame f"), "{inner}");
    let button = find_ref(&inner, "button", "Inner button");
    let clicked = mcp.ok("browser_click", json!({"target": button})).await;
    assert!(clicked.contains("inner clicked"), "{clicked}");
}

/// Runs `tabwire call` against the sandbox's browser; (exit status, JSON).
fn tabwire_call(sb: &Sandbox, args: &[&str]) -> (i32, serde_json::Value) {
    let (code, json, _) = tabwire_call_logged(sb, args);
    (code, json)
}

/// [`tabwire_call`], with the call's debug log: (exit status, JSON, log).
fn tabwire_call_logged(sb: &Sandbox, args: &[&str]) -> (i32, serde_json::Value, String) {
    let out = std::process::Command::new(BIN)
        .arg("call")
        .args(args)
        .args(["--connect-timeout", "30"])
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .env("TABWIRE_DATA_DIR", sb.data_dir())
        .env("RUST_LOG", "tabwire=debug")
        .output()
        .expect("run tabwire call");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let json = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!("stdout is not one JSON result ({e}): {stdout:?}; stderr: {log}")
    });
    (out.status.code().unwrap_or(-1), json, log)
}

fn result_text(v: &serde_json::Value) -> String {
    v["content"][0]["text"].as_str().unwrap_or("").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabwire_call_runs_tools_from_a_shell_through_the_extension() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let _browser = Chromium::launch(&sb);
    let site = site::Site::start();
    let url = site.url("/page/from-a-script");
    let (code, nav) = tabwire_call(
        &sb,
        &[
            "browser_navigate",
            "--args",
            &json!({"url": url}).to_string(),
        ],
    );
    assert_eq!(code, 0, "{nav}");
    assert!(
        result_text(&nav).contains("heading \"from-a-script\""),
        "{nav}"
    );
    // The next call of the same session finds that tab, set up already by
    // the first: the engine and the domains are not sent again.
    let (code, text, log) = tabwire_call_logged(&sb, &["browser_get_text"]);
    assert_eq!(code, 0, "{text}");
    assert!(result_text(&text).contains("from-a-script"), "{text}");
    assert!(log.contains("was set up before"), "{log}");
    assert!(!log.contains("setting the tab up"), "{log}");
    // The document and the engine's world came with the setup's message
    // (the extension filled the frame in): no round trip of their own.
    assert!(!log.contains(r#"method="Page.getFrameTree""#), "{log}");
    assert!(
        !log.contains(r#"method="Page.createIsolatedWorld""#),
        "{log}"
    );
    // The session's tab came with the hello answer: no tabs.list.
    assert!(!log.contains(r#"method="tabs.list""#), "{log}");
    // A navigation's answer: the page said it had loaded and brought its
    // snapshot in the same answer (no round trip of the snapshot's own).
    let (code, nav, log) = tabwire_call_logged(
        &sb,
        &[
            "browser_navigate",
            "--args",
            &json!({"url": url}).to_string(),
        ],
    );
    assert_eq!(code, 0, "{nav}");
    assert!(
        result_text(&nav).contains("heading \"from-a-script\""),
        "{nav}"
    );
    assert!(
        log.contains("the snapshot came with the page's word that it had loaded"),
        "{log}"
    );
    // Another session has its own tabs.
    let (code, tabs) = tabwire_call(
        &sb,
        &[
            "browser_tabs",
            "--session",
            "other",
            "--args",
            r#"{"action":"list"}"#,
        ],
    );
    assert_eq!(code, 0, "{tabs}");
    assert!(!result_text(&tabs).contains("from-a-script"), "{tabs}");
    // A tool error: exit status 1 and the error in the JSON.
    let (code, err) = tabwire_call(
        &sb,
        &["browser_click", "--args", r##"{"target":"#missing"}"##],
    );
    assert_eq!(code, 1, "{err}");
    assert_eq!(err["isError"], true);
    let text = result_text(&err);
    assert!(text.contains("no element matches"), "{err}");
    // The error shows where we are and what could be targeted instead.
    assert!(plain(&text).contains("Page: from-a-script"), "{text}");
    assert!(text.contains("link \"Go to form\" [ref=e"), "{text}");
    // A target is resolved and aimed at in one message (the resolve, the
    // scroll, the box and the hit test), through the extension too.
    let (code, hovered, log) =
        tabwire_call_logged(&sb, &["browser_hover", "--args", r#"{"target":"a"}"#]);
    assert_eq!(code, 0, "{hovered}");
    assert!(result_text(&hovered).contains("Hovered"), "{hovered}");
    assert!(
        log.contains(r#"cdp batch first="Runtime.evaluate" n=4"#),
        "{log}"
    );
    // (Step by step, the aim would follow as a batch of its own.)
    assert!(
        !log.contains(r#"cdp batch first="DOM.scrollIntoViewIfNeeded""#),
        "{log}"
    );
    // Typing resolves the field and focuses it in one message too.
    let (code, nav) = tabwire_call(
        &sb,
        &[
            "browser_navigate",
            "--args",
            &json!({"url": site.url("/form")}).to_string(),
        ],
    );
    assert_eq!(code, 0, "{nav}");
    let (code, typed, log) = tabwire_call_logged(
        &sb,
        &[
            "browser_type",
            "--args",
            r##"{"target":"#name","text":"Ada"}"##,
        ],
    );
    assert_eq!(code, 0, "{typed}");
    assert!(
        result_text(&typed).contains("Typed 3 characters"),
        "{typed}"
    );
    assert!(
        log.contains(r#"cdp batch first="Runtime.evaluate" n=2"#),
        "{log}"
    );
    assert!(!log.contains(r#"method="Runtime.callFunctionOn""#), "{log}");
    assert!(!result_text(&typed).contains("but the field"), "{typed}");
    // The policy flags apply as in serve.
    let (code, denied) = tabwire_call(
        &sb,
        &[
            "browser_navigate",
            "--deny-domain",
            "127.0.0.1",
            "--args",
            &json!({"url": url}).to_string(),
        ],
    );
    assert_eq!(code, 1, "{denied}");
    assert!(result_text(&denied).contains("127.0.0.1"), "{denied}");
    // Bad arguments never reach the browser.
    let out = std::process::Command::new(BIN)
        .args(["call", "browser_tabs", "--args", "not json"])
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    // Each call left its socket behind it removed.
    let left: Vec<_> = std::fs::read_dir(&sb.runtime)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("serve-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
