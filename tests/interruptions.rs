//! The web's everyday interruptions, on both backends (`extension::*`
//! through the real extension and native host, `cdp::*` through the CDP
//! fallback), driven by a real MCP client: HTTP authentication challenges,
//! pages that ask to confirm leaving, popups that close themselves, and
//! navigations that fail.

#[macro_use]
mod common;

use std::time::{Duration, Instant};

use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    basic_auth_is_named_without_credentials_and_answered_only_where_configured,
    a_page_that_asks_to_confirm_leaving_does_not_hold_up_leaving,
    a_popup_that_closes_itself_leaves_the_opener_and_tab_list_right,
    failed_navigations_name_the_network_error_and_error_pages_their_status,
);

/// Without credentials the challenge is a clear error naming the site and
/// realm; with credentials for the host (flag or policy file) the page
/// opens; they are never sent to another host, nor to a denied one; a
/// wrong password is named as refused; the password shows up nowhere.
async fn basic_auth_is_named_without_credentials_and_answered_only_where_configured(w: World) {
    let area = w.site.url("/auth/area");
    let origin = w.site.base.clone();

    // No credentials: an error, at once, that says what to do.
    let bare = client(&w, "NoCredentials").await;
    let started = Instant::now();
    let e = bare
        .text("browser_navigate", json!({"url": area}))
        .await
        .unwrap_err();
    assert!(
        e.contains(&origin) && e.contains("realm \"Staff area\"") && e.contains("--credentials"),
        "{e}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // The tab stays usable.
    let ok = bare
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/page/after")}),
        )
        .await;
    assert!(ok.contains("heading \"after\""), "{ok}");
    drop(bare);

    // A wrong password (by flag): refused, said so, and not retried forever.
    // (Before any right one: a browser remembers a sign-in that worked for
    // the rest of its session, as it does for a person.)
    let wrong = client_with(
        &w,
        "WrongCredentials",
        &[
            "--credentials".into(),
            format!("127.0.0.1={}:not-it", site::AUTH_USER),
        ],
    )
    .await;
    let started = Instant::now();
    let e = wrong
        .text("browser_navigate", json!({"url": area}))
        .await
        .unwrap_err();
    assert!(e.contains("refused") && e.contains("Staff area"), "{e}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    // A click onto the page: the action happened; the answer says why the
    // page is the server's refusal.
    let out = click_dead_link(&wrong, &w, &area).await;
    assert!(
        out.contains("refused") && out.contains("Staff area"),
        "{out}"
    );
    drop(wrong);

    // Credentials from the policy file, for 127.0.0.1 only; localhost is
    // the same server under another name and gets none.
    let policy = w.sb.tmp.path().join("policy.toml");
    std::fs::write(
        &policy,
        format!(
            "credentials = [\"127.0.0.1={}:{}\"]\n",
            site::AUTH_USER,
            site::AUTH_PASSWORD
        ),
    )
    .unwrap();
    let signed = client_with(
        &w,
        "WithCredentials",
        &["--policy".into(), policy.display().to_string()],
    )
    .await;
    let page = signed.ok("browser_navigate", json!({"url": area})).await;
    assert!(page.contains("heading \"Welcome, staff\""), "{page}");
    let other = area.replace("127.0.0.1", "localhost");
    let e = signed
        .text("browser_navigate", json!({"url": other}))
        .await
        .unwrap_err();
    assert!(
        e.contains("localhost") && e.contains("Staff area") && e.contains("no credentials"),
        "{e}"
    );
    let status = signed.ok("browser_status", json!({})).await;
    assert!(status.contains("credentials for: 127.0.0.1"), "{status}");
    let seen = w.site.requests();
    assert!(
        seen.iter()
            .any(|r| r.starts_with("127.0.0.1:") && r.contains("/auth/area Basic ")),
        "{seen:?}"
    );
    assert!(
        !seen
            .iter()
            .any(|r| r.starts_with("localhost:") && r.contains("Basic")),
        "credentials went to another host: {seen:?}"
    );
    drop(signed);

    // Credentials for a host the policy denies are never used, not even
    // for a frame of an allowed page.
    let guarded = client_with(
        &w,
        "DeniedCredentials",
        &[
            "--credentials".into(),
            format!("localhost={}:{}", site::AUTH_USER, site::AUTH_PASSWORD),
            "--deny-domain".into(),
            "localhost".into(),
        ],
    )
    .await;
    let framed = guarded
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/auth-frame")}),
        )
        .await;
    assert!(framed.contains("Outer"), "{framed}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let seen = w.site.requests();
    assert!(
        !seen
            .iter()
            .any(|r| r.starts_with("localhost:") && r.contains("Basic")),
        "credentials went to a denied host: {seen:?}"
    );
    drop(guarded);

    // The password is in no log and no audit line.
    let out = std::process::Command::new(BIN)
        .args(["audit", "--tail", "200"])
        .env("TABWIRE_DATA_DIR", w.sb.data_dir())
        .output()
        .unwrap();
    let audit = String::from_utf8_lossy(&out.stdout);
    assert!(audit.contains("browser_navigate"), "{audit}");
    for (name, text) in std::fs::read_dir(w.sb.tmp.path())
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "log"))
        .map(|e| {
            (
                e.path(),
                std::fs::read_to_string(e.path()).unwrap_or_default(),
            )
        })
        .chain([(std::path::PathBuf::from("audit"), audit.to_string())])
    {
        assert!(
            !text.contains(site::AUTH_PASSWORD) && !text.contains("not-it"),
            "a password in {}",
            name.display()
        );
    }
}

