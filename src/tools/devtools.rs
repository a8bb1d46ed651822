//! The `devtools` group (`serve --caps devtools`): performance traces with
//! the insights a person looks for first, and the raw trace saved for
//! Chrome DevTools' Performance panel; screen recordings saved as GIFs.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Cap, Kind, Response, ToolDef, ToolError};
use crate::page::devtools::trace::{self, Insights};
use crate::page::devtools::video;
use crate::page::downloads::save::save;
use crate::page::{Client, Tab};

/// How long a reload's trace goes on after the page is usable, for late
/// layout shifts and paints.
const SETTLE_AFTER_LOAD: std::time::Duration = std::time::Duration::from_millis(1000);

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StartArgs {
    /// Reload the page under the trace and answer with its insights at
    /// once (no browser_stop_tracing needed).
    #[serde(default)]
    pub reload: bool,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StopArgs {}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct VideoArgs {}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_start_tracing",
            "Start a performance trace",
            Kind::Action,
            "Record a performance trace of the current tab. With `reload: true` the page reloads \
             under the trace and the answer gives its insights at once (a page load's LCP and its \
             element, CLS, long tasks, render-blocking and slowest requests). Without it, act on \
             the page (click, type …) and then call browser_stop_tracing. The trace file is saved \
             in the download directory for Chrome DevTools.",
            start_tracing,
        )
        .in_group(Cap::Devtools),
        ToolDef::on_tab(
            "browser_stop_tracing",
            "Stop the performance trace",
            Kind::ReadOnly,
            "Stop the trace browser_start_tracing began; answers with its insights (LCP and its \
             element, CLS, long tasks, render-blocking and slowest requests) and the path of the \
             saved trace file (open it in Chrome DevTools' Performance panel).",
            |t: Tab, _: StopArgs| async move { finish(&t).await },
        )
        .in_group(Cap::Devtools),
        ToolDef::on_tab(
            "browser_start_video",
            "Start a screen recording",
            Kind::ReadOnly,
            "Record what the current tab shows (about 10 frames a second, up to 5 minutes) while you \
             work on it, e.g. to show a person what was done. Call browser_stop_video to save it \
             as an animated GIF. The browser paints only a visible tab: keep this tab in front.",
            start_video,
        )
        .in_group(Cap::Devtools),
        ToolDef::on_tab(
            "browser_stop_video",
            "Stop the screen recording",
            Kind::ReadOnly,
            "Stop the recording browser_start_video began and save it as an animated GIF in the \
             download directory; answers with its path, length and size. Fails if no frame was \
             painted (a hidden tab): bring the tab to the front and record again.",
            stop_video,
        )
        .in_group(Cap::Devtools),
    ]
}

/// browser_start_tracing.
async fn start_tracing(tab: Tab, a: StartArgs) -> Result<Response, ToolError> {
    tab.start_trace().await?;
    if !a.reload {
        return Ok(Response::text(
            "Recording a performance trace of this tab. Do what you want measured, \
             then call browser_stop_tracing for the insights.",
        ));
    }
    let url = tab.url().await?;
    let loaded = tab.go(&url).await;
    tokio::time::sleep(SETTLE_AFTER_LOAD).await;
    let answer = finish(&tab).await;
    loaded?;
    answer
}

/// browser_start_video.
async fn start_video(tab: Tab, _: VideoArgs) -> Result<Response, ToolError> {
    tab.start_video().await?;
    Ok(Response::text(
        "Recording this tab. Act on the page, then call browser_stop_video to save \
         the GIF.",
    ))
}

