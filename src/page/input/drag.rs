//! Drags as a person's hand makes them: a press, moves with a rendered
//! frame between them (past the distances libraries wait for before a
//! drag starts), a last move onto the target, a frame, then the release.
//!
//! Sending the whole way in one batch lets the page see the release
//! before it ever rendered the pointer at the end: slider and sortable
//! libraries then commit wherever they last drew the drag (the midpoint).
//! Whether the browser starts a native (HTML5) drag is decided by the
//! browser after the press, as for a person: drags are intercepted for
//! the whole gesture, and once the browser announces one, the rest of the
//! way is sent as drag events (synthetic mouse input alone never finishes
//! a native drag).
//!
//! [`Place`] reads where the dragged element is before and after, so the
//! answer says what moved (its place among its siblings, a slider's
//! value), and whether the page accepted a native drop.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::broadcast::error::TryRecvError;

use super::pointer::mouse_event;
use crate::backend::{TabEvent, TabId};
use crate::error::ToolError;
use crate::page::reading::element::Element;
use crate::page::tab::current::Tab;

/// The first moves after the press, in CSS pixels from the start: past
/// the activation distances pointer-based libraries use (3–10 px).
const OPENING_MOVES: [f64; 3] = [2.0, 6.0, 12.0];

/// Moves from there to the target (evenly spaced).
const TRAVEL_STEPS: u32 = 8;

/// The longest a wait for the page's next frame takes: a tab in the
/// background renders no frames at all.
const FRAME_WAIT: Duration = Duration::from_millis(60);

/// Resolves at the page's next animation frame.
const NEXT_FRAME: &str = "new Promise(r => requestAnimationFrame(() => r(0)))";

impl Tab {
    /// Lets the page render one frame (at most [`FRAME_WAIT`]).
    pub async fn next_frame(&self) {
        let _ = tokio::time::timeout(FRAME_WAIT, self.eval(NEXT_FRAME)).await;
    }

    /// Presses at `from`, moves along [`way`] to `to` with a frame between
    /// moves, and releases there. `dragged`: the element pressed, when known
    /// (a native drop's acceptance is read through its world).
    pub async fn drag_points(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        dragged: Option<Element>,
    ) -> Result<DragResult, ToolError> {
        let s = self.client();
        let mut events = s.backend().subscribe();
        self.cdp("Input.setInterceptDrags", json!({"enabled": true}))
            .await?;
        let result = self.gesture(from, to, dragged, &mut events).await;
        let _ = self
            .cdp("Input.setInterceptDrags", json!({"enabled": false}))
            .await;
        result
    }

    /// The gesture of [`Tab::drag_points`], with drags intercepted.
    async fn gesture(
        &self,
        from: (f64, f64),
        to: (f64, f64),
        dragged: Option<Element>,
        events: &mut tokio::sync::broadcast::Receiver<TabEvent>,
    ) -> Result<DragResult, ToolError> {
        let tab = self.id();
        let left = Some(("left", 1));
        self.pointer_moved(from);
        self.cdp_batch(vec![
            mouse_event("mouseMoved", from.0, from.1, None, 0),
            mouse_event("mousePressed", from.0, from.1, left, 0),
        ])
        .await?;
        self.next_frame().await;
        let mut native: Option<Value> = None;
        let mut entered = false;
        let mut at = from;
        for point in way(from, to) {
            at = point;
            match &native {
                None => {
                    self.cdp_batch(vec![mouse_event("mouseMoved", at.0, at.1, left, 0)])
                        .await?;
                }
                Some(data) => {
                    let kind = if entered { "dragOver" } else { "dragEnter" };
                    entered = true;
                    self.cdp("Input.dispatchDragEvent", drag_event(kind, at, data))
                        .await?;
                }
            }
            self.next_frame().await;
            if native.is_none() {
                native = drag_started(events, tab);
            }
        }
        self.pointer_moved(at);
        let mut result = DragResult::default();
        if let Some(data) = &native {
            result.native = true;
            // The page says at the last dragover whether it takes the drop.
            if let Some(el) = &dragged {
                let _ = self.call_on(el.clone(), WATCH_DROP, Value::Null).await;
            }
            self.cdp("Input.dispatchDragEvent", drag_event("dragOver", at, data))
                .await?;
            if let Some(el) = dragged {
                let accepted = self.call_on(el, DROP_WATCHED, Value::Null).await.ok();
                result.drop_accepted = accepted.and_then(|v| v.as_bool());
            }
            self.cdp("Input.dispatchDragEvent", drag_event("drop", at, data))
                .await?;
        } else {
            self.next_frame().await;
        }
        self.cdp_batch(vec![mouse_event("mouseReleased", at.0, at.1, left, 0)])
            .await?;
        self.next_frame().await;
        Ok(result)
    }

