//! Real applications installed from the registries, driven through an
//! MCP client as a person drives them, on both backends: a Streamlit form
//! (select box, text input, a slider whose range input is hidden under
//! the track it draws, a button), Datasette's SQL editor (CodeMirror 5,
//! whose textarea is an invisible proxy behind the drawn code) checked
//! against sqlite3, and four code editors from npm (CodeMirror 5 and 6,
//! Monaco, Ace) plus read-only ones. A task that worked and stops working
//! here is a regression. Needs what .ci/run installs: `pip install
//! streamlit datasette` and `npm ci --prefix tests/apps/editors`.

#[macro_use]
mod common;

use common::apps;
use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    a_streamlit_form_is_filled_as_a_person_fills_it,
    a_query_typed_into_datasettes_sql_editor_runs,
    code_editors_from_npm_take_typing_and_read_only_ones_refuse_it,
);

/// The ref on the first line of `snapshot` that starts with `start`.
fn ref_on_line(snapshot: &str, start: &str) -> String {
    let line = snapshot
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(start) && l.contains("[ref="))
        .unwrap_or_else(|| panic!("no line starting {start:?} with a ref in:\n{snapshot}"));
    let at = line.find("[ref=").unwrap() + 5;
    line[at..at + line[at..].find(']').unwrap()].to_string()
}

async fn a_streamlit_form_is_filled_as_a_person_fills_it(w: World) {
    let app = apps::streamlit(w.sb.tmp.path());
    let mcp = client(&w, "Streamlit user").await;
    let t = std::time::Instant::now();
    mcp.ok("browser_navigate", json!({"url": format!("{}/", app.base)}))
        .await;
    // The app draws itself over its websocket after loading.
    mcp.ok("browser_wait_for", json!({"text": "Submit"})).await;
    eprintln!(
        "streamlit: navigate and draw {} ms",
        t.elapsed().as_millis()
    );
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    // The slider's range input is visually hidden under the track it
    // draws: it is there, with its value and a ref.
    assert!(snap.contains("slider \"Count\""), "{snap}");
    let slider = find_ref(&snap, "slider", "Count");
    assert!(
        snap.lines()
            .any(|l| l.contains(&format!("[ref={slider}]")) && l.ends_with(": 3")),
        "{snap}"
    );
    // Out of range: refused, with the range.
    let wrong = mcp
        .text(
            "browser_fill_form",
            json!({"fields": [{"target": slider, "type": "slider", "value": "12"}]}),
        )
        .await
        .unwrap_err();
    assert!(wrong.contains("outside the slider's range 0–10"), "{wrong}");
    // The select box: opened, then its option chosen, as a person does.
    let fruit = ref_on_line(&snap, "- combobox \"");
    let open = mcp.ok("browser_click", json!({"target": fruit})).await;
    let banana = find_ref(&open, "option", "Banana");
    mcp.ok("browser_click", json!({"target": banana})).await;
    let name = find_ref(&snap, "textbox", "Name");
    let t = std::time::Instant::now();
    let filled = mcp
        .ok(
            "browser_fill_form",
            json!({"fields": [
                {"target": name, "type": "textbox", "value": "Ada"},
                {"target": slider, "type": "slider", "value": "7"}
            ]}),
        )
        .await;
    eprintln!(
        "streamlit: fill name and slider {} ms",
        t.elapsed().as_millis()
    );
    assert!(!filled.contains("but "), "{filled}");
    // Streamlit reruns the script on input: the button answers with its
    // result once that is done.
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let submit = find_ref(&snap, "button", "Submit");
    let done = mcp.ok("browser_click", json!({"target": submit})).await;
    if !done.contains("Order:") {
        eprintln!("streamlit: the click's answer came before the order: {done}");
        mcp.ok("browser_wait_for", json!({"text": "Order:"})).await;
    }
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("Order: 7 x Banana for Ada"), "{done}\n{text}");
}

async fn a_query_typed_into_datasettes_sql_editor_runs(w: World) {
    let (app, db) = apps::datasette(w.sb.tmp.path());
    let mcp = client(&w, "Datasette user").await;
    let page = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/birds?sql=select+1", app.base)}),
        )
        .await;
    // The editor (CodeMirror 5) is one textbox, holding the query.
    let editor = ref_on_line(&page, "- textbox");
    assert!(
        page.lines()
            .any(|l| l.contains(&format!("[ref={editor}]")) && l.ends_with(": select 1")),
        "{page}"
    );
    let sql = "select name from birds where wingspan_cm > 250 order by name";
    let typed = mcp
        .ok("browser_type", json!({"target": editor, "text": sql}))
        .await;
    assert!(!typed.contains("but the field"), "{typed}");
    assert!(
        typed.contains(sql),
        "the read-back shows the query: {typed}"
    );
    let run = find_ref(&fenced(&page), "button", "Run SQL");
    let result = mcp.ok("browser_click", json!({"target": run})).await;
    let text = mcp.ok("browser_get_text", json!({})).await;
    let want = apps::sqlite_rows(&db, sql);
    assert_eq!(want, ["Andean condor", "Wandering albatross"]);
    for name in &want {
        assert!(
            text.contains(name.as_str()),
            "{name} missing: {result}\n{text}"
        );
    }
    assert!(!text.contains("Golden eagle"), "{text}");
}

async fn code_editors_from_npm_take_typing_and_read_only_ones_refuse_it(w: World) {
    let app = apps::editors(w.sb.tmp.path());
    let mcp = client(&w, "Coder").await;
    mcp.ok("browser_navigate", json!({"url": format!("{}/", app.base)}))
        .await;
    wait_for_page_flag(&mcp, "editorsReady").await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    // Each editor is one textbox holding its text, not a textbox and the
    // drawn lines (nor line numbers).
    assert_eq!(snap.matches("SELECT 1;").count(), 4, "{snap}");
    assert!(!snap.contains("1 SELECT"), "{snap}");
    for (label, key) in [
        ("CodeMirror 5 editor", "cm5"),
        ("CodeMirror 6 editor", "cm6"),
        ("Monaco editor", "monaco"),
        ("Ace editor", "ace"),
    ] {
        let line_start = if key == "ace" {
            // Ace names its input by the cursor's place until focused.
            "- textbox \"Cursor at row".to_string()
        } else {
            format!("- textbox \"{label}\"")
        };
        let r = ref_on_line(&snap, &line_start);
        let out = mcp
            .ok("browser_type", json!({"target": r, "text": "SELECT 42;"}))
            .await;
        assert!(out.contains("SELECT 42;"), "{label}: {out}");
        assert!(!out.contains("but the field"), "{label}: {out}");
        let now = eval_json(&mcp, &format!("() => editorText('{key}')")).await;
        assert_eq!(now, json!("SELECT 42;"), "{label}");
    }
    for (label, key) in [
        ("Read-only editor", "readonly"),
        ("Read-only CodeMirror 6 editor", "cm6-readonly"),
    ] {
        let line = format!("- textbox \"{label}\" [readonly]");
        let r = ref_on_line(&snap, &line);
        let err = mcp
            .text(
                "browser_type",
                json!({"target": r, "text": "DROP TABLE x;"}),
            )
            .await
            .unwrap_err();
        assert!(
            err.contains("read-only: nothing was typed"),
            "{label}: {err}"
        );
        let now = eval_json(&mcp, &format!("() => editorText('{key}')")).await;
        assert_eq!(now, json!("SELECT 'read only';"), "{label}");
    }
}
