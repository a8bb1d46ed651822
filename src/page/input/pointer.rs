//! Input as a person gives it with the mouse: aiming at an element
//! (scrolled into view, hit-tested), presses, holds and drags, and the
//! tab's mouse (`Pointer`: where it is, what it holds down). Keys and
//! typing are in `typing.rs`; options, boxes, file inputs and reading a
//! field back, in `fields.rs`.

use serde_json::{json, Value};

use super::keys;
use crate::error::{ErrorKind, ToolError};
use crate::page::reading::element::Element;
use crate::page::tab::client::Client;
use crate::page::tab::current::Tab;
use crate::protocol::EARLIER_HANDLE;

impl Tab {
    /// Center of the element's first box in viewport coordinates.
    pub async fn center(&self, el: Element) -> Result<(f64, f64), ToolError> {
        let target = el.dom_params(json!({}));
        let session = el.session.as_deref();
        // Scroll and measure; not every node can scroll (e.g. display:
        // contents), so on failure the quads alone decide. In the tab's own
        // session both go in one message.
        let both = match session {
            None => self.cdp_batch(scroll_and_measure(&target)).await,
            Some(_) => {
                let _ = self
                    .cdp_in(session, "DOM.scrollIntoViewIfNeeded", target.clone())
                    .await;
                self.cdp_in(session, "DOM.getContentQuads", target.clone())
                    .await
                    .map(|q| vec![Value::Null, q])
            }
        };
        let quads = match both {
            Ok(mut r) if r.len() == 2 => r.remove(1),
            _ => self.cdp_in(session, "DOM.getContentQuads", target)
                .await
                .map_err(|_| {
                    ToolError::new(ErrorKind::NotReachable, "the element is not rendered (hidden or detached), so it cannot be reached with the mouse".into())
                })?,
        };
        // Points inside an out-of-process frame are the frame's own.
        let (dx, dy) = if el.frame != 0 {
            self.frame_offset(el.frame).await?
        } else {
            (0.0, 0.0)
        };
        let (x, y) = quad_middle(&quads).ok_or_else(|| {
            ToolError::new(ErrorKind::NotReachable, "the element has no visible box (it may be hidden); it cannot be reached with the mouse".into())
        })?;
        Ok((x + dx, y + dy))
    }

    /// [`Tab::center`], then [`HIT_TEST`] (`settled`: its argument): in one message
    /// when the element has a handle in the top document of the tab's own
    /// session (most targets), else in two or three.
    async fn center_and_hit(&self, el: Element, settled: bool) -> Result<FirstLook, ToolError> {
        if let (None, Some(object_id), 0) =
            (el.session.as_deref(), el.object_id.as_deref(), el.frame)
        {
            let batch = self.cdp_batch(aim_commands(object_id, settled)).await;
            // A node that cannot scroll (display: contents) or has no box
            // fails the batch: the step-by-step path below says why.
            if let Some(first_look) = batch.ok().and_then(aim_answers) {
                return first_look;
            }
        }
        let point = self.center(el.clone()).await?;
        let hit = self.call_on(el, HIT_TEST, json!(settled)).await?;
        Ok((point, hit))
    }

    /// Drags `from`, pressed at `start` (where aiming at it found it), onto
    /// `to` as a person's hand does ([`super::drag`]); the target is measured
    /// last, so it is in view with the start. The answer's facts come back
    /// (native or not, whether a native drop was accepted).
    pub async fn drag(
        &self,
        from: Element,
        start: (f64, f64),
        to: Element,
    ) -> Result<super::drag::DragResult, ToolError> {
        let end = self.center(to).await?;
        self.drag_points(start, end, Some(from)).await
    }

    pub async fn click(
        &self,
        el: Element,
        button: &str,
        clicks: i64,
        modifiers: i64,
    ) -> Result<(), ToolError> {
        let point = self.center(el).await?;
        self.click_at(point, button, clicks, modifiers).await
    }

    /// Scrolls the element into view, finds its middle and hit-tests it.
    /// An element that no scrolling brings into the viewport (in a closed
    /// drawer or menu, off-canvas) is an error: nothing a person does there
    /// would reach it. Another element on top is where a person's press
    /// lands, so that is where input goes, and the answer says so.
    pub async fn aim(&self, el: Element) -> Result<Aim, ToolError> {
        let (point, hit) = self.center_and_hit(el.clone(), false).await?;
        self.aim_from(el, point, hit).await
    }

