//! A real documentation theme, installed from PyPI (mkdocs-material) and
//! built here, in a 780 px window where its navigation lives in a closed
//! drawer: a click on a link in the closed drawer is an error that says
//! what to do, the icon-only menu button (a label holding an SVG) has a
//! ref, opening the drawer shows its links, and the theme's instant
//! navigation (history API) is reported with the URL it moved to.
//! Needs `python3 -m mkdocs` (`pip install mkdocs-material`; .ci/run
//! installs it).

#[macro_use]
mod common;

use common::docs_site::{self, DocsSite};
use common::gif_frames;
use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    every_page_of_a_real_docs_theme_answers_once_loaded_and_search_finds,
    a_closed_drawer_of_a_real_docs_theme_is_opened_not_clicked_through,
    a_trace_of_a_real_docs_page_names_its_largest_paint,
    the_drawer_of_a_real_docs_theme_opens_by_coordinates,
    a_recording_of_a_real_docs_theme_shows_its_drawer_opening,
);

/// The guide site: three pages, instant navigation (history API).
fn build_docs(dir: &std::path::Path) -> DocsSite {
    docs_site::build(
        dir,
        "site_name: Tidepool Guide\ntheme:\n  name: material\n  font: false\n  features:\n    - navigation.instant\n\
         nav:\n  - Home: index.md\n  - Field guide: guide.md\n  - About us: about.md\n",
        &[
            ("index.md", "# Welcome\n\nTidepools hold life.\n"),
            ("guide.md", "# Field guide\n\nAnemones and crabs.\n"),
            ("about.md", "# About us\n\nWe count crabs.\n"),
        ],
    )
}

/// Every page of the theme starts a Web Worker for its search; its
/// script's request ends on the worker's own target, which held every
/// navigation for the whole 5 s cap. Each page answers once loaded (the
/// times are printed; over 2 s fails, as a guard against waiting for the
/// worker, not as a benchmark), and the worker's search works.
async fn every_page_of_a_real_docs_theme_answers_once_loaded_and_search_finds(w: World) {
    // No web fonts: this machine has no network (a font host that cannot
    // be reached is not what is measured here).
    let site = docs_site::build(
        &w.sb.tmp.path().join("mkdocs-worker"),
        "site_name: Tidepool Guide\ntheme:\n  name: material\n  font: false\n  features:\n    - navigation.instant\n\
         nav:\n  - Home: index.md\n  - Field guide: guide.md\n  - About us: about.md\n",
        &[
            ("index.md", "# Welcome\n\nTidepools hold life.\n"),
            ("guide.md", "# Field guide\n\nAnemones and crabs.\n"),
            ("about.md", "# About us\n\nWe count barnacles.\n"),
        ],
    );
    let mcp = client(&w, "Docs reader").await;
    for round in 0..2 {
        for page in ["", "guide/", "about/"] {
            let t = std::time::Instant::now();
            let out = mcp
                .ok(
                    "browser_navigate",
                    json!({"url": format!("{}/{page}", site.base)}),
                )
                .await;
            let took = t.elapsed();
            eprintln!(
                "mkdocs-material /{page} (round {round}): {} ms",
                took.as_millis()
            );
            assert!(!out.contains("Still loading"), "{out}");
            assert!(
                took < std::time::Duration::from_secs(2),
                "/{page} took {took:?}: {out}"
            );
        }
    }
    // The search box (in a wide window; the worker answers it) finds
    // the page that says it. The theme searches on key presses, so it is
    // typed key by key, as a person types.
    mcp.ok("browser_resize", json!({"width": 1280, "height": 800}))
        .await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let search = find_ref(&snap, "textbox", "Search");
    let typed = mcp
        .ok(
            "browser_type",
            json!({"target": search, "text": "anemones", "slowly": true}),
        )
        .await;
    if !typed.contains("matching document") {
        mcp.ok("browser_wait_for", json!({"text": "matching document"}))
            .await;
    }
    let found = mcp.ok("browser_snapshot", json!({})).await;
    assert!(found.contains("1 matching document"), "{typed}\n{found}");
    assert!(found.contains("link \"Field guide"), "{found}");
}

/// The site's home page in a 780 px window (its navigation in the closed
/// drawer); its snapshot.
async fn open_narrow(mcp: &Mcp, site: &DocsSite) -> String {
    mcp.ok(
        "browser_navigate",
        json!({"url": format!("{}/", site.base)}),
    )
    .await;
    mcp.ok("browser_resize", json!({"width": 780, "height": 700}))
        .await;
    mcp.ok("browser_snapshot", json!({})).await
}

