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
    /// Anything else: the sentence says what.
    Other,
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
