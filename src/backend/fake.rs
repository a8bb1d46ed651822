//! A browser that is not there, for unit tests of `page/`: it keeps the
//! tabs it is given, records every CDP command sent to it, answers each
//! from a script the test writes (a closure of method and params; `{}`
//! when the script has no answer), and sends the events the test asks for.
//! It lets a test drive the page layer's real code (choosing a tab, the
//! policy's checks, dialogs, history, waits) and assert on the traffic,
//! with no browser and in milliseconds. What a real browser does is proved
//! by the end-to-end tests; this tier proves what tabwire asks of it.

use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::{Backend, BackendError, TabEvent, TabId, TabInfo};

/// What a script answers: the command's result, or its error.
pub type Answer = Result<Value, BackendError>;

type Script = Box<dyn Fn(TabId, &str, &Value) -> Option<Answer> + Send + Sync>;

/// A scripted browser; see the module's description.
pub struct FakeBrowser {
    tabs: Mutex<Vec<TabInfo>>,
    /// The last tab id given (a browser never gives one twice).
    last_id: Mutex<TabId>,
    sent: Mutex<Vec<Sent>>,
    script: Script,
    events: broadcast::Sender<TabEvent>,
}

/// One command as the page layer sent it.
#[derive(Debug, Clone)]
pub struct Sent {
    pub tab: TabId,
    pub method: String,
    pub params: Value,
}

impl FakeBrowser {
    /// A browser with one tab at `url`, answering as `script` says.
    pub fn with_tab(
        url: &str,
        script: impl Fn(TabId, &str, &Value) -> Option<Answer> + Send + Sync + 'static,
    ) -> Self {
        FakeBrowser {
            tabs: Mutex::new(vec![TabInfo {
                tab_id: 1,
                url: url.into(),
                title: String::new(),
                active: true,
                browser: None,
            }]),
            last_id: Mutex::new(1),
            sent: Mutex::new(Vec::new()),
            script: Box::new(script),
            events: broadcast::channel(64).0,
        }
    }

    /// Every command sent so far, in order.
    pub fn sent(&self) -> Vec<Sent> {
        self.sent.lock().unwrap().clone()
    }

    /// The commands of one method sent so far.
    pub fn sent_of(&self, method: &str) -> Vec<Value> {
        self.sent()
            .into_iter()
            .filter(|s| s.method == method)
            .map(|s| s.params)
            .collect()
    }

    /// Sends a CDP event from `tab`, as the browser would.
    pub fn emit(&self, tab: TabId, method: &str, params: Value) {
        let _ = self.events.send(TabEvent::Cdp {
            tab,
            method: method.into(),
            params,
        });
    }
}

/// The answer a browser gives to the commands every tab's setup sends,
/// for a top document at `url`: scripts can fall back on it.
pub fn plain_page(method: &str, url: &str) -> Option<Answer> {
    match method {
        "Page.getFrameTree" => Some(Ok(json!({"frameTree": {"frame": {
            "id": "F1", "loaderId": "L1", "url": url, "securityOrigin": url
        }}}))),
        "Page.createIsolatedWorld" => Some(Ok(json!({"executionContextId": 7}))),
        _ => None,
    }
}

#[async_trait]
impl Backend for FakeBrowser {
    async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError> {
        Ok(self.tabs.lock().unwrap().clone())
    }

    async fn new_tab(&self, url: &str, _group: &str) -> Result<TabInfo, BackendError> {
        let mut last = self.last_id.lock().unwrap();
        *last += 1;
        let tab = TabInfo {
            tab_id: *last,
            url: url.into(),
            title: String::new(),
            active: true,
            browser: None,
        };
        self.tabs.lock().unwrap().push(tab.clone());
        Ok(tab)
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.tabs.lock().unwrap().retain(|t| t.tab_id != tab);
        let _ = self.events.send(TabEvent::Closed { tab });
        Ok(())
    }

    async fn select_tab(&self, _tab: TabId) -> Result<(), BackendError> {
        Ok(())
    }

    async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        if !self.tabs.lock().unwrap().iter().any(|t| t.tab_id == tab) {
            return Err(BackendError::NoSuchTab);
        }
        self.sent.lock().unwrap().push(Sent {
            tab,
            method: method.into(),
            params: params.clone(),
        });
        let answer = (self.script)(tab, method, &params).unwrap_or_else(|| Ok(json!({})))?;
        Ok(RawValue::from_string(answer.to_string()).expect("JSON is JSON"))
    }

    fn progress_message(&self) -> String {
        String::new()
    }

    fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
        self.events.subscribe()
    }

    async fn status(&self) -> String {
        "a fake browser (unit tests)".into()
    }
}
