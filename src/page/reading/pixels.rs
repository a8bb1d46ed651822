//! Pixels decide what the engine's rules cannot vouch for.
//!
//! The engine judges plain text by rules (colour, opacity, size, box,
//! covers). Text drawn in ways the rules do not model (filters, blend
//! modes, masks, transforms, shadows, an image behind it, a colour close
//! to the backdrop's) is a doubt when it is in the viewport: this module
//! compares the region that holds the doubts in one screenshot and in another with
//! them painted transparent (a CSS custom highlight: no layout change, no
//! DOM mutation), and tells the engine, per text, whether hiding it
//! changed the pixels legibly. One screenshot pair of the viewport per
//! answer, whatever the number of doubts.
//!
//! Legible means at least [`MIN_STRONG`] pixels (at one CSS pixel per
//! pixel) that changed by [`STRONG`] or more in a colour channel. 32
//! levels is about the step from white to text at a contrast of 1.3,
//! just above the engine's FAINT ratio; 6 such pixels are fewer than the
//! stem of one letter at the smallest size the engine reads (5 px).
//! Screenshots are JPEG at quality 100: identical regions encode the same
//! and the encoder's noise stays within a few levels, far under [`STRONG`].

use serde::Deserialize;
use serde_json::json;

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// A channel step that counts as a change a person sees.
const STRONG: u8 = 32;
/// Strong pixels (per CSS px²) a text's region needs to be legible.
const MIN_STRONG: f64 = 6.0;

/// A rectangle in CSS px.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// The engine's `doubtRects()`: the region to compare (viewport
/// coordinates), each doubt's box inside it (None: out of view now), and
/// the viewport's size.
#[derive(Debug, Deserialize)]
struct Doubts {
    clip: Option<Rect>,
    #[serde(default)]
    rects: Vec<Option<Rect>>,
    viewport: Option<Rect>,
}

impl Tab {
    /// Whether the pixels hid any of the doubts of the engine's last call on
    /// `tab` (the answer must then be made again). A check that failed is
    /// logged and leaves the rules' judgement in place.
    pub async fn hid_any(&self) -> bool {
        match self.judge_pixels().await {
            Ok(unseen) => unseen > 0,
            Err(e) => {
                tracing::debug!(target: "tabwire::pixels", "the pixels could not judge: {e}");
                false
            }
        }
    }

    /// Asks the pixels about the doubts of the engine's last call on `tab`'s
    /// top document; returns how many of them show nothing legible (the
    /// answer must be made again when any do). Errors leave the rules'
    /// judgement in place: the pixels only ever hide more.
    async fn judge_pixels(&self) -> Result<usize, ToolError> {
        let doubts: Doubts = match self.engine_value(0, "doubtRects", "").await? {
            Some(d) => d,
            None => return Ok(0),
        };
        let (Some(clip), Some(viewport)) = (doubts.clip, doubts.viewport) else {
            tracing::debug!(target: "tabwire::pixels", "no doubt is in view (or the tab is not shown)");
            return Ok(0);
        };
        let before = self.pixel_shot().await?.crop(clip, viewport);
        self.engine_value::<serde_json::Value>(0, "veil", "true")
            .await?;
        let after = self.pixel_shot().await.map(|img| img.crop(clip, viewport));
        // What the pixels said (nothing when they could not tell); judging
        // lifts the veil, whatever the second screenshot did.
        let seen = match &after {
            Ok(after) => legible(&before, after, clip, &doubts.rects)
                .map_err(|e| ToolError::other(format!("the pixel check failed: {e}"))),
            Err(_) => Ok(Vec::new()),
        };
        let said = seen.as_deref().unwrap_or_default();
        self.engine_value::<serde_json::Value>(0, "judge", &json!(said).to_string())
            .await?;
        after?;
        let seen = seen?;
        let unseen = seen.iter().filter(|v| **v == Some(false)).count();
        tracing::debug!(target: "tabwire::pixels", doubts = seen.len(), unseen, "pixels judged");
        Ok(unseen)
    }

