//! This serve's state for `tabwire doctor` and `browser_status`: the
//! connected browsers, and one browser in words.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use serde_json::json;

use super::Inner;
use crate::protocol::{self, method, BrowserInfo, ExtensionInfo, ServeStatus};

impl Inner {
    /// One line per connected browser: its name, extension, this client's
    /// tabs there, the user's marks.
    pub(super) async fn browsers(&self) -> Vec<BrowserInfo> {
        let links = self.live_links();
        let default = self.default_link();
        let mut out = Vec::new();
        for link in links {
            let Some(ident) = link.ident() else { continue };
            let tabs = tokio::time::timeout(
                Duration::from_secs(2),
                self.request(&link, method::TABS_LIST, json!({})),
            )
            .await
            .ok()
            .and_then(Result::ok)
            .and_then(|v| v["tabs"].as_array().map(Vec::len));
            out.push(BrowserInfo {
                name: ident.name.clone(),
                version: ident.version.clone(),
                browser: ident.product.clone(),
                host_pid: link.host_pid,
                tabs,
                new_tabs_here: default.as_ref().is_some_and(|d| Arc::ptr_eq(d, &link)),
                stopped: self.stopped_in(&ident.browser_id),
            });
        }
        out
    }

    pub(super) async fn serve_status(&self) -> ServeStatus {
        let browsers = self.browsers().await;
        let extension = browsers.first().map(|b| ExtensionInfo {
            version: b.version.clone(),
            browser: b.browser.clone(),
            host_pid: b.host_pid,
        });
        ServeStatus {
            kind: ServeStatus::KIND.into(),
            v: protocol::PROTOCOL_VERSION,
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").into(),
            client: self.client_name.lock().expect("name lock").clone(),
            hosts: self.hosts.load(Ordering::SeqCst),
            extension,
            browsers,
        }
    }
}

/// One connected browser in words, for `browser_status` and doctor:
/// `"Work Chrome" (Chromium 156, extension 0.1.0): 2 tabs of yours, new tabs open here`.
pub fn describe_browser(b: &BrowserInfo) -> String {
    let mut s = format!(
        "\"{}\" ({}, extension {}): ",
        b.name,
        b.browser.as_deref().unwrap_or("an unknown browser"),
        b.version
    );
    match b.tabs {
        Some(1) => s.push_str("1 tab"),
        Some(n) => s.push_str(&format!("{n} tabs")),
        None => s.push_str("tabs unknown"),
    }
    if b.new_tabs_here {
        s.push_str(", new tabs open here");
    }
    if b.stopped {
        s.push_str(", STOPPED by the user here");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_browser_is_described_with_its_name_tabs_and_marks() {
        let b = BrowserInfo {
            name: "Work Chrome".into(),
            version: "0.1.0".into(),
            browser: Some("Chromium 156".into()),
            host_pid: 9,
            tabs: Some(2),
            new_tabs_here: true,
            stopped: true,
        };
        assert_eq!(
            describe_browser(&b),
            "\"Work Chrome\" (Chromium 156, extension 0.1.0): 2 tabs, new tabs open here, \
             STOPPED by the user here"
        );
    }
}
