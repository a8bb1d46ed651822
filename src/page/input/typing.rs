//! Typing and pressing keys on what has focus: filling a field (selected
//! first, as a person replaces its text), typing key by key, one insertion,
//! key chords, and keys held down between calls. Aiming and the mouse are
//! in `input.rs`; what a keyboard sends for a chord, in `keys.rs`.

use serde_json::{json, Value};

use super::keys;
use super::pointer::Pointer;
use crate::error::ToolError;
use crate::page::tab::current::Tab;

impl Tab {
    /// Like [`Tab::fill_text`], but one key event per character (all in one
    /// message), so pages that listen to keydown/keyup see each key.
    pub async fn type_slowly(&self, target: &str, text: &str) -> Result<(), ToolError> {
        self.fill_text(target, "").await?;
        let mut events = Vec::new();
        for c in text.chars() {
            if c == '\n' {
                events.extend(
                    keys::parse("Enter")
                        .map_err(ToolError::other)?
                        .events(0)
                        .into_iter()
                        .map(|e| ("Input.dispatchKeyEvent", e)),
                );
                continue;
            }
            let ch = c.to_string();
            events.push((
                "Input.dispatchKeyEvent",
                json!({"type": "keyDown", "key": ch, "text": ch, "unmodifiedText": ch}),
            ));
            events.push((
                "Input.dispatchKeyEvent",
                json!({"type": "keyUp", "key": ch}),
            ));
        }
        if events.is_empty() {
            return Ok(());
        }
        self.cdp_batch(events).await.map(|_| ())
    }

    /// Focuses the element `target` names, selects its content and replaces
    /// it with `text` (the resolve and the focus in one message where it can
    /// be, [`Tab::call_at`]). An editor that takes typing through a hidden
    /// input (or an EditContext) has its text selected as a person does it,
    /// with the select-all key, since the input holds none of it.
    pub async fn fill_text(&self, target: &str, text: &str) -> Result<(), ToolError> {
        let ready = self.call_at(target, SELECT_FOR_TYPING, Value::Null).await?;
        if let Some(why) = ready["refused"].as_str() {
            let what = ready["what"].as_str().unwrap_or("element");
            return Err(ToolError::other(match why {
                "readonly" => format!(
                    "the {what} is read-only: nothing was typed. A read-only field or editor cannot \
                     take text; look in the snapshot for an editable one (or a button that makes it editable)"
                ),
                "disabled" => format!("the {what} is disabled: nothing was typed"),
                _ => format!(
                    "the {what} is not editable (not a text field, text area, editor or \
                     contenteditable): nothing was typed; check the snapshot for the right field"
                ),
            }));
        }
        if ready["selectAll"].as_str() == Some("keys") {
            self.press("ControlOrMeta+a").await?;
        }
        if text.is_empty() {
            self.press("Delete").await
        } else {
            // insertText handles any Unicode, unlike per-key events.
            self.cdp("Input.insertText", json!({"text": text}))
                .await
                .map(|_| ())
        }
    }

    /// Presses a key spec such as "Enter" or "Control+A".
    pub async fn press(&self, spec: &str) -> Result<(), ToolError> {
        self.press_times(spec, 1).await
    }

    /// Presses one key down and keeps it down (`browser_keydown`): a page
    /// sees its keydown, and a modifier's flag rides on later key presses
    /// until [`Tab::key_up`]. Returns the keys held now.
    pub async fn key_down(&self, spec: &str) -> Result<Vec<String>, ToolError> {
        let key = one_key(spec)?;
        let p = self.pointer();
        let mut down = key.down_event(p.held_flags());
        if p.keys.contains(&key.key) {
            // Held already: a keyboard repeats it.
            down["autoRepeat"] = json!(true);
        }
        self.cdp_batch(vec![("Input.dispatchKeyEvent", down)])
            .await?;
        let mut state = self.tab_state();
        if !state.slot::<Pointer>().keys.contains(&key.key) {
            state.slot::<Pointer>().keys.push(key.key.clone());
        }
        Ok(state.slot::<Pointer>().keys.clone())
    }

    /// Releases a key [`Tab::key_down`] held (`browser_keydown`'s pair).
    pub async fn key_up(&self, spec: &str) -> Result<Vec<String>, ToolError> {
        let key = one_key(spec)?;
        let p = self.pointer();
        if !p.keys.contains(&key.key) {
            return Err(ToolError::other(format!(
                "{} is not held down: nothing was sent. Keys held now: {}",
                key.key,
                if p.keys.is_empty() {
                    "none".to_string()
                } else {
                    p.keys.join(", ")
                }
            )));
        }
        let rest: Vec<String> = p.keys.iter().filter(|k| **k != key.key).cloned().collect();
        let up = key.up_event(keys::modifier_flags(&rest));
        self.cdp_batch(vec![("Input.dispatchKeyEvent", up)]).await?;
        self.tab_state().slot::<Pointer>().keys = rest.clone();
        Ok(rest)
    }

    /// Presses a key spec `times` times on what has focus, in one message.
    pub async fn press_times(&self, spec: &str, times: usize) -> Result<(), ToolError> {
        let key = keys::parse(spec).map_err(ToolError::other)?;
        // Modifiers held by browser_keydown ride on every event of the press.
        let held = self.pointer().held_flags();
        let events = (0..times)
            .flat_map(|_| key.events(held))
            .map(|ev| ("Input.dispatchKeyEvent", ev))
            .collect();
        self.cdp_batch(events).await.map(|_| ())
    }

    /// Types `text` where the focus is, as one insertion (what an IME or a
    /// paste does: no key events).
    pub async fn insert_text(&self, text: &str) -> Result<(), ToolError> {
        self.cdp("Input.insertText", json!({"text": text}))
            .await
            .map(|_| ())
    }
}

/// Focuses a field and selects what it holds; says why not when it
/// cannot take text (and what it is), or that the selection needs keys.
const SELECT_FOR_TYPING: &str = "function() {
  const T = globalThis.__tabwire;
  const role = T ? T.roleOf(this) : '';
  const what = (role && role !== 'generic' ? role : this.localName) + (this.id ? ' #' + this.id : '');
  const field = this.localName === 'input' || this.localName === 'textarea';
  if (T ? T.disabled(this) : this.disabled) return {refused: 'disabled', what};
  const proxy = !!(T && T.surfaceOf && T.surfaceOf(this));
  if ((field && this.readOnly) || this.getAttribute('aria-readonly') === 'true'
      || (!field && this.getAttribute('contenteditable') === 'false')) {
    return {refused: 'readonly', what: proxy ? 'editor' : what};
  }
  const context = !field && !this.isContentEditable && !!this.editContext;
  if (!field && !this.isContentEditable && !context) return {refused: 'not editable', what};
  this.focus();
  if (proxy || context) return {selectAll: 'keys'};
  if (typeof this.select === 'function') this.select();
  else { const r = document.createRange(); r.selectNodeContents(this);
         const sel = getSelection(); sel.removeAllRanges(); sel.addRange(r); }
  return {};
}";

/// One key (no chord): what `browser_keydown` and `browser_keyup` take.
fn one_key(spec: &str) -> Result<keys::KeyPress, ToolError> {
    let key = keys::parse(spec).map_err(ToolError::other)?;
    if !key.held.is_empty() {
        return Err(ToolError::other(format!(
            "{spec:?} is a chord: give one key per browser_keydown (hold Control, then press \
             or hold the next key), or use browser_press_key for a whole chord"
        )));
    }
    Ok(key)
}
