//! Widely used drag-and-drop and slider libraries from npm (pinned by
//! tests/apps/widgets/package-lock.json), on both backends, dragged as a
//! person drags them: by ref (`browser_drag`) and by coordinates
//! (`browser_mouse_drag_xy`), each result checked against the library's
//! own state (`widgetState()` of each page; tests/apps/README.md). Before
//! issue 43 a drag was sent in one batch and libraries committed its
//! midpoint. `.ci/run` installs the pages' packages
//! (`npm ci --prefix tests/apps/widgets`).
//!
//! Two web-component libraries (Shoelace, Material Web), whose labels and
//! real inputs live in shadow roots, are used the same way (issue 49): a
//! select named by its label and chosen, a dialog's fields filled by their
//! labels, sliders and checkboxes drawn over or beside their inputs set and
//! read back, a tree item clicked while a branch above it opens.

#[macro_use]
mod common;

use common::apps;
use common::world::*;
use common::*;
use serde_json::{json, Value};

on_both_backends!(
    sortable_lists_from_npm_take_drags_by_ref_and_by_coordinates,
    sliders_from_npm_commit_where_the_drag_ends,
    shoelace_components_are_named_and_operated_as_a_person_sees_them,
    material_web_components_are_named_and_operated_as_a_person_sees_them,
);

/// A client with the coordinate tools, on `page` of the widgets app once
/// its library is set up; its snapshot.
async fn open(w: &World, app: &apps::App, page: &str) -> (Mcp, String) {
    let mcp = client_with(w, "Dragger", &["--caps".into(), "vision".into()]).await;
    let snap = goto(&mcp, app, page).await;
    (mcp, snap)
}

/// Navigates `mcp` to `page` and waits for its library; the snapshot.
async fn goto(mcp: &Mcp, app: &apps::App, page: &str) -> String {
    mcp.ok(
        "browser_navigate",
        json!({"url": format!("{}/{page}", app.base)}),
    )
    .await;
    wait_for_page_flag(mcp, "widgetReady").await;
    mcp.ok("browser_snapshot", json!({})).await
}

async fn state(mcp: &Mcp) -> Value {
    eval_json(mcp, "() => window.widgetState()").await
}

