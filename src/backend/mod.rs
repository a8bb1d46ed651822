//! The one seam between tools and a browser: tabs plus raw CDP.
//!
//! Every tool is written once against [`Backend`]. The extension backend
//! relays CDP through `chrome.debugger`; a direct CDP backend (issue 4) will
//! implement the same trait. Tab lifecycle is the only part where the two
//! genuinely differ, so it is part of the trait; everything else is CDP.

pub mod auto;
pub mod direct;
pub mod extension;
#[cfg(test)]
pub mod fake;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::broadcast;

/// A browser tab as the backend names it (Chrome's tab id for the extension).
pub type TabId = i64;

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct TabInfo {
    pub tab_id: TabId,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub active: bool,
    /// The browser the tab is in, when several can be connected (the
    /// extension backend: the browser's tabwire name).
    #[serde(default)]
    pub browser: Option<String>,
}

/// Something that happened in a tab this client owns.
#[derive(Debug, Clone)]
pub enum TabEvent {
    /// A CDP event from the tab's debugger session.
    Cdp {
        tab: TabId,
        method: String,
        params: Value,
    },
    /// The tab was closed (by the user, a script, or a tool).
    Closed { tab: TabId },
    /// The debugger was detached (DevTools took over, tab crashed, …).
    Detached { tab: TabId, reason: String },
    /// One of the client's pages opened a new tab (window.open, a link
    /// with target=_blank); it belongs to the same client.
    Opened { tab: TabId, url: String },
}