/// A page with a `beforeunload` handler (and a user who typed into it):
/// navigate, back and reload leave it at once and say it asked; a click
/// on a link reports the question like any dialog, and the answer decides.
async fn a_page_that_asks_to_confirm_leaving_does_not_hold_up_leaving(w: World) {
    let mcp = client(&w, "Leaver").await;
    let leave = w.site.url("/leave");

    dirty(&mcp, &leave).await;
    let started = Instant::now();
    let out = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/page/next")}))
        .await;
    assert!(
        out.contains("heading \"next\"") && out.contains("asked to confirm leaving"),
        "{out}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );

    // Back onto it, make it dirty again, then back and reload.
    dirty(&mcp, &leave).await;
    let started = Instant::now();
    let back = mcp.ok("browser_navigate_back", json!({})).await;
    assert!(
        back.contains("next") && back.contains("asked to confirm leaving"),
        "{back}"
    );
    dirty(&mcp, &leave).await;
    let reloaded = mcp.ok("browser_reload", json!({})).await;
    assert!(reloaded.contains("asked to confirm leaving"), "{reloaded}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );

    // A click that would leave: the question is the agent's to answer.
    let snap = dirty(&mcp, &leave).await;
    let out = mcp
        .ok(
            "browser_click",
            json!({"target": find_ref(&snap, "link", "Elsewhere")}),
        )
        .await;
    assert!(out.contains("beforeunload dialog is open"), "{out}");
    let stayed = mcp
        .ok("browser_handle_dialog", json!({"accept": false}))
        .await;
    assert!(
        stayed.contains("Dismissed the beforeunload dialog"),
        "{stayed}"
    );
    assert_eq!(eval_json(&mcp, "() => location.pathname").await, "/leave");
    let out = mcp
        .ok(
            "browser_click",
            json!({"target": find_ref(&snap, "link", "Elsewhere")}),
        )
        .await;
    assert!(out.contains("beforeunload dialog is open"), "{out}");
    let left = mcp
        .ok("browser_handle_dialog", json!({"accept": true}))
        .await;
    assert!(left.contains("heading \"elsewhere\""), "{left}");

    // Closing the tab does not wait on the question either.
    dirty(&mcp, &leave).await;
    let started = Instant::now();
    mcp.ok("browser_close", json!({})).await;
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    assert!(!list.contains("Unsaved"), "{list}");
}

/// Opens `url` (the page that asks to confirm leaving) and types into it,
/// which is the user activation browsers want before they ask.
/// Opens a page whose one link goes to `to` and clicks it; the answer.
async fn click_dead_link(mcp: &Mcp, w: &World, to: &str) -> String {
    let snap = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url(&format!("/dead-links?to={to}"))}),
        )
        .await;
    mcp.ok(
        "browser_click",
        json!({"target": find_ref(&snap, "link", "Dead link")}),
    )
    .await
}

async fn dirty(mcp: &Mcp, url: &str) -> String {
    let snap = mcp.ok("browser_navigate", json!({"url": url})).await;
    mcp.ok(
        "browser_type",
        json!({"target": find_ref(&snap, "textbox", "Draft"), "text": "unsaved"}),
    )
    .await;
    snap
}

