//! The tools a page declares, as tabwire keeps them: a tool and the hints
//! the page gives, and the list the browser's registry announced for one
//! tab, kept current from its events.

use serde_json::Value;

/// What a page says of a tool (the browser's names for its hints).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Annotations {
    /// Only reads: a read-only server may call it.
    pub read_only: bool,
    /// Has effects a person would want to confirm.
    pub consequential: bool,
    /// Its output comes from others (reviews, messages).
    pub untrusted_content: bool,
    /// A form tool that submits itself (otherwise a person submits).
    pub autosubmit: bool,
}

impl Annotations {
    fn from_json(a: &Value) -> Self {
        let on = |k: &str| a[k].as_bool() == Some(true);
        Annotations {
            read_only: on("readOnly"),
            consequential: on("consequential"),
            untrusted_content: on("untrustedContent"),
            autosubmit: on("autosubmit"),
        }
    }

    /// The hints that are on, as words for a listing.
    pub fn words(&self) -> Vec<&'static str> {
        [
            (self.read_only, "read-only"),
            (self.consequential, "consequential"),
            (self.untrusted_content, "untrusted content"),
            (self.autosubmit, "submits itself"),
        ]
        .into_iter()
        .filter_map(|(on, w)| on.then_some(w))
        .collect()
    }
}

/// One tool a page declares.
#[derive(Debug, Clone, PartialEq)]
pub struct PageTool {
    pub name: String,
    pub description: String,
    pub input_schema: Option<Value>,
    pub annotations: Annotations,
    /// The frame of the browser's registry it lives in; None: the shim's.
    pub frame_id: Option<String>,
    /// Declared by a `<form>` (the browser fills it in; a person submits
    /// it unless the form submits itself).
    pub form: bool,
}

impl PageTool {
    /// A tool as the browser's registry or the shim's listing describes it
    /// (the browser's carry their frame's id, a form's its node).
    fn from_json(t: &Value) -> Option<Self> {
        Some(PageTool {
            name: t["name"].as_str()?.to_string(),
            description: t["description"].as_str().unwrap_or("").to_string(),
            input_schema: t.get("inputSchema").filter(|s| s.is_object()).cloned(),
            annotations: Annotations::from_json(&t["annotations"]),
            frame_id: t["frameId"].as_str().map(str::to_string),
            form: t.get("backendNodeId").is_some(),
        })
    }

    /// A tool of the browser's registry (it must name its frame).
    fn from_cdp(t: &Value) -> Option<Self> {
        Self::from_json(t).filter(|tool| tool.frame_id.is_some())
    }

    /// A tool of the shim's (it lives in the page's top frame).
    pub(super) fn from_shim(t: &Value) -> Option<Self> {
        Self::from_json(t).map(|tool| PageTool {
            frame_id: None,
            form: false,
            ..tool
        })
    }
}

/// The tools the browser's registry announced for one tab, kept current
/// from its events.
#[derive(Debug, Default)]
pub struct NativeTools {
    /// `WebMCP.enable` was sent in this debugger session.
    pub enabled: bool,
    pub(super) tools: Vec<PageTool>,
    /// Frames in a process of their own (their target id is the frame's
    /// id): their tools come and go with their own session.
    remote_frames: Vec<String>,
}

