//! The direct CDP backend: tabwire talks CDP to a browser itself, either one
//! it launched (over a pipe, no port) or one it attached to (`--cdp-url`).
//!
//! Messages are handled as raw JSON, so an event or field newer than what
//! tabwire knows never breaks the connection. Tabs are page targets; each is
//! driven through its own flattened session (`Target.attachToTarget`).
//!
//! This file opens the connection (launching or attaching), closes a
//! launched browser and puts the `Backend` trait on it; the connection's
//! own state (commands waiting, targets, sessions) is in `connection.rs`.

mod connection;
pub mod launch;
mod reader;
pub mod transport;

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::{Backend, BackendError, TabEvent, TabId, TabInfo};
use connection::{Inner, Targets, SESSION_ENDED};
use transport::Transport;

/// Direct-backend tab ids live far above Chrome's tab ids, so a handle from
/// one backend can never name a tab of the other.
pub const TAB_ID_BASE: TabId = 1 << 40;

/// Whether a process of the group `pgid` still runs. Zombies do not
/// count: they are gone but for their exit status, which their new parent
/// (init, for helpers whose parent died first) may be slow to collect.
#[cfg(target_os = "linux")]
fn group_running(pgid: u32) -> bool {
    // SAFETY: signal 0 only checks whether the group has members.
    if unsafe { libc::killpg(pgid as libc::pid_t, 0) } != 0 {
        return false;
    }
    let pgid = pgid.to_string();
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return false;
    };
    procs.flatten().any(|entry| {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            return false;
        };
        // "pid (comm) state ppid pgrp ...": comm may hold spaces.
        let mut fields = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace())
            .into_iter()
            .flatten();
        let state = fields.next();
        fields.next();
        fields.next() == Some(pgid.as_str()) && !matches!(state, Some("Z" | "X"))
    })
}

/// How long a launched browser has to exit after `Browser.close` before
/// its process group is killed: Chromium usually exits in about 100 ms; an
/// MCP client closing stdin expects the server gone within a few hundred.
const CLOSE_GRACE: Duration = Duration::from_millis(150);

/// How this backend reached its browser.
pub enum Origin {
    /// Launched by tabwire; closed when tabwire is done with it.
    Launched {
        child: Box<tokio::sync::Mutex<tokio::process::Child>>,
        /// Its profile directory.
        profile: std::path::PathBuf,
        /// A throwaway profile (the default one was in use), deleted once
        /// the browser is gone.
        temp_profile: Mutex<Option<tempfile::TempDir>>,
    },
    /// Someone else's browser; never closed by tabwire.
    Attached { url: String },
}

pub struct DirectBackend {
    inner: Arc<Inner>,
    origin: Origin,
    version: String,
}

impl DirectBackend {
    /// Launches a browser (see [`launch`]) and connects over its pipe.
    /// `events`: the stream to send its events into (a new one if None).
    pub async fn launch(
        opts: &launch::LaunchOptions,
        call_timeout: Duration,
        events: Option<broadcast::Sender<TabEvent>>,
    ) -> Result<Self, String> {
        let program = launch::find_browser(opts.browser_path.as_deref())?;
        let (profile, temp) = launch::choose_profile(opts)?;
        let args = launch::browser_args(opts, &profile);
        tracing::info!(browser = %program.display(), profile = %profile.display(), "launching browser for the CDP fallback");
        let (child, transport) = transport::spawn_with_pipe(&program, &args)?;
        let origin = Origin::Launched {
            child: Box::new(tokio::sync::Mutex::new(child)),
            profile: profile.clone(),
            temp_profile: Mutex::new(temp),
        };
        Self::connect(transport, origin, call_timeout, events).await
    }

    /// Attaches to a running browser at `url` (ws:// or http://).
    pub async fn attach(
        url: &str,
        call_timeout: Duration,
        events: Option<broadcast::Sender<TabEvent>>,
    ) -> Result<Self, String> {
        let ws = transport::resolve_ws_url(url).await?;
        let transport = transport::connect_websocket(&ws).await?;
        Self::connect(
            transport,
            Origin::Attached {
                url: url.to_string(),
            },
            call_timeout,
            events,
        )
        .await
    }

