//! Scrolling as a person's wheel does it, and saying what actually
//! scrolled: which box (the target's nearest scrollable container, or the
//! page), from where to where, and whether it reached its end; or, when
//! nothing moved, why, and which boxes in view can scroll.

use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// Run on the target (the engine's world): the scrollable boxes from it
/// up to the page, each `{what, pos: [x, y, maxX, maxY]}`, and the page's
/// own `[x, y, maxX, maxY]`.
const STATE_AT: &str = "function() {
  const T = globalThis.__tabwire;
  const page = document.scrollingElement || document.documentElement;
  const boxes = [];
  for (let n = this; n && n.nodeType === 1; n = n.parentElement || (n.getRootNode().host || null)) {
    if (n === page || n === document.body) continue;
    const s = getComputedStyle(n);
    const sx = /auto|scroll/.test(s.overflowX) && n.scrollWidth > n.clientWidth + 1;
    const sy = /auto|scroll/.test(s.overflowY) && n.scrollHeight > n.clientHeight + 1;
    if (!sx && !sy) continue;
    const role = T ? T.roleOf(n) : 'generic';
    const name = T ? (T.nameOf(n, role) || '').replace(/\\s+/g, ' ').trim().slice(0, 40) : '';
    boxes.push({what: n.localName + (n.id ? '#' + n.id : '') + (name ? ' ' + JSON.stringify(name) : ''),
      pos: [Math.round(n.scrollLeft), Math.round(n.scrollTop), n.scrollWidth - n.clientWidth, n.scrollHeight - n.clientHeight]});
  }
  return {boxes, page: [Math.round(scrollX), Math.round(scrollY),
    Math.max(0, page.scrollWidth - innerWidth), Math.max(0, page.scrollHeight - innerHeight)]};
}";

/// The page's position alone (cheap: read while a scroll comes to rest).
const PAGE_STATE: &str = "(() => {
  const page = document.scrollingElement || document.documentElement;
  return {boxes: [], page: [Math.round(scrollX), Math.round(scrollY),
    Math.max(0, page.scrollWidth - innerWidth), Math.max(0, page.scrollHeight - innerHeight)]};
})()";

/// The scrollable boxes a person sees in the viewport (at most five):
/// what a wheel that moved nothing can point the model to. It walks the
/// page, so it runs only then.
const BOXES_IN_VIEW: &str = "(() => {
  const inView = [];
  for (const n of document.body ? document.body.querySelectorAll('*') : []) {
    if (inView.length >= 5) break;
    if (n.scrollHeight <= n.clientHeight + 1 && n.scrollWidth <= n.clientWidth + 1) continue;
    const s = getComputedStyle(n);
    if (!/auto|scroll/.test(s.overflowX + s.overflowY)) continue;
    const r = n.getBoundingClientRect();
    if (r.width < 8 || r.height < 8 || r.bottom <= 0 || r.right <= 0 || r.top >= innerHeight || r.left >= innerWidth) continue;
    inView.push(n.localName + (n.id ? '#' + n.id : ''));
  }
  return inView;
})()";

impl Tab {
    /// [`BOXES_IN_VIEW`], into `state` as its `inView`.
    pub async fn add_boxes_in_view(&self, state: &mut Value) {
        if let Ok(v) = self.eval(BOXES_IN_VIEW).await {
            state["inView"] = v;
        }
    }

    /// Where the scrollable things stand (see [`STATE_AT`]).
    pub async fn scroll_state(&self, target: Option<&str>) -> Result<Value, ToolError> {
        match target {
            Some(t) => self.call_at(t, STATE_AT, Value::Null).await,
            None => self.eval(PAGE_STATE).await,
        }
    }

    /// Waits (at most 600 ms) for a smooth scroll to come to rest: the state
    /// read twice 50 ms apart is the same.
    pub async fn scroll_state_at_rest(&self, target: Option<&str>, before: &Value) -> Value {
        let mut last = before.clone();
        for _ in 0..12 {
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            let Ok(now) = self.scroll_state(target).await else {
                return last;
            };
            if now == last && now != *before {
                return now;
            }
            last = now;
        }
        last
    }

