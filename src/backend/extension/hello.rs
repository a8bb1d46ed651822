//! The hello exchange with each extension: what this serve says (its id,
//! the domain rules, the MCP client's name) and who the browser answers it
//! is ([`Ident`]), remembered per browser ([`Known`]) across reconnects.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::link::Link;
use super::{ExtensionBackend, Inner};
use crate::protocol::{self, method};

/// Who is at the other end of a link, from the extension's hello answer.
#[derive(Debug, Clone)]
pub(super) struct Ident {
    /// Stable per browser profile (kept in the extension's storage).
    pub(super) browser_id: String,
    /// The browser's tabwire name ("Chromium (kfad)", or the user's own).
    pub(super) name: String,
    pub(super) version: String,
    /// The browser product, e.g. "Chromium 156.0.7000.0".
    pub(super) product: Option<String>,
    /// When the user marked it "Agents open new tabs here" (ms), if they did.
    pub(super) new_tabs_here: Option<u64>,
}

/// How long the tab list a hello answer carried may stand in for a
/// `tabs.list`: long enough for the first tool of a `tabwire call` (a few
/// milliseconds later) or of an MCP client that calls at once, short
/// enough that a list shown later is read afresh.
const HELLO_TABS_FRESH: Duration = Duration::from_millis(500);

/// The tab list of a hello answer (an extension that sends one), kept
/// for one use: the first tab lookup saves its own round trip. Any other
/// request, or a tab opening or closing, voids it.
#[derive(Debug, Default)]
pub(super) struct HelloTabs(Mutex<Option<(Instant, Value)>>);

impl HelloTabs {
    pub(super) fn keep(&self, tabs: Value, at: Instant) {
        *self.0.lock().expect("hello tabs lock") = Some((at, tabs));
    }

    pub(super) fn forget(&self) {
        self.0.lock().expect("hello tabs lock").take();
    }

    /// The list, once, if it is still fresh at `now`.
    pub(super) fn take(&self, now: Instant) -> Option<Value> {
        let (at, tabs) = self.0.lock().expect("hello tabs lock").take()?;
        (now.saturating_duration_since(at) <= HELLO_TABS_FRESH).then_some(tabs)
    }
}

/// What a serve remembers about a browser it has seen, connected or not.
#[derive(Debug, Clone)]
pub(super) struct Known {
    instance: String,
    pub(super) name: String,
}

impl ExtensionBackend {
    /// Records the MCP client's name and tells every connected extension,
    /// so the popup lists this client by name.
    pub(super) fn name_client(&self, name: &str) {
        let name = name.trim();
        if name.is_empty() {
            return;
        }
        {
            let mut current = self.inner.client_name.lock().expect("name lock");
            if current.as_deref() == Some(name) {
                return;
            }
            *current = Some(name.to_string());
        }
        for link in self.inner.live_links() {
            let inner = self.inner.clone();
            tokio::spawn(async move {
                if let Err(e) = inner
                    .request(&link, method::HELLO, inner.hello_params())
                    .await
                {
                    tracing::debug!(error = %e, "could not tell the extension our client name");
                }
            });
        }
    }
}

impl Inner {
    pub(super) fn hello_params(&self) -> Value {
        let mut params = json!({
            "v": protocol::PROTOCOL_VERSION,
            "server": self.opts.server_id,
            // The extension enforces the domain rules again (defense in depth).
            "policy": self.opts.policy,
            // How long the extension may wait for the user's answer about a
            // site: less than a call may take, so the answer still arrives.
            "consentTimeoutMs": self.opts.call_timeout.saturating_sub(Duration::from_secs(2)).max(Duration::from_secs(1)).as_millis() as u64,
        });
        if let Some(name) = self.client_name.lock().expect("name lock").clone() {
            params["client"] = json!(name);
        }
        params
    }

