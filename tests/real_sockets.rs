//! Real Python app frameworks from PyPI whose UI state flows over a
//! WebSocket (Streamlit, NiceGUI, Shiny, Panel), on both backends: a
//! click whose result the server sends over its socket after 0.8 s of
//! work is answered with that result, by the click itself, with no
//! browser_wait_for and no second snapshot (issue 43). The apps are in
//! tests/apps (README there); `.ci/run` installs the frameworks.

#[macro_use]
mod common;

use common::apps;
use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    a_streamlit_button_answers_with_what_its_script_wrote,
    a_nicegui_search_answers_with_the_servers_result,
    a_shiny_report_answers_with_its_output,
    a_panel_button_answers_with_its_result_in_shadow_dom,
);

/// Clicks the button `name` of `snap` and checks that the click's own
/// answer holds `result` (the server's reply, 0.8 s later).
async fn click_answers_with(mcp: &Mcp, snap: &str, name: &str, result: &str) -> String {
    let button = find_ref(snap, "button", name);
    let t = std::time::Instant::now();
    let out = mcp.ok("browser_click", json!({"target": button})).await;
    eprintln!("click {name:?}: answered in {} ms", t.elapsed().as_millis());
    assert!(
        out.contains(result),
        "the click's answer lacks the server's reply {result:?}:\n{out}"
    );
    out
}

async fn a_streamlit_button_answers_with_what_its_script_wrote(w: World) {
    let app = apps::socket_app(w.sb.tmp.path(), "streamlit_slow");
    let mcp = client(&w, "Streamlit user").await;
    mcp.ok("browser_navigate", json!({"url": format!("{}/", app.base)}))
        .await;
    let snap = snapshot_with(&mcp, "Count birds", 20).await;
    assert!(snap.contains("No birds counted yet"), "{snap}");
    click_answers_with(&mcp, &snap, "Count birds", "Birds counted: 17").await;
}

async fn a_nicegui_search_answers_with_the_servers_result(w: World) {
    let app = apps::socket_app(w.sb.tmp.path(), "nicegui_slow");
    let mcp = client(&w, "NiceGUI user").await;
    mcp.ok("browser_navigate", json!({"url": format!("{}/", app.base)}))
        .await;
    // (Quasar draws its buttons' labels in capitals, as the names say.)
    let snap = snapshot_with(&mcp, "SEARCH", 20).await;
    let name = find_ref(&snap, "combobox", "Bird name");
    // Typing sends the value to the server, which answers nothing: the
    // typing is not held for a reply.
    let t = std::time::Instant::now();
    mcp.ok("browser_type", json!({"target": name, "text": "Heron"}))
        .await;
    eprintln!("nicegui: typed in {} ms", t.elapsed().as_millis());
    click_answers_with(&mcp, &snap, "SEARCH", "Result: 3 sightings of Heron").await;
}

async fn a_shiny_report_answers_with_its_output(w: World) {
    let app = apps::socket_app(w.sb.tmp.path(), "shiny_slow");
    let mcp = client(&w, "Shiny user").await;
    mcp.ok("browser_navigate", json!({"url": format!("{}/", app.base)}))
        .await;
    let snap = snapshot_with(&mcp, "Result: not run yet", 20).await;
    click_answers_with(&mcp, &snap, "Run report", "Result: 42 items found").await;
}

async fn a_panel_button_answers_with_its_result_in_shadow_dom(w: World) {
    let app = apps::socket_app(w.sb.tmp.path(), "panel_slow");
    let mcp = client(&w, "Panel user").await;
    mcp.ok("browser_navigate", json!({"url": format!("{}/", app.base)}))
        .await;
    // Panel draws every widget inside shadow roots: the wait sees them
    // and shows the line it found, with its ref.
    let waited = mcp
        .ok(
            "browser_wait_for",
            json!({"text": "Load stations", "timeout": 20}),
        )
        .await;
    assert!(waited.contains("button \"Load stations\""), "{waited}");
    let snap = snapshot_with(&mcp, "Result: nothing loaded", 10).await;
    click_answers_with(&mcp, &snap, "Load stations", "Result: 12 stations loaded").await;
}
