//! Requests over a link: each carries an id and waits (within the call
//! timeout) for the matching answer; the extension's error codes become
//! [`BackendError`]s.

use std::sync::atomic::Ordering;

use serde_json::value::RawValue;
use serde_json::{json, Value};
use tokio::sync::oneshot;

use super::link::Link;
use super::Inner;
use crate::backend::{BackendError, TabId};
use crate::protocol::{error_code, method, RemoteError, Request};

impl Inner {
    /// [`Self::request_raw`], parsed.
    pub(super) async fn request(
        &self,
        link: &Link,
        method: &str,
        params: Value,
    ) -> Result<Value, BackendError> {
        let raw = self.request_raw(link, method, params).await?;
        crate::backend::parse_result(method, &raw)
    }

    async fn request_raw(
        &self,
        link: &Link,
        method: &str,
        params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = oneshot::channel();
        link.pending.lock().expect("pending lock").insert(id, tx);
        if method == method::HELLO {
            link.hello_ids.lock().expect("hello lock").insert(id);
        } else {
            // Only the first request after hello may stand on its tab list:
            // any other may open or close a tab.
            link.hello_tabs.forget();
        }
        let body = serde_json::to_vec(&Request {
            id,
            method: method.into(),
            params,
        })
        .map_err(|e| BackendError::Other(format!("could not encode {method}: {e}")))?;
        if link.tx.send(body).await.is_err() {
            link.pending.lock().expect("pending lock").remove(&id);
            return Err(BackendError::NotConnected(
                "the native host connection closed; retry in a moment".into(),
            ));
        }
        let secs = self.opts.call_timeout.as_secs();
        let started = std::time::Instant::now();
        let answer = tokio::time::timeout(self.opts.call_timeout, rx).await;
        // Per-request timings, for profiling with RUST_LOG=tabwire::relay=debug.
        tracing::debug!(target: "tabwire::relay", method, ms = started.elapsed().as_secs_f64() * 1e3, "extension request");
        match answer {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(remote_to_backend(method, e)),
            Ok(Err(_)) => Err(BackendError::NotConnected(
                "the native host connection closed during the call; retry in a moment".into(),
            )),
            Err(_) => {
                link.pending.lock().expect("pending lock").remove(&id);
                Err(BackendError::Timeout {
                    what: method.into(),
                    secs,
                })
            }
        }
    }

    /// Sends a tab request to the browser the handle lives in, with
    /// Chrome's tab id in place of the handle.
    pub(super) async fn tab_request_raw(
        &self,
        handle: TabId,
        method: &str,
        mut params: Value,
    ) -> Result<Box<RawValue>, BackendError> {
        let (link, tab) = self.resolve(handle).await?;
        params["tabId"] = json!(tab);
        self.request_raw(&link, method, params).await
    }
}

fn remote_to_backend(method: &str, e: RemoteError) -> BackendError {
    match e.code.as_str() {
        "no_such_tab" => BackendError::NoSuchTab,
        "disconnected" => BackendError::NotConnected(e.message),
        // Chrome refused to attach to the tab: asking again will not help,
        // so this is final and says what to do.
        "debugger_busy" => BackendError::Refused(e.message),
        // The user's emergency stop: final until they resume.
        error_code::STOPPED_BY_USER => BackendError::StoppedByUser(e.message),
        // The user's answer about a site: final for this call.
        error_code::SITE_DENIED => BackendError::Refused(e.message),
        "cdp" => BackendError::Cdp {
            method: method.into(),
            message: e.message,
        },
        _ => BackendError::Other(e.message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::UserStop;

    fn remote(code: &str, message: &str) -> RemoteError {
        RemoteError {
            code: code.into(),
            message: message.into(),
        }
    }

    #[test]
    fn a_refused_attach_is_a_final_error_that_names_the_cause() {
        let why = "another debugger (DevTools or another extension) is attached to this tab and \
                   tabwire could not take it over (Another debugger is already attached to the \
                   tab with id: 7.). Close that debugger or use another tab";
        let e = remote_to_backend("cdp.send", remote("debugger_busy", why));
        assert!(matches!(e, BackendError::Refused(_)), "{e:?}");
        let text = e.to_string();
        assert!(
            text.contains("another debugger") && text.contains("another tab"),
            "{text}"
        );
    }

    #[test]
    fn the_users_stop_is_its_own_final_error() {
        let why = UserStop {
            scope: "all".into(),
            cause: UserStop::CANCELED_BY_USER.into(),
        }
        .message();
        let e = remote_to_backend("cdp.send", remote("stopped_by_user", &why));
        assert!(matches!(e, BackendError::StoppedByUser(_)), "{e:?}");
        assert!(e.to_string().contains("stopped by the user"), "{e}");
        assert!(e.to_string().contains("Resume"), "{e}");
    }

    #[test]
    fn a_tab_closed_during_a_call_is_no_such_tab() {
        let e = remote_to_backend("cdp.send", remote("no_such_tab", "tab 7 was closed"));
        assert!(matches!(e, BackendError::NoSuchTab), "{e:?}");
        assert!(e.to_string().contains("was closed"));
    }
}
