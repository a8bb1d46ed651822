//! Backend choice: the extension when it is connected, otherwise tabwire's
//! own browser over CDP — decided again before every tool call.
//!
//! `--backend extension` and `--backend cdp` pin the choice. In `auto`, the
//! first call waits a short grace period for the extension; after that a
//! call uses whatever is there: a late extension takes over, a vanished one
//! falls back. Tab ids of the two backends live in disjoint ranges, so a
//! handle from the backend that no longer serves gets a "stale" error and
//! never reaches a wrong tab.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::Value;
use tokio::sync::broadcast;

use super::direct::{launch::LaunchOptions, DirectBackend, TAB_ID_BASE};
use super::extension::ExtensionBackend;
use super::{Backend, BackendError, TabEvent, TabId, TabInfo};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Auto,
    Extension,
    Cdp,
}

/// How to reach a browser for the CDP side.
#[derive(Debug, Clone)]
pub enum DirectConfig {
    Launch(LaunchOptions),
    Attach(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Which {
    Extension,
    Direct,
}

pub struct AutoBackend {
    mode: Mode,
    ext: Option<Arc<ExtensionBackend>>,
    direct_cfg: DirectConfig,
    direct: tokio::sync::Mutex<Option<Arc<DirectBackend>>>,
    /// A clone of the live direct backend for synchronous readers.
    direct_now: Mutex<Option<Arc<DirectBackend>>>,
    grace: Duration,
    call_timeout: Duration,
    choice: Mutex<(Which, String)>,
    first_call_done: AtomicBool,
    launching: AtomicBool,
    /// Direct browsers started or attached so far (each voids older tab ids).
    launches: std::sync::atomic::AtomicU64,
    events: broadcast::Sender<TabEvent>,
}

impl AutoBackend {
    pub fn new(
        mode: Mode,
        ext: Option<ExtensionBackend>,
        direct_cfg: DirectConfig,
        grace: Duration,
        call_timeout: Duration,
    ) -> Self {
        // One event stream for both backends, sent into directly: a task
        // copying events between streams would let an answer overtake the
        // events the browser sent before it.
        let events = ext
            .as_ref()
            .map_or_else(|| broadcast::channel(1024).0, |e| e.event_sender());
        let ext = ext.map(Arc::new);
        let initial = match mode {
            Mode::Cdp => (Which::Direct, "--backend cdp".to_string()),
            Mode::Extension => (Which::Extension, "--backend extension".to_string()),
            Mode::Auto => (Which::Extension, "no call made yet".to_string()),
        };
        Self {
            mode,
            ext,
            direct_cfg,
            direct: tokio::sync::Mutex::new(None),
            direct_now: Mutex::new(None),
            grace,
            call_timeout,
            choice: Mutex::new(initial),
            first_call_done: AtomicBool::new(false),
            launching: AtomicBool::new(false),
            launches: std::sync::atomic::AtomicU64::new(0),
            events,
        }
    }

    fn which(&self) -> Which {
        self.choice.lock().expect("choice lock").0
    }

    fn ext_connected(&self) -> bool {
        self.ext.as_ref().is_some_and(|e| e.is_connected())
    }

    /// The live direct backend, launching or attaching if needed.
    async fn ensure_direct(&self) -> Result<Arc<DirectBackend>, BackendError> {
        let mut slot = self.direct.lock().await;
        if let Some(d) = slot.as_ref().filter(|d| d.is_alive()) {
            return Ok(d.clone());
        }
        self.launching.store(true, Ordering::SeqCst);
        let made = match &self.direct_cfg {
            DirectConfig::Launch(opts) => {
                DirectBackend::launch(opts, self.call_timeout, Some(self.events.clone())).await
            }
            DirectConfig::Attach(url) => {
                DirectBackend::attach(url, self.call_timeout, Some(self.events.clone())).await
            }
        };
        self.launching.store(false, Ordering::SeqCst);
        let d = Arc::new(made.map_err(|e| {
            BackendError::NotConnected(format!("could not start the CDP fallback: {e}"))
        })?);
        // The first browser voids nothing; a replacement voids its ids.
        if slot.is_some() {
            self.launches.fetch_add(1, Ordering::SeqCst);
        }
        *slot = Some(d.clone());
        *self.direct_now.lock().expect("direct lock") = Some(d.clone());
        Ok(d)
    }

    async fn chosen(&self) -> Result<Chosen, BackendError> {
        match self.which() {
            Which::Extension => {
                Ok(Chosen::Ext(self.ext.clone().ok_or_else(|| {
                    BackendError::NotConnected("no extension backend".into())
                })?))
            }
            Which::Direct => Ok(Chosen::Direct(self.ensure_direct().await?)),
        }
    }

    /// The chosen backend for a handle, or a clear "stale" error.
    async fn for_tab(&self, tab: TabId) -> Result<Chosen, BackendError> {
        let chosen = self.chosen().await?;
        let tab_is_direct = tab >= TAB_ID_BASE;
        match (&chosen, tab_is_direct) {
            (Chosen::Ext(_), true) => Err(BackendError::Stale(
                "that tab belongs to tabwire's own browser, but the tabwire extension is now \
                 connected and serves your calls; call browser_tabs with action \"list\" and \
                 pick a tab again"
                    .into(),
            )),
            (Chosen::Direct(_), false) => Err(BackendError::Stale(
                "that tab belongs to your browser's extension, which is no longer connected; \
                 tabwire now uses its own browser. Call browser_tabs with action \"list\" and \
                 pick a tab again"
                    .into(),
            )),
            _ => Ok(chosen),
        }
    }
}

enum Chosen {
    Ext(Arc<ExtensionBackend>),
    Direct(Arc<DirectBackend>),
}

impl Chosen {
    fn get(&self) -> &dyn Backend {
        match self {
            Chosen::Ext(e) => e.as_ref(),
            Chosen::Direct(d) => d.as_ref(),
        }
    }
}

#[async_trait]
impl Backend for AutoBackend {
    async fn prepare(&self) -> Result<(), BackendError> {
        let first = !self.first_call_done.swap(true, Ordering::SeqCst);
        let (which, reason) = match self.mode {
            Mode::Extension => {
                if let Some(ext) = &self.ext {
                    ext.ensure_link().await?;
                }
                (Which::Extension, "--backend extension".to_string())
            }
            Mode::Cdp => {
                self.ensure_direct().await?;
                (Which::Direct, "--backend cdp".to_string())
            }
            Mode::Auto => {
                let waited = first
                    && !self.ext_connected()
                    && match &self.ext {
                        Some(e) => e.wait_connected(self.grace).await,
                        None => false,
                    };
                if self.ext_connected() {
                    let why = if waited {
                        "the extension connected during the start-up grace period"
                    } else {
                        "the tabwire extension is connected"
                    };
                    (Which::Extension, why.to_string())
                } else {
                    self.ensure_direct().await?;
                    (
                        Which::Direct,
                        format!(
                            "no tabwire extension connected (waited {:.1} s on the first call); \
                             falling back to CDP",
                            self.grace.as_secs_f64()
                        ),
                    )
                }
            }
        };
        let mut choice = self.choice.lock().expect("choice lock");
        if choice.0 != which {
            tracing::info!(?which, %reason, "backend switched");
        }
        *choice = (which, reason);
        Ok(())
    }

    async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError> {
        self.chosen().await?.get().list_tabs().await
    }

    async fn new_tab(&self, url: &str, group: &str) -> Result<TabInfo, BackendError> {
        self.chosen().await?.get().new_tab(url, group).await
    }

    async fn new_tab_in(
        &self,
        url: &str,
        group: &str,
        browser: Option<&str>,
    ) -> Result<TabInfo, BackendError> {
        self.chosen()
            .await?
            .get()
            .new_tab_in(url, group, browser)
            .await
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.for_tab(tab).await?.get().close_tab(tab).await
    }

    async fn select_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.for_tab(tab).await?.get().select_tab(tab).await
    }

    async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        self.for_tab(tab)
            .await?
            .get()
            .cdp_raw(tab, method, params)
            .await
    }

