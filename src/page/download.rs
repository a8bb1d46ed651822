//! Saving what a page downloads: the bytes fetched the way
//! `browser_download` fetches them, named and written into the download
//! directory (see [`super::save`]).

use super::client::Client;

/// Installed in every new document of a driven tab (the page's own
/// world): a `blob:` URL the page revokes is revoked 10 s later instead.
/// Export buttons build a file, click a link to it and revoke the URL at
/// once; the browser has read it by then, but tabwire saves a download by
/// reading the URL after the click (see [`save_page_download`]), and a
/// revoked one reads as "Failed to fetch". Nothing else about the blob
/// changes; the page only keeps its memory 10 s longer.
pub const BLOB_GRACE: &str = r#"(() => {
  const revoke = URL.revokeObjectURL;
  if (revoke.tabwireGrace) return;
  const later = function revokeObjectURL(url) {
    setTimeout(() => revoke.call(URL, url), 10000);
  };
  later.tabwireGrace = true;
  URL.revokeObjectURL = later;
})()"#;
use super::fetch::{first_that_works, Way};
use super::save::{extension_for, sanitize_name, save, Saved};
use crate::backend::TabId;
use crate::error::ToolError;

/// Names the file (response's suggestion, the page's, the URL's last
/// segment, then `fallback`) and saves it.
pub fn store(
    s: &Client,
    url: &str,
    page_name: Option<String>,
    fallback: &str,
    bytes: Vec<u8>,
    mime: &str,
    suggested: &Option<String>,
) -> Result<Saved, ToolError> {
    let from_url = if url.starts_with("data:") || url.starts_with("blob:") {
        String::new()
    } else {
        url.split(['?', '#'])
            .next()
            .unwrap_or("")
            .rsplit('/')
            .next()
            .unwrap_or("")
            .to_string()
    };
    let raw = suggested
        .clone()
        .or(page_name)
        .filter(|n| !n.trim().is_empty())
        .unwrap_or(from_url);
    let mut name = sanitize_name(&raw, fallback);
    if !name.contains('.') {
        name.push_str(extension_for(mime));
    }
    let mime = mime.split(';').next().unwrap_or("").trim();
    save(&s.policy().download_dir(), &name, &bytes, mime)
}

/// Saves the file a page started downloading (a link to an attachment,
/// `<a download>`, a script) into the download directory, fetching it the
/// way `browser_download` does; returns the line the action reports.
pub async fn save_page_download(
    s: &Client,
    tab: TabId,
    url: &str,
    suggested: Option<String>,
) -> String {
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    if !matches!(scheme.as_str(), "blob" | "data") {
        if let Err(why) = s.policy().check_url(url) {
            return format!("The page started a download of {url}; not saved: {why}.");
        }
    }
    let cap = s.policy().max_download_bytes();
    let got = match first_that_works(s, tab, url, cap, &[Way::InPage, Way::Browser]).await {
        Ok(g) => g,
        Err(e) if scheme == "blob" => {
            return format!(
                "The page started a download of a file it made ({url}); tabwire could not \
                 read it ({e}). The page no longer holds it: doing what made it again (the \
                 same click) makes a new one."
            )
        }
        Err(e) => {
            return format!(
                "The page started a download of {url}; tabwire could not save it ({e}). \
                 Try browser_download with the link's ref or the URL."
            )
        }
    };
    // A browser tabwire launched writes no file of its own (downloads
    // denied), nor does the user's browser through the extension (which
    // cancels its copy, extension/downloads.js); an attached one keeps it.
    let status = s.backend().status().await;
    let own_copy = if status.contains("launched") || status.contains("tabwire extension") {
        ""
    } else {
        "\nThe browser also saved its own copy in its download folder (tabwire cannot stop \
         that in this browser); browser_download saves a URL without it."
    };
    match store(
        s,
        url,
        None,
        "download",
        got.bytes,
        &got.mime,
        &got.suggested_name.clone().or(suggested),
    ) {
        Ok(saved) => format!(
            "The page started a download: {}{own_copy}",
            saved.describe()
        ),
        Err(e) => format!("The page started a download of {url}; not saved: {e}"),
    }
}
