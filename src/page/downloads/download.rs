//! Saving what a page downloads into the download directory (see
//! [`super::save`]), by one of two ways:
//! - the browser downloads it itself, and tabwire moves the finished file
//!   ([`follow_browser_downloads`]): nothing is fetched twice, so a form
//!   POST's attachment, a one-time link or a `blob:` URL revoked at once
//!   lose nothing. Both backends do this for the browsers they drive (a
//!   launched one through `Browser.setDownloadBehavior`, the user's through
//!   the extension's `chrome.downloads`);
//! - a browser tabwire attached to (someone else's, downloading into their
//!   folder as they set it) has the URL fetched again
//!   ([`Tab::save_page_download`]), the way `browser_download` fetches.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::broadcast::{self, error::RecvError};

use super::save::{extension_for, sanitize_name, save, Saved};
use crate::backend::{TabEvent, TabId};
use crate::error::ToolError;
use crate::page::network::resource::Way;
use crate::page::tab::calls::next_event;
use crate::page::tab::client::Client;
use crate::page::tab::current::Tab;

/// The action under way clicked a download link: its answer waits a
/// moment for the download to be announced (the tab's slot).
#[derive(Default)]
pub struct ExpectDownload(pub bool);

/// Keeps revoked blob: URLs readable for saving (see [`BLOB_GRACE`]).
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn setup(&self, _: &mut crate::page::tab::calls::TabState) -> Vec<(&'static str, Value)> {
        // A revoked blob: URL stays readable long enough to save what an
        // export button downloads.
        vec![crate::page::tab::calls::on_new_documents(BLOB_GRACE)]
    }
}

/// Installed in every new document of a driven tab (the page's own
/// world): a `blob:` URL the page revokes is revoked 10 s later instead.
/// Export buttons build a file, click a link to it and revoke the URL at
/// once; the browser has read it by then, but tabwire saves a download by
/// reading the URL after the click (see [`Tab::save_page_download`]), and a
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

impl Tab {
    /// Saves the file a page started downloading (a link to an attachment,
    /// `<a download>`, a script) into the download directory, fetching it the
    /// way `browser_download` does; returns the line the action reports.
    pub async fn save_page_download(&self, url: &str, suggested: Option<String>) -> String {
        let s = self.client();
        if let Some(why) = refused_by_policy(s, url) {
            return format!(
                "The page started a download of {}; not saved: {why}.",
                s.fence().quote(url)
            );
        }
        let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
        let cap = s.policy().max_download_bytes();
        let got = match self
            .fetch_first_that_works(url, cap, &[Way::InPage, Way::Browser])
            .await
        {
            Ok(g) => g,
            Err(e) if scheme == "blob" => {
                return format!(
                    "The page started a download of a file it made ({}); tabwire could not \
                     read it ({e}). The page no longer holds it: doing what made it again (the \
                     same click) makes a new one.",
                    s.fence().quote(url)
                )
            }
            Err(e) => {
                return format!(
                    "The page started a download of {}; tabwire could not save it ({e}). \
                     Try browser_download with the link's ref or the URL.",
                    s.fence().quote(url)
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
                saved.describe(s.fence())
            ),
            Err(e) => format!(
                "The page started a download of {}; not saved: {e}",
                s.fence().quote(url)
            ),
        }
    }
}

/// Why the domain policy refuses a download of `url`, if it does (a
/// `blob:` or `data:` URL is the page's own: always allowed).
fn refused_by_policy(s: &Client, url: &str) -> Option<String> {
    let scheme = url.split(':').next().unwrap_or("").to_ascii_lowercase();
    match scheme.as_str() {
        "blob" | "data" => None,
        _ => s.policy().check_url(url).err().map(|why| why.to_string()),
    }
}

/// How long a click on a download link (`<a download>` to a server) waits
/// for the browser to announce the download: it does once the server's
/// answer begins, which an export made on demand can take a while to.
pub const DOWNLOAD_ANNOUNCE: Duration = Duration::from_secs(5);

/// How long an action's answer waits for a download the browser makes;
/// a longer one is still saved when it ends (its follower runs on).
pub const FINISH_WAIT: Duration = Duration::from_secs(10);

/// A download a page started, as its `*.downloadWillBegin` named it.
#[derive(Debug, Clone)]
pub struct Started {
    pub guid: String,
    pub url: String,
    pub suggested: Option<String>,
}

impl Started {
    pub fn from_event(params: &Value) -> Option<Self> {
        Some(Self {
            guid: params["guid"].as_str()?.to_string(),
            url: params["url"].as_str().unwrap_or_default().to_string(),
            suggested: params["suggestedFilename"]
                .as_str()
                .filter(|n| !n.trim().is_empty())
                .map(String::from),
        })
    }

