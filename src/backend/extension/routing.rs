//! Which live link a call goes to: the browsers connected right now, the
//! one new tabs open in, one the caller names, or a wait for the first.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::link::Link;
use super::Inner;
use crate::backend::BackendError;

impl Inner {
    pub(super) fn live_links(&self) -> Vec<Arc<Link>> {
        self.links
            .lock()
            .expect("links lock")
            .iter()
            .filter(|l| !l.closed.load(Ordering::SeqCst))
            .cloned()
            .collect()
    }

    /// The newest live link to browser `browser_id`.
    pub(super) fn link_of(&self, browser_id: &str) -> Option<Arc<Link>> {
        self.live_links()
            .into_iter()
            .rev()
            .find(|l| l.browser_id().as_deref() == Some(browser_id))
    }

    /// Where new tabs open: the browser the user marked "Agents open new
    /// tabs here" (the latest mark wins), else the one connected first; a
    /// browser where the user stopped this client only when all did.
    pub(super) fn default_link(&self) -> Option<Arc<Link>> {
        let links = self.live_links();
        let running: Vec<&Arc<Link>> = links
            .iter()
            .filter(|l| !l.browser_id().is_some_and(|b| self.stopped_in(&b)))
            .collect();
        let marked = running
            .iter()
            .filter_map(|l| Some((l.ident()?.new_tabs_here?, *l)))
            .max_by_key(|(since, _)| *since)
            .map(|(_, l)| l.clone());
        marked
            .or_else(|| running.first().map(|l| (*l).clone()))
            .or_else(|| links.first().cloned())
    }

    /// The live link whose browser is called `name` (its tabwire name,
    /// case aside, or a unique part of it).
    pub(super) fn link_named(&self, name: &str) -> Result<Arc<Link>, BackendError> {
        let links = self.live_links();
        let want = name.trim().to_lowercase();
        let named = |l: &&Arc<Link>| l.ident().map(|i| (i.name.to_lowercase(), i.browser_id));
        if let Some(l) = links
            .iter()
            .find(|l| named(l).is_some_and(|(n, id)| n == want || id == name))
        {
            return Ok(l.clone());
        }
        let partial: Vec<&Arc<Link>> = links
            .iter()
            .filter(|l| named(l).is_some_and(|(n, _)| !want.is_empty() && n.contains(&want)))
            .collect();
        if let [one] = partial.as_slice() {
            return Ok((*one).clone());
        }
        let names: Vec<String> = links.iter().map(|l| format!("\"{}\"", l.name())).collect();
        Err(BackendError::Other(format!(
            "no connected browser is named {name:?}; connected: {}. Pass one of these names as \
             `browser`, or leave it out",
            names.join(", ")
        )))
    }

    pub(super) async fn wait_for_link(&self) -> Result<Arc<Link>, BackendError> {
        let grace = self.grace();
        let deadline = tokio::time::Instant::now() + grace;
        loop {
            let notified = self.link_added.notified();
            if let Some(link) = self.live_links().into_iter().next() {
                return Ok(link);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Err(self.not_connected(grace));
            }
        }
    }

    pub(super) fn grace(&self) -> Duration {
        if self.gave_up_once.load(Ordering::SeqCst) {
            Duration::from_secs(1)
        } else {
            self.opts.connect_timeout
        }
    }

    pub(super) fn not_connected(&self, grace: Duration) -> BackendError {
        self.gave_up_once.store(true, Ordering::SeqCst);
        BackendError::NotConnected(format!(
            "the tabwire browser extension is not connected (waited {:.0} s). \
             Make sure Chrome is running with the tabwire extension loaded (see \
             chrome://extensions) and that `tabwire install` registered the native \
             host for that browser, then retry",
            grace.as_secs_f64()
        ))
    }
}
