//! Playwright locators for elements (the `testing` group): the element's
//! role and accessible name as the snapshot engine computes them, else its
//! test id, label, placeholder, text or a CSS path; how many elements the
//! locator matches now, and the element's value (for assertions). Written
//! out as TypeScript or Python.

use serde::Deserialize;
use serde_json::Value;

use super::element::Element;
use crate::error::ToolError;
use crate::page::tab::current::Tab;

/// How a locator finds its element.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Locator {
    /// "role", "testid", "label", "placeholder", "text" or "css".
    pub by: String,
    #[serde(default)]
    pub role: Option<String>,
    /// The accessible name (role), or the test id, label, placeholder,
    /// text or CSS selector.
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub exact: bool,
    /// Which of several matches (when the locator is not unique).
    #[serde(default)]
    pub nth: Option<u32>,
    /// How many elements the locator (without `nth`) matched.
    #[serde(default)]
    pub count: u32,
    /// The snapshot frame of the element (0: the top document).
    #[serde(skip)]
    pub frame: u32,
    /// What kind of control it is and what it holds now.
    #[serde(default)]
    pub control: Control,
}

/// The element as a control: "checkbox" (and radio), "select", "field"
/// (input, textarea), "editable", "aria" (a value in ARIA attributes) or
/// "other"; its checked state and value now.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct Control {
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub checked: bool,
    #[serde(default)]
    pub value: String,
    /// A select's chosen option's label.
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub password: bool,
}

/// The languages a locator and a test are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    TypeScript,
    Python,
}

impl Locator {
    /// Whether the locator picks out this one element by itself.
    pub fn unique(&self) -> bool {
        self.nth.is_none()
    }

    /// The locator as code, from `page`.
    pub fn code(&self, lang: Lang) -> String {
        let v = self.value.clone().unwrap_or_default();
        let ts = lang == Lang::TypeScript;
        let q = |s: &str| quote(s, lang);
        let exact = |opts_ts: bool| match (self.exact, ts, opts_ts) {
            (false, _, _) => String::new(),
            (true, true, true) => ", exact: true".into(),
            (true, true, false) => ", { exact: true }".into(),
            (true, false, _) => ", exact=True".into(),
        };
        let base = match (self.by.as_str(), ts) {
            ("role", true) => {
                let role = q(self.role.as_deref().unwrap_or("generic"));
                if v.is_empty() {
                    format!("page.getByRole({role})")
                } else {
                    format!(
                        "page.getByRole({role}, {{ name: {}{} }})",
                        q(&v),
                        exact(true)
                    )
                }
            }
            ("role", false) => {
                let role = q(self.role.as_deref().unwrap_or("generic"));
                if v.is_empty() {
                    format!("page.get_by_role({role})")
                } else {
                    format!("page.get_by_role({role}, name={}{})", q(&v), exact(false))
                }
            }
            ("testid", true) => format!("page.getByTestId({})", q(&v)),
            ("testid", false) => format!("page.get_by_test_id({})", q(&v)),
            ("label", true) => format!("page.getByLabel({}{})", q(&v), exact(false)),
            ("label", false) => format!("page.get_by_label({}{})", q(&v), exact(false)),
            ("placeholder", true) => format!("page.getByPlaceholder({}{})", q(&v), exact(false)),
            ("placeholder", false) => format!("page.get_by_placeholder({}{})", q(&v), exact(false)),
            ("text", true) => format!("page.getByText({}{})", q(&v), exact(false)),
            ("text", false) => format!("page.get_by_text({}{})", q(&v), exact(false)),
            (_, _) => format!("page.locator({})", q(&v)),
        };
        match self.nth {
            Some(n) => format!("{base}.nth({n})"),
            None => base,
        }
    }

    /// One sentence on how unique the locator is.
    pub fn uniqueness(&self) -> String {
        match self.nth {
            None => "It matches exactly this element now.".into(),
            Some(n) => format!(
                "Not unique: without .nth({n}) it matches {} elements now, and .nth({n}) depends \
                 on their order; give the element a distinct name, label or data-testid for a \
                 sturdier test.",
                self.count
            ),
        }
    }
}

