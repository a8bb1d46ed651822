//! The [`Backend`] trait on the extension: each call goes to the browser
//! its tab lives in; new tabs to the default browser or a named one.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::broadcast;

use super::link::Link;
use super::status::describe_browser;
use super::ExtensionBackend;
use crate::backend::{Backend, BackendError, TabEvent, TabId, TabInfo};
use crate::protocol::method;

impl ExtensionBackend {
    /// One CDP command through the extension, to the tab or to its child
    /// `session`; errors name the CDP method, not the relay method.
    async fn cdp_send(
        &self,
        tab: TabId,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let mut envelope = json!({"method": method, "params": params});
        if let Some(s) = session {
            envelope["sessionId"] = json!(s);
        }
        self.inner
            .tab_request_raw(tab, method::CDP_SEND, envelope)
            .await
            .map_err(|e| match e {
                BackendError::Cdp { message, .. } => BackendError::Cdp {
                    method: method.into(),
                    message,
                },
                BackendError::Timeout { secs, .. } => BackendError::Timeout {
                    what: method.into(),
                    secs,
                },
                other => other,
            })
    }

    /// One `cdp.batch` of `commands` with `extra` params; the answer whole.
    async fn batch(
        &self,
        tab: TabId,
        commands: &[(&'static str, Value)],
        mut extra: Value,
    ) -> Result<Value, BackendError> {
        let first = commands.first().map_or(method::CDP_BATCH, |c| c.0);
        extra["commands"] = commands
            .iter()
            .map(|(m, p)| json!({"method": m, "params": p}))
            .collect();
        self.inner
            .tab_request_raw(tab, method::CDP_BATCH, extra)
            .await
            .and_then(|raw| crate::backend::parse_result(method::CDP_BATCH, &raw))
            .map_err(|e| match e {
                BackendError::Cdp { message, .. } => BackendError::Cdp {
                    method: first.into(),
                    message,
                },
                other => other,
            })
    }

    /// The tabs this client has in the browser of `link`, as handles:
    /// from the hello answer just received, else asked for.
    async fn tabs_in(&self, link: &Arc<Link>) -> Result<Vec<TabInfo>, BackendError> {
        let listed = match link.hello_tabs.take(std::time::Instant::now()) {
            Some(tabs) => tabs,
            None => {
                let mut v = self
                    .inner
                    .request(link, method::TABS_LIST, json!({}))
                    .await?;
                v["tabs"].take()
            }
        };
        let tabs: Vec<TabInfo> = serde_json::from_value(listed)
            .map_err(|e| BackendError::Other(format!("bad tab list from the extension: {e}")))?;
        Ok(tabs
            .into_iter()
            .filter_map(|t| self.inner.to_handle(link, t))
            .collect())
    }
}

#[async_trait]
impl Backend for ExtensionBackend {
    /// Every connected browser's tabs of this client, browser by browser in
    /// the order they connected, each labelled with its browser.
    async fn list_tabs(&self) -> Result<Vec<TabInfo>, BackendError> {
        self.inner.wait_for_link().await?;
        let links = self.inner.live_links();
        let answers = futures_util::future::join_all(links.iter().map(|l| self.tabs_in(l))).await;
        let mut tabs = Vec::new();
        let mut first_error = None;
        let mut answered = false;
        for (link, answer) in links.iter().zip(answers) {
            match answer {
                Ok(t) => {
                    answered = true;
                    tabs.extend(t);
                }
                Err(e) => {
                    // A browser going away or stopped leaves the others listed.
                    tracing::debug!(browser = %link.name(), error = %e, "no tab list from a browser");
                    first_error.get_or_insert(e);
                }
            }
        }
        match (answered, first_error) {
            (false, Some(e)) => Err(e),
            _ => Ok(tabs),
        }
    }

    async fn new_tab(&self, url: &str, group: &str) -> Result<TabInfo, BackendError> {
        self.new_tab_in(url, group, None).await
    }

    async fn new_tab_in(
        &self,
        url: &str,
        group: &str,
        browser: Option<&str>,
    ) -> Result<TabInfo, BackendError> {
        // Tools name the group after the MCP client.
        if self.inner.client_name.lock().expect("name lock").is_none() {
            self.name_client(group);
        }
        let first = self.inner.wait_for_link().await?;
        let link = match browser {
            Some(name) => self.inner.link_named(name)?,
            None => self.inner.default_link().unwrap_or(first),
        };
        let v = self
            .inner
            .request(
                &link,
                method::TABS_CREATE,
                json!({"url": url, "group": group}),
            )
            .await?;
        let tab: TabInfo = serde_json::from_value(v["tab"].clone())
            .map_err(|e| BackendError::Other(format!("bad tab from the extension: {e}")))?;
        self.inner.to_handle(&link, tab).ok_or_else(|| {
            BackendError::Other("the extension has not said which browser it is".into())
        })
    }

    async fn close_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.inner
            .tab_request_raw(tab, method::TABS_CLOSE, json!({}))
            .await
            .map(|_| ())
    }

    async fn select_tab(&self, tab: TabId) -> Result<(), BackendError> {
        self.inner
            .tab_request_raw(tab, method::TABS_SELECT, json!({}))
            .await
            .map(|_| ())
    }

    async fn cdp_raw(
        &self,
        tab: TabId,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        self.cdp_send(tab, None, method, params).await
    }

    async fn cdp_raw_in(
        &self,
        tab: TabId,
        session: &str,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        self.cdp_send(tab, Some(session), method, params).await
    }

    /// The extension lets the browser download what a client's tab starts
    /// and reports it as `Browser.downloadProgress` (extension/downloads.js).
    async fn browser_downloads(&self, _tab: TabId) -> bool {
        true
    }

    /// `chrome.debugger` has no Browser domain: the extension answers this
    /// one command itself, with `chrome.downloads.cancel`.
    async fn cancel_download(&self, tab: TabId, guid: &str) -> Result<(), BackendError> {
        self.cdp_send(tab, None, "Browser.cancelDownload", json!({"guid": guid}))
            .await
            .map(drop)
    }

    async fn cdp_batch(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
    ) -> Result<Vec<Value>, BackendError> {
        match self.batch(tab, &commands, json!({})).await {
            Ok(v) => Ok(results_of(&v)),
            // An extension from before cdp.batch: one message per command.
            Err(BackendError::Other(m)) | Err(BackendError::Cdp { message: m, .. })
                if m.contains("unknown method") =>
            {
                crate::backend::cdp_in_order(self, tab, commands).await
            }
            Err(e) => Err(e),
        }
    }

    /// The Fetch commands go every time (the extension disables Fetch in
    /// a server's tabs when it leaves), with the question whether the tab's
    /// session already ran the rest of this setup: a small message. Only
    /// if not is the rest sent (with the engine's source, 40 KB), marked
    /// with its key. An extension from before setup keys answers without
    /// `setUp`, and gets the rest as it always did.
    async fn set_up_tab(
        &self,
        tab: TabId,
        commands: Vec<(&'static str, Value)>,
        then: Vec<(&'static str, Value)>,
    ) -> Result<crate::backend::SetUp, BackendError> {
        let (mut every_time, kept): (Vec<_>, Vec<_>) = commands
            .into_iter()
            .partition(|(m, _)| m.starts_with("Fetch."));
        let key = setup_key(&kept);
        let asked = every_time.len();
        let n = then.len();
        every_time.extend(then.iter().cloned());
        // `then` rides on the question. An extension that cannot run it
        // (one from before MAIN_FRAME) fails the batch: ask again without
        // (then the answers are too few to hold `then`'s).
        let answer = match self.batch(tab, &every_time, json!({"ask": key})).await {
            Ok(a) => a,
            Err(BackendError::Cdp { .. } | BackendError::Other(_) | BackendError::Refused(_))
                if n > 0 =>
            {
                every_time.truncate(asked);
                self.batch(tab, &every_time, json!({"ask": key})).await?
            }
            Err(e) => return Err(e),
        };
        let answers = results_of(&answer);
        let then_answers = if answers.len() == asked + n {
            answers[asked..].to_vec()
        } else {
            Vec::new()
        };
        if answer["setUp"] == true {
            tracing::debug!(tab, "the tab's session was set up before; only Fetch sent");
            return Ok(crate::backend::SetUp {
                before: true,
                then: then_answers,
            });
        }
        tracing::debug!(tab, "setting the tab up");
        self.batch(tab, &kept, json!({"mark": key})).await?;
        Ok(crate::backend::SetUp {
            before: false,
            then: then_answers,
        })
    }

    fn client_named(&self, name: &str) {
        self.name_client(name);
    }

    fn is_void(&self, tab: TabId) -> bool {
        self.inner
            .handles
            .lock()
            .expect("handles lock")
            .void
            .contains_key(&tab)
    }

    fn browsers(&self) -> Vec<(String, bool)> {
        let default = self.inner.default_link();
        self.inner
            .live_links()
            .iter()
            .map(|l| {
                let here = default.as_ref().is_some_and(|d| Arc::ptr_eq(d, l));
                (l.name(), here)
            })
            .collect()
    }

    fn note_call(&self, tool: &str, ok: bool) {
        let params = json!({"tool": tool, "ok": ok});
        for link in self.inner.live_links() {
            let inner = self.inner.clone();
            let params = params.clone();
            tokio::spawn(async move {
                let _ = inner.request(&link, method::NOTE, params).await;
            });
        }
    }

    fn progress_message(&self) -> String {
        if let Some(what) = self.inner.waiting.lock().expect("waiting lock").clone() {
            return format!("waiting for {what}");
        }
        if self.is_connected() {
            "waiting for the browser".into()
        } else {
            "waiting for the tabwire browser extension to connect".into()
        }
    }

    fn user_stop(&self) -> Option<tokio::sync::watch::Receiver<Option<String>>> {
        Some(self.inner.stop_text.subscribe())
    }

    async fn status(&self) -> String {
        let browsers = self.inner.browsers().await;
        let Some(first) = browsers.first() else {
            return "the tabwire extension (not connected)".into();
        };
        let mut out = format!(
            "your browser through the tabwire extension {}\nBrowsers connected: {}",
            first.version,
            browsers.len()
        );
        for b in &browsers {
            out.push_str(&format!("\n- {}", describe_browser(b)));
        }
        out
    }

    fn subscribe(&self) -> broadcast::Receiver<TabEvent> {
        self.inner.events.subscribe()
    }
}

/// The per-command answers of a `cdp.batch`.
fn results_of(answer: &Value) -> Vec<Value> {
    answer["results"].as_array().cloned().unwrap_or_default()
}

/// Names a tab setup by its commands: a session that ran a setup with this
/// key needs none of it again. (FNV-1a over the commands, and their length:
/// stable across processes and versions, unlike std's hasher.)
fn setup_key(commands: &[(&'static str, Value)]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut len: u64 = 0;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            hash = (hash ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
        len += bytes.len() as u64;
    };
    for (method, params) in commands {
        feed(method.as_bytes());
        feed(&[0]);
        feed(params.to_string().as_bytes());
        feed(&[0]);
    }
    format!("{hash:016x}-{len:x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_setup_key_changes_with_any_command() {
        let one = vec![("Page.enable", json!({})), ("Runtime.enable", json!({}))];
        let key = setup_key(&one);
        assert!(key.len() > 17, "{key}");
        assert_eq!(key, setup_key(&one.clone()));
        let mut other = one.clone();
        other[1].1 = json!({"x": 1});
        assert_ne!(key, setup_key(&other));
        assert_ne!(key, setup_key(&one[..1]));
    }
}