    fn short_url(&self) -> String {
        if self.url.len() > 80 {
            format!("{}...", crate::text::head(&self.url, 77))
        } else {
            self.url.clone()
        }
    }
}

/// The end of a download as a `Browser.downloadProgress` says it, or
/// how many bytes it has while it runs.
enum Progress {
    Running { received: u64, total: u64 },
    Completed { path: PathBuf, mime: String },
    Canceled,
}

fn progress_of(params: &Value) -> Progress {
    match params["state"].as_str() {
        Some("completed") => Progress::Completed {
            path: PathBuf::from(params["filePath"].as_str().unwrap_or_default()),
            mime: params["mimeType"].as_str().unwrap_or_default().to_string(),
        },
        Some("canceled") => Progress::Canceled,
        _ => Progress::Running {
            received: params["receivedBytes"].as_f64().unwrap_or(0.0) as u64,
            total: params["totalBytes"].as_f64().unwrap_or(0.0) as u64,
        },
    }
}

/// Follows the downloads the browser makes for `tab` to their ends and
/// fills in each one's line in `lines` (same order as `started`) as it
/// ends: a download over `--max-download-mb` or from a site the policy
/// denies is stopped (the browser removes its partial file; tabwire
/// removes anything left), a finished one is moved into the download
/// directory under its own name (`O_EXCL`, numbered when taken).
/// `early`: progress events that came before `events` was made. One task
/// reads one receiver for them all: a receiver made later would miss
/// what came in between.
pub async fn follow_browser_downloads(
    s: Client,
    tab: TabId,
    started: Vec<Started>,
    early: Vec<Value>,
    mut events: broadcast::Receiver<TabEvent>,
    lines: std::sync::Arc<std::sync::Mutex<Vec<Option<String>>>>,
) {
    let set = |i: usize, line: String| {
        tracing::info!("{line}");
        lines.lock().expect("download lines lock")[i] = Some(line);
    };
    let mut open = 0;
    for (i, d) in started.iter().enumerate() {
        if let Some(why) = refused_by_policy(&s, &d.url) {
            let _ = s.backend().cancel_download(tab, &d.guid).await;
            set(
                i,
                format!(
                    "The page started a download of {}; stopped: {why}.",
                    s.fence().quote(&d.short_url())
                ),
            );
        } else {
            open += 1;
        }
    }
    let cap = s.policy().max_download_bytes();
    let mut early = early.into_iter();
    while open > 0 {
        let params = match early.next() {
            Some(p) => p,
            None => match events.recv().await {
                Ok(TabEvent::Cdp {
                    tab: t,
                    method,
                    params,
                }) if t == tab && method == "Browser.downloadProgress" => params,
                // (The browser goes on with a closed tab's download.)
                Ok(_) | Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => {
                    for (i, d) in started.iter().enumerate() {
                        if lines.lock().expect("download lines lock")[i].is_none() {
                            set(
                                i,
                                format!(
                                    "The page started a download of {}; the browser connection \
                                 ended before it finished.",
                                    s.fence().quote(&d.short_url())
                                ),
                            );
                        }
                    }
                    return;
                }
            },
        };
        let Some(i) = started
            .iter()
            .position(|d| params["guid"] == d.guid.as_str())
        else {
            continue;
        };
        if lines.lock().expect("download lines lock")[i].is_some() {
            continue;
        }
        let d = &started[i];
        let line = match progress_of(&params) {
            Progress::Running { received, total } if received.max(total) > cap => {
                let _ = s.backend().cancel_download(tab, &d.guid).await;
                format!(
                    "The page started a download of {}; stopped at {} bytes: {}",
                    s.fence().quote(&d.short_url()),
                    received.max(total),
                    over_limit(cap)
                )
            }
            Progress::Running { .. } => continue,
            Progress::Canceled => format!(
                "The page started a download of {}; the browser canceled it (nothing was \
                 saved).",
                s.fence().quote(&d.short_url())
            ),
            Progress::Completed { path, mime } => take_finished(&s, d, &path, &mime),
        };
        set(i, line);
        open -= 1;
    }
}

fn over_limit(cap: u64) -> String {
    format!(
        "it is larger than the {} MB limit (--max-download-mb). Nothing of it was kept.",
        cap / (1024 * 1024)
    )
}

/// Moves the browser's finished file into the download directory.
fn take_finished(s: &Client, d: &Started, path: &std::path::Path, mime: &str) -> String {
    let cap = s.policy().max_download_bytes();
    let bytes = match std::fs::metadata(path) {
        Ok(m) if m.len() > cap => {
            let _ = std::fs::remove_file(path);
            return format!(
                "The page started a download of {}; not saved ({} bytes): {}",
                s.fence().quote(&d.short_url()),
                m.len(),
                over_limit(cap)
            );
        }
        Ok(_) => std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display())),
        Err(e) => Err(format!(
            "the browser's file {} is not there ({e})",
            path.display()
        )),
    };
    // The browser's copy goes in every case: tabwire's is the one kept;
    // so does the extension's folder for it once empty (remove_dir
    // removes only an empty one).
    let _ = std::fs::remove_file(path);
    if let Some(parent) = path.parent().filter(|p| p.ends_with("tabwire-incoming")) {
        let _ = std::fs::remove_dir(parent);
    }
    let bytes = match bytes {
        Ok(b) => b,
        Err(why) => {
            return format!(
                "The page started a download of {}; not saved: {why}.",
                s.fence().quote(&d.short_url())
            )
        }
    };
    let page_name = path
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| *n != d.guid)
        .map(String::from);
    // (The CDP fallback's browser does not say what type a file is.)
    let mime = match mime {
        "" => d
            .suggested
            .as_deref()
            .map_or("", super::save::mime_for_name),
        known => known,
    };
    match store(s, &d.url, page_name, "download", bytes, mime, &d.suggested) {
        Ok(saved) => format!("The page started a download: {}", saved.describe(s.fence())),
        Err(e) => format!(
            "The page started a download of {}; not saved: {e}",
            s.fence().quote(&d.short_url())
        ),
    }
}

