//! The client's session as a test (the `testing` group): each action that
//! succeeded (navigations; clicks, typing, choices, keys, hovers, forms,
//! drags on elements described by role and name when they ran) and each
//! check that held, written out as a runnable Playwright test. Refs never
//! reach the test: every element is a locator (see `locator.rs`).
//!
//! The record is kept only while the group is on; one hook around every
//! tool call ([`Client::recorded`]) describes the call's targets before it
//! runs (a click may remove its button) and records the call when it
//! succeeded. Writing the steps out as code is `playwright_code.rs`.

use std::collections::HashMap;
use std::future::Future;

use serde_json::Value;

use super::playwright_code::render;
use crate::backend::TabId;
use crate::error::ToolError;
use crate::page::reading::locator::{Lang, Locator};
use crate::page::tab::client::Client;
use crate::page::tab::current::Tab;
use crate::policy::Cap;

/// Stands for what was typed into a password field: the secret is never
/// kept, and the exported test reads it from [`SECRET_ENV`].
pub(in crate::page) const SECRET: &str = "\u{0}tabwire-password\u{0}";
/// The environment variable an exported test takes a password from.
pub(in crate::page) const SECRET_ENV: &str = "TABWIRE_PASSWORD";
/// Stands for a named secret: the exported test reads the environment
/// variable of its name (what follows the marker).
pub(in crate::page) const SECRET_NAMED: &str = "\u{0}tabwire-secret\u{0}";

/// Steps kept per client; older ones are dropped (and the export says so).
const MAX_STEPS: usize = 2000;

/// One step of a test.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Goto(String),
    Back,
    Forward,
    Reload,
    Key(String),
    Act(Locator, Act),
    Drag(Locator, Locator),
    ExpectText(String),
    ExpectTextGone(String),
    ExpectRole { role: String, name: String },
    ExpectValue(Locator, String),
}

/// What was done to an element.
#[derive(Debug, Clone, PartialEq)]
pub enum Act {
    Click {
        button: String,
        double: bool,
        modifiers: Vec<String>,
    },
    Fill(String),
    TypeSlowly(String),
    Press(String),
    Select(Vec<String>),
    Hover,
    Check(bool),
}

/// The steps recorded so far, with the tab each happened in and the
/// snapshot frame of its element (0: the top document).
#[derive(Debug, Default)]
pub struct TestRecording {
    steps: Vec<(TabId, u32, Step)>,
    dropped: usize,
}

impl TestRecording {
    fn push(&mut self, tab: TabId, frame: u32, step: Step) {
        if self.steps.len() >= MAX_STEPS {
            self.steps.remove(0);
            self.dropped += 1;
        }
        self.steps.push((tab, frame, step));
    }
}

/// The targets a call names (`target`, drag ends, form fields).
fn targets(args: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for key in ["target", "startTarget", "endTarget"] {
        if let Some(t) = args[key].as_str() {
            out.push(t.trim().to_string());
        }
    }
    if let Some(fields) = args["fields"].as_array() {
        out.extend(
            fields
                .iter()
                .filter_map(|f| f["target"].as_str())
                .map(|t| t.trim().to_string()),
        );
    }
    out
}

/// Tools whose successful calls become steps.
const RECORDED: &[&str] = &[
    "browser_navigate",
    "browser_navigate_back",
    "browser_navigate_forward",
    "browser_reload",
    "browser_click",
    "browser_hover",
    "browser_type",
    "browser_press_key",
    "browser_select_option",
    "browser_fill_form",
    "browser_drag",
    "browser_wait_for",
];

