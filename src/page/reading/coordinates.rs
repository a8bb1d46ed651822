//! Points of a screenshot, for input at coordinates (the `vision` group):
//! how the tab's latest screenshot maps to the page, turning a point of
//! that image into a point of the viewport, and naming what is there.

use serde_json::json;

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// How the tab's latest screenshot maps to its page (for input at its
/// coordinates): the tab's slot.
#[derive(Default)]
pub struct LastShot(pub Option<ShotFrame>);

/// How the latest screenshot of a tab maps to its page.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ShotFrame {
    /// Image pixels per CSS pixel (the device pixel ratio).
    pub scale: f64,
    /// The document point (CSS pixels) at the image's top-left corner.
    pub origin: (f64, f64),
}

impl ShotFrame {
    /// The document point under the image point `(x, y)`.
    pub fn to_document(&self, (x, y): (f64, f64)) -> (f64, f64) {
        let scale = if self.scale > 0.0 { self.scale } else { 1.0 };
        (self.origin.0 + x / scale, self.origin.1 + y / scale)
    }
}

/// The viewport: its scroll offset, size and device pixel ratio.
struct Viewport {
    scroll: (f64, f64),
    size: (f64, f64),
    ratio: f64,
}

impl Tab {
    async fn viewport(&self) -> Result<Viewport, ToolError> {
        let v = self
            .eval("[scrollX, scrollY, innerWidth, innerHeight, devicePixelRatio]")
            .await?;
        let n = |i: usize| v[i].as_f64().unwrap_or(0.0);
        Ok(Viewport {
            scroll: (n(0), n(1)),
            size: (n(2), n(3)),
            ratio: if n(4) > 0.0 { n(4) } else { 1.0 },
        })
    }

    /// Remembers how a screenshot just taken maps to the page: `clip` is the
    /// captured area in document coordinates (None: the viewport).
    pub async fn remember_shot(&self, clip: Option<(f64, f64)>) -> Result<(), ToolError> {
        let v = self.viewport().await?;
        let frame = ShotFrame {
            scale: v.ratio,
            origin: clip.unwrap_or(v.scroll),
        };
        self.tab_state().slot::<LastShot>().0 = Some(frame);
        Ok(())
    }

    /// The viewport point (CSS pixels) for the point `(x, y)` of the tab's
    /// latest screenshot, or of the viewport when no screenshot was taken.
    /// A point the viewport does not show now is an error: input there would
    /// reach nothing a person could press.
    pub async fn viewport_point(&self, (x, y): (f64, f64)) -> Result<(f64, f64), ToolError> {
        let v = self.viewport().await?;
        let shot = self.tab_state().slot::<LastShot>().0;
        let (dx, dy) = shot
            .unwrap_or(ShotFrame {
                scale: 1.0,
                origin: v.scroll,
            })
            .to_document((x, y));
        let point = (dx - v.scroll.0, dy - v.scroll.1);
        if !(0.0..v.size.0).contains(&point.0) || !(0.0..v.size.1).contains(&point.1) {
            return Err(ToolError::other(format!(
                "the point ({x}, {y}) of {} is not in the viewport now (it is at ({:.0}, {:.0}) of a \
                 {:.0}x{:.0} viewport; the page scrolled since, or the screenshot was of the full \
                 page). Scroll it into view with browser_scroll, take a new screenshot, and use its \
                 coordinates",
                if shot.is_some() {
                    "the latest screenshot"
                } else {
                    "the viewport"
                },
                point.0,
                point.1,
                v.size.0,
                v.size.1
            )));
        }
        Ok(point)
    }

    /// Names the element at the viewport point (role, name, tag), as the
    /// page's own markup names it; None when nothing is there.
    pub async fn what_is_at(&self, (x, y): (f64, f64)) -> Option<String> {
        let s = self.client();
        let args = format!("{AT_POINT}, {}, null", json!({"x": x, "y": y}));
        let v = self
            .engine_value::<serde_json::Value>(0, "read", &args)
            .await
            .ok()??;
        v["value"].as_str().map(|t| s.fence().quote(t))
    }
}

/// A reader (see the engine's `read`) naming the element at a point:
/// the control the point is in, when there is one (an icon's path is in
/// its button), else the element itself.
const AT_POINT: &str = "function(p) {
  const hit = document.elementFromPoint(p.x, p.y);
  if (!hit) return null;
  const el = hit.closest('a[href], button, label, input, select, textarea, summary, [role], [tabindex]') || hit;
  const T = globalThis.__tabwire;
  const role = T.roleOf(el);
  const name = (T.nameOf(el, role) || T.text(el, 200)).replace(/\\s+/g, ' ').trim().slice(0, 60);
  return role + (name ? ' ' + JSON.stringify(name) : '') + ' (<' + el.localName + '>)';
}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_points_map_back_to_css_pixels() {
        // A viewport shot at 2 image pixels per CSS pixel, scrolled to y=300.
        let f = ShotFrame {
            scale: 2.0,
            origin: (0.0, 300.0),
        };
        assert_eq!(f.to_document((200.0, 100.0)), (100.0, 350.0));
        // A shot of an element whose box starts at (40, 1200).
        let f = ShotFrame {
            scale: 1.0,
            origin: (40.0, 1200.0),
        };
        assert_eq!(f.to_document((10.0, 5.0)), (50.0, 1205.0));
    }
}
