//! Checks a test would make (the `testing` group): text a person can see,
//! an element of a role and name a person can see, a control's value.
//! "Can see" is the snapshot engine's judgement (rendered, not
//! transparent, not off every scrollable area, not covered), not DOM
//! presence. A check that holds is recorded for the exported test.

use serde::Deserialize;
use serde_json::json;

use super::recording::Step;
use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// What a check found: `Ok(sentence)` when it holds, `Err` (a
/// [`ToolError`] starting with "FAIL") when it does not.
pub type Verdict = Result<String, ToolError>;

#[derive(Debug, Default, Deserialize)]
struct TextFound {
    #[serde(default)]
    found: bool,
    /// In the page's text, but not where a person can see it.
    #[serde(default)]
    present: bool,
    /// Visible with other upper/lower case.
    #[serde(default)]
    other_case: bool,
}

#[derive(Debug, Default, Deserialize)]
struct RoleFound {
    #[serde(default)]
    found: bool,
    /// Elements of the role and name a person cannot see.
    #[serde(default)]
    hidden: u32,
    /// Names of visible elements of the role.
    #[serde(default)]
    others: Vec<String>,
}

impl Tab {
    /// The top document and the frames the latest snapshot reached.
    fn verify_frames(&self) -> Vec<u32> {
        let mut all = vec![0];
        all.extend(self.frame_numbers());
        all
    }

    async fn verify_read<T: for<'de> Deserialize<'de> + Default>(
        &self,
        frame: u32,
        reader: &str,
        arg: serde_json::Value,
    ) -> Result<T, ToolError> {
        let v = self
            .engine_value::<serde_json::Value>(frame, "read", &format!("{reader}, {arg}, null"))
            .await?
            .unwrap_or_default();
        Ok(serde_json::from_value(v["value"].clone()).unwrap_or_default())
    }

    /// Whether `text` (spaces normalised; case counts) is in what a person
    /// can see of the page.
    pub async fn verify_text_visible(&self, text: &str) -> Verdict {
        let want = normalise(text);
        if want.is_empty() {
            return Err(ToolError::other("give the `text` to look for".into()));
        }
        let (mut present, mut other_case) = (false, false);
        for frame in self.verify_frames() {
            let Ok(f) = self
                .verify_read::<TextFound>(frame, TEXT_READER, json!(want))
                .await
            else {
                continue;
            };
            if f.found {
                self.record_check(frame, Step::ExpectText(want.clone()));
                return Ok(format!("PASS: the text {want:?} is visible on the page."));
            }
            present |= f.present;
            other_case |= f.other_case;
        }
        let why = if present {
            " It is in the page's markup, but a person cannot see it there (hidden, transparent, \
             covered, or outside what scrolling reaches)."
        } else if other_case {
            " It is visible with other upper/lower case: check the exact spelling (browser_find \
             shows it)."
        } else {
            " Nothing on the page holds it. If the page is still updating, browser_wait_for it \
             first; else take browser_snapshot to see what is there."
        };
        Err(ToolError::other(format!(
            "FAIL: the text {want:?} is not visible on the page.{why}"
        )))
    }

    /// Whether an element of `role` whose accessible name is `name` (spaces
    /// normalised, exact) is visible.
    pub async fn verify_element_visible(&self, role: &str, name: &str) -> Verdict {
        let s = self.client();
        let role = role.trim().to_ascii_lowercase();
        let role = if role == "image" { "img".into() } else { role };
        let name = normalise(name);
        let (mut hidden, mut others) = (0, Vec::new());
        for frame in self.verify_frames() {
            let arg = json!({"role": role, "name": name});
            let Ok(f) = self.verify_read::<RoleFound>(frame, ROLE_READER, arg).await else {
                continue;
            };
            if f.found {
                self.record_check(
                    frame,
                    Step::ExpectRole {
                        role: role.clone(),
                        name: name.clone(),
                    },
                );
                return Ok(format!("PASS: {role} {name:?} is visible on the page."));
            }
            hidden += f.hidden;
            others.extend(f.others);
        }
        let mut why = String::new();
        if hidden > 0 {
            why.push_str(&format!(
                " {hidden} {role} named so exist but a person cannot see them (hidden, transparent, \
                 covered, or outside what scrolling reaches)."
            ));
        }
        if others.is_empty() {
            why.push_str(&format!(" No {role} is visible at all."));
        } else {
            others.truncate(10);
            let list = others
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ");
            why.push_str(&format!(
                " Visible {role} elements are named: {}.",
                s.fence().quote(&list)
            ));
        }
        Err(ToolError::other(format!(
            "FAIL: no visible {role} named {name:?} (names must match exactly).{why}"
        )))
    }

