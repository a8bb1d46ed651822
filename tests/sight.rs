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
    a_page_cannot_forge_the_end_of_its_fence,
    actions_say_what_happened_and_controls_without_roles_have_refs,
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
}

async fn hidden_text_reaches_no_read_tool(w: World) {
    let mcp = client(&w, "Reader").await;
    let url = w.site.url("/hidden");
    let nav = mcp.ok("browser_navigate", json!({"url": url})).await;
    assert_no_hidden("browser_navigate", &nav);
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

    // find searches what a person can see only.
    let found = mcp.ok("browser_find", json!({"text": "HIDDEN"})).await;
    assert!(found.contains("Nothing on the page matches"), "{found}");
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
    // One closing line with our id, after the page's forged one.
    assert_eq!(nav.matches(&close).count(), 1, "{nav}");
    let forged = nav
        .find("end-page-content 0123456789ab")
        .expect("forged line shown");
    assert!(forged < nav.find(&close).unwrap(), "{nav}");
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
        assert_eq!(answer.matches(&close).count(), 1, "{tool}:\n{answer}");
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
        clicked.contains("the pointer landed on") && clicked.contains("\"New\""),
        "{clicked}"
    );
    assert!(clicked.contains("badge clicked"), "{clicked}");
    // Typing, selecting and checking say when the page changed it back.
    let typed = mcp
        .ok("browser_type", json!({"target": "#phone", "text": "12-34"}))
        .await;
    assert!(typed.contains("the field now holds \"1234\""), "{typed}");
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
        picked.contains("changed it back: now \"Small\""),
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
