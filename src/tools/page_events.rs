//! What pages said while nobody was asking: open JavaScript dialogs and
//! console output, recorded per tab from CDP events so tools can report
//! them (a dialog blocks every page command until it is handled).

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::backend::TabId;

/// Console entries kept per tab (oldest dropped first).
const CONSOLE_KEEP: usize = 200;

#[derive(Debug, Clone, PartialEq)]
pub struct Dialog {
    /// alert, confirm, prompt or beforeunload.
    pub kind: String,
    pub message: String,
}

impl Dialog {
    /// The sentence tools use to report a blocking dialog.
    pub fn describe(&self) -> String {
        format!(
            "a {} dialog is open: \"{}\". The page is blocked until it is handled: call \
             browser_handle_dialog (accept true or false{})",
            self.kind,
            self.message,
            if self.kind == "prompt" {
                ", promptText for the answer"
            } else {
                ""
            }
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ConsoleEntry {
    /// log, info, warning, error, debug …
    pub level: String,
    pub text: String,
}

#[derive(Default)]
pub struct PageEvents {
    /// The top frame's URL, from navigation events. Unlike `docs` it is
    /// kept across a debugger detach, so a page stuck behind a dialog or a
    /// crash can still be named.
    urls: HashMap<TabId, String>,
    /// Tabs whose renderer crashed (commands to the page would hang).
    crashed: std::collections::HashSet<TabId>,
    dialogs: HashMap<TabId, Dialog>,
    console: HashMap<TabId, VecDeque<ConsoleEntry>>,
    pub network: super::network_log::NetworkLog,
    /// The top frame's document as the last navigation event described it
    /// (so tools need not ask the browser on every call).
    docs: HashMap<TabId, Doc>,
    /// The file input whose chooser the page opened (intercepted), until
    /// browser_file_upload fills it or the page navigates.
    file_choosers: HashMap<TabId, i64>,
    /// Child sessions of out-of-process frames the tab's session
    /// auto-attached: (frame/target id, session id).
    child_sessions: HashMap<TabId, Vec<(String, String)>>,
    /// The URL the top frame failed to load, while it shows the browser's
    /// error page (whose own URL is `chrome-error://chromewebdata/`).
    unreachable: HashMap<TabId, String>,
}

/// The document in a tab's top frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub frame_id: String,
    pub url: String,
    pub loader_id: String,
}

impl PageEvents {
    /// Folds one CDP event of `tab` into the record.
    pub fn record(&mut self, tab: TabId, method: &str, params: &Value) {
        let main_frame = self.docs.get(&tab).map(|d| d.frame_id.as_str());
        self.network.record(tab, method, params, main_frame);
        match method {
            "Page.frameNavigated" if params["frame"].get("parentId").is_none() => {
                // An error page stands for the URL that failed: that is
                // the page's address for tools and the policy.
                let failed = params["frame"]["unreachableUrl"].as_str();
                match failed {
                    Some(u) => self.unreachable.insert(tab, u.to_string()),
                    None => self.unreachable.remove(&tab),
                };
                if let Some(u) = failed.or(params["frame"]["url"].as_str()) {
                    self.urls.insert(tab, u.to_string());
                }
                self.file_choosers.remove(&tab);
                let f = &params["frame"];
                if let (Some(id), Some(url), Some(loader)) = (
                    f["id"].as_str(),
                    failed.or(f["url"].as_str()),
                    f["loaderId"].as_str(),
                ) {
                    self.docs.insert(
                        tab,
                        Doc {
                            frame_id: id.into(),
                            url: url.into(),
                            loader_id: loader.into(),
                        },
                    );
                }
                // A new document means a new, live renderer.
                self.crashed.remove(&tab);
            }
            "Target.attachedToTarget" if params["targetInfo"]["type"] == "iframe" => {
                if let (Some(target), Some(session)) = (
                    params["targetInfo"]["targetId"].as_str(),
                    params["sessionId"].as_str(),
                ) {
                    let list = self.child_sessions.entry(tab).or_default();
                    list.retain(|(t, _)| t != target);
                    list.push((target.to_string(), session.to_string()));
                }
            }
            "Target.detachedFromTarget" => {
                if let (Some(list), Some(session)) = (
                    self.child_sessions.get_mut(&tab),
                    params["sessionId"].as_str(),
                ) {
                    list.retain(|(_, s)| s != session);
                }
            }
            "Page.fileChooserOpened" => {
                if let Some(node) = params["backendNodeId"].as_i64() {
                    self.file_choosers.insert(tab, node);
                }
            }
            "Page.navigatedWithinDocument" => {
                if let Some(doc) = self.docs.get_mut(&tab) {
                    if params["frameId"].as_str() == Some(doc.frame_id.as_str()) {
                        if let Some(u) = params["url"].as_str() {
                            doc.url = u.to_string();
                            self.urls.insert(tab, u.to_string());
                        }
                    }
                }
            }
            "Inspector.targetCrashed" => {
                self.crashed.insert(tab);
                self.dialogs.remove(&tab);
            }
            "Page.javascriptDialogOpening" => {
                self.dialogs.insert(
                    tab,
                    Dialog {
                        kind: params["type"].as_str().unwrap_or("alert").to_string(),
                        message: params["message"].as_str().unwrap_or("").to_string(),
                    },
                );
            }
            "Page.javascriptDialogClosed" => {
                self.dialogs.remove(&tab);
            }
            "Runtime.consoleAPICalled" => {
                let text = params["args"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(remote_object_text)
                    .collect::<Vec<_>>()
                    .join(" ");
                let level = match params["type"].as_str().unwrap_or("log") {
                    "warning" => "warning",
                    "error" | "assert" => "error",
                    "debug" => "debug",
                    "info" => "info",
                    _ => "log",
                };
                self.push(tab, level, text);
            }
            "Runtime.exceptionThrown" => {
                let text = super::session::exception_text(&params["exceptionDetails"]);
                self.push(tab, "error", format!("uncaught {text}"));
            }
            _ => {}
        }
    }

    fn push(&mut self, tab: TabId, level: &str, text: String) {
        let log = self.console.entry(tab).or_default();
        if log.len() == CONSOLE_KEEP {
            log.pop_front();
        }
        log.push_back(ConsoleEntry {
            level: level.to_string(),
            text,
        });
    }

    pub fn url(&self, tab: TabId) -> Option<String> {
        self.urls.get(&tab).cloned()
    }

    /// The URL the top frame failed to load, while it shows the browser's
    /// error page.
    pub fn unreachable(&self, tab: TabId) -> Option<String> {
        self.unreachable.get(&tab).cloned()
    }

    /// The file input of an open (intercepted) file chooser.
    pub fn file_chooser(&self, tab: TabId) -> Option<i64> {
        self.file_choosers.get(&tab).copied()
    }

    pub fn take_file_chooser(&mut self, tab: TabId) -> Option<i64> {
        self.file_choosers.remove(&tab)
    }

    /// The top frame's document, if navigation events told us.
    pub fn doc(&self, tab: TabId) -> Option<Doc> {
        self.docs.get(&tab).cloned()
    }

    /// Records a document read from the browser (`Page.getFrameTree`).
    pub fn set_doc(&mut self, tab: TabId, doc: Doc) {
        self.docs.insert(tab, doc);
    }

    /// Events may have been missed (the debugger detached): ask again.
    pub fn forget_doc(&mut self, tab: TabId) {
        self.docs.remove(&tab);
        self.file_choosers.remove(&tab);
    }

    /// The child session of the out-of-process frame `frame_id`, if the
    /// tab's session attached one.
    pub fn child_session(&self, tab: TabId, frame_id: &str) -> Option<String> {
        self.child_sessions
            .get(&tab)?
            .iter()
            .find(|(t, _)| t == frame_id)
            .map(|(_, s)| s.clone())
    }

    pub fn crashed(&self, tab: TabId) -> bool {
        self.crashed.contains(&tab)
    }

    pub fn dialog(&self, tab: TabId) -> Option<Dialog> {
        self.dialogs.get(&tab).cloned()
    }

    pub fn console(&self, tab: TabId) -> Vec<ConsoleEntry> {
        self.console
            .get(&tab)
            .map(|l| l.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// Entries after the first `from` (for "new console errors" reports).
    pub fn console_len(&self, tab: TabId) -> usize {
        self.console.get(&tab).map_or(0, VecDeque::len)
    }

    pub fn forget(&mut self, tab: TabId) {
        self.urls.remove(&tab);
        self.crashed.remove(&tab);
        self.dialogs.remove(&tab);
        self.console.remove(&tab);
        self.network.forget(tab);
        self.docs.remove(&tab);
        self.child_sessions.remove(&tab);
        self.unreachable.remove(&tab);
    }
}

/// A console argument as text: primitives by value, objects by description.
fn remote_object_text(arg: &Value) -> String {
    match &arg["value"] {
        Value::String(s) => s.clone(),
        Value::Null => arg["description"]
            .as_str()
            .or(arg["unserializableValue"].as_str())
            .unwrap_or(if arg["type"] == "undefined" {
                "undefined"
            } else {
                "null"
            })
            .to_string(),
        v => v.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn dialogs_open_and_close() {
        let mut ev = PageEvents::default();
        ev.record(
            1,
            "Page.javascriptDialogOpening",
            &json!({"type": "confirm", "message": "Sure?"}),
        );
        let d = ev.dialog(1).unwrap();
        assert!(d.describe().contains("confirm dialog is open: \"Sure?\""));
        assert_eq!(ev.dialog(2), None);
        ev.record(1, "Page.javascriptDialogClosed", &json!({"result": true}));
        assert_eq!(ev.dialog(1), None);
    }

    #[test]
    fn a_crash_is_remembered_until_a_new_document() {
        let mut ev = PageEvents::default();
        ev.record(1, "Inspector.targetCrashed", &json!({}));
        assert!(ev.crashed(1) && !ev.crashed(2));
        ev.record(
            1,
            "Page.frameNavigated",
            &json!({"frame": {"id": "f", "url": "http://x/"}}),
        );
        assert!(!ev.crashed(1));
    }

    #[test]
    fn console_keeps_levels_text_and_a_bounded_history() {
        let mut ev = PageEvents::default();
        ev.record(
            1,
            "Runtime.consoleAPICalled",
            &json!({"type": "warning", "args": [{"type": "string", "value": "low"}, {"type": "number", "value": 3}]}),
        );
        ev.record(
            1,
            "Runtime.exceptionThrown",
            &json!({"exceptionDetails": {"exception": {"description": "Error: x\n at y"}}}),
        );
        assert_eq!(
            ev.console(1),
            vec![
                ConsoleEntry {
                    level: "warning".into(),
                    text: "low 3".into()
                },
                ConsoleEntry {
                    level: "error".into(),
                    text: "uncaught Error: x".into()
                },
            ]
        );
        for i in 0..300 {
            ev.record(
                1,
                "Runtime.consoleAPICalled",
                &json!({"type": "log", "args": [{"type": "number", "value": i}]}),
            );
        }
        assert_eq!(ev.console_len(1), CONSOLE_KEEP);
        assert_eq!(ev.console(1).last().unwrap().text, "299");
    }
}
