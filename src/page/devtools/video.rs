//! Screen recordings (the `devtools` group): the tab's screencast, kept
//! while recording and written as an animated GIF when it stops.
//!
//! The browser sends a JPEG frame whenever the tab's pixels change, with
//! two at most unacknowledged; tabwire holds each acknowledgement back for
//! [`ACK_HOLD`], so a page that changes all the time (scrolling, an
//! animation) yields about ten frames a second, and a state that lasts
//! longer than that hold is always captured (its frame is sent when the
//! next acknowledgement lets it). Frames are kept
//! as the browser's JPEG bytes (a few tens of KB each) within
//! [`MAX_FRAMES`] and [`MAX_BYTES`]; only at the stop are they decoded and
//! encoded, off the async threads. A GIF needs no codec on the user's
//! machine and opens everywhere (a WebM would need a VP8/VP9 encoder: no
//! well-kept pure-Rust one exists, and ffmpeg cannot be assumed).
//!
//! The GIF is small because web pages change in patches: each frame holds
//! only the rectangle that changed since the one before, over what is
//! already shown, with its own 256-colour palette.

use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// The tab's screen recording in progress, if any (its slot).
#[derive(Default)]
pub struct TabVideo(pub Option<ScreenRecording>);

/// Keeps a recording going over detaches, and takes its frames.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn setup(&self, state: &mut crate::page::tab::calls::TabState) -> Vec<(&'static str, Value)> {
        // A recording goes on once the tab is set up again.
        match state.slot::<TabVideo>().0 {
            Some(_) => vec![start_command()],
            None => Vec::new(),
        }
    }

    fn intercept(&self, tab: &Tab, method: &str, params: &Value) -> bool {
        if method != "Page.screencastFrame" {
            return false;
        }
        tab.on_screencast_frame(params);
        true
    }

    fn detached(&self, state: &mut crate::page::tab::calls::TabState) {
        if let Some(rec) = state.slot::<TabVideo>().0.as_mut() {
            rec.interrupted = true;
        }
    }
}

/// How long a frame's acknowledgement is held back: with two frames in
/// flight, about ten frames a second (measured: a 100 ms hold gave twenty
/// on a page scrolling continuously).
pub const ACK_HOLD: Duration = Duration::from_millis(200);
/// Frames kept per recording: five minutes of continuous change.
pub const MAX_FRAMES: usize = 3000;
/// JPEG bytes kept per recording.
pub const MAX_BYTES: usize = 96 * 1024 * 1024;
/// The screencast's largest frame, in device pixels (the browser scales
/// down to fit): a wide window's GIF is 1,024 pixels wide.
const MAX_SIZE: (u32, u32) = (1024, 1024);
/// How long the last frame shows before the GIF loops.
const LAST_FRAME: f64 = 1.0;
/// NeuQuant's speed (1 best … 30 fastest). 20 halves the encoding time
/// of 10 (its usual balance) on screen content, whose colours are few.
const QUANT_SPEED: i32 = 20;

/// One frame as the browser sent it.
#[derive(Debug, Clone)]
pub struct Shot {
    pub jpeg: Vec<u8>,
    /// Seconds since the epoch (the browser's own timestamp).
    pub at: f64,
}

/// A recording in progress in one tab.
#[derive(Debug, Default)]
pub struct ScreenRecording {
    shots: Vec<Shot>,
    bytes: usize,
    /// Frames that came after a limit was reached.
    dropped: usize,
    /// Seconds since the epoch when it started.
    started: f64,
    /// The debugger let go of the tab at least once while recording.
    pub interrupted: bool,
}

impl ScreenRecording {
    fn new(now: f64) -> Self {
        ScreenRecording {
            started: now,
            ..Default::default()
        }
    }