    /// The [`Place`] of `el` now.
    pub async fn place_of(&self, el: Element) -> Option<Place> {
        let v = self.call_on(el, PLACE, Value::Null).await.ok()?;
        serde_json::from_value(v).ok()
    }
}

/// The points of a drag's way from `from` to `to`, after the press.
pub fn way(from: (f64, f64), to: (f64, f64)) -> Vec<(f64, f64)> {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    let len = (dx * dx + dy * dy).sqrt();
    // Opening moves go toward the target (straight down when it is the
    // start itself: a press and wiggle).
    let (ux, uy) = if len > 0.5 {
        (dx / len, dy / len)
    } else {
        (0.0, 1.0)
    };
    let mut points: Vec<(f64, f64)> = OPENING_MOVES
        .iter()
        .filter(|d| len < 0.5 || **d < len)
        .map(|d| (from.0 + ux * d, from.1 + uy * d))
        .collect();
    for i in 1..=TRAVEL_STEPS {
        let t = f64::from(i) / f64::from(TRAVEL_STEPS);
        points.push((from.0 + dx * t, from.1 + dy * t));
    }
    // Onto the target twice: libraries that move an item on one frame
    // and settle its placeholder on the next see the pointer rest there.
    points.push(to);
    points
}

/// How the page took a drag.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct DragResult {
    /// The browser started a native (HTML5) drag.
    pub native: bool,
    /// For a native drag: whether the page accepted a drop at the end
    /// (a `dragover` handler there called `preventDefault`); None when
    /// that could not be seen in time (then the answer claims nothing).
    pub drop_accepted: Option<bool>,
}

/// The drag data of an `Input.dragIntercepted` the browser sent for `tab`
/// since the last look, if any.
fn drag_started(
    events: &mut tokio::sync::broadcast::Receiver<TabEvent>,
    tab: TabId,
) -> Option<Value> {
    loop {
        match events.try_recv() {
            Ok(TabEvent::Cdp {
                tab: t,
                method,
                params,
            }) if t == tab && method == "Input.dragIntercepted" => {
                return Some(params["data"].clone())
            }
            Ok(_) | Err(TryRecvError::Lagged(_)) => continue,
            Err(_) => return None,
        }
    }
}

fn drag_event(kind: &str, (x, y): (f64, f64), data: &Value) -> Value {
    json!({"type": kind, "x": x, "y": y, "data": data})
}

/// Run on the dragged element (the engine's isolated world, which the
/// page's scripts never see): listens for the next `dragover` and records
/// whether the page accepted a drop there. A listener on the window runs
/// after the page's own handlers on the target and its ancestors.
const WATCH_DROP: &str = "function() { globalThis.__tabwireDrop = null; \
  this.ownerDocument.defaultView.addEventListener('dragover', \
    e => { globalThis.__tabwireDrop = e.defaultPrevented; }, {once: true}); \
  return 0; }";

/// What [`WATCH_DROP`] recorded (null: no dragover reached the page).
const DROP_WATCHED: &str = "function() { return globalThis.__tabwireDrop; }";

/// Where an element is, as a person would say it moved: its place among
/// its shown siblings, the container it is in, a slider's value.
#[derive(Debug, Clone, PartialEq, Default, serde::Deserialize)]
pub struct Place {
    /// It left the page (a library that drops a copy and removes it).
    #[serde(default)]
    pub gone: bool,
    /// Its place among the shown elements of its parent (1-based).
    #[serde(default)]
    pub index: usize,
    #[serde(default)]
    pub of: usize,
    /// What it is, as the answer names it.
    #[serde(default)]
    pub label: String,
    /// Its container (role and name, or tag, id and class), to tell a
    /// move to another list.
    #[serde(default)]
    pub container: String,
    /// A slider's or spin button's value.
    #[serde(default)]
    pub value: Option<String>,
    /// Its box's top-left corner (viewport points).
    #[serde(default)]
    pub x: f64,
    #[serde(default)]
    pub y: f64,
}