    /// The wheel event at a viewport point (a person's wheel there).
    pub async fn wheel_at(
        &self,
        (x, y): (f64, f64),
        (dx, dy): (f64, f64),
    ) -> Result<(), ToolError> {
        self.cdp(
            "Input.dispatchMouseEvent",
            json!({"type": "mouseWheel", "x": x, "y": y, "deltaX": dx, "deltaY": dy}),
        )
        .await
        .map(|_| ())
    }
}

/// `[x, y, maxX, maxY]` as numbers.
fn pos(v: &Value) -> Option<[f64; 4]> {
    let a = v.as_array()?;
    Some([
        a.first()?.as_f64()?,
        a.get(1)?.as_f64()?,
        a.get(2)?.as_f64()?,
        a.get(3)?.as_f64()?,
    ])
}

fn ends(p: [f64; 4], (dx, dy): (f64, f64)) -> String {
    let mut at = Vec::new();
    if dy > 0.0 && p[1] >= p[3] - 1.0 {
        at.push("its bottom");
    }
    if dy < 0.0 && p[1] <= 0.0 {
        at.push("its top");
    }
    if dx > 0.0 && p[0] >= p[2] - 1.0 {
        at.push("its right end");
    }
    if dx < 0.0 && p[0] <= 0.0 {
        at.push("its left end");
    }
    if at.is_empty() {
        String::new()
    } else {
        format!(" (at {})", at.join(" and "))
    }
}

/// The answer's first line: what moved, from where to where; or why
/// nothing did.
pub fn describe(before: &Value, after: &Value, delta: (f64, f64), target: Option<&str>) -> String {
    let boxes = |v: &Value| v["boxes"].as_array().cloned().unwrap_or_default();
    let (b0, b1) = (boxes(before), boxes(after));
    let mut moved = b0
        .iter()
        .zip(&b1)
        .filter_map(|(x, y)| {
            let (p0, p1) = (pos(&x["pos"])?, pos(&y["pos"])?);
            (p0[..2] != p1[..2])
                .then(|| (x["what"].as_str().unwrap_or("a box").to_string(), p0, p1))
        })
        .collect::<Vec<_>>();
    if let (Some(p0), Some(p1)) = (pos(&before["page"]), pos(&after["page"])) {
        if p0[..2] != p1[..2] {
            moved.push(("the page".to_string(), p0, p1));
        }
    }
    if let Some((what, p0, p1)) = moved.first() {
        return format!(
            "Scrolled {what} by ({}, {}): from ({}, {}) to ({}, {}){}.",
            delta.0,
            delta.1,
            p0[0],
            p0[1],
            p1[0],
            p1[1],
            ends(*p1, delta)
        );
    }
    let page = pos(&after["page"]).unwrap_or_default();
    match target {
        Some(t) if !b1.is_empty() => format!(
            "Nothing scrolled: {t} is in {} and the page, which are already at their end that \
             way (or the page stopped the wheel).",
            b1.iter()
                .filter_map(|b| b["what"].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(t) if page[2] <= 0.0 && page[3] <= 0.0 => format!(
            "Nothing scrolled: neither {t} nor anything around it can scroll (the page fits \
             the window)."
        ),
        Some(t) => format!(
            "Nothing scrolled: {t} is in no scrollable box, and the page is already at its end \
             that way{}.",
            ends(page, delta)
        ),
        None => {
            let in_view: Vec<&str> = after["inView"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let boxes = if in_view.is_empty() {
                String::new()
            } else {
                format!(
                    " Boxes in view that scroll: {}; pass one (or an element in it) as `target`.",
                    in_view.join(", ")
                )
            };
            if page[2] <= 0.0 && page[3] <= 0.0 {
                format!("The page cannot scroll (it fits the window).{boxes}")
            } else {
                format!(
                    "Nothing scrolled: the page is already at its end that way{}.{boxes}",
                    ends(page, delta)
                )
            }
        }
    }
}