    /// Resolves `target` ([`Tab::element`]) and aims at it ([`Tab::aim`]): for
    /// most targets in one message (the resolve, then [`aim_commands`] on the
    /// handle it answers), else step by step.
    pub async fn aim_at(&self, target: &str) -> Result<Aim, ToolError> {
        let then = aim_commands(EARLIER_HANDLE, false);
        if let Some((el, answers)) = self.element_then(target, then).await? {
            if let Some(first_look) = aim_answers(answers) {
                let (point, hit) = first_look?;
                return self.aim_from(el, point, hit).await;
            }
        }
        let el = self.element(target).await?;
        self.aim(el).await
    }

    /// [`Tab::aim`] from a first look (`point`, the hit test's answer `hit`).
    async fn aim_from(
        &self,
        el: Element,
        mut point: (f64, f64),
        mut hit: Value,
    ) -> Result<Aim, ToolError> {
        if hit["moving"].as_bool() == Some(true) {
            // A drawer still sliding in, a menu still unfolding: aim where it
            // comes to rest (its animations end, at most 1 s).
            let _ = self.call_on(el.clone(), ANIMATIONS_END, Value::Null).await;
            (point, hit) = self.center_and_hit(el.clone(), true).await?;
        }
        let mut motion = None;
        if hit["unsteady"].as_bool() == Some(true) {
            // Something on the page is animating and may carry the target
            // (a branch above it opening): wait until its box holds still.
            let still = self.call_on(el.clone(), HOLDS_STILL, Value::Null);
            if let Ok(Ok(v)) = tokio::time::timeout(STILL_WAIT, still).await {
                if v["moved"].as_bool() == Some(true) {
                    motion = Some(Motion {
                        ms: v["ms"].as_u64().unwrap_or(0),
                        stopped: v["still"].as_bool() == Some(true),
                    });
                }
            }
            (point, hit) = self.center_and_hit(el.clone(), true).await?;
        }
        if hit["outside"].as_bool() == Some(true) {
            // A scroll still running (a key's smooth scroll) can carry it out
            // again after it was scrolled into view: once it comes to rest, aim
            // again.
            let scrolling = self.call_on(el.clone(), SCROLL_END, Value::Null).await?;
            if scrolling.as_bool() == Some(true) {
                (point, hit) = self.center_and_hit(el.clone(), true).await?;
            }
        }
        if let Some([x, y]) = hit["surface"]
            .as_array()
            .and_then(|p| Some([p.first()?.as_f64()?, p.get(1)?.as_f64()?]))
        {
            // The surface the control is drawn on, in the frame's points.
            let (dx, dy) = if el.frame != 0 {
                self.frame_offset(el.frame).await?
            } else {
                (0.0, 0.0)
            };
            point = (x + dx, y + dy);
        }
        if hit["outside"].as_bool() == Some(true) {
            return Err(ToolError::new(ErrorKind::NotReachable, format!(
                "the element is outside the visible area even after scrolling (its middle is at x={}, y={} \
                 in a {}x{} viewport): it is probably in a closed menu, drawer or carousel. Open that first \
                 (look in browser_snapshot for a menu or navigation button), then try again",
                hit["x"], hit["y"], hit["w"], hit["h"]
            )));
        }
        Ok(Aim {
            point,
            disabled: hit["disabled"].as_str().map(str::to_string),
            covered_by: hit["hit"].as_str().map(str::to_string),
            download_link: hit["download"] == true,
            motion,
        })
    }

    /// The tab's mouse (see [`Pointer`]).
    pub fn pointer(&self) -> Pointer {
        self.tab_state().slot::<Pointer>().clone()
    }

    /// Records that input went to `at` (a click, a hover, a move).
    pub fn pointer_moved(&self, at: (f64, f64)) {
        self.tab_state().slot::<Pointer>().at = at;
    }

