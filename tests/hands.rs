//! A person's hands, on both backends (tests/pages/hands.html): a key
//! chord reaches the page as a keyboard sends it (each modifier's keydown
//! first, so a page that tracks held keys sees the chord), and a click,
//! typing or a check on a disabled control (its attribute, a disabled
//! fieldset, aria-disabled, inert) is an error that says nothing was done,
//! while the snapshot marks each one `[disabled]`; a click with `holdMs`
//! holds the button down that long (a hold past 30 s is refused); a
//! scroll says which box moved, from where to where and whether it hit
//! its end (with the change report), or why nothing moved.

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    a_scroll_says_which_box_moved_and_what_came_into_view,
    a_button_held_down_for_a_while_is_held,
    a_chord_presses_each_modifier_as_a_keyboard_does,
    keys_held_down_one_call_at_a_time_make_a_chord,
    frames_a_page_adds_are_in_its_answer_and_waits_look_inside_them,
    find_gives_every_hit_a_ref_and_a_grid_hit_its_headers,
    disabled_controls_are_marked_and_pressing_them_does_nothing,
);

async fn a_chord_presses_each_modifier_as_a_keyboard_does(w: World) {
    let mcp = client(&w, "Typist").await;
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/hands.html")}),
    )
    .await;
    let out = mcp
        .ok("browser_press_key", json!({"key": "Control+Shift+Y"}))
        .await;
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("Chord: Control+Shift+Y"), "{out}\n{text}");
    let err = mcp
        .text("browser_press_key", json!({"key": "Control+Hyperspace"}))
        .await
        .unwrap_err();
    assert!(
        err.contains("unknown key") && err.contains("ArrowDown"),
        "{err}"
    );
}

/// browser_keydown and browser_keyup (the vision group, with the mouse's
/// down and up): keys held across calls, their flags riding on a press in
/// between, released one by one; releasing a key not held is refused.
async fn keys_held_down_one_call_at_a_time_make_a_chord(w: World) {
    let mcp = client_with(&w, "Typist", &["--caps".into(), "vision".into()]).await;
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/hands.html")}),
    )
    .await;
    let held = mcp.ok("browser_keydown", json!({"key": "Control"})).await;
    assert!(held.contains("keys held: Control"), "{held}");
    mcp.ok("browser_keydown", json!({"key": "Shift"})).await;
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("Held: Control+Shift"), "{text}");
    mcp.ok("browser_press_key", json!({"key": "y"})).await;
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("Chord: Control+Shift+Y"), "{text}");
    let up = mcp.ok("browser_keyup", json!({"key": "Shift"})).await;
    assert!(up.contains("keys held: Control"), "{up}");
    mcp.ok("browser_keyup", json!({"key": "Control"})).await;
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("Held: none"), "{text}");
    let err = mcp
        .text("browser_keyup", json!({"key": "Alt"}))
        .await
        .unwrap_err();
    assert!(
        err.contains("Alt is not held down") && err.contains("none"),
        "{err}"
    );
    let err = mcp
        .text("browser_keydown", json!({"key": "Control+A"}))
        .await
        .unwrap_err();
    assert!(err.contains("is a chord"), "{err}");
}

/// Frames a frame adds after its load, and a frame of another origin:
/// navigate's answer shows the innermost one's text and the far one's (a
/// document of another origin ends its request on its own session: done
/// once answered, not named as a stream after 1.5 s), and
/// browser_wait_for sees text appear and go inside nested frames and in a
/// frame of another origin.
async fn frames_a_page_adds_are_in_its_answer_and_waits_look_inside_them(w: World) {
    let mcp = client(&w, "Framer").await;
    let page = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/pages/frames_outer.html")}),
        )
        .await;
    assert!(page.contains("Innermost ready"), "{page}");
    assert!(page.contains("Far frame ready"), "{page}");
    let late = mcp
        .ok(
            "browser_wait_for",
            json!({"text": "Late inner words", "timeout": 5}),
        )
        .await;
    assert!(late.contains("Done waiting"), "{late}");
    let far = mcp
        .ok(
            "browser_wait_for",
            json!({"text": "Late far words", "timeout": 5}),
        )
        .await;
    assert!(far.contains("Done waiting"), "{far}");
    let gone = mcp
        .ok(
            "browser_wait_for",
            json!({"textGone": "Innermost ready", "timeout": 5}),
        )
        .await;
    assert!(gone.contains("Done waiting"), "{gone}");
    // Text that is nowhere still times out.
    let err = mcp
        .text(
            "browser_wait_for",
            json!({"text": "Never written", "timeout": 1}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("timed out"), "{err}");
}

/// The ref of the find result line containing `words`.
fn ref_of_hit(found: &str, words: &str) -> String {
    let line = found
        .lines()
        .find(|l| l.trim_start().starts_with("- ") && l.contains(words))
        .unwrap_or_else(|| panic!("no hit with {words:?} in:\n{found}"));
    let start = line
        .find("[ref=")
        .unwrap_or_else(|| panic!("no ref on: {line}"))
        + 5;
    line[start..start + line[start..].find(']').unwrap()].to_string()
}

