//! Key names ("Enter", "Control+A", "ArrowDown") → CDP key events.

use serde_json::{json, Value};

/// One key press as CDP `Input.dispatchKeyEvent` parameters (without type).
#[derive(Debug, PartialEq)]
pub struct KeyPress {
    pub key: String,
    pub code: String,
    pub key_code: i64,
    /// Text the key inserts (none for named keys or with Ctrl/Alt/Meta).
    pub text: Option<String>,
    /// CDP modifier bits: Alt 1, Control 2, Meta 4, Shift 8.
    pub modifiers: i64,
    /// The modifiers held for the press, in the order they were named
    /// (each one's bit): pressed in this order, released in reverse.
    pub held: Vec<i64>,
}

/// The modifier keys: (bit, key, code, keyCode).
const MODIFIER_KEYS: [(i64, &str, &str, i64); 4] = [
    (1, "Alt", "AltLeft", 18),
    (2, "Control", "ControlLeft", 17),
    (4, "Meta", "MetaLeft", 91),
    (8, "Shift", "ShiftLeft", 16),
];

/// A modifier key's own event; `flags`: the modifiers held after it.
fn modifier_event(kind: &str, bit: i64, flags: i64) -> Value {
    let (_, key, code, key_code) = MODIFIER_KEYS
        .iter()
        .copied()
        .find(|m| m.0 == bit)
        .unwrap_or(MODIFIER_KEYS[1]);
    json!({
        "type": kind, "key": key, "code": code, "windowsVirtualKeyCode": key_code,
        "location": 1, "modifiers": flags,
    })
}

impl KeyPress {
    /// The events of this press as a keyboard sends them: each held
    /// modifier's keydown in order (its flag set from its own keydown on),
    /// the key's keydown and keyup, then the modifiers' keyups in reverse.
    /// `held_flags`: modifiers held down by earlier calls
    /// (`browser_keydown`), set on every event.
    pub fn events(&self, held_flags: i64) -> Vec<Value> {
        let mut out = Vec::new();
        let mut flags = held_flags;
        for &bit in &self.held {
            flags |= bit;
            out.push(modifier_event("rawKeyDown", bit, flags));
        }
        let (down, up) = (self.down_event(held_flags), self.up_event(held_flags));
        out.push(down);
        out.push(up);
        for &bit in self.held.iter().rev() {
            flags &= !bit;
            out.push(modifier_event("keyUp", bit, flags));
        }
        out
    }

    /// The key's keydown, with the modifiers in `held_flags` (keys held
    /// down by earlier calls) held too.
    pub fn down_event(&self, held_flags: i64) -> Value {
        let mods = self.modifiers | held_flags;
        // (Control, Alt or Meta held: the key types nothing.)
        let text = self.text.as_ref().filter(|_| mods & 7 == 0);
        let mut down = json!({
            "type": if text.is_some() { "keyDown" } else { "rawKeyDown" },
            "key": self.key, "code": self.code,
            "windowsVirtualKeyCode": self.key_code, "modifiers": mods,
        });
        if let Some(t) = text {
            down["text"] = json!(t);
            down["unmodifiedText"] = json!(t);
        }
        if let Some(bit) = self.modifier_bit() {
            // A modifier pressed on its own is one too (its flag is set).
            down["location"] = json!(1);
            down["modifiers"] = json!(mods | bit);
        }
        down
    }

    /// The key's keyup, with the modifiers in `held_flags` still held.
    pub fn up_event(&self, held_flags: i64) -> Value {
        let mut up = json!({
            "type": "keyUp", "key": self.key, "code": self.code,
            "windowsVirtualKeyCode": self.key_code, "modifiers": self.modifiers | held_flags,
        });
        if self.modifier_bit().is_some() {
            up["location"] = json!(1);
        }
        up
    }

    /// The key's own modifier bit, if it is a modifier key.
    pub fn modifier_bit(&self) -> Option<i64> {
        MODIFIER_KEYS.iter().find(|m| m.1 == self.key).map(|m| m.0)
    }
}

/// CDP modifier flags of the modifier keys among `keys` (key names).
pub fn modifier_flags(keys: &[String]) -> i64 {
    keys.iter()
        .filter_map(|k| parse(k).ok()?.modifier_bit())
        .fold(0, |a, b| a | b)
}

