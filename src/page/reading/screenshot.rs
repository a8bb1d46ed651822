//! Screenshots of a tab: the viewport, the whole page (cut at a height
//! Chromium captures reliably) or one element's box, and where the image
//! sits on the page (for input at its points).

use serde_json::json;

use super::element::Element;
use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// Chromium cannot capture taller images reliably; taller pages are cut.
const MAX_FULL_PAGE_HEIGHT: f64 = 16_384.0;

/// What to capture.
pub enum Area {
    Viewport,
    FullPage,
    Element(Element),
}

/// A captured image and what it shows.
pub struct Shot {
    /// The image, base64 as the browser sends it.
    pub data: String,
    /// Document coordinates of its top left corner (None: the viewport).
    pub corner: Option<(f64, f64)>,
    /// For a full page: the page's height and the height captured.
    pub heights: Option<(f64, f64)>,
}

impl Tab {
    /// Captures `area` of `tab` as `format` ("png" or "jpeg", with `quality`).
    pub async fn capture_screenshot(
        &self,
        area: Area,
        format: &str,
        quality: Option<u8>,
    ) -> Result<Shot, ToolError> {
        let mut params = json!({"format": format});
        if format == "jpeg" {
            params["quality"] = json!(quality.unwrap_or(80).min(100));
        }
        let mut heights = None;
        match area {
            Area::Viewport => {}
            Area::Element(el) => {
                let r = self.element_box(&el).await?;
                params["captureBeyondViewport"] = json!(true);
                params["clip"] =
                    json!({"x": r[0], "y": r[1], "width": r[2], "height": r[3], "scale": 1});
            }
            Area::FullPage => {
                let m = self.cdp("Page.getLayoutMetrics", json!({})).await?;
                let w = m["cssContentSize"]["width"].as_f64().unwrap_or(0.0);
                let h = m["cssContentSize"]["height"].as_f64().unwrap_or(0.0);
                let capped = h.min(MAX_FULL_PAGE_HEIGHT);
                params["captureBeyondViewport"] = json!(true);
                params["clip"] = json!({"x": 0, "y": 0, "width": w, "height": capped, "scale": 1});
                heights = Some((h, capped));
            }
        }
        let corner = params.get("clip").map(|c| {
            (
                c["x"].as_f64().unwrap_or(0.0),
                c["y"].as_f64().unwrap_or(0.0),
            )
        });
        let shot = self.cdp("Page.captureScreenshot", params).await?;
        Ok(Shot {
            data: shot["data"].as_str().unwrap_or_default().to_string(),
            corner,
            heights,
        })
    }

    /// The element's box in the top document's coordinates (x, y, width,
    /// height), scrolled into view first. The browser answers quads in
    /// top-page viewport points for elements of the tab's own renderer
    /// (same-origin frames included); an out-of-process frame's are its own
    /// and are shifted by where the frame sits.
    async fn element_box(&self, el: &Element) -> Result<[f64; 4], ToolError> {
        let session = el.session.as_deref();
        let target = el.dom_params(json!({}));
        let _ = self
            .cdp_in(session, "DOM.scrollIntoViewIfNeeded", target.clone())
            .await;
        let quads = self
            .cdp_in(session, "DOM.getContentQuads", target)
            .await
            .map_err(|_| ToolError::other("the element has no visible box to capture".into()))?;
        let points: Vec<f64> = quads["quads"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|q| q.as_array().cloned().unwrap_or_default())
            .filter_map(|v| v.as_f64())
            .collect();
        let xs = points.iter().step_by(2);
        let ys = points.iter().skip(1).step_by(2);
        let (x0, x1) = xs.fold((f64::MAX, f64::MIN), |(a, b), &x| (a.min(x), b.max(x)));
        let (y0, y1) = ys.fold((f64::MAX, f64::MIN), |(a, b), &y| (a.min(y), b.max(y)));
        if points.is_empty() || x1 - x0 < 1.0 || y1 - y0 < 1.0 {
            return Err(ToolError::other(
                "the element has no visible box to capture".into(),
            ));
        }
        let (dx, dy) = if el.frame != 0 {
            self.frame_offset(el.frame).await?
        } else {
            (0.0, 0.0)
        };
        // Document coordinates, so the clip is right at any scroll offset.
        let scroll = self.eval("[scrollX, scrollY]").await?;
        let (sx, sy) = (
            scroll[0].as_f64().unwrap_or(0.0),
            scroll[1].as_f64().unwrap_or(0.0),
        );
        Ok([x0 + dx + sx, y0 + dy + sy, x1 - x0, y1 - y0])
    }
}
