//! The `emulation` group (`serve --caps emulation`) on both backends: a
//! page reads the emulated device, user agent, color scheme, time zone,
//! locale and position after a reload and a navigation; every page answer
//! names what is on; reset takes it all off; read-only refuses it; and a
//! real documentation theme (Material for MkDocs, from PyPI) follows the
//! emulated dark scheme and phone.

#[macro_use]
mod common;

use common::docs_site::{self, DocsSite};
use common::world::*;
use serde_json::json;

on_both_backends!(
    a_page_reads_what_the_tab_emulates,
    a_real_docs_theme_follows_the_dark_scheme_and_the_phone
);

/// The facts the fixture page lists, as `key=value` lines of the snapshot.
fn fact<'a>(snap: &'a str, key: &str) -> &'a str {
    let prefix = format!("- text: {key}=");
    snap.lines()
        .find_map(|l| l.trim().strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("no {key} in {snap}"))
}

async fn a_page_reads_what_the_tab_emulates(w: World) {
    // Off by default: not listed, and a call says how to switch it on.
    let plain = client(&w, "plain").await;
    let listed = plain.client.list_all_tools().await.unwrap();
    assert!(!listed.iter().any(|t| t.name.starts_with("browser_emulate")));
    let err = plain
        .text("browser_emulate", json!({"device": "iPhone 13"}))
        .await
        .unwrap_err();
    assert!(err.contains("--caps emulation"), "{err}");
    drop(plain);

    // Read-only refuses emulation: it changes what a page does.
    let ro = client_with(
        &w,
        "ro",
        &["--caps".into(), "emulation".into(), "--read-only".into()],
    )
    .await;
    let err = ro
        .text("browser_emulate_media", json!({"colorScheme": "dark"}))
        .await
        .unwrap_err();
    assert!(err.contains("read-only"), "{err}");
    drop(ro);

    let mcp = client_with(&w, "emulation", &["--caps".into(), "emulation".into()]).await;
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(status.contains("groups of tools: emulation"), "{status}");
    let page = w.site.url("/pages/emulation.html");
    let before = mcp.ok("browser_navigate", json!({"url": page})).await;
    assert!(!before.contains("Emulating:"), "{before}");
    assert_eq!(fact(&before, "dark"), "false");
    let own_width = fact(&before, "width").to_string();
    let own_agent = fact(&before, "agent").to_string();
    assert!(before.contains("Wide menu shown"), "{before}");

    // The answer says what changed on the page and names what is on.
    let set = mcp
        .ok(
            "browser_emulate",
            json!({
                "device": "iPhone 13",
                "timezone": "Pacific/Auckland",
                "locale": "de-DE",
                "geolocation": {"latitude": 52.52, "longitude": 13.405},
            }),
        )
        .await;
    assert!(
        set.contains("Emulating: iPhone 13 (390x844, touch), Pacific/Auckland, locale de-DE"),
        "{set}"
    );
    assert!(
        set.contains("Phone menu shown") && set.contains("removed"),
        "the narrow layout shows in the change report: {set}"
    );
    let dark = mcp
        .ok("browser_emulate_media", json!({"colorScheme": "dark"}))
        .await;
    assert!(dark.contains("Dark theme shown"), "{dark}");
    assert!(dark.contains("(390x844, touch), dark,"), "{dark}");

    // A reload: the page reads all of it from its start.
    let after = mcp.ok("browser_reload", json!({})).await;
    assert!(after.contains("Emulating: iPhone 13"), "{after}");
    assert_eq!(fact(&after, "width"), "390");
    assert_eq!(fact(&after, "ratio"), "3");
    assert_eq!(fact(&after, "touch"), "5");
    assert_eq!(fact(&after, "dark"), "true");
    assert_eq!(fact(&after, "zone"), "Pacific/Auckland");
    assert_eq!(fact(&after, "language"), "de-DE");
    assert!(fact(&after, "agent").contains("iPhone"), "{after}");

    // Another page (another origin): still emulated, and every page
    // answer, not only snapshots, names it.
    let other = page.replace("127.0.0.1", "localhost");
    let moved = mcp.ok("browser_navigate", json!({"url": other})).await;
    assert_eq!(fact(&moved, "width"), "390");
    assert_eq!(fact(&moved, "dark"), "true");
    let waited = mcp
        .ok("browser_wait_for", json!({"text": "Phone menu"}))
        .await;
    assert!(waited.contains("Emulating: iPhone 13"), "{waited}");

    // The page reads the emulated position through navigator.geolocation.
    // Through the extension the browser does not let tabwire grant the
    // permission (`chrome.debugger` has no Browser domain): the answer
    // says so; a person answers the site's prompt.
    if w.via == Via::Cdp {
        let geo = mcp
            .ok("browser_wait_for", json!({"text": "geo: 52.52,13.405"}))
            .await;
        assert!(geo.contains("Emulating"), "{geo}");
    } else {
        assert!(
            set.contains("only where the user allowed location"),
            "{set}"
        );
    }

    // Media features one by one: null takes one off, others stay.
    let motion = mcp
        .ok("browser_emulate_media", json!({"reducedMotion": "reduce"}))
        .await;
    assert!(
        motion.contains("dark, prefers-reduced-motion: reduce"),
        "{motion}"
    );
    let light = mcp
        .ok("browser_emulate_media", json!({"colorScheme": null}))
        .await;
    assert!(light.contains("Light theme shown"), "{light}");
    assert!(!light.contains(", dark,"), "{light}");
    assert!(light.contains("prefers-reduced-motion: reduce"), "{light}");

    // CPU throttling: the browser takes it (a refusal is an error).
    let slow = mcp.ok("browser_emulate", json!({"cpuThrottling": 4})).await;
    assert!(slow.contains("CPU 4x slower"), "{slow}");

    // Nothing given, a preset that does not exist: said so.
    let err = mcp.text("browser_emulate", json!({})).await.unwrap_err();
    assert!(err.contains("nothing to emulate"), "{err}");
    let err = mcp
        .text("browser_emulate", json!({"device": "Nokia 3310"}))
        .await
        .unwrap_err();
    assert!(err.contains("iPhone 13, Pixel 7"), "{err}");

    // Reset: everything off, the page line says nothing, a reload shows
    // the browser's own device again.
    let reset = mcp.ok("browser_emulate", json!({"reset": true})).await;
    assert!(!reset.contains("Emulating:"), "{reset}");
    assert!(reset.contains("Took all emulation off"), "{reset}");
    let back = mcp.ok("browser_reload", json!({})).await;
    assert!(!back.contains("Emulating:"), "{back}");
    assert_eq!(fact(&back, "width"), own_width);
    assert_eq!(fact(&back, "agent"), own_agent);
    assert_eq!(fact(&back, "dark"), "false");
    assert_eq!(fact(&back, "reduced"), "false");
    assert_eq!(fact(&back, "zone"), fact(&before, "zone"));
    assert_eq!(fact(&back, "language"), fact(&before, "language"));
}