    /// Presses (`down`) or releases `button` where the mouse is, as
    /// `browser_mouse_down` and `browser_mouse_up` do.
    pub async fn mouse_button(&self, down: bool, button: &str) -> Result<(), ToolError> {
        let p = self.pointer();
        let (x, y) = p.at;
        let kind = if down {
            "mousePressed"
        } else {
            "mouseReleased"
        };
        self.cdp_batch(vec![mouse_event(kind, x, y, Some((button, 1)), 0)])
            .await?;
        self.tab_state().slot::<Pointer>().held = down.then(|| button.to_string());
        Ok(())
    }

    /// Turns the mouse wheel where the mouse is (CSS pixels to scroll by),
    /// and waits (at most 600 ms) for the scroll it starts to come to rest:
    /// the wheel scrolls asynchronously.
    pub async fn wheel(&self, dx: f64, dy: f64) -> Result<(), ToolError> {
        let at = self.pointer().at;
        let before = self.scroll_state(None).await?;
        self.wheel_at(at, (dx, dy)).await?;
        self.scroll_state_at_rest(None, &before).await;
        Ok(())
    }

    /// Moves the mouse to a viewport point (a held button stays held: a drag).
    pub async fn move_to(&self, (x, y): (f64, f64)) -> Result<(), ToolError> {
        let held = self.pointer().held;
        self.cdp_batch(vec![mouse_event(
            "mouseMoved",
            x,
            y,
            held.as_deref().map(|b| (b, 1)),
            0,
        )])
        .await?;
        self.pointer_moved((x, y));
        Ok(())
    }

    /// Presses (and releases) the mouse at a viewport point, `clicks` times.
    pub async fn click_at(
        &self,
        (x, y): (f64, f64),
        button: &str,
        clicks: i64,
        modifiers: i64,
    ) -> Result<(), ToolError> {
        self.pointer_moved((x, y));
        let mut events = vec![mouse_event("mouseMoved", x, y, None, modifiers)];
        for n in 1..=clicks {
            for kind in ["mousePressed", "mouseReleased"] {
                events.push(mouse_event(kind, x, y, Some((button, n)), modifiers));
            }
        }
        self.cdp_batch(events).await.map(|_| ())
    }

    /// Presses the mouse at a viewport point, holds it for `hold` (a person
    /// holding a button down), then releases it there.
    pub async fn hold_at(
        &self,
        (x, y): (f64, f64),
        button: &str,
        modifiers: i64,
        hold: std::time::Duration,
    ) -> Result<(), ToolError> {
        self.pointer_moved((x, y));
        self.cdp_batch(vec![
            mouse_event("mouseMoved", x, y, None, modifiers),
            mouse_event("mousePressed", x, y, Some((button, 1)), modifiers),
        ])
        .await?;
        tokio::time::sleep(hold).await;
        self.cdp_batch(vec![mouse_event(
            "mouseReleased",
            x,
            y,
            Some((button, 1)),
            modifiers,
        )])
        .await
        .map(|_| ())
    }
}

/// Scrolling the node `target` names into view, then its quads.
fn scroll_and_measure(target: &Value) -> Vec<(&'static str, Value)> {
    vec![
        ("DOM.scrollIntoViewIfNeeded", target.clone()),
        ("DOM.getContentQuads", target.clone()),
    ]
}

/// The middle of the first quad of a `DOM.getContentQuads` answer.
fn quad_middle(quads: &Value) -> Option<(f64, f64)> {
    let q = quads["quads"][0].as_array().filter(|q| q.len() == 8)?;
    let xs: Vec<f64> = q.iter().step_by(2).filter_map(Value::as_f64).collect();
    let ys: Vec<f64> = q
        .iter()
        .skip(1)
        .step_by(2)
        .filter_map(Value::as_f64)
        .collect();
    Some((xs.iter().sum::<f64>() / 4.0, ys.iter().sum::<f64>() / 4.0))
}

/// Scrolling the element with the handle `object_id` into view, its box,
/// then [`HIT_TEST`] (`settled`: its argument), as one batch.
fn aim_commands(object_id: &str, settled: bool) -> Vec<(&'static str, Value)> {
    let mut commands = scroll_and_measure(&json!({"objectId": object_id}));
    commands.push((
        "Runtime.callFunctionOn",
        crate::page::tab::calls::call_params(object_id, HIT_TEST, json!(settled)),
    ));
    commands
}

/// The middle of an element's box (viewport coordinates) and the hit
/// test's answer there: the first look when aiming.
type FirstLook = ((f64, f64), Value);

