//! The error every tool and the page layer return: a sentence for the model
//! that says what went wrong and what to do next, and its kind, which is
//! what code decides on (whether to look again, whether a wait is worth
//! retrying). No code reads the sentence: rewording it changes no
//! behaviour. It sits below both layers so the page code can return it
//! without knowing about tools.

use crate::backend::BackendError;

/// What went wrong, as far as code decides on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// No element matches the target (the engine said so).
    NotFound,
    /// The document the call ran in went away (a navigation): asking the
    /// new document may work.
    ContextGone,
    /// The tab was closed.
    TabClosed,
    /// A JavaScript dialog blocks the page until it is handled.
    Dialog,
    /// The page's renderer crashed; only a navigation revives it.
    Crashed,
    /// The browser or the user refused for this call (another debugger is
    /// attached, the user denied the site): asking again will not help.
    Refused,
    /// The user stopped browser control.
    StoppedByUser,
    /// The browser did not answer in time (a dialog or a busy tab).
    Timeout,
    /// A ref from an older snapshot, or from none: take a new snapshot.
    StaleRef,
    /// The target is disabled: nothing was done.
    Disabled,
    /// The target cannot be reached by a person's pointer (not rendered,
    /// no box, outside the visible area).
    NotReachable,
    /// The call's arguments do not fit the tool's schema or its limits.
    BadArguments,
    /// No such tool is offered to this client.
    UnknownTool,
    /// The policy refuses it (a domain, a read-only server, a group that
    /// is off).
    PolicyRefused,
    /// No browser is connected (the extension is gone, the launch failed).
    BackendGone,
    /// The client cancelled the call.
    Cancelled,
    /// A tool the page declares failed (it threw, or answered an error):
    /// the sentence carries the page's message.
    PageToolFailed,
    /// Anything else: the sentence says what.
    Other,
}

impl ErrorKind {
    /// The kind's stable name, for programs (the `tabwire/errorKind` of an
    /// error result's `_meta`).
    pub fn code(self) -> &'static str {
        match self {
            ErrorKind::NotFound => "not_found",
            ErrorKind::ContextGone => "context_gone",
            ErrorKind::TabClosed => "tab_closed",
            ErrorKind::Dialog => "dialog",
            ErrorKind::Crashed => "crashed",
            ErrorKind::Refused => "refused",
            ErrorKind::StoppedByUser => "stopped_by_user",
            ErrorKind::Timeout => "timeout",
            ErrorKind::StaleRef => "stale_ref",
            ErrorKind::Disabled => "disabled",
            ErrorKind::NotReachable => "not_reachable",
            ErrorKind::BadArguments => "bad_arguments",
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::PolicyRefused => "policy_refused",
            ErrorKind::BackendGone => "backend_gone",
            ErrorKind::Cancelled => "cancelled",
            ErrorKind::PageToolFailed => "page_tool_failed",
            ErrorKind::Other => "other",
        }
    }
}

/// A tool failure the model should read: what went wrong and what to do.
#[derive(Debug, Clone)]
pub struct ToolError {
    kind: ErrorKind,
    text: String,
}

impl ToolError {
    pub fn new(kind: ErrorKind, text: String) -> Self {
        Self { kind, text }
    }

    /// An error no code decides on: only its sentence matters.
    pub fn other(text: String) -> Self {
        Self::new(ErrorKind::Other, text)
    }

    pub fn kind(&self) -> ErrorKind {
        self.kind
    }

    /// The sentence for the model.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The same kind of error, told in another sentence.
    pub fn retold(self, text: String) -> Self {
        Self::new(self.kind, text)
    }
}

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl From<BackendError> for ToolError {
    fn from(e: BackendError) -> Self {
        let kind = match &e {
            BackendError::NoSuchTab => ErrorKind::TabClosed,
            BackendError::StoppedByUser(_) => ErrorKind::StoppedByUser,
            BackendError::Refused(_) => ErrorKind::Refused,
            BackendError::Timeout { .. } => ErrorKind::Timeout,
            BackendError::NotConnected(_) | BackendError::Stale(_) => ErrorKind::BackendGone,
            // The protocol's own words for an execution context that is
            // gone (the one place its message is read: CDP has no code
            // for it).
            BackendError::Cdp { message, .. }
                if message.contains("Cannot find context")
                    || message.contains("context with specified id") =>
            {
                ErrorKind::ContextGone
            }
            _ => ErrorKind::Other,
        };
        ToolError::new(kind, e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backend_failures_keep_their_kind() {
        let gone: ToolError = BackendError::Cdp {
            method: "Runtime.evaluate".into(),
            message: "Cannot find context with specified id".into(),
        }
        .into();
        assert_eq!(gone.kind(), ErrorKind::ContextGone);
        assert_eq!(
            ToolError::from(BackendError::NoSuchTab).kind(),
            ErrorKind::TabClosed
        );
        let busy = ToolError::from(BackendError::Refused("another debugger".into()));
        assert_eq!(busy.kind(), ErrorKind::Refused);
        assert_eq!(busy.text(), "another debugger");
        // A new sentence keeps the kind.
        assert_eq!(busy.retold("x".into()).kind(), ErrorKind::Refused);
    }
}
