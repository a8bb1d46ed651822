//! Form fields beyond typing: choosing options in a `<select>`, what a
//! box's value given as text means, giving a file input its files, and
//! reading back what a field holds after an action (the page may have
//! changed what was typed or chosen).

use crate::text::cut_chars;
use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::reading::element::Element;
use crate::page::tab::current::Tab;

impl Tab {
    /// `function` on the element `target` names after an action (the same
    /// ref or selector), in one call; None when it is gone (the action
    /// replaced or removed it) or cannot be read.
    pub async fn value_again(&self, target: &str, function: &str) -> Option<Value> {
        self.value_at(target, function, Value::Null).await.ok()
    }

    /// A note when the field `target` no longer holds what was typed (the
    /// page formatted, cut or reset it); None when it does or cannot be read.
    pub async fn typed_back(&self, target: &str, typed: &str) -> Option<String> {
        let s = self.client();
        let norm = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        let mut now = self.value_again(target, VALUE_NOW).await?;
        // A password or a secret never leaves the page: its digest is compared.
        if now["secret"].as_bool() == Some(true) {
            let same = now["digest"].as_u64() == Some(u64::from(digest(typed)));
            return (!same).then(|| {
                " (but the field does not hold what was typed: the page changed it)".to_string()
            });
        }
        if norm(now["value"].as_str()?) != norm(typed) {
            // An editor draws what was typed in a later frame (Ace does):
            // look once more before saying the page changed it.
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            now = self.value_again(target, VALUE_NOW).await?;
        }
        let value = now["value"].as_str()?;
        if norm(value) == norm(typed) {
            return None;
        }
        Some(format!(
            " (but the field now holds {}: the page changed what was typed)",
            s.fence().quote(&format!("{:?}", cut_chars(value, 200)))
        ))
    }

    /// Chooses `values` (by value or label) in the <select> `target` names;
    /// the labels chosen.
    pub async fn select_options(
        &self,
        target: &str,
        values: &[String],
    ) -> Result<Vec<String>, ToolError> {
        let s = self.client();
        let r = self.call_at(target, SELECT_OPTIONS, json!(values)).await?;
        if let Some(err) = r["error"].as_str() {
            return Err(ToolError::other(err.to_string()));
        }
        if let Some(missing) = r["missing"].as_str() {
            // The options' labels are the page's words.
            return Err(ToolError::other(format!(
                "no option {missing:?}; available: {}",
                s.fence().quote(r["available"].as_str().unwrap_or(""))
            )));
        }
        Ok(r["selected"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect())
    }

    /// Gives the `<input type=file>` `el` these files (absolute paths of
    /// existing files: a relative one crashes the renderer).
    pub async fn set_input_files(
        &self,
        el: &Element,
        files: &[std::path::PathBuf],
    ) -> Result<(), ToolError> {
        self.cdp(
            "DOM.setFileInputFiles",
            el.dom_params(json!({"files": files})),
        )
        .await
        .map(|_| ())
    }
}

/// What a field holds now, as a person sees it (an editor's drawn text
/// for its hidden input); for a password or a field holding a named
/// secret, only `secret` and a `digest` of the value (never echoed).
const VALUE_NOW: &str = "function() {
  const T = globalThis.__tabwire;
  const v = T && T.fieldValue ? T.fieldValue(this)
    : ('value' in this && typeof this.value === 'string') ? this.value : (this.innerText || '');
  const raw = 'value' in this && typeof this.value === 'string' ? this.value : (this.innerText || '');
  if (this.type === 'password' || v.startsWith('<secret ')) {
    let h = 0x811c9dc5;
    for (let i = 0; i < raw.length; i++) h = Math.imul(h ^ raw.charCodeAt(i), 0x01000193) >>> 0;
    return {value: '', secret: true, digest: h};
  }
  return {value: v, secret: false};
}";

/// FNV-1a (32 bits) over UTF-16 code units, as VALUE_NOW computes it in
/// the page: a typed password is compared without its value crossing.
fn digest(text: &str) -> u32 {
    text.encode_utf16().fold(0x811c_9dc5u32, |h, u| {
        (h ^ u32::from(u)).wrapping_mul(0x0100_0193)
    })
}

/// The labels of the options a <select> has selected now.
pub const SELECTED_NOW: &str = "function() {
  return this.options ? [...this.selectedOptions].map(o => o.label) : null;
}";

/// What a box's value given as text means: checked (`true`, `on`, `yes`,
/// `1`, `checked`, any case), unchecked (`false`, `off`, `no`, `0`,
/// `unchecked`), or neither.
pub fn checked_from(value: &str) -> Option<bool> {
    match value.to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" | "checked" => Some(true),
        "false" | "off" | "no" | "0" | "unchecked" => Some(false),
        _ => None,
    }
}

const SELECT_OPTIONS: &str = "function(wanted) {
  if (this.localName !== 'select') return {error: 'the element is not a <select>; use browser_click for custom drop-downs'};
  if (this.matches(':disabled') || this.closest('[inert]')) return {error: 'the <select> is disabled: nothing was chosen'};
  const opts = [...this.options];
  const picked = [];
  for (const w of wanted) {
    const o = opts.find(o => o.value === w) || opts.find(o => o.label.trim() === w.trim());
    if (!o) return {missing: w, available: opts.map(o => JSON.stringify(o.label)).join(', ')};
    picked.push(o);
  }
  if (!this.multiple && picked.length > 1) return {error: 'this <select> allows only one option'};
  this.focus();
  for (const o of opts) o.selected = picked.includes(o);
  this.dispatchEvent(new Event('input', {bubbles: true}));
  this.dispatchEvent(new Event('change', {bubbles: true}));
  return {selected: picked.map(o => o.label)};
}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_fnv1a_over_utf16_as_the_page_computes_it() {
        assert_eq!(digest("a"), 0xe40c_292c);
        assert_eq!(digest(""), 0x811c_9dc5);
    }

    #[test]
    fn a_boxs_value_reads_as_checked_unchecked_or_neither() {
        for yes in ["true", "On", "YES", "1", "checked"] {
            assert_eq!(checked_from(yes), Some(true), "{yes}");
        }
        for no in ["false", "off", "No", "0", "Unchecked"] {
            assert_eq!(checked_from(no), Some(false), "{no}");
        }
        assert_eq!(checked_from("maybe"), None);
        assert_eq!(
            checked_from(" true"),
            None,
            "callers trim where they mean to"
        );
    }
}