    /// Whether the control `target` holds `value`: a checkbox or radio
    /// "true"/"false", a select its chosen option's value or label, a field
    /// its text.
    pub async fn verify_value(&self, target: &str, value: &str) -> Verdict {
        let s = self.client();
        let el = self.element(target).await?;
        let loc = self.locate(el).await?;
        let c = &loc.control;
        let holds = match c.kind.as_str() {
            "checkbox" => {
                let want = match crate::page::input::fields::checked_from(value.trim()) {
                    Some(want) => want,
                    None => {
                        return Err(ToolError::other(format!(
                        "{target} is a checkbox or radio button: give `value` \"true\" (checked) \
                             or \"false\", not {value:?}"
                    )))
                    }
                };
                if c.checked == want {
                    Ok(())
                } else {
                    Err(if c.checked { "checked" } else { "not checked" }.to_string())
                }
            }
            "select" => {
                if value == c.value || normalise(value) == c.label {
                    Ok(())
                } else {
                    Err(format!(
                        "the option {} (value {}) chosen",
                        s.fence().quote(&format!("{:?}", c.label)),
                        s.fence().quote(&format!("{:?}", c.value))
                    ))
                }
            }
            "field" | "editable" | "aria" => {
                let same = if c.kind == "editable" {
                    normalise(value) == c.value
                } else {
                    value == c.value
                };
                match (same, c.password) {
                    (true, _) => Ok(()),
                    (false, true) => Err(format!(
                        "{} characters (a password field: its value is not shown), which are not \
                         the value given",
                        c.value.chars().count()
                    )),
                    (false, false) => Err(s.fence().quote(&format!("{:?}", c.value))),
                }
            }
            _ => {
                return Err(ToolError::other(format!(
                    "{target} holds no value (it is not a form control): check its text with \
                     browser_verify_text_visible, or pick the field itself from browser_snapshot"
                )))
            }
        };
        match holds {
            Ok(()) => {
                let frame = loc.frame;
                self.record_check(frame, Step::ExpectValue(loc, value.to_string()));
                Ok(format!("PASS: {target} holds {value:?}."))
            }
            Err(actual) => Err(ToolError::other(format!(
                "FAIL: {target} holds {actual}, not {value:?}. If the page is still updating, \
                 browser_wait_for first; if it is the wrong element, take browser_snapshot"
            ))),
        }
    }
}

/// Spaces collapsed and trimmed, as Playwright matches text and names.
pub fn normalise(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A reader (see the engine's `read`): is `want` in the page's visible
/// text (spaces normalised), or only in its markup?
const TEXT_READER: &str = r#"function(want) {
  const T = globalThis.__tabwire;
  const clean = (s) => String(s ?? "").replace(/\s+/g, " ").trim();
  const seen = clean(T.text(null, 5000000));
  if (seen.includes(want)) return { found: true };
  const markup = clean(document.body ? document.body.textContent : "");
  return { found: false, present: markup.includes(want), other_case: seen.toLowerCase().includes(want.toLowerCase()) };
}"#;

/// A reader: is an element of `q.role` named exactly `q.name` visible?
/// A name that is the element's own text counts only where that text can
/// be seen.
const ROLE_READER: &str = r#"function(q) {
  const T = globalThis.__tabwire;
  const clean = (s) => String(s ?? "").replace(/\s+/g, " ").trim();
  const aria = (r) => r === "image" ? "img" : r;
  const out = { found: false, hidden: 0, others: [] };
  const all = [];
  (function walk(root) { for (const e of root.querySelectorAll("*")) { all.push(e); if (e.shadowRoot) walk(e.shadowRoot); } })(document);
  for (const e of all) {
    const r = T.roleOf(e);
    if (aria(r) !== q.role) continue;
    const n = clean(T.nameOf(e, r));
    const box = e.getBoundingClientRect();
    let visible = T.seen(e) && box.width >= 1 && box.height >= 1;
    if (visible && n && clean(e.textContent).includes(n)) visible = clean(T.text(e, 100000)).includes(n);
    if (n === q.name) {
      if (visible) return { found: true };
      out.hidden++;
    } else if (visible && n && out.others.length < 10 && !out.others.includes(n)) {
      out.others.push(n.length > 80 ? n.slice(0, 80) + "…" : n);
    }
  }
  return out;
}"#;
