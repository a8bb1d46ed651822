//! The browser's side of the connection: every message it sends is routed
//! here — an answer to the command waiting for it, an event to the tab
//! whose session it came on (and to the backend's own bookkeeping of
//! targets and sessions).

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;

use super::connection::{Inner, Waiter, CONNECTION_CLOSED};
use super::*;

/// One message from the browser: an answer (`id`) or an event. An answer's
/// result stays raw text for its caller to parse.
#[derive(Deserialize)]
struct FromBrowser {
    id: Option<u64>,
    result: Option<Box<RawValue>>,
    error: Option<Value>,
    method: Option<String>,
    #[serde(default)]
    params: Value,
    #[serde(rename = "sessionId")]
    session_id: Option<String>,
}

/// Routes every message from the browser; unknown shapes are skipped.
pub(super) async fn read_loop(
    mut rx: tokio::sync::mpsc::UnboundedReceiver<String>,
    inner: Arc<Inner>,
) {
    while let Some(text) = rx.recv().await {
        let msg: FromBrowser = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(e) => {
                tracing::warn!(error = %e, "ignoring a CDP message that is not JSON");
                continue;
            }
        };
        if let Some(id) = msg.id {
            let waiter = inner.pending.lock().expect("pending lock").remove(&id);
            if let Some(Waiter { reply: waiter, .. }) = waiter {
                let reply = match (msg.error, msg.result) {
                    (Some(e), _) => Err((
                        e["code"].as_i64().unwrap_or(0),
                        e["message"].as_str().unwrap_or("CDP error").to_string(),
                    )),
                    (None, Some(result)) => Ok(result),
                    (None, None) => Ok(RawValue::NULL.to_owned()),
                };
                let _ = waiter.send(reply);
            }
            continue;
        }
        let method = msg.method.unwrap_or_default();
        let held = |session: &str| {
            let t = inner.targets.lock().expect("targets lock");
            t.held.contains(session)
        };
        let paused = match (msg.session_id.as_deref(), method.as_str()) {
            (Some(session), "Fetch.requestPaused") if !held(session) => Some(session),
            _ => None,
        };
        if let Some(session) = paused {
            // A document request paused only so that authentication
            // challenges reach tabwire (page/tab/interrupts.rs) goes on at
            // once, from here: no trip through the event fan-out (a tab
            // with routes has serve answer them, page/network/routes.rs). The
            // answer's id has no waiter and is dropped.
            let id = inner.next_id.fetch_add(1, Ordering::SeqCst);
            let go = json!({"id": id, "method": "Fetch.continueRequest", "sessionId": session,
                "params": {"requestId": msg.params["requestId"]}});
            let _ = inner.tx.send(go.to_string());
            continue;
        }
        if let Some(session) = msg.session_id.as_deref() {
            let tab = {
                let mut t = inner.targets.lock().expect("targets lock");
                let tab = t.tab_of_session.get(session).copied();
                let child_tab = t.tab_of_child.get(session).copied();
                // A frame target attached under the tab or one of its frames.
                if let (Some(tab), "Target.attachedToTarget") = (tab.or(child_tab), method.as_str())
                {
                    if let Some(child) = msg.params["sessionId"].as_str() {
                        t.tab_of_child.insert(child.to_string(), tab);
                    }
                }
                // And gone again (its frame navigated or was removed).
                if method == "Target.detachedFromTarget" {
                    if let Some(child) = msg.params["sessionId"].as_str() {
                        t.tab_of_child.remove(child);
                    }
                }
                match (tab, child_tab) {
                    (Some(tab), _) => Some(tab),
                    (None, Some(tab)) if crate::protocol::child_event_kept(&method) => Some(tab),
                    _ => None,
                }
            };
            if let (Some(tab), "Page.downloadWillBegin") = (tab, method.as_str()) {
                if let Some(guid) = msg.params["guid"].as_str() {
                    inner.download_started(guid, tab);
                }
            }
            if let Some(tab) = tab {
                // Moved, not copied: a page's events are the bulk of the traffic.
                let _ = inner.events.send(TabEvent::Cdp {
                    tab,
                    method,
                    params: msg.params,
                });
            }
            continue;
        }
        let method = method.as_str();
        if method.starts_with("Browser.download") {
            if let Some((tab, params)) = inner.download_event(method, msg.params) {
                let _ = inner.events.send(TabEvent::Cdp {
                    tab,
                    method: method.to_string(),
                    params,
                });
            }
            continue;
        }
        let params = &msg.params;
        match method {
            "Target.targetCreated" => {
                let info = &params["targetInfo"];
                let tab = inner.target_seen(info);
                // A page opened by another page (window.open, target=_blank).
                if let (Some(tab), Some(_)) = (tab, info["openerId"].as_str()) {
                    let _ = inner.events.send(TabEvent::Opened {
                        tab,
                        url: info["url"].as_str().unwrap_or("").to_string(),
                    });
                }
            }
            "Target.targetInfoChanged" => {
                inner.target_seen(&params["targetInfo"]);
            }
            "Target.targetDestroyed" => {
                if let Some(tab) = params["targetId"]
                    .as_str()
                    .and_then(|t| inner.target_gone(t))
                {
                    let _ = inner.events.send(TabEvent::Closed { tab });
                }
            }
            "Target.detachedFromTarget" => {
                if let Some(session) = params["sessionId"].as_str() {
                    inner.session_ended(session);
                }
                let mut t = inner.targets.lock().expect("targets lock");
                if let Some(s) = params["sessionId"].as_str() {
                    t.held.remove(s);
                }
                if let Some(tab) = params["sessionId"]
                    .as_str()
                    .and_then(|s| t.tab_of_session.remove(s))
                {
                    t.session_of.remove(&tab);
                    drop(t);
                    let _ = inner.events.send(TabEvent::Detached {
                        tab,
                        reason: "detached".into(),
                    });
                }
            }
            _ => {}
        }
    }
    tracing::info!("browser connection closed");
    inner.closed.store(true, Ordering::SeqCst);
    for (_, w) in inner.pending.lock().expect("pending lock").drain() {
        let _ = w
            .reply
            .send(Err((CONNECTION_CLOSED, "browser connection closed".into())));
    }
}
