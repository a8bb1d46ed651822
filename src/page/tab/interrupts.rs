//! The web's everyday interruptions, handled the same way on both
//! backends:
//!
//! - **HTTP authentication.** Every tab intercepts its document requests
//!   (`Fetch.enable` with a `Document` pattern and `handleAuthRequests`;
//!   Chromium only raises `Fetch.authRequired` for requests it intercepts,
//!   and refuses `handleAuthRequests` without a pattern). Paused requests
//!   go on at once, let go by the backend itself where the event arrives
//!   (the extension's worker, the CDP reader), so a page load pays no trip
//!   through serve (`bench/nav-pause.py` measures what is left); a
//!   challenge is answered with the credentials the policy
//!   holds for the challenging host, and never for another host or a denied
//!   one. Without credentials (or when they are refused) it is cancelled
//!   and the tool's answer names the site and realm and says what to do.
//!   Passwords are never logged or echoed.
//! - **Pages that ask to confirm leaving** (`beforeunload`). A tool whose
//!   purpose is to leave the page (navigate, back, forward, reload, close)
//!   accepts the question and says the page asked; an action that only
//!   happens to leave (a click on a link) reports it like any dialog, for
//!   the agent to answer with `browser_handle_dialog`.
//! - **Failed navigations** are named: the network error (with what it
//!   usually means), or the HTTP status of an error page.

use std::collections::HashSet;

use serde_json::{json, Value};

use crate::page::tab::current::Tab;

/// Answers authentication challenges and leave questions; forgets a tab's
/// interruptions when its debugger lets go.
pub struct Feature;

impl super::feature::TabFeature for Feature {
    fn setup(&self, _: &mut super::calls::TabState) -> Vec<(&'static str, Value)> {
        // HTTP authentication challenges reach tabwire.
        vec![fetch_setup()]
    }

    fn intercept(&self, tab: &Tab, method: &str, params: &Value) -> bool {
        tab.intercept_interruption(method, params)
    }

    fn detached(&self, state: &mut super::calls::TabState) {
        *state.slot::<TabInterrupts>() = TabInterrupts::default();
    }
}

/// The pattern that pauses document requests (pages and frames), the only
/// ones whose authentication challenges tabwire answers.
pub(in crate::page) fn fetch_setup() -> (&'static str, Value) {
    (
        "Fetch.enable",
        json!({
            "patterns": [{"urlPattern": "*", "resourceType": "Document", "requestStage": "Request"}],
            "handleAuthRequests": true,
        }),
    )
}

/// What interrupted one tab's pages.
#[derive(Default)]
pub struct TabInterrupts {
    /// Sentences for the next answer about the tab, oldest first.
    notes: Vec<Note>,
    /// Requests credentials were given for (a second challenge means the
    /// server refused them).
    answered: HashSet<String>,
    /// Tools leaving the tab on purpose now: while any is, its
    /// `beforeunload` questions are accepted.
    leaving: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Note {
    /// One sentence, without "Note:" or a final period.
    pub text: String,
    /// The top document could not be had (an authentication challenge of
    /// the page itself): a navigation tool fails with this text.
    pub fatal: bool,
}

impl Tab {
    /// The notes recorded for `tab` since the last call, oldest first.
    pub fn take_notes(&self) -> Vec<Note> {
        std::mem::take(&mut self.tab_state().slot::<TabInterrupts>().notes)
    }

    fn note(&self, text: String, fatal: bool) {
        self.tab_state()
            .slot::<TabInterrupts>()
            .notes
            .push(Note { text, fatal });
    }

    /// Marks `tab` as being left on purpose until the guard drops.
    pub fn leaving(&self) -> Leaving {
        self.tab_state().slot::<TabInterrupts>().leaving += 1;
        Leaving { tab: self.clone() }
    }

