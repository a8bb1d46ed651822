//! The user stays in control (issue 16): Cancel on the browser's
//! '"tabwire" started debugging this browser' bar stops every client, and
//! the popup's Stop all, per-client Stop and Resume do what they say.
//!
//! Real parts throughout: a real Chromium with the real extension, the
//! native host registered by `tabwire install`, real `tabwire serve`s driven
//! by real MCP clients. The Cancel test runs Chromium headed on a virtual X
//! display (Xvfb) and clicks the browser's own Cancel button with xdotool,
//! as the user would; it fails (it does not skip) when Xvfb or xdotool is
//! missing.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::install_env::*;
use common::ui::{click, keep_screenshot, page_text, screenshot_path};
use common::xvfb::{Window, Xvfb};
use common::*;
use serde_json::{json, Value};

const EXT_ARGS: [&str; 4] = ["--backend", "extension", "--connect-timeout", "30"];
/// What every refused call says.
const STOPPED: &str = "stopped by the user";

async fn title(mcp: &Mcp) -> Result<String, String> {
    mcp.text(
        "browser_evaluate",
        json!({"function": "() => document.title"}),
    )
    .await
}

/// A call refused because the user stopped: says so, and who may resume.
fn assert_stopped(err: &str, how: &str) {
    assert!(err.contains(STOPPED), "{err}");
    assert!(err.contains(how), "{err}");
    assert!(err.contains("Only the user can resume"), "{err}");
    assert!(err.contains("popup"), "{err}");
}

