//! Performance traces (the `devtools` group): recording one with the
//! browser's own tracing, reading it back, and the insights a person would
//! look for first — when the largest content appeared and what it was,
//! how much the layout shifted, long tasks on the page's main thread, the
//! requests that held rendering back, and the slowest requests.
//!
//! The trace comes back as a stream (`IO.read`), not as events, so a
//! large one never floods the event channel.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::tab::calls::next_event;
use crate::page::tab::current::Tab;

/// A performance trace is being recorded in the tab (its slot; a detach
/// ends it).
#[derive(Default)]
pub struct Tracing(pub bool);

/// Forgets a trace the debugger's detach ended.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn detached(&self, state: &mut crate::page::tab::calls::TabState) {
        state.slot::<Tracing>().0 = false;
    }
}

/// What the insights are computed from (the Performance panel's own set,
/// without screenshots).
const CATEGORIES: &[&str] = &[
    "-*",
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "loading",
    "blink.user_timing",
    "toplevel",
];

/// Longest the browser may take to hand the trace over after it stops.
const COMPLETE_WAIT: Duration = Duration::from_secs(30);

/// How long stopping waits for the page's running task to end.
const TASK_END: Duration = Duration::from_millis(100);

/// A task on the page's main thread longer than this blocks input.
const LONG_TASK_US: f64 = 50_000.0;

impl Tab {
    /// Starts recording a trace of `tab`.
    pub async fn start_trace(&self) -> Result<(), ToolError> {
        if self.tab_state().slot::<Tracing>().0 {
            return Err(ToolError::other(
                "a trace is already being recorded in this tab; browser_stop_tracing ends it"
                    .into(),
            ));
        }
        self.cdp(
            "Tracing.start",
            json!({
                "transferMode": "ReturnAsStream",
                "streamFormat": "json",
                "traceConfig": {"includedCategories": CATEGORIES, "recordMode": "recordUntilFull"},
            }),
        )
        .await
        .map_err(|e| ToolError::other(format!("the browser would not start a trace: {e}")))?;
        self.tab_state().slot::<Tracing>().0 = true;
        Ok(())
    }

    /// Stops the trace of `tab` and returns it (the JSON text DevTools opens).
    pub async fn stop_trace(&self) -> Result<Vec<u8>, ToolError> {
        let s = self.client();
        let tab = self.id();
        if !self.tab_state().slot::<Tracing>().0 {
            return Err(ToolError::other(
                "no trace is being recorded in this tab; start one with browser_start_tracing"
                    .into(),
            ));
        }
        self.tab_state().slot::<Tracing>().0 = false;
        // The task that answered the last command may still be running (a
        // script's answer leaves before its task ends): let it end in the trace.
        tokio::time::sleep(TASK_END).await;
        let mut events = s.backend().subscribe();
        self.cdp("Tracing.end", json!({})).await?;
        s.set_progress(Some(
            "waiting for the browser to hand over the trace".into(),
        ));
        let complete = tokio::time::timeout(
            COMPLETE_WAIT,
            next_event(&mut events, tab, |m, _| m == "Tracing.tracingComplete"),
        )
        .await;
        s.set_progress(None);
        let stream = match complete {
            Ok(Some(p)) => p["stream"].as_str().map(str::to_string),
            _ => None,
        }
        .ok_or_else(|| {
            ToolError::other("the browser did not hand over the trace; try again".into())
        })?;
        self.read_stream(&stream, |_| Ok::<_, ToolError>(())).await
    }

    /// Names the element behind a trace's node id (tag, id, source, text),
    /// as the page's markup has it now.
    pub async fn describe_node(&self, node: i64) -> Option<String> {
        let s = self.client();
        let el = crate::page::reading::element::Element::by_node(node);
        let v = self.call_on(el, DESCRIBE, Value::Null).await.ok()?;
        v.as_str().map(|t| s.fence().quote(t))
    }
}

/// What a trace says, in milliseconds.
#[derive(Debug, Default, PartialEq)]
pub struct Insights {
    /// How long the trace covers.
    pub span_ms: f64,
    /// Whether a top-level navigation started in it (times are then from
    /// its start, else from the trace's).
    pub navigation: bool,
    /// Largest contentful paint: when, the node (backend node id), and
    /// whether it was text or an image.
    pub lcp: Option<(f64, Option<i64>, String)>,
    /// Cumulative layout shift (the worst session window) and the number
    /// of shifts not caused by input.
    pub cls: f64,
    pub shifts: usize,
    /// Shifts the browser marked as following input (not counted).
    pub input_shifts: usize,
    /// Long tasks on the page's main thread, longest first.
    pub long_tasks: Vec<f64>,
    /// Render-blocking requests (URL, duration), slowest first.
    pub render_blocking: Vec<(String, f64)>,
    /// The slowest requests (URL, duration).
    pub slowest: Vec<(String, f64)>,
}

