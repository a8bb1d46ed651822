//! Reading keeps the page's shape, on both backends (issue 45's reading
//! part): line breaks a person sees in pre-wrap text and at `<br>` stay
//! line breaks in browser_get_text, and buttons or inline boxes side by
//! side are separate words (tests/pages/shape.html).

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(reading_keeps_line_breaks_and_separates_controls);

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
}
