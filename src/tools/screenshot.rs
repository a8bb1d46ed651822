//! `browser_take_screenshot`: a PNG of the viewport or the whole page.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::def::{Kind, Response, ToolDef, ToolError};
use super::session::Session;

/// Chromium cannot capture taller images reliably; taller pages are cut.
const MAX_FULL_PAGE_HEIGHT: f64 = 16_384.0;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ImageType {
    Png,
    Jpeg,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScreenshotArgs {
    #[serde(default, rename = "fullPage")]
    pub full_page: bool,
    pub target: Option<String>,
    #[serde(rename = "type")]
    pub kind: Option<ImageType>,
    /// JPEG 0-100.
    pub quality: Option<u8>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        "browser_take_screenshot",
        "Take a screenshot",
        Kind::ReadOnly,
        "PNG/JPEG of the viewport, full page or `target` (browser_snapshot is cheaper to read).",
        |s: Session, a: ScreenshotArgs| async move {
            let tab = s.tab().await?;
            let (format, mime) = match a.kind {
                Some(ImageType::Jpeg) => ("jpeg", "image/jpeg"),
                _ => ("png", "image/png"),
            };
            let mut params = json!({"format": format});
            if format == "jpeg" {
                params["quality"] = json!(a.quality.unwrap_or(80).min(100));
            }
            let mut note = String::from("Screenshot of the viewport.");
            if let Some(t) = &a.target {
                let el = s.element(tab, t).await?;
                let _ = s
                    .cdp(tab, "DOM.scrollIntoViewIfNeeded", el.dom_params(json!({})))
                    .await;
                // Document coordinates, so the clip is right at any scroll offset.
                let r = s
                    .call_on(tab, el, "function() { const r = this.getBoundingClientRect(); return {x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height}; }", serde_json::Value::Null)
                    .await?;
                if r["width"].as_f64().unwrap_or(0.0) < 1.0
                    || r["height"].as_f64().unwrap_or(0.0) < 1.0
                {
                    return Err(ToolError(
                        "the element has no visible box to capture".into(),
                    ));
                }
                params["captureBeyondViewport"] = json!(true);
                params["clip"] = json!({"x": r["x"], "y": r["y"], "width": r["width"], "height": r["height"], "scale": 1});
                note = format!("Screenshot of {t}.");
            } else if a.full_page {
                let m = s.cdp(tab, "Page.getLayoutMetrics", json!({})).await?;
                let w = m["cssContentSize"]["width"].as_f64().unwrap_or(0.0);
                let h = m["cssContentSize"]["height"].as_f64().unwrap_or(0.0);
                let capped = h.min(MAX_FULL_PAGE_HEIGHT);
                params["captureBeyondViewport"] = json!(true);
                params["clip"] = json!({"x": 0, "y": 0, "width": w, "height": capped, "scale": 1});
                note = if capped < h {
                    format!("Screenshot of the top {capped} px of a {h} px tall page (capped).")
                } else {
                    "Screenshot of the full page.".into()
                };
            }
            let shot = s.cdp(tab, "Page.captureScreenshot", params).await?;
            let data = shot["data"].as_str().unwrap_or_default().to_string();
            Ok(Response::text(note).with_image(data, mime))
        },
    )]
}
