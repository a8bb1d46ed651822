//! `browser_click` and `browser_type`: trusted input through CDP `Input.*`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::session::Element;
use super::{Kind, Response, Session, ToolDef, ToolError};
use crate::backend::TabId;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClickArgs {
    /// The element to click: a ref from the latest browser_snapshot (like "e12") or a CSS selector.
    pub target: String,
    /// Optional human-readable description of the element, for the log and for the user.
    pub element: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TypeArgs {
    /// The field to type into: a ref from the latest browser_snapshot (like "e12") or a CSS selector.
    pub target: String,
    /// The text to enter. It replaces the field's current content.
    pub text: String,
    /// Press Enter after typing, e.g. to submit a search or a form (default false).
    #[serde(default)]
    pub submit: bool,
    /// Optional human-readable description of the element, for the log and for the user.
    pub element: Option<String>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "browser_click",
            "Click",
            Kind::Action,
            "Click an element with a real (trusted) mouse click at its center, after scrolling \
             it into view. `target` is a ref from the latest browser_snapshot or a CSS \
             selector. Waits for a navigation the click starts. Returns what happened and the \
             page title and URL. If the ref is stale, take a new snapshot and retry.",
            |s: Session, a: ClickArgs| async move {
                let tab = s.tab().await?;
                let el = s.element(tab, &a.target).await?;
                let (_, navigated) = s.settle(tab, || click(&s, tab, el)).await?;
                done(
                    &s,
                    tab,
                    format!("Clicked {}", describe(&a.target, &a.element)),
                    navigated,
                )
                .await
            },
        ),
        ToolDef::new(
            "browser_type",
            "Type text",
            Kind::Action,
            "Type text into an editable element (text box, text area, contenteditable), \
             replacing what it contains, and optionally press Enter to submit. `target` is a \
             ref from the latest browser_snapshot or a CSS selector. Returns what happened and \
             the page title and URL. If the element is not editable or the ref is stale, the \
             error says so; take a new snapshot and retry.",
            |s: Session, a: TypeArgs| async move {
                let tab = s.tab().await?;
                let el = s.element(tab, &a.target).await?;
                let (_, navigated) = s
                    .settle(tab, || async {
                        fill(&s, tab, el, &a.text).await?;
                        if a.submit {
                            press_enter(&s, tab).await?;
                        }
                        Ok(())
                    })
                    .await?;
                let what = format!(
                    "Typed {} characters into {}{}",
                    a.text.chars().count(),
                    describe(&a.target, &a.element),
                    if a.submit { " and pressed Enter" } else { "" }
                );
                done(&s, tab, what, navigated).await
            },
        ),
    ]
}

fn describe(target: &str, element: &Option<String>) -> String {
    match element {
        Some(e) if !e.trim().is_empty() => format!("{e} ({target})"),
        _ => target.to_string(),
    }
}

async fn done(
    s: &Session,
    tab: TabId,
    what: String,
    navigated: bool,
) -> Result<Response, ToolError> {
    let page = s.page_line(tab).await?;
    let nav = if navigated {
        "\nThe page navigated: refs from earlier snapshots are stale; call browser_snapshot."
    } else {
        ""
    };
    Ok(Response::text(format!("{what}.{nav}\n{page}")))
}

/// Center of the element's first box in viewport coordinates.
async fn center(s: &Session, tab: TabId, el: Element) -> Result<(f64, f64), ToolError> {
    let id = el.backend_node_id;
    // Not every node can scroll (e.g. display: contents); the quads decide.
    let _ = s
        .cdp(
            tab,
            "DOM.scrollIntoViewIfNeeded",
            json!({"backendNodeId": id}),
        )
        .await;
    let quads = s
        .cdp(tab, "DOM.getContentQuads", json!({"backendNodeId": id}))
        .await
        .map_err(|_| {
            ToolError(
                "the element is not rendered (hidden or detached), so it cannot be clicked".into(),
            )
        })?;
    let q = quads["quads"][0]
        .as_array()
        .filter(|q| q.len() == 8)
        .ok_or_else(|| {
            ToolError(
                "the element has no visible box (it may be hidden); it cannot be clicked".into(),
            )
        })?;
    let xs: Vec<f64> = q.iter().step_by(2).filter_map(|v| v.as_f64()).collect();
    let ys: Vec<f64> = q
        .iter()
        .skip(1)
        .step_by(2)
        .filter_map(|v| v.as_f64())
        .collect();
    Ok((xs.iter().sum::<f64>() / 4.0, ys.iter().sum::<f64>() / 4.0))
}

async fn click(s: &Session, tab: TabId, el: Element) -> Result<(), ToolError> {
    let (x, y) = center(s, tab, el).await?;
    for (kind, count) in [("mouseMoved", 0), ("mousePressed", 1), ("mouseReleased", 1)] {
        let mut ev = json!({"type": kind, "x": x, "y": y});
        if count > 0 {
            ev["button"] = json!("left");
            ev["clickCount"] = json!(count);
        }
        s.cdp(tab, "Input.dispatchMouseEvent", ev).await?;
    }
    Ok(())
}

/// Focuses the element, selects its content and replaces it with `text`.
async fn fill(s: &Session, tab: TabId, el: Element, text: &str) -> Result<(), ToolError> {
    let id = el.backend_node_id;
    let node = s
        .cdp(tab, "DOM.resolveNode", json!({"backendNodeId": id}))
        .await?;
    let object_id = node["object"]["objectId"].as_str().unwrap_or_default();
    // Focus and select in one round trip; report what kind of element it is.
    let r = s
        .cdp(
            tab,
            "Runtime.callFunctionOn",
            json!({
                "objectId": object_id,
                "returnByValue": true,
                "functionDeclaration": SELECT_FOR_TYPING,
            }),
        )
        .await?;
    if r["result"]["value"] != json!(true) {
        return Err(ToolError(
            "the element is not editable (not a text field, text area or contenteditable); \
             check the snapshot for the right field"
                .into(),
        ));
    }
    if text.is_empty() {
        s.cdp(
            tab,
            "Input.dispatchKeyEvent",
            json!({"type": "keyDown", "key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46}),
        )
        .await?;
        s.cdp(
            tab,
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": "Delete", "code": "Delete", "windowsVirtualKeyCode": 46}),
        )
        .await?;
    } else {
        // insertText handles any Unicode, unlike per-key events.
        s.cdp(tab, "Input.insertText", json!({"text": text}))
            .await?;
    }
    Ok(())
}

const SELECT_FOR_TYPING: &str = "function() {
  const editable = (this instanceof HTMLInputElement || this instanceof HTMLTextAreaElement)
    ? !this.readOnly && !this.disabled
    : this.isContentEditable;
  if (!editable) return false;
  this.focus();
  if (typeof this.select === 'function') this.select();
  else { const r = document.createRange(); r.selectNodeContents(this);
         const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r); }
  return true;
}";

async fn press_enter(s: &Session, tab: TabId) -> Result<(), ToolError> {
    let key = json!({"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13});
    let mut down = key.clone();
    down["type"] = json!("keyDown");
    down["text"] = json!("\r");
    let mut up = key;
    up["type"] = json!("keyUp");
    s.cdp(tab, "Input.dispatchKeyEvent", down).await?;
    s.cdp(tab, "Input.dispatchKeyEvent", up).await?;
    Ok(())
}
