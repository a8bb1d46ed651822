//! Tools pages declare for agents (WebMCP), on both backends: the
//! browser's own registry (Chromium with `--enable-features=WebMCP`,
//! reached through `chrome.debugger` and directly over CDP), and tabwire's
//! shim where the browser has none (the CDP fallback with `--no-webmcp`).
//! The fixture pages are tests/pages/webmcp/.

#[macro_use]
mod common;

use std::sync::Arc;
use std::time::Duration;

use common::world::*;
use common::*;
use serde_json::{json, Value};

/// The world of a WebMCP scenario: the extension's browser has WebMCP on
/// (the CDP fallback turns it on itself).
fn webmcp_world(via: Via) -> World {
    let sb = Sandbox::new();
    let browser = (via == Via::Extension)
        .then(|| Chromium::launch_with_extension(&sb, &["--enable-features=WebMCP"]));
    World {
        sb,
        _browser: browser,
        site: site::Site::start(),
        via,
    }
}

macro_rules! on_both_backends_with_webmcp {
    ($($scenario:ident),* $(,)?) => {
        mod extension {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let _serial = $crate::common::BROWSER_LOCK.lock().await;
                    super::$scenario(super::webmcp_world($crate::common::world::Via::Extension)).await
                }
            )*
        }
        mod cdp {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let _serial = $crate::common::BROWSER_LOCK.lock().await;
                    super::$scenario(super::webmcp_world($crate::common::world::Via::Cdp)).await
                }
            )*
        }
    };
}

on_both_backends_with_webmcp!(
    the_browser_s_page_tools_are_listed_checked_and_called,
    form_and_frame_tools_come_from_the_browser_s_registry,
    page_tools_can_be_mcp_tools_of_their_own,
);

/// The error kind an error result names.
fn kind(r: &rmcp::model::CallToolResult) -> Option<String> {
    r.meta
        .as_ref()
        .and_then(|m| m.0.get("tabwire/errorKind"))
        .and_then(Value::as_str)
        .map(str::to_string)
}

/// Calls page tool `name` and returns the whole result.
async fn call(mcp: &Mcp, name: &str, arguments: Value) -> rmcp::model::CallToolResult {
    mcp.call(
        "browser_page_tool_call",
        json!({"name": name, "arguments": arguments}),
    )
    .await
}

async fn open(mcp: &Mcp, w: &World, page: &str, support: &str) {
    let url = w.site.url(&format!("/pages/webmcp/{page}"));
    mcp.ok("browser_navigate", json!({"url": url})).await;
    mcp.ok("browser_wait_for", json!({"text": support})).await;
}