/// The middle of the element `selector` matches (viewport CSS pixels,
/// which the coordinate tools take when no screenshot was taken).
async fn middle(mcp: &Mcp, selector: &str) -> (f64, f64) {
    let r = eval_json(
        mcp,
        &format!(
            "() => {{ const r = document.querySelector({}).getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }}",
            json!(selector)
        ),
    )
    .await;
    (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
}

/// The point at `fraction` of the width of `selector`'s box, mid-height.
async fn along(mcp: &Mcp, selector: &str, fraction: f64) -> (f64, f64) {
    let r = eval_json(
        mcp,
        &format!(
            "() => {{ const r = document.querySelector({}).getBoundingClientRect(); \
             return [r.left + r.width * {fraction}, r.top + r.height / 2]; }}",
            json!(selector)
        ),
    )
    .await;
    (r[0].as_f64().unwrap(), r[1].as_f64().unwrap())
}

async fn drag_xy(mcp: &Mcp, from: (f64, f64), to: (f64, f64)) -> String {
    mcp.ok(
        "browser_mouse_drag_xy",
        json!({"element": "a drag", "startX": from.0, "startY": from.1, "endX": to.0, "endY": to.1}),
    )
    .await
}

fn order(state: &Value) -> Vec<String> {
    state["order"]
        .as_array()
        .unwrap_or_else(|| panic!("no order in {state}"))
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect()
}

async fn sortable_lists_from_npm_take_drags_by_ref_and_by_coordinates(w: World) {
    let app = apps::widgets(w.sb.tmp.path());
    // SortableJS (native HTML5 drag and drop; an item becomes draggable
    // only once pressed): by ref, the last item onto the first.
    let (mcp, snap) = open(&w, &app, "sortable.html").await;
    let echo = find_ref(&snap, "draggable", "Echo");
    let alpha = find_ref(&snap, "draggable", "Alpha");
    let out = mcp
        .ok(
            "browser_drag",
            json!({"startTarget": echo, "endTarget": alpha}),
        )
        .await;
    assert_eq!(
        order(&state(&mcp).await),
        ["Echo", "Alpha", "Bravo", "Charlie", "Delta"],
        "{out}"
    );
    assert!(
        out.contains("is now 1st of 5 in its list (it was 5th)"),
        "{out}"
    );
    assert!(!out.contains("did not change"), "{out}");
    // By coordinates: Alpha (now second) down onto Delta.
    let from = middle(&mcp, "#list li[data-id=Alpha]").await;
    let to = middle(&mcp, "#list li[data-id=Delta]").await;
    let out = drag_xy(&mcp, from, to).await;
    assert_eq!(
        order(&state(&mcp).await),
        ["Echo", "Bravo", "Charlie", "Delta", "Alpha"],
        "{out}"
    );

    // dragula (mouse events; a card moves to another column).
    let snap = goto(&mcp, &app, "dragula.html").await;
    let card = find_ref(&snap, "draggable", "Book flight");
    let rent = find_ref(&snap, "draggable", "Pay rent");
    let out = mcp
        .ok(
            "browser_drag",
            json!({"startTarget": card, "endTarget": rent}),
        )
        .await;
    let s = state(&mcp).await;
    assert_eq!(s["todo"], json!(["Write report", "Call Ada"]), "{out}");
    assert!(
        s["done"]
            .as_array()
            .unwrap()
            .contains(&json!("Book flight")),
        "{s} {out}"
    );
    assert!(out.contains("moved into another container"), "{out}");
    // By coordinates: "Call Ada" over to "Done" too.
    let from = middle(&mcp, "#todo .card:nth-child(2)").await;
    let to = middle(&mcp, "#done .card:last-child").await;
    let out = drag_xy(&mcp, from, (to.0, to.1 + 12.0)).await;
    let s = state(&mcp).await;
    assert_eq!(s["todo"], json!(["Write report"]), "{s} {out}");

    // Shopify Draggable (a drag starts only past 10 px of movement).
    let snap = goto(&mcp, &app, "draggable.html").await;
    // (Its items are focusable list items holding their text once the
    // library has set them up; an answer taken before that frame shows
    // them as draggable items named by their text. Either way the ref is
    // the item's.)
    let item = |name: &str| {
        if snap.lines().any(|l| l.trim() == format!("- text: {name}")) {
            ref_above(&snap, &format!("- text: {name}"))
        } else {
            ref_of_name(&snap, name)
        }
    };
    let wash = item("Wash");
    let fry = item("Fry");
    let out = mcp
        .ok(
            "browser_drag",
            json!({"startTarget": wash, "endTarget": fry}),
        )
        .await;
    let now = order(&state(&mcp).await);
    assert_eq!(now[..2], ["Chop", "Fry"], "{out}");
    assert_eq!(now[2], "Wash", "{out}");

    // interact.js (pointer events; a drop zone): by ref.
    let snap = goto(&mcp, &app, "interact.html").await;
    let parcel = ref_of_name(&snap, "Parcel A");
    // A drop zone is a place, not a control: its heading, found by its
    // words (browser_find gives what it finds a ref), is where to drop.
    let found = mcp
        .ok("browser_find", json!({"text": "Truck", "role": "heading"}))
        .await;
    let truck = ref_of_name(&found, "Truck");
    let out = mcp
        .ok(
            "browser_drag",
            json!({"startTarget": parcel, "endTarget": truck}),
        )
        .await;
    assert_eq!(state(&mcp).await["truck"], json!(["Parcel A"]), "{out}");

    // jQuery UI's sortable, by coordinates: Cheese down onto Olives.
    goto(&mcp, &app, "jqueryui.html").await;
    let from = middle(&mcp, "#toppings li[data-id=Cheese]").await;
    let to = middle(&mcp, "#toppings li[data-id=Olives]").await;
    let out = drag_xy(&mcp, from, (to.0, to.1 + 4.0)).await;
    assert_eq!(
        order(&state(&mcp).await),
        ["Ham", "Olives", "Cheese", "Basil"],
        "{out}"
    );
}

/// The ref on the line just above the first line of `snap` that is
/// `line` (trimmed): the element holding that text.
fn ref_above(snap: &str, line: &str) -> String {
    let lines: Vec<&str> = snap.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim() == line)
        .unwrap_or_else(|| panic!("no line {line:?} in:\n{snap}"));
    let above = lines[at - 1];
    let from = above
        .find("[ref=")
        .unwrap_or_else(|| panic!("no ref above {line:?} in:\n{snap}"))
        + 5;
    above[from..from + above[from..].find(']').unwrap()].to_string()
}

