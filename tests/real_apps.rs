//! Real applications installed from the registries, driven through an
//! MCP client as a person drives them, on both backends: a Streamlit form
//! (select box, text input, a slider whose range input is hidden under
//! the track it draws, a button), Datasette's SQL editor (CodeMirror 5,
//! whose textarea is an invisible proxy behind the drawn code) checked
//! against sqlite3, and four code editors from npm (CodeMirror 5 and 6,
//! Monaco, Ace) plus read-only ones, a Gradio app (a chat whose answer
//! streams in, a dropdown, an upload) and a JupyterLab notebook (code
//! typed into a CodeMirror 6 cell, run, its output read). A task that worked and stops working
//! here is a regression. Needs what .ci/run installs: `pip install
//! streamlit datasette gradio jupyterlab` and `npm ci --prefix
//! tests/apps/editors`.

#[macro_use]
mod common;

use common::apps;
use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    a_streamlit_form_is_filled_as_a_person_fills_it,
    a_query_typed_into_datasettes_sql_editor_runs,
    datasettes_filter_form_and_sort_agree_with_sqlite,
    code_editors_from_npm_take_typing_and_read_only_ones_refuse_it,
    a_gradio_chat_streams_its_answer_and_its_dropdown_and_upload_work,
    a_jupyterlab_cell_runs_the_code_typed_into_it,
    exports_made_by_npm_libraries_land_in_the_download_dir,
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
    // The slider's range input is visually hidden under the track it
    // draws: it is there, with its value and a ref (once the app has
    // drawn it: Streamlit draws its widgets one after another, fading
    // them in).
    let snap = snapshot_with(&mcp, "slider \"Count\"", 10).await;
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

async fn a_gradio_chat_streams_its_answer_and_its_dropdown_and_upload_work(w: World) {
    let app = apps::gradio(w.sb.tmp.path());
    let uploads = w.sb.tmp.path().join("uploads");
    std::fs::create_dir_all(&uploads).unwrap();
    let data = uploads.join("data.csv");
    std::fs::write(&data, "a,b\n1,2\n").unwrap();
    let mcp = client_with(
        &w,
        "Gradio user",
        &["--upload-dir".into(), uploads.display().to_string()],
    )
    .await;
    let page = mcp
        .ok("browser_navigate", json!({"url": format!("{}/", app.base)}))
        .await;
    // The app holds its heartbeat stream open: named, not waited for.
    assert!(
        page.contains("Open: event stream GET /gradio_api/heartbeat"),
        "{page}"
    );
    let snap = snapshot_with(&mcp, "textbox \"Textbox\"", 15).await;
    // The chat's answer streams in word by word over 2 s: the answer to
    // sending waits while it streams.
    let chat = find_ref(&snap, "textbox", "Textbox");
    let t = std::time::Instant::now();
    let sent = mcp
        .ok(
            "browser_type",
            json!({"target": chat, "text": "hello there tidepools", "submit": true}),
        )
        .await;
    let whole = "You said 3 words: hello there tidepools. That is all.";
    eprintln!(
        "gradio chat: {} ms, whole answer in the reply: {}",
        t.elapsed().as_millis(),
        sent.contains(whole)
    );
    if !sent.contains(whole) {
        mcp.ok("browser_wait_for", json!({"text": "That is all."}))
            .await;
    }
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains(whole), "{sent}\n{text}");
    // The dropdown: opened, an option chosen; the app echoes it.
    let open = mcp
        .ok(
            "browser_click",
            json!({"target": find_ref(&snap, "combobox", "Colour")}),
        )
        .await;
    let blue = find_ref(&open, "option", "Blue");
    let picked = mcp.ok("browser_click", json!({"target": blue})).await;
    if !picked.contains("Chosen colour: Blue") {
        snapshot_with(&mcp, "Chosen colour: Blue", 10).await;
    }
    // The upload: its button opens the file chooser, which takes the file.
    mcp.ok(
        "browser_click",
        json!({"target": find_ref(&snap, "button", "Click to upload or drop files")}),
    )
    .await;
    let up = mcp
        .ok(
            "browser_file_upload",
            json!({"paths": [data.display().to_string()]}),
        )
        .await;
    if !up.contains("Received data.csv (8 bytes)") {
        snapshot_with(&mcp, "Received data.csv (8 bytes)", 10).await;
    }
}

async fn a_jupyterlab_cell_runs_the_code_typed_into_it(w: World) {
    let app = apps::jupyter(w.sb.tmp.path());
    let mcp = client(&w, "Notebook user").await;
    let t = std::time::Instant::now();
    mcp.ok(
        "browser_navigate",
        json!({"url": format!("{}/lab/tree/jupyter_notebook.ipynb", app.base)}),
    )
    .await;
    // The lab draws itself, then the notebook and its cell editor
    // (CodeMirror 6: an editable region, one textbox).
    let snap = snapshot_with(&mcp, "Code Cell Content", 30).await;
    eprintln!(
        "jupyterlab: the notebook drawn after {} ms",
        t.elapsed().as_millis()
    );
    let cell = snap
        .lines()
        .skip_while(|l| !l.contains("Code Cell Content"))
        .find(|l| l.trim_start().starts_with("- textbox") && l.contains("[ref="))
        .unwrap_or_else(|| panic!("no cell editor in:\n{snap}"));
    let at = cell.find("[ref=").unwrap() + 5;
    let cell = cell[at..at + cell[at..].find(']').unwrap()].to_string();
    let typed = mcp
        .ok("browser_type", json!({"target": cell, "text": "6 * 7"}))
        .await;
    assert!(typed.contains("6 * 7"), "{typed}");
    assert!(!typed.contains("but the field"), "{typed}");
    // Shift+Enter runs the cell (once the kernel is up) and shows its
    // output beside it.
    mcp.ok("browser_press_key", json!({"key": "Shift+Enter"}))
        .await;
    let out = mcp
        .ok("browser_wait_for", json!({"text": "42", "timeout": 25}))
        .await;
    eprintln!("jupyterlab: output after {} ms", t.elapsed().as_millis());
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(snap.contains("42"), "{out}\n{snap}");
}