    /// Reads a hello answer: who the browser is. A new worker instance
    /// voids that browser's handles (its tab ownership is gone).
    pub(super) fn adopt_hello(&self, link: &Link, info: &Value) {
        let instance = info["instance"].as_str().unwrap_or("").to_string();
        // An extension from before browser names: one browser, one id.
        let browser_id = info["browserId"]
            .as_str()
            .filter(|s| !s.is_empty())
            .unwrap_or("default")
            .to_string();
        let product = info["browser"].as_str().map(str::to_string);
        let name = info["browserLabel"]
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .or_else(|| product.clone())
            .unwrap_or_else(|| "the browser".into());
        let ident = Ident {
            browser_id: browser_id.clone(),
            name: name.clone(),
            version: info["version"].as_str().unwrap_or("?").to_string(),
            product,
            new_tabs_here: info["newTabsHere"].as_u64(),
        };
        let previous = self.known.lock().expect("known lock").insert(
            browser_id.clone(),
            Known {
                instance: instance.clone(),
                name: name.clone(),
            },
        );
        if previous.is_some_and(|p| p.instance != instance) {
            tracing::info!(browser = %name, "the extension restarted: its earlier tab handles are void");
            self.handles.lock().expect("handles lock").void_browser(
                &browser_id,
                &format!(
                    "the browser \"{name}\" or its tabwire extension restarted, so this tab is no \
                     longer under tabwire's control (it stays open in the browser). Call \
                     browser_tabs with action \"list\" and pick a tab again, or open one"
                ),
            );
        }
        *link.ident.lock().expect("ident lock") = Some(ident);
        if info["tabs"].is_array() {
            link.hello_tabs.keep(info["tabs"].clone(), Instant::now());
        } else {
            link.hello_tabs.forget();
        }
        // Absent (an older extension) or null: not stopped.
        self.set_stop(
            &browser_id,
            &name,
            serde_json::from_value(info["stopped"].clone()).ok(),
        );
    }

    /// The user renamed the browser or marked it for new tabs.
    pub(super) fn adopt_browser_event(&self, link: &Link, params: &Value) {
        let mut guard = link.ident.lock().expect("ident lock");
        let Some(ident) = guard.as_mut() else {
            return;
        };
        if let Some(name) = params["browserLabel"]
            .as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            ident.name = name.to_string();
            if let Some(k) = self
                .known
                .lock()
                .expect("known lock")
                .get_mut(&ident.browser_id)
            {
                k.name = name.to_string();
            }
        }
        if params.get("newTabsHere").is_some() {
            ident.new_tabs_here = params["newTabsHere"].as_u64();
        }
    }
}

#[cfg(all(test, unix))]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::backend::extension::ExtensionOptions;

    /// `tabwire call` knows its name before any browser connects: the
    /// first hello carries it (no nameless hello, then a second one).
    #[tokio::test]
    async fn a_name_given_at_start_is_in_the_first_hello() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = crate::broker::dir::ensure_runtime_dir(&tmp.path().join("rt")).unwrap();
        let socket = Arc::new(crate::broker::listen(&dir).unwrap());
        let opts = |client_name: Option<&str>| ExtensionOptions {
            server_id: "call-default".into(),
            connect_timeout: Duration::from_secs(1),
            call_timeout: Duration::from_secs(5),
            max_frame: 1 << 20,
            policy: json!({}),
            audit: None,
            client_name: client_name.map(str::to_string),
        };
        let named = ExtensionBackend::start(socket.clone(), opts(Some("tabwire call (default)")));
        assert_eq!(
            named.inner.hello_params()["client"],
            "tabwire call (default)"
        );
        let unnamed = ExtensionBackend::start(socket, opts(None));
        assert!(unnamed.inner.hello_params().get("client").is_none());
    }

    #[test]
    fn a_hellos_tab_list_serves_once_and_only_while_fresh() {
        let t0 = Instant::now();
        let tabs = HelloTabs::default();
        tabs.keep(json!([{"tabId": 7}]), t0);
        assert_eq!(
            tabs.take(t0 + Duration::from_millis(3)),
            Some(json!([{"tabId": 7}]))
        );
        assert_eq!(tabs.take(t0 + Duration::from_millis(4)), None, "once");
        tabs.keep(json!([]), t0);
        assert_eq!(tabs.take(t0 + HELLO_TABS_FRESH * 2), None, "stale");
        tabs.keep(json!([]), t0);
        tabs.forget();
        assert_eq!(tabs.take(t0), None, "voided");
    }
}