/// The calls every registry must get right, the browser's or the shim's.
async fn the_imperative_tools_work(mcp: &Arc<Mcp>, w: &World, registry: &str) {
    open(mcp, w, "imperative.html", "WebMCP: available").await;
    let listed = mcp.ok("browser_page_tools", json!({})).await;
    assert!(listed.contains(registry), "{listed}");
    let tools = fenced(&listed);
    for name in [
        "add_item",
        "list_items",
        "delete_all",
        "boom",
        "withdrawn",
        "slow",
    ] {
        assert!(
            tools.contains(&format!("- {name}")),
            "{name} missing:\n{listed}"
        );
    }
    assert!(tools.contains("- list_items [read-only]"), "{listed}");
    assert!(tools.contains("- delete_all [consequential]"), "{listed}");
    assert!(
        tools.contains("\"count\":{\"description\":\"How many to buy\",\"type\":\"integer\"}")
            || tools.contains("How many to buy"),
        "{listed}"
    );

    // A call: its result in the fence, what it changed on the page.
    let added = call(mcp, "add_item", json!({"title": "Milk", "count": 2})).await;
    let text = text_of(&added);
    assert_ne!(added.is_error, Some(true), "{text}");
    assert!(fenced(&text).contains("Added 2 × \"Milk\""), "{text}");
    assert!(
        text.contains("2 × Milk"),
        "the change report misses the new item:\n{text}"
    );

    // Arguments that break the schema never reach the page.
    let bad = call(mcp, "add_item", json!({"title": "Eggs", "count": "many"})).await;
    assert_eq!(
        kind(&bad).as_deref(),
        Some("bad_arguments"),
        "{}",
        text_of(&bad)
    );
    assert!(
        text_of(&bad).contains("`count` must be integer"),
        "{}",
        text_of(&bad)
    );
    let missing = call(mcp, "add_item", json!({"title": "Eggs"})).await;
    assert_eq!(kind(&missing).as_deref(), Some("bad_arguments"));
    let page = mcp.ok("browser_get_text", json!({})).await;
    assert!(
        !page.contains("Eggs"),
        "a refused call reached the page:\n{page}"
    );

    // The page's own failure, with its message.
    let boom = call(mcp, "boom", json!({})).await;
    assert_eq!(
        kind(&boom).as_deref(),
        Some("page_tool_failed"),
        "{}",
        text_of(&boom)
    );
    assert!(
        text_of(&boom).contains("boom-message"),
        "{}",
        text_of(&boom)
    );

    // A structured answer comes back as JSON.
    let items = text_of(&call(mcp, "list_items", json!({})).await);
    assert!(fenced(&items).contains("\"title\":\"Milk\""), "{items}");

    // The page says a tool is consequential: the answer says so too.
    let deleted = text_of(&call(mcp, "delete_all", json!({})).await);
    assert!(deleted.contains("Deleted 1 items"), "{deleted}");
    assert!(
        deleted.contains("marks this tool consequential"),
        "{deleted}"
    );

    // A tool the page withdraws is gone; an unknown name lists the others.
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    mcp.ok(
        "browser_click",
        json!({"target": find_ref(&snap, "button", "Withdraw")}),
    )
    .await;
    let listed = mcp.ok("browser_page_tools", json!({})).await;
    assert!(!fenced(&listed).contains("- withdrawn"), "{listed}");
    let gone = call(mcp, "withdrawn", json!({})).await;
    assert_eq!(
        kind(&gone).as_deref(),
        Some("not_found"),
        "{}",
        text_of(&gone)
    );
    assert!(text_of(&gone).contains("add_item"), "{}", text_of(&gone));

    // A tool added after a click is there.
    mcp.ok(
        "browser_click",
        json!({"target": find_ref(&snap, "button", "Add late tool")}),
    )
    .await;
    let late = text_of(&call(mcp, "late_tool", json!({})).await);
    assert!(fenced(&late).contains("late-result"), "{late}");

    // A call that never answers is cancelled at the call's time limit
    // (this client's calls time out after 6 s), and the page hears it.
    let slow = call(mcp, "slow", json!({})).await;
    assert_eq!(
        kind(&slow).as_deref(),
        Some("timeout"),
        "{}",
        text_of(&slow)
    );
    assert!(
        text_of(&slow).contains("was cancelled"),
        "{}",
        text_of(&slow)
    );
    mcp.ok("browser_wait_for", json!({"text": "slow: cancelled"}))
        .await;

    // A call the client gives up on is cancelled in the page too.
    open(mcp, w, "imperative.html", "WebMCP: available").await;
    cancel_a_slow_call(mcp).await;
    mcp.ok("browser_wait_for", json!({"text": "slow: cancelled"}))
        .await;
}

