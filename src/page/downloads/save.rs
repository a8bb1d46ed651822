//! Writing bytes the browser handed over into the one directory the policy
//! allows (`--download-dir`), under a sanitized, never-overwriting name.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// Longest file name kept (bytes); longer names are shortened.
const MAX_NAME: usize = 120;

/// A file written by [`save`].
#[derive(Debug)]
pub struct Saved {
    pub path: PathBuf,
    pub size: u64,
    pub mime: String,
}

impl Saved {
    /// The lines tools report. The file's name may be the page's choice,
    /// so the path stands inside an inline fence; a type that is not a
    /// plain `type/subtype` (the server sent it) is not repeated.
    pub fn describe(&self, fence: &crate::fence::Fence) -> String {
        let plain_type = |m: &str| {
            let ok = |part: &str| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "+-._".contains(c))
            };
            m.len() <= 100 && m.split_once('/').is_some_and(|(a, b)| ok(a) && ok(b))
        };
        format!(
            "Saved {} ({} bytes, {})",
            fence.quote(&self.path.display().to_string()),
            self.size,
            if plain_type(&self.mime) {
                &self.mime
            } else {
                "unknown type"
            }
        )
    }
}

impl Tab {
    /// The tab's page printed to PDF (backgrounds included), as bytes.
    pub async fn print_pdf(&self) -> Result<Vec<u8>, crate::error::ToolError> {
        use base64::Engine as _;
        let r = self
            .cdp(
                "Page.printToPDF",
                serde_json::json!({"printBackground": true}),
            )
            .await?;
        base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap_or_default())
            .map_err(|e| {
                crate::error::ToolError::other(format!("the browser sent an undecodable PDF: {e}"))
            })
    }
}

/// A file name safe on every OS: no directories, no traversal, no control
/// or reserved characters, no Windows device names, not hidden.
pub fn sanitize_name(raw: &str, fallback: &str) -> String {
    // Only the last path segment of whatever the page or URL suggested.
    let decoded = percent_decode(raw);
    let last = decoded.rsplit(['/', '\\']).next().unwrap_or("");
    let mut name: String = last
        .chars()
        .map(|c| {
            if c.is_control() || "<>:\"|?*/\\".contains(c) {
                '_'
            } else {
                c
            }
        })
        .collect();
    name = name
        .trim()
        .trim_start_matches('.')
        .trim_end_matches(['.', ' '])
        .to_string();
    if name.len() > MAX_NAME {
        let (stem, ext) = split_ext(&name);
        let keep = MAX_NAME.saturating_sub(ext.len());
        name = format!("{}{}", crate::text::head(stem, keep), ext);
    }
    let stem_upper = split_ext(&name).0.to_ascii_uppercase();
    let reserved = matches!(stem_upper.as_str(), "CON" | "PRN" | "AUX" | "NUL")
        || ((stem_upper.starts_with("COM") || stem_upper.starts_with("LPT"))
            && stem_upper.len() == 4
            && stem_upper.as_bytes()[3].is_ascii_digit());
    if reserved {
        name = format!("_{name}");
    }
    if name.is_empty() {
        fallback.to_string()
    } else {
        name
    }
}

/// `name.ext` → (`name`, `.ext`); no extension → (`name`, ``).
fn split_ext(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(i) if i > 0 && name.len() - i <= 10 => (&name[..i], &name[i..]),
        _ => (name, ""),
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Common file types: MIME type and the extension a file of it gets.
const TYPES: &[(&str, &str)] = &[
    ("image/png", ".png"),
    ("image/jpeg", ".jpg"),
    ("image/gif", ".gif"),
    ("image/webp", ".webp"),
    ("image/svg+xml", ".svg"),
    ("video/mp4", ".mp4"),
    ("video/webm", ".webm"),
    ("audio/mpeg", ".mp3"),
    ("audio/ogg", ".ogg"),
    ("audio/wav", ".wav"),
    ("audio/x-wav", ".wav"),
    ("application/pdf", ".pdf"),
    ("application/json", ".json"),
    ("application/zip", ".zip"),
    ("text/plain", ".txt"),
    ("text/csv", ".csv"),
    ("text/html", ".html"),
];

/// An extension for a MIME type, when the name has none.
pub fn extension_for(mime: &str) -> &'static str {
    let mime = mime.split(';').next().unwrap_or("").trim();
    TYPES
        .iter()
        .find(|(m, _)| *m == mime)
        .map_or("", |(_, ext)| ext)
}

/// The MIME type a file named `name` most likely has ("" if unknown):
/// for files the browser downloaded, whose type it does not report.
pub fn mime_for_name(name: &str) -> &'static str {
    let ext = name
        .rfind('.')
        .map_or("", |i| &name[i..])
        .to_ascii_lowercase();
    TYPES.iter().find(|(_, e)| *e == ext).map_or("", |(m, _)| m)
}