    pub fn is_leaving(&self) -> bool {
        self.tab_state().slot::<TabInterrupts>().leaving > 0
    }
}

/// While alive, the tab's `beforeunload` questions are accepted.
pub struct Leaving {
    tab: Tab,
}

impl Drop for Leaving {
    fn drop(&mut self) {
        self.tab.if_tab_known(|t| {
            t.slot::<TabInterrupts>().leaving = t.slot::<TabInterrupts>().leaving.saturating_sub(1);
        });
    }
}

impl Tab {
    /// Handles an event that needs an answer from tabwire before the page can
    /// go on. True when the event is fully handled here (not to be recorded
    /// as page state).
    fn intercept_interruption(&self, method: &str, params: &Value) -> bool {
        match method {
            "Fetch.authRequired" => {
                self.on_auth_required(params);
                true
            }
            "Page.javascriptDialogOpening"
                if params["type"] == "beforeunload" && self.is_leaving() =>
            {
                self.note(
                    "the page asked to confirm leaving it (it may have had unsaved changes); \
                     tabwire left it, as the tool asked"
                        .into(),
                    false,
                );
                self.answer_in_background("Page.handleJavaScriptDialog", json!({"accept": true}));
                true
            }
            _ => false,
        }
    }

    /// Sends `method` in the background; failures are logged (the request or
    /// dialog may be gone already).
    fn answer_in_background(&self, method: &'static str, params: Value) {
        let s = self.client();
        let tab = self.id();
        let s = s.clone();
        tokio::spawn(async move {
            let started = std::time::Instant::now();
            let r = s.backend().cdp(tab, method, params).await;
            let ms = started.elapsed().as_secs_f64() * 1e3;
            match r {
                Ok(_) => tracing::debug!(target: "tabwire::interrupts", method, ms, "answered"),
                Err(e) => {
                    tracing::warn!(target: "tabwire::interrupts", method, ms, "could not answer: {e}")
                }
            }
        });
    }

    fn on_auth_required(&self, p: &Value) {
        let s = self.client();
        let id = p["requestId"].as_str().unwrap_or_default().to_string();
        let ch = &p["authChallenge"];
        let origin = ch["origin"].as_str().unwrap_or_default();
        let realm = ch["realm"].as_str().unwrap_or_default();
        let scheme = ch["scheme"].as_str().unwrap_or("HTTP");
        let top = p["resourceType"] == "Document"
            && self
                .known_main_frame()
                .is_none_or(|m| Some(m.as_str()) == p["frameId"].as_str());
        let what = format!(
            "{origin} asks for a user name and password ({scheme} authentication, realm \"{realm}\")"
        );
        let frame = if top { "" } else { " (in a frame of the page)" };
        let refuse = |text: String| {
            self.note(text, top);
            self.answer_in_background(
                "Fetch.continueWithAuth",
                json!({"requestId": id, "authChallengeResponse": {"response": "CancelAuth"}}),
            );
        };
        if ch["source"] == "Proxy" {
            return refuse(
                format!(
                    "the proxy {origin} asks for a user name and password; tabwire answers only \
                     sites' challenges. Ask the user to set up the proxy's credentials in the browser \
                     or system"
                ),
            );
        }
        let first_time = {
            let mut state = self.tab_state();
            let i = state.slot::<TabInterrupts>();
            if i.answered.len() >= 1000 {
                // Old requests are long over; only a fresh one can come back.
                i.answered.clear();
            }
            i.answered.insert(id.clone())
        };
        if !first_time {
            return refuse(format!(
                "{what}{frame}, and refused the credentials tabwire has for it (wrong or \
                     expired). Ask the user to check them (serve --credentials or `credentials` in \
                     the policy file); do not ask for a password in the chat"
            ));
        }
        match s.policy().credentials_for(origin) {
            Ok(c) => {
                tracing::info!(target: "tabwire::interrupts", origin, realm, user = %c.username, "answering an authentication challenge");
                self.answer_in_background(
                    "Fetch.continueWithAuth",
                    json!({"requestId": id, "authChallengeResponse": {
                        "response": "ProvideCredentials",
                        "username": c.username,
                        "password": c.password,
                    }}),
                );
            }
            Err(why) => {
                self.tab_state()
                    .slot::<TabInterrupts>()
                    .answered
                    .remove(&id);
                refuse(
                    format!(
                        "{what}{frame}, and tabwire did not answer: {why}. Ask the user to sign in \
                         themselves, or to give tabwire credentials for this host (serve \
                         --credentials HOST=USER:PASSWORD, or `credentials = [\"HOST=USER:PASSWORD\"]` \
                         in the policy file); do not ask for a password in the chat"
                    ),
                )
            }
        }
    }

