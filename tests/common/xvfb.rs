//! A virtual X display for headed-browser tests, and the user's hands on
//! it: `Xvfb` keeps its screen in a file (`-fbdir`, XWD format) that the
//! test reads as a screenshot, and `xdotool` moves and clicks the real
//! pointer, so the browser's own UI (its infobars) is clicked as a person
//! clicks it.
//!
//! A missing `Xvfb` or `xdotool` fails the test with what to install: a
//! headed test that silently passes without a display would prove nothing.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The Debian packages the headed tests need.
pub const PACKAGES: &str = "xvfb xdotool";

/// Panics with an install hint unless `program` is on PATH.
pub fn require(program: &str) -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
        .unwrap_or_else(|| {
            panic!(
                "this headed test needs `{program}`, which is not installed. Install it with \
                 `apt-get install -y {PACKAGES}` (as .ci/run does)"
            )
        })
}

/// One `Xvfb` server, killed on drop.
pub struct Xvfb {
    child: Child,
    /// `:N`, for DISPLAY.
    pub display: String,
    fb: tempfile::TempDir,
}

impl Xvfb {
    /// Starts `Xvfb :N -screen 0 1280x800x24 -nolisten tcp` on a free N.
    pub fn start() -> Self {
        let xvfb = require("Xvfb");
        require("xdotool");
        let fb = tempfile::tempdir().unwrap();
        for n in 90..190 {
            if Path::new(&format!("/tmp/.X{n}-lock")).exists()
                || Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
            {
                continue;
            }
            use std::os::unix::process::CommandExt;
            let mut cmd = Command::new(&xvfb);
            cmd.arg(format!(":{n}"))
                .args(["-screen", "0", "1280x800x24", "-nolisten", "tcp", "-fbdir"])
                .arg(fb.path())
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0);
            // SAFETY: only async-signal-safe calls between fork and exec.
            unsafe {
                cmd.pre_exec(|| {
                    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                    Ok(())
                });
            }
            let mut child = cmd.spawn().expect("start Xvfb");
            let socket = PathBuf::from(format!("/tmp/.X11-unix/X{n}"));
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    break; // lost a race for this display number: try the next
                }
                if socket.exists() && fb.path().join("Xvfb_screen0").exists() {
                    return Self {
                        child,
                        display: format!(":{n}"),
                        fb,
                    };
                }
                std::thread::sleep(Duration::from_millis(50));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        panic!("could not start Xvfb on any display :90 to :189");
    }

    /// Runs `xdotool ARGS` on this display; returns its stdout.
    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = Command::new("xdotool")
            .args(args)
            .env("DISPLAY", &self.display)
            .output()
            .expect("run xdotool");
        assert!(
            out.status.success(),
            "xdotool {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The visible top-level windows of `class`, with their geometry.
    pub fn windows(&self, class: &str) -> Vec<Window> {
        let ids = Command::new("xdotool")
            .args(["search", "--onlyvisible", "--class", class])
            .env("DISPLAY", &self.display)
            .output()
            .expect("run xdotool");
        String::from_utf8_lossy(&ids.stdout)
            .lines()
            .filter_map(|id| {
                let shell = self.xdotool(&["getwindowgeometry", "--shell", id.trim()]);
                let field = |k: &str| {
                    shell
                        .lines()
                        .find_map(|l| l.strip_prefix(&format!("{k}=")))
                        .and_then(|v| v.trim().parse::<i32>().ok())
                };
                Some(Window {
                    id: id.trim().to_string(),
                    x: field("X")?,
                    y: field("Y")?,
                    width: field("WIDTH")?,
                    height: field("HEIGHT")?,
                })
            })
            .filter(|w| w.width > 200 && w.height > 200)
            .collect()
    }

    /// What the screen shows now.
    pub fn screen(&self) -> Screen {
        Screen::from_xwd(&std::fs::read(self.fb.path().join("Xvfb_screen0")).unwrap())
    }

    /// A real click of the left button at (x, y), as a person clicks;
    /// then the pointer moves to the screen's bottom-right corner, so no
    /// hover colour is left on what the test looks at next.
    pub fn click(&self, x: i32, y: i32) {
        self.xdotool(&[
            "mousemove",
            "--sync",
            &x.to_string(),
            &y.to_string(),
            "click",
            "1",
        ]);
        self.xdotool(&["mousemove", "--sync", "1279", "799"]);
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A top-level window and where it is on the screen.
#[derive(Debug, Clone)]
pub struct Window {
    pub id: String,
    pub x: i32,
    pub y: i32,
    pub width: i32,
    pub height: i32,
}

/// The screen's pixels, RGB.
pub struct Screen {
    pub width: usize,
    pub height: usize,
    rgb: Vec<u8>,
}

impl Screen {
    /// Reads Xvfb's XWD screen file (24-bit depth, 32 bits per pixel).
    fn from_xwd(data: &[u8]) -> Self {
        let word = |i: usize| u32::from_be_bytes(data[i * 4..i * 4 + 4].try_into().unwrap());
        let (header, width, height) = (word(0) as usize, word(4) as usize, word(5) as usize);
        let lsb_first = word(7) == 0;
        let bits_per_pixel = word(11);
        let bytes_per_line = word(12) as usize;
        let colors = word(19) as usize;
        assert_eq!(bits_per_pixel, 32, "unexpected XWD pixel size");
        let pixels = &data[header + colors * 12..];
        let mut rgb = Vec::with_capacity(width * height * 3);
        for y in 0..height {
            for x in 0..width {
                let p = &pixels[y * bytes_per_line + x * 4..][..4];
                if lsb_first {
                    rgb.extend_from_slice(&[p[2], p[1], p[0]]);
                } else {
                    rgb.extend_from_slice(&[p[1], p[2], p[3]]);
                }
            }
        }
        Self { width, height, rgb }
    }

    pub fn pixel(&self, x: usize, y: usize) -> [u8; 3] {
        let i = (y * self.width + x) * 3;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// The centre of the first (topmost) solid block of `color` (each
    /// channel within `tolerance`) inside `win`'s top `depth` pixels that
    /// is at least `min_w` × `min_h` pixels: a filled button, not a line,
    /// a focus ring or a text selection.
    pub fn find_block(
        &self,
        win: &Window,
        depth: i32,
        color: [u8; 3],
        tolerance: u8,
        (min_w, min_h): (usize, usize),
    ) -> Option<(i32, i32)> {
        let near = |p: [u8; 3]| (0..3).all(|i| p[i].abs_diff(color[i]) <= tolerance);
        let x0 = win.x.max(0) as usize;
        let x1 = ((win.x + win.width) as usize).min(self.width);
        let y0 = win.y.max(0) as usize;
        let y1 = ((win.y + depth.min(win.height)) as usize).min(self.height);
        // The longest run of the colour on each row; a gap of up to
        // MAX_GAP other pixels (the white strokes of a button's label)
        // does not end a run.
        const MAX_GAP: usize = 10;
        let runs: Vec<Option<(usize, usize)>> = (y0..y1)
            .map(|y| {
                let mut best = None::<(usize, usize)>;
                let mut run = None::<(usize, usize)>; // (start, end after the last hit)
                for x in x0..=x1 {
                    let hit = x < x1 && near(self.pixel(x, y));
                    run = match (hit, run) {
                        (true, None) => Some((x, x + 1)),
                        (true, Some((s, _))) => Some((s, x + 1)),
                        (false, Some((s, e))) if x - e < MAX_GAP && x < x1 => Some((s, e)),
                        (false, Some((s, e))) => {
                            if best.is_none_or(|(a, b)| e - s > b - a) {
                                best = Some((s, e));
                            }
                            None
                        }
                        (false, None) => None,
                    };
                }
                best.filter(|(a, b)| b - a >= min_w)
            })
            .collect();
        // Consecutive rows with overlapping runs make one block.
        let mut i = 0;
        while i < runs.len() {
            let Some(first) = runs[i] else {
                i += 1;
                continue;
            };
            let (mut left, mut right, mut j) = (first.0, first.1, i + 1);
            while let Some(Some((a, b))) = runs.get(j) {
                if *b <= left || *a >= right {
                    break;
                }
                (left, right) = (left.max(*a), right.min(*b));
                j += 1;
            }
            if j - i >= min_h {
                let cx = (left + right) / 2;
                let cy = y0 + (i + j) / 2;
                return Some((cx as i32, cy as i32));
            }
            i = j;
        }
        None
    }

    /// The part of the screen `win` covers, as a PNG (stored, not
    /// compressed: it is for a person to look at when a test fails).
    pub fn png(&self, win: Option<&Window>) -> Vec<u8> {
        let (x0, y0, w, h) = match win {
            Some(w) => (
                w.x.max(0) as usize,
                w.y.max(0) as usize,
                (w.width as usize).min(self.width - w.x.max(0) as usize),
                (w.height as usize).min(self.height - w.y.max(0) as usize),
            ),
            None => (0, 0, self.width, self.height),
        };
        let mut raw = Vec::with_capacity((w * 3 + 1) * h);
        for y in y0..y0 + h {
            raw.push(0); // filter: none
            let i = (y * self.width + x0) * 3;
            raw.extend_from_slice(&self.rgb[i..i + w * 3]);
        }
        let mut ihdr = Vec::new();
        ihdr.extend_from_slice(&(w as u32).to_be_bytes());
        ihdr.extend_from_slice(&(h as u32).to_be_bytes());
        ihdr.extend_from_slice(&[8, 2, 0, 0, 0]);
        let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
        png_chunk(&mut png, b"IHDR", &ihdr);
        png_chunk(&mut png, b"IDAT", &zlib_stored(&raw));
        png_chunk(&mut png, b"IEND", &[]);
        png
    }
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// `data` as a zlib stream of stored (uncompressed) deflate blocks.
fn zlib_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = data.chunks(65_535).collect();
    for (i, block) in blocks.iter().enumerate() {
        out.push(u8::from(i + 1 == blocks.len()));
        let len = block.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(block);
    }
    if blocks.is_empty() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in data {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    out.extend_from_slice(&((b << 16) | a).to_be_bytes());
    out
}
