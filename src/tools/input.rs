//! Acting on elements with trusted input (CDP `Input.*`): click, hover,
//! type, press a key, choose options, fill a form.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::def::{done, Kind, ToolDef, ToolError};
use crate::backend::TabId;
use crate::page::input::{
    aim, aim_at, center, checked_from, click, click_at, drag, fill_text, hold_at, press,
    select_options, set_input_files, type_slowly, typed_back, value_again, SELECTED_NOW,
};
use crate::page::keys;
use crate::page::Client;
use crate::page::Element;

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
    // How long the press is held, in ms (see MAX_HOLD_MS).
    #[serde(rename = "holdMs")]
    pub hold_ms: Option<u64>,
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
    /// true/false, or a number (slider).
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

/// The longest a click may hold the button down.
const MAX_HOLD_MS: u64 = 30_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "browser_click",
            "Click",
            Kind::Action,
            "Click `target` (trusted input; `holdMs`: ms to hold). Actions report what changed (or the new page), dialogs, console errors.",
            |s: Client, a: ClickArgs| async move {
                let tab = s.tab().await?;
                let button = match a.button {
                    None | Some(MouseButton::Left) => "left",
                    Some(MouseButton::Right) => "right",
                    Some(MouseButton::Middle) => "middle",
                };
                let clicks = if a.double_click { 2 } else { 1 };
                let mods = modifier_mask(&a.modifiers);
                let hold = match a.hold_ms {
                    Some(ms) if ms > MAX_HOLD_MS => {
                        return Err(ToolError::other(format!(
                            "holdMs {ms} is over the limit of {MAX_HOLD_MS} ms (30 s)"
                        )))
                    }
                    Some(ms) if a.double_click => {
                        return Err(ToolError::other(format!(
                            "holdMs ({ms}) and doubleClick cannot be combined: hold one press"
                        )))
                    }
                    other => other.filter(|ms| *ms > 0),
                };
                let aim = aim_at(&s, tab, &a.target).await?;
                aim.refuse_disabled(&s)?;
                s.expect_download(tab, aim.download_link);
                let outcome = match hold {
                    None => {
                        s.settle(tab, || click_at(&s, tab, aim.point, button, clicks, mods))
                            .await?
                    }
                    Some(ms) => {
                        s.settle(tab, || {
                            hold_at(&s, tab, aim.point, button, mods, std::time::Duration::from_millis(ms))
                        })
                        .await?
                    }
                };
                let verb = match (hold, a.double_click) {
                    (Some(ms), _) => format!("Held the mouse button down for {:.1} s on", ms as f64 / 1000.0),
                    (None, true) => "Double-clicked".to_string(),
                    (None, false) => "Clicked".to_string(),
                };
                done(
                    &s,
                    tab,
                    format!(
                        "{verb} {}{}{}",
                        describe(&a.target, &a.element),
                        aim.landed(&s),
                        if hold.is_some() { ", then released it" } else { "" }
                    ),
                    &outcome,
                )
                .await
            },
        ),
        ToolDef::new(
            "browser_drag",
            "Drag and drop",
            Kind::Action,
            "Drag `startTarget` onto `endTarget`.",
            |s: Client, a: DragArgs| async move {
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
            |s: Client, a: HoverArgs| async move {
                let tab = s.tab().await?;
                let aim = aim_at(&s, tab, &a.target).await?;
                let mut outcome = s
                    .settle_passive(tab, || async {
                        crate::page::input::move_to(&s, tab, aim.point).await
                    })
                    .await?;
                outcome.pointer_moved = true;
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
            "Replace a field's text; `submit`: then Enter; `slowly`: key by key.",
            |s: Client, a: TypeArgs| async move {
                let tab = s.tab().await?;
                // Text put in at once activates nothing (no late download
                // or link navigation to look for); key by key, a newline
                // is Enter, and Enter may submit.
                let activates = a.submit || a.slowly;
                let typing = || async {
                    if a.slowly {
                        type_slowly(&s, tab, &a.target, &a.text).await?;
                    } else {
                        fill_text(&s, tab, &a.target, &a.text).await?;
                    }
                    if a.submit {
                        press(&s, tab, "Enter").await?;
                    }
                    Ok(())
                };
                let outcome = if activates {
                    s.settle(tab, typing).await?
                } else {
                    s.settle_passive(tab, typing).await?
                };
                let mut what = format!(
                    "Typed {} characters into {}{}",
                    a.text.chars().count(),
                    describe(&a.target, &a.element),
                    if a.submit { " and pressed Enter" } else { "" }
                );
                // Enter may submit and clear the field, or leave the page.
                if !a.submit && !outcome.navigated {
                    if let Some(note) = typed_back(&s, tab, &a.target, &a.text).await {
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
            |s: Client, a: PressKeyArgs| async move {
                let tab = s.tab().await?;
                keys::parse(&a.key).map_err(ToolError::other)?;
                let outcome = if keys::activates(&a.key) {
                    s.settle(tab, || press(&s, tab, &a.key)).await?
                } else {
                    s.settle_passive(tab, || press(&s, tab, &a.key)).await?
                };
                done(&s, tab, format!("Pressed {}", a.key), &outcome).await
            },
        ),
        ToolDef::new(
            "browser_select_option",
            "Select option",
            Kind::Action,
            "Choose options of a <select> by value or label.",
            |s: Client, a: SelectArgs| async move {
                let tab = s.tab().await?;
                let mut chosen = Vec::new();
                let outcome = s
                    .settle(tab, || async {
                        chosen = select_options(&s, tab, &a.target, &a.values).await?;
                        Ok(())
                    })
                    .await?;
                let mut what = format!(
                    "Selected {} in {}",
                    chosen.join(", "),
                    describe(&a.target, &a.element)
                );
                if !outcome.navigated {
                    let now = value_again(&s, tab, &a.target, SELECTED_NOW).await;
                    if let Some(Value::Array(now)) = now {
                        let now: Vec<&str> = now.iter().filter_map(Value::as_str).collect();
                        if now != chosen.iter().map(String::as_str).collect::<Vec<_>>() {
                            what.push_str(&format!(
                                " (but the page changed it back: now {})",
                                s.fence().quote(&quote_list(&now))
                            ));
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
            |s: Client, a: FillFormArgs| async move {
                let tab = s.tab().await?;
                let mut filled = Vec::new();
                let outcome = s
                    .settle(tab, || async {
                        for f in &a.fields {
                            fill_field(&s, tab, f).await.map_err(|e| {
                                ToolError::other(format!(
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
            |s: Client, a: ScrollArgs| async move {
                use crate::page::scroll;
                let tab = s.tab().await?;
                let target = a.target.as_deref();
                let point = match target {
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
                let delta = (a.delta_x.unwrap_or(0.0), dy);
                let before = scroll::state(&s, tab, target).await?;
                let outcome = s
                    .settle_passive(tab, || scroll::wheel_at(&s, tab, point, delta))
                    .await?;
                // The wheel scrolls asynchronously (smoothly, at times).
                let mut after = scroll::state_at_rest(&s, tab, target, &before).await;
                if target.is_none() && before == after {
                    scroll::add_boxes_in_view(&s, tab, &mut after).await;
                }
                let said = scroll::describe(&before, &after, delta, target);
                done(&s, tab, said.trim_end_matches('.').to_string(), &outcome).await
            },
        ),
        ToolDef::new(
            "browser_file_upload",
            "Upload files",
            Kind::Action,
            "Set files (absolute `paths`) of file input `target`, or of the chooser a click opened; --upload-dir only.",
            |s: Client, a: UploadArgs| async move {
                let tab = s.tab().await?;
                let files = a
                    .paths
                    .iter()
                    .map(|p| s.policy().check_upload(std::path::Path::new(p)))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(ToolError::other)?;
                let (el, what) = match &a.target {
                    Some(t) => (s.element(tab, t).await?, t.clone()),
                    None => match s.take_file_chooser(tab) {
                        Some(node) => (Element::by_node(node), "the open file chooser".to_string()),
                        None => {
                            return Err(ToolError::other(
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
                    return Err(ToolError::other("the element is not an <input type=file>".into()));
                }
                // Only absolute paths of existing files reach the browser: a
                // relative one is accepted and then crashes the renderer.
                let outcome = s
                    .settle(tab, || set_input_files(&s, tab, &el, &files))
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

/// The same check for one field of a filled form.
async fn field_back(s: &Client, tab: TabId, f: &FormField) -> Option<String> {
    let name = f.name.as_deref().unwrap_or(&f.target);
    match f.kind {
        FieldType::Textbox => typed_back(s, tab, &f.target, &f.value)
            .await
            .map(|n| format!("; {name}{n}")),
        FieldType::Checkbox | FieldType::Radio => {
            let want = checked_from(&f.value) == Some(true);
            let now =
                value_again(s, tab, &f.target, "function() { return !!this.checked; }").await?;
            (now != json!(want)).then(|| {
                format!(
                    "; but {name} is {} (the page changed it back)",
                    if want { "not checked" } else { "checked" }
                )
            })
        }
        FieldType::Slider => {
            let now = value_again(
                s,
                tab,
                &f.target,
                "function() { return this.localName === 'input' ? this.value : this.getAttribute('aria-valuenow'); }",
            )
            .await?;
            let now: f64 = now.as_str()?.parse().ok()?;
            let want: f64 = f.value.trim().parse().ok()?;
            ((now - want).abs() > 1e-9)
                .then(|| format!("; but {name} is at {now} (the nearest value it allows)"))
        }
        FieldType::Combobox => None,
    }
}

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

async fn fill_field(s: &Client, tab: TabId, f: &FormField) -> Result<(), ToolError> {
    match f.kind {
        FieldType::Textbox => fill_text(s, tab, &f.target, &f.value).await,
        FieldType::Combobox => select_options(s, tab, &f.target, std::slice::from_ref(&f.value))
            .await
            .map(|_| ()),
        FieldType::Checkbox | FieldType::Radio => {
            let el = s.element(tab, &f.target).await?;
            let Some(want) = checked_from(&f.value) else {
                return Err(ToolError::other(format!(
                    "value {:?} is not true or false",
                    f.value.to_ascii_lowercase()
                )));
            };
            let is = s
                .call_on(
                    tab,
                    el.clone(),
                    "function() { const T = globalThis.__tabwire; \
                     return (T ? T.disabled(this) : this.disabled) ? 'disabled' : !!this.checked; }",
                    Value::Null,
                )
                .await?;
            if is == json!("disabled") {
                return Err(ToolError::other(
                    "the box is disabled: nothing was checked or unchecked".into(),
                ));
            }
            if is != json!(want) {
                click(s, tab, el, "left", 1, 0).await?;
            }
            Ok(())
        }
        FieldType::Slider => crate::page::slider::set(s, tab, &f.target, &f.value)
            .await
            .map(|_| ()),
    }
}