impl Client {
    /// Runs a tool call through `call`; with the testing group on, records
    /// it as a step when it succeeds (its targets described before it ran).
    pub async fn recorded<T, F, Fut>(
        &self,
        tool: &str,
        args: Value,
        call: F,
    ) -> Result<T, ToolError>
    where
        F: FnOnce(Value) -> Fut,
        Fut: Future<Output = Result<T, ToolError>>,
    {
        if !RECORDED.contains(&tool) || !self.policy().caps_on().contains(&Cap::Testing) {
            return call(args).await;
        }
        let before = self.current_tab();
        let mut found = HashMap::new();
        if let Some(tab) = before.map(|id| self.on(id)) {
            // Only pages the policy lets tools read.
            let allowed = tab
                .tab_state()
                .events
                .url()
                .is_some_and(|u| self.policy().check_url(&u).is_ok());
            for t in targets(&args).into_iter().filter(|_| allowed) {
                if found.contains_key(&t) {
                    continue;
                }
                if let Ok(el) = tab.element(&t).await {
                    if let Ok(loc) = tab.locate(el).await {
                        found.insert(t, loc);
                    }
                }
            }
        }
        let result = call(args.clone()).await;
        if result.is_ok() {
            let tab = if tool == "browser_navigate" {
                self.current_tab()
            } else {
                before
            };
            if let Some(tab) = tab {
                let secrets = self.policy().secrets.clone();
                for (frame, step) in steps(tool, &args, &found, &secrets) {
                    self.slot::<TestRecording>().push(tab, frame, step);
                }
            }
        }
        result
    }

    /// The session so far, in the current tab, as a Playwright test; and
    /// notes on what it leaves out.
    pub fn export_test(&self, lang: Lang, title: &str) -> Result<(String, Vec<String>), ToolError> {
        let tab = self.current_tab();
        let rec = self.slot::<TestRecording>();
        let mine: Vec<&(TabId, u32, Step)> = rec
            .steps
            .iter()
            .filter(|(t, _, _)| Some(*t) == tab)
            .collect();
        if mine.is_empty() {
            return Err(ToolError::other(
                "nothing recorded in this tab yet: the test is made of what you do after the \
                 testing group is on (browser_navigate, clicks, typing, …) and the checks that \
                 held (browser_verify_*). Navigate, act and verify, then export"
                    .into(),
            ));
        }
        let mut notes = Vec::new();
        let other = rec.steps.len() - mine.len();
        if other > 0 {
            notes.push(format!(
                "{other} step(s) done in other tabs are left out (a test follows one page)."
            ));
        }
        if rec.dropped > 0 {
            notes.push(format!(
                "The {} oldest steps of this long session were dropped.",
                rec.dropped
            ));
        }
        let framed = mine.iter().filter(|(_, f, _)| *f != 0).count();
        if framed > 0 {
            notes.push(format!(
                "{framed} step(s) inside iframes are written as comments: wrap their locators \
                 with the frame's own (page.frameLocator) to run them."
            ));
        }
        let steps: Vec<(u32, &Step)> = mine.iter().map(|(_, f, s)| (*f, s)).collect();
        let secret = steps.iter().any(
            |(_, s)| matches!(s, Step::Act(_, Act::Fill(t) | Act::TypeSlowly(t)) if t == SECRET),
        );
        if secret {
            notes.push(format!(
                "What was typed into password fields is not in the test: it reads the \
                 {SECRET_ENV} environment variable instead."
            ));
        }
        Ok((render(lang, title, &steps), notes))
    }
}

impl Tab {
    /// Records a check that held (the verify tools).
    pub fn record_check(&self, frame: u32, step: Step) {
        let tab = self.id();
        self.client().slot::<TestRecording>().push(tab, frame, step);
    }
}

/// What typing `text` is recorded as: a named secret (`serve --secrets`)
/// as the environment variable of its name, what a password field got as
/// the password marker, anything else as it is. (The name, never the
/// value, is in the recording.)
fn typed_text(text: &str, password: bool, secrets: &crate::secrets::Secrets) -> String {
    match secrets.named(text) {
        Some(s) => format!("{SECRET_NAMED}{}", s.name),
        None if password => SECRET.to_string(),
        None => text.to_string(),
    }
}