    async fn connect(
        transport: Transport,
        origin: Origin,
        call_timeout: Duration,
        events: Option<broadcast::Sender<TabEvent>>,
    ) -> Result<Self, String> {
        let events = events.unwrap_or_else(|| broadcast::channel(1024).0);
        let inner = Arc::new(Inner {
            tx: transport.tx,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            targets: Mutex::new(Targets::default()),
            attach_lock: tokio::sync::Mutex::new(()),
            events,
            call_timeout,
            closed: std::sync::atomic::AtomicBool::new(false),
            download_dir: std::sync::OnceLock::new(),
            download_tabs: Mutex::new(HashMap::new()),
        });
        tokio::spawn(reader::read_loop(transport.rx, inner.clone()));
        // Starting a browser can take a few seconds on a cold machine.
        let version = tokio::time::timeout(
            Duration::from_secs(30),
            inner.send(None, "Browser.getVersion", json!({})),
        )
        .await
        .map_err(|_| "the browser did not answer within 30 s".to_string())?
        .map_err(|e| format!("the browser did not answer: {e}"))?;
        let found = inner
            .send(None, "Target.getTargets", json!({}))
            .await
            .map_err(|e| e.to_string())?;
        for t in found["targetInfos"].as_array().into_iter().flatten() {
            inner.target_seen(t);
        }
        inner
            .send(None, "Target.setDiscoverTargets", json!({"discover": true}))
            .await
            .map_err(|e| e.to_string())?;
        if let Origin::Launched { profile, .. } = &origin {
            // The browser downloads what pages start (a POST's attachment,
            // a blob: URL revoked at once: nothing is fetched twice, so
            // nothing is lost) into a folder of its profile, each file
            // named by its guid; tabwire moves finished files into its
            // download directory under their own names (page/downloads/download.rs).
            // Nothing lands in the user's Downloads folder.
            let dir = profile.join("tabwire-downloads");
            let behavior = match std::fs::create_dir_all(&dir) {
                Ok(()) => json!({"behavior": "allowAndName", "downloadPath": dir,
                    "eventsEnabled": true}),
                Err(e) => {
                    tracing::warn!(
                        "cannot create {}: {e}; downloads are refetched",
                        dir.display()
                    );
                    json!({"behavior": "deny", "eventsEnabled": true})
                }
            };
            let allowed = behavior["behavior"] == "allowAndName";
            match inner
                .send(None, "Browser.setDownloadBehavior", behavior)
                .await
            {
                Ok(_) if allowed => {
                    let _ = inner.download_dir.set(dir);
                }
                Ok(_) => {}
                Err(e) => tracing::warn!("could not set the browser's download behavior: {e}"),
            }
            let mut t = inner.targets.lock().expect("targets lock");
            if let [only] = t.order.as_slice() {
                let blank = t
                    .info
                    .get(only)
                    .is_some_and(|(url, _)| url == "about:blank");
                if blank {
                    let tab = t.tab_of[only];
                    t.spare = Some(tab);
                    t.active = Some(tab);
                }
            }
        }
        Ok(Self {
            inner,
            origin,
            version: version["product"].as_str().unwrap_or("unknown").to_string(),
        })
    }

    /// "launched Chromium 156 …" / "attached to …", for status lines.
    pub fn describe(&self) -> String {
        match &self.origin {
            Origin::Launched { .. } => {
                format!("tabwire's own {} (launched, CDP pipe)", self.version)
            }
            Origin::Attached { url } => format!("{} at {url} (attached)", self.version),
        }
    }