/// A Material for MkDocs site with a light and a dark palette, each
/// chosen by prefers-color-scheme. No web fonts: this machine has no
/// network, and text waiting for a font host that cannot be reached is
/// not painted (the font's block period), which a navigate that no longer
/// waits 5 s for the theme's worker shows as it is.
fn build_docs(dir: &std::path::Path) -> DocsSite {
    docs_site::build(
        dir,
        "site_name: Tidepool Guide\n\
         theme:\n  name: material\n  font: false\n  palette:\n\
         \x20   - media: \"(prefers-color-scheme: light)\"\n      scheme: default\n\
         \x20     toggle:\n        icon: material/brightness-7\n        name: Switch to dark mode\n\
         \x20   - media: \"(prefers-color-scheme: dark)\"\n      scheme: slate\n\
         \x20     toggle:\n        icon: material/brightness-4\n        name: Switch to light mode\n\
         nav:\n  - Home: index.md\n  - Field guide: guide.md\n",
        &[
            ("index.md", "# Welcome\n\nTidepools hold life.\n"),
            ("guide.md", "# Field guide\n\nAnemones.\n"),
        ],
    )
}

async fn a_real_docs_theme_follows_the_dark_scheme_and_the_phone(w: World) {
    let site = build_docs(&w.sb.tmp.path().join("mkdocs"));
    let mcp = client_with(&w, "docs", &["--caps".into(), "emulation".into()]).await;
    mcp.ok(
        "browser_navigate",
        json!({"url": format!("{}/", site.base)}),
    )
    .await;
    mcp.ok(
        "browser_emulate",
        json!({"viewport": {"width": 1280, "height": 800}}),
    )
    .await;
    let wide = mcp.ok("browser_reload", json!({})).await;
    assert!(wide.contains("Emulating: viewport 1280x800"), "{wide}");
    // The light palette offers the dark one; the sidebar shows the pages.
    assert!(wide.contains("Switch to dark mode"), "{wide}");
    assert!(!wide.contains("Switch to light mode"), "{wide}");
    assert!(wide.contains("link \"Field guide\""), "{wide}");
    let scheme = eval_json(&mcp, "() => document.body.dataset.mdColorScheme").await;
    assert_eq!(scheme, json!("default"));

    // The theme keeps the palette it chose in the origin's storage, so the
    // dark visit is a first one: the same site under another host name.
    mcp.ok("browser_emulate_media", json!({"colorScheme": "dark"}))
        .await;
    let dark = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/", site.base.replace("127.0.0.1", "localhost"))}),
        )
        .await;
    assert!(dark.contains("Switch to light mode"), "{dark}");
    assert!(!dark.contains("Switch to dark mode"), "{dark}");
    let scheme = eval_json(&mcp, "() => document.body.dataset.mdColorScheme").await;
    assert_eq!(scheme, json!("slate"), "the theme chose its dark palette");

    // A phone (its own size: a device given alone drops the viewport):
    // the sidebar folds into the closed drawer.
    mcp.ok("browser_emulate", json!({"device": "Pixel 7"}))
        .await;
    let phone = mcp.ok("browser_reload", json!({})).await;
    assert!(phone.contains("Emulating: Pixel 7"), "{phone}");
    assert!(!phone.contains("link \"Field guide\""), "{phone}");
    let width = eval_json(&mcp, "() => innerWidth").await;
    assert_eq!(width, json!(412));
}
