//! Typing a named secret (`serve --secrets`, see `crate::secrets`): the
//! model passes a secret's exact name where it would pass text; the value
//! is typed only into a frame of an origin the secret is bound to, and the
//! field is marked so that every read of it says `<secret NAME>`.

use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// The origin of the document the field `target` is in (the frame that
/// receives the text, not only the tab's URL).
const FIELD_ORIGIN: &str = "function() { return this.ownerDocument.location.origin; }";

/// Tells the engine that the field holds a secret while its value is
/// this one (see the engine's `markSecret`).
const MARK: &str = "function(a) { const T = globalThis.__tabwire; if (T && T.markSecret) T.markSecret(this, a.name, a.value); }";

impl Tab {
    /// What to type for `text` into `target`: `text` itself, or the value of
    /// the secret it names (with its name) once the field's origin is one the
    /// secret may be typed on. A refusal names the secret, never its value.
    pub async fn secret_text_for(
        &self,
        target: &str,
        text: &str,
    ) -> Result<(String, Option<String>), ToolError> {
        let s = self.client();
        let secrets = s.policy().secrets.clone();
        let Some(secret) = secrets.named(text) else {
            return Ok((text.to_string(), None));
        };
        let origin = self.call_at(target, FIELD_ORIGIN, Value::Null).await?;
        secret
            .check_origin(origin.as_str().unwrap_or("(an unknown origin)"))
            .map_err(ToolError::other)?;
        Ok((secret.value().to_string(), Some(secret.name.clone())))
    }

    /// Marks `target` as holding the secret `name` (typed as `value`).
    pub async fn mark_secret(&self, target: &str, name: &str, value: &str) {
        let _ = self
            .call_at(target, MARK, json!({"name": name, "value": value}))
            .await;
    }
}
