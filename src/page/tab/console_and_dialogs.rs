//! What pages said while nobody was asking: open JavaScript dialogs and
//! console output, recorded for each tab from its CDP events so tools can report
//! them (a dialog blocks every page command until it is handled).

use std::collections::VecDeque;

use serde_json::Value;

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
    /// What a prompt's field holds when it opens.
    pub default_prompt: String,
}

impl Dialog {
    /// The sentence tools use to report a blocking dialog. The message and
    /// a prompt's default are the page's words: fenced inline.
    pub fn describe(&self, fence: &crate::fence::Fence) -> String {
        let prompt = if self.kind == "prompt" {
            format!(
                " (its field holds {}; accept with promptText to answer otherwise)",
                fence.quote(&self.default_prompt)
            )
        } else {
            String::new()
        };
        format!(
            "a {} dialog is open: {}{prompt}. The page is blocked until it is handled: call \
             browser_handle_dialog (accept true or false{})",
            self.kind,
            fence.quote(&self.message),
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

/// What one tab's events said, folded as they come.
#[derive(Default)]
pub struct TabEvents {
    /// The top frame's URL, from navigation events. Unlike `doc` it is
    /// kept across a debugger detach, so a page stuck behind a dialog or a
    /// crash can still be named.
    url: Option<String>,
    /// The renderer crashed (commands to the page would hang).
    crashed: bool,
    dialog: Option<Dialog>,
    console: ConsoleLog,
    pub network: super::network_log::NetworkLog,
    /// The top frame's document as the last navigation event described it
    /// (so tools need not ask the browser on every call).
    doc: Option<Doc>,
    /// The file input whose chooser the page opened (intercepted), until
    /// browser_file_upload fills it or the page navigates.
    file_chooser: Option<i64>,
    /// Child sessions of out-of-process frames the tab's session
    /// auto-attached: (frame/target id, session id).
    child_sessions: Vec<(String, String)>,
    /// The URL the top frame failed to load, while it shows the browser's
    /// error page (whose own URL is `chrome-error://chromewebdata/`).
    unreachable: Option<String>,
    /// The engine's world in the top document (its execution context), as
    /// the browser announced it when the document was made: a snapshot of
    /// a new page need not ask for it.
    engine_world: Option<i64>,
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

impl TabEvents {
    /// Folds one CDP event of the tab into the record.
    pub fn record(&mut self, method: &str, params: &Value) {
        let main_frame = self.doc.as_ref().map(|d| d.frame_id.as_str());
        self.network.record(method, params, main_frame);
        match method {
            "Page.frameNavigated" if params["frame"].get("parentId").is_none() => {
                // An error page stands for the URL that failed: that is
                // the page's address for tools and the policy.
                let failed = params["frame"]["unreachableUrl"].as_str();
                self.unreachable = failed.map(str::to_string);
                if let Some(u) = failed.or(params["frame"]["url"].as_str()) {
                    self.url = Some(u.to_string());
                }
                self.file_chooser = None;
                let f = &params["frame"];
                if let (Some(id), Some(url), Some(loader)) = (
                    f["id"].as_str(),
                    failed.or(f["url"].as_str()),
                    f["loaderId"].as_str(),
                ) {
                    self.doc = Some(Doc {
                        frame_id: id.into(),
                        url: url.into(),
                        loader_id: loader.into(),
                    });
                }
                // A new document means a new, live renderer.
                self.crashed = false;
                self.engine_world = None;
            }
            // Announced after the document's navigation event.
            "Runtime.executionContextCreated" => {
                let c = &params["context"];
                let top = self.doc.as_ref().map(|d| d.frame_id.as_str());
                if c["name"] == crate::engine::WORLD
                    && c["auxData"]["isDefault"] == false
                    && top.is_some()
                    && c["auxData"]["frameId"].as_str() == top
                {
                    self.engine_world = c["id"].as_i64();
                }
            }
            "Runtime.executionContextDestroyed"
                if params["executionContextId"].as_i64() == self.engine_world =>
            {
                self.engine_world = None;
            }
            "Runtime.executionContextsCleared" => self.engine_world = None,
            "Target.attachedToTarget" if params["targetInfo"]["type"] == "iframe" => {
                if let (Some(target), Some(session)) = (
                    params["targetInfo"]["targetId"].as_str(),
                    params["sessionId"].as_str(),
                ) {
                    let list = &mut self.child_sessions;
                    list.retain(|(t, _)| t != target);
                    list.push((target.to_string(), session.to_string()));
                }
            }
            "Target.detachedFromTarget" => {
                if let Some(session) = params["sessionId"].as_str() {
                    self.child_sessions.retain(|(_, s)| s != session);
                }
            }
            "Page.fileChooserOpened" => {
                if let Some(node) = params["backendNodeId"].as_i64() {
                    self.file_chooser = Some(node);
                }
            }
            "Page.navigatedWithinDocument" => {
                if let Some(doc) = self.doc.as_mut() {
                    if params["frameId"].as_str() == Some(doc.frame_id.as_str()) {
                        if let Some(u) = params["url"].as_str() {
                            doc.url = u.to_string();
                            self.url = Some(u.to_string());
                        }
                    }
                }
            }
            "Inspector.targetCrashed" => {
                self.crashed = true;
                self.dialog = None;
            }
            "Page.javascriptDialogOpening" => {
                self.dialog = Some(Dialog {
                    kind: params["type"].as_str().unwrap_or("alert").to_string(),
                    message: params["message"].as_str().unwrap_or("").to_string(),
                    default_prompt: params["defaultPrompt"].as_str().unwrap_or("").to_string(),
                });
            }
            "Page.javascriptDialogClosed" => {
                self.dialog = None;
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
                self.push(level, text);
            }
            "Runtime.exceptionThrown" => {
                let text = super::calls::exception_text(&params["exceptionDetails"]);
                self.push("error", format!("uncaught {text}"));
            }
            _ => {}
        }
    }

    fn push(&mut self, level: &str, mut text: String) {
        if text.len() > CONSOLE_TEXT_MAX {
            text = super::network_log::cut(&text, CONSOLE_TEXT_MAX);
        }
        let log = &mut self.console;
        if log.entries.len() == CONSOLE_KEEP {
            log.entries.pop_front();
            log.dropped += 1;
        }
        log.entries.push_back(ConsoleEntry {
            level: level.to_string(),
            text,
        });
    }

    pub fn url(&self) -> Option<String> {
        self.url.clone()
    }

    /// The URL the top frame failed to load, while it shows the browser's
    /// error page.
    pub fn unreachable(&self) -> Option<String> {
        self.unreachable.clone()
    }

    /// The file input of an open (intercepted) file chooser.
    /// The engine world's context in the top document `loader_id`, when
    /// the browser announced it for that document.
    pub fn engine_world(&self, loader_id: &str) -> Option<i64> {
        self.doc
            .as_ref()
            .filter(|d| d.loader_id == loader_id)
            .and(self.engine_world)
    }

    pub fn file_chooser(&self) -> Option<i64> {
        self.file_chooser
    }

    pub fn take_file_chooser(&mut self) -> Option<i64> {
        self.file_chooser.take()
    }

    /// The top frame's document, if navigation events told us.
    pub fn doc(&self) -> Option<Doc> {
        self.doc.clone()
    }

    /// Records a document read from the browser (`Page.getFrameTree`).
    pub fn set_doc(&mut self, doc: Doc) {
        self.doc = Some(doc);
    }

    /// Events may have been missed (the debugger detached): ask again.
    pub fn forget_doc(&mut self) {
        self.doc = None;
        self.engine_world = None;
        self.file_chooser = None;
    }

    /// The child session of the out-of-process frame `frame_id`, if the
    /// tab's session attached one.
    pub fn child_session(&self, frame_id: &str) -> Option<String> {
        self.child_sessions
            .iter()
            .find(|(t, _)| t == frame_id)
            .map(|(_, s)| s.clone())
    }

    pub fn crashed(&self) -> bool {
        self.crashed
    }

    pub fn dialog(&self) -> Option<Dialog> {
        self.dialog.clone()
    }

    pub fn console(&self) -> Vec<ConsoleEntry> {
        self.console_since(0)
    }

    /// How many entries the tab logged so far, those dropped included (for
    /// "new console errors" reports: see [`Self::console_since`]).
    pub fn console_len(&self) -> usize {
        self.console.dropped + self.console.entries.len()
    }

    /// The kept entries logged after the first `from` of [`Self::console_len`].
    pub fn console_since(&self, from: usize) -> Vec<ConsoleEntry> {
        let skip = from.saturating_sub(self.console.dropped);
        self.console.entries.iter().skip(skip).cloned().collect()
    }

    /// Entries kept (for the debug counts of browser_status).
    pub fn console_kept(&self) -> usize {
        self.console.entries.len()
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
    fn the_engine_world_of_the_top_document_is_known_from_its_announcement() {
        let mut e = TabEvents::default();
        let nav =
            |loader: &str| json!({"frame": {"id": "F", "url": "http://h/", "loaderId": loader}});
        let made = |id: i64, name: &str, frame: &str| {
            json!({"context": {"id": id, "name": name,
                   "auxData": {"isDefault": false, "frameId": frame, "type": "isolated"}}})
        };
        e.record("Page.frameNavigated", &nav("L1"));
        e.record("Runtime.executionContextCreated", &made(7, "other", "F"));
        e.record(
            "Runtime.executionContextCreated",
            &made(8, "tabwire", "child"),
        );
        assert_eq!(
            e.engine_world("L1"),
            None,
            "another world, or a child frame's"
        );
        e.record("Runtime.executionContextCreated", &made(9, "tabwire", "F"));
        assert_eq!(e.engine_world("L1"), Some(9));
        assert_eq!(
            e.engine_world("L0"),
            None,
            "only for the document it was made in"
        );
        e.record("Page.frameNavigated", &nav("L2"));
        assert_eq!(
            e.engine_world("L2"),
            None,
            "a new document's world is not yet announced"
        );
        e.record("Runtime.executionContextCreated", &made(10, "tabwire", "F"));
        e.record(
            "Runtime.executionContextDestroyed",
            &json!({"executionContextId": 10}),
        );
        assert_eq!(e.engine_world("L2"), None);
    }

    #[test]
    fn dialogs_open_and_close() {
        let mut ev = TabEvents::default();
        ev.record(
            "Page.javascriptDialogOpening",
            &json!({"type": "confirm", "message": "Sure?"}),
        );
        let d = ev.dialog().unwrap();
        let fence = crate::fence::Fence::with_id("abc123abc123");
        assert!(d.describe(&fence).contains(
            "confirm dialog is open: <<page-content abc123abc123>>Sure?<<end-page-content abc123abc123>>"
        ));
        ev.record("Page.javascriptDialogClosed", &json!({"result": true}));
        assert_eq!(ev.dialog(), None);
    }

    #[test]
    fn a_crash_is_remembered_until_a_new_document() {
        let mut ev = TabEvents::default();
        ev.record("Inspector.targetCrashed", &json!({}));
        assert!(ev.crashed() && !TabEvents::default().crashed());
        ev.record(
            "Page.frameNavigated",
            &json!({"frame": {"id": "f", "url": "http://x/"}}),
        );
        assert!(!ev.crashed());
    }

    #[test]
    fn console_keeps_levels_text_and_a_bounded_history() {
        let mut ev = TabEvents::default();
        ev.record("Runtime.consoleAPICalled",
            &json!({"type": "warning", "args": [{"type": "string", "value": "low"}, {"type": "number", "value": 3}]}),
        );
        ev.record(
            "Runtime.exceptionThrown",
            &json!({"exceptionDetails": {"exception": {"description": "Error: x\n at y"}}}),
        );
        assert_eq!(
            ev.console(),
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
                "Runtime.consoleAPICalled",
                &json!({"type": "log", "args": [{"type": "number", "value": i}]}),
            );
        }
        assert_eq!(ev.console_kept(), CONSOLE_KEEP);
        assert_eq!(ev.console().len(), CONSOLE_KEEP);
        assert_eq!(ev.console().last().unwrap().text, "299");
    }

    #[test]
    fn new_entries_are_found_after_the_log_is_full() {
        let mut ev = TabEvents::default();
        let log = |ev: &mut TabEvents, text: &str| {
            ev.record(
                "Runtime.consoleAPICalled",
                &json!({"type": "error", "args": [{"type": "string", "value": text}]}),
            )
        };
        for i in 0..CONSOLE_KEEP + 50 {
            log(&mut ev, &i.to_string());
        }
        let before = ev.console_len();
        assert_eq!(before, CONSOLE_KEEP + 50);
        assert!(ev.console_since(before).is_empty());
        log(&mut ev, "new");
        let new = ev.console_since(before);
        assert_eq!(new.len(), 1);
        assert_eq!(new[0].text, "new");
        // From before what was dropped: everything kept.
        assert_eq!(ev.console_since(3).len(), CONSOLE_KEEP);
    }

    #[test]
    fn a_huge_console_entry_is_cut() {
        let mut ev = TabEvents::default();
        let big = "é".repeat(CONSOLE_TEXT_MAX);
        ev.record(
            "Runtime.consoleAPICalled",
            &json!({"type": "log", "args": [{"type": "string", "value": big}]}),
        );
        let text = &ev.console()[0].text;
        assert!(text.len() < CONSOLE_TEXT_MAX + 100, "{}", text.len());
        assert!(
            text.ends_with(&format!("({} more bytes not kept)", CONSOLE_TEXT_MAX)),
            "{text}"
        );
    }
}