/// The ref on the first line of `snap` that names `name` (any role).
fn ref_of_name(snap: &str, name: &str) -> String {
    let quoted = format!("\"{name}\"");
    let line = snap
        .lines()
        .find(|l| l.contains(&quoted) && l.contains("[ref="))
        .unwrap_or_else(|| panic!("no line naming {name:?} with a ref in:\n{snap}"));
    let at = line.find("[ref=").unwrap() + 5;
    line[at..at + line[at..].find(']').unwrap()].to_string()
}

async fn sliders_from_npm_commit_where_the_drag_ends(w: World) {
    let app = apps::widgets(w.sb.tmp.path());
    // noUiSlider commits on release: by coordinates, the upper handle
    // from 80 to the middle of the track.
    let (mcp, snap) = open(&w, &app, "nouislider.html").await;
    let from = middle(&mcp, ".noUi-handle-upper").await;
    let to = along(&mcp, "#price .noUi-base", 0.5).await;
    let out = drag_xy(&mcp, from, to).await;
    let s = state(&mcp).await;
    assert_eq!(s["values"], json!([20, 50]), "{out}");
    assert_eq!(s["changes"], json!(1), "one commit, at the end: {out}");
    // By ref: the lower handle onto the upper one (noUiSlider keeps the
    // lower at or below the upper: it stops there, at 50, never at the
    // drag's midpoint).
    let lower = find_ref(&snap, "slider", "Minimum price");
    let upper = find_ref(&snap, "slider", "Maximum price");
    let out = mcp
        .ok(
            "browser_drag",
            json!({"startTarget": lower, "endTarget": upper}),
        )
        .await;
    let s = state(&mcp).await;
    assert_eq!(s["values"], json!([50, 50]), "{out}");
    assert!(out.contains("now has the value 50"), "{out}");

    // jQuery UI's range slider, by coordinates: the upper handle to 60.
    goto(&mcp, &app, "jqueryui.html").await;
    let from = middle(&mcp, "#ages .ui-slider-handle:last-of-type").await;
    let to = along(&mcp, "#ages", 0.6).await;
    let out = drag_xy(&mcp, from, to).await;
    assert_eq!(state(&mcp).await["values"], json!([20, 60]), "{out}");
}

/// Clicks `target` and returns the answer.
async fn click(mcp: &Mcp, target: &str) -> String {
    mcp.ok("browser_click", json!({"target": target})).await
}