/// Waits (up to 15 s) until the client's calls work again after a resume.
async fn until_it_runs(mcp: &Mcp, title_has: &str) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match title(mcp).await {
            Ok(t) if t.contains(title_has) => return,
            other => assert!(
                Instant::now() < deadline,
                "still not running after resume: {other:?}"
            ),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The audit log's stop and resume lines (all clients share the log).
fn audit_events(sb: &Sandbox) -> Vec<Value> {
    tabwire::audit::tail(&sb.data_dir().join("audit.log"), 10_000, None)
        .into_iter()
        .filter(|e| e["event"].is_string())
        .collect()
}

/// Waits until the audit log shows `event` for `client` with this cause.
async fn audited(sb: &Sandbox, client: &str, event: &str, scope: &str, cause: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let events = audit_events(sb);
        if events.iter().any(|e| {
            e["client"] == client
                && e["event"] == event
                && e["scope"] == scope
                && e["cause"] == cause
        }) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "no {event} ({scope}, {cause}) for {client} in the audit log: {events:#?}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Whether a debugger is attached to the page whose URL contains `url_part`
/// (the browser's own view, over the test's CDP pipe).
fn debugged(browser: &PipeChromium, url_part: &str) -> bool {
    let targets = browser
        .call(None, "Target.getTargets", json!({}))
        .expect("Target.getTargets");
    let t = targets["targetInfos"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["type"] == "page" && t["url"].as_str().unwrap_or("").contains(url_part))
        .unwrap_or_else(|| panic!("no page with {url_part}: {targets}"));
    t["attached"] == true
}

/// Waits (up to 5 s) until no debugger is attached to that page: the
/// extension detaches right after it refuses calls.
async fn until_detached(browser: &PipeChromium, url_part: &str) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while debugged(browser, url_part) {
        assert!(
            Instant::now() < deadline,
            "the page {url_part} is still debugged"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The `data-client` id of the popup's entry for the client named `name`.
fn client_id(browser: &PipeChromium, page: &Page, name: &str) -> String {
    browser
        .eval(
            page,
            &format!(
                "[...document.querySelectorAll('li[data-client]')]\
                 .find(li => li.querySelector('.client-name').textContent === {})\
                 .dataset.client",
                serde_json::to_string(name).unwrap()
            ),
        )
        .unwrap()
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_all_in_the_popup_ends_calls_in_flight_and_refuses_every_client_until_resume() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);
    let alice = Arc::new(Mcp::start(&sb, "Alice Agent", &EXT_ARGS).await);
    let bob = Mcp::start(&sb, "Bob Bot", &EXT_ARGS).await;
    alice
        .ok(
            "browser_navigate",
            json!({"url": site.url("/page/AliceHome")}),
        )
        .await;
    bob.ok(
        "browser_navigate",
        json!({"url": site.url("/page/BobHome")}),
    )
    .await;
    assert!(debugged(&browser, "AliceHome") && debugged(&browser, "BobHome"));

    // The kill switch is on the popup while clients are connected.
    let popup = browser.open(&format!("{EXTENSION_ORIGIN}popup.html"));
    page_text(&browser, &popup, "Stop all and both clients", |t| {
        t.contains("Stop all") && t.contains("Alice Agent") && t.contains("Bob Bot")
    })
    .await;
    keep_screenshot(&browser.screenshot(&popup), "popup-stop-all.png");

    // A call in flight when the user pulls it ends at once.
    let long = start_long_call(&alice, "browser_evaluate").await;
    let pressed = Instant::now();
    click(&browser, &popup, "button[data-action=stop-all]");
    let err = tokio::time::timeout(Duration::from_secs(5), long)
        .await
        .expect("the call in flight did not end at once")
        .unwrap()
        .unwrap_err();
    assert_stopped(&err, "Stop all");
    assert!(pressed.elapsed() < Duration::from_secs(5));

    // Every later call of every client is refused, new tabs included.
    assert_stopped(&title(&alice).await.unwrap_err(), "Stop all");
    assert_stopped(&title(&bob).await.unwrap_err(), "Stop all");
    let err = bob
        .text(
            "browser_tabs",
            json!({"action": "new", "url": site.url("/page/Sneaky")}),
        )
        .await
        .unwrap_err();
    assert_stopped(&err, "Stop all");
    let status = alice.ok("browser_status", json!({})).await;
    assert!(status.contains("STOPPED BY THE USER"), "{status}");
    // Detached from every tab, so the browser's bar goes away.
    until_detached(&browser, "AliceHome").await;
    until_detached(&browser, "BobHome").await;

    let text = page_text(&browser, &popup, "the stopped banner", |t| {
        t.contains("Browser control stopped")
    })
    .await;
    assert!(text.contains("You pressed Stop all"), "{text}");
    keep_screenshot(&browser.screenshot(&popup), "popup-stopped.png");
    audited(&sb, "Alice Agent", "stopped_by_user", "all", "popup").await;
    audited(&sb, "Bob Bot", "stopped_by_user", "all", "popup").await;

    // Resume: both run again, on the same tabs.
    click(&browser, &popup, "button[data-action=resume-all]");
    until_it_runs(&alice, "AliceHome").await;
    until_it_runs(&bob, "BobHome").await;
    let status = alice.ok("browser_status", json!({})).await;
    assert!(!status.contains("STOPPED"), "{status}");
    page_text(&browser, &popup, "Stop all again", |t| {
        t.contains("Stop all") && !t.contains("Browser control stopped")
    })
    .await;
    audited(&sb, "Alice Agent", "resumed_by_user", "all", "popup").await;
    audited(&sb, "Bob Bot", "resumed_by_user", "all", "popup").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stopping_one_client_in_the_popup_leaves_the_others_running() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);
    let alice = Mcp::start(&sb, "Alice Agent", &EXT_ARGS).await;
    let bob = Mcp::start(&sb, "Bob Bot", &EXT_ARGS).await;
    alice
        .ok(
            "browser_navigate",
            json!({"url": site.url("/page/AliceHome")}),
        )
        .await;
    bob.ok(
        "browser_navigate",
        json!({"url": site.url("/page/BobHome")}),
    )
    .await;

    let options = browser.open(&format!("{EXTENSION_ORIGIN}options.html"));
    page_text(&browser, &options, "both clients", |t| {
        t.contains("Alice Agent") && t.contains("Bob Bot")
    })
    .await;
    let id = client_id(&browser, &options, "Alice Agent");
    click(
        &browser,
        &options,
        &format!("li[data-client={id:?}] button[data-action=stop-client]"),
    );

    assert_stopped(&title(&alice).await.unwrap_err(), "Stop for this client");
    until_detached(&browser, "AliceHome").await;
    // Bob goes on, attached as before.
    assert!(title(&bob).await.unwrap().contains("BobHome"));
    assert!(debugged(&browser, "BobHome"));
    let bob_status = bob.ok("browser_status", json!({})).await;
    assert!(!bob_status.contains("STOPPED"), "{bob_status}");
    let text = page_text(&browser, &options, "Alice marked stopped", |t| {
        t.contains("stopped by you")
    })
    .await;
    // The kill switch stays there for the others.
    assert!(text.contains("Stop all"), "{text}");
    keep_screenshot(
        &browser.screenshot(&options),
        "options-one-client-stopped.png",
    );
    audited(&sb, "Alice Agent", "stopped_by_user", "client", "popup").await;

    click(
        &browser,
        &options,
        &format!("li[data-client={id:?}] button[data-action=resume-client]"),
    );
    until_it_runs(&alice, "AliceHome").await;
    audited(&sb, "Alice Agent", "resumed_by_user", "client", "popup").await;
    assert!(
        !audit_events(&sb).iter().any(|e| e["client"] == "Bob Bot"),
        "Bob was never stopped: {:#?}",
        audit_events(&sb)
    );

    // A client stopped and then gone (its MCP client quit) stays stopped
    // and stays listed, so the user can still resume it.
    click(
        &browser,
        &options,
        &format!("li[data-client={id:?}] button[data-action=stop-client]"),
    );
    assert_stopped(&title(&alice).await.unwrap_err(), "Stop for this client");
    alice.client.cancel().await.unwrap();
    page_text(
        &browser,
        &options,
        "Alice listed as stopped and away",
        |t| t.contains("Stopped by you, not connected now") && t.contains("Alice Agent"),
    )
    .await;
    click(
        &browser,
        &options,
        &format!("li[data-away][data-client={id:?}] button[data-action=resume-client]"),
    );
    page_text(
        &browser,
        &options,
        "Alice gone from the stopped list",
        |t| !t.contains("Stopped by you") && !t.contains("stopped by you"),
    )
    .await;
}

/// Chromium's button blue (the infobar's Cancel is a filled pill of it).
const BUTTON_BLUE: [u8; 3] = [11, 87, 208];

/// Where the Cancel button of the browser's debugging bar is, if shown:
/// the top part (tab strip, toolbar, infobar) of each browser window, as
/// the screen shows it now, is searched for a filled button of the bar's
/// blue at least 40×26 px (the omnibox's focus ring and a text selection
/// are thinner). The bar is browser-wide, so it shows in whichever window
/// is on top.
fn cancel_button(x: &Xvfb) -> Option<(Window, (i32, i32))> {
    let screen = x.screen();
    x.windows("chromium").into_iter().find_map(|win| {
        let at = screen.find_block(&win, 220, BUTTON_BLUE, 24, (40, 26))?;
        Some((win, at))
    })
}

async fn wait_for_cancel_button(x: &Xvfb) -> (Window, (i32, i32)) {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(found) = cancel_button(x) {
            return found;
        }
        if Instant::now() > deadline {
            let path = screenshot_path("no-debugging-bar.png");
            std::fs::write(&path, x.screen().png(None)).unwrap();
            panic!(
                "the debugging bar's Cancel button never showed; the screen is in {}",
                path.display()
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_on_the_browsers_debugging_bar_stops_every_client_until_resume() {
    let _serial = BROWSER_LOCK.lock().await;
    let x = Xvfb::start();
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch_headed(
        &sb,
        &[site.url("/page/UserHome")],
        &["--window-position=0,0"],
        &x.display,
    );
    let alice = Mcp::start(&sb, "Alice Agent", &EXT_ARGS).await;
    let bob = Mcp::start(&sb, "Bob Bot", &EXT_ARGS).await;
    alice
        .ok(
            "browser_navigate",
            json!({"url": site.url("/page/AliceHome")}),
        )
        .await;
    bob.ok(
        "browser_navigate",
        json!({"url": site.url("/page/BobHome")}),
    )
    .await;

    // The user sees the bar and clicks its Cancel, with the real pointer.
    let (win, (cx, cy)) = wait_for_cancel_button(&x).await;
    eprintln!("Cancel at ({cx}, {cy}) in window {win:?}");
    keep_screenshot(&x.screen().png(Some(&win)), "debugging-bar.png");
    x.click(cx, cy);

    // The clicking client's next call and the other client's are refused.
    let how = "they clicked Cancel on the browser's";
    assert_stopped(&title(&alice).await.unwrap_err(), how);
    assert_stopped(&title(&bob).await.unwrap_err(), how);
    let status = bob.ok("browser_status", json!({})).await;
    assert!(status.contains("STOPPED BY THE USER"), "{status}");
    audited(
        &sb,
        "Alice Agent",
        "stopped_by_user",
        "all",
        "canceled_by_user",
    )
    .await;
    audited(&sb, "Bob Bot", "stopped_by_user", "all", "canceled_by_user").await;

    // Nothing attached again: the bar stays away.
    tokio::time::sleep(Duration::from_millis(500)).await;
    if let Some((win, at)) = cancel_button(&x) {
        let path = screenshot_path("bar-came-back.png");
        std::fs::write(&path, x.screen().png(Some(&win))).unwrap();
        panic!(
            "the debugging bar came back at {at:?} after Cancel; see {}",
            path.display()
        );
    }
    until_detached(&browser, "AliceHome").await;
    until_detached(&browser, "BobHome").await;

    // The user resumes from tabwire's popup; both clients run again.
    let popup = browser.open(&format!("{EXTENSION_ORIGIN}popup.html"));
    let text = page_text(&browser, &popup, "the stopped banner", |t| {
        t.contains("Browser control stopped")
    })
    .await;
    assert!(text.contains("You clicked Cancel"), "{text}");
    click(&browser, &popup, "button[data-action=resume-all]");
    until_it_runs(&alice, "AliceHome").await;
    until_it_runs(&bob, "BobHome").await;
    audited(
        &sb,
        "Alice Agent",
        "resumed_by_user",
        "all",
        "canceled_by_user",
    )
    .await;
    // Attached again, so the browser shows its bar again.
    wait_for_cancel_button(&x).await;
}

/// The extension's service worker target, if it runs.
fn worker_id(browser: &PipeChromium) -> Option<String> {
    let targets = browser
        .call(None, "Target.getTargets", json!({"filter": [{}]}))
        .expect("Target.getTargets");
    targets["targetInfos"]
        .as_array()?
        .iter()
        .find(|t| {
            t["type"] == "service_worker"
                && t["url"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with(EXTENSION_ORIGIN)
        })
        .map(|t| t["targetId"].as_str().unwrap_or("").to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_outlives_a_restart_of_the_extension() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    // Lets the test load the extension again over its pipe (a reload).
    let browser =
        PipeChromium::launch_with_flags(&sb, &[], &["--enable-unsafe-extension-debugging"]);
    let alice = Mcp::start(&sb, "Alice Agent", &EXT_ARGS).await;
    alice
        .ok(
            "browser_navigate",
            json!({"url": site.url("/page/AliceHome")}),
        )
        .await;
    let popup = browser.open(&format!("{EXTENSION_ORIGIN}popup.html"));
    page_text(&browser, &popup, "Stop all", |t| t.contains("Stop all")).await;
    click(&browser, &popup, "button[data-action=stop-all]");
    assert_stopped(&title(&alice).await.unwrap_err(), "Stop all");

    // The extension restarts: a new worker, with nothing in memory.
    let old = worker_id(&browser).expect("the extension's worker");
    browser
        .call(
            None,
            "Extensions.loadUnpacked",
            json!({"path": EXTENSION_DIR}),
        )
        .expect("reload the extension");
    let deadline = Instant::now() + Duration::from_secs(20);
    while worker_id(&browser).is_none_or(|w| w == old) {
        assert!(Instant::now() < deadline, "no new worker");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The new worker still refuses: the stop was not silently lifted.
    let new_tab = json!({"action": "new", "url": site.url("/page/AfterRestart")});
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match alice.text("browser_tabs", new_tab.clone()).await {
            Err(e) if e.contains(STOPPED) => break,
            Err(e) => assert!(Instant::now() < deadline, "never refused: {e}"),
            Ok(t) => panic!("the restarted extension resumed by itself: {t}"),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Only the user's Resume lifts it.
    let popup = browser.open(&format!("{EXTENSION_ORIGIN}popup.html"));
    page_text(&browser, &popup, "the stopped banner", |t| {
        t.contains("Browser control stopped")
    })
    .await;
    click(&browser, &popup, "button[data-action=resume-all]");
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        match alice.text("browser_tabs", new_tab.clone()).await {
            Ok(t) if t.contains("/page/AfterRestart") => break,
            other => assert!(Instant::now() < deadline, "not resumed: {other:?}"),
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The headed test must not pass, or skip, on a machine without Xvfb or
/// xdotool: it fails and names the packages.
#[test]
#[should_panic(expected = "apt-get install -y xvfb xdotool")]
fn a_missing_display_tool_fails_the_headed_test_with_what_to_install() {
    common::xvfb::require("tabwire-test-no-such-program");
}