    /// Keeps a frame unless a limit is reached, in the order the browser
    /// painted them. With two frames in flight the browser can send a
    /// frame after a newer one (seen under load: the frame painted before
    /// a click arrived after the click's), so arrival order would flash
    /// an old picture; the frame's own timestamp decides.
    pub fn keep(&mut self, shot: Shot) {
        if self.shots.len() >= MAX_FRAMES || self.bytes + shot.jpeg.len() > MAX_BYTES {
            self.dropped += 1;
            return;
        }
        self.bytes += shot.jpeg.len();
        // Nearly always the newest: search from the end.
        let at = self
            .shots
            .iter()
            .rposition(|s| s.at <= shot.at)
            .map_or(0, |i| i + 1);
        self.shots.insert(at, shot);
    }

    pub fn frames(&self) -> usize {
        self.shots.len()
    }
}

/// The command that starts (or, after a detach, resumes) the screencast.
pub fn start_command() -> (&'static str, Value) {
    (
        "Page.startScreencast",
        json!({"format": "jpeg", "quality": 85, "maxWidth": MAX_SIZE.0, "maxHeight": MAX_SIZE.1}),
    )
}

fn now_secs() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

impl Tab {
    /// Starts recording `tab`.
    pub async fn start_video(&self) -> Result<(), ToolError> {
        if self.tab_state().slot::<TabVideo>().0.is_some() {
            return Err(ToolError::other(
                "this tab is already being recorded; browser_stop_video ends the recording".into(),
            ));
        }
        self.tab_state().slot::<TabVideo>().0 = Some(ScreenRecording::new(now_secs()));
        let (method, params) = start_command();
        if let Err(e) = self.cdp(method, params).await {
            self.tab_state().slot::<TabVideo>().0 = None;
            return Err(ToolError::other(format!(
                "the browser would not start a screencast: {e}"
            )));
        }
        Ok(())
    }

    /// Stops recording `tab` and encodes what was recorded.
    pub async fn stop_video(&self) -> Result<Video, ToolError> {
        let s = self.client();
        let Some(rec) = self.tab_state().slot::<TabVideo>().0.take() else {
            return Err(ToolError::other(
                "no recording is running in this tab; start one with browser_start_video".into(),
            ));
        };
        // A tab that is gone or detached has no screencast left to stop.
        let _ = self.cdp("Page.stopScreencast", json!({})).await;
        let end = now_secs();
        let received = rec.shots.len() + rec.dropped;
        if rec.shots.is_empty() {
            return Err(ToolError::other(
                "the recording has no frames: the browser paints a tab only while it is visible, \
                 and this one was not shown (or nothing was drawn). Bring the tab to the front \
                 (browser_tabs select) and record again."
                    .into(),
            ));
        }
        s.set_progress(Some(format!(
            "encoding {} frames as a GIF",
            rec.shots.len()
        )));
        let shots = rec.shots;
        let encoded = tokio::task::spawn_blocking(move || encode_gif(&shots, end)).await;
        s.set_progress(None);
        let encoded = encoded
            .map_err(|e| e.to_string())
            .and_then(|r| r)
            .map_err(|e| ToolError::other(format!("encoding the recording failed: {e}")))?;
        Ok(Video {
            gif: encoded.0,
            stats: encoded.1,
            received,
            dropped: rec.dropped,
            interrupted: rec.interrupted,
            seconds: end - rec.started,
        })
    }

    /// A screencast frame arrived: keep it if `tab` is recording, and
    /// acknowledge it once [`ACK_HOLD`] has passed (the browser keeps at most
    /// two frames unacknowledged). Frames of a tab not recording (a stop raced
    /// the frame) are acknowledged at once.
    pub(in crate::page) fn on_screencast_frame(&self, p: &Value) {
        let s = self.client();
        let tab = self.id();
        let arrived = Instant::now();
        let ack = json!({"sessionId": p["sessionId"].clone()});
        let recording = {
            let mut st = self.tab_state();
            match st.slot::<TabVideo>().0.as_mut() {
                Some(rec) => {
                    let jpeg = p["data"]
                        .as_str()
                        .and_then(|d| base64::engine::general_purpose::STANDARD.decode(d).ok());
                    if let Some(jpeg) = jpeg {
                        let at = p["metadata"]["timestamp"].as_f64().unwrap_or_else(now_secs);
                        rec.keep(Shot { jpeg, at });
                    }
                    true
                }
                None => false,
            }
        };
        let s = s.clone();
        tokio::spawn(async move {
            if recording {
                tokio::time::sleep_until((arrived + ACK_HOLD).into()).await;
            }
            let _ = s.backend().cdp(tab, "Page.screencastFrameAck", ack).await;
        });
    }
}

