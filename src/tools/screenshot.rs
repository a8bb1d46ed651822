//! `browser_take_screenshot`: a PNG of the viewport or the whole page.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{Kind, Response, Session, ToolDef};

/// Chromium cannot capture taller images reliably; taller pages are cut.
const MAX_FULL_PAGE_HEIGHT: f64 = 16_384.0;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ScreenshotArgs {
    /// Capture the whole scrollable page.
    #[serde(default, rename = "fullPage")]
    pub full_page: bool,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        "browser_take_screenshot",
        "Take a screenshot",
        Kind::ReadOnly,
        "PNG of the viewport (or the whole page with fullPage; very tall pages are cut). browser_snapshot is cheaper for reading.",
        |s: Session, a: ScreenshotArgs| async move {
            let tab = s.tab().await?;
            let mut params = json!({"format": "png"});
            let mut note = String::from("Screenshot of the viewport.");
            if a.full_page {
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
            Ok(Response::text(note).with_image(data, "image/png"))
        },
    )]
}