    /// A JPEG of the viewport, decoded to RGB. (The whole viewport, as the
    /// screen shows it: a capture with a clip makes the browser draw a frame
    /// of its own, and a screencast started right after it began with a black
    /// frame.)
    async fn pixel_shot(&self) -> Result<Image, ToolError> {
        let params = json!({"format": "jpeg", "quality": 100});
        let v = tokio::time::timeout(SHOT_TIME, self.cdp("Page.captureScreenshot", params))
            .await
            .map_err(|_| {
                ToolError::other("a screenshot for the pixel check took too long".into())
            })??;
        let data = v["data"].as_str().unwrap_or_default();
        use base64::Engine as _;
        let jpeg = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| ToolError::other(format!("a screenshot was not base64 ({e})")))?;
        Image::decode(&jpeg).map_err(ToolError::other)
    }
}

/// How long one screenshot may take before the rules' word stands (a
/// browser can hold a capture while it draws no frames).
const SHOT_TIME: std::time::Duration = std::time::Duration::from_millis(1500);

/// An RGB image.
struct Image {
    width: usize,
    height: usize,
    rgb: Vec<u8>,
}

impl Image {
    fn decode(jpeg: &[u8]) -> Result<Self, String> {
        let (rgb, width, height) = jpeg_rgb(jpeg, "a screenshot")?;
        Ok(Self { width, height, rgb })
    }

    /// The part of this capture of `viewport` that shows `clip` (both in
    /// CSS px; the image may have more pixels per CSS px).
    fn crop(self, clip: Rect, viewport: Rect) -> Self {
        let scale = self.width as f64 / viewport.width.max(1.0);
        let x0 = ((clip.x * scale).floor().max(0.0) as usize).min(self.width);
        let y0 = ((clip.y * scale).floor().max(0.0) as usize).min(self.height);
        let x1 = (((clip.x + clip.width) * scale).ceil() as usize).clamp(x0, self.width);
        let y1 = (((clip.y + clip.height) * scale).ceil() as usize).clamp(y0, self.height);
        let mut rgb = Vec::with_capacity((x1 - x0) * (y1 - y0) * 3);
        for y in y0..y1 {
            let row = y * self.width * 3;
            rgb.extend_from_slice(&self.rgb[row + x0 * 3..row + x1 * 3]);
        }
        Self {
            width: x1 - x0,
            height: y1 - y0,
            rgb,
        }
    }
}

/// Per doubt: whether hiding it changed its region legibly (None: no
/// region to look at, the rules' word stands).
fn legible(
    before: &Image,
    after: &Image,
    clip: Rect,
    rects: &[Option<Rect>],
) -> Result<Vec<Option<bool>>, String> {
    if (before.width, before.height) != (after.width, after.height) || before.width == 0 {
        return Err("the two screenshots differ in size".into());
    }
    // Device pixels per CSS px (a high-density screen gives 2).
    let scale = before.width as f64 / clip.width.max(1.0);
    let need = MIN_STRONG * scale * scale;
    Ok(rects
        .iter()
        .map(|r| {
            let r = (*r)?;
            let x0 = (r.x * scale).floor().max(0.0) as usize;
            let y0 = (r.y * scale).floor().max(0.0) as usize;
            let x1 = (((r.x + r.width) * scale).ceil() as usize).min(before.width);
            let y1 = (((r.y + r.height) * scale).ceil() as usize).min(before.height);
            if x1 <= x0 || y1 <= y0 {
                return None;
            }
            let mut strong = 0usize;
            for y in y0..y1 {
                let row = y * before.width * 3;
                let a = &before.rgb[row + x0 * 3..row + x1 * 3];
                let b = &after.rgb[row + x0 * 3..row + x1 * 3];
                strong += a
                    .chunks_exact(3)
                    .zip(b.chunks_exact(3))
                    .filter(|(p, q)| {
                        p.iter()
                            .zip(q.iter())
                            .any(|(u, v)| u.abs_diff(*v) >= STRONG)
                    })
                    .count();
            }
            Some(strong as f64 >= need)
        })
        .collect())
}

