//! The page layer against a browser that is not there
//! ([`crate::backend::fake::FakeBrowser`]): what tabwire asks of the
//! browser, and what it makes of the answers, in milliseconds. Real
//! browsers are the end-to-end tests' job.

use std::sync::Arc;

use serde_json::{json, Value};

use super::{Client, Tab};
use crate::backend::fake::{plain_page, Answer, FakeBrowser};
use crate::backend::{Backend, BackendError, TabId};
use crate::error::ErrorKind;
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
    assert_eq!(s.loader_id(tab.id()).await.unwrap(), "L1");
    assert_eq!(s.url(tab.id()).await.unwrap(), "https://a.example/");
    // The setup asked for the frame tree once; later reads use its answer.
    assert_eq!(browser.sent_of("Page.getFrameTree").len(), 1);
    assert_eq!(browser.sent_of("Page.enable").len(), 1);
}

#[tokio::test]
async fn answering_a_dialog_sends_the_answer_and_forgets_the_dialog() {
    let browser = page("https://a.example/");
    let s = client(browser.clone(), Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    s.ensure_tab_events(tab).await.unwrap();
    browser.emit(
        tab,
        "Page.javascriptDialogOpening",
        json!({"type": "prompt", "message": "Name?", "defaultPrompt": "Ada", "url": "https://a.example/"}),
    );
    let seen = wait_until(|| s.dialog(tab).is_some()).await;
    assert!(seen, "the dialog event never reached the tab's state");
    s.answer_dialog(tab, true, Some("Grace")).await.unwrap();
    assert_eq!(
        browser.sent_of("Page.handleJavaScriptDialog"),
        [json!({"accept": true, "promptText": "Grace"})]
    );
    assert!(s.dialog(tab).is_none());
}

#[tokio::test]
async fn a_closed_tab_is_said_once_then_a_fresh_one_is_used() {
    let browser = page("https://a.example/");
    let s = client(browser.clone(), Policy::default());
    let tab = Tab::current(s.clone()).await.unwrap().id();
    s.ensure_tab_events(tab).await.unwrap();
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
    let err = super::navigation::history(&s, tab).await.unwrap_err();
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
    let err = s.element(tab, "e5").await.unwrap_err();
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