async fn datasettes_filter_form_and_sort_agree_with_sqlite(w: World) {
    let (app, db) = apps::datasette(w.sb.tmp.path());
    let mcp = client(&w, "Datasette reader").await;
    let page = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/birds/birds", app.base)}),
        )
        .await;
    // The filter form: a column, an operator, a value, Apply.
    let combos: Vec<String> = page
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("- combobox [ref="))
        .map(|l| {
            let at = l.find("[ref=").unwrap() + 5;
            l[at..at + l[at..].find(']').unwrap()].to_string()
        })
        .collect();
    assert_eq!(combos.len(), 2, "{page}");
    let value = ref_on_line(&page, "- textbox [ref=");
    mcp.ok(
        "browser_select_option",
        json!({"target": combos[0], "values": ["wingspan_cm"]}),
    )
    .await;
    mcp.ok(
        "browser_select_option",
        json!({"target": combos[1], "values": [">"]}),
    )
    .await;
    mcp.ok("browser_type", json!({"target": value, "text": "300"}))
        .await;
    let filtered = mcp
        .ok(
            "browser_click",
            json!({"target": find_ref(&page, "button", "Apply")}),
        )
        .await;
    let want = apps::sqlite_rows(&db, "select name from birds where wingspan_cm > 300");
    assert_eq!(want.len(), 2, "{want:?}");
    for name in &want {
        assert!(filtered.contains(name.as_str()), "{name}: {filtered}");
    }
    assert!(filtered.contains("2 rows"), "{filtered}");
    // Sorting by a column's header link: the first row is sqlite's first.
    let page = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/birds/birds", app.base)}),
        )
        .await;
    // (The column's header link, not the facet link of the same name.)
    let header: String = page
        .lines()
        .skip_while(|l| !l.contains("- columnheader \"wingspan_cm\""))
        .skip(1)
        .take(1)
        .collect();
    let sorted = mcp
        .ok(
            "browser_click",
            json!({"target": ref_on_line(&header, "- link \"wingspan_cm\"")}),
        )
        .await;
    assert!(sorted.contains("_sort=wingspan_cm"), "{sorted}");
    let first = &apps::sqlite_rows(&db, "select name from birds order by wingspan_cm limit 1")[0];
    let rows: Vec<&str> = sorted
        .lines()
        .map(str::trim_start)
        .filter(|l| l.starts_with("- cell \""))
        .collect();
    assert!(
        rows.get(1).is_some_and(|l| l.contains(first.as_str())),
        "the first row is not {first}: {sorted}"
    );
}

/// A table exported by two widely used libraries from npm, each building
/// the file in the page and handing it to a download link on a blob: URL:
/// FileSaver.js (a CSV) and SheetJS (a real .xlsx). Each lands in the
/// download dir with its bytes whole: the CSV is the table, the .xlsx is
/// a zip whose sheet holds the table's words.
async fn exports_made_by_npm_libraries_land_in_the_download_dir(w: World) {
    let app = apps::editors(w.sb.tmp.path());
    let dir = w.sb.tmp.path().join("downloads");
    let mcp = client_with(
        &w,
        "Analyst",
        &["--download-dir".into(), dir.display().to_string()],
    )
    .await;
    let page = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/export.html", app.base)}),
        )
        .await;
    let csv = mcp
        .ok(
            "browser_click",
            json!({"target": find_ref(&page, "button", "Export CSV")}),
        )
        .await;
    assert!(
        plain(&csv).contains(&format!(
            "The page started a download: Saved {}",
            dir.join("sales.csv").display()
        )),
        "{csv}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("sales.csv")).unwrap(),
        "Region,Product,Units\nNorth,Widget,12\nSouth,Gadget,7\nEast,Sprocket,30\n"
    );
    let xlsx = mcp
        .ok(
            "browser_click",
            json!({"target": find_ref(&page, "button", "Export Excel")}),
        )
        .await;
    let book = dir.join("sales.xlsx");
    assert!(
        plain(&xlsx).contains(&format!(
            "The page started a download: Saved {}",
            book.display()
        )),
        "{xlsx}"
    );
    // Read back with Python's zipfile: every part of the book, joined.
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, zipfile\nz = zipfile.ZipFile(sys.argv[1])\nprint(''.join(z.read(n).decode('utf-8', 'replace') for n in z.namelist()))",
            book.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for word in ["Region", "Widget", "Sprocket", "Sales"] {
        assert!(text.contains(word), "{word} not in the book: {text:.400}");
    }
}