/// A finished recording, written.
#[derive(Debug)]
pub struct Video {
    pub gif: Vec<u8>,
    pub stats: GifStats,
    /// Frames the browser sent while recording.
    pub received: usize,
    pub dropped: usize,
    pub interrupted: bool,
    /// Seconds from the start to the stop.
    pub seconds: f64,
}

/// What the GIF holds.
#[derive(Debug, Clone, PartialEq)]
pub struct GifStats {
    pub width: u16,
    pub height: u16,
    /// Frames written (a frame with no change is folded into the one
    /// before).
    pub frames: usize,
}

/// Encodes `shots` (oldest first) as a looping GIF; the last shows until
/// `end` (seconds since the epoch), at least a short while.
pub fn encode_gif(shots: &[Shot], end: f64) -> Result<(Vec<u8>, GifStats), String> {
    // The canvas is the largest frame (a viewport change mid-recording).
    let mut width = 0usize;
    let mut height = 0usize;
    for shot in shots {
        let (w, h) = jpeg_size(&shot.jpeg)?;
        width = width.max(w);
        height = height.max(h);
    }
    let mut gif = GifWriter::new(width, height)?;
    for shot in shots {
        gif.push(canvas(&shot.jpeg, width, height)?, shot.at)?;
    }
    gif.finish(end)
}

/// Writes canvases (RGB, all one size) as GIF frames of what changed.
struct GifWriter {
    encoder: gif::Encoder<Vec<u8>>,
    width: usize,
    height: usize,
    /// What a viewer shows so far (nothing before the first frame).
    shown: Option<Vec<u8>>,
    /// The last frame, written when the next change tells its delay.
    pending: Option<(gif::Frame<'static>, f64)>,
    written: usize,
}

impl GifWriter {
    fn new(width: usize, height: usize) -> Result<Self, String> {
        if width == 0 || height == 0 || width > u16::MAX as usize || height > u16::MAX as usize {
            return Err(format!("frames of {width}×{height} cannot be a GIF"));
        }
        let mut encoder = gif::Encoder::new(Vec::new(), width as u16, height as u16, &[])
            .map_err(|e| e.to_string())?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| e.to_string())?;
        Ok(GifWriter {
            encoder,
            width,
            height,
            shown: None,
            pending: None,
            written: 0,
        })
    }

    /// Adds the canvas shown from `at` on; nothing when it shows no change.
    fn push(&mut self, next: Vec<u8>, at: f64) -> Result<(), String> {
        let whole = (0, 0, self.width as u16, self.height as u16);
        let rect = match &self.shown {
            None => whole,
            Some(shown) => match changed(shown, &next, self.width, self.height) {
                Some(rect) => rect,
                None => return Ok(()),
            },
        };
        self.write_pending(at)?;
        let pixels = crop(&next, self.width, rect);
        let mut frame = gif::Frame::from_rgb_speed(rect.2, rect.3, &pixels, QUANT_SPEED);
        frame.left = rect.0;
        frame.top = rect.1;
        frame.dispose = gif::DisposalMethod::Keep;
        self.pending = Some((frame, at));
        self.shown = Some(next);
        Ok(())
    }

    fn write_pending(&mut self, until: f64) -> Result<(), String> {
        if let Some((mut frame, at)) = self.pending.take() {
            frame.delay = centiseconds(until - at);
            self.encoder
                .write_frame(&frame)
                .map_err(|e| e.to_string())?;
            self.written += 1;
        }
        Ok(())
    }

