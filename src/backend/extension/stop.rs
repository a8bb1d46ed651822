//! The user's stop of this client, browser by browser: recorded in the
//! audit log, and ending the calls in flight once every connected browser
//! has stopped it.

use super::Inner;
use crate::protocol::UserStop;

impl Inner {
    /// Takes an extension's word on this client's stop in its browser; a
    /// change is recorded in the audit log, and once every connected
    /// browser has stopped this client the tool calls in flight end.
    pub(super) fn set_stop(&self, browser_id: &str, name: &str, now: Option<UserStop>) {
        let before = {
            let mut stops = self.stops.lock().expect("stop lock");
            if stops.get(browser_id) == now.as_ref() {
                return;
            }
            match &now {
                Some(s) => stops.insert(browser_id.to_string(), s.clone()),
                None => stops.remove(browser_id),
            }
        };
        let client = self
            .client_name
            .lock()
            .expect("name lock")
            .clone()
            .unwrap_or_else(|| "an unnamed MCP client".into());
        match &now {
            Some(s) => {
                tracing::warn!(browser = %name, scope = %s.scope, cause = %s.cause, "the user stopped browser control")
            }
            None => tracing::info!(browser = %name, "the user resumed browser control"),
        }
        if let Some(audit) = &self.opts.audit {
            let (event, stop) = match (&now, &before) {
                (Some(s), _) => ("stopped_by_user", s),
                (None, Some(s)) => ("resumed_by_user", s),
                (None, None) => return self.recompute_stop(),
            };
            audit.record_event(&client, event, &stop.scope, &stop.cause);
        }
        self.recompute_stop();
    }

    /// The stop calls see: set when every connected browser (or, with none
    /// connected, every browser seen) has stopped this client.
    pub(super) fn recompute_stop(&self) {
        let mut ids: Vec<String> = self
            .live_links()
            .iter()
            .filter_map(|l| l.browser_id())
            .collect();
        if ids.is_empty() {
            ids = self
                .known
                .lock()
                .expect("known lock")
                .keys()
                .cloned()
                .collect();
        }
        let stops = self.stops.lock().expect("stop lock");
        let text = if !ids.is_empty() && ids.iter().all(|b| stops.contains_key(b)) {
            stops.get(&ids[0]).map(UserStop::message)
        } else {
            None
        };
        drop(stops);
        self.stop_text.send_if_modified(|cur| {
            if *cur == text {
                false
            } else {
                *cur = text;
                true
            }
        });
    }

    pub(super) fn stopped_in(&self, browser_id: &str) -> bool {
        self.stops
            .lock()
            .expect("stop lock")
            .contains_key(browser_id)
    }
}
