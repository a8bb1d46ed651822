//! Playing the user on tabwire's own pages (popup, options) in a
//! [`PipeChromium`]: wait for text, click a button, keep a screenshot.

use std::time::{Duration, Instant};

use serde_json::json;

use super::install_env::{png_size, Page, PipeChromium, SESSION_GONE};

/// Saves a screenshot where a person can look at it, and checks it is a
/// real picture of the page.
pub fn keep_screenshot(png: &[u8], name: &str) {
    let (w, h) = png_size(png);
    assert!(w >= 300 && h >= 200, "{name} is {w}x{h}");
    let path = screenshot_path(name);
    std::fs::write(&path, png).unwrap();
    eprintln!("screenshot: {}", path.display());
}

/// Where a screenshot named `name` is kept (the directory exists).
pub fn screenshot_path(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Waits until the page's text satisfies `pred`; returns that text.
pub async fn page_text(
    b: &PipeChromium,
    page: &Page,
    what: &str,
    pred: impl Fn(&str) -> bool,
) -> String {
    let mut last = String::new();
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(v) = b.eval(
            page,
            "document.body.dataset.ready === 'true' ? document.body.innerText : ''",
        ) {
            last = v.as_str().unwrap_or_default().to_string();
            if pred(&last) {
                return last;
            }
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}; page text:\n{last}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Clicks the centre of the element `selector` with real mouse events,
/// scrolling it into view first when it is outside the viewport.
pub fn click(b: &PipeChromium, page: &Page, selector: &str) {
    let rect = b
        .eval(
            page,
            &format!(
                "(() => {{ const e = document.querySelector({}); \
                 let r = e.getBoundingClientRect(); \
                 if (r.top < 0 || r.bottom > innerHeight) {{ \
                 e.scrollIntoView({{block: 'center'}}); r = e.getBoundingClientRect(); }} \
                 return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
                serde_json::to_string(selector).unwrap()
            ),
        )
        .unwrap_or_else(|e| panic!("no {selector}: {e}"));
    let (x, y) = (rect[0].as_f64().unwrap(), rect[1].as_f64().unwrap());
    for kind in ["mousePressed", "mouseReleased"] {
        let sent = b.call(
            Some(&page.session_id),
            "Input.dispatchMouseEvent",
            json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
        );
        // A click that closes its own page (answering the consent question
        // closes its window) may lose the release's answer with the page.
        match sent {
            Err(e) if kind == "mouseReleased" && e == SESSION_GONE => {}
            other => {
                other.unwrap_or_else(|e| panic!("{kind} on {selector}: {e}"));
            }
        }
    }
}