/// The first look from the answers to [`aim_commands`]; None when they do
/// not hold a box.
fn aim_answers(mut answers: Vec<Value>) -> Option<Result<FirstLook, ToolError>> {
    let point = (answers.len() == 3)
        .then(|| quad_middle(&answers[1]))
        .flatten()?;
    Some(crate::page::tab::calls::page_value(answers.remove(2)).map(|hit| (point, hit)))
}

/// One `Input.dispatchMouseEvent` command. `button` comes with a click
/// count for presses and releases; on a move it means the button is held
/// (a drag).
pub fn mouse_event(
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

/// Where a person would press to reach an element, after scrolling it
/// into view; and what is there when it is not the element itself.
pub struct Aim {
    pub point: (f64, f64),
    /// The target is disabled (its role and name): a press does nothing.
    pub disabled: Option<String>,
    /// The element that receives input at the point when something else
    /// covers the target (role, name, tag), as the page names it.
    pub covered_by: Option<String>,
    /// The target is (in) a link that downloads from a server.
    pub download_link: bool,
    /// The target was moving when first aimed at (see [`HOLDS_STILL`]).
    pub motion: Option<Motion>,
}

/// How long aiming waited for a moving target, and whether it stopped.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    pub ms: u64,
    pub stopped: bool,
}

impl Aim {
    /// The error for pressing a disabled target: nothing was done.
    pub fn refuse_disabled(&self, s: &Client) -> Result<(), ToolError> {
        match &self.disabled {
            Some(what) => Err(ToolError::new(
                ErrorKind::Disabled,
                format!(
                    "{} is disabled: nothing was clicked (a person's click does nothing there). \
                 Look in the snapshot for what enables it (a field to fill, a box to check)",
                    s.fence().quote(what)
                ),
            )),
            None => Ok(()),
        }
    }

    /// The clause an action's answer adds when input went elsewhere, or
    /// the target had to be waited for.
    pub fn landed(&self, s: &Client) -> String {
        let mut out = match self.motion {
            Some(Motion { ms, stopped: true }) => {
                format!(" (it was moving: waited {ms} ms for it to hold still)")
            }
            Some(Motion { ms, stopped: false }) => format!(
                " (it was still moving after {ms} ms: pressed where it was then; check the result)"
            ),
            None => String::new(),
        };
        if let Some(hit) = &self.covered_by {
            out.push_str(&format!(
                " (the pointer landed on {}, which covers it there: that element received the input)",
                s.fence().quote(hit)
            ));
        }
        out
    }
}

/// Run on the target (in the snapshot engine's world): is its middle in
/// the viewport, and which element is on top there when it is not the
/// target, something inside it, or a label of it.
const HIT_TEST: &str = "function(settled) {
  const look = () => {
  const T = globalThis.__tabwire;
  // A control hidden behind a surface it draws (an editor's input proxy,
  // a slider's hidden range input) is pressed where a person presses it.
  const surface = T && T.surfaceOf ? T.surfaceOf(this) : null;
  if (surface) {
    const s = surface.getBoundingClientRect();
    const win = this.ownerDocument.defaultView;
    const x = s.left + s.width / 2, y = s.top + s.height / 2;
    if (x < 0 || y < 0 || x >= win.innerWidth || y >= win.innerHeight) {
      return {outside: true, x: Math.round(x), y: Math.round(y), w: win.innerWidth, h: win.innerHeight};
    }
    return {surface: [x, y]};
  }
  const r = this.getClientRects()[0] || this.getBoundingClientRect();
  if (!r || !(r.width > 0 && r.height > 0)) return {};
  // Animations (CSS transitions too) running on it or an ancestor.
  // (Animations in shadow trees too: the engine knows their roots.)
  const running = settled ? [] : T && T.running ? T.running()
    : document.getAnimations().filter(a => a.playState === 'running');
  // (Through slots and shadow hosts: a popup inside a component's shadow
  // root holds options slotted from its light DOM.)
  const within = (outer, n) => T && T.within ? T.within(n, outer) : outer.contains(n);
  const moving = running.some(a => a.effect && a.effect.target && within(a.effect.target, this));
  if (moving) return {moving: true};
  // Something else is animating (it may push the target along): look
  // whether the target's box holds still before aiming.
  if (running.length) return {unsteady: true};
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
  // What covers it is still moving (a menu fading out, a popup closing):
  // a person waits for it to go before pressing.
  const finite = (a) => Number.isFinite(a.effect.getComputedTiming().endTime);
  if (running.some(a => a.effect && finite(a) && a.effect.target && within(a.effect.target, hit))) return {moving: true};
  const role = T ? T.roleOf(hit) : 'generic';
  const name = T ? (T.nameOf(hit, role) || T.text(hit, 200)).replace(/\\s+/g, ' ').trim().slice(0, 60) : '';
  return {hit: role + (name ? ' ' + JSON.stringify(name) : '') + ' (<' + hit.localName + '>)'};
  };
  const r = look();
  // Disabled (itself, by its fieldset, aria-disabled, or inside inert):
  // a person's press does nothing there.
  const T = globalThis.__tabwire;
  if (T && T.disabled(this)) {
    const role = T.roleOf(this);
    const name = (T.nameOf(this, role) || '').replace(/\\s+/g, ' ').trim().slice(0, 60);
    r.disabled = role + (name ? ' ' + JSON.stringify(name) : '');
  }
  // A link that downloads from a server (blob: and data: ones announce
  // their download at once).
  const link = this.closest && this.closest('a[download][href]');
  if (link && /^https?:/i.test(link.href)) r.download = true;
  return r;
}";

