//! What pages said while nobody was asking: open JavaScript dialogs and
//! console output, recorded per tab from CDP events so tools can report
//! them (a dialog blocks every page command until it is handled).

use std::collections::{HashMap, VecDeque};

use serde_json::Value;

use crate::backend::TabId;

/// Console entries kept per tab (oldest dropped first).
const CONSOLE_KEEP: usize = 200;
/// Longest text kept of one console entry (bytes; the rest is cut with a
/// marker): 200 entries of a page that logs megabytes stay small.
const CONSOLE_TEXT_MAX: usize = 4096;

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
    console: HashMap<TabId, ConsoleLog>,
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

/// A tab's latest console entries, and how many were dropped before them
/// (so "entries since the n-th" still works once the log is full).
#[derive(Default)]
struct ConsoleLog {
    entries: VecDeque<ConsoleEntry>,
    dropped: usize,
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
                let text = super::tab::exception_text(&params["exceptionDetails"]);
                self.push(tab, "error", format!("uncaught {text}"));
            }
            _ => {}
        }
    }

    fn push(&mut self, tab: TabId, level: &str, mut text: String) {
        if text.len() > CONSOLE_TEXT_MAX {
            let mut at = CONSOLE_TEXT_MAX;
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let left = text.len() - at;
            text.truncate(at);
            text.push_str(&format!("… ({left} more bytes not kept)"));
        }
        let log = self.console.entry(tab).or_default();
        if log.entries.len() == CONSOLE_KEEP {
            log.entries.pop_front();
            log.dropped += 1;
        }
        log.entries.push_back(ConsoleEntry {
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
        self.console_since(tab, 0)
    }

    /// How many entries `tab` logged so far, those dropped included (for
    /// "new console errors" reports: see [`Self::console_since`]).
    pub fn console_len(&self, tab: TabId) -> usize {
        self.console
            .get(&tab)
            .map_or(0, |l| l.dropped + l.entries.len())
    }

    /// The kept entries logged after the first `from` of [`Self::console_len`].
    pub fn console_since(&self, tab: TabId, from: usize) -> Vec<ConsoleEntry> {
        self.console
            .get(&tab)
            .map(|l| {
                let skip = from.saturating_sub(l.dropped);
                l.entries.iter().skip(skip).cloned().collect()
            })
            .unwrap_or_default()
    }

    /// Entries kept for `tab` (for the debug counts of browser_status).
    pub fn console_kept(&self, tab: TabId) -> usize {
        self.console.get(&tab).map_or(0, |l| l.entries.len())
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
        assert_eq!(ev.console_kept(1), CONSOLE_KEEP);
        assert_eq!(ev.console(1).len(), CONSOLE_KEEP);
        assert_eq!(ev.console(1).last().unwrap().text, "299");
    }

    #[test]
    fn new_entries_are_found_after_the_log_is_full() {
        let mut ev = PageEvents::default();
        let log = |ev: &mut PageEvents, text: &str| {
            ev.record(
                1,
                "Runtime.consoleAPICalled",
                &json!({"type": "error", "args": [{"type": "string", "value": text}]}),
            )
        };
        for i in 0..CONSOLE_KEEP + 50 {
            log(&mut ev, &i.to_string());
        }
        let before = ev.console_len(1);
        assert_eq!(before, CONSOLE_KEEP + 50);
        assert!(ev.console_since(1, before).is_empty());
        log(&mut ev, "new");
        let new = ev.console_since(1, before);
        assert_eq!(new.len(), 1);
        assert_eq!(new[0].text, "new");
        // From before what was dropped: everything kept.
        assert_eq!(ev.console_since(1, 3).len(), CONSOLE_KEEP);
    }

    #[test]
    fn a_huge_console_entry_is_cut() {
        let mut ev = PageEvents::default();
        let big = "é".repeat(CONSOLE_TEXT_MAX);
        ev.record(
            1,
            "Runtime.consoleAPICalled",
            &json!({"type": "log", "args": [{"type": "string", "value": big}]}),
        );
        let text = &ev.console(1)[0].text;
        assert!(text.len() < CONSOLE_TEXT_MAX + 100, "{}", text.len());
        assert!(
            text.ends_with(&format!("({} more bytes not kept)", CONSOLE_TEXT_MAX)),
            "{text}"
        );
    }
}