/// Starts page tool `slow`, waits until the page runs it, and cancels the
/// MCP request.
async fn cancel_a_slow_call(mcp: &Arc<Mcp>) {
    use rmcp::model::{CallToolRequestParams, ClientRequest, Request};
    let mut args = serde_json::Map::new();
    args.insert("name".into(), json!("slow"));
    args.insert("arguments".into(), json!({}));
    let params = CallToolRequestParams::new("browser_page_tool_call").with_arguments(args);
    let handle = mcp
        .client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(Request::new(params)),
            rmcp::service::PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    loop {
        let shown = mcp.ok("browser_get_text", json!({})).await;
        if shown.contains("slow: running") {
            break;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "slow never started:\n{shown}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    handle
        .cancel(Some("the user gave up".into()))
        .await
        .unwrap();
}

async fn the_browser_s_page_tools_are_listed_checked_and_called(w: World) {
    let mcp = Arc::new(client_with(&w, "WebMCP", &["--call-timeout".into(), "6".into()]).await);
    the_imperative_tools_work(&mcp, &w, "the browser's WebMCP registry").await;
}

/// A page with hundreds of tools is listed in bounded pieces, and a long
/// description is cut inside the fence.
async fn many_tools_are_listed_in_bounded_pages(mcp: &Mcp, w: &World) {
    open(mcp, w, "many.html", "Tools declared").await;
    let first = mcp.ok("browser_page_tools", json!({})).await;
    assert!(first.contains("251 tools declared by the page"), "{first}");
    assert!(first.contains("Listing 1 of 13"), "{first}");
    assert!(first.len() < 12_000, "a listing of {} bytes", first.len());
    let last = mcp.ok("browser_page_tools", json!({"page": 13})).await;
    assert!(fenced(&last).contains("- tool_249"), "{last}");
    let all: String = {
        let mut all = String::new();
        for page in 1..=13 {
            all.push_str(&mcp.ok("browser_page_tools", json!({"page": page})).await);
        }
        all
    };
    let long = all
        .lines()
        .find(|l| l.starts_with("- long_winded"))
        .expect("long_winded is listed");
    assert!(long.len() < 600, "{long}");
    assert!(
        !all.contains("END-OF-DESCRIPTION"),
        "the description was not cut"
    );
    assert!(!outside_fences(&all).contains("blah blah"), "{all}");
    let past = mcp.call("browser_page_tools", json!({"page": 14})).await;
    assert_eq!(kind(&past).as_deref(), Some("bad_arguments"));
    // Calling one of them by name works however far down it is listed.
    let r = text_of(&call(mcp, "tool_249", json!({})).await);
    assert!(fenced(&r).contains("tool_249"), "{r}");
}

async fn form_and_frame_tools_come_from_the_browser_s_registry(w: World) {
    let mcp = client(&w, "Forms").await;
    open(&mcp, &w, "form.html", "Flights").await;
    let listed = mcp.ok("browser_page_tools", json!({})).await;
    assert!(
        fenced(&listed).contains("- search_flights [form, submits itself]"),
        "{listed}"
    );
    let found = text_of(
        &call(
            &mcp,
            "search_flights",
            json!({"origin": "SFO", "destination": "JFK"}),
        )
        .await,
    );
    assert!(
        fenced(&found).contains("3 flights from SFO to JFK"),
        "{found}"
    );
    // The browser checks a form's fields too; tabwire's check comes first.
    let bad = call(&mcp, "search_flights", json!({"origin": "SFO"})).await;
    assert_eq!(
        kind(&bad).as_deref(),
        Some("bad_arguments"),
        "{}",
        text_of(&bad)
    );

    // A tool an iframe declares is listed and runs in its frame.
    open(&mcp, &w, "frame_host.html", "WebMCP: available").await;
    let listed = mcp.ok("browser_page_tools", json!({})).await;
    assert!(fenced(&listed).contains("- frame_tool"), "{listed}");
    assert!(fenced(&listed).contains("- host_tool"), "{listed}");
    let r = text_of(&call(&mcp, "frame_tool", json!({"note": "hi"})).await);
    assert!(
        fenced(&r).contains("frame_tool in /pages/webmcp/frame_tool.html: hi"),
        "{r}"
    );

    // A tool a cross-site frame declares lives in the frame's own process
    // and DevTools session: listed and called there.
    open(&mcp, &w, "xframe_host.html", "Frame loaded").await;
    let mut listed = String::new();
    for _ in 0..20 {
        listed = mcp.ok("browser_page_tools", json!({})).await;
        if fenced(&listed).contains("- frame_tool") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(fenced(&listed).contains("- frame_tool"), "{listed}");
    let r = text_of(&call(&mcp, "frame_tool", json!({"note": "far"})).await);
    assert!(
        fenced(&r).contains("frame_tool in /pages/webmcp/frame_tool.html: far"),
        "{r}"
    );

    many_tools_are_listed_in_bounded_pages(&mcp, &w).await;
}

/// Where the browser has no WebMCP, tabwire's shim offers today's API (and
/// the old one), with the same checks and the same cancelling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_the_browser_s_webmcp_the_shim_serves_the_same_page() {
    let _serial = BROWSER_LOCK.lock().await;
    let w = world(Via::Cdp);
    let mcp = Arc::new(
        client_with(
            &w,
            "Shim",
            &["--no-webmcp".into(), "--call-timeout".into(), "6".into()],
        )
        .await,
    );
    the_imperative_tools_work(&mcp, &w, "tabwire's registry").await;
}

/// How many `list_changed` notifications `mcp` got so far.
fn changes(mcp: &Mcp) -> usize {
    mcp.tools_changed.load(std::sync::atomic::Ordering::SeqCst)
}

/// Waits until `mcp` got more than `seen` `list_changed` notifications.
async fn told_of_a_change(mcp: &Mcp, seen: usize) {
    eventually(10, "a tools/list_changed notification", || {
        (changes(mcp) > seen).then_some(())
    })
    .await;
}

/// The MCP names `tools/list` offers now.
async fn listed_names(mcp: &Mcp) -> Vec<String> {
    mcp.client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name.to_string())
        .collect()
}

/// With `--caps page-tools`, each tool of the current page is an MCP tool
/// of its own (`page_<name>`), its description fenced, and the client is
/// told when the page's tools change.
async fn page_tools_can_be_mcp_tools_of_their_own(w: World) {
    let mcp = client_with(&w, "Native", &["--caps".into(), "page-tools".into()]).await;
    let before = changes(&mcp);
    open(&mcp, &w, "imperative.html", "WebMCP: available").await;
    told_of_a_change(&mcp, before).await;
    let tools = mcp.client.list_all_tools().await.unwrap();
    let add = tools
        .iter()
        .find(|t| t.name == "page_add_item")
        .unwrap_or_else(|| {
            panic!(
                "no page_add_item in {:?}",
                tools.iter().map(|t| &t.name).collect::<Vec<_>>()
            )
        });
    let description = add.description.as_deref().unwrap_or("");
    assert!(
        description.contains("<<page-content ") && fenced(description).contains("Add an item"),
        "{description}"
    );
    let schema = serde_json::to_string(&*add.input_schema).unwrap();
    assert!(
        schema.contains("<<page-content "),
        "descriptions in the schema are fenced: {schema}"
    );
    let list = tools.iter().find(|t| t.name == "page_list_items").unwrap();
    assert_eq!(
        list.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
    // tabwire's own tools are still there.
    assert!(tools.iter().any(|t| t.name == "browser_click"));

    // Called by its MCP name, checked and run like browser_page_tool_call.
    let r = mcp
        .call("page_add_item", json!({"title": "Tea", "count": 3}))
        .await;
    assert!(
        fenced(&text_of(&r)).contains("Added 3 × \"Tea\""),
        "{}",
        text_of(&r)
    );
    let bad = mcp.call("page_add_item", json!({"title": "Tea"})).await;
    assert_eq!(
        kind(&bad).as_deref(),
        Some("bad_arguments"),
        "{}",
        text_of(&bad)
    );

    // A tool the page adds: the client is told, and it is listed.
    let seen = changes(&mcp);
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    mcp.ok(
        "browser_click",
        json!({"target": find_ref(&snap, "button", "Add late tool")}),
    )
    .await;
    told_of_a_change(&mcp, seen).await;
    assert!(listed_names(&mcp)
        .await
        .contains(&"page_late_tool".to_string()));

    // Another page: its tools replace these.
    let seen = changes(&mcp);
    open(&mcp, &w, "form.html", "Flights").await;
    told_of_a_change(&mcp, seen).await;
    let names = listed_names(&mcp).await;
    assert!(
        names.contains(&"page_search_flights".to_string()),
        "{names:?}"
    );
    assert!(!names.contains(&"page_add_item".to_string()), "{names:?}");
}