/// Resolves once the element's box has held still for two animation
/// frames (`moved`: whether it moved meanwhile, `ms`, `still`), or after
/// 500 ms with `still` false (a carousel, a marquee).
const HOLDS_STILL: &str = "function() {
  const box = () => { const r = this.getBoundingClientRect(); return [r.left, r.top, r.width, r.height].join(); };
  const t0 = performance.now();
  let last = box(), same = 0, moved = false;
  return new Promise(resolve => {
    const step = () => {
      const now = box();
      if (now === last) same++; else { same = 0; moved = true; last = now; }
      const ms = Math.round(performance.now() - t0);
      if (same >= 2) return resolve({moved, ms, still: true});
      if (ms > 500) return resolve({moved, ms, still: false});
      requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
}";

/// The longest [`HOLDS_STILL`] may take (a tab in the background draws no
/// frames: then aiming goes on as it is).
const STILL_WAIT: std::time::Duration = std::time::Duration::from_millis(700);

/// Whether the element is still moving with a scroll (its box moves over
/// 30 ms); if so, resolves when the scroll has ended (at most 1 s).
const SCROLL_END: &str = "function() {
  const y = this.getBoundingClientRect().top;
  return new Promise(r => setTimeout(r, 30)).then(() => {
    if (this.getBoundingClientRect().top === y) return false;
    return new Promise(r => {
      const done = () => r(true);
      document.addEventListener('scrollend', done, {capture: true, once: true});
      setTimeout(done, 1000);
    }).then(() => new Promise(r => setTimeout(() => r(true), 0)));
  });
}";

/// Resolves when the animations moving the element (on it or an
/// ancestor) and the finite ones elsewhere (what may cover it) have
/// finished, or after 1 s.
const ANIMATIONS_END: &str = "function() {
  const T = globalThis.__tabwire;
  const running = T && T.running ? T.running() : document.getAnimations().filter(a => a.playState === 'running');
  const within = (outer, n) => T && T.within ? T.within(n, outer) : outer.contains(n);
  const mine = running.filter(a => a.effect
    && (Number.isFinite(a.effect.getComputedTiming().endTime)
      || a.effect.target && within(a.effect.target, this)));
  return Promise.race([Promise.all(mine.map(a => a.finished.catch(() => 0))),
    new Promise(r => setTimeout(r, 1000))]).then(() => true);
}";

/// Where a tab's mouse is, as far as tabwire moved it (viewport points),
/// and which button it holds down.
#[derive(Debug, Default, Clone)]
pub struct Pointer {
    pub at: (f64, f64),
    pub held: Option<String>,
    /// Keys held down by `browser_keydown`, in the order pressed.
    pub keys: Vec<String>,
}

impl Pointer {
    /// CDP modifier flags of the modifier keys held down.
    pub fn held_flags(&self) -> i64 {
        keys::modifier_flags(&self.keys)
    }
}