async fn a_closed_drawer_of_a_real_docs_theme_is_opened_not_clicked_through(w: World) {
    let site = build_docs(&w.sb.tmp.path().join("mkdocs"));
    let mcp = client(&w, "Docs reader").await;
    let snap = open_narrow(&mcp, &site).await;
    assert!(snap.contains("heading \"Welcome\""), "{snap}");
    // The drawer is closed: its links are not what a person sees.
    assert!(!snap.contains("link \"Field guide\""), "{snap}");
    let miss = mcp
        .text(
            "browser_click",
            json!({"target": ".md-nav--primary a[href*='guide']"}),
        )
        .await
        .unwrap_err();
    assert!(miss.contains("outside the visible area"), "{miss}");
    // The menu button is a label holding only an SVG: it has a ref.
    let menu = find_ref(&snap, "clickable", "drawer (name guessed from its id)");
    let opened = mcp.ok("browser_click", json!({"target": menu})).await;
    let guide = find_ref(&opened, "link", "Field guide");
    let went = mcp.ok("browser_click", json!({"target": guide})).await;
    // Instant navigation moves within the document: named by where it went.
    assert!(went.contains("/guide/"), "{went}");
    assert!(
        !went.contains(&format!("moved to {}/ within", site.base)),
        "named the old URL: {went}"
    );
    let text = mcp.ok("browser_get_text", json!({})).await;
    assert!(text.contains("Anemones and crabs."), "{text}");
}

/// `serve --caps devtools` on the real theme: a trace of the page's load
/// names the element of its largest paint (the theme's own markup) and
/// the stylesheets that held the first paint back.
async fn a_trace_of_a_real_docs_page_names_its_largest_paint(w: World) {
    let site = build_docs(&w.sb.tmp.path().join("mkdocs-trace"));
    let mcp = client_with(&w, "Docs tracer", &["--caps".into(), "devtools".into()]).await;
    mcp.ok(
        "browser_navigate",
        json!({"url": format!("{}/guide/", site.base)}),
    )
    .await;
    let out = mcp
        .ok("browser_start_tracing", json!({"reload": true}))
        .await;
    let lcp = out
        .lines()
        .find(|l| l.starts_with("- Largest contentful paint:"))
        .unwrap_or_else(|| panic!("no LCP line: {out}"));
    assert!(
        lcp.contains("from the navigation's start") && lcp.contains(": <"),
        "the largest paint's element is named: {out}"
    );
    // The theme's stylesheets block rendering.
    assert!(
        out.contains("Render-blocking requests (the page could not paint") && out.contains(".css"),
        "{out}"
    );
}

/// `serve --caps vision` on the real theme: the icon-only menu button,
/// pressed at its place in a screenshot, opens the drawer; the answer
/// names the element the click reached and shows the drawer's links.
async fn the_drawer_of_a_real_docs_theme_opens_by_coordinates(w: World) {
    let site = build_docs(&w.sb.tmp.path().join("mkdocs-vision"));
    let mcp = client_with(&w, "Docs pointer", &["--caps".into(), "vision".into()]).await;
    let snap = open_narrow(&mcp, &site).await;
    assert!(
        !snap.contains("link \"Field guide\""),
        "the drawer starts closed: {snap}"
    );
    mcp.ok("browser_take_screenshot", json!({})).await;
    // Where the button is in the screenshot, as a model reads it off the
    // image (here asked of the page, in the image's pixels).
    let at = eval_json(
        &mcp,
        "() => { const r = document.querySelector('.md-header label[for=__drawer]').getBoundingClientRect(); \
         return [Math.round((r.left + r.width / 2) * devicePixelRatio), \
                 Math.round((r.top + r.height / 2) * devicePixelRatio)]; }",
    )
    .await;
    let out = mcp
        .ok(
            "browser_mouse_click_xy",
            json!({"x": at[0], "y": at[1], "element": "menu button"}),
        )
        .await;
    assert!(
        out.contains("<label>"),
        "the answer names the label the click reached: {out}"
    );
    assert!(
        out.contains("link \"Field guide\""),
        "the drawer's links are shown: {out}"
    );
}

/// `serve --caps devtools` on the real theme: a recording of opening the
/// drawer saves a GIF in which the page behind the drawer darkens (the
/// theme's overlay) after the first frame.
async fn a_recording_of_a_real_docs_theme_shows_its_drawer_opening(w: World) {
    let site = build_docs(&w.sb.tmp.path().join("mkdocs-video"));
    let mcp = client_with(&w, "Docs recorder", &["--caps".into(), "devtools".into()]).await;
    let snap = open_narrow(&mcp, &site).await;
    mcp.ok("browser_start_video", json!({})).await;
    let menu = find_ref(&snap, "clickable", "drawer (name guessed from its id)");
    let opened = mcp.ok("browser_click", json!({"target": menu})).await;
    assert!(opened.contains("link \"Field guide\""), "{opened}");
    // The drawer slides in over a quarter second.
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let out = mcp.ok("browser_stop_video", json!({})).await;
    let bytes = gif_frames::saved_gif(&out);
    // A point of the page's text column, right of where the drawer ends:
    // light at first, dimmed by the overlay at the end.
    let width = u16::from_le_bytes([bytes[6], bytes[7]]) as usize;
    let seen = gif_frames::colours_at(&bytes, width - 40, 400);
    let light = |c: &[u8; 3]| c.iter().map(|&v| v as u32).sum::<u32>();
    let (first, last) = (seen[0], seen[seen.len() - 1]);
    assert!(
        seen.len() >= 2 && light(&first) > light(&last) + 150,
        "the page darkens behind the drawer: {seen:?}\n{out}"
    );
}