/// Run on an element (the engine's world): its [`Place`].
const PLACE: &str = "function() {
  if (!this.isConnected) return {gone: true};
  const T = globalThis.__tabwire;
  const say = (el) => {
    const role = T ? T.roleOf(el) : el.localName;
    const name = T ? (T.nameOf(el, role) || T.text(el, 80)) : (el.textContent || '');
    const n = name.replace(/\\s+/g, ' ').trim().slice(0, 60);
    return n ? role + ' ' + JSON.stringify(n) : role;
  };
  const shown = (el) => el.getClientRects().length > 0;
  const parent = this.parentElement || (this.parentNode && this.parentNode.host);
  const sibs = parent ? [...parent.children].filter(c => c === this || shown(c)) : [this];
  const p = parent || this;
  const container = (parent ? say(p) : '') + ' <' + p.localName + (p.id ? '#' + p.id : '')
    + (typeof p.className === 'string' && p.className ? '.' + p.className.trim().split(/\\s+/).join('.') : '') + '>';
  const role = T ? T.roleOf(this) : '';
  let value = null;
  if (role === 'slider' || role === 'spinbutton' || this.type === 'range') {
    value = this.getAttribute('aria-valuetext') || this.getAttribute('aria-valuenow') || (this.value ?? null);
  }
  const r = this.getBoundingClientRect();
  return {index: sibs.indexOf(this) + 1, of: sibs.length, label: say(this), container, value: value == null ? null : String(value), x: r.left, y: r.top};
}";

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The sentence an answer gives on what a drag moved, from the dragged
/// element's place before and after (`quote` fences what the page named).
pub fn what_moved(
    before: &Place,
    after: &Place,
    result: &DragResult,
    quote: impl Fn(&str) -> String,
) -> String {
    let refused = match result.drop_accepted {
        Some(false) => {
            " The page refused the drop there (no handler accepted it), so nothing was dropped."
        }
        _ => "",
    };
    if after.gone {
        return format!(
            "The dragged element left the page (the page may have put a copy where it was dropped; the change report shows it).{refused}"
        );
    }
    let what = quote(&after.label);
    if let (Some(was), Some(now)) = (&before.value, &after.value) {
        return if was == now {
            format!("Nothing moved: {what} still has the value {now}.{refused}")
        } else {
            format!("{what} now has the value {now} (it was {was}).{refused}")
        };
    }
    if before.container != after.container {
        return format!(
            "{what} moved into another container: {} ({} of {} there).{refused}",
            quote(after.container.trim()),
            ordinal(after.index),
            after.of
        );
    }
    if before.index != after.index {
        return format!(
            "{what} is now {} of {} in its list (it was {}).{refused}",
            ordinal(after.index),
            after.of,
            ordinal(before.index)
        );
    }
    let shifted = (after.x - before.x).abs() > 2.0 || (after.y - before.y).abs() > 2.0;
    if shifted {
        return format!(
            "{what} moved by ({:.0}, {:.0}) px; its place among its siblings is unchanged ({} of {}).{refused}",
            after.x - before.x,
            after.y - before.y,
            ordinal(after.index),
            after.of
        );
    }
    format!(
        "Nothing moved: {what} is still {} of {} where it was.{refused}",
        ordinal(after.index),
        after.of
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_way_passes_the_activation_distances_then_reaches_the_target() {
        let w = way((0.0, 0.0), (100.0, 0.0));
        assert_eq!(&w[..3], &[(2.0, 0.0), (6.0, 0.0), (12.0, 0.0)]);
        assert_eq!(w.len(), 3 + TRAVEL_STEPS as usize + 1);
        assert_eq!(w[w.len() - 1], (100.0, 0.0));
        assert_eq!(w[w.len() - 2], (100.0, 0.0));
        // A short drag leaves out the opening moves past its end.
        let short = way((0.0, 0.0), (5.0, 0.0));
        assert_eq!(short[..2], [(2.0, 0.0), (5.0 / 8.0, 0.0)]);
        // Onto itself: a wiggle straight down, then back.
        let still = way((10.0, 10.0), (10.0, 10.0));
        assert_eq!(still[0], (10.0, 12.0));
        assert_eq!(*still.last().unwrap(), (10.0, 10.0));
    }

    fn at(index: usize, container: &str) -> Place {
        Place {
            index,
            of: 5,
            label: "listitem \"Echo\"".into(),
            container: container.into(),
            ..Place::default()
        }
    }

    #[test]
    fn the_answer_says_what_moved() {
        let q = |s: &str| format!("«{s}»");
        let r = DragResult::default();
        assert_eq!(
            what_moved(&at(5, "list"), &at(1, "list"), &r, q),
            "«listitem \"Echo\"» is now 1st of 5 in its list (it was 5th)."
        );
        assert!(what_moved(&at(2, "list"), &at(2, "list"), &r, q).starts_with("Nothing moved"));
        assert!(what_moved(&at(2, "a"), &at(1, "b"), &r, q).contains("another container: «b»"));
        let slider = |v: &str| Place {
            value: Some(v.into()),
            label: "slider".into(),
            ..Place::default()
        };
        assert_eq!(
            what_moved(&slider("20"), &slider("30"), &r, q),
            "«slider» now has the value 30 (it was 20)."
        );
        let refused = DragResult {
            native: true,
            drop_accepted: Some(false),
        };
        assert!(
            what_moved(&at(2, "list"), &at(2, "list"), &refused, q).contains("refused the drop")
        );
        assert_eq!(ordinal(2), "2nd");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(23), "23rd");
    }
}