fn ts(e: &Value) -> f64 {
    e["ts"].as_f64().unwrap_or(0.0)
}

fn name(e: &Value) -> &str {
    e["name"].as_str().unwrap_or("")
}

fn data(e: &Value) -> &Value {
    &e["args"]["data"]
}

/// Computes the insights of a trace (the JSON DevTools writes: an object
/// with `traceEvents`, or a bare array of events).
pub fn insights(trace: &Value) -> Insights {
    let events: &[Value] = trace
        .get("traceEvents")
        .or(Some(trace))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let mut out = Insights::default();
    let timed: Vec<&Value> = events.iter().filter(|e| ts(e) > 0.0).collect();
    let first = timed.iter().map(|e| ts(e)).fold(f64::MAX, f64::min);
    let last = timed
        .iter()
        .map(|e| ts(e) + e["dur"].as_f64().unwrap_or(0.0))
        .fold(0.0, f64::max);
    if timed.is_empty() {
        return out;
    }
    out.span_ms = (last - first) / 1000.0;
    // The latest top-level navigation, if any, is where load times count from.
    let nav = events
        .iter()
        .filter(|e| name(e) == "navigationStart" && data(e)["isLoadingMainFrame"] == true)
        .filter(|e| {
            data(e)["documentLoaderURL"]
                .as_str()
                .is_some_and(|u| !u.is_empty() && u != "about:blank")
        })
        .map(ts)
        .fold(None, |m: Option<f64>, t| Some(m.map_or(t, |m| m.max(t))));
    out.navigation = nav.is_some();
    let origin = nav.unwrap_or(first);
    // LCP: the last candidate after the origin.
    out.lcp = events
        .iter()
        .filter(|e| name(e) == "largestContentfulPaint::Candidate" && ts(e) >= origin)
        .max_by(|a, b| ts(a).total_cmp(&ts(b)))
        .map(|e| {
            let d = data(e);
            (
                (ts(e) - origin) / 1000.0,
                d["nodeId"].as_i64(),
                d["type"].as_str().unwrap_or("content").to_string(),
            )
        });
    // CLS: shifts not caused by input, in session windows (gaps under
    // 1 s, at most 5 s long); the worst window counts. In a trace of a
    // navigation, only the new document's shifts count: the old one can
    // still shift (a timer firing) between the trace's start and the
    // navigation's, and that is not this load's doing.
    let shift_events = || {
        events
            .iter()
            .filter(|e| name(e) == "LayoutShift" && ts(e) >= origin)
    };
    out.input_shifts = shift_events()
        .filter(|e| data(e)["had_recent_input"] == true)
        .count();
    let mut shifts: Vec<(f64, f64)> = shift_events()
        .filter(|e| data(e)["had_recent_input"] != true)
        .map(|e| {
            let d = data(e);
            let score = d["weighted_score_delta"]
                .as_f64()
                .or(d["score"].as_f64())
                .unwrap_or(0.0);
            (ts(e), score)
        })
        .collect();
    shifts.sort_by(|a, b| a.0.total_cmp(&b.0));
    out.shifts = shifts.len();
    let (mut window, mut start, mut prev) = (0.0_f64, 0.0_f64, f64::MIN);
    for (t, score) in shifts {
        if t - prev > 1_000_000.0 || t - start > 5_000_000.0 {
            window = 0.0;
            start = t;
        }
        window += score;
        prev = t;
        out.cls = out.cls.max(window);
    }
    // Long tasks on the renderers' main threads.
    let main_threads: Vec<(i64, i64)> = events
        .iter()
        .filter(|e| name(e) == "thread_name" && e["args"]["name"] == "CrRendererMain")
        .map(|e| {
            (
                e["pid"].as_i64().unwrap_or(0),
                e["tid"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    out.long_tasks = events
        .iter()
        .filter(|e| name(e) == "RunTask" && e["ph"] == "X" && ts(e) >= origin)
        .filter(|e| {
            main_threads.contains(&(
                e["pid"].as_i64().unwrap_or(0),
                e["tid"].as_i64().unwrap_or(0),
            ))
        })
        .filter_map(|e| e["dur"].as_f64().filter(|d| *d > LONG_TASK_US))
        .map(|d| d / 1000.0)
        .collect();
    out.long_tasks.sort_by(|a, b| b.total_cmp(a));
    // Requests: from the send to the finish.
    let mut sent: HashMap<&str, (&str, f64, bool)> = HashMap::new();
    let mut done: Vec<(String, f64, bool)> = Vec::new();
    for e in events {
        let d = data(e);
        let Some(id) = d["requestId"].as_str() else {
            continue;
        };
        match name(e) {
            "ResourceSendRequest" => {
                let blocking = matches!(
                    d["renderBlocking"].as_str(),
                    Some("blocking" | "in_body_parser_blocking")
                );
                sent.insert(id, (d["url"].as_str().unwrap_or(""), ts(e), blocking));
            }
            "ResourceFinish" => {
                if let Some((url, at, blocking)) = sent.remove(id) {
                    done.push((url.to_string(), (ts(e) - at) / 1000.0, blocking));
                }
            }
            _ => {}
        }
    }
    done.sort_by(|a, b| b.1.total_cmp(&a.1));
    out.render_blocking = done
        .iter()
        .filter(|r| r.2)
        .map(|r| (r.0.clone(), r.1))
        .collect();
    out.slowest = done.iter().take(5).map(|r| (r.0.clone(), r.1)).collect();
    out
}

const DESCRIBE: &str = "function() {
  const e = this.nodeType === 1 ? this : this.parentElement;
  if (!e) return null;
  const src = (e.currentSrc || e.src || '').toString().slice(0, 120);
  const text = (e.innerText || e.textContent || '').trim().replace(/\\s+/g, ' ').slice(0, 60);
  return '<' + e.localName + (e.id ? ' id=\"' + e.id + '\"' : '') + (src ? ' src=\"' + src + '\"' : '') + '>'
    + (text ? ' \"' + text + '\"' : '');
}";

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(name: &str, ts: f64, data: Value) -> Value {
        json!({"name": name, "ph": "I", "ts": ts, "pid": 1, "tid": 2, "args": {"data": data}})
    }

    #[test]
    fn a_load_trace_gives_lcp_cls_long_tasks_and_blocking_requests() {
        let t0 = 1_000_000.0;
        let trace = json!({"traceEvents": [
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 2, "args": {"name": "CrRendererMain"}},
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 3, "args": {"name": "Compositor"}},
            // The old document shifts and works just before the navigation
            // starts: neither belongs to this load.
            ev("LayoutShift", t0 - 50_000.0, json!({"weighted_score_delta": 0.3, "had_recent_input": true})),
            ev("LayoutShift", t0 - 40_000.0, json!({"weighted_score_delta": 0.3, "had_recent_input": false})),
            {"name": "RunTask", "ph": "X", "ts": t0 - 200_000.0, "dur": 150_000.0, "pid": 1, "tid": 2},
            ev("navigationStart", t0, json!({"isLoadingMainFrame": true, "documentLoaderURL": "http://x/"})),
            ev("ResourceSendRequest", t0 + 10_000.0, json!({"requestId": "1", "url": "http://x/style.css", "renderBlocking": "blocking"})),
            ev("ResourceSendRequest", t0 + 12_000.0, json!({"requestId": "2", "url": "http://x/hero.png", "renderBlocking": "non_blocking"})),
            ev("ResourceFinish", t0 + 610_000.0, json!({"requestId": "1"})),
            ev("ResourceFinish", t0 + 300_000.0, json!({"requestId": "2"})),
            ev("largestContentfulPaint::Candidate", t0 + 400_000.0, json!({"nodeId": 7, "type": "text"})),
            ev("largestContentfulPaint::Candidate", t0 + 700_000.0, json!({"nodeId": 9, "type": "image"})),
            ev("LayoutShift", t0 + 800_000.0, json!({"weighted_score_delta": 0.1, "had_recent_input": false})),
            ev("LayoutShift", t0 + 900_000.0, json!({"weighted_score_delta": 0.05, "had_recent_input": false})),
            ev("LayoutShift", t0 + 950_000.0, json!({"weighted_score_delta": 0.5, "had_recent_input": true})),
            // A second window after a 2 s gap, smaller.
            ev("LayoutShift", t0 + 3_000_000.0, json!({"weighted_score_delta": 0.02, "had_recent_input": false})),
            {"name": "RunTask", "ph": "X", "ts": t0 + 100_000.0, "dur": 120_000.0, "pid": 1, "tid": 2},
            {"name": "RunTask", "ph": "X", "ts": t0 + 300_000.0, "dur": 30_000.0, "pid": 1, "tid": 2},
            {"name": "RunTask", "ph": "X", "ts": t0 + 400_000.0, "dur": 90_000.0, "pid": 1, "tid": 3},
        ]});
        let i = insights(&trace);
        assert!(i.navigation);
        assert_eq!(i.lcp, Some((700.0, Some(9), "image".into())));
        assert!((i.cls - 0.15).abs() < 1e-9, "{}", i.cls);
        assert_eq!((i.shifts, i.input_shifts), (3, 1));
        assert_eq!(i.long_tasks, vec![120.0]);
        assert_eq!(
            i.render_blocking,
            vec![("http://x/style.css".into(), 600.0)]
        );
        assert_eq!(i.slowest[0], ("http://x/style.css".into(), 600.0));
        assert_eq!(i.slowest.len(), 2);
    }

    #[test]
    fn an_empty_trace_says_nothing() {
        assert_eq!(insights(&json!({"traceEvents": []})), Insights::default());
        assert_eq!(insights(&json!([])), Insights::default());
    }
}