impl NativeTools {
    /// Folds one of the tab's events in; true when the list changed.
    pub fn record(&mut self, method: &str, params: &Value) -> bool {
        let before = self.tools.len();
        let mut added = false;
        match method {
            "WebMCP.toolsAdded" => {
                for t in params["tools"].as_array().into_iter().flatten() {
                    if let Some(tool) = PageTool::from_cdp(t) {
                        self.tools
                            .retain(|k| !(k.name == tool.name && k.frame_id == tool.frame_id));
                        self.tools.push(tool);
                        added = true;
                    }
                }
            }
            "WebMCP.toolsRemoved" => {
                for t in params["tools"].as_array().into_iter().flatten() {
                    let (name, frame) = (t["name"].as_str(), t["frameId"].as_str());
                    self.tools.retain(|k| {
                        !(Some(k.name.as_str()) == name && k.frame_id.as_deref() == frame)
                    });
                }
            }
            // A new document has none of the old one's tools (the browser
            // does not say so). A page restored from the back/forward
            // cache announces its tools before this event: keep them.
            "Page.frameNavigated" if params["type"] != "BackForwardCacheRestore" => {
                if params["frame"].get("parentId").is_none() {
                    self.tools.clear();
                    self.remote_frames.clear();
                } else if let Some(id) = params["frame"]["id"].as_str() {
                    // What the tab's session says of a frame in another
                    // process can come after that frame's own session
                    // announced its new tools: its session says when they go.
                    if !self.remote_frames.iter().any(|f| f == id) {
                        self.tools.retain(|k| k.frame_id.as_deref() != Some(id));
                    }
                }
            }
            // (A frame moving to a process of its own is detached with
            // reason "swap": it lives on there.)
            "Page.frameDetached" if params["reason"] != "swap" => {
                if let Some(id) = params["frameId"].as_str() {
                    self.tools.retain(|k| k.frame_id.as_deref() != Some(id));
                }
            }
            "Target.attachedToTarget" if params["targetInfo"]["type"] == "iframe" => {
                if let Some(id) = params["targetInfo"]["targetId"].as_str() {
                    self.remote_frames.push(id.to_string());
                }
            }
            // An out-of-process frame went (or navigated to another site):
            // its target id is its frame's id.
            "Target.detachedFromTarget" => {
                if let Some(id) = params["targetId"].as_str() {
                    self.tools.retain(|k| k.frame_id.as_deref() != Some(id));
                    self.remote_frames.retain(|f| f != id);
                }
            }
            _ => {}
        }
        added || self.tools.len() != before
    }

    /// The debugger let go: events were missed, and the registry must be
    /// enabled again.
    pub fn detached(&mut self) {
        *self = NativeTools::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn added(name: &str, frame: &str) -> Value {
        json!({"tools": [{"name": name, "description": "d", "frameId": frame,
            "annotations": {"readOnly": true, "consequential": false}}]})
    }

    #[test]
    fn the_registry_follows_the_browser_s_events() {
        let mut n = NativeTools::default();
        n.record("WebMCP.toolsAdded", &added("a", "F1"));
        n.record("WebMCP.toolsAdded", &added("b", "F2"));
        n.record("WebMCP.toolsAdded", &added("a", "F1"));
        assert_eq!(n.tools.len(), 2);
        assert!(n.tools[0].annotations.read_only);
        n.record(
            "WebMCP.toolsRemoved",
            &json!({"tools": [{"name": "a", "frameId": "F1"}]}),
        );
        assert_eq!(
            n.tools.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
            ["b"]
        );
        // The child frame navigates: its tools go.
        n.record(
            "Page.frameNavigated",
            &json!({"frame": {"id": "F2", "parentId": "F1"}, "type": "Navigation"}),
        );
        assert!(n.tools.is_empty());
        // A page back from the cache announces its tools first: they stay.
        n.record("WebMCP.toolsAdded", &added("c", "F1"));
        n.record(
            "Page.frameNavigated",
            &json!({"frame": {"id": "F1"}, "type": "BackForwardCacheRestore"}),
        );
        assert_eq!(n.tools.len(), 1);
        n.record(
            "Page.frameNavigated",
            &json!({"frame": {"id": "F1"}, "type": "Navigation"}),
        );
        assert!(n.tools.is_empty());
        // An out-of-process frame's tools stay when the tab's session
        // reports its navigation or its swap late, and go with its session.
        n.record(
            "Target.attachedToTarget",
            &json!({"sessionId": "S", "targetInfo": {"type": "iframe", "targetId": "X1"}}),
        );
        n.record("WebMCP.toolsAdded", &added("far", "X1"));
        n.record(
            "Page.frameNavigated",
            &json!({"frame": {"id": "X1", "parentId": "F1"}, "type": "Navigation"}),
        );
        n.record(
            "Page.frameDetached",
            &json!({"frameId": "X1", "reason": "swap"}),
        );
        assert_eq!(n.tools.len(), 1);
        assert!(n.record(
            "Target.detachedFromTarget",
            &json!({"sessionId": "S", "targetId": "X1"})
        ));
        assert!(n.tools.is_empty());
    }

    #[test]
    fn form_tools_and_hints_are_read() {
        let t = PageTool::from_cdp(&json!({"name": "search", "description": "d", "frameId": "F1",
            "backendNodeId": 9, "annotations": {"autosubmit": true}, "inputSchema": {"type": "object"}}))
        .unwrap();
        assert!(t.form && t.annotations.autosubmit);
        assert_eq!(t.annotations.words(), ["submits itself"]);
        assert!(t.input_schema.is_some());
    }
}
