//! The model reads and does what a person sees, on both backends: text
//! hidden from people by the tricks pages use (tests/pages/hidden.html
//! holds the corpus, each variant marked HIDDEN-nn) never reaches an
//! answer, what a person sees stays, page content sits in a fence the page
//! cannot close, and actions say what actually happened
//! (tests/pages/actions.html).

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    hidden_text_reaches_no_read_tool,
    every_string_a_page_controls_stays_inside_a_fence,
    a_page_cannot_forge_the_end_of_its_fence,
    actions_say_what_happened_and_controls_without_roles_have_refs,
    a_page_of_hidden_text_only_shows_nothing,
    frames_of_another_origin_a_person_cannot_see_are_left_out,
);

/// What a person sees on the corpus page: none of it may be lost.
const SEEN: &[&str] = &[
    "Price: 120 euros",
    "Gradient headline stays",
    "Scroll box line four stays",
    "Questions? Read the FAQ.",
];

fn assert_no_hidden(tool: &str, answer: &str) {
    assert!(
        !answer.contains("HIDDEN-"),
        "{tool} leaked hidden text:\n{answer}"
    );
    // Nor a code point that draws nothing (HIDDEN-47 and 48 spell their
    // words in Unicode tags and zero-width characters; 93 and 94 use bidi
    // controls). The emoji of SEEN-91 keeps its joiners.
    let invisible: Vec<String> = answer
        .chars()
        .filter(|c| {
            matches!(*c as u32, 0xE0000..=0xE007F | 0x202A..=0x202E | 0x2066..=0x2069 | 0x200B | 0x2060 | 0xFEFF)
        })
        .map(|c| format!("U+{:04X}", c as u32))
        .collect();
    let flag_tags = answer.matches('\u{1F3F4}').count() * 6;
    assert!(
        invisible.len() <= flag_tags,
        "{tool} kept invisible code points {invisible:?}:\n{answer}"
    );
}

