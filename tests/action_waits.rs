//! An action's answer shows its result, on both backends: a click that
//! starts requests answers once they have finished and their answer is
//! on the page (tests/pages/compute.html), while an event stream and a
//! long poll stay open; a request slower than the cap is named, with
//! progress reported meanwhile. Navigating to that page answers once it
//! has loaded and names what it keeps open. Times are printed, and
//! asserted only as a guard against waiting for the cap
//! (bench/action-waits.py and bench/real-app-tasks.py measure them).
//! A click whose result a timer or an animation frame renders answers
//! with it (tests/pages/later.html), and a wait that times out on text a
//! closed shadow root holds says where it is.

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    a_click_answers_with_what_its_requests_rendered,
    a_click_answers_with_what_its_timers_and_frames_render,
    a_wait_sees_text_in_closed_shadow_roots_and_says_so,
);

async fn a_click_answers_with_what_its_requests_rendered(w: World) {
    let mcp = client(&w, "Waiter").await;
    // The page opens a long poll and an event stream as it loads: neither
    // holds the answer, both are named.
    let t = std::time::Instant::now();
    let page = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/compute")}))
        .await;
    let took = t.elapsed();
    eprintln!(
        "navigate to a page holding a long poll and a stream: {} ms",
        took.as_millis()
    );
    assert!(
        page.contains("Open: ")
            && page.contains("long poll GET /never/poll")
            && page.contains("event stream GET /api/events"),
        "{page}"
    );
    assert!(!page.contains("Still loading"), "{page}");
    assert!(
        took < std::time::Duration::from_secs(2),
        "navigate took {took:?}"
    );

    // A send whose page then opens its long poll again: answered with
    // the result, not held by the poll (the tab knows that route).
    let t = std::time::Instant::now();
    let sent = mcp.ok("browser_click", json!({"target": "#renew"})).await;
    let took = t.elapsed();
    eprintln!("click that renews the long poll: {} ms", took.as_millis());
    assert!(sent.contains("Sent and listening"), "{sent}");
    assert!(!sent.contains("Still loading"), "{sent}");
    assert!(
        took < std::time::Duration::from_secs(3),
        "click took {took:?}"
    );

    let t = std::time::Instant::now();
    let one = mcp.ok("browser_click", json!({"target": "#compute"})).await;
    eprintln!(
        "click with a 600 ms request: {} ms",
        t.elapsed().as_millis()
    );
    assert!(one.contains("The answer is 42"), "{one}");
    assert!(!one.contains("Still loading"), "{one}");

    // An answer streamed in parts: the wait lasts while the stream sends
    // (its data events reach serve, through the extension too), and ends
    // once it is quiet though it stays open.
    let t = std::time::Instant::now();
    let parts = mcp.ok("browser_click", json!({"target": "#burst"})).await;
    eprintln!(
        "click with a stream of 5 parts over 3 s: {} ms",
        t.elapsed().as_millis()
    );
    assert!(parts.contains("All parts are in"), "{parts}");

    // A request whose answer starts a second one: both are waited for.
    let two = mcp.ok("browser_click", json!({"target": "#chain"})).await;
    assert!(two.contains("Both answers are in: 42"), "{two}");

    // Slower than the cap: named, with progress while waiting.
    let t = std::time::Instant::now();
    let r = mcp
        .call_with_progress("browser_click", json!({"target": "#slow"}))
        .await;
    let slow = text_of(&r);
    eprintln!("click with an 8 s request: {} ms", t.elapsed().as_millis());
    assert!(
        slow.contains("Still loading after 5 s: GET /api/slow?ms=8000"),
        "{slow}"
    );
    assert!(slow.contains("browser_wait_for"), "{slow}");
    let progress = mcp.progress.lock().unwrap().clone();
    assert!(
        progress.iter().any(|p| p
            .message
            .as_deref()
            .is_some_and(|m| m.contains("waiting for what the action started"))),
        "{progress:?}"
    );
    // And then it arrives.
    let done = mcp
        .ok("browser_wait_for", json!({"text": "Finally done"}))
        .await;
    assert!(done.contains("Finally done"), "{done}");
}

async fn a_click_answers_with_what_its_timers_and_frames_render(w: World) {
    let mcp = client(&w, "Waiter").await;
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/later.html")}),
    )
    .await;
    for (button, result) in [
        ("#timer", "Loaded by the timer"),
        ("#frame", "Loaded by a frame"),
    ] {
        let t = std::time::Instant::now();
        let out = mcp.ok("browser_click", json!({"target": button})).await;
        eprintln!("{button}: answered in {} ms", t.elapsed().as_millis());
        assert!(out.contains(result), "{out}");
        mcp.ok(
            "browser_evaluate",
            json!({"function": "() => { document.getElementById('out').textContent = 'Nothing loaded yet'; }"}),
        )
        .await;
        mcp.ok("browser_snapshot", json!({})).await;
    }
    // A click that sets nothing off says so.
    let t = std::time::Instant::now();
    let out = mcp.ok("browser_click", json!({"target": "#nothing"})).await;
    eprintln!("#nothing: answered in {} ms", t.elapsed().as_millis());
    assert!(out.contains("The snapshot did not change."), "{out}");
}

async fn a_wait_sees_text_in_closed_shadow_roots_and_says_so(w: World) {
    let mcp = client(&w, "Waiter").await;
    let page = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/pages/closed.html")}),
        )
        .await;
    // No script reads a closed root: the snapshot says a component may
    // hold more than it shows.
    assert!(
        page.contains("1 component on the page draws itself in a closed shadow root"),
        "{page}"
    );
    let err = mcp
        .text(
            "browser_wait_for",
            json!({"text": "Fare locked", "timeout": 0.5}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("inside a closed shadow root"), "{err}");
    let err = mcp
        .text(
            "browser_wait_for",
            json!({"text": "Nowhere at all", "timeout": 0.5}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("1 closed shadow root on the page"), "{err}");
}
