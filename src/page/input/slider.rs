//! Setting a slider as a person does: focus it, then keys (Home, End,
//! arrows), and read the value it settled on. Works for `<input
//! type=range>` (visible, or hidden under a track a page draws, as
//! react-aria's sliders in Streamlit are) and for elements with
//! `role=slider` and `aria-valuenow` (BaseWeb, MUI, rc-slider, noUiSlider),
//! whose widgets take the same keys. A value outside the slider's range is
//! refused with the range.

use serde_json::json;

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// The most arrow presses one setting sends (a slider of 0–10,000 in
/// steps of 1 is set to within this many of its ends by Home or End).
const MAX_PRESSES: i64 = 400;

/// Where a slider stands: focused, with its range and step.
const SLIDER_STATE: &str = "function(focus) {
  const T = globalThis.__tabwire;
  const range = this.localName === 'input' && this.type === 'range';
  const role = T ? T.roleOf(this) : (range ? 'slider' : '');
  if (!range && role !== 'slider') {
    return {error: `the element is a ${role || this.localName}, not a slider (an input type=range or an element with role=slider)`};
  }
  if (this.disabled || this.getAttribute('aria-disabled') === 'true') return {error: 'the slider is disabled: nothing was changed'};
  const num = (v, d) => { const n = parseFloat(v); return Number.isFinite(n) ? n : d; };
  const min = range ? num(this.min, 0) : num(this.getAttribute('aria-valuemin'), 0);
  const max = range ? num(this.max, 100) : num(this.getAttribute('aria-valuemax'), 100);
  const step = range ? (this.step === 'any' ? 0 : num(this.step, 1)) : 0;
  const now = range ? num(this.value, min) : num(this.getAttribute('aria-valuenow'), NaN);
  if (focus) this.focus();
  return {min, max, step, now: Number.isFinite(now) ? now : null,
          text: this.getAttribute('aria-valuetext') || null};
}";

#[derive(Debug, Clone, Copy)]
struct State {
    min: f64,
    max: f64,
    /// 0: unknown (an ARIA slider; learnt from the first press).
    step: f64,
    now: f64,
}

impl Tab {
    async fn slider_state(&self, target: &str, focus: bool) -> Result<State, ToolError> {
        let r = self.call_at(target, SLIDER_STATE, json!(focus)).await?;
        if let Some(e) = r["error"].as_str() {
            return Err(ToolError::other(e.to_string()));
        }
        let f = |k: &str| r[k].as_f64();
        match (f("min"), f("max"), f("now")) {
            (Some(min), Some(max), Some(now)) => Ok(State {
                min,
                max,
                step: f("step").unwrap_or(0.0),
                now,
            }),
            _ => Err(ToolError::other(
                "the slider does not say its value (no aria-valuenow): it cannot be set by value; \
                 drag its thumb with browser_drag instead"
                    .into(),
            )),
        }
    }

    /// Sets the slider `target` names to `value` with keys; the value it
    /// shows afterwards (which can differ when the page snaps to its steps).
    pub async fn set_slider(&self, target: &str, value: &str) -> Result<f64, ToolError> {
        let want: f64 = value.trim().parse().map_err(|_| {
            ToolError::other(format!(
                "value {value:?} is not a number (a slider takes one)"
            ))
        })?;
        let mut st = self.slider_state(target, true).await?;
        if want < st.min || want > st.max {
            return Err(ToolError::other(format!(
                "value {want} is outside the slider's range {}–{}: nothing was changed",
                st.min, st.max
            )));
        }
        // Home and End reach the ends at once; arrows the rest, in up to
        // three rounds (an ARIA slider's step is learnt from one press).
        for _ in 0..3 {
            if (st.now - want).abs() < 1e-9 {
                break;
            }
            if want == st.min || want == st.max {
                self.press_times(if want == st.min { "Home" } else { "End" }, 1)
                    .await?;
            } else {
                let up = want > st.now;
                let arrow = if up { "ArrowRight" } else { "ArrowLeft" };
                let presses = if st.step > 0.0 {
                    ((want - st.now).abs() / st.step).round() as i64
                } else {
                    1
                };
                if presses == 0 {
                    break;
                }
                let before = st.now;
                self.press_times(arrow, presses.min(MAX_PRESSES) as usize)
                    .await?;
                st = self.slider_state(target, false).await?;
                if st.step <= 0.0 {
                    // What one press moved it by is its step.
                    let moved = (st.now - before).abs();
                    if moved == 0.0 {
                        break;
                    }
                    st.step = moved;
                }
                continue;
            }
            st = self.slider_state(target, false).await?;
        }
        Ok(self.slider_state(target, false).await?.now)
    }
}