/// The SEEN-nn markers of the corpus: each a visible twin of HIDDEN-nn.
fn seen_markers() -> Vec<String> {
    let page = include_str!("pages/hidden.html");
    let mut out: Vec<String> = page
        .match_indices("SEEN-")
        .filter_map(|(i, _)| {
            let digits: String = page[i + 5..]
                .chars()
                .take_while(char::is_ascii_digit)
                .collect();
            (!digits.is_empty()).then(|| format!("SEEN-{digits}"))
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// Twins a tool is not asked for: get_text is running text (an image's
/// alt text, a field's value and a select's options are in the snapshot).
fn not_asked(tool: &str, marker: &str) -> bool {
    tool == "browser_get_text" && ["SEEN-21", "SEEN-71", "SEEN-72"].contains(&marker)
}

/// Whether `answer` holds `marker` itself (SEEN-1, not only SEEN-10).
fn has_marker(answer: &str, marker: &str) -> bool {
    answer
        .match_indices(marker)
        .any(|(i, _)| !answer[i + marker.len()..].starts_with(|c: char| c.is_ascii_digit()))
}

fn assert_twins(tool: &str, answer: &str) {
    let markers = seen_markers();
    assert!(
        markers.len() >= 60,
        "the corpus has {} twins",
        markers.len()
    );
    let lost: Vec<_> = markers
        .iter()
        .filter(|m| !not_asked(tool, m) && !has_marker(answer, m))
        .collect();
    assert!(lost.is_empty(), "{tool} lost {lost:?}:\n{answer}");
}

async fn hidden_text_reaches_no_read_tool(w: World) {
    let mcp = client(&w, "Reader").await;
    let url = w.site.url("/hidden");
    let nav = mcp.ok("browser_navigate", json!({"url": url})).await;
    assert_no_hidden("browser_navigate", &nav);
    assert_twins("browser_navigate", &nav);
    for seen in SEEN {
        assert!(nav.contains(seen), "navigate lost {seen:?}:\n{nav}");
    }
    // An icon button keeps its screen-reader name; a link keeps only the
    // words a person sees.
    assert!(nav.contains("button \"Close panel\""), "{nav}");
    assert!(nav.contains("link \"Reviews\""), "{nav}");
    assert!(
        nav.contains("blocks of text a person cannot see on the page were left out"),
        "{nav}"
    );

    for (tool, args) in [
        ("browser_snapshot", json!({})),
        ("browser_snapshot", json!({"full": true})),
        ("browser_snapshot", json!({"target": "main"})),
        ("browser_get_text", json!({})),
        ("browser_get_text", json!({"target": "main"})),
        ("browser_read_markdown", json!({})),
        ("browser_extract_links", json!({})),
    ] {
        let answer = mcp.ok(tool, args.clone()).await;
        assert_no_hidden(tool, &answer);
        if tool == "browser_snapshot" || tool == "browser_get_text" {
            assert_twins(tool, &answer);
        }
        if tool != "browser_extract_links" {
            for seen in SEEN {
                assert!(
                    answer.contains(seen),
                    "{tool} {args} lost {seen:?}:\n{answer}"
                );
            }
        }
    }
    let links = mcp.ok("browser_extract_links", json!({})).await;
    assert!(links.contains("[FAQ page]("), "{links}");
    assert!(!links.contains("/page/evil"), "{links}");
    // Text below the fold is there for a person who scrolls.
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("Below the fold stays"), "{text}");
    assert!(text.contains("left out"), "{text}");

    // find searches what a person can see only, frames a person cannot
    // see included.
    let found = mcp.ok("browser_find", json!({"text": "HIDDEN-"})).await;
    assert!(found.contains("Nothing on the page matches"), "{found}");
    let found = mcp.ok("browser_find", json!({"text": "iframe"})).await;
    assert_no_hidden("browser_find", &found);
    assert!(has_marker(&found, "SEEN-38"), "{found}");
    // A wait is ended by visible text only.
    let waited = mcp
        .text(
            "browser_wait_for",
            json!({"text": "HIDDEN-01", "timeout": 1}),
        )
        .await
        .unwrap_err();
    assert!(waited.contains("timed out"), "{waited}");
    let waited = mcp
        .ok("browser_wait_for", json!({"text": "SEEN-39", "timeout": 2}))
        .await;
    assert!(waited.contains("Done waiting"), "{waited}");
    let waited = mcp
        .ok(
            "browser_wait_for",
            json!({"textGone": "HIDDEN-38", "timeout": 2}),
        )
        .await;
    assert!(waited.contains("Done waiting"), "{waited}");
    let found = mcp.ok("browser_find", json!({"text": "stays"})).await;
    assert_no_hidden("browser_find", &found);
    assert!(found.contains("Gradient headline stays"), "{found}");

    // The raw markup holds it, and says so.
    let html = mcp.ok("browser_get_html", json!({})).await;
    assert!(html.contains("HIDDEN-01"), "get_html is raw markup");
    assert!(
        html.contains("Warning: this markup holds") && html.contains("a person cannot see"),
        "{html}"
    );

    // Hidden text added later is left out of an action's change report.
    let changed = mcp
        .ok(
            "browser_evaluate",
            json!({"function": "() => { document.querySelector('#faq').insertAdjacentHTML('afterend', \
                '<p style=\"opacity:0\">HIDDEN-LATE added</p><p>Visible late addition</p>'); return 1; }"}),
        )
        .await;
    assert!(changed.contains('1'), "{changed}");
    let clicked = mcp.ok("browser_click", json!({"target": "#faq"})).await;
    assert_no_hidden("browser_click", &clicked);
    assert!(clicked.contains("Visible late addition"), "{clicked}");
}

async fn a_page_cannot_forge_the_end_of_its_fence(w: World) {
    let mcp = client(&w, "Fenced").await;
    let nav = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/hidden")}))
        .await;
    let open = nav
        .lines()
        .find_map(|l| l.strip_prefix("<<page-content "))
        .and_then(|l| l.strip_suffix(">>"))
        .unwrap_or_else(|| panic!("no fence in:\n{nav}"))
        .to_string();
    assert_eq!(open.len(), 12, "{open}");
    let close = format!("<<end-page-content {open}>>");
    // One closing line with our id (the page line's inline fence aside),
    // after the page's forged one.
    let closing_lines = |a: &str| a.lines().filter(|l| *l == close).count();
    assert_eq!(closing_lines(&nav), 1, "{nav}");
    let forged = nav
        .find("end-page-content 0123456789ab")
        .expect("forged line shown");
    assert!(forged < nav.rfind(&close).unwrap(), "{nav}");
    assert!(!nav.contains("\n<<end-page-content 0123456789ab"), "{nav}");
    // Every read tool fences with the same id; another client gets another.
    for (tool, args) in [
        ("browser_get_text", json!({})),
        ("browser_read_markdown", json!({})),
        ("browser_find", json!({"text": "forged"})),
        (
            "browser_evaluate",
            json!({"function": "() => document.title"}),
        ),
    ] {
        let answer = mcp.ok(tool, args).await;
        assert_eq!(closing_lines(&answer), 1, "{tool}:\n{answer}");
        assert!(
            answer.contains(&format!("<<page-content {open}>>")),
            "{tool}:\n{answer}"
        );
    }
    let other = client(&w, "Other").await;
    let answer = other
        .ok("browser_navigate", json!({"url": w.site.url("/hidden")}))
        .await;
    assert!(
        !answer.contains(&open),
        "a second client shares the fence id:\n{answer}"
    );
}

async fn actions_say_what_happened_and_controls_without_roles_have_refs(w: World) {
    let mcp = client(&w, "Doer").await;
    let page = w.site.url("/actions");
    let nav = mcp.ok("browser_navigate", json!({"url": page})).await;
    // Controls without a role get refs: a label of a hidden checkbox
    // holding only an icon (named by a guess, said to be one), a div with
    // onclick, a span under a pointer cursor.
    let menu = find_ref(&nav, "clickable", "drawer (name guessed from its id)");
    let draft = find_ref(&nav, "clickable", "Save draft");
    let chip = find_ref(&nav, "clickable", "Filter: open");
    // The closed drawer's link is off screen: not shown, and a click on it
    // is an error that says what a person would do.
    assert!(!nav.contains("Drawer link"), "{nav}");
    let miss = mcp
        .text("browser_click", json!({"target": "nav a"}))
        .await
        .unwrap_err();
    assert!(miss.contains("outside the visible area"), "{miss}");
    assert!(miss.contains("closed menu, drawer"), "{miss}");
    // Opening the drawer by its icon label shows the link, which works.
    let opened = mcp.ok("browser_click", json!({"target": menu})).await;
    assert!(opened.contains("Drawer link"), "{opened}");
    let link = find_ref(&opened, "link", "Drawer link");
    let went = mcp.ok("browser_click", json!({"target": link})).await;
    assert!(went.contains("/page/drawer-link"), "{went}");

    let nav = mcp.ok("browser_navigate", json!({"url": page})).await;
    // A badge over the button's middle takes the click, as it would a
    // person's; the answer names it.
    let under = find_ref(&nav, "button", "Under");
    let clicked = mcp.ok("browser_click", json!({"target": under})).await;
    assert!(
        clicked.contains("the pointer landed on") && plain(&clicked).contains("\"New\""),
        "{clicked}"
    );
    assert!(clicked.contains("badge clicked"), "{clicked}");
    // Typing, selecting and checking say when the page changed it back.
    let typed = mcp
        .ok("browser_type", json!({"target": "#phone", "text": "12-34"}))
        .await;
    assert!(
        plain(&typed).contains("the field now holds \"1234\""),
        "{typed}"
    );
    let plain = mcp
        .ok("browser_type", json!({"target": "#phone", "text": "5678"}))
        .await;
    assert!(!plain.contains("the page changed"), "{plain}");
    let picked = mcp
        .ok(
            "browser_select_option",
            json!({"target": "#size", "values": ["Medium"]}),
        )
        .await;
    assert!(
        common::plain(&picked).contains("changed it back: now \"Small\""),
        "{picked}"
    );
    let filled = mcp
        .ok(
            "browser_fill_form",
            json!({"fields": [{"target": "#terms", "type": "checkbox", "value": "true", "name": "Accept terms"}]}),
        )
        .await;
    assert!(
        filled.contains("Accept terms is not checked (the page changed it back)"),
        "{filled}"
    );
    // The clickable lines act.
    let saved = mcp.ok("browser_click", json!({"target": draft})).await;
    assert!(saved.contains("draft saved"), "{saved}");
    let chipped = mcp.ok("browser_click", json!({"target": chip})).await;
    assert!(chipped.contains("chip clicked"), "{chipped}");
    // A history-API move names where it went, not where it was.
    let moved = mcp.ok("browser_click", json!({"target": "#move"})).await;
    assert!(
        moved.contains("moved to") && moved.contains("/actions/next"),
        "{moved}"
    );
}

/// The marker tests/pages/marker.html puts in every string it controls.
const MARK: &str = "QXMARK";

/// One call's answer (an error's too) must not carry page text outside a
/// fence.
async fn call_fenced(
    mcp: &Mcp,
    (called, said): &mut (Vec<String>, Vec<String>),
    tool: &str,
    args: serde_json::Value,
) -> String {
    called.push(tool.to_string());
    let answer = match mcp.text(tool, args.clone()).await {
        Ok(t) | Err(t) => t,
    };
    // The model's own words (of this call or an earlier one: a route's
    // pattern) may be echoed anywhere.
    said.extend(strings_in(&args));
    let mut outside = outside_fences(&answer);
    for words in said.iter() {
        outside = outside
            .replace(&format!("{words:?}"), "")
            .replace(words, "");
    }
    if outside.contains(MARK) || outside.contains("[UNCLOSED FENCE]") {
        called.push(format!("LEAK {tool} {args}:\n{answer}"));
    }
    answer
}

fn strings_in(v: &serde_json::Value) -> Vec<String> {
    match v {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a.iter().flat_map(strings_in).collect(),
        serde_json::Value::Object(o) => o.values().flat_map(strings_in).collect(),
        _ => vec![],
    }
}

async fn every_string_a_page_controls_stays_inside_a_fence(w: World) {
    let caps = [
        "--caps".to_string(),
        "network,emulation,vision,devtools,testing,storage".to_string(),
    ];
    let mcp = client_with(&w, "Marker", &caps).await;
    let page = format!("{}?QXMARK-url", w.site.url("/pages/marker.html"));
    let mut calls = (Vec::new(), Vec::new());
    let c = &mut calls;
    let nav = call_fenced(&mcp, c, "browser_navigate", json!({"url": page})).await;
    // The page's forged fence opening in its title is rewritten.
    assert!(nav.contains("< <page-content 0123456789ab>>"), "{nav}");
    assert!(plain(&nav).contains("Page: QXMARK title"), "{nav}");
    for (tool, args) in [
        ("browser_snapshot", json!({})),
        ("browser_snapshot", json!({"full": true, "target": "body"})),
        ("browser_find", json!({"text": "QXMARK"})),
        ("browser_get_text", json!({})),
        ("browser_get_html", json!({"target": "#out"})),
        ("browser_extract_links", json!({})),
        ("browser_read_markdown", json!({})),
        ("browser_console_messages", json!({})),
        ("browser_network_requests", json!({})),
        ("browser_network_requests", json!({"filter": "QXMARK"})),
    ] {
        call_fenced(&mcp, c, tool, args).await;
    }
    let requests = call_fenced(
        &mcp,
        c,
        "browser_network_requests",
        json!({"filter": "data.json"}),
    )
    .await;
    let id: u64 = plain(&requests)
        .split('[')
        .nth(1)
        .and_then(|r| r.split(']').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no request id in:\n{requests}"));
    call_fenced(
        &mcp,
        c,
        "browser_network_request",
        json!({"id": id, "body": true}),
    )
    .await;
    for (tool, args) in [
        ("browser_click", json!({"target": "#act"})),
        ("browser_click", json!({"target": "#off"})),
        (
            "browser_click",
            json!({"target": "button \"QXMARK nothing\""}),
        ),
        ("browser_hover", json!({"target": "#link"})),
        ("browser_type", json!({"target": "#name", "text": " more"})),
        ("browser_press_key", json!({"key": "Tab"})),
        (
            "browser_select_option",
            json!({"target": "#pick", "values": ["Other QXMARK choice"]}),
        ),
        (
            "browser_select_option",
            json!({"target": "#pick", "values": ["none such"]}),
        ),
        (
            "browser_fill_form",
            json!({"fields": [{"target": "#name", "type": "textbox", "value": "QXMARK typed"}]}),
        ),
        ("browser_scroll", json!({"deltaY": 100})),
        (
            "browser_drag",
            json!({"startTarget": "#act", "endTarget": "#out"}),
        ),
        ("browser_file_upload", json!({"paths": []})),
        (
            "browser_verify_text_visible",
            json!({"text": "QXMARK heading"}),
        ),
        (
            "browser_verify_text_visible",
            json!({"text": "not on the page"}),
        ),
        (
            "browser_verify_element_visible",
            json!({"role": "button", "accessibleName": "QXMARK button"}),
        ),
        (
            "browser_verify_value",
            json!({"target": "#name", "value": "something else"}),
        ),
        ("browser_generate_locator", json!({"target": "#act"})),
        ("browser_take_screenshot", json!({})),
        ("browser_download", json!({"target": "#dl"})),
        ("browser_capture_media", json!({"target": "#act"})),
        ("browser_pdf_save", json!({})),
        ("browser_cookies", json!({"action": "get"})),
        ("browser_storage", json!({"action": "get", "area": "local"})),
        ("browser_storage_state", json!({"filename": "QXMARK-state"})),
        (
            "browser_set_storage_state",
            json!({"filename": "QXMARK-state.json"}),
        ),
        ("browser_page_tools", json!({})),
        (
            "browser_page_tool_call",
            json!({"name": "QXMARK_tool", "arguments": {}}),
        ),
        ("browser_page_tool_call", json!({"name": "none_such"})),
        (
            "browser_evaluate",
            json!({"function": "() => document.title"}),
        ),
        (
            "browser_evaluate",
            json!({"function": "() => { throw new Error('QXMARK thrown') }"}),
        ),
        (
            "browser_batch",
            json!({"actions": [{"tool": "browser_click", "args": {"target": "#act"}}, {"tool": "browser_snapshot", "args": {}}]}),
        ),
        ("browser_status", json!({})),
        ("browser_mouse_move_xy", json!({"x": 30, "y": 30})),
        ("browser_mouse_click_xy", json!({"x": 30, "y": 30})),
        (
            "browser_mouse_drag_xy",
            json!({"startX": 30, "startY": 30, "endX": 60, "endY": 60}),
        ),
        ("browser_mouse_down", json!({})),
        ("browser_mouse_up", json!({})),
        ("browser_keydown", json!({"key": "Shift"})),
        ("browser_keyup", json!({"key": "Shift"})),
        ("browser_mouse_wheel", json!({"deltaX": 0, "deltaY": 50})),
        ("browser_type_xy", json!({"x": 30, "y": 30, "text": "x"})),
        (
            "browser_route",
            json!({"pattern": "**/QXMARK-routed*", "body": "QXMARK routed"}),
        ),
        ("browser_route_list", json!({})),
        ("browser_unroute", json!({})),
        ("browser_network_state_set", json!({"state": "online"})),
        ("browser_set_extra_headers", json!({"headers": []})),
        ("browser_network_har", json!({})),
        ("browser_start_tracing", json!({})),
        ("browser_stop_tracing", json!({})),
        ("browser_start_video", json!({})),
        ("browser_stop_video", json!({})),
        ("browser_export_test", json!({})),
        ("browser_emulate", json!({"device": "iPhone 13"})),
        ("browser_emulate", json!({"reset": true})),
        ("browser_emulate_media", json!({"colorScheme": "dark"})),
        ("browser_resize", json!({"width": 900, "height": 700})),
        ("browser_wait_for", json!({"text": "QXMARK heading"})),
        (
            "browser_wait_for",
            json!({"textGone": "QXMARK heading", "timeout": 1}),
        ),
        // Dialogs: the message and a prompt's default.
        ("browser_click", json!({"target": "#alert"})),
        ("browser_snapshot", json!({})),
        ("browser_handle_dialog", json!({"accept": true})),
        ("browser_click", json!({"target": "#ask"})),
        ("browser_get_text", json!({})),
        ("browser_handle_dialog", json!({"accept": true})),
        ("browser_tabs", json!({"action": "new", "url": page})),
        ("browser_tabs", json!({"action": "list"})),
        ("browser_tabs", json!({"action": "select", "index": 0})),
        ("browser_tabs", json!({"action": "close", "index": 1})),
        ("browser_reload", json!({})),
        (
            "browser_navigate",
            json!({"url": w.site.url("/pages/marker.html#QXMARK-second")}),
        ),
        ("browser_navigate_back", json!({})),
        ("browser_navigate_forward", json!({})),
        ("browser_close", json!({})),
    ] {
        call_fenced(&mcp, c, tool, args).await;
    }
    // Every tool this client is offered was called.
    let listed = mcp.client.list_all_tools().await.unwrap();
    let missing: Vec<_> = listed
        .iter()
        .map(|t| t.name.to_string())
        .filter(|n| !calls.0.contains(n))
        .collect();
    assert!(
        missing.is_empty(),
        "tools the marker test does not call: {missing:?}"
    );
    let leaks: Vec<_> = calls.0.iter().filter(|c| c.starts_with("LEAK ")).collect();
    assert!(
        leaks.is_empty(),
        "page text outside a fence:\n{}",
        leaks
            .iter()
            .map(|l| l.as_str())
            .collect::<Vec<_>>()
            .join("\n\n")
    );
}

async fn a_page_of_hidden_text_only_shows_nothing(w: World) {
    let mcp = client(&w, "Empty").await;
    let url = w.site.url("/pages/only_hidden.html");
    let nav = mcp.ok("browser_navigate", json!({"url": url})).await;
    assert_no_hidden("browser_navigate", &nav);
    assert!(nav.contains("Snapshot: (empty page)"), "{nav}");
    // (Text the browser does not render at all, as under
    // content-visibility: hidden, is not counted.)
    assert!(
        nav.contains("4 blocks of text a person cannot see on the page were left out"),
        "{nav}"
    );
    for tool in [
        "browser_get_text",
        "browser_read_markdown",
        "browser_snapshot",
    ] {
        let answer = mcp.ok(tool, json!({})).await;
        assert_no_hidden(tool, &answer);
        assert!(answer.contains("left out"), "{tool}:\n{answer}");
    }
}

async fn frames_of_another_origin_a_person_cannot_see_are_left_out(w: World) {
    let mcp = client(&w, "Frames").await;
    let url = w.site.url("/pages/xframes_hidden.html");
    let nav = mcp.ok("browser_navigate", json!({"url": url})).await;
    // The visible frame's script fills it in a moment after its load.
    mcp.ok("browser_wait_for", json!({"text": "SEEN-X1 widget text"}))
        .await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert_no_hidden("browser_navigate", &nav);
    assert_no_hidden("browser_snapshot", &snap);
    assert!(snap.contains("SEEN-X1 widget text"), "{snap}");
    let found = mcp.ok("browser_find", json!({"text": "widget text"})).await;
    assert_no_hidden("browser_find", &found);
    assert!(found.contains("SEEN-X1"), "{found}");
    let waited = mcp
        .text(
            "browser_wait_for",
            json!({"text": "HIDDEN-X1", "timeout": 1}),
        )
        .await
        .unwrap_err();
    assert!(waited.contains("timed out"), "{waited}");
}