/// A sign-in popup that posts its answer to the opener and closes itself,
/// slowly or at once: the click answers without error, the opener got
/// the message, the tab list holds only live tabs, and the opener stays
/// the current tab.
async fn a_popup_that_closes_itself_leaves_the_opener_and_tab_list_right(w: World) {
    let mcp = client(&w, "Popups").await;
    let snap = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/oauth")}))
        .await;
    for (button, closes_in) in [("Sign in", 300), ("Quick sign in", 0)] {
        eval_json(
            &mcp,
            "() => document.querySelector('#status').textContent = 'signed out'",
        )
        .await;
        let out = mcp
            .ok(
                "browser_click",
                json!({"target": find_ref(&snap, "button", button)}),
            )
            .await;
        assert!(!out.contains("rror"), "{button}: {out}");
        // Either the popup was still open when the answer was made, or the
        // answer says it closed itself; never a tab that is gone.
        assert!(
            out.contains("opened a new tab") || out.contains("closed itself") || closes_in == 0,
            "{button}: {out}"
        );
        // The popup closes itself; the opener heard from it.
        let mut text = String::new();
        for _ in 0..100 {
            text = mcp.ok("browser_get_text", json!({})).await;
            if text.contains("signed in as alice") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(text.contains("signed in as alice"), "{button}: {text}");
        tokio::time::sleep(Duration::from_millis(closes_in + 300)).await;
        let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
        assert!(!list.contains("Authorize"), "{button}: {list}");
        assert!(list.contains("/oauth"), "{button}: {list}");
        let again = mcp.ok("browser_snapshot", json!({})).await;
        assert!(again.contains("signed in as alice"), "{button}: {again}");
    }
    // The agent switches to the popup while it is open; it closes under
    // the agent's feet: a clear error, then the opener is there to pick.
    let out = mcp
        .ok(
            "browser_click",
            json!({"target": find_ref(&snap, "button", "Sign in")}),
        )
        .await;
    assert!(!out.contains("rror"), "{out}");
    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    if list.lines().filter(|l| l.contains("http")).count() > 1 {
        let picked = mcp
            .text("browser_tabs", json!({"action": "select", "index": 1}))
            .await;
        tokio::time::sleep(Duration::from_millis(1000)).await;
        if picked.is_ok() {
            let e = mcp.text("browser_snapshot", json!({})).await.unwrap_err();
            assert!(e.contains("was closed"), "{e}");
        }
    }
    tokio::time::sleep(Duration::from_millis(1000)).await;
    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    assert!(!list.contains("Authorize"), "{list}");
    mcp.ok("browser_tabs", json!({"action": "select", "index": 0}))
        .await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(snap.contains("Sign in"), "{snap}");
}

/// Navigations that fail are errors naming the network error; an error
/// page the server sends is a page, returned with its HTTP status; a click
/// onto a dead link says why the page is the browser's error page.
async fn failed_navigations_name_the_network_error_and_error_pages_their_status(w: World) {
    let mcp = client(&w, "Failures").await;
    let refused = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://127.0.0.1:{}/", l.local_addr().unwrap().port())
    };
    for (url, error) in [
        (refused.as_str(), "net::ERR_CONNECTION_REFUSED"),
        ("http://nonexistent.invalid/", "net::ERR_NAME_NOT_RESOLVED"),
    ] {
        let started = Instant::now();
        let e = mcp
            .text("browser_navigate", json!({"url": url}))
            .await
            .unwrap_err();
        assert!(e.contains(error) && e.contains(url), "{e}");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        // The tab is not left in a state tools refuse.
        // (It shows the browser's error page.)
        let snap = mcp.ok("browser_snapshot", json!({})).await;
        assert!(snap.contains("heading"), "{snap}");
    }

    let missing = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/missing")}))
        .await;
    assert!(
        missing.contains("heading \"No such page\"") && missing.contains("HTTP 404"),
        "{missing}"
    );
    let empty = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/empty-404")}))
        .await;
    assert!(
        empty.contains("HTTP 404") && empty.contains("empty"),
        "{empty}"
    );
    // The browser's error page is named by the URL that failed.
    assert!(
        empty.contains("/empty-404, not loaded)") && !empty.contains("chrome-error://"),
        "{empty}"
    );
    let fine = mcp
        .ok("browser_navigate", json!({"url": w.site.url("/page/fine")}))
        .await;
    assert!(!fine.contains("HTTP "), "{fine}");

    let out = click_dead_link(&mcp, &w, &refused).await;
    assert!(out.contains("net::ERR_CONNECTION_REFUSED"), "{out}");
    assert!(!out.contains("chrome-error://"), "{out}");
}
