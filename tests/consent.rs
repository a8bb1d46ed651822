//! Sites need the user's yes (`serve --confirm-sites`, issue 16): the
//! extension asks in a window of its own before a client first opens or
//! acts on a site; Allow once, Always (listed and revocable on the options
//! page) and Deny do what they say, an unanswered question times out, and
//! the domain policy still wins. Real Chromium, real extension, native host
//! registered by `tabwire install`, real `tabwire serve`s and MCP clients;
//! the test answers the question as the user would, by clicking it.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::install_env::*;
use common::ui::{click, keep_screenshot, page_text};
use common::*;
use serde_json::json;

const ASKING: [&str; 5] = [
    "--backend",
    "extension",
    "--connect-timeout",
    "30",
    "--confirm-sites",
];

/// The questions the extension has open (its confirm.html windows).
fn questions(browser: &PipeChromium) -> Vec<String> {
    let targets = browser
        .call(None, "Target.getTargets", json!({}))
        .expect("Target.getTargets");
    targets["targetInfos"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t["type"] == "page"
                && t["url"]
                    .as_str()
                    .unwrap_or("")
                    .starts_with(&format!("{EXTENSION_ORIGIN}confirm.html"))
        })
        .map(|t| t["targetId"].as_str().unwrap().to_string())
        .collect()
}

/// Waits for the extension's question and attaches to it.
async fn question(browser: &PipeChromium) -> Page {
    let deadline = Instant::now() + Duration::from_secs(15);
    loop {
        if let Some(target_id) = questions(browser).into_iter().next() {
            let s = browser
                .call(
                    None,
                    "Target.attachToTarget",
                    json!({"targetId": target_id, "flatten": true}),
                )
                .expect("attach to the question");
            return Page {
                target_id,
                session_id: s["sessionId"].as_str().unwrap().to_string(),
            };
        }
        assert!(Instant::now() < deadline, "the extension never asked");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn no_question_left(browser: &PipeChromium) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !questions(browser).is_empty() {
        assert!(Instant::now() < deadline, "a question is still open");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn navigate(mcp: &Arc<Mcp>, url: String) -> tokio::task::JoinHandle<rmcp::model::CallToolResult> {
    let mcp = mcp.clone();
    tokio::spawn(async move {
        mcp.call_with_progress("browser_navigate", json!({"url": url}))
            .await
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_needs_the_users_yes_always_once_or_no() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);
    let alice = Arc::new(Mcp::start(&sb, "Alice Agent", &ASKING).await);
    let bob = Arc::new(Mcp::start(&sb, "Bob Bot", &ASKING).await);

    // Alice's first page on the site waits for the user, and says so.
    let call = navigate(&alice, site.url("/page/First"));
    let q = question(&browser).await;
    page_text(&browser, &q, "the question", |t| {
        t.contains("Alice Agent") && t.contains("127.0.0.1") && t.contains("Always for this site")
    })
    .await;
    keep_screenshot(&browser.screenshot(&q), "consent-question.png");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    click(&browser, &q, "button[data-answer=always]");
    let r = call.await.unwrap();
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    assert!(text_of(&r).contains("First"), "{}", text_of(&r));
    let progress = alice.progress.lock().unwrap().clone();
    assert!(
        progress.iter().any(|p| p
            .message
            .as_deref()
            .is_some_and(|m| m.contains("waiting for the user to allow 127.0.0.1"))),
        "{progress:?}"
    );
    no_question_left(&browser).await;
    // Always: the next page of the site is not asked about.
    alice
        .ok("browser_navigate", json!({"url": site.url("/page/Second")}))
        .await;
    assert!(questions(&browser).is_empty());

    // Bob was never allowed: he is asked, and the user says no.
    let call = navigate(&bob, site.url("/page/ForBob"));
    let q = question(&browser).await;
    page_text(&browser, &q, "Bob's question", |t| t.contains("Bob Bot")).await;
    click(&browser, &q, "button[data-answer=deny]");
    let r = call.await.unwrap();
    assert_eq!(r.is_error, Some(true));
    let err = text_of(&r);
    assert!(
        err.contains("the user did not allow Bob Bot to use 127.0.0.1") && err.contains("Deny"),
        "{err}"
    );
    no_question_left(&browser).await;

    // The options page lists Alice's "always"; the user revokes it.
    let options = browser.open(&format!("{EXTENSION_ORIGIN}options.html"));
    page_text(&browser, &options, "the allowed site", |t| {
        t.contains("Sites you allowed") && t.contains("127.0.0.1")
    })
    .await;
    keep_screenshot(&browser.screenshot(&options), "options-allowed-sites.png");
    click(
        &browser,
        &options,
        "tr[data-client=\"Alice Agent\"][data-site=\"127.0.0.1\"] button[data-action=revoke]",
    );
    page_text(&browser, &options, "no allowed site", |t| {
        t.contains("Sites you allowed") && t.contains("None.")
    })
    .await;

    // Asked again; "Allow once" covers the rest of this client's run.
    let call = navigate(&alice, site.url("/page/Third"));
    let q = question(&browser).await;
    page_text(&browser, &q, "the question again", |t| {
        t.contains("Alice Agent")
    })
    .await;
    click(&browser, &q, "button[data-answer=once]");
    let r = call.await.unwrap();
    assert_ne!(r.is_error, Some(true), "{}", text_of(&r));
    alice
        .ok("browser_navigate", json!({"url": site.url("/page/Fourth")}))
        .await;
    assert!(questions(&browser).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_question_times_out_and_the_deny_list_still_wins() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);

    // Calls may take 5 s here, so the question waits about 3 s.
    let carol = Mcp::start(
        &sb,
        "Carol",
        &[&ASKING[..], &["--call-timeout", "5"]].concat(),
    )
    .await;
    let started = Instant::now();
    let err = carol
        .text("browser_navigate", json!({"url": site.url("/page/Late")}))
        .await
        .unwrap_err();
    assert!(err.contains("did not answer"), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
    no_question_left(&browser).await;

    // A denied domain is refused outright: nobody is asked to allow it.
    let dave = Mcp::start(
        &sb,
        "Dave",
        &[&ASKING[..], &["--deny-domain", "127.0.0.1"]].concat(),
    )
    .await;
    let err = dave
        .text("browser_navigate", json!({"url": site.url("/page/Denied")}))
        .await
        .unwrap_err();
    assert!(
        err.contains("127.0.0.1") && !err.contains("did not allow"),
        "{err}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        questions(&browser).is_empty(),
        "the user was asked about a denied site"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stop_all_ends_a_call_waiting_for_the_users_yes_and_closes_the_question() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let browser = PipeChromium::launch(&sb, &[]);
    let erin = Arc::new(Mcp::start(&sb, "Erin", &ASKING).await);
    let call = navigate(&erin, site.url("/page/Waiting"));
    question(&browser).await;

    let popup = browser.open(&format!("{EXTENSION_ORIGIN}popup.html"));
    page_text(&browser, &popup, "Stop all", |t| t.contains("Stop all")).await;
    click(&browser, &popup, "button[data-action=stop-all]");
    let r = tokio::time::timeout(Duration::from_secs(5), call)
        .await
        .expect("the waiting call did not end at once")
        .unwrap();
    assert_eq!(r.is_error, Some(true));
    assert!(
        text_of(&r).contains("stopped by the user"),
        "{}",
        text_of(&r)
    );
    no_question_left(&browser).await;
}