/// `commands` one after another through [`Backend::cdp`]: what
/// [`Backend::cdp_batch`] does when a backend has no better way. The
/// batch's placeholders are filled in as the extension does:
/// [`crate::protocol::MAIN_FRAME`] from a `Page.getFrameTree` answered
/// before, [`crate::protocol::EARLIER_HANDLE`] from the first
/// `Runtime.evaluate`; a placeholder with nothing to fill it fails the
/// batch before its command is sent.
pub async fn cdp_in_order<B: Backend + ?Sized>(
    backend: &B,
    tab: TabId,
    commands: Vec<(&'static str, Value)>,
) -> Result<Vec<Value>, BackendError> {
    let mut results: Vec<Value> = Vec::with_capacity(commands.len());
    let mut main_frame: Option<Value> = None;
    // The handle of the first Runtime.evaluate (see EARLIER_HANDLE).
    let mut handle: Option<Value> = None;
    let mut evaluated = false;
    for (method, mut params) in commands {
        for (key, placeholder, value, missing) in [
            (
                "frameId",
                crate::protocol::MAIN_FRAME,
                &main_frame,
                "before any Page.getFrameTree",
            ),
            (
                "objectId",
                crate::protocol::EARLIER_HANDLE,
                &handle,
                "without a handle from an earlier Runtime.evaluate",
            ),
        ] {
            if params[key] == placeholder {
                params[key] = value.clone().ok_or_else(|| BackendError::Cdp {
                    method: method.into(),
                    message: format!("{placeholder} {missing}"),
                })?;
            }
        }
        let result = backend.cdp(tab, method, params).await?;
        match method {
            "Page.getFrameTree" => {
                main_frame =
                    Some(result["frameTree"]["frame"]["id"].clone()).filter(Value::is_string);
            }
            "Runtime.evaluate" if !evaluated => {
                evaluated = true;
                // A script that threw answers with the error's handle,
                // which is not the element the batch is about.
                handle = Some(result["result"]["objectId"].clone())
                    .filter(|h| h.is_string() && result.get("exceptionDetails").is_none());
            }
            _ => {}
        }
        results.push(result);
    }
    Ok(results)
}

/// What [`Backend::set_up_tab`] found, and the answers of its `then`
/// commands.
#[derive(Debug, Default)]
pub struct SetUp {
    /// The tab's debugger session had run this same setup before: the
    /// documents it loaded since carry what the setup registers for them.
    pub before: bool,
    /// The `then` commands' answers in order; empty when they could not
    /// all run (the caller then asks again one by one).
    pub then: Vec<Value>,
}

/// Runs `then` (see [`Backend::set_up_tab`]) one command after another;
/// every answer, or none if one failed.
pub async fn run_then<B: Backend + ?Sized>(
    backend: &B,
    tab: TabId,
    then: Vec<(&'static str, Value)>,
) -> Vec<Value> {
    cdp_in_order(backend, tab, then).await.unwrap_or_default()
}

/// A command's raw result as a `Value`.
pub fn parse_result(method: &str, raw: &RawValue) -> Result<Value, BackendError> {
    serde_json::from_str(raw.get()).map_err(|e| BackendError::Cdp {
        method: method.into(),
        message: format!("the answer is not JSON: {e}"),
    })
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum BackendError {
    #[error("{0}")]
    NotConnected(String),
    #[error("the tab no longer exists (it was closed). Use browser_tabs to list or open tabs")]
    NoSuchTab,
    #[error("{method} failed: {message}")]
    Cdp { method: String, message: String },
    #[error("the browser did not answer {what} within {secs} s (a dialog may be blocking the page, or the tab is busy)")]
    Timeout { what: String, secs: u64 },
    /// A handle from a backend that no longer serves this client.
    #[error("{0}")]
    Stale(String),
    /// The user stopped browser control (Cancel on the browser's debugging
    /// bar, or Stop in tabwire's popup): final until the user resumes.
    #[error("{0}")]
    StoppedByUser(String),
    /// Refused for this call, and asking again will not help: another
    /// debugger holds the tab, or the user denied the site.
    #[error("{0}")]
    Refused(String),
    #[error("{0}")]
    Other(String),
}

/// Whether a `Fetch.enable` asks for more than the document pause every
/// tab has (for sign-in challenges): then serve answers the tab's paused
/// requests (its routes), and the backend must not let them go on itself.
/// The same rule is in `extension/relay.js` (`noteFetch`).
pub fn holds_paused(fetch_enable: &Value) -> bool {
    fetch_enable["patterns"]
        .as_array()
        .is_some_and(|ps| ps.iter().any(|p| p["resourceType"] != "Document"))
}

#[async_trait]
pub trait Backend: Send + Sync {
    /// Tabs this client owns, in a stable order.
    async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError>;
    /// Opens a tab owned by this client; `group` labels it for the user.
    async fn new_tab(&self, url: &str, group: &str) -> Result<TabInfo, BackendError>;
    /// [`Self::new_tab`] in the browser named `browser` (None: wherever new
    /// tabs open by default). Only the extension has more than one browser.
    async fn new_tab_in(
        &self,
        url: &str,
        group: &str,
        browser: Option<&str>,
    ) -> Result<TabInfo, BackendError> {
        match browser {
            None => self.new_tab(url, group).await,
            Some(name) => Err(BackendError::Other(format!(
                "there is no browser named {name:?}: calls are served by tabwire's own browser \
                 (the CDP fallback), which is the only one. Leave out `browser`"
            ))),
        }
    }
    async fn close_tab(&self, tab: TabId) -> Result<(), BackendError>;
    /// Brings the tab to the front of its window.
    async fn select_tab(&self, tab: TabId) -> Result<(), BackendError>;
    /// Sends one CDP command to the tab's main target; the result is the
    /// browser's JSON text, unparsed (a big answer, such as an
    /// accessibility tree, is then read straight into the types its user
    /// needs instead of into a `Value` several times its size).
    async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError>;

    /// Sends one CDP command to a child session of the tab: an
    /// out-of-process frame the tab's session auto-attached
    /// (`Target.attachedToTarget` told its `sessionId`).
    async fn cdp_raw_in(
        &self,
        _tab: TabId,
        _session: &str,
        method: &str,
        _params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        Err(BackendError::Cdp {
            method: method.into(),
            message: "this browser link cannot reach out-of-process frames".into(),
        })
    }

    /// [`Self::cdp_raw`], parsed.
    async fn cdp(&self, tab: TabId, method: &str, params: Value) -> Result<Value, BackendError> {
        let raw = self.cdp_raw(tab, method, params).await?;
        parse_result(method, &raw)
    }

    /// Sends `commands` to the tab in order, each once the one before it
    /// answered; returns their results, or the first error. A backend may
    /// carry the whole sequence in one message (the extension does).
    async fn cdp_batch(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<Vec<Value>, BackendError> {
        cdp_in_order(self, tab, commands).await
    }
    /// Runs a tab's one-time setup (domains to enable, scripts for new
    /// documents): `commands` in order, unless the tab's debugger session
    /// already ran this same setup. The extension's session outlives the
    /// serve that set it up, so the next serve (the next `tabwire call`)
    /// finds the tab ready; a fallback browser's session is this process's
    /// own, so the default always runs them.
    ///
    /// `then` runs after the check every time, and its answers come back
    /// (a new serve learns the tab's document and the engine's world in
    /// the same message); a `frameId` of [`crate::protocol::MAIN_FRAME`]
    /// there stands for the top frame of a `Page.getFrameTree` answered
    /// before it.
    async fn set_up_tab(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
        then: Vec<(&'static str, Value)>,
    ) -> Result<SetUp, BackendError> {
        self.cdp_batch(tab, commands).await?;
        Ok(SetUp {
            before: false,
            then: run_then(self, tab, then).await,
        })
    }
    /// Changes whenever every earlier tab handle became void (the browser
    /// or its extension restarted, a new fallback browser was launched).
    fn generation(&self) -> u64 {
        0
    }
    /// True when the handle `tab` can never work again (its browser's
    /// extension restarted) though other handles still do.
    fn is_void(&self, _tab: TabId) -> bool {
        false
    }
    /// Whether `tab`'s browser is tabwire's own (the CDP fallback, launched
    /// or attached to), whose state holds only what tabwire did there; the
    /// user's browser (through the extension) holds their whole life, and
    /// what crosses out of it is kept to the client's tabs.
    fn is_own_browser(&self, _tab: TabId) -> bool {
        false
    }
    /// The browsers that serve calls, by name, each with whether new tabs
    /// open there by default; empty when there is just one unnamed browser.
    fn browsers(&self) -> Vec<(String, bool)> {
        Vec::new()
    }
    /// The MCP client introduced itself (the extension shows the name).
    fn client_named(&self, _name: &str) {}
    /// A tool call finished (the extension's popup lists recent calls).
    fn note_call(&self, _tool: &str, _ok: bool) {}
    /// What a slow call is waiting for, for progress notifications.
    fn progress_message(&self) -> String;
    /// Events from this client's tabs.
    fn subscribe(&self) -> broadcast::Receiver<TabEvent>;
    /// One line saying which browser serves calls and how it is reached.
    async fn status(&self) -> String;
    /// The user's stop of browser control, as the error text calls get
    /// (None while calls may run); the receiver sees every stop and
    /// resume. None for a backend the user cannot stop this way.
    fn user_stop(&self) -> Option<tokio::sync::watch::Receiver<Option<String>>> {
        None
    }
    /// Whether the browser itself downloads what `tab`'s pages start and
    /// reports it on the tab's events as `Browser.downloadProgress` (by
    /// the guid of its `Page.downloadWillBegin`, with `filePath` once
    /// completed). Otherwise tabwire fetches the URL again to save it.
    async fn browser_downloads(&self, _tab: TabId) -> bool {
        false
    }
    /// Stops a download the browser is making for `tab` (by guid); the
    /// browser removes its partial file.
    async fn cancel_download(&self, _tab: TabId, _guid: &str) -> Result<(), BackendError> {
        Err(BackendError::Other(
            "this browser connection cannot stop a download".into(),
        ))
    }
    /// Called before each tool call: a switching backend picks its browser here.
    async fn prepare(&self) -> Result<(), BackendError> {
        Ok(())
    }
    /// Releases the browser (closes one tabwire launched) before exit.
    async fn shutdown(&self) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::sync::Mutex;

    /// Answers `Page.getFrameTree` with a top frame "F1" and every other
    /// command with its own params; refuses a `frameId` that is not "F1".
    struct Recorder {
        sent: Mutex<Vec<(String, Value)>>,
        events: broadcast::Sender<TabEvent>,
    }

    #[async_trait]
    impl Backend for Recorder {
        async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError> {
            Ok(Vec::new())
        }
        async fn new_tab(&self, _url: &str, _group: &str) -> Result<TabInfo, BackendError> {
            Err(BackendError::Other("no tabs here".into()))
        }
        async fn close_tab(&self, _tab: TabId) -> Result<(), BackendError> {
            Ok(())
        }
        async fn select_tab(&self, _tab: TabId) -> Result<(), BackendError> {
            Ok(())
        }
        async fn cdp_raw(
            &self,
            _tab: TabId,
            method: &str,
            params: Value,
        ) -> Result<Box<RawValue>, BackendError> {
            self.sent
                .lock()
                .unwrap()
                .push((method.to_string(), params.clone()));
            if params.get("frameId").is_some_and(|f| f != "F1") {
                return Err(BackendError::Cdp {
                    method: method.into(),
                    message: "No frame for given id found".into(),
                });
            }
            let answer = match method {
                "Page.getFrameTree" => {
                    json!({"frameTree": {"frame": {"id": "F1", "loaderId": "L1", "url": "about:blank"}}})
                }
                "Runtime.evaluate" if params["expression"] == "found" => {
                    json!({"result": {"type": "object", "objectId": "H1"}})
                }
                "Runtime.evaluate" => {
                    // As Chrome answers a script that threw: the result is
                    // the thrown error, which has a handle of its own.
                    json!({"result": {"type": "object", "subtype": "error", "objectId": "E1"},
                           "exceptionDetails": {"text": "no match"}})
                }
                _ => json!({"echo": params}),
            };
            Ok(RawValue::from_string(answer.to_string()).unwrap())
        }
        fn progress_message(&self) -> String {
            String::new()
        }
        fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
            self.events.subscribe()
        }
        async fn status(&self) -> String {
            String::new()
        }
    }

    fn recorder() -> Recorder {
        Recorder {
            sent: Mutex::new(Vec::new()),
            events: broadcast::channel(4).0,
        }
    }

    #[tokio::test]
    async fn the_setup_runs_then_then_with_the_main_frame_filled_in() {
        let b = recorder();
        let done = b
            .set_up_tab(
                7,
                vec![("Page.enable", json!({}))],
                vec![
                    ("Page.getFrameTree", json!({})),
                    (
                        "Page.createIsolatedWorld",
                        json!({"frameId": crate::protocol::MAIN_FRAME, "worldName": "w"}),
                    ),
                ],
            )
            .await
            .unwrap();
        assert!(!done.before);
        assert_eq!(done.then.len(), 2);
        assert_eq!(done.then[1]["echo"]["frameId"], "F1");
        let sent: Vec<String> = b.sent.lock().unwrap().iter().map(|s| s.0.clone()).collect();
        assert_eq!(
            sent,
            [
                "Page.enable",
                "Page.getFrameTree",
                "Page.createIsolatedWorld"
            ]
        );
    }

    #[tokio::test]
    async fn a_batch_uses_the_handle_its_first_evaluate_answered() {
        let b = recorder();
        let handle = json!({"objectId": crate::protocol::EARLIER_HANDLE});
        let r = cdp_in_order(
            &b,
            7,
            vec![
                ("Runtime.evaluate", json!({"expression": "found"})),
                ("DOM.getContentQuads", handle.clone()),
                ("Runtime.evaluate", json!({"expression": "other"})),
                ("DOM.scrollIntoViewIfNeeded", handle.clone()),
            ],
        )
        .await
        .unwrap();
        assert_eq!(r[1]["echo"]["objectId"], "H1");
        assert_eq!(r[3]["echo"]["objectId"], "H1");
        // The evaluate threw (nothing matched): the batch stops before the
        // command that needs its handle.
        let b = recorder();
        let e = cdp_in_order(
            &b,
            7,
            vec![
                ("Runtime.evaluate", json!({"expression": "missing"})),
                ("DOM.getContentQuads", handle),
            ],
        )
        .await
        .unwrap_err();
        assert!(e.to_string().contains("without a handle"), "{e}");
        assert_eq!(b.sent.lock().unwrap().len(), 1);
    }

    #[tokio::test]
    async fn then_answers_all_or_nothing() {
        let b = recorder();
        // No tree before the placeholder: nothing is sent for it.
        let none = run_then(
            &b,
            7,
            vec![(
                "Page.createIsolatedWorld",
                json!({"frameId": crate::protocol::MAIN_FRAME}),
            )],
        )
        .await;
        assert!(none.is_empty());
        assert!(b.sent.lock().unwrap().is_empty());
        // A command that fails voids the answers before it.
        let failed = run_then(
            &b,
            7,
            vec![
                ("Page.getFrameTree", json!({})),
                ("Page.createIsolatedWorld", json!({"frameId": "gone"})),
            ],
        )
        .await;
        assert!(failed.is_empty());
    }
}
