//! Acting on elements with trusted input (CDP `Input.*`): click, hover,
//! type, press a key, choose options, fill a form. The form controls'
//! handlers are in `input/forms.rs`.

use schemars::JsonSchema;
use serde::Deserialize;

mod forms;

use super::def::{done, done_with, Kind, Response, ToolDef, ToolError};
use crate::page::input::keys;
use crate::page::Tab;

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
pub struct ScrollArgs {
    pub target: Option<String>,
    #[serde(rename = "deltaX")]
    pub delta_x: Option<f64>,
    #[serde(rename = "deltaY")]
    pub delta_y: Option<f64>,
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

/// The longest a click may hold the button down.
const MAX_HOLD_MS: u64 = 30_000;

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_click",
            "Click",
            Kind::Action,
            "Click `target` (trusted input; `holdMs`: ms to hold). Actions report what changed (or the new page), dialogs, console errors.",
            click_tool,
        ),
        ToolDef::on_tab(
            "browser_drag",
            "Drag and drop",
            Kind::Action,
            "Drag `startTarget` onto `endTarget`.",
            drag_tool,
        ),
        ToolDef::on_tab(
            "browser_hover",
            "Hover",
            Kind::Action,
            "Move the mouse over `target` (menus, tooltips).",
            hover,
        ),
        ToolDef::on_tab(
            "browser_type",
            "Type text",
            Kind::Action,
            "Replace a field's text; `submit`: then Enter; `slowly`: key by key.",
            type_tool,
        ),
        ToolDef::on_tab(
            "browser_press_key",
            "Press a key",
            Kind::Action,
            "Press a key in the focused element: Enter, Escape, ArrowDown, Control+A…",
            press_key,
        ),
        ToolDef::on_tab(
            "browser_select_option",
            "Select option",
            Kind::Action,
            "Choose options of a <select> by value or label.",
            forms::select_option,
        ),
        ToolDef::on_tab(
            "browser_fill_form",
            "Fill form",
            Kind::Action,
            "Fill several fields in order; does not submit.",
            forms::fill_form,
        ),
        ToolDef::on_tab(
            "browser_scroll",
            "Scroll",
            Kind::Action,
            "Scroll the page or `target` by deltaX/deltaY px (default: a screen down).",
            scroll,
        ),
        ToolDef::on_tab(
            "browser_file_upload",
            "Upload files",
            Kind::Action,
            "Set files (absolute `paths`) of file input `target`, or of the chooser a click opened; --upload-dir only.",
            forms::file_upload,
        ),
    ]
}

/// browser_click.
async fn click_tool(tab: Tab, a: ClickArgs) -> Result<Response, ToolError> {
    let s = tab.client();
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
    let aim = tab.aim_at(&a.target).await?;
    aim.refuse_disabled(s)?;
    tab.expect_download(aim.download_link);
    let outcome = match hold {
        None => {
            tab.settle(|| tab.click_at(aim.point, button, clicks, mods))
                .await?
        }
        Some(ms) => {
            tab.settle(|| {
                tab.hold_at(
                    aim.point,
                    button,
                    mods,
                    std::time::Duration::from_millis(ms),
                )
            })
            .await?
        }
    };
    let verb = match (hold, a.double_click) {
        (Some(ms), _) => format!(
            "Held the mouse button down for {:.1} s on",
            ms as f64 / 1000.0
        ),
        (None, true) => "Double-clicked".to_string(),
        (None, false) => "Clicked".to_string(),
    };
    done(
        &tab,
        format!(
            "{verb} {}{}{}",
            describe(&a.target, &a.element),
            aim.landed(s),
            if hold.is_some() {
                ", then released it"
            } else {
                ""
            }
        ),
        &outcome,
    )
    .await
}

/// browser_drag.
async fn drag_tool(tab: Tab, a: DragArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let from = tab.element(&a.start_target).await?;
    let to = tab.element(&a.end_target).await?;
    // Both ends must be where a person could reach them.
    tab.aim(to.clone()).await?;
    let start = tab.aim(from.clone()).await?.point;
    let before = tab.place_of(from.clone()).await;
    let mut result = None;
    let outcome = tab
        .settle(|| async {
            result = Some(tab.drag(from.clone(), start, to).await?);
            Ok(())
        })
        .await?;
    let after = tab.place_of(from).await;
    let moved = match (before, after, result) {
        (Some(b), Some(a), Some(r)) => {
            format!(
                " {}",
                crate::page::input::drag::what_moved(&b, &a, &r, |t| s.fence().quote(t))
            )
        }
        _ => String::new(),
    };
    let what = format!(
        "Dragged {} onto {}.{moved}",
        describe(&a.start_target, &a.start_element),
        describe(&a.end_target, &a.end_element)
    );
    done_with(&tab, what, &outcome).await
}