/// A JPEG decoded to RGB, with its width and height; `what` names it in
/// errors.
pub(crate) fn jpeg_rgb(jpeg: &[u8], what: &str) -> Result<(Vec<u8>, usize, usize), String> {
    let opts = zune_core::options::DecoderOptions::default()
        .jpeg_set_out_colorspace(zune_core::colorspace::ColorSpace::RGB);
    let mut d =
        zune_jpeg::JpegDecoder::new_with_options(zune_core::bytestream::ZCursor::new(jpeg), opts);
    let rgb = d
        .decode()
        .map_err(|e| format!("{what} could not be decoded ({e:?})"))?;
    let (w, h) = d.dimensions().unwrap_or((0, 0));
    if rgb.len() != w * h * 3 {
        return Err(format!("{what} decoded to an unexpected size"));
    }
    Ok((rgb, w, h))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: usize, h: usize, fill: u8) -> Image {
        Image {
            width: w,
            height: h,
            rgb: vec![fill; w * h * 3],
        }
    }

    fn paint(img: &mut Image, x0: usize, y0: usize, x1: usize, y1: usize, v: u8) {
        for y in y0..y1 {
            for x in x0..x1 {
                let i = (y * img.width + x) * 3;
                img.rgb[i..i + 3].fill(v);
            }
        }
    }

    fn r(x: f64, y: f64, width: f64, height: f64) -> Rect {
        Rect {
            x,
            y,
            width,
            height,
        }
    }

    fn rect(x: f64, y: f64, width: f64, height: f64) -> Option<Rect> {
        Some(r(x, y, width, height))
    }

    #[test]
    fn a_legible_change_is_seen_and_a_faint_or_absent_one_is_not() {
        let clip = r(0.0, 0.0, 60.0, 20.0);
        let before = image(60, 20, 255);
        let mut hidden = image(60, 20, 255);
        // Text 1: dark glyphs (hiding them makes them white).
        paint(&mut hidden, 0, 0, 10, 10, 255);
        let mut shown = image(60, 20, 255);
        paint(&mut shown, 2, 2, 8, 8, 20);
        // Text 2: faint glyphs, 20 levels under white.
        paint(&mut shown, 22, 2, 28, 8, 235);
        // Text 3 draws nothing at all.
        let rects = [
            rect(0.0, 0.0, 10.0, 10.0),
            rect(20.0, 0.0, 10.0, 10.0),
            rect(40.0, 0.0, 10.0, 10.0),
            None,
        ];
        let seen = legible(&shown, &before, clip, &rects).unwrap();
        assert_eq!(seen, vec![Some(true), Some(false), Some(false), None]);
    }

    #[test]
    fn a_dense_screen_needs_as_many_css_pixels() {
        let clip = r(0.0, 0.0, 10.0, 10.0);
        let a = image(20, 20, 255);
        let mut b = image(20, 20, 255);
        // 2x2 CSS px changed: 16 device pixels at scale 2, under 6 CSS px.
        paint(&mut b, 0, 0, 4, 4, 0);
        assert_eq!(
            legible(&a, &b, clip, &[rect(0.0, 0.0, 10.0, 10.0)]).unwrap(),
            vec![Some(false)]
        );
        paint(&mut b, 0, 0, 8, 4, 0);
        assert_eq!(
            legible(&a, &b, clip, &[rect(0.0, 0.0, 10.0, 10.0)]).unwrap(),
            vec![Some(true)]
        );
    }

    #[test]
    fn a_crop_takes_the_clip_at_the_image_scale() {
        let mut img = image(8, 4, 0);
        paint(&mut img, 2, 2, 4, 4, 200);
        let viewport = r(0.0, 0.0, 4.0, 2.0);
        let clip = r(1.0, 1.0, 1.0, 1.0);
        let part = img.crop(clip, viewport);
        assert_eq!((part.width, part.height), (2, 2));
        assert!(part.rgb.iter().all(|&v| v == 200));
    }

    #[test]
    fn screenshots_of_two_sizes_are_an_error() {
        let clip = r(0.0, 0.0, 10.0, 10.0);
        assert!(legible(&image(10, 10, 0), &image(10, 9, 0), clip, &[]).is_err());
    }
}
