//! The `vision` group (`serve --caps vision`): input at the coordinates of
//! the latest screenshot, for what a snapshot gives no ref (a canvas, a
//! map, a chart). Each answer names the element the input reached.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{done, Cap, Kind, Response, ToolDef, ToolError};
use crate::page::Tab;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Button {
    Left,
    Right,
    Middle,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClickXyArgs {
    /// What you are clicking, in words (for the answer and the audit log).
    pub element: Option<String>,
    pub x: f64,
    pub y: f64,
    pub button: Option<Button>,
    #[serde(default, rename = "doubleClick")]
    pub double_click: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveXyArgs {
    /// What you are pointing at, in words.
    pub element: Option<String>,
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DragXyArgs {
    /// What you are dragging, in words.
    pub element: Option<String>,
    #[serde(rename = "startX")]
    pub start_x: f64,
    #[serde(rename = "startY")]
    pub start_y: f64,
    #[serde(rename = "endX")]
    pub end_x: f64,
    #[serde(rename = "endY")]
    pub end_y: f64,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TypeXyArgs {
    /// What you are typing into, in words.
    pub element: Option<String>,
    pub x: f64,
    pub y: f64,
    pub text: String,
    /// Press Enter after the text.
    #[serde(default)]
    pub submit: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct KeyArgs {
    /// One key: "Shift", "Control", "a", "ArrowDown", "Enter" …
    pub key: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ButtonArgs {
    pub button: Option<Button>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WheelArgs {
    #[serde(rename = "deltaX")]
    pub delta_x: f64,
    #[serde(rename = "deltaY")]
    pub delta_y: f64,
}

fn button_name(b: Option<Button>) -> &'static str {
    match b {
        None | Some(Button::Left) => "left",
        Some(Button::Right) => "right",
        Some(Button::Middle) => "middle",
    }
}

/// A description, followed by what every tool of the group says about its
/// coordinates.
macro_rules! with_points {
    ($d:literal) => {
        concat!(
            $d,
            " x, y are pixels of your latest browser_take_screenshot of this tab (of the viewport \
             when there is none); a point no longer in view is refused: scroll, take a new \
             screenshot. Prefer refs from browser_snapshot where the element has one."
        )
    };
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_mouse_click_xy",
            "Click at coordinates",
            Kind::Action,
            with_points!(
                "Click at a point of the latest screenshot (a canvas, a map, a control without a ref); \
                 the answer names the element that received the click and what changed."
            ),
            mouse_click_xy,
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_mouse_move_xy",
            "Move the mouse to coordinates",
            Kind::Action,
            with_points!(
                "Move the mouse to a point of the latest screenshot (hover menus, tooltips); \
                 the answer names the element under it and what changed."
            ),
            mouse_move_xy,
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_mouse_drag_xy",
            "Drag between coordinates",
            Kind::Action,
            with_points!(
                "Press at a start point of the latest screenshot, move to an end point and release \
                 (sliders, canvases, maps); the answer names what was under both ends."
            ),
            mouse_drag_xy,
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_mouse_down",
            "Press the mouse button",
            Kind::Action,
            "Press a mouse button where the mouse is (after browser_mouse_move_xy) and keep it \
             down: browser_mouse_move_xy then drags, browser_mouse_up releases. To press and hold \
             an element with a ref, browser_click with holdMs is simpler.",
            |t: Tab, a: ButtonArgs| press_button(t, a, true),
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_mouse_up",
            "Release the mouse button",
            Kind::Action,
            "Release a mouse button where the mouse is (after browser_mouse_down).",
            |t: Tab, a: ButtonArgs| press_button(t, a, false),
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_keydown",
            "Press a key and hold it",
            Kind::Action,
            "Press one `key` and keep it down until browser_keyup: a held modifier (Shift, \
             Control, Alt, Meta) rides on later key presses. For a whole chord at once, \
             browser_press_key \"Control+Shift+Y\" is simpler.",
            |t: Tab, a: KeyArgs| async move { hold_key(t, &a.key, true).await },
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_keyup",
            "Release a key",
            Kind::Action,
            "Release a `key` browser_keydown holds.",
            |t: Tab, a: KeyArgs| async move { hold_key(t, &a.key, false).await },
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_mouse_wheel",
            "Turn the mouse wheel",
            Kind::Action,
            "Turn the mouse wheel where the mouse is: deltaY > 0 scrolls down, deltaX > 0 right \
             (CSS pixels); the answer says what changed.",
            mouse_wheel,
        )
        .in_group(Cap::Vision),
        ToolDef::on_tab(
            "browser_type_xy",
            "Type at coordinates",
            Kind::Action,
            with_points!(
                "Click at a point of the latest screenshot and type `text` into what takes it \
                 there (`submit` presses Enter); the answer says where the text went."
            ),
            type_xy,
        )
        .in_group(Cap::Vision),
    ]
}

/// browser_mouse_click_xy.
async fn mouse_click_xy(tab: Tab, a: ClickXyArgs) -> Result<Response, ToolError> {
    let point = tab.viewport_point((a.x, a.y)).await?;
    let hit = tab.what_is_at(point).await;
    let button = match a.button {
        None | Some(Button::Left) => "left",
        Some(Button::Right) => "right",
        Some(Button::Middle) => "middle",
    };
    let clicks = if a.double_click { 2 } else { 1 };
    let outcome = tab
        .settle(|| tab.click_at(point, button, clicks, 0))
        .await?;
    let verb = if a.double_click {
        "Double-clicked"
    } else {
        "Clicked"
    };
    done(
        &tab,
        format!("{verb} {}", at(&a.element, (a.x, a.y), &hit)),
        &outcome,
    )
    .await
}

/// browser_mouse_move_xy.
async fn mouse_move_xy(tab: Tab, a: MoveXyArgs) -> Result<Response, ToolError> {
    let (x, y) = tab.viewport_point((a.x, a.y)).await?;
    let hit = tab.what_is_at((x, y)).await;
    let mut outcome = tab.settle(|| tab.move_to((x, y))).await?;
    // What a hover shows may be CSS alone.
    outcome.pointer_moved = true;
    done(
        &tab,
        format!("Moved the mouse {}", at(&a.element, (a.x, a.y), &hit)),
        &outcome,
    )
    .await
}

/// browser_mouse_drag_xy.
async fn mouse_drag_xy(tab: Tab, a: DragXyArgs) -> Result<Response, ToolError> {
    let from = tab.viewport_point((a.start_x, a.start_y)).await?;
    let to = tab.viewport_point((a.end_x, a.end_y)).await?;
    let hit_from = tab.what_is_at(from).await;
    let hit_to = tab.what_is_at(to).await;
    let mut result = None;
    let outcome = tab
        .settle(|| async {
            result = Some(tab.drag_points(from, to, None).await?);
            Ok(())
        })
        .await?;
    let native = if result.is_some_and(|r| r.native) {
        " (the page started a native drag; it was dropped there)"
    } else {
        ""
    };
    let what = format!(
        "Dragged {} to ({}, {}){}{native}",
        at(&a.element, (a.start_x, a.start_y), &hit_from),
        a.end_x,
        a.end_y,
        hit_to.map(|h| format!(", onto {h}")).unwrap_or_default()
    );
    done(&tab, what, &outcome).await
}

/// browser_type_xy.
async fn type_xy(tab: Tab, a: TypeXyArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let point = tab.viewport_point((a.x, a.y)).await?;
    let hit = tab.what_is_at(point).await;
    let outcome = tab
        .settle(|| async {
            tab.click_at(point, "left", 1, 0).await?;
            tab.insert_text(&a.text).await?;
            if a.submit {
                tab.press("Enter").await?;
            }
            Ok::<_, ToolError>(())
        })
        .await?;
    // Where the text went: the focused element, read back.
    let landed = tab
        .eval(
            "(() => { const e = document.activeElement; \
             return e && e !== document.body ? e.localName + (e.value !== undefined \
             ? ' holding ' + JSON.stringify(String(e.value).slice(0, 80)) : '') : null; })()",
        )
        .await
        .ok()
        .and_then(|v| v.as_str().map(|t| s.fence().quote(t)));
    let what = format!(
        "Typed {} characters {}{}",
        a.text.chars().count(),
        at(&a.element, (a.x, a.y), &hit),
        match landed {
            Some(l) => format!("; the focused element is now <{l}>"),
            None => "; no element took the focus, so the text went nowhere".into(),
        }
    );
    done(&tab, what, &outcome).await
}

/// `browser_mouse_down` (`down`) and `browser_mouse_up`: the button goes
/// down where the mouse is and stays down, or comes up.
async fn press_button(tab: Tab, a: ButtonArgs, down: bool) -> Result<Response, ToolError> {
    let button = button_name(a.button);
    let outcome = tab.settle(|| tab.mouse_button(down, button)).await?;
    let what = if down {
        format!("Pressed the {button} mouse button (held down)")
    } else {
        format!("Released the {button} mouse button")
    };
    done(&tab, what, &outcome).await
}

/// browser_mouse_wheel.
async fn mouse_wheel(tab: Tab, a: WheelArgs) -> Result<Response, ToolError> {
    let outcome = tab.settle(|| tab.wheel(a.delta_x, a.delta_y)).await?;
    done(
        &tab,
        format!("Turned the mouse wheel by ({}, {})", a.delta_x, a.delta_y),
        &outcome,
    )
    .await
}

/// "at (x, y) on button "Send" (<button>)", with the caller's words.
fn at(element: &Option<String>, (x, y): (f64, f64), hit: &Option<String>) -> String {
    let words = element
        .as_deref()
        .filter(|e| !e.trim().is_empty())
        .map(|e| format!("{e} "))
        .unwrap_or_default();
    match hit {
        Some(h) => format!("{words}at ({x}, {y}), on {h}"),
        None => format!("{words}at ({x}, {y}), where the page has no element"),
    }
}

/// `browser_keydown` (`down`) and `browser_keyup`: the key goes down or up
/// like any action, and the answer names the keys held after it.
async fn hold_key(tab: Tab, key: &str, down: bool) -> Result<Response, ToolError> {
    let mut held = Vec::new();
    let outcome = tab
        .settle(|| async {
            held = if down {
                tab.key_down(key).await?
            } else {
                tab.key_up(key).await?
            };
            Ok(())
        })
        .await?;
    let now = if held.is_empty() {
        "none".to_string()
    } else {
        held.join(", ")
    };
    let what = if down {
        format!("Pressed {key} (held down; keys held: {now})")
    } else {
        format!("Released {key} (keys held: {now})")
    };
    done(&tab, what, &outcome).await
}
