//! The `vision` group (`serve --caps vision`) on both backends: input at
//! the points of a screenshot reaches a canvas no snapshot can see into,
//! the answer names the element hit, points that scrolled away are
//! refused, and without the group its tools are neither listed nor run.

#[macro_use]
mod common;

use common::world::*;
use serde_json::json;

on_both_backends!(input_at_screenshot_points);

async fn input_at_screenshot_points(w: World) {
    // Off by default: not listed, and a call says how to switch it on.
    let plain = client(&w, "plain").await;
    let listed = plain.client.list_all_tools().await.unwrap();
    assert!(!listed.iter().any(|t| t.name == "browser_mouse_click_xy"));
    let err = plain
        .text("browser_mouse_click_xy", json!({"x": 10, "y": 10}))
        .await
        .unwrap_err();
    assert!(err.contains("--caps vision"), "{err}");
    drop(plain);

    let mcp = client_with(&w, "vision", &["--caps".into(), "vision".into()]).await;
    let listed = mcp.client.list_all_tools().await.unwrap();
    for name in [
        "browser_mouse_click_xy",
        "browser_mouse_move_xy",
        "browser_mouse_drag_xy",
        "browser_type_xy",
        "browser_mouse_down",
        "browser_mouse_up",
        "browser_mouse_wheel",
    ] {
        assert!(listed.iter().any(|t| t.name == name), "{name} not listed");
    }
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(status.contains("groups of tools: vision"), "{status}");

    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/canvas.html")}),
    )
    .await;
    mcp.ok("browser_snapshot", json!({})).await;
    mcp.ok("browser_take_screenshot", json!({})).await;

    // A click on the canvas: the page sees it where the image shows it.
    let out = mcp
        .ok(
            "browser_mouse_click_xy",
            json!({"x": 120, "y": 80, "element": "the board"}),
        )
        .await;
    assert!(
        out.contains("at (120, 80), on") && out.contains("<canvas>"),
        "{out}"
    );
    assert!(
        out.contains("clicked at 120,80"),
        "the change report shows the page's answer: {out}"
    );

    let out = mcp
        .ok(
            "browser_mouse_click_xy",
            json!({"x": 30, "y": 40, "doubleClick": true}),
        )
        .await;
    assert!(out.contains("double-clicked at 30,40"), "{out}");

    let out = mcp
        .ok(
            "browser_mouse_drag_xy",
            json!({"startX": 20, "startY": 20, "endX": 200, "endY": 120}),
        )
        .await;
    assert!(out.contains("dragged from 20,20 to 200,120"), "{out}");

    // The same drag by hand: move, press and hold, move, release.
    mcp.ok("browser_mouse_move_xy", json!({"x": 30, "y": 30}))
        .await;
    let down = mcp.ok("browser_mouse_down", json!({})).await;
    assert!(down.contains("held down"), "{down}");
    mcp.ok("browser_mouse_move_xy", json!({"x": 150, "y": 90}))
        .await;
    let out = mcp.ok("browser_mouse_up", json!({})).await;
    assert!(out.contains("dragged from 30,30 to 150,90"), "{out}");
    // The wheel scrolls what is under the mouse (here the page, made tall).
    eval_json(
        &mcp,
        "() => { document.body.style.minHeight = '4000px'; return scrollY; }",
    )
    .await;
    let out = mcp
        .ok("browser_mouse_wheel", json!({"deltaX": 0, "deltaY": 400}))
        .await;
    assert!(out.contains("Turned the mouse wheel by (0, 400)"), "{out}");
    let y = eval_json(&mcp, "() => scrollY").await;
    assert!(
        y.as_f64().unwrap_or(0.0) > 0.0,
        "the page did not scroll: {y}"
    );
    eval_json(
        &mcp,
        "() => { scrollTo(0, 0); document.body.style.minHeight = ''; return 0; }",
    )
    .await;

    // Hovering shows what CSS alone shows.
    let out = mcp
        .ok("browser_mouse_move_xy", json!({"x": 500, "y": 40}))
        .await;
    assert!(out.contains("Tip shown"), "{out}");

    // Typing at a point goes to what takes the focus there.
    let out = mcp
        .ok(
            "browser_type_xy",
            json!({"x": 50, "y": 335, "text": "hello"}),
        )
        .await;
    assert!(out.contains("holding \"hello\""), "{out}");
    let typed = eval_json(&mcp, "() => document.getElementById('note').value").await;
    assert_eq!(typed, json!("hello"));

    // Where nothing is: said so.
    let out = mcp
        .ok("browser_mouse_click_xy", json!({"x": 700, "y": 250}))
        .await;
    assert!(out.contains("at (700, 250), on"), "{out}");

    // The page scrolled since the screenshot: its top is out of view.
    mcp.ok("browser_scroll", json!({"deltaY": 1000})).await;
    let err = mcp
        .text("browser_mouse_click_xy", json!({"x": 120, "y": 80}))
        .await
        .unwrap_err();
    assert!(err.contains("not in the viewport now"), "{err}");
    // A new screenshot maps its own points.
    mcp.ok("browser_take_screenshot", json!({})).await;
    let out = mcp
        .ok("browser_mouse_click_xy", json!({"x": 120, "y": 80}))
        .await;
    assert!(
        !out.contains("clicked at"),
        "the board is out of view: {out}"
    );
}