/// The steps a successful call makes.
fn steps(
    tool: &str,
    args: &Value,
    found: &HashMap<String, Locator>,
    secrets: &crate::secrets::Secrets,
) -> Vec<(u32, Step)> {
    let s = |k: &str| args[k].as_str().unwrap_or_default().to_string();
    let on = |key: &str| {
        args[key]
            .as_str()
            .and_then(|t| found.get(t.trim()))
            .cloned()
    };
    let act = |loc: Option<Locator>, acts: Vec<Act>| -> Vec<(u32, Step)> {
        match loc {
            Some(l) => acts
                .into_iter()
                .map(|a| (l.frame, Step::Act(l.clone(), a)))
                .collect(),
            None => Vec::new(),
        }
    };
    match tool {
        "browser_navigate" => vec![(0, Step::Goto(s("url")))],
        "browser_navigate_back" => vec![(0, Step::Back)],
        "browser_navigate_forward" => vec![(0, Step::Forward)],
        "browser_reload" => vec![(0, Step::Reload)],
        "browser_press_key" => vec![(0, Step::Key(s("key")))],
        "browser_wait_for" => {
            let mut out = Vec::new();
            if let Some(t) = args["text"].as_str().filter(|t| !t.trim().is_empty()) {
                out.push((0, Step::ExpectText(super::verify::normalise(t))));
            }
            if let Some(t) = args["textGone"].as_str().filter(|t| !t.trim().is_empty()) {
                out.push((0, Step::ExpectTextGone(super::verify::normalise(t))));
            }
            out
        }
        "browser_click" => {
            let modifiers = args["modifiers"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|m| m.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            let button = args["button"].as_str().unwrap_or("left").to_string();
            let double = args["doubleClick"].as_bool().unwrap_or(false);
            act(
                on("target"),
                vec![Act::Click {
                    button,
                    double,
                    modifiers,
                }],
            )
        }
        "browser_hover" => act(on("target"), vec![Act::Hover]),
        "browser_type" => {
            let password = on("target").is_some_and(|l| l.control.password);
            let text = typed_text(&s("text"), password, secrets);
            let mut acts = vec![if args["slowly"].as_bool().unwrap_or(false) {
                Act::TypeSlowly(text)
            } else {
                Act::Fill(text)
            }];
            if args["submit"].as_bool().unwrap_or(false) {
                acts.push(Act::Press("Enter".into()));
            }
            act(on("target"), acts)
        }
        "browser_select_option" => {
            let values = args["values"]
                .as_array()
                .map(|v| {
                    v.iter()
                        .filter_map(|v| v.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            act(on("target"), vec![Act::Select(values)])
        }
        "browser_drag" => match (on("startTarget"), on("endTarget")) {
            (Some(a), Some(b)) => vec![(a.frame.max(b.frame), Step::Drag(a, b))],
            _ => Vec::new(),
        },
        "browser_fill_form" => {
            let mut out = Vec::new();
            for f in args["fields"].as_array().into_iter().flatten() {
                let loc = f["target"]
                    .as_str()
                    .and_then(|t| found.get(t.trim()))
                    .cloned();
                let password = loc.as_ref().is_some_and(|l| l.control.password);
                let value = typed_text(f["value"].as_str().unwrap_or_default(), password, secrets);
                let a = match f["type"].as_str().unwrap_or_default() {
                    "checkbox" | "radio" => {
                        Act::Check(crate::page::input::fields::checked_from(&value) == Some(true))
                    }
                    "combobox" => Act::Select(vec![value]),
                    _ => Act::Fill(value),
                };
                out.extend(act(loc, vec![a]));
            }
            out
        }
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::reading::locator::Control;

    #[test]
    fn a_password_typed_is_never_written_into_the_test() {
        let mut loc = role("textbox", "Password");
        loc.control.password = true;
        let found: HashMap<String, Locator> = [("e3".to_string(), loc)].into();
        let args = serde_json::json!({"target": "e3", "text": "hunter2"});
        let recorded = steps("browser_type", &args, &found, &Default::default());
        let list: Vec<(u32, &Step)> = recorded.iter().map(|(f, s)| (*f, s)).collect();
        for lang in [Lang::TypeScript, Lang::Python] {
            let code = render(lang, "sign in", &list);
            assert!(!code.contains("hunter2"), "{code}");
            assert!(code.contains("TABWIRE_PASSWORD"), "{code}");
        }
        assert!(render(Lang::Python, "sign in", &list).contains("import os"));
    }

    #[test]
    fn a_named_secret_is_read_from_the_environment_by_its_name() {
        let secrets = crate::secrets::Secrets::parse("ADMIN_PASSWORD=hunter22\n").unwrap();
        let mut loc = role("textbox", "Password");
        loc.control.password = true;
        let found: HashMap<String, Locator> = [("e3".to_string(), loc)].into();
        let args = serde_json::json!({"target": "e3", "text": "ADMIN_PASSWORD"});
        let recorded = steps("browser_type", &args, &found, &secrets);
        let list: Vec<(u32, &Step)> = recorded.iter().map(|(f, s)| (*f, s)).collect();
        let ts = render(Lang::TypeScript, "sign in", &list);
        assert!(ts.contains("process.env.ADMIN_PASSWORD"), "{ts}");
        assert!(!ts.contains("hunter22"), "{ts}");
        let py = render(Lang::Python, "sign in", &list);
        assert!(
            py.contains("os.environ.get(\"ADMIN_PASSWORD\", '')"),
            "{py}"
        );
    }

    fn role(role: &str, name: &str) -> Locator {
        Locator {
            by: "role".into(),
            role: Some(role.into()),
            value: Some(name.into()),
            exact: false,
            nth: None,
            count: 1,
            frame: 0,
            control: Control::default(),
        }
    }

    #[test]
    fn a_session_becomes_a_test_without_refs() {
        let mut found = HashMap::new();
        found.insert("e5".to_string(), role("textbox", "Your name"));
        found.insert("e7".to_string(), role("button", "Send"));
        let mut all = Vec::new();
        for (tool, args) in [
            ("browser_navigate", serde_json::json!({"url": "http://h/p"})),
            (
                "browser_type",
                serde_json::json!({"target": "e5", "text": "Ada", "submit": true}),
            ),
            (
                "browser_click",
                serde_json::json!({"target": "e7", "modifiers": ["Shift"]}),
            ),
            ("browser_click", serde_json::json!({"target": "e9"})),
        ] {
            all.extend(steps(tool, &args, &found, &Default::default()));
        }
        all.push((0, Step::ExpectText("Hello, Ada".into())));
        let refs: Vec<(u32, &Step)> = all.iter().map(|(f, s)| (*f, s)).collect();
        let ts = render(Lang::TypeScript, "sends a greeting", &refs);
        assert_eq!(
            ts,
            "// Recorded by tabwire: the session's actions and the checks that held.\n\
             import { test, expect } from '@playwright/test';\n\n\
             test('sends a greeting', async ({ page }) => {\n\
             \x20 await page.goto('http://h/p');\n\
             \x20 await page.getByRole('textbox', { name: 'Your name' }).fill('Ada');\n\
             \x20 await page.getByRole('textbox', { name: 'Your name' }).press('Enter');\n\
             \x20 await page.getByRole('button', { name: 'Send' }).click({ modifiers: ['Shift'] });\n\
             \x20 await expect(page.getByText('Hello, Ada').filter({ visible: true }).first()).toBeVisible();\n\
             });\n"
        );
        assert!(!ts.contains("e5") && !ts.contains("e9"));
        let py = render(Lang::Python, "sends a greeting", &refs);
        assert!(
            py.contains(
                "def test_sends_a_greeting(page: Page) -> None:\n    page.goto(\"http://h/p\")\n"
            ),
            "{py}"
        );
        assert!(
            py.contains(
                "\n    page.get_by_role(\"button\", name=\"Send\").click(modifiers=[\"Shift\"])\n"
            ),
            "{py}"
        );
        assert!(py.contains("\n    expect(page.get_by_text(\"Hello, Ada\").filter(visible=True).first).to_be_visible()\n"), "{py}");
    }

    #[test]
    fn the_record_is_bounded() {
        let mut r = TestRecording::default();
        for i in 0..MAX_STEPS + 3 {
            r.push(1, 0, Step::Key(format!("k{i}")));
        }
        assert_eq!(r.steps.len(), MAX_STEPS);
        assert_eq!(r.dropped, 3);
    }
}
