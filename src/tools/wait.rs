//! `browser_wait_for`: wait until text appears or disappears, an element
//! exists, or some time has passed.

use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::def::{Kind, Response, ToolDef, ToolError, View};
use crate::error::ErrorKind;
use crate::page::Tab;

/// Lines a wait for text shows of what appeared.
const WAIT_MATCHES: usize = 10;

/// Longest wait one call may ask for (stays below the per-command timeout).
const MAX_WAIT_SECS: f64 = 25.0;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WaitArgs {
    pub text: Option<String>,
    #[serde(rename = "textGone")]
    pub text_gone: Option<String>,
    pub selector: Option<String>,
    pub time: Option<f64>,
    pub timeout: Option<f64>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::on_tab(
            "browser_wait_for",
            "Wait for",
            Kind::ReadOnly,
            "Wait until `text` appears, `textGone` vanishes or `selector` matches (`timeout` s, default 10, max 25), or `time` s.",
            wait_for,
    )]
}

/// browser_wait_for.
async fn wait_for(tab: Tab, a: WaitArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    if let Some(t) = a.time {
        let secs = t.clamp(0.0, MAX_WAIT_SECS);
        tokio::time::sleep(Duration::from_secs_f64(secs)).await;
        if a.text.is_none() && a.text_gone.is_none() && a.selector.is_none() {
            return Ok(Response::text(format!("Waited {secs} s.")));
        }
    }
    // Each condition looks into the page's frames too (those of its
    // own origin from here; others through their worlds, below).
    // Text is looked for in what a person sees (the engine's
    // visible text): hidden text neither ends nor holds a wait.
    let (condition, what) = match (&a.text, &a.text_gone, &a.selector) {
        (Some(t), None, None) => (None, format!("text {t:?} to appear")),
        (None, Some(t), None) => (None, format!("text {t:?} to disappear")),
        (None, None, Some(sel)) => (
            Some(format!(
                "docs().some(d => !!d.querySelector({}))",
                json!(sel)
            )),
            format!("an element matching {sel:?}"),
        ),
        (None, None, None) => {
            return Err(ToolError::other(
                "give one of text, textGone, selector or time".into(),
            ))
        }
        _ => {
            return Err(ToolError::other(
                "give only one of text, textGone or selector per call".into(),
            ))
        }
    };
    let limit = a.timeout.unwrap_or(10.0).clamp(0.1, MAX_WAIT_SECS);
    let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(limit);
    // Text in frames of other origins (which the snapshot reaches
    // through their own worlds) is looked at between rounds.
    let in_frames = match (&a.text, &a.text_gone) {
        (Some(t), _) => Some((t.as_str(), true)),
        (_, Some(t)) => Some((t.as_str(), false)),
        _ => None,
    };
    loop {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let frames = tab.frame_numbers();
        let round = match (&in_frames, frames.is_empty()) {
            (Some(_), false) => left.min(FRAME_ROUND),
            _ => left,
        };
        let ms = round.as_millis() as u64;
        // One round trip: the page resolves when the condition holds
        // (re-checked on every DOM mutation) or when the time is up.
        let mut r = match (&condition, in_frames) {
            (Some(condition), _) => tab.eval(&watch_expression(condition, ms)).await,
            (None, Some((t, appear))) => tab
                .wait_for_text(t, !appear, ms)
                .await
                .map(serde_json::Value::Bool),
            (None, None) => unreachable!("a text wait has its text"),
        };
        if let (Some((t, appear)), Ok(top)) = (in_frames, &r) {
            if !frames.is_empty() {
                let top = *top == serde_json::Value::Bool(true);
                let seen = text_in_frames(&tab, &frames, t).await;
                // Appearing: anywhere is enough; gone: from everywhere.
                let holds = if appear { top || seen } else { top && !seen };
                if !holds && tokio::time::Instant::now() < deadline {
                    continue;
                }
                r = Ok(serde_json::Value::Bool(holds));
            }
        }
        match r {
            Ok(serde_json::Value::Bool(true)) => {
                let lead = format!("Done waiting for {what}.");
                // What appeared, with refs, so no second call is needed.
                if let Some(t) = &a.text {
                    let shown =
                        super::snapshot::found_lines(&tab, Some(t), None, WAIT_MATCHES).await;
                    if let Ok((lines, n)) = shown {
                        if n > 0 {
                            return Ok(Response::text(format!("{lead}\n{lines}")));
                        }
                    }
                }
                return Ok(Response::text(lead).with_view(View::Line(tab.page_line().await?)));
            }
            // A navigation destroys the page's context: look again in
            // the new one. A closed tab, a dialog or a refused debugger
            // will not go away by asking again.
            Err(e)
                if tokio::time::Instant::now() < deadline
                    && s.current_tab() == Some(tab.id())
                    && worth_retrying(&e) =>
            {
                tracing::debug!(error = %e, "wait interrupted; retrying");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
            Ok(_) => {
                let mut why = String::new();
                if let Some(t) = &a.text {
                    // A component that closed its shadow root keeps its
                    // text from every script: the browser can still say.
                    let (roots, found) = tab.closed_roots_holding(t).await;
                    why = match (roots, found) {
                        (_, true) => " The text is inside a closed shadow root (a component that keeps \
                             its content from scripts): tabwire cannot judge whether a person sees \
                             it there, so it is not read; browser_take_screenshot shows it."
                            .to_string(),
                        (0, _) => String::new(),
                        (n, false) => format!(
                            " ({n} closed shadow root{} on the page may hold more than tabwire can read.)",
                            if n == 1 { "" } else { "s" }
                        ),
                    };
                }
                return Err(ToolError::other(format!(
                    "timed out after {limit} s waiting for {what}. Take a snapshot to see \
                     the page as it is.{why}"
                )));
            }
        }
    }
}

/// Whether an error while watching the page may be a navigation in
/// progress, rather than something that asking again cannot fix.
fn worth_retrying(e: &ToolError) -> bool {
    !matches!(
        e.kind(),
        ErrorKind::TabClosed
            | ErrorKind::Dialog
            | ErrorKind::Crashed
            | ErrorKind::Refused
            | ErrorKind::StoppedByUser
            | ErrorKind::Timeout
    )
}

/// How long one round of a text wait watches the top document when the
/// page has frames of other origins to look at between rounds.
const FRAME_ROUND: Duration = Duration::from_millis(400);

/// Whether `text` is in what a person sees of any of `frames` (frames of
/// other origins, through their own worlds).
async fn text_in_frames(tab: &Tab, frames: &[u32], text: &str) -> bool {
    for &frame in frames {
        if let Ok(Some(seen)) = tab
            .engine_value::<String>(frame, "text", "null, 1000000")
            .await
        {
            if seen.contains(text) {
                return true;
            }
        }
    }
    false
}

/// The page resolves when `condition` holds (checked on every DOM change
/// of the top document and every 250 ms, for changes inside its frames)
/// or when `ms` are up. `docs()` in the condition: the document and those
/// of its frames it can reach (same origin), however deeply nested.
fn watch_expression(condition: &str, ms: u64) -> String {
    format!(
        "new Promise(resolve => {{
  const docs = () => {{
    const out = [];
    const walk = (d) => {{
      out.push(d);
      for (const f of d.querySelectorAll('iframe, frame')) {{
        try {{ if (f.contentDocument) walk(f.contentDocument); }} catch (e) {{}}
      }}
    }};
    walk(document);
    return out;
  }};
  const check = () => {{ try {{ return {condition}; }} catch (e) {{ return false; }} }};
  if (check()) return resolve(true);
  let poll;
  const done = (v) => {{ obs.disconnect(); clearInterval(poll); resolve(v); }};
  const obs = new MutationObserver(() => {{ if (check()) done(true); }});
  obs.observe(document, {{subtree: true, childList: true, characterData: true, attributes: true}});
  poll = setInterval(() => {{ if (check()) done(true); }}, 250);
  setTimeout(() => done(check()), {ms});
}})"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_errors_a_navigation_can_cause_are_retried() {
        use crate::backend::BackendError;
        // Decided by kind, whatever the sentence says.
        assert!(worth_retrying(&ToolError::other(
            "the page's document was replaced while it was read".into()
        )));
        assert!(worth_retrying(&ToolError::other(
            "a dialog, crashed".into()
        )));
        assert!(worth_retrying(&ToolError::new(
            ErrorKind::ContextGone,
            "x".into()
        )));
        assert!(!worth_retrying(&BackendError::NoSuchTab.into()));
        assert!(!worth_retrying(&BackendError::Refused("x".into()).into()));
        for kind in [
            ErrorKind::Dialog,
            ErrorKind::Crashed,
            ErrorKind::StoppedByUser,
            ErrorKind::Timeout,
        ] {
            assert!(
                !worth_retrying(&ToolError::new(kind, "x".into())),
                "{kind:?}"
            );
        }
    }
}
