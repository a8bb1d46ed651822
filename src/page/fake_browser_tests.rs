//! The page layer against a browser that is not there
//! ([`crate::backend::fake::FakeBrowser`]): what tabwire asks of the
//! browser, and what it makes of the answers, in milliseconds. Real
//! browsers are the end-to-end tests' job.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::{Client, Tab};
use crate::backend::fake::{plain_page, Answer, FakeBrowser};
use crate::backend::{Backend, BackendError, TabId};
use crate::error::ErrorKind;
use crate::page::navigation::socket_replies::SOCKET_CAP;
use crate::policy::Policy;

/// A client of `browser` under `policy`.
fn client(browser: Arc<FakeBrowser>, policy: Policy) -> Client {
    Client::new(browser as Arc<dyn Backend>, Arc::new(policy))
}

/// A page at `url` that answers the setup and nothing else.
fn page(url: &'static str) -> Arc<FakeBrowser> {
    Arc::new(FakeBrowser::with_tab(url, move |_, m, _| {
        plain_page(m, url)
    }))
}

/// A plain page at a.example, the client's current tab, its events
/// flowing.
async fn watched_page() -> (Arc<FakeBrowser>, Client, TabId) {
    let browser = page("https://a.example/");
    let s = client(browser.clone(), Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    s.on(tab).ensure_tab_events().await.unwrap();
    (browser, s, tab)
}

#[tokio::test]
async fn a_tool_gets_the_tab_only_when_the_policy_allows_its_page() {
    let deny = Policy {
        deny_domains: vec!["evil.example".into()],
        ..Policy::default()
    };
    let err = match Tab::current(client(page("https://evil.example/x"), deny.clone())).await {
        Ok(_) => panic!("a denied page reached a tool"),
        Err(e) => e,
    };
    assert_eq!(err.kind(), ErrorKind::PolicyRefused, "{err}");
    assert!(err.text().contains("off limits"), "{err}");

    let tab = Tab::current(client(page("https://fine.example/"), deny))
        .await
        .unwrap();
    assert_eq!(tab.id(), 1);
}

#[tokio::test]
async fn the_tab_is_set_up_once_and_its_document_read_from_the_setup() {
    let browser = page("https://a.example/");
    let s = client(browser.clone(), Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap();
    assert_eq!(s.on(tab.id()).loader_id().await.unwrap(), "L1");
    assert_eq!(s.on(tab.id()).url().await.unwrap(), "https://a.example/");
    // The setup asked for the frame tree once; later reads use its answer.
    assert_eq!(browser.sent_of("Page.getFrameTree").len(), 1);
    assert_eq!(browser.sent_of("Page.enable").len(), 1);
}

#[tokio::test]
async fn answering_a_dialog_sends_the_answer_and_forgets_the_dialog() {
    let (browser, s, tab) = watched_page().await;
    browser.emit(
        tab,
        "Page.javascriptDialogOpening",
        json!({"type": "prompt", "message": "Name?", "defaultPrompt": "Ada", "url": "https://a.example/"}),
    );
    let seen = wait_until(|| s.on(tab).dialog().is_some()).await;
    assert!(seen, "the dialog event never reached the tab's state");
    s.on(tab).answer_dialog(true, Some("Grace")).await.unwrap();
    assert_eq!(
        browser.sent_of("Page.handleJavaScriptDialog"),
        [json!({"accept": true, "promptText": "Grace"})]
    );
    assert!(s.on(tab).dialog().is_none());
}

#[tokio::test]
async fn a_closed_tab_is_said_once_then_a_fresh_one_is_used() {
    let (browser, s, tab) = watched_page().await;
    browser.close_tab(tab).await.unwrap();
    assert!(wait_until(|| s.current_tab().is_none()).await);
    let err = match Tab::current(s.clone()).await {
        Ok(_) => panic!("a closed tab was used"),
        Err(e) => e,
    };
    assert!(err.text().contains("was closed"), "{err}");
    // The next call opens a fresh tab.
    let fresh = Tab::current(s.clone()).await.unwrap();
    assert_ne!(fresh.id(), tab);
}

#[tokio::test]
async fn a_browser_error_keeps_its_kind() {
    let browser = Arc::new(FakeBrowser::with_tab(
        "https://a.example/",
        |_: TabId, m: &str, _: &Value| -> Option<Answer> {
            match m {
                "Page.getNavigationHistory" => Some(Err(BackendError::Timeout {
                    what: "Page.getNavigationHistory".into(),
                    secs: 30,
                })),
                other => plain_page(other, "https://a.example/"),
            }
        },
    ));
    let s = client(browser, Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    let err = s.on(tab).history().await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::Timeout, "{err}");
}

/// Whether `cond` holds within a second (events are handled on a task of
/// their own).
async fn wait_until(mut cond: impl FnMut() -> bool) -> bool {
    for _ in 0..100 {
        if cond() {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    false
}

#[tokio::test]
async fn a_ref_from_no_snapshot_is_stale_before_the_browser_is_asked() {
    let browser = page("https://a.example/");
    let s = client(browser.clone(), Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    let before = browser.sent().len();
    let err = s.on(tab).element("e5").await.unwrap_err();
    assert_eq!(err.kind(), ErrorKind::StaleRef, "{err}");
    assert!(err.text().contains("browser_snapshot"), "{err}");
    // Nothing was run in the page for it.
    let asked: Vec<String> = browser.sent()[before..]
        .iter()
        .map(|c| c.method.clone())
        .collect();
    assert!(
        !asked.iter().any(|m| m.starts_with("Runtime.")),
        "{asked:?}"
    );
}

/// A browser whose one tab, asked to navigate, starts navigating, commits
/// document L2 at `url` and then sends `lifecycle` (its names, in order)
/// for it, as a real browser does a moment after answering.
fn navigating(url: &'static str, lifecycle: &'static [&'static str]) -> Arc<FakeBrowser> {
    let me: Arc<std::sync::OnceLock<std::sync::Weak<FakeBrowser>>> = Arc::default();
    let handle = me.clone();
    let browser = Arc::new(FakeBrowser::with_tab(
        "https://a.example/",
        move |tab, m, _| match m {
            "Page.navigate" => {
                let browser = handle.get().and_then(std::sync::Weak::upgrade)?;
                tokio::spawn(async move {
                    browser.emit(
                        tab,
                        "Page.frameStartedNavigating",
                        json!({"frameId": "F1", "url": url, "navigationType": "differentDocument"}),
                    );
                    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    browser.emit(
                        tab,
                        "Page.frameNavigated",
                        json!({"frame": {"id": "F1", "loaderId": "L2", "url": url}, "type": "Navigation"}),
                    );
                    for name in lifecycle {
                        browser.emit(
                            tab,
                            "Page.lifecycleEvent",
                            json!({"frameId": "F1", "loaderId": "L2", "name": name}),
                        );
                    }
                });
                Some(Ok(json!({"frameId": "F1", "loaderId": "L2"})))
            }
            other => plain_page(other, "https://a.example/"),
        },
    ));
    let _ = me.set(Arc::downgrade(&browser));
    browser
}

#[tokio::test]
async fn a_navigation_answers_once_its_document_has_loaded() {
    let browser = navigating("https://b.example/", &["DOMContentLoaded", "load"]);
    let s = client(browser.clone(), Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    let started = std::time::Instant::now();
    let (end, _notes) = s.on(tab).go("https://b.example/").await.unwrap();
    assert_eq!(end.still_loading, None, "{end:?}");
    assert!(
        started.elapsed() < std::time::Duration::from_secs(2),
        "answered at the load event, not at a time-out: {:?}",
        started.elapsed()
    );
    assert_eq!(
        browser.sent_of("Page.navigate"),
        [json!({"url": "https://b.example/"})]
    );
}

#[tokio::test]
async fn a_page_parsed_and_quiet_without_its_load_event_is_said_to_be_loading() {
    let browser = navigating(
        "https://b.example/",
        &["DOMContentLoaded", "networkAlmostIdle"],
    );
    let s = client(browser, Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    let (end, _notes) = s.on(tab).go("https://b.example/").await.unwrap();
    let why = end
        .still_loading
        .clone()
        .expect("the load event never came");
    assert!(why.contains("some request never finished"), "{why}");
    assert!(end.note().contains("still loading"), "{}", end.note());
}

#[tokio::test]
async fn a_navigation_to_a_denied_site_sends_nothing() {
    let browser = navigating("https://evil.example/", &["load"]);
    let deny = Policy {
        deny_domains: vec!["evil.example".into()],
        ..Policy::default()
    };
    let s = client(browser.clone(), deny);
    let tab = Tab::current(s.clone()).await.unwrap().id();
    let err = s.on(tab).go("https://evil.example/x").await.unwrap_err();
    assert!(err.text().contains("not navigating"), "{err}");
    assert!(browser.sent_of("Page.navigate").is_empty());
}

#[tokio::test]
async fn an_action_that_opens_a_dialog_answers_at_once_with_it() {
    let (browser, s, tab) = watched_page().await;
    let fire = browser.clone();
    let outcome = tokio::time::timeout(
        std::time::Duration::from_secs(2),
        s.on(tab).settle(move || async move {
            // A click whose alert blocks the page: the input never answers.
            fire.emit(
                tab,
                "Page.javascriptDialogOpening",
                json!({"type": "alert", "message": "Saved", "url": "https://a.example/"}),
            );
            std::future::pending::<()>().await;
            Ok(())
        }),
    )
    .await
    .expect("the dialog ends the wait")
    .unwrap();
    let dialog = outcome.dialog.expect("the outcome names the dialog");
    assert!(dialog.describe(s.fence()).contains("Saved"));
    assert!(!outcome.navigated);
}

#[tokio::test]
async fn an_action_that_starts_a_navigation_waits_for_the_new_page() {
    let browser = navigating("https://b.example/", &["DOMContentLoaded", "load"]);
    let s = client(browser.clone(), Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    s.on(tab).ensure_tab_events().await.unwrap();
    let click = s.clone();
    let outcome = s
        .on(tab)
        .settle(move || async move {
            // A link's click: the browser starts the navigation.
            click
                .backend()
                .cdp(tab, "Page.navigate", json!({"url": "https://b.example/"}))
                .await
                .ok();
            click
                .backend()
                .cdp(tab, "Runtime.evaluate", json!({}))
                .await
                .ok();
            Ok(())
        })
        .await
        .unwrap();
    assert!(outcome.navigated, "{outcome:?}");
    assert_eq!(outcome.load.still_loading, None, "{:?}", outcome.load);
}

/// A page at a.example with a WebSocket open (`ws1`), known to the tab's
/// network log before the action.
async fn page_with_socket() -> (Arc<FakeBrowser>, Client, TabId) {
    let (browser, s, tab) = watched_page().await;
    browser.emit(
        tab,
        "Network.webSocketCreated",
        json!({"requestId": "ws1", "url": "wss://a.example/live"}),
    );
    let known = wait_until(|| {
        s.on(tab)
            .with_events(|e| !e.network.socket_addresses().is_empty())
    });
    assert!(known.await, "the socket never reached the network log");
    (browser, s, tab)
}

/// An action (a click: it activates) that sends a question on `ws1`, and
/// the server's result `reply_after` later, if any.
fn ask_on_socket(
    browser: &Arc<FakeBrowser>,
    tab: TabId,
    reply_after: Option<Duration>,
) -> impl FnOnce() -> std::future::Ready<Result<(), crate::error::ToolError>> {
    let browser = browser.clone();
    move || {
        browser.emit(
            tab,
            "Network.webSocketFrameSent",
            json!({"requestId": "ws1", "response": {"payloadData": "run"}}),
        );
        if let Some(after) = reply_after {
            tokio::spawn(async move {
                tokio::time::sleep(after).await;
                browser.emit(
                    tab,
                    "Network.webSocketFrameReceived",
                    json!({"requestId": "ws1", "response": {"payloadData": "done"}}),
                );
            });
        }
        std::future::ready(Ok(()))
    }
}

#[tokio::test]
async fn an_action_that_asked_on_a_socket_answers_after_the_reply() {
    let (browser, s, tab) = page_with_socket().await;
    let started = Instant::now();
    let outcome = s
        .on(tab)
        .settle(ask_on_socket(
            &browser,
            tab,
            Some(Duration::from_millis(300)),
        ))
        .await
        .unwrap();
    let took = started.elapsed();
    assert!(
        took >= Duration::from_millis(300),
        "answered before the reply: {took:?}"
    );
    assert!(took < SOCKET_CAP, "waited out the cap: {took:?}");
    assert!(
        !outcome.notes.iter().any(|n| n.contains("WebSocket")),
        "{:?}",
        outcome.notes
    );
}

#[tokio::test]
async fn a_socket_that_never_replies_ends_the_wait_at_the_cap_and_is_named() {
    let (browser, s, tab) = page_with_socket().await;
    let started = Instant::now();
    let outcome = s
        .on(tab)
        .settle(ask_on_socket(&browser, tab, None))
        .await
        .unwrap();
    assert!(started.elapsed() >= SOCKET_CAP, "{:?}", started.elapsed());
    assert!(
        outcome
            .notes
            .iter()
            .any(|n| n.contains("WebSocket a.example/live") && n.contains("no reply came")),
        "{:?}",
        outcome.notes
    );
}

#[tokio::test]
async fn an_action_that_started_a_request_answers_after_its_response() {
    let (browser, s, tab) = watched_page().await;
    let fire = browser.clone();
    let started = Instant::now();
    let outcome = s
        .on(tab)
        .settle(move || {
            // A click whose handler fetches; the response ends 250 ms later.
            fire.emit(
                tab,
                "Network.requestWillBeSent",
                json!({"requestId": "r1", "type": "Fetch", "initiator": {"type": "script"},
                       "request": {"url": "https://a.example/api/items", "method": "GET"}}),
            );
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(250)).await;
                fire.emit(tab, "Network.loadingFinished", json!({"requestId": "r1"}));
            });
            std::future::ready(Ok(()))
        })
        .await
        .unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(250),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !outcome.notes.iter().any(|n| n.contains("Still loading")),
        "{:?}",
        outcome.notes
    );
    // The page then got its moment to render the response (the DOM quiet
    // wait), and no look-ahead for timers: the request was the result.
    assert!(sent_scripts(&browser)
        .iter()
        .any(|e| e.contains("MutationObserver")));
    assert!(!engine_settles(&browser).contains(&true));
}

/// The expressions and functions run in the page, in order.
fn sent_scripts(browser: &FakeBrowser) -> Vec<String> {
    browser
        .sent()
        .into_iter()
        .filter(|c| c.method.starts_with("Runtime."))
        .map(|c| c.params.to_string().replace("\\\"", "\""))
        .collect()
}

/// For each call of the engine's `settle`, whether it looked ahead for a
/// change the page's own timers make.
fn engine_settles(browser: &FakeBrowser) -> Vec<bool> {
    sent_scripts(browser)
        .iter()
        .filter(|e| e.contains("settle") && e.contains("\"look\":"))
        .map(|e| e.contains("\"look\":true"))
        .collect()
}

#[tokio::test]
async fn only_an_activating_action_that_set_off_nothing_looks_ahead_for_timers() {
    let (browser, s, tab) = watched_page().await;
    // A click that the browser saw start nothing: its result may come
    // from a timer, so the engine looks ahead, within the action's wait
    // (what the timer sets off belongs in this answer).
    s.on(tab)
        .settle(|| std::future::ready(Ok(())))
        .await
        .unwrap();
    assert_eq!(engine_settles(&browser), [true]);
    // A pointer move or typed text: only animations come to rest.
    s.on(tab)
        .settle_passive(|| std::future::ready(Ok(())))
        .await
        .unwrap();
    s.on(tab).ensure_tab_events().await.unwrap();
    assert_eq!(engine_settles(&browser), [true, false]);
}

#[tokio::test]
async fn an_actions_settle_rides_with_the_next_engine_call_and_a_navigation_drops_it() {
    let (browser, s, tab) = watched_page().await;
    // A pointer move: its settle (no look-ahead) is not waited for.
    s.on(tab)
        .settle_passive(|| std::future::ready(Ok(())))
        .await
        .unwrap();
    // Nothing was sent for it yet: the page owes it to its next look.
    assert!(engine_settles(&browser).is_empty());
    let before = browser.sent_of("Runtime.evaluate").len();
    s.on(tab).engine_call(0, "stats", "{}", true).await.unwrap();
    let sent = browser.sent_of("Runtime.evaluate");
    assert_eq!(sent.len(), before + 1, "one message for both: {sent:?}");
    let both = sent.last().unwrap().to_string();
    assert!(
        both.contains("t.settle(") && both.contains("t.stats("),
        "{both}"
    );
    assert_eq!(sent.last().unwrap()["awaitPromise"], true);
    // Owed, then the page is left: the settle is not run on its way out.
    s.on(tab)
        .settle_passive(|| std::future::ready(Ok(())))
        .await
        .unwrap();
    s.on(tab)
        .cdp("Page.navigate", json!({"url": "https://b.example/"}))
        .await
        .unwrap();
    s.on(tab).ensure_tab_events().await.unwrap();
    assert_eq!(
        engine_settles(&browser).len(),
        1,
        "{:?}",
        engine_settles(&browser)
    );
}