    async fn cdp_raw_in(
        &self,
        tab: TabId,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        self.for_tab(tab)
            .await?
            .get()
            .cdp_raw_in(tab, session, method, params)
            .await
    }

    async fn cdp_batch(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<Vec<Value>, BackendError> {
        self.for_tab(tab)
            .await?
            .get()
            .cdp_batch(tab, commands)
            .await
    }

    async fn set_up_tab(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
        then: Vec<(&'static str, Value)>,
    ) -> Result<super::SetUp, BackendError> {
        self.for_tab(tab)
            .await?
            .get()
            .set_up_tab(tab, commands, then)
            .await
    }

    async fn browser_downloads(&self, tab: TabId) -> bool {
        match self.for_tab(tab).await {
            Ok(b) => b.get().browser_downloads(tab).await,
            Err(_) => false,
        }
    }

    async fn cancel_download(&self, tab: TabId, guid: &str) -> Result<(), BackendError> {
        self.for_tab(tab)
            .await?
            .get()
            .cancel_download(tab, guid)
            .await
    }

    fn generation(&self) -> u64 {
        let ext = self.ext.as_ref().map_or(0, |e| e.generation());
        ext + self.launches.load(Ordering::SeqCst)
    }

    fn is_void(&self, tab: TabId) -> bool {
        tab < TAB_ID_BASE && self.ext.as_ref().is_some_and(|e| e.is_void(tab))
    }

    fn is_own_browser(&self, tab: TabId) -> bool {
        tab >= TAB_ID_BASE
    }

    fn browsers(&self) -> Vec<(String, bool)> {
        match (self.which(), &self.ext) {
            (Which::Extension, Some(ext)) => ext.browsers(),
            _ => Vec::new(),
        }
    }

    fn client_named(&self, name: &str) {
        if let Some(ext) = &self.ext {
            ext.client_named(name);
        }
    }

    fn note_call(&self, tool: &str, ok: bool) {
        if let Some(ext) = self.ext.as_ref().filter(|e| e.is_connected()) {
            ext.note_call(tool, ok);
        }
    }

    fn progress_message(&self) -> String {
        if self.launching.load(Ordering::SeqCst) {
            return "starting a browser for the CDP fallback".into();
        }
        match (self.which(), &self.ext) {
            (Which::Extension, Some(ext)) => ext.progress_message(),
            _ => "waiting for the browser".into(),
        }
    }

    fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
        self.events.subscribe()
    }

    /// The extension's stop (the CDP fallback has no Cancel bar: closing
    /// the browser it launched ends it).
    fn user_stop(&self) -> Option<tokio::sync::watch::Receiver<Option<String>>> {
        match self.which() {
            Which::Extension => self.ext.as_ref().and_then(|e| e.user_stop()),
            Which::Direct => None,
        }
    }

    async fn status(&self) -> String {
        let (which, reason) = self.choice.lock().expect("choice lock").clone();
        let serving = match which {
            Which::Extension => match &self.ext {
                Some(e) => e.status().await,
                None => "nothing".into(),
            },
            Which::Direct => {
                let d = self.direct_now.lock().expect("direct lock").clone();
                match d {
                    Some(d) => d.describe(),
                    None => "tabwire's own browser (not started yet)".into(),
                }
            }
        };
        let mode = match self.mode {
            Mode::Auto => "auto",
            Mode::Extension => "extension",
            Mode::Cdp => "cdp",
        };
        let ext = if self.ext.is_none() {
            "not used"
        } else if self.ext_connected() {
            "connected"
        } else {
            "not connected"
        };
        format!("Backend mode: {mode}\nServing calls: {serving}\nWhy: {reason}\nExtension: {ext}")
    }

    async fn shutdown(&self) {
        let d = self.direct.lock().await.clone();
        if let Some(d) = d {
            d.shutdown().await;
        }
    }
}