/// browser_hover.
async fn hover(tab: Tab, a: HoverArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let aim = tab.aim_at(&a.target).await?;
    let mut outcome = tab
        .settle_passive(|| async { tab.move_to(aim.point).await })
        .await?;
    outcome.pointer_moved = true;
    done(
        &tab,
        format!(
            "Hovered {}{}",
            describe(&a.target, &a.element),
            aim.landed(s)
        ),
        &outcome,
    )
    .await
}

/// browser_type.
async fn type_tool(tab: Tab, a: TypeArgs) -> Result<Response, ToolError> {
    // A secret's name stands for its value (checked against the field's
    // origin before anything is typed).
    let (text, secret) = tab.secret_text_for(&a.target, &a.text).await?;
    // Text put in at once activates nothing (no late download
    // or link navigation to look for); key by key, a newline
    // is Enter, and Enter may submit.
    let activates = a.submit || a.slowly;
    let typing = || async {
        if a.slowly {
            tab.type_slowly(&a.target, &text).await?;
        } else {
            tab.fill_text(&a.target, &text).await?;
        }
        if let Some(name) = &secret {
            tab.mark_secret(&a.target, name, &text).await;
        }
        if a.submit {
            tab.press("Enter").await?;
        }
        Ok(())
    };
    let outcome = if activates {
        tab.settle(typing).await?
    } else {
        tab.settle_passive(typing).await?
    };
    let typed = match &secret {
        Some(name) => format!("the secret {name}"),
        None => format!("{} characters", a.text.chars().count()),
    };
    let mut what = format!(
        "Typed {typed} into {}{}",
        describe(&a.target, &a.element),
        if a.submit { " and pressed Enter" } else { "" }
    );
    // Enter may submit and clear the field, or leave the page.
    if !a.submit && !outcome.navigated {
        if let Some(note) = tab.typed_back(&a.target, &text).await {
            what.push_str(&note);
        }
    }
    done(&tab, what, &outcome).await
}

/// browser_press_key.
async fn press_key(tab: Tab, a: PressKeyArgs) -> Result<Response, ToolError> {
    keys::parse(&a.key).map_err(ToolError::other)?;
    let outcome = if keys::activates(&a.key) {
        tab.settle(|| tab.press(&a.key)).await?
    } else {
        tab.settle_passive(|| tab.press(&a.key)).await?
    };
    done(&tab, format!("Pressed {}", a.key), &outcome).await
}

/// browser_scroll.
async fn scroll(tab: Tab, a: ScrollArgs) -> Result<Response, ToolError> {
    use crate::page::input::scroll;

    let target = a.target.as_deref();
    let point = match target {
        Some(t) => tab.center(tab.element(t).await?).await?,
        None => {
            let v = tab.eval("[innerWidth / 2, innerHeight / 2]").await?;
            (
                v[0].as_f64().unwrap_or(100.0),
                v[1].as_f64().unwrap_or(100.0),
            )
        }
    };
    let dy = match a.delta_y {
        Some(d) => d,
        None if a.delta_x.is_some() => 0.0,
        None => tab
            .eval("innerHeight * 0.8")
            .await?
            .as_f64()
            .unwrap_or(500.0),
    };
    let delta = (a.delta_x.unwrap_or(0.0), dy);
    let before = tab.scroll_state(target).await?;
    let outcome = tab.settle_passive(|| tab.wheel_at(point, delta)).await?;
    // The wheel scrolls asynchronously (smoothly, at times).
    let mut after = tab.scroll_state_at_rest(target, &before).await;
    if target.is_none() && before == after {
        tab.add_boxes_in_view(&mut after).await;
    }
    let said = scroll::describe(&before, &after, delta, target);
    done(&tab, said.trim_end_matches('.').to_string(), &outcome).await
}

fn describe(target: &str, element: &Option<String>) -> String {
    match element {
        Some(e) if !e.trim().is_empty() => format!("{e} ({target})"),
        _ => target.to_string(),
    }
}