    fn finish(mut self, end: f64) -> Result<(Vec<u8>, GifStats), String> {
        let last = self.pending.as_ref().map_or(end, |(_, at)| *at);
        self.write_pending(end.max(last + LAST_FRAME))?;
        let stats = GifStats {
            width: self.width as u16,
            height: self.height as u16,
            frames: self.written,
        };
        let out = self.encoder.into_inner().map_err(|e| e.to_string())?;
        Ok((out, stats))
    }
}

/// A GIF delay: hundredths of a second, at least two (viewers show
/// shorter ones slower).
fn centiseconds(seconds: f64) -> u16 {
    (seconds * 100.0).round().clamp(2.0, f64::from(u16::MAX)) as u16
}

fn jpeg_size(jpeg: &[u8]) -> Result<(usize, usize), String> {
    let mut d = zune_jpeg::JpegDecoder::new(zune_core::bytestream::ZCursor::new(jpeg));
    d.decode_headers()
        .map_err(|e| format!("a frame is not a JPEG ({e:?})"))?;
    d.dimensions()
        .ok_or_else(|| "a frame has no size".to_string())
}

/// A frame decoded to RGB and placed at the canvas's top left (white
/// around a smaller one).
fn canvas(jpeg: &[u8], width: usize, height: usize) -> Result<Vec<u8>, String> {
    let (rgb, w, h) = crate::page::reading::pixels::jpeg_rgb(jpeg, "a frame")?;
    if (w, h) == (width, height) {
        return Ok(rgb);
    }
    let mut out = vec![255u8; width * height * 3];
    for y in 0..h {
        out[y * width * 3..][..w * 3].copy_from_slice(&rgb[y * w * 3..][..w * 3]);
    }
    Ok(out)
}

