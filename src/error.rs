//! The error every tool and the page layer return: a sentence for the model
//! that says what went wrong and what to do next. It sits below both
//! layers so the page code can return it without knowing about tools.

use crate::backend::BackendError;

/// A tool failure the model should read: what went wrong and what to do.
#[derive(Debug, Clone)]
pub struct ToolError(pub String);

impl std::fmt::Display for ToolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<BackendError> for ToolError {
    fn from(e: BackendError) -> Self {
        ToolError(e.to_string())
    }
}
