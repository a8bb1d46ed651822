//! Tools that save files into the download directory: a download, the
//! media an element shows, the page as PDF. Only that directory is ever
//! written, under sanitized names, within the size cap.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::def::{Kind, Response, ToolDef, ToolError};
use crate::page::downloads::download::store;
use crate::page::downloads::save::{sanitize_name, save};
use crate::page::network::resource::{Fetched, Way};
use crate::page::Tab;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DownloadArgs {
    pub url: Option<String>,
    pub target: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct PdfArgs {
    pub filename: Option<String>,
}

/// What an element points at, read in the page.
const ELEMENT_SOURCE: &str = r#"function() {
  const el = this;
  if (el.localName === 'canvas') {
    try { return {url: el.toDataURL('image/png'), name: 'canvas.png'}; }
    catch (e) { return {error: 'the canvas is tainted by cross-origin content: ' + e.message}; }
  }
  if (el.localName === 'svg')
    return {url: 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(new XMLSerializer().serializeToString(el)), name: 'image.svg'};
  const media = el.matches('img, video, audio') ? el : el.querySelector('img, video, audio');
  if (media) {
    const src = media.currentSrc || media.src || (media.querySelector('source') || {}).src;
    if (src) return {url: src};
  }
  const link = el.closest('a[href]') || el.querySelector('a[href]');
  if (link) return {url: link.href, name: link.getAttribute('download') || ''};
  const bg = getComputedStyle(el).backgroundImage.match(/url\(["']?(.*?)["']?\)/);
  if (bg) return {url: new URL(bg[1], document.baseURI).href};
  return {error: 'the element is not a link, image, video, audio, canvas or svg'};
}"#;

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_download",
            "Download a file",
            Kind::Action,
            "Save `url` or the file `target` links to or shows (page's cookies) in the download dir.",
            download_tool,
        ),
        ToolDef::on_tab(
            "browser_capture_media",
            "Capture media",
            Kind::ReadOnly,
            "Save the image/video/audio/canvas `target` shows (or `url`) in the download dir.",
            capture_media,
        ),
        ToolDef::on_tab(
            "browser_pdf_save",
            "Save as PDF",
            Kind::ReadOnly,
            "Print the page to a PDF in the download dir.",
            pdf_save,
        ),
    ]
}

/// browser_download.
async fn download_tool(tab: Tab, a: DownloadArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let (url, name) = source(&tab, a.url.as_deref(), a.target.as_deref()).await?;
    let cap = s.policy().max_download_bytes();
    let got = tab
        .fetch_first_that_works(&url, cap, &[Way::InPage, Way::Browser])
        .await?;
    let saved = store(
        s,
        &url,
        name,
        "download",
        got.bytes,
        &got.mime,
        &got.suggested_name,
    )?;
    Ok(Response::text(format!(
        "{}\nFrom {}",
        saved.describe(s.fence()),
        s.fence().quote(&url)
    )))
}

/// browser_capture_media.
async fn capture_media(tab: Tab, a: DownloadArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let (url, name) = source(&tab, a.url.as_deref(), a.target.as_deref()).await?;
    let cap = s.policy().max_download_bytes();
    let got: Fetched = tab
        .fetch_first_that_works(&url, cap, &[Way::NetworkLog, Way::InPage, Way::Browser])
        .await?;
    let via = got.via;
    let saved = store(
        s,
        &url,
        name,
        "media",
        got.bytes,
        &got.mime,
        &got.suggested_name,
    )?;
    let from = if url.starts_with("data:") {
        "inline data".to_string()
    } else {
        s.fence().quote(&url)
    };
    Ok(Response::text(format!(
        "{}\nFrom {from} (via {via})",
        saved.describe(s.fence())
    )))
}

/// browser_pdf_save.
async fn pdf_save(tab: Tab, a: PdfArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    s.set_progress(Some("printing the page to PDF".into()));
    let bytes = tab.print_pdf().await?;
    if bytes.len() as u64 > s.policy().max_download_bytes() {
        return Err(ToolError::other(
            "the PDF is larger than --max-download-mb; nothing was saved".into(),
        ));
    }
    let title = tab.eval("document.title").await?;
    let raw = a.filename.unwrap_or_else(|| {
        title
            .as_str()
            .filter(|t| !t.trim().is_empty())
            .unwrap_or("page")
            .to_string()
    });
    let mut name = sanitize_name(&raw, "page");
    if !name.to_ascii_lowercase().ends_with(".pdf") {
        name.push_str(".pdf");
    }
    let saved = save(&s.policy().download_dir(), &name, &bytes, "application/pdf")?;
    Ok(Response::text(saved.describe(s.fence())))
}

/// The absolute URL to fetch (and a name the page suggests), from `url`
/// or from what the element at `target` points to. Checked by the policy.
async fn source(
    tab: &Tab,
    url: Option<&str>,
    target: Option<&str>,
) -> Result<(String, Option<String>), ToolError> {
    let s = tab.client();
    let (url, name) = match (url, target) {
        (Some(u), None) => {
            let abs = tab
                .call_page("(u) => new URL(u, document.baseURI).href", json!(u))
                .await
                .map_err(|_| ToolError::other(format!("{u:?} is not a valid URL")))?;
            (abs.as_str().unwrap_or(u).to_string(), None)
        }
        (None, Some(t)) => {
            let el = tab.element(t).await?;
            let r = tab.call_on(el, ELEMENT_SOURCE, Value::Null).await?;
            if let Some(e) = r["error"].as_str() {
                return Err(ToolError::other(format!("{e}; pass `url` instead")));
            }
            let name = r["name"]
                .as_str()
                .filter(|n| !n.is_empty())
                .map(str::to_string);
            (r["url"].as_str().unwrap_or_default().to_string(), name)
        }
        _ => {
            return Err(ToolError::other(
                "give exactly one of `url` or `target`".into(),
            ))
        }
    };
    // blob: and data: URLs are the page's own data; anything else must be
    // a place the policy lets us read.
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    if !matches!(scheme.as_str(), "blob" | "data") {
        s.policy()
            .check_url(&url)
            .map_err(|why| ToolError::other(format!("not downloading: {why}")))?;
    }
    Ok((url, name))
}