/// Named keys: (name, code, keyCode, text).
const NAMED: &[(&str, &str, i64, Option<&str>)] = &[
    ("Enter", "Enter", 13, Some("\r")),
    ("Tab", "Tab", 9, None),
    ("Escape", "Escape", 27, None),
    ("Backspace", "Backspace", 8, None),
    ("Delete", "Delete", 46, None),
    ("ArrowUp", "ArrowUp", 38, None),
    ("ArrowDown", "ArrowDown", 40, None),
    ("ArrowLeft", "ArrowLeft", 37, None),
    ("ArrowRight", "ArrowRight", 39, None),
    ("Home", "Home", 36, None),
    ("End", "End", 35, None),
    ("PageUp", "PageUp", 33, None),
    ("PageDown", "PageDown", 34, None),
    ("Insert", "Insert", 45, None),
    ("Shift", "ShiftLeft", 16, None),
    ("Control", "ControlLeft", 17, None),
    ("Alt", "AltLeft", 18, None),
    ("Meta", "MetaLeft", 91, None),
    (" ", "Space", 32, Some(" ")),
];

/// Keys that only scroll, move the caret or focus, edit, or close
/// something: pressing one follows no link and submits nothing (Enter,
/// Space and letters, which a page may bind to anything, are not here).
const PASSIVE: &[&str] = &[
    "ArrowDown",
    "ArrowUp",
    "ArrowLeft",
    "ArrowRight",
    "PageDown",
    "PageUp",
    "Home",
    "End",
    "Tab",
    "Escape",
    "Backspace",
    "Delete",
];

/// Whether pressing `spec` may activate something: follow a link, submit
/// a form, start a download (true when unsure).
pub fn activates(spec: &str) -> bool {
    match parse(spec) {
        Ok(k) => !PASSIVE.contains(&k.key.as_str()),
        Err(_) => true,
    }
}