    /// The HTTP status of the tab's current top document, when it is an
    /// error (400 and up): "HTTP 404 Not Found".
    pub(in crate::page) fn error_status(&self) -> Option<String> {
        let req = self.with_events(|e| e.network.current_page().into_iter().next())?;
        let status = req.status.filter(|&c| c >= 400 && req.top_document)?;
        Some(
            format!("HTTP {status} {}", req.status_text)
                .trim_end()
                .to_string(),
        )
    }

    /// Why the tab shows (or is about to show) the browser's own error page,
    /// if it does: the failed URL and the error (a network error, or the HTTP
    /// status of an empty error response).
    pub(in crate::page) fn failed_load(&self) -> Option<(String, String)> {
        let (unreachable, req) =
            self.with_events(|e| (e.unreachable(), e.network.current_page().into_iter().next()));
        let req = req.filter(|r| r.top_document);
        let error = |r: &super::network_log::Request| match (&r.failed, r.status) {
            (Some(f), _) if f != "net::ERR_HTTP_RESPONSE_CODE_FAILURE" => Some(f.clone()),
            (_, Some(code)) => Some(
                format!("HTTP {code} {}", r.status_text)
                    .trim_end()
                    .to_string(),
            ),
            (f, None) => f.clone(),
        };
        match unreachable {
            Some(url) => {
                let why = req
                    .as_ref()
                    .and_then(error)
                    .unwrap_or_else(|| "an error".into());
                Some((url, why))
            }
            // The error page may not have committed yet when the wait ended
            // (the request failed, loading stopped): the request tells.
            None => {
                let r = req?;
                let failed = r.failed.as_deref()?;
                if failed == "canceled" || failed == "net::ERR_ABORTED" {
                    return None;
                }
                Some((r.url.clone(), error(&r)?))
            }
        }
    }

    /// The line an action's answer adds when its navigation ended on the
    /// browser's error page.
    pub(in crate::page) fn failed_load_note(&self) -> Option<String> {
        let (url, error) = self.failed_load()?;
        Some(if error.starts_with("HTTP ") {
            format!("Note: {url} answered {error} with an empty page; the browser shows its own error page.")
        } else {
            format!(
                "Note: the navigation to {url} failed: {error} ({}). The tab shows the browser's error page.",
                explain_net_error(&error)
            )
        })
    }
}

/// What a network error usually means, for the model.
pub(in crate::page) fn explain_net_error(error: &str) -> &'static str {
    match error {
        "net::ERR_CONNECTION_REFUSED" => {
            "nothing accepts connections there: the server is down or the port is wrong"
        }
        "net::ERR_NAME_NOT_RESOLVED" => "the host name does not exist (DNS): check its spelling",
        "net::ERR_INTERNET_DISCONNECTED" | "net::ERR_NETWORK_CHANGED" => {
            "the browser has no network connection"
        }
        "net::ERR_CONNECTION_TIMED_OUT" | "net::ERR_TIMED_OUT" => {
            "the server did not answer in time"
        }
        "net::ERR_CONNECTION_RESET" | "net::ERR_CONNECTION_CLOSED" | "net::ERR_EMPTY_RESPONSE" => {
            "the server dropped the connection"
        }
        "net::ERR_TOO_MANY_REDIRECTS" => "the site redirects in a loop",
        "net::ERR_BLOCKED_BY_CLIENT" | "net::ERR_BLOCKED_BY_ADMINISTRATOR" => {
            "the browser blocked it (an extension or a policy)"
        }
        e if e.starts_with("net::ERR_CERT_") || e.starts_with("net::ERR_SSL_") => {
            "the site's secure connection is not trusted"
        }
        "net::ERR_UNSAFE_PORT" => "browsers refuse that port",
        "net::ERR_INVALID_AUTH_CREDENTIALS" => "the site wants a user name and password",
        _ => "the page could not be loaded",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_errors_are_explained() {
        assert!(explain_net_error("net::ERR_NAME_NOT_RESOLVED").contains("DNS"));
        assert!(explain_net_error("net::ERR_CERT_DATE_INVALID").contains("secure"));
        assert_eq!(
            explain_net_error("net::ERR_WHATEVER"),
            "the page could not be loaded"
        );
    }
}
