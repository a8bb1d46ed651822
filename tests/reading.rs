//! What a person reads, on both backends (issue 45): line breaks a person
//! sees in pre-wrap text and at `<br>` stay line breaks in browser_get_text
//! and the snapshot, buttons or inline boxes side by side are separate
//! words, text a stylesheet generates is read, a box that cuts its text
//! shows only its start (tests/pages/shape.html), and text the rules
//! cannot vouch for is judged by its pixels (tests/pages/pixels.html).

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    reading_keeps_line_breaks_and_separates_controls,
    pixels_judge_what_the_rules_cannot
);

async fn reading_keeps_line_breaks_and_separates_controls(w: World) {
    let mcp = client(&w, "Reader").await;
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/shape.html")}),
    )
    .await;
    let text = fenced(&mcp.ok("browser_get_text", json!({})).await);
    assert!(
        text.contains("Ada Lovelace\n12 St James's Square\nLondon"),
        "{text}"
    );
    assert!(
        text.contains("The tide goes out,\nthe pools stay full."),
        "{text}"
    );
    assert!(text.contains("Save Cancel Draft kept"), "{text}");
    // Generated text a person sees is read, in its place; hidden
    // generated text and an icon font's glyph are not.
    assert!(text.contains("Email (required)"), "{text}");
    assert!(text.contains("New: Dark mode is here."), "{text}");
    assert!(
        !text.contains("never read") && !text.contains('\u{e900}'),
        "{text}"
    );
    // The title shows its start and an ellipsis, not its end.
    assert!(text.contains("A title much too long"), "{text}");
    assert!(!text.contains("no person sees"), "{text}");

    let snap = fenced(&mcp.ok("browser_snapshot", json!({})).await);
    assert!(
        snap.contains("- text: Ada Lovelace\n") && snap.contains("- text: 12 St James's Square\n"),
        "{snap}"
    );
    assert!(snap.contains("- text: (required)"), "{snap}");
    assert!(snap.contains("- text: New:"), "{snap}");
    assert!(!snap.contains("no person sees"), "{snap}");
    assert!(snap.contains("A title much too long"), "{snap}");
}

async fn pixels_judge_what_the_rules_cannot(w: World) {
    let mcp = client(&w, "Reader").await;
    let nav = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/pages/pixels.html")}),
        )
        .await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    // The same words in new nodes (no verdict on them yet): get_text asks
    // the pixels itself.
    mcp.ok(
        "browser_evaluate",
        json!({"function": "() => { document.body.innerHTML = document.body.innerHTML; }"}),
    )
    .await;
    let text = mcp.ok("browser_get_text", json!({})).await;
    for answer in [&nav, &snap, &text] {
        for n in 1..=5 {
            assert!(
                !answer.contains(&format!("PIXELS-HIDDEN-{n}")),
                "PIXELS-HIDDEN-{n} reached the answer:\n{answer}"
            );
            assert!(
                answer.contains(&format!("PIXELS-SEEN-{n}")),
                "PIXELS-SEEN-{n} was lost:\n{answer}"
            );
        }
        assert!(
            answer.contains("blocks of text a person cannot see"),
            "{answer}"
        );
    }
    // Below the fold the rules alone judge it, and the answer says so.
    assert!(snap.contains("PIXELS-LATER"), "{snap}");
    assert!(snap.contains("only pixels can judge"), "{snap}");
}