/// browser_stop_video.
async fn stop_video(tab: Tab, _: VideoArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let v = tab.stop_video().await?;
    let name = format!("recording-{}.gif", epoch_seconds());
    let saved = save(&s.policy().download_dir(), &name, &v.gif, "image/gif")?;
    let mut notes = String::new();
    if v.dropped > 0 {
        notes.push_str(&format!(
            "\nThe recording reached its limit ({} frames or {} MB): the last {} \
             frames were not kept.",
            video::MAX_FRAMES,
            video::MAX_BYTES / (1024 * 1024),
            v.dropped
        ));
    }
    if v.interrupted {
        notes.push_str("\nThe debugger let go of the tab during the recording: it has a gap.");
    }
    Ok(Response::text(format!(
        "Screen recording saved as {} ({} bytes, GIF {}×{}): {:.1} s, {} frames \
         ({} painted by the browser; unchanged ones are merged).{notes}",
        saved.path.display(),
        saved.size,
        v.stats.width,
        v.stats.height,
        v.seconds,
        v.stats.frames,
        v.received,
    )))
}

/// Stops the trace, saves it and words its insights.
async fn finish(tab: &Tab) -> Result<Response, ToolError> {
    let s = tab.client();
    let bytes = tab.stop_trace().await?;
    let parsed: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|e| ToolError::other(format!("the browser's trace was not JSON ({e})")))?;
    let found = trace::insights(&parsed);
    let name = format!("trace-{}.json", epoch_seconds());
    let bytes = crate::page::downloads::save::without_secrets(&s.policy().secrets, &bytes);
    let saved = save(
        &s.policy().download_dir(),
        &name,
        &bytes,
        "application/json",
    )?;
    let lcp_element = match found.lcp.as_ref().and_then(|l| l.1) {
        Some(node) => tab.describe_node(node).await,
        None => None,
    };
    let page = tab.page_line().await.unwrap_or_default();
    Ok(Response::text(format!(
        "Performance trace ({:.1} s recorded), saved as {} ({} bytes; open it in Chrome \
         DevTools' Performance panel).\n{}\n{page}",
        found.span_ms / 1000.0,
        saved.path.display(),
        saved.size,
        report(s, &found, lcp_element)
    )))
}

/// The insights as lines, with what counts as good (web.dev's thresholds).
fn report(s: &Client, i: &Insights, lcp_element: Option<String>) -> String {
    let from = if i.navigation {
        "from the navigation's start"
    } else {
        "from the trace's start"
    };
    let mut out = Vec::new();
    out.push(match &i.lcp {
        Some((ms, _, kind)) => format!(
            "- Largest contentful paint: {ms:.0} ms {from} ({}; good ≤ 2500 ms): {}",
            kind,
            lcp_element.unwrap_or_else(|| "its element is gone from the page".into())
        ),
        None => "- Largest contentful paint: none in this trace (no content was painted)".into(),
    });
    out.push(format!(
        "- Cumulative layout shift: {:.3} ({} shift{} not caused by input{}; good ≤ 0.1)",
        i.cls,
        i.shifts,
        if i.shifts == 1 { "" } else { "s" },
        match i.input_shifts {
            0 => String::new(),
            n => format!("; {n} right after input, not counted"),
        }
    ));
    out.push(if i.long_tasks.is_empty() {
        "- Long tasks (over 50 ms on the page's main thread): none".into()
    } else {
        format!(
            "- Long tasks (over 50 ms on the page's main thread, they delay input): {} — {}",
            i.long_tasks.len(),
            i.long_tasks
                .iter()
                .take(5)
                .map(|d| format!("{d:.0} ms"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    });
    let urls = |v: &[(String, f64)]| {
        v.iter()
            .take(5)
            .map(|(u, d)| format!("\n    {d:.0} ms {}", s.fence().quote(u)))
            .collect::<String>()
    };
    out.push(if i.render_blocking.is_empty() {
        "- Render-blocking requests: none".into()
    } else {
        format!(
            "- Render-blocking requests (the page could not paint before they finished): {}{}",
            i.render_blocking.len(),
            urls(&i.render_blocking)
        )
    });
    if !i.slowest.is_empty() {
        out.push(format!("- Slowest requests:{}", urls(&i.slowest)));
    }
    out.join("\n")
}

/// Seconds since the epoch, for a file name that sorts by time.
fn epoch_seconds() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
