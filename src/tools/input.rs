//! Acting on elements with trusted input (CDP `Input.*`): click, hover,
//! type, press a key, choose options, fill a form.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::def::{Kind, Response, ToolDef, ToolError};
use super::keys;
use super::session::Session;
use super::session::{next_event, Element, Outcome};
use crate::backend::TabId;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MouseButton {
    Left,
    Right,
    Middle,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClickArgs {
    pub target: String,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    pub element: Option<String>,
    pub button: Option<MouseButton>,
    #[serde(default, rename = "doubleClick")]
    pub double_click: bool,
    #[serde(default)]
    pub modifiers: Vec<Modifier>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
pub enum Modifier {
    Alt,
    Control,
    Meta,
    Shift,
}

/// CDP's modifier bit mask.
fn modifier_mask(mods: &[Modifier]) -> i64 {
    mods.iter()
        .map(|m| match m {
            Modifier::Alt => 1,
            Modifier::Control => 2,
            Modifier::Meta => 4,
            Modifier::Shift => 8,
        })
        .fold(0, |a, b| a | b)
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct HoverArgs {
    pub target: String,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    pub element: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TypeArgs {
    pub target: String,
    pub text: String,
    #[serde(default)]
    pub submit: bool,
    #[serde(default)]
    pub slowly: bool,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    pub element: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PressKeyArgs {
    pub key: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SelectArgs {
    pub target: String,
    pub values: Vec<String>,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    pub element: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    Textbox,
    Checkbox,
    Radio,
    Combobox,
    Slider,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FormField {
    pub target: String,
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// true/false for checkbox, radio.
    pub value: String,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScrollArgs {
    pub target: Option<String>,
    #[serde(rename = "deltaX")]
    pub delta_x: Option<f64>,
    #[serde(rename = "deltaY")]
    pub delta_y: Option<f64>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UploadArgs {
    pub target: Option<String>,
    /// Absolute.
    pub paths: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DragArgs {
    #[serde(rename = "startTarget")]
    pub start_target: String,
    #[serde(rename = "endTarget")]
    pub end_target: String,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    #[serde(rename = "startElement")]
    pub start_element: Option<String>,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    #[serde(rename = "endElement")]
    pub end_element: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FillFormArgs {
    pub fields: Vec<FormField>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "browser_click",
            "Click",
            Kind::Action,
            "Click `target` (trusted input). Actions report snapshot changes (or the new page), dialogs and console errors.",
            |s: Session, a: ClickArgs| async move {
                let tab = s.tab().await?;
                let el = s.element(tab, &a.target).await?;
                let button = match a.button {
                    None | Some(MouseButton::Left) => "left",
                    Some(MouseButton::Right) => "right",
                    Some(MouseButton::Middle) => "middle",
                };
                let clicks = if a.double_click { 2 } else { 1 };
                let mods = modifier_mask(&a.modifiers);
                let aim = aim(&s, tab, el).await?;
                let outcome = s
                    .settle(tab, || click_at(&s, tab, aim.point, button, clicks, mods))
                    .await?;
                let verb = if a.double_click {
                    "Double-clicked"
                } else {
                    "Clicked"
                };
                done(
                    &s,
                    tab,
                    format!("{verb} {}{}", describe(&a.target, &a.element), aim.landed(&s)),
                    &outcome,
                )
                .await
            },
        ),
        ToolDef::new(
            "browser_drag",
            "Drag and drop",
            Kind::Action,
            "Drag `startTarget` onto `endTarget` (HTML5 or mouse-driven).",
            |s: Session, a: DragArgs| async move {
                let tab = s.tab().await?;
                let from = s.element(tab, &a.start_target).await?;
                let to = s.element(tab, &a.end_target).await?;
                // Both ends must be where a person could reach them.
                aim(&s, tab, to.clone()).await?;
                aim(&s, tab, from.clone()).await?;
                let outcome = s.settle(tab, || drag(&s, tab, from, to)).await?;
                let what = format!(
                    "Dragged {} onto {}",
                    describe(&a.start_target, &a.start_element),
                    describe(&a.end_target, &a.end_element)
                );
                done(&s, tab, what, &outcome).await
            },
        ),
        ToolDef::new(
            "browser_hover",
            "Hover",
            Kind::Action,
            "Move the mouse over `target` (menus, tooltips).",
            |s: Session, a: HoverArgs| async move {
                let tab = s.tab().await?;
                let el = s.element(tab, &a.target).await?;
                let aim = aim(&s, tab, el).await?;
                let mut outcome = s
                    .settle(tab, || async {
                        let (x, y) = aim.point;
                        let (method, ev) = mouse_event("mouseMoved", x, y, None, 0);
                        s.cdp(tab, method, ev).await.map(|_| ())
                    })
                    .await?;
                outcome.css_may_change = true;
                done(
                    &s,
                    tab,
                    format!("Hovered {}{}", describe(&a.target, &a.element), aim.landed(&s)),
                    &outcome,
                )
                .await
            },
        ),
        ToolDef::new(
            "browser_type",
            "Type text",
            Kind::Action,
            "Replace the text of a field; submit presses Enter after; slowly types key by key.",
            |s: Session, a: TypeArgs| async move {
                let tab = s.tab().await?;
                let el = s.element(tab, &a.target).await?;
                let outcome = s
                    .settle(tab, || async {
                        if a.slowly {
                            type_slowly(&s, tab, el, &a.text).await?;
                        } else {
                            fill_text(&s, tab, el, &a.text).await?;
                        }
                        if a.submit {
                            press(&s, tab, "Enter").await?;
                        }
                        Ok(())
                    })
                    .await?;
                let mut what = format!(
                    "Typed {} characters into {}{}",
                    a.text.chars().count(),
                    describe(&a.target, &a.element),
                    if a.submit { " and pressed Enter" } else { "" }
                );
                // Enter may submit and clear the field, or leave the page.
                if !a.submit && !outcome.navigated {
                    if let Some(note) = typed_back(&s, tab, el_again(&s, tab, &a.target).await, &a.text).await {
                        what.push_str(&note);
                    }
                }
                done(&s, tab, what, &outcome).await
            },
        ),
        ToolDef::new(
            "browser_press_key",
            "Press a key",
            Kind::Action,
            "Press a key in the focused element: Enter, Escape, ArrowDown, Control+A…",
            |s: Session, a: PressKeyArgs| async move {
                let tab = s.tab().await?;
                keys::parse(&a.key).map_err(ToolError)?;
                let outcome = s.settle(tab, || press(&s, tab, &a.key)).await?;
                done(&s, tab, format!("Pressed {}", a.key), &outcome).await
            },
        ),
        ToolDef::new(
            "browser_select_option",
            "Select option",
            Kind::Action,
            "Choose options of a <select> by value or label.",
            |s: Session, a: SelectArgs| async move {
                let tab = s.tab().await?;
                let el = s.element(tab, &a.target).await?;
                let mut chosen = Vec::new();
                let outcome = s
                    .settle(tab, || async {
                        chosen = select_options(&s, tab, el, &a.values).await?;
                        Ok(())
                    })
                    .await?;
                let mut what = format!(
                    "Selected {} in {}",
                    chosen.join(", "),
                    describe(&a.target, &a.element)
                );
                if !outcome.navigated {
                    if let Some(el) = el_again(&s, tab, &a.target).await {
                        let now = s.call_on(tab, el, SELECTED_NOW, Value::Null).await;
                        if let Ok(Value::Array(now)) = now {
                            let now: Vec<&str> = now.iter().filter_map(Value::as_str).collect();
                            if now != chosen.iter().map(String::as_str).collect::<Vec<_>>() {
                                what.push_str(&format!(
                                    " (but the page changed it back: now {})",
                                    s.fence().neutralise(&quote_list(&now))
                                ));
                            }
                        }
                    }
                }
                done(&s, tab, what, &outcome).await
            },
        ),
        ToolDef::new(
            "browser_fill_form",
            "Fill form",
            Kind::Action,
            "Fill several fields in order; does not submit.",
            |s: Session, a: FillFormArgs| async move {
                let tab = s.tab().await?;
                let mut filled = Vec::new();
                let outcome = s
                    .settle(tab, || async {
                        for f in &a.fields {
                            fill_field(&s, tab, f).await.map_err(|e| {
                                ToolError(format!(
                                    "field {} failed after {} filled: {e}",
                                    f.name.as_deref().unwrap_or(&f.target),
                                    filled.len()
                                ))
                            })?;
                            filled.push(f.name.clone().unwrap_or_else(|| f.target.clone()));
                        }
                        Ok(())
                    })
                    .await?;
                let mut what = format!("Filled {}", filled.join(", "));
                if !outcome.navigated {
                    for f in &a.fields {
                        if let Some(note) = field_back(&s, tab, f).await {
                            what.push_str(&note);
                        }
                    }
                }
                done(&s, tab, what, &outcome).await
            },
        ),
        ToolDef::new(
            "browser_scroll",
            "Scroll",
            Kind::Action,
            "Scroll the page or `target` by deltaX/deltaY px (default: a screen down).",
            |s: Session, a: ScrollArgs| async move {
                let tab = s.tab().await?;
                let (x, y) = match &a.target {
                    Some(t) => center(&s, tab, s.element(tab, t).await?).await?,
                    None => {
                        let v = s.eval(tab, "[innerWidth / 2, innerHeight / 2]").await?;
                        (v[0].as_f64().unwrap_or(100.0), v[1].as_f64().unwrap_or(100.0))
                    }
                };
                let dy = match a.delta_y {
                    Some(d) => d,
                    None if a.delta_x.is_some() => 0.0,
                    None => s.eval(tab, "innerHeight * 0.8").await?.as_f64().unwrap_or(500.0),
                };
                let dx = a.delta_x.unwrap_or(0.0);
                let before = s.eval(tab, "[scrollX, scrollY]").await?;
                s.cdp(
                    tab,
                    "Input.dispatchMouseEvent",
                    json!({"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy}),
                )
                .await?;
                // The wheel scrolls asynchronously: wait (bounded) for the
                // position to move, in the page, on animation frames.
                let pos = s
                    .eval(tab, &format!("new Promise(r => {{ const b = {before}; let n = 0; const t = () => (scrollX !== b[0] || scrollY !== b[1] || ++n > 30) ? r([scrollX, scrollY]) : requestAnimationFrame(t); t(); }})"))
                    .await?;
                Ok(Response::text(format!("Scrolled by ({dx}, {dy}); the page is now at {pos} (x, y).")))
            },
        ),
        ToolDef::new(
            "browser_file_upload",
            "Upload files",
            Kind::Action,
            "Set files of file input `target`, or of the chooser a click opened; --upload-dir only.",
            |s: Session, a: UploadArgs| async move {
                let tab = s.tab().await?;
                let files = a
                    .paths
                    .iter()
                    .map(|p| s.policy().check_upload(std::path::Path::new(p)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(ToolError)?;
                let (el, what) = match &a.target {
                    Some(t) => (s.element(tab, t).await?, t.clone()),
                    None => match s.take_file_chooser(tab) {
                        Some(node) => (Element::by_node(node), "the open file chooser".to_string()),
                        None => {
                            return Err(ToolError(
                                "no target given and no file chooser is open: pass the file input's ref, \
                                 or click the upload button first"
                                    .into(),
                            ))
                        }
                    },
                };
                let is_file_input = s
                    .call_on(tab, el.clone(), "function() { return this.localName === 'input' && this.type === 'file'; }", Value::Null)
                    .await?;
                if is_file_input != json!(true) {
                    return Err(ToolError("the element is not an <input type=file>".into()));
                }
                // Only absolute paths of existing files reach the browser: a
                // relative one is accepted and then crashes the renderer.
                let outcome = s
                    .settle(tab, || async {
                        s.cdp(
                            tab,
                            "DOM.setFileInputFiles",
                            el.dom_params(json!({"files": files})),
                        )
                        .await
                        .map(|_| ())
                    })
                    .await?;
                done(&s, tab, format!("Set {} file(s) on {what}", files.len()), &outcome).await
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

/// The result of an action: what was done, what changed, where we are.
pub(super) async fn done(
    s: &Session,
    tab: TabId,
    what: String,
    outcome: &Outcome,
) -> Result<Response, ToolError> {
    // While a dialog blocks the page, its title and URL cannot be read.
    let page = match outcome.dialog {
        Some(_) => String::new(),
        None => {
            match super::snapshot::after_action(s, tab, outcome.navigated, outcome.css_may_change)
                .await?
            {
                Some(changes) => format!("\n{changes}"),
                None => format!("\n{}", s.page_line(tab).await?),
            }
        }
    };
    Ok(Response::text(format!(
        "{what}.{}{page}",
        outcome.report(s.fence())
    )))
}

/// Center of the element's first box in viewport coordinates.
async fn center(s: &Session, tab: TabId, el: Element) -> Result<(f64, f64), ToolError> {
    let target = el.dom_params(json!({}));
    let session = el.session.as_deref();
    // Scroll and measure; not every node can scroll (e.g. display:
    // contents), so on failure the quads alone decide. In the tab's own
    // session both go in one message.
    let both = match session {
        None => {
            s.cdp_batch(
                tab,
                vec![
                    ("DOM.scrollIntoViewIfNeeded", target.clone()),
                    ("DOM.getContentQuads", target.clone()),
                ],
            )
            .await
        }
        Some(_) => {
            let _ = s
                .cdp_in(tab, session, "DOM.scrollIntoViewIfNeeded", target.clone())
                .await;
            s.cdp_in(tab, session, "DOM.getContentQuads", target.clone())
                .await
                .map(|q| vec![Value::Null, q])
        }
    };
    let quads = match both {
        Ok(mut r) if r.len() == 2 => r.remove(1),
        _ => s
            .cdp_in(tab, session, "DOM.getContentQuads", target)
            .await
            .map_err(|_| {
                ToolError("the element is not rendered (hidden or detached), so it cannot be reached with the mouse".into())
            })?,
    };
    // Points inside an out-of-process frame are the frame's own.
    let (dx, dy) = if el.frame != 0 {
        s.frame_offset(tab, el.frame).await?
    } else {
        (0.0, 0.0)
    };
    let q = quads["quads"][0]
        .as_array()
        .filter(|q| q.len() == 8)
        .ok_or_else(|| {
            ToolError("the element has no visible box (it may be hidden); it cannot be reached with the mouse".into())
        })?;
    let xs: Vec<f64> = q.iter().step_by(2).filter_map(Value::as_f64).collect();
    let ys: Vec<f64> = q
        .iter()
        .skip(1)
        .step_by(2)
        .filter_map(Value::as_f64)
        .collect();
    Ok((
        xs.iter().sum::<f64>() / 4.0 + dx,
        ys.iter().sum::<f64>() / 4.0 + dy,
    ))
}

/// One `Input.dispatchMouseEvent` command. `button` comes with a click
/// count for presses and releases; on a move it means the button is held
/// (a drag).
fn mouse_event(
    kind: &str,
    x: f64,
    y: f64,
    button: Option<(&str, i64)>,
    modifiers: i64,
) -> (&'static str, Value) {
    let mut ev = json!({"type": kind, "x": x, "y": y, "modifiers": modifiers});
    if let Some((b, clicks)) = button {
        ev["button"] = json!(b);
        if kind == "mouseMoved" {
            ev["buttons"] = json!(1);
        } else {
            ev["clickCount"] = json!(clicks);
        }
    }
    ("Input.dispatchMouseEvent", ev)
}

/// Whether a press on the element may start an HTML5 drag (then the
/// browser's drag is intercepted and replayed as drag events: synthetic
/// mouse input alone never finishes a native drag).
const NATIVELY_DRAGGABLE: &str = "function() { \
    return !!this.closest('[draggable=true], a[href], img') && this.closest('[draggable=false]') === null; }";

/// How long a native drag may take to announce itself after the move.
const DRAG_START_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

async fn drag(s: &Session, tab: TabId, from: Element, to: Element) -> Result<(), ToolError> {
    let native = s
        .call_on(tab, from.clone(), NATIVELY_DRAGGABLE, Value::Null)
        .await?
        .as_bool()
        .unwrap_or(false);
    let (x0, y0) = center(s, tab, from).await?;
    let mut events = s.backend().subscribe();
    if native {
        s.cdp(tab, "Input.setInterceptDrags", json!({"enabled": true}))
            .await?;
    }
    let result = async {
        let left = Some(("left", 1));
        s.cdp_batch(
            tab,
            vec![
                mouse_event("mouseMoved", x0, y0, None, 0),
                mouse_event("mousePressed", x0, y0, left, 0),
                // A few pixels first: pages start dragging past a small threshold.
                mouse_event("mouseMoved", x0 + 6.0, y0 + 6.0, left, 0),
            ],
        )
        .await?;
        let data = if native {
            let wait = next_event(&mut events, tab, |m, _| m == "Input.dragIntercepted");
            tokio::time::timeout(DRAG_START_WAIT, wait)
                .await
                .ok()
                .flatten()
                .map(|p| p["data"].clone())
        } else {
            None
        };
        let (x1, y1) = center(s, tab, to).await?;
        let mut finish: Vec<_> = match data {
            Some(data) => ["dragEnter", "dragOver", "drop"]
                .into_iter()
                .map(|kind| {
                    (
                        "Input.dispatchDragEvent",
                        json!({"type": kind, "x": x1, "y": y1, "data": data}),
                    )
                })
                .collect(),
            None => vec![
                mouse_event("mouseMoved", (x0 + x1) / 2.0, (y0 + y1) / 2.0, left, 0),
                mouse_event("mouseMoved", x1, y1, left, 0),
            ],
        };
        finish.push(mouse_event("mouseReleased", x1, y1, left, 0));
        s.cdp_batch(tab, finish).await.map(|_| ())
    }
    .await;
    if native {
        let _ = s
            .cdp(tab, "Input.setInterceptDrags", json!({"enabled": false}))
            .await;
    }
    result
}

async fn click(
    s: &Session,
    tab: TabId,
    el: Element,
    button: &str,
    clicks: i64,
    modifiers: i64,
) -> Result<(), ToolError> {
    let point = center(s, tab, el).await?;
    click_at(s, tab, point, button, clicks, modifiers).await
}

/// Where a person would press to reach an element, after scrolling it
/// into view; and what is there when it is not the element itself.
struct Aim {
    point: (f64, f64),
    /// The element that receives input at the point when something else
    /// covers the target (role, name, tag), as the page names it.
    covered_by: Option<String>,
}

impl Aim {
    /// The clause an action's answer adds when input went elsewhere.
    fn landed(&self, s: &Session) -> String {
        match &self.covered_by {
            Some(hit) => format!(
                " (the pointer landed on {}, which covers it there: that element received the input)",
                s.fence().neutralise(hit)
            ),
            None => String::new(),
        }
    }
}

/// Scrolls the element into view, finds its middle and hit-tests it.
/// An element that no scrolling brings into the viewport (in a closed
/// drawer or menu, off-canvas) is an error: nothing a person does there
/// would reach it. Another element on top is where a person's press
/// lands, so that is where input goes, and the answer says so.
async fn aim(s: &Session, tab: TabId, el: Element) -> Result<Aim, ToolError> {
    let mut point = center(s, tab, el.clone()).await?;
    let mut hit = s.call_on(tab, el.clone(), HIT_TEST, json!(false)).await?;
    if hit["moving"].as_bool() == Some(true) {
        // A drawer still sliding in, a menu still unfolding: aim where it
        // comes to rest (its animations end, at most 1 s).
        let _ = s
            .call_on(tab, el.clone(), ANIMATIONS_END, Value::Null)
            .await;
        point = center(s, tab, el.clone()).await?;
        hit = s.call_on(tab, el, HIT_TEST, json!(true)).await?;
    }
    if hit["outside"].as_bool() == Some(true) {
        return Err(ToolError(format!(
            "the element is outside the visible area even after scrolling (its middle is at x={}, y={} \
             in a {}x{} viewport): it is probably in a closed menu, drawer or carousel. Open that first \
             (look in browser_snapshot for a menu or navigation button), then try again",
            hit["x"], hit["y"], hit["w"], hit["h"]
        )));
    }
    Ok(Aim {
        point,
        covered_by: hit["hit"].as_str().map(str::to_string),
    })
}

/// Run on the target (in the snapshot engine's world): is its middle in
/// the viewport, and which element is on top there when it is not the
/// target, something inside it, or a label of it.
const HIT_TEST: &str = "function(settled) {
  const r = this.getClientRects()[0] || this.getBoundingClientRect();
  if (!r || !(r.width > 0 && r.height > 0)) return {};
  // Animations (CSS transitions too) running on it or an ancestor.
  const moving = document.getAnimations().some(a => a.playState === 'running' && a.effect
    && a.effect.target && a.effect.target.contains && a.effect.target.contains(this));
  if (moving && !settled) return {moving: true};
  const win = this.ownerDocument.defaultView;
  const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight) {
    return {outside: true, x: Math.round(x), y: Math.round(y), w: win.innerWidth, h: win.innerHeight};
  }
  const root = this.getRootNode();
  const hit = (root.elementFromPoint && root.elementFromPoint(x, y)) || this.ownerDocument.elementFromPoint(x, y);
  if (!hit) return {};
  for (let n = hit; n; n = n.parentNode || n.host) if (n === this) return {};
  const label = hit.closest && hit.closest('label');
  if (label && label.control === this) return {};
  const T = globalThis.__tabwire;
  const role = T ? T.roleOf(hit) : 'generic';
  const name = T ? (T.nameOf(hit, role) || T.text(hit, 200)).replace(/\\s+/g, ' ').trim().slice(0, 60) : '';
  return {hit: role + (name ? ' ' + JSON.stringify(name) : '') + ' (<' + hit.localName + '>)'};
}";

/// Resolves when the animations moving the element (on it or an
/// ancestor) have finished, or after 1 s.
const ANIMATIONS_END: &str = "function() {
  const mine = document.getAnimations().filter(a => a.playState === 'running' && a.effect
    && a.effect.target && a.effect.target.contains && a.effect.target.contains(this));
  return Promise.race([Promise.all(mine.map(a => a.finished.catch(() => 0))),
    new Promise(r => setTimeout(r, 1000))]).then(() => true);
}";

/// The element again after an action (the same ref or selector); None
/// when it is gone (the action replaced or removed it).
async fn el_again(s: &Session, tab: TabId, target: &str) -> Option<Element> {
    s.element(tab, target).await.ok()
}

/// A note when the field no longer holds what was typed (the page
/// formatted, cut or reset it); None when it does or cannot be read.
async fn typed_back(s: &Session, tab: TabId, el: Option<Element>, typed: &str) -> Option<String> {
    let now = s.call_on(tab, el?, VALUE_NOW, Value::Null).await.ok()?;
    let value = now["value"].as_str()?;
    let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    if norm(value) == norm(typed) {
        return None;
    }
    Some(if now["secret"].as_bool() == Some(true) {
        " (but the field does not hold what was typed: the page changed it)".to_string()
    } else {
        format!(
            " (but the field now holds {:?}: the page changed what was typed)",
            s.fence().neutralise(&cut_chars(value, 200))
        )
    })
}

/// The same check for one field of a filled form.
async fn field_back(s: &Session, tab: TabId, f: &FormField) -> Option<String> {
    let el = el_again(s, tab, &f.target).await;
    let name = f.name.as_deref().unwrap_or(&f.target);
    match f.kind {
        FieldType::Textbox => typed_back(s, tab, el, &f.value)
            .await
            .map(|n| format!("; {name}{n}")),
        FieldType::Checkbox | FieldType::Radio => {
            let want = matches!(
                f.value.to_ascii_lowercase().as_str(),
                "true" | "on" | "yes" | "1" | "checked"
            );
            let now = s
                .call_on(
                    tab,
                    el?,
                    "function() { return !!this.checked; }",
                    Value::Null,
                )
                .await
                .ok()?;
            (now != json!(want)).then(|| {
                format!(
                    "; but {name} is {} (the page changed it back)",
                    if want { "not checked" } else { "checked" }
                )
            })
        }
        FieldType::Combobox | FieldType::Slider => None,
    }
}

/// What a field holds now; `secret` for passwords (never echoed).
const VALUE_NOW: &str = "function() {
  const v = ('value' in this && typeof this.value === 'string') ? this.value : (this.innerText || '');
  return {value: v, secret: this.type === 'password'};
}";

/// The labels of the options a <select> has selected now.
const SELECTED_NOW: &str = "function() {
  return this.options ? [...this.selectedOptions].map(o => o.label) : null;
}";

fn quote_list(items: &[&str]) -> String {
    if items.is_empty() {
        return "nothing".into();
    }
    items
        .iter()
        .map(|i| format!("{i:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// Presses (and releases) the mouse at a viewport point, `clicks` times.
async fn click_at(
    s: &Session,
    tab: TabId,
    (x, y): (f64, f64),
    button: &str,
    clicks: i64,
    modifiers: i64,
) -> Result<(), ToolError> {
    let mut events = vec![mouse_event("mouseMoved", x, y, None, modifiers)];
    for n in 1..=clicks {
        for kind in ["mousePressed", "mouseReleased"] {
            events.push(mouse_event(kind, x, y, Some((button, n)), modifiers));
        }
    }
    s.cdp_batch(tab, events).await.map(|_| ())
}

/// Like [`fill_text`], but one key event per character (all in one
/// message), so pages that listen to keydown/keyup see each key.
async fn type_slowly(s: &Session, tab: TabId, el: Element, text: &str) -> Result<(), ToolError> {
    fill_text(s, tab, el, "").await?;
    let mut events = Vec::new();
    for c in text.chars() {
        if c == '\n' {
            events.extend(
                keys::parse("Enter")
                    .map_err(ToolError)?
                    .events()
                    .into_iter()
                    .map(|e| ("Input.dispatchKeyEvent", e)),
            );
            continue;
        }
        let ch = c.to_string();
        events.push((
            "Input.dispatchKeyEvent",
            json!({"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch}),
        ));
        events.push((
            "Input.dispatchKeyEvent",
            json!({"type": "keyUp", "key": ch}),
        ));
    }
    if events.is_empty() {
        return Ok(());
    }
    s.cdp_batch(tab, events).await.map(|_| ())
}

/// Focuses the element, selects its content and replaces it with `text`.
async fn fill_text(s: &Session, tab: TabId, el: Element, text: &str) -> Result<(), ToolError> {
    if s.call_on(tab, el, SELECT_FOR_TYPING, Value::Null).await? != json!(true) {
        return Err(ToolError(
            "the element is not editable (not a text field, text area or contenteditable); \
             check the snapshot for the right field"
                .into(),
        ));
    }
    if text.is_empty() {
        press(s, tab, "Delete").await
    } else {
        // insertText handles any Unicode, unlike per-key events.
        s.cdp(tab, "Input.insertText", json!({"text": text}))
            .await
            .map(|_| ())
    }
}

const SELECT_FOR_TYPING: &str = "function() {
  const editable = (this.localName === 'input' || this.localName === 'textarea')
    ? !this.readOnly && !this.disabled
    : this.isContentEditable;
  if (!editable) return false;
  this.focus();
  if (typeof this.select === 'function') this.select();
  else { const r = document.createRange(); r.selectNodeContents(this);
         const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r); }
  return true;
}";

/// Presses a key spec such as "Enter" or "Control+A".
pub(super) async fn press(s: &Session, tab: TabId, spec: &str) -> Result<(), ToolError> {
    let key = keys::parse(spec).map_err(ToolError)?;
    let events = key
        .events()
        .into_iter()
        .map(|ev| ("Input.dispatchKeyEvent", ev))
        .collect();
    s.cdp_batch(tab, events).await.map(|_| ())
}

async fn select_options(
    s: &Session,
    tab: TabId,
    el: Element,
    values: &[String],
) -> Result<Vec<String>, ToolError> {
    let r = s.call_on(tab, el, SELECT_OPTIONS, json!(values)).await?;
    if let Some(err) = r["error"].as_str() {
        return Err(ToolError(err.to_string()));
    }
    Ok(r["selected"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect())
}

const SELECT_OPTIONS: &str = "function(wanted) {
  if (this.localName !== 'select') return {error: 'the element is not a <select>; use browser_click for custom drop-downs'};
  const opts = [...this.options];
  const picked = [];
  for (const w of wanted) {
    const o = opts.find(o => o.value === w) || opts.find(o => o.label.trim() === w.trim());
    if (!o) return {error: `no option ${JSON.stringify(w)}; available: ${opts.map(o => JSON.stringify(o.label)).join(', ')}`};
    picked.push(o);
  }
  if (!this.multiple && picked.length > 1) return {error: 'this <select> allows only one option'};
  this.focus();
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: picked.map(o => o.label)};
}";

async fn fill_field(s: &Session, tab: TabId, f: &FormField) -> Result<(), ToolError> {
    let el = s.element(tab, &f.target).await?;
    match f.kind {
        FieldType::Textbox => fill_text(s, tab, el, &f.value).await,
        FieldType::Combobox => select_options(s, tab, el, std::slice::from_ref(&f.value))
            .await
            .map(|_| ()),
        FieldType::Checkbox | FieldType::Radio => {
            let want = match f.value.to_ascii_lowercase().as_str() {
                "true" | "on" | "yes" | "1" | "checked" => true,
                "false" | "off" | "no" | "0" | "unchecked" => false,
                other => return Err(ToolError(format!("value {other:?} is not true or false"))),
            };
            let is = s
                .call_on(
                    tab,
                    el.clone(),
                    "function() { return !!this.checked; }",
                    Value::Null,
                )
                .await?;
            if is != json!(want) {
                click(s, tab, el, "left", 1, 0).await?;
            }
            Ok(())
        }
        FieldType::Slider => {
            let r = s.call_on(tab, el, SET_SLIDER, json!(f.value)).await?;
            match r["error"].as_str() {
                Some(e) => Err(ToolError(e.to_string())),
                None => Ok(()),
            }
        }
    }
}

const SET_SLIDER: &str = "function(v) {
  if (this.localName !== 'input' || this.type !== 'range') return {error: 'the element is not a slider (input type=range)'};
  const n = Number(v);
  if (!Number.isFinite(n)) return {error: `value ${JSON.stringify(v)} is not a number`};
  this.focus();
  this.value = String(n);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {};
}";