impl Tab {
    /// The action about to run on `tab` clicks a download link: its answer
    /// waits a moment for the download to be announced.
    pub fn expect_download(&self, yes: bool) {
        self.tab_state().slot::<ExpectDownload>().0 = yes;
    }

    /// The downloads `tab` announced on `events` (subscribed before what
    /// started them), saved: their lines for the answer. `expect`: how
    /// long to wait for one when none was announced yet (a download link
    /// to a server announces its download when the answer's headers come).
    pub(in crate::page) async fn downloads_started(
        &self,
        events: &mut broadcast::Receiver<TabEvent>,
        expect: Duration,
    ) -> Vec<String> {
        let tab = self.id();
        let mut started: Vec<Started> = Vec::new();
        let mut progress = Vec::new();
        fn take(
            tab: TabId,
            event: TabEvent,
            started: &mut Vec<Started>,
            progress: &mut Vec<Value>,
        ) {
            let TabEvent::Cdp {
                tab: t,
                method,
                params,
            } = event
            else {
                return;
            };
            if t != tab {
                return;
            }
            match method.as_str() {
                // A download in the page's own process is announced on
                // both (the CDP fallback); once is enough.
                "Page.downloadWillBegin" | "Browser.downloadWillBegin" => {
                    if let Some(d) = Started::from_event(&params) {
                        if !started.iter().any(|s| s.guid == d.guid) {
                            started.push(d);
                        }
                    }
                }
                "Browser.downloadProgress" => progress.push(params),
                _ => {}
            }
        }
        while let Ok(event) = events.try_recv() {
            take(tab, event, &mut started, &mut progress);
        }
        if started.is_empty() && !expect.is_zero() {
            let announced = next_event(events, tab, |m, _| m.ends_with(".downloadWillBegin"));
            if let Ok(Some(params)) = tokio::time::timeout(expect, announced).await {
                let event = TabEvent::Cdp {
                    tab,
                    method: "Page.downloadWillBegin".into(),
                    params,
                };
                take(tab, event, &mut started, &mut progress);
            }
        }
        // (Events after this point reach `later` too: a download's
        // progress from here on is read there.)
        let later = events.resubscribe();
        while let Ok(event) = events.try_recv() {
            take(tab, event, &mut started, &mut progress);
        }
        if started.is_empty() {
            return Vec::new();
        }
        self.save_downloads(started, progress, later).await
    }

    /// Saves the downloads an action started and returns their lines: the
    /// browser's own files where it makes them (each followed on its own
    /// task, so one that outlasts [`FINISH_WAIT`] still
    /// lands), else each URL fetched again.
    async fn save_downloads(
        &self,
        started: Vec<Started>,
        progress: Vec<Value>,
        later: broadcast::Receiver<TabEvent>,
    ) -> Vec<String> {
        let tab = self.id();
        use {follow_browser_downloads, FINISH_WAIT};
        let mut lines_out = Vec::new();
        if !self.client().backend().browser_downloads(tab).await {
            for d in started {
                lines_out.push(self.save_page_download(&d.url, d.suggested).await);
            }
            return lines_out;
        }
        let lines = std::sync::Arc::new(std::sync::Mutex::new(vec![None; started.len()]));
        let names: Vec<String> = started
            .iter()
            .map(|d| d.suggested.clone().unwrap_or_else(|| d.url.clone()))
            .collect();
        let task = tokio::spawn(follow_browser_downloads(
            self.client().clone(),
            tab,
            started,
            progress,
            later,
            lines.clone(),
        ));
        let _ = tokio::time::timeout(FINISH_WAIT, task).await;
        let done = lines.lock().expect("download lines lock").clone();
        for (line, name) in done.into_iter().zip(names) {
            lines_out.push(line.unwrap_or_else(|| {
                format!(
                    "The page started a download ({name}); the browser is still downloading \
                         it. It is saved into {} under its own name when it finishes (one over \
                         the size limit is stopped).",
                    self.client().policy().download_dir().display()
                )
            }));
        }
        lines_out
    }
}