/// Writes `bytes` as `name` (already sanitized) into `dir`, creating the
/// directory owner-only if needed. An existing file is never replaced: the
/// name gets a ` (2)`, ` (3)` … suffix.
/// `bytes` (a text file the server writes for the model: a HAR, a trace,
/// an exported test) without any named secret's value or its encoded
/// forms (see `crate::secrets`).
pub fn without_secrets<'a>(
    secrets: &crate::secrets::Secrets,
    bytes: &'a [u8],
) -> std::borrow::Cow<'a, [u8]> {
    match std::str::from_utf8(bytes) {
        Ok(text) if !secrets.is_empty() => match secrets.scrub(text) {
            std::borrow::Cow::Owned(clean) => std::borrow::Cow::Owned(clean.into_bytes()),
            std::borrow::Cow::Borrowed(_) => std::borrow::Cow::Borrowed(bytes),
        },
        _ => std::borrow::Cow::Borrowed(bytes),
    }
}

pub fn save(dir: &Path, name: &str, bytes: &[u8], mime: &str) -> Result<Saved, ToolError> {
    create_private_dir(dir).map_err(|e| {
        ToolError::other(format!(
            "cannot create the download directory {}: {e}",
            dir.display()
        ))
    })?;
    let (stem, ext) = split_ext(name);
    for n in 1..1000 {
        let candidate = if n == 1 {
            name.to_string()
        } else {
            format!("{stem} ({n}){ext}")
        };
        let path = dir.join(&candidate);
        let mut file = match open_new(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(ToolError::other(format!(
                    "cannot write {}: {e}. Check the download directory (--download-dir)",
                    path.display()
                )))
            }
        };
        if let Err(e) = file.write_all(bytes).and_then(|_| file.sync_all()) {
            // Leave no half-written file behind (a full disk, say).
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(ToolError::other(format!(
                "writing {} failed: {e}; nothing was saved",
                path.display()
            )));
        }
        return Ok(Saved {
            path,
            size: bytes.len() as u64,
            mime: mime.to_string(),
        });
    }
    Err(ToolError::other(format!(
        "too many files named {name:?} in {}",
        dir.display()
    )))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt as _;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// Creates the file, failing if anything (even a symlink) is already there.
fn open_new(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt as _;
        options.mode(0o600);
    }
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_cannot_escape_or_hide() {
        assert_eq!(sanitize_name("../../etc/passwd", "x"), "passwd");
        assert_eq!(sanitize_name("..\\..\\boot.ini", "x"), "boot.ini");
        assert_eq!(sanitize_name("%2e%2e%2fsecret.txt", "x"), "secret.txt");
        assert_eq!(sanitize_name("..", "download"), "download");
        assert_eq!(sanitize_name(".bashrc", "x"), "bashrc");
        assert_eq!(sanitize_name("", "download"), "download");
        assert_eq!(sanitize_name("a\u{0}b\nc:d?.txt", "x"), "a_b_c_d_.txt");
        assert_eq!(sanitize_name("CON.txt", "x"), "_CON.txt");
        assert_eq!(sanitize_name("com1", "x"), "_com1");
        assert_eq!(sanitize_name("report%20final.pdf", "x"), "report final.pdf");
        let long = format!("{}.pdf", "é".repeat(200));
        let short = sanitize_name(&long, "x");
        assert!(
            short.len() <= MAX_NAME && short.ends_with(".pdf"),
            "{short}"
        );
    }

    #[test]
    fn saving_never_overwrites_and_is_private() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("downloads");
        let a = save(&sub, "a.txt", b"one", "text/plain").unwrap();
        let b = save(&sub, "a.txt", b"two", "text/plain").unwrap();
        assert_eq!(a.path, sub.join("a.txt"));
        assert_eq!(b.path, sub.join("a (2).txt"));
        assert_eq!(std::fs::read(&a.path).unwrap(), b"one");
        assert_eq!(b.size, 3);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            let mode = std::fs::metadata(&a.path).unwrap().permissions().mode();
            assert_eq!(mode & 0o077, 0, "{mode:o}");
        }
    }

    #[test]
    fn a_symlink_in_the_way_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = dir.path().join("outside.txt");
        std::fs::write(&outside, b"keep").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, dir.path().join("x.txt")).unwrap();
            let s = save(dir.path(), "x.txt", b"new", "").unwrap();
            assert_eq!(s.path, dir.path().join("x (2).txt"));
            assert_eq!(std::fs::read(&outside).unwrap(), b"keep");
        }
    }

    #[test]
    fn an_unwritable_dir_is_a_clear_error() {
        let err = save(Path::new("/proc/tabwire-nope"), "a.txt", b"x", "").unwrap_err();
        assert!(err.text().contains("download directory"), "{err}");
    }
}