/// The smallest rectangle (left, top, width, height) holding every pixel
/// that differs, or `None` when none does. JPEG noise is not a change:
/// a pixel counts when a channel moved by more than a few levels.
fn changed(a: &[u8], b: &[u8], width: usize, height: usize) -> Option<(u16, u16, u16, u16)> {
    const NOISE: u8 = 6;
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for y in 0..height {
        let row = y * width * 3;
        let (ra, rb) = (&a[row..row + width * 3], &b[row..row + width * 3]);
        if ra == rb {
            continue;
        }
        let differs = |x: usize| (0..3).any(|c| ra[x * 3 + c].abs_diff(rb[x * 3 + c]) > NOISE);
        let Some(first) = (0..width).find(|&x| differs(x)) else {
            continue;
        };
        let last = (first..width).rev().find(|&x| differs(x)).unwrap_or(first);
        x0 = x0.min(first);
        x1 = x1.max(last);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    (x0 != usize::MAX).then(|| {
        (
            x0 as u16,
            y0 as u16,
            (x1 - x0 + 1) as u16,
            (y1 - y0 + 1) as u16,
        )
    })
}

/// The RGB pixels of `rect` in a canvas `width` wide.
fn crop(rgb: &[u8], width: usize, rect: (u16, u16, u16, u16)) -> Vec<u8> {
    let (left, top, w, h) = (
        rect.0 as usize,
        rect.1 as usize,
        rect.2 as usize,
        rect.3 as usize,
    );
    let mut out = Vec::with_capacity(w * h * 3);
    for y in top..top + h {
        out.extend_from_slice(&rgb[(y * width + left) * 3..][..w * 3]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const W: usize = 40;
    const H: usize = 30;

    fn filled(rgb: [u8; 3]) -> Vec<u8> {
        rgb.iter().copied().cycle().take(W * H * 3).collect()
    }

    fn paint(mut c: Vec<u8>, x0: usize, y0: usize, x1: usize, y1: usize) -> Vec<u8> {
        for y in y0..y1 {
            for x in x0..x1 {
                c[(y * W + x) * 3..][..3].copy_from_slice(&[200, 30, 30]);
            }
        }
        c
    }

    #[test]
    fn the_change_is_the_smallest_rectangle_and_noise_is_none() {
        let white = filled([255; 3]);
        assert_eq!(changed(&white, &white, W, H), None);
        let mut noisy = white.clone();
        noisy[5 * W * 3 + 9] = 250;
        assert_eq!(
            changed(&white, &noisy, W, H),
            None,
            "JPEG noise is no change"
        );
        let boxed = paint(white.clone(), 3, 4, 10, 7);
        assert_eq!(changed(&white, &boxed, W, H), Some((3, 4, 7, 3)));
        let cut = crop(&boxed, W, (3, 4, 7, 3));
        assert_eq!(cut.len(), 7 * 3 * 3);
        assert!(cut.chunks(3).all(|p| p == [200, 30, 30]));
    }

    #[test]
    fn delays_are_hundredths_at_least_two() {
        assert_eq!(centiseconds(0.25), 25);
        assert_eq!(centiseconds(0.001), 2);
        assert_eq!(centiseconds(1e9), u16::MAX);
    }

    #[test]
    fn a_gif_holds_only_the_changes_with_their_timing() {
        let white = filled([255; 3]);
        let mut gif = GifWriter::new(W, H).unwrap();
        gif.push(white.clone(), 100.0).unwrap();
        // The same picture again is folded into the frame before.
        gif.push(white.clone(), 100.5).unwrap();
        gif.push(paint(white.clone(), 0, 0, 10, 10), 101.0).unwrap();
        let (bytes, stats) = gif.finish(101.2).unwrap();
        assert_eq!(&bytes[..6], b"GIF89a");
        assert_eq!(
            stats,
            GifStats {
                width: W as u16,
                height: H as u16,
                frames: 2
            }
        );

        let mut opts = gif::DecodeOptions::new();
        opts.set_color_output(gif::ColorOutput::RGBA);
        let mut d = opts.read_info(bytes.as_slice()).unwrap();
        let mut frames = Vec::new();
        while let Some(f) = d.read_next_frame().unwrap() {
            frames.push((f.left, f.top, f.width, f.height, f.delay));
        }
        // The first frame is the whole canvas; the second only the patch.
        assert_eq!(frames.len(), 2);
        assert_eq!((frames[0].2, frames[0].3), (W as u16, H as u16));
        assert_eq!(
            frames[0].4, 100,
            "shown from 100.0 until the change at 101.0"
        );
        assert_eq!(
            (frames[1].0, frames[1].1, frames[1].2, frames[1].3),
            (0, 0, 10, 10)
        );
        assert_eq!(frames[1].4, 100, "the last frame shows at least a second");
    }

    #[test]
    fn frames_are_kept_in_the_order_they_were_painted() {
        let mut rec = ScreenRecording::new(0.0);
        for (at, tag) in [(1.0, 1), (3.0, 3), (2.0, 2), (4.0, 4), (0.5, 0)] {
            rec.keep(Shot {
                jpeg: vec![tag; 4],
                at,
            });
        }
        let order: Vec<u8> = rec.shots.iter().map(|s| s.jpeg[0]).collect();
        assert_eq!(order, [0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_recording_stops_keeping_frames_at_its_limits() {
        let mut rec = ScreenRecording::new(0.0);
        for i in 0..MAX_FRAMES + 5 {
            rec.keep(Shot {
                jpeg: vec![0; 10],
                at: i as f64,
            });
        }
        assert_eq!(rec.frames(), MAX_FRAMES);
        assert_eq!(rec.dropped, 5);
        let mut big = ScreenRecording::new(0.0);
        big.keep(Shot {
            jpeg: vec![0; MAX_BYTES],
            at: 0.0,
        });
        big.keep(Shot {
            jpeg: vec![0; 1],
            at: 1.0,
        });
        assert_eq!((big.frames(), big.dropped), (1, 1));
    }
}