/// Parses "Key" or "Mod+Mod+Key". Errors name what was not understood.
pub fn parse(spec: &str) -> Result<KeyPress, String> {
    let spec = spec.trim();
    if spec.is_empty() {
        return Err("empty key name".into());
    }
    // "+" alone (or as the last part, "Shift++") is the plus key.
    let (mods, key) = match spec.strip_suffix("++") {
        Some(m) => (m, "+"),
        None => match spec.rsplit_once('+') {
            Some((m, k)) if !k.is_empty() => (m, k),
            _ => ("", spec),
        },
    };
    let mut modifiers = 0;
    let mut held = Vec::new();
    for m in mods.split('+').filter(|m| !m.is_empty()) {
        let bit = match m.to_ascii_lowercase().as_str() {
            "alt" | "option" => 1,
            "control" | "ctrl" => 2,
            "meta" | "cmd" | "command" | "super" => 4,
            "shift" => 8,
            // The platform's shortcut modifier (the browser runs where
            // tabwire does): Meta on macOS, Control elsewhere.
            "controlormeta" | "mod" if cfg!(target_os = "macos") => 4,
            "controlormeta" | "mod" => 2,
            other => {
                return Err(format!(
                    "unknown modifier {other:?} (use Control, Shift, Alt, Meta or ControlOrMeta)"
                ))
            }
        };
        if modifiers & bit == 0 {
            held.push(bit);
        }
        modifiers |= bit;
    }
    let key = if key.eq_ignore_ascii_case("space") {
        " "
    } else {
        key
    };
    let blocks_text = modifiers & (1 | 2 | 4) != 0;
    if let Some(&(name, code, kc, text)) = NAMED.iter().find(|(n, ..)| n.eq_ignore_ascii_case(key))
    {
        return Ok(KeyPress {
            key: name.into(),
            code: code.into(),
            key_code: kc,
            text: text.filter(|_| !blocks_text).map(str::to_string),
            modifiers,
            held,
        });
    }
    if let Some(n) = key
        .strip_prefix(['F', 'f'])
        .and_then(|n| n.parse::<i64>().ok())
    {
        if (1..=12).contains(&n) {
            return Ok(KeyPress {
                key: format!("F{n}"),
                code: format!("F{n}"),
                key_code: 111 + n,
                text: None,
                modifiers,
                held,
            });
        }
    }
    let mut chars = key.chars();
    let (Some(c), None) = (chars.next(), chars.next()) else {
        return Err(format!(
            "unknown key {key:?}: use a single character, F1 to F12, or one of {}",
            NAMED
                .iter()
                .map(|n| if n.0 == " " { "Space" } else { n.0 })
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    let shifted = modifiers & 8 != 0;
    let (code, key_code) = if c.is_ascii_alphabetic() {
        (
            format!("Key{}", c.to_ascii_uppercase()),
            c.to_ascii_uppercase() as i64,
        )
    } else if c.is_ascii_digit() {
        (format!("Digit{c}"), c as i64)
    } else {
        (String::new(), 0)
    };
    let shown = if shifted && c.is_ascii_alphabetic() {
        c.to_ascii_uppercase()
    } else {
        c
    };
    Ok(KeyPress {
        key: shown.to_string(),
        code,
        key_code,
        text: (!blocks_text).then(|| shown.to_string()),
        modifiers,
        held,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_keys_that_follow_and_submit_nothing_are_passive() {
        for k in [
            "ArrowDown",
            "pagedown",
            "Shift+Tab",
            "Control+End",
            "Escape",
        ] {
            assert!(!activates(k), "{k}");
        }
        for k in ["Enter", "Space", " ", "a", "Control+Enter", "NoSuchKey"] {
            assert!(activates(k), "{k}");
        }
    }

    #[test]
    fn named_keys_and_modifiers() {
        let k = parse("Enter").unwrap();
        assert_eq!(
            (k.key.as_str(), k.key_code, k.text.as_deref()),
            ("Enter", 13, Some("\r"))
        );
        let k = parse("Control+a").unwrap();
        assert_eq!((k.code.as_str(), k.modifiers, k.text), ("KeyA", 2, None));
        let k = parse("Shift+Tab").unwrap();
        assert_eq!((k.key.as_str(), k.modifiers), ("Tab", 8));
        let k = parse("shift+x").unwrap();
        assert_eq!(k.text.as_deref(), Some("X"));
        assert_eq!(parse("F5").unwrap().key_code, 116);
        assert_eq!(parse("Control++").unwrap().key, "+");
        assert_eq!(parse("é").unwrap().text.as_deref(), Some("é"));
    }

    #[test]
    fn nonsense_is_explained() {
        assert!(parse("Hyper+a").unwrap_err().contains("unknown modifier"));
        assert!(parse("Enterr").unwrap_err().contains("unknown key"));
        assert!(parse("").is_err());
    }

    #[test]
    fn text_keys_send_keydown_with_text_and_named_keys_rawkeydown() {
        let ev = parse("a").unwrap().events(0);
        let [down, up] = [&ev[0], &ev[1]];
        assert_eq!(down["type"], "keyDown");
        assert_eq!(down["text"], "a");
        assert_eq!(up["type"], "keyUp");
        let ev = parse("ArrowDown").unwrap().events(0);
        let down = &ev[0];
        assert_eq!(down["type"], "rawKeyDown");
        assert!(down.get("text").is_none());
    }

    #[test]
    fn a_chord_presses_its_modifiers_in_order_and_releases_them_in_reverse() {
        let ev = parse("Control+Shift+y").unwrap().events(0);
        let seen: Vec<(String, String, i64)> = ev
            .iter()
            .map(|e| {
                (
                    e["type"].as_str().unwrap().to_string(),
                    e["key"].as_str().unwrap().to_string(),
                    e["modifiers"].as_i64().unwrap(),
                )
            })
            .collect();
        let want = [
            ("rawKeyDown", "Control", 2),
            ("rawKeyDown", "Shift", 10),
            ("rawKeyDown", "Y", 10),
            ("keyUp", "Y", 10),
            ("keyUp", "Shift", 2),
            ("keyUp", "Control", 0),
        ];
        assert_eq!(
            seen,
            want.map(|(t, k, m)| (t.to_string(), k.to_string(), m))
        );
        assert_eq!(ev[0]["code"], "ControlLeft");
        assert_eq!(ev[0]["location"], 1);
        assert_eq!(ev[2]["code"], "KeyY");
        // A modifier alone is a key, its own flag set while it is down.
        let shift = parse("Shift").unwrap().events(0);
        assert_eq!((shift.len(), shift[0]["modifiers"].as_i64()), (2, Some(8)));
        // Unknown keys list the names there are.
        let err = parse("Control+Hyperspace").unwrap_err();
        assert!(err.contains("ArrowDown") && err.contains("PageUp"), "{err}");
    }
}