    pub fn is_alive(&self) -> bool {
        !self.inner.closed.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Backend for DirectBackend {
    async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError> {
        let t = self.inner.targets.lock().expect("targets lock");
        Ok(t.order
            .iter()
            .filter_map(|id| {
                let tab = *t.tab_of.get(id)?;
                let (url, title) = t.info.get(id).cloned().unwrap_or_default();
                Some(TabInfo {
                    tab_id: tab,
                    url,
                    title,
                    active: t.active == Some(tab),
                    browser: None,
                })
            })
            .collect())
    }

    async fn new_tab(&self, url: &str, _group: &str) -> Result<TabInfo, BackendError> {
        let spare = self
            .inner
            .targets
            .lock()
            .expect("targets lock")
            .spare
            .take();
        if let Some(tab) = spare {
            if url != "about:blank" {
                self.cdp(tab, "Page.navigate", json!({"url": url})).await?;
            }
            return Ok(TabInfo {
                tab_id: tab,
                url: url.into(),
                title: String::new(),
                active: true,
                browser: None,
            });
        }
        let r = self
            .inner
            .send(None, "Target.createTarget", json!({"url": url}))
            .await?;
        let id = r["targetId"]
            .as_str()
            .ok_or_else(|| BackendError::Other("createTarget returned no target".into()))?;
        self.inner
            .target_seen(&json!({"type": "page", "targetId": id, "url": url, "title": ""}));
        let mut t = self.inner.targets.lock().expect("targets lock");
        let tab = t.tab_of[id];
        t.active = Some(tab);
        Ok(TabInfo {
            tab_id: tab,
            url: url.into(),
            title: String::new(),
            active: true,
            browser: None,
        })
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BackendError> {
        let target = self.inner.target(tab)?;
        self.inner
            .send(None, "Target.closeTarget", json!({"targetId": target}))
            .await?;
        self.inner.target_gone(&target);
        Ok(())
    }

    async fn select_tab(&self, tab: TabId) -> Result<(), BackendError> {
        let target = self.inner.target(tab)?;
        self.inner
            .send(None, "Target.activateTarget", json!({"targetId": target}))
            .await?;
        self.inner.targets.lock().expect("targets lock").active = Some(tab);
        Ok(())
    }

    async fn cdp_raw_in(
        &self,
        tab: TabId,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        // Only while the tab's own session lives: its children end with it.
        self.inner.session(tab).await?;
        match self.inner.send_raw(Some(session), method, params).await {
            // A frame's session ended (it navigated or went away): the
            // frame is gone, not the tab.
            Err(BackendError::NoSuchTab) => Err(BackendError::Cdp {
                method: method.into(),
                message: "the frame's session ended (the frame navigated or was removed)".into(),
            }),
            other => other,
        }
    }

    async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        {
            let mut t = self.inner.targets.lock().expect("targets lock");
            if t.spare == Some(tab) {
                t.spare = None; // in use now: no longer free to adopt
            }
        }
        let session = self.inner.session(tab).await?;
        match self.inner.send_raw(Some(&session), method, params).await {
            // The session ended under the command: say whether the tab is gone.
            Err(BackendError::Cdp { message, .. }) if message == SESSION_ENDED => {
                let still_there = match self.inner.target(tab) {
                    Ok(target) => self
                        .inner
                        .send(None, "Target.getTargetInfo", json!({"targetId": target}))
                        .await
                        .is_ok(),
                    Err(_) => false,
                };
                Err(if still_there {
                    BackendError::Cdp {
                        method: method.into(),
                        message,
                    }
                } else {
                    BackendError::NoSuchTab
                })
            }
            r => r,
        }
    }

    fn progress_message(&self) -> String {
        "waiting for the browser".into()
    }

    fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
        self.inner.events.subscribe()
    }

    async fn browser_downloads(&self, _tab: TabId) -> bool {
        self.inner.download_dir.get().is_some()
    }

    async fn cancel_download(&self, _tab: TabId, guid: &str) -> Result<(), BackendError> {
        self.inner
            .send(None, "Browser.cancelDownload", json!({"guid": guid}))
            .await
            .map(drop)
    }

    fn is_own_browser(&self, _tab: TabId) -> bool {
        true
    }

    async fn status(&self) -> String {
        self.describe()
    }

    /// Closes a launched browser: `Browser.close`, then at most
    /// [`CLOSE_GRACE`] for it to exit; its process group (the browser and
    /// every helper process it started) is killed then, or once the
    /// browser has exited (helpers that outlived it), and the browser is
    /// reaped. A throwaway profile is deleted afterwards.
    async fn shutdown(&self) {
        let Origin::Launched {
            child,
            profile,
            temp_profile,
        } = &self.origin
        else {
            return;
        };
        let started = std::time::Instant::now();
        let mut child = child.lock().await;
        let pgid = child.id();
        let _ = tokio::time::timeout(
            CLOSE_GRACE,
            self.inner.send(None, "Browser.close", json!({})),
        )
        .await;
        let graceful =
            tokio::time::timeout(CLOSE_GRACE.saturating_sub(started.elapsed()), child.wait())
                .await
                .is_ok();
        // The group outlives a reaped leader while any member is alive,
        // so this reaches only the browser's own processes.
        #[cfg(unix)]
        if let Some(pgid) = pgid {
            // SAFETY: signalling the process group the browser leads.
            unsafe { libc::killpg(pgid as libc::pid_t, libc::SIGKILL) };
        }
        #[cfg(not(unix))]
        if !graceful {
            let _ = child.start_kill();
        }
        let killed = !graceful
            && tokio::time::timeout(Duration::from_secs(2), child.wait())
                .await
                .is_ok();
        if !graceful && !killed {
            tracing::warn!(pid = ?pgid, "the launched browser did not exit after SIGKILL");
        }
        // Killed helpers take a few milliseconds more to be gone: wait for
        // them, briefly.
        #[cfg(target_os = "linux")]
        if let Some(pgid) = pgid {
            let until = std::time::Instant::now() + Duration::from_millis(100);
            while group_running(pgid) && std::time::Instant::now() < until {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
        }
        tracing::debug!(
            graceful,
            ms = started.elapsed().as_millis() as u64,
            "closed the launched browser"
        );
        drop(child);
        if killed {
            // A killed browser leaves its profile locked by a dead pid.
            launch::clear_stale_lock(profile);
        }
        let temp = temp_profile.lock().expect("temp profile lock").take();
        drop(temp);
    }
}