/// browser_find: every hit has a ref the model can click (a span and a
/// heading with click handlers, a table cell), and a hit in a table or a
/// CSS-grid calendar is placed by its column and row headers, not by the
/// heading before it in page order.
async fn find_gives_every_hit_a_ref_and_a_grid_hit_its_headers(w: World) {
    let mcp = client(&w, "Finder").await;
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/find_grid.html")}),
    )
    .await;
    let found = mcp.ok("browser_find", json!({"text": "review"})).await;
    let design = found.lines().find(|l| l.contains("Design review")).unwrap();
    assert!(
        design.contains("[ref=")
            && design.contains("column \"Tue\"")
            && design.contains("row \"9:00\"")
            && !design.contains("Friday"),
        "{found}"
    );
    let cells = mcp.ok("browser_find", json!({"text": "Closed"})).await;
    let pool = cells.lines().find(|l| l.contains("row \"Pool\"")).unwrap();
    assert!(
        pool.contains("column \"Tue\"") && pool.contains("[ref="),
        "{cells}"
    );
    let gym = cells.lines().find(|l| l.contains("row \"Gym\"")).unwrap();
    assert!(gym.contains("column \"Wed\""), "{cells}");
    // Clickable text with no role of its own: found with a ref, clicked.
    let recount = mcp.ok("browser_find", json!({"text": "Recount"})).await;
    let r = ref_of_hit(&recount, "Recount totals");
    mcp.ok("browser_click", json!({"target": r})).await;
    let more = mcp
        .ok("browser_find", json!({"text": "Show details"}))
        .await;
    let r = ref_of_hit(&more, "Show details");
    mcp.ok("browser_click", json!({"target": r})).await;
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(
        text.contains("counted 42") && text.contains("Details shown"),
        "{text}"
    );
}

async fn disabled_controls_are_marked_and_pressing_them_does_nothing(w: World) {
    let mcp = client(&w, "Shopper").await;
    let snap = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/pages/hands.html")}),
        )
        .await;
    for (role, name) in [
        ("button", "Pay now"),
        ("textbox", "Card number"),
        ("button", "Save card"),
        ("button", "Send later"),
    ] {
        let line = format!("- {role} \"{name}\" [disabled]");
        assert!(snap.contains(&line), "{line} in:\n{snap}");
    }
    for target in ["#pay", "#save", "#soft"] {
        let err = mcp
            .text("browser_click", json!({"target": target}))
            .await
            .unwrap_err();
        assert!(
            err.contains("is disabled: nothing was clicked"),
            "{target}: {err}"
        );
    }
    // Inert content is not what a person can reach at all.
    let inert = mcp
        .text("browser_click", json!({"target": "#later"}))
        .await
        .unwrap_err();
    assert!(inert.contains("disabled"), "{inert}");
    let typed = mcp
        .text("browser_type", json!({"target": "#card", "text": "4242"}))
        .await
        .unwrap_err();
    assert!(typed.contains("disabled: nothing was typed"), "{typed}");
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("No clicks"), "{text}");
}

async fn a_button_held_down_for_a_while_is_held(w: World) {
    let mcp = client(&w, "Holder").await;
    let snap = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/pages/hands.html")}),
        )
        .await;
    let button = find_ref(&snap, "button", "Hold to confirm");
    let quick = mcp.ok("browser_click", json!({"target": button})).await;
    assert!(quick.contains("Released too soon"), "{quick}");
    let t = std::time::Instant::now();
    let held = mcp
        .ok("browser_click", json!({"target": button, "holdMs": 1200}))
        .await;
    assert!(t.elapsed() >= std::time::Duration::from_millis(1200));
    assert!(
        held.contains("Held the mouse button down for 1.2 s on"),
        "{held}"
    );
    assert!(held.contains("Confirmed after a hold"), "{held}");
    let err = mcp
        .text("browser_click", json!({"target": button, "holdMs": 60000}))
        .await
        .unwrap_err();
    assert!(err.contains("over the limit"), "{err}");
}

async fn a_scroll_says_which_box_moved_and_what_came_into_view(w: World) {
    let mcp = client(&w, "Scroller").await;
    let snap = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/pages/hands.html")}),
        )
        .await;
    // (A field a person reaches by scrolling the strip is in the outline.)
    assert!(snap.contains("textbox \"Far field\""), "{snap}");
    // The page fits the window: the wheel moves nothing, and says where
    // the boxes that scroll are.
    let page = mcp.ok("browser_scroll", json!({"deltaY": 500})).await;
    assert!(page.contains("The page cannot scroll"), "{page}");
    assert!(page.contains("div#strip"), "{page}");
    // On the strip: it scrolls to its right end and the far field shows.
    let out = mcp
        .ok(
            "browser_scroll",
            json!({"target": "#strip", "deltaX": 4000}),
        )
        .await;
    assert!(
        out.contains("Scrolled div#strip by (4000, 0): from (0, 0) to ("),
        "{out}"
    );
    assert!(out.contains("(at its right end)"), "{out}");
    let left = eval_json(&mcp, "() => document.getElementById('strip').scrollLeft").await;
    assert!(left.as_f64().unwrap_or(0.0) > 1000.0, "{left}");
    // Again: it is at its end.
    let again = mcp
        .ok(
            "browser_scroll",
            json!({"target": "#strip", "deltaX": 4000}),
        )
        .await;
    assert!(again.contains("Nothing scrolled"), "{again}");
}
