//! This serve's tab handles over several browsers: [`Handles`] maps each
//! handle to a browser and Chrome's tab id there, and a call on a handle
//! finds that browser's link (waiting a moment for one that is away).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::link::Link;
use super::Inner;
use crate::backend::{BackendError, TabId, TabInfo};

/// How long a call on a tab waits for that tab's browser to come back (a
/// restarted native host) while other browsers are connected, before the
/// handle is reported stale.
const AWAY_GRACE: Duration = Duration::from_secs(2);

/// Void handles remembered (with why), for the error a stale one gets;
/// an older one gets the plain "not one of this client's tabs".
const VOID_KEPT: usize = 1024;

/// This serve's tab handles: each names a browser and Chrome's tab id
/// there. Handles are never reused, so a void one cannot reach another tab.
#[derive(Debug, Default)]
pub(super) struct Handles {
    last: TabId,
    of: HashMap<TabId, (String, i64)>,
    by_tab: HashMap<(String, i64), TabId>,
    /// Handles that no longer work, and why.
    pub(super) void: HashMap<TabId, String>,
}

impl Handles {
    /// The handle of tab `tab` in browser `browser`, made on first sight.
    pub(super) fn intern(&mut self, browser: &str, tab: i64) -> TabId {
        let key = (browser.to_string(), tab);
        if let Some(h) = self.by_tab.get(&key) {
            return *h;
        }
        self.last += 1;
        let h = self.last;
        self.of.insert(h, key.clone());
        self.by_tab.insert(key, h);
        h
    }

    /// Voids every handle of `browser` (its extension restarted and no
    /// longer knows which tabs were this client's).
    pub(super) fn void_browser(&mut self, browser: &str, why: &str) {
        let gone: Vec<TabId> = self
            .of
            .iter()
            .filter(|(_, (b, _))| b == browser)
            .map(|(h, _)| *h)
            .collect();
        for h in gone {
            if let Some(key) = self.of.remove(&h) {
                self.by_tab.remove(&key);
            }
            self.void.insert(h, why.to_string());
        }
        // Handles only grow: the oldest void ones go first, so a browser
        // restarting all day keeps this list bounded.
        while self.void.len() > VOID_KEPT {
            let Some(oldest) = self.void.keys().copied().min() else {
                break;
            };
            self.void.remove(&oldest);
        }
    }
}

impl Inner {
    /// A tab as the extension described it, with this serve's handle.
    pub(super) fn to_handle(&self, link: &Link, mut t: TabInfo) -> Option<TabInfo> {
        let ident = link.ident()?;
        t.tab_id = self
            .handles
            .lock()
            .expect("handles lock")
            .intern(&ident.browser_id, t.tab_id);
        t.browser = Some(ident.name);
        Some(t)
    }

    /// The link and Chrome's tab id behind a handle. A handle whose browser
    /// is away is waited for a moment (a native host restarting), then
    /// reported stale while other browsers carry on.
    pub(super) async fn resolve(&self, handle: TabId) -> Result<(Arc<Link>, i64), BackendError> {
        let alone = self.live_links().is_empty();
        let grace = if alone { self.grace() } else { AWAY_GRACE };
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.link_added.notified();
            let (browser, tab) = {
                let h = self.handles.lock().expect("handles lock");
                if let Some(why) = h.void.get(&handle) {
                    return Err(BackendError::Stale(why.clone()));
                }
                match h.of.get(&handle) {
                    Some(k) => k.clone(),
                    None => {
                        return Err(BackendError::Stale(format!(
                            "tab handle {handle} is not one of this client's tabs. Call \
                             browser_tabs with action \"list\" and pick a tab again"
                        )))
                    }
                }
            };
            if let Some(link) = self.link_of(&browser) {
                return Ok((link, tab));
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                if self.live_links().is_empty() {
                    return Err(self.not_connected(grace));
                }
                let name = self
                    .known
                    .lock()
                    .expect("known lock")
                    .get(&browser)
                    .map_or_else(|| "its browser".to_string(), |k| format!("\"{}\"", k.name));
                return Err(BackendError::Stale(format!(
                    "that tab is in {name}, which is no longer connected (the browser quit, or its \
                     tabwire extension stopped); your tabs in other browsers still work. Call \
                     browser_tabs with action \"list\" and pick a tab again"
                )));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_tab_ids_of_two_browsers_get_distinct_handles_and_a_restart_voids_only_its_own() {
        let mut h = Handles::default();
        let a7 = h.intern("browser-a", 7);
        let b7 = h.intern("browser-b", 7);
        assert_ne!(a7, b7);
        assert_eq!(h.intern("browser-a", 7), a7, "a tab keeps its handle");
        assert_eq!(h.of[&b7], ("browser-b".to_string(), 7));
        h.void_browser("browser-b", "restarted");
        assert_eq!(h.void.get(&b7).map(String::as_str), Some("restarted"));
        assert!(!h.void.contains_key(&a7));
        // Restart after restart: the void list stays bounded, newest kept.
        for round in 0..1500 {
            h.intern("browser-b", round);
            h.void_browser("browser-b", "restarted");
        }
        assert_eq!(h.void.len(), VOID_KEPT);
        assert!(h.void.contains_key(&h.last));
        assert_eq!(h.of[&a7], ("browser-a".to_string(), 7));
        // The same tab id seen again after the restart is a new handle.
        let b7_again = h.intern("browser-b", 7);
        assert!(b7_again != b7 && b7_again != a7);
    }
}