async fn shoelace_components_are_named_and_operated_as_a_person_sees_them(w: World) {
    let app = apps::widgets(w.sb.tmp.path());
    let (mcp, snap) = open(&w, &app, "shoelace.html").await;
    // The select is named by the label its shadow root shows.
    let airport = find_ref(&snap, "combobox", "Home airport");
    let found = mcp
        .ok("browser_find", json!({"text": "Home airport"}))
        .await;
    assert!(found.contains(&format!("[ref={airport}]")), "{found}");
    let open_list = click(&mcp, &airport).await;
    let boston = find_ref(&open_list, "option", "Boston (BOS)");
    let out = click(&mcp, &boston).await;
    assert_eq!(state(&mcp).await["airport"], json!("bos"), "{out}");

    // A dialog's fields, by their labels.
    let contact = find_ref(&snap, "button", "Contact us");
    let dialog = click(&mcp, &contact).await;
    let email = find_ref(&dialog, "textbox", "Email");
    mcp.ok(
        "browser_type",
        json!({"target": email, "text": "ada@example.com"}),
    )
    .await;
    let dialog = mcp.ok("browser_snapshot", json!({})).await;
    assert!(dialog.contains("radiogroup \"Plan\""), "{dialog}");
    assert!(dialog.contains("dialog \"Contact\""), "{dialog}");
    let pro = find_ref(&dialog, "radio", "Pro");
    click(&mcp, &pro).await;
    let save = find_ref(&dialog, "button", "Save");
    let out = click(&mcp, &save).await;
    let s = state(&mcp).await;
    assert_eq!(s["email"], json!("ada@example.com"), "{out}");
    assert_eq!(s["plan"], json!("pro"), "{out}");

    // The range and the checkbox.
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let quantity = find_ref(&snap, "slider", "Quantity");
    let gift = find_ref(&snap, "checkbox", "Gift wrap");
    let out = mcp
        .ok(
            "browser_fill_form",
            json!({"fields": [
                {"target": quantity, "type": "slider", "value": "5"},
                {"target": gift, "type": "checkbox", "value": "true"},
            ]}),
        )
        .await;
    let s = state(&mcp).await;
    assert_eq!(s["quantity"], json!(5), "{out}");
    assert_eq!(s["giftWrap"], json!(true), "{out}");
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(
        snap.lines()
            .any(|l| l.contains(&format!("[ref={quantity}]")) && l.ends_with(": 5")),
        "{snap}"
    );

    // A tree item clicked while the branch above it opens (it moves down
    // as the branch grows): the click waits for it to hold still.
    let cargo = find_ref(&snap, "treeitem", "Cargo.toml");
    mcp.ok(
        "browser_evaluate",
        json!({"function": "() => { document.querySelector('#src').expanded = true; }"}),
    )
    .await;
    let out = click(&mcp, &cargo).await;
    assert_eq!(state(&mcp).await["selected"], json!("Cargo.toml"), "{out}");
}

async fn material_web_components_are_named_and_operated_as_a_person_sees_them(w: World) {
    let app = apps::widgets(w.sb.tmp.path());
    let (mcp, snap) = open(&w, &app, "material.html").await;
    let seat = find_ref(&snap, "combobox", "Seat");
    let listed = click(&mcp, &seat).await;
    let aisle = find_ref(&listed, "option", "Aisle");
    click(&mcp, &aisle).await;
    let name = find_ref(&snap, "textbox", "Full name");
    mcp.ok(
        "browser_type",
        json!({"target": name, "text": "Ada Lovelace"}),
    )
    .await;
    // The slider and the checkbox: native inputs laid over what the
    // components draw.
    let bags = find_ref(&snap, "slider", "Bags");
    let insurance = find_ref(&snap, "checkbox", "Travel insurance");
    mcp.ok(
        "browser_fill_form",
        json!({"fields": [
            {"target": bags, "type": "slider", "value": "3"},
            {"target": insurance, "type": "checkbox", "value": "true"},
        ]}),
    )
    .await;
    let s = state(&mcp).await;
    assert_eq!(s["seat"], json!("aisle"));
    assert_eq!(s["bags"], json!(3));
    assert_eq!(s["insurance"], json!(true));
    let book = find_ref(&snap, "button", "Book");
    let out = click(&mcp, &book).await;
    assert!(
        out.contains("Booked: aisle seat for Ada Lovelace, 3 bag(s)"),
        "{out}"
    );
}