/// A string literal: single quotes in TypeScript, double in Python.
pub fn quote(s: &str, lang: Lang) -> String {
    let delim = if lang == Lang::TypeScript { '\'' } else { '"' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(delim);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == delim => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push(delim);
    out
}

impl Tab {
    /// Describes `el` as a Playwright locator (see [`DESCRIBE`]).
    pub async fn locate(&self, el: Element) -> Result<Locator, ToolError> {
        let frame = el.frame;
        let v = self.call_on(el, DESCRIBE, Value::Null).await?;
        let mut loc: Locator = serde_json::from_value(v).map_err(|e| {
            ToolError::other(format!(
                "the page answered the locator question in an unexpected shape ({e}); try again"
            ))
        })?;
        loc.frame = frame;
        Ok(loc)
    }
}

/// Run on the element (in the engine's world): the first locator that
/// matches it alone, in the order Playwright recommends (role and name,
/// test id, label, placeholder, role, text, CSS); when none is unique,
/// the best one with the element's index (a CSS path only when no
/// such locator matches it at all). Counting follows Playwright:
/// getByRole leaves out what is hidden from assistive technology, names
/// match case-insensitively as substrings unless exact.
const DESCRIBE: &str = r##"function() {
  const T = globalThis.__tabwire;
  const el = this;
  const clean = (s) => String(s ?? "").replace(/\s+/g, " ").trim();
  const aria = (r) => { r = r === "image" ? "img" : r; return /^[A-Z]|^(generic|none|presentation)$/.test(r) ? null : r; };
  const all = [];
  (function walk(root) { for (const e of root.querySelectorAll("*")) { all.push(e); if (e.shadowRoot) walk(e.shadowRoot); } })(document);
  const exposed = (e) => {
    for (let n = e; n; n = n.parentElement || n.getRootNode().host) if (n.getAttribute && n.getAttribute("aria-hidden") === "true") return false;
    return e.checkVisibility({ visibilityProperty: true }) || getComputedStyle(e).display === "contents";
  };
  const names = new Map();
  const nameOf = (e) => { let n = names.get(e); if (n === undefined) names.set(e, n = clean(T.nameOf(e, T.roleOf(e)))); return n; };
  const labelOf = (e) => clean(e.getAttribute("aria-label")) || (e.labels ? clean([...e.labels].map((l) => l.textContent).join(" ")) : "");
  const inBody = (e) => document.body && document.body.contains(e);
  const role = aria(T.roleOf(el));
  const name = role ? nameOf(el) : "";
  const own = clean(el.textContent);
  const tries = [];
  if (role && name) {
    tries.push({ by: "role", role, value: name, exact: false });
    tries.push({ by: "role", role, value: name, exact: true });
  }
  const testid = el.getAttribute("data-testid");
  if (testid) tries.push({ by: "testid", value: testid });
  const label = labelOf(el);
  if (label) tries.push({ by: "label", value: label, exact: true });
  const ph = el.getAttribute("placeholder");
  if (ph) tries.push({ by: "placeholder", value: ph, exact: true });
  if (role) tries.push({ by: "role", role, value: "" });
  if (own && own.length <= 80 && inBody(el)) tries.push({ by: "text", value: own, exact: true });
  const cssPath = (e) => {
    const parts = [];
    for (let n = e; n && n.nodeType === 1 && n !== document.documentElement; n = n.parentElement) {
      if (n.id && document.querySelectorAll("#" + CSS.escape(n.id)).length === 1) { parts.unshift("#" + CSS.escape(n.id)); break; }
      let i = 1;
      for (let p = n.previousElementSibling; p; p = p.previousElementSibling) if (p.localName === n.localName) i++;
      parts.unshift(`${n.localName}:nth-of-type(${i})`);
    }
    return parts.join(" > ");
  };
  // A CSS path only when nothing a person reads picks the element, even
  // with an index: it breaks with the page's markup.
  if (!tries.length) tries.push({ by: "css", value: cssPath(el) });
  const matches = (t) => {
    const v = t.value || "";
    switch (t.by) {
      case "role": return all.filter((e) => aria(T.roleOf(e)) === t.role && exposed(e)
        && (!v || (t.exact ? nameOf(e) === v : nameOf(e).toLowerCase().includes(v.toLowerCase()))));
      case "testid": return all.filter((e) => e.getAttribute("data-testid") === v);
      case "label": return all.filter((e) => labelOf(e) === v);
      case "placeholder": return all.filter((e) => e.getAttribute("placeholder") === v);
      case "text": return all.filter((e) => inBody(e) && !/^(script|style|noscript|template)$/.test(e.localName)
        && clean(e.textContent) === v && ![...e.children].some((c) => clean(c.textContent) === v));
      default: try { return [...document.querySelectorAll(v)]; } catch { return []; }
    }
  };
  let best = null;
  for (const t of tries) {
    const m = matches(t);
    const i = m.indexOf(el);
    if (i < 0) continue;
    t.count = m.length;
    if (m.length === 1) { best = t; break; }
    if (!best) { best = t; best.nth = i; }
  }
  best = best || { by: "css", value: cssPath(el), count: 1 };
  const input = el.localName === "input" || el.localName === "textarea";
  const type = (el.type || "").toLowerCase();
  let control = { kind: "other", checked: false, value: "", label: "", password: false };
  if (el.localName === "input" && (type === "checkbox" || type === "radio")) control = { ...control, kind: "checkbox", checked: el.checked };
  else if (el.localName === "select") control = { ...control, kind: "select", value: el.value, label: clean(el.selectedOptions?.[0]?.label) };
  else if (input) control = { ...control, kind: "field", value: el.value, password: type === "password" };
  else if (el.isContentEditable) control = { ...control, kind: "editable", value: clean(el.innerText) };
  else if (el.hasAttribute("aria-checked")) control = { ...control, kind: "checkbox", checked: el.getAttribute("aria-checked") === "true" };
  else if (el.hasAttribute("aria-valuenow") || el.hasAttribute("aria-valuetext")) control = { ...control, kind: "aria", value: el.getAttribute("aria-valuetext") || el.getAttribute("aria-valuenow") };
  best.control = control;
  return best;
}"##;

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(by: &str, role: Option<&str>, value: &str, exact: bool, nth: Option<u32>) -> Locator {
        Locator {
            by: by.into(),
            role: role.map(String::from),
            value: Some(value.into()),
            exact,
            nth,
            count: nth.map_or(1, |_| 2),
            frame: 0,
            control: Control::default(),
        }
    }

    #[test]
    fn locators_are_written_in_both_languages() {
        let send = loc("role", Some("button"), "Send", false, None);
        assert_eq!(
            send.code(Lang::TypeScript),
            "page.getByRole('button', { name: 'Send' })"
        );
        assert_eq!(
            send.code(Lang::Python),
            "page.get_by_role(\"button\", name=\"Send\")"
        );
        let exact = loc("role", Some("link"), "It's \"here\"", true, Some(1));
        assert_eq!(
            exact.code(Lang::TypeScript),
            "page.getByRole('link', { name: 'It\\'s \"here\"', exact: true }).nth(1)"
        );
        assert_eq!(
            exact.code(Lang::Python),
            "page.get_by_role(\"link\", name=\"It's \\\"here\\\"\", exact=True).nth(1)"
        );
        assert!(!exact.unique() && exact.uniqueness().contains("2 elements"));
        assert_eq!(
            loc("label", None, "Email", true, None).code(Lang::TypeScript),
            "page.getByLabel('Email', { exact: true })"
        );
        assert_eq!(
            loc("testid", None, "go", false, None).code(Lang::Python),
            "page.get_by_test_id(\"go\")"
        );
        assert_eq!(
            loc("css", None, "#a > b", false, None).code(Lang::TypeScript),
            "page.locator('#a > b')"
        );
        assert_eq!(quote("a\nb\u{2028}", Lang::TypeScript), "'a\\nb\\u2028'");
    }
}
