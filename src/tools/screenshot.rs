//! `browser_take_screenshot`: a PNG of the viewport or the whole page.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Cap, Kind, Response, ToolDef, ToolError};
use crate::page::reading::screenshot::Area;
use crate::page::Tab;

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
    vec![ToolDef::on_tab(
        "browser_take_screenshot",
        "Screenshot",
        Kind::ReadOnly,
        "PNG/JPEG of the viewport, full page or `target` (a snapshot is cheaper).",
        take_screenshot,
    )]
}

/// browser_take_screenshot.
async fn take_screenshot(tab: Tab, a: ScreenshotArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let (format, mime) = match a.kind {
        Some(ImageType::Jpeg) => ("jpeg", "image/jpeg"),
        _ => ("png", "image/png"),
    };
    let area = match (&a.target, a.full_page) {
        (Some(t), _) => Area::Element(tab.element(t).await?),
        (None, true) => Area::FullPage,
        (None, false) => Area::Viewport,
    };
    let shot = tab.capture_screenshot(area, format, a.quality).await?;
    let note = match (&a.target, shot.heights) {
        (Some(t), _) => format!("Screenshot of {t}."),
        (None, Some((h, capped))) if capped < h => {
            format!("Screenshot of the top {capped} px of a {h} px tall page (capped).")
        }
        (None, Some(_)) => "Screenshot of the full page.".into(),
        (None, None) => "Screenshot of the viewport.".into(),
    };
    if s.policy().caps_on().contains(&Cap::Vision) {
        tab.remember_shot(shot.corner).await?;
    }
    Ok(Response::text(note).with_image(shot.data, mime))
}
