//! Golden answers: the exact text of a few representative tools on a
//! still page (tests/pages/golden.html), on both backends, pinned in
//! tests/golden/*.txt. What varies between runs (fence ids, the site's
//! port) is replaced before comparing. A deliberate change of wording is
//! taken in with `TABWIRE_BLESS=1 cargo test --test answers`, which
//! rewrites the files; review the diff like any other change. Error
//! results also name their kind for programs (`_meta`), checked here.

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(answers_keep_their_shape);

/// `answer` with its fence ids and the site's address made stable.
fn normalised(answer: &str, site: &str) -> String {
    let mut out = answer.replace(site, "http://SITE");
    for marker in ["<<page-content ", "<<end-page-content "] {
        let mut rest = out.as_str();
        let mut done = String::new();
        while let Some(i) = rest.find(marker) {
            done.push_str(&rest[..i + marker.len()]);
            rest = &rest[i + marker.len()..];
            let id_len = rest.chars().take_while(char::is_ascii_hexdigit).count();
            done.push_str("ID");
            rest = &rest[id_len..];
        }
        done.push_str(rest);
        out = done;
    }
    out
}

/// Compares `answer` with tests/golden/`name`.txt (or writes it when
/// blessing).
fn pin(name: &str, answer: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.txt"));
    if std::env::var_os("TABWIRE_BLESS").is_some() {
        std::fs::write(&path, answer).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (TABWIRE_BLESS=1 writes it)", path.display()));
    assert_eq!(
        answer,
        want,
        "{name}: the answer differs from {}",
        path.display()
    );
}

async fn answers_keep_their_shape(w: World) {
    let mcp = client(&w, "Golden").await;
    let site = w.site.url("");
    let site = site.trim_end_matches('/');
    let url = w.site.url("/pages/golden.html");
    let call = |tool: &'static str, args: serde_json::Value| {
        let mcp = &mcp;
        async move { normalised(&text_of(&mcp.call(tool, args).await), site) }
    };

    pin(
        "navigate",
        &call("browser_navigate", json!({"url": url})).await,
    );
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    pin("snapshot", &normalised(&snap, site));
    let field = find_ref(&snap, "textbox", "Customer");
    let add = find_ref(&snap, "button", "Add order");
    let archive = find_ref(&snap, "button", "Archive");
    pin(
        "type",
        &call("browser_type", json!({"target": field, "text": "Ada"})).await,
    );
    pin(
        "click",
        &call("browser_click", json!({"target": add})).await,
    );
    pin(
        "click_disabled",
        &call("browser_click", json!({"target": archive})).await,
    );
    pin(
        "wait_for",
        &call("browser_wait_for", json!({"text": "Order added for Ada"})).await,
    );
    pin("get_text", &call("browser_get_text", json!({})).await);
    pin(
        "batch",
        &call(
            "browser_batch",
            json!({"actions": [
                {"tool": "browser_type", "arguments": {"target": field, "text": "Grace"}},
                {"tool": "browser_navigate", "arguments": {"url": url}},
                {"tool": "browser_click", "arguments": {"target": "#add"}},
            ]}),
        )
        .await,
    );
    pin(
        "stale_ref",
        &call("browser_click", json!({"target": "e999"})).await,
    );

    // What went wrong, for programs: the error's kind in `_meta`.
    for (tool, args, kind) in [
        ("browser_click", json!({"target": archive}), "disabled"),
        ("browser_click", json!({"target": "e999"}), "stale_ref"),
        (
            "browser_click",
            json!({"target": "#nothing-here"}),
            "not_found",
        ),
        ("browser_click", json!({"target": 5}), "bad_arguments"),
        ("browser_fly", json!({}), "unknown_tool"),
        (
            "browser_batch",
            json!({"actions": [{"tool": "browser_click", "arguments": {"target": "e999"}}]}),
            "stale_ref",
        ),
    ] {
        let r = mcp.call(tool, args.clone()).await;
        assert_eq!(r.is_error, Some(true), "{tool} {args}");
        let got = r
            .meta
            .as_ref()
            .and_then(|m| m.0.get("tabwire/errorKind"))
            .and_then(|k| k.as_str());
        assert_eq!(got, Some(kind), "{tool} {args}: {}", text_of(&r));
    }
    // A success carries no error kind.
    let ok = mcp.call("browser_snapshot", json!({})).await;
    assert!(ok.meta.is_none(), "{:?}", ok.meta);
}
