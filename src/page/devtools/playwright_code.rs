//! The recorded steps written out as a Playwright test, in TypeScript or
//! Python: one statement per step (an element by its locator, a password
//! read from the environment, a step in an iframe as a comment) and the
//! file around them. What is recorded, and when, is `recording.rs`.

use super::recording::{Act, Step, SECRET, SECRET_ENV, SECRET_NAMED};
use crate::page::reading::locator::{quote, Lang};

/// The test file.
pub(in crate::page) fn render(lang: Lang, title: &str, steps: &[(u32, &Step)]) -> String {
    let ts = lang == Lang::TypeScript;
    let indent = if ts { "  " } else { "    " };
    let mut body = String::new();
    for (frame, step) in steps {
        for line in step_code(lang, step).lines() {
            if *frame != 0 {
                let c = if ts { "//" } else { "#" };
                body.push_str(&format!("{indent}{c} In an iframe: {line}\n"));
            } else {
                body.push_str(&format!("{indent}{line}\n"));
            }
        }
    }
    if ts {
        format!(
            "// Recorded by tabwire: the session's actions and the checks that held.\n\
             import {{ test, expect }} from '@playwright/test';\n\n\
             test({}, async ({{ page }}) => {{\n{body}}});\n",
            quote(title, lang)
        )
    } else {
        let name: String = title
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .collect();
        let name = name.trim_matches('_');
        format!(
            "# Recorded by tabwire: the session's actions and the checks that held.\n\
             # Run with pytest and pytest-playwright.\n\
             {}from playwright.sync_api import Page, expect\n\n\n\
             def test_{}(page: Page) -> None:\n{body}",
            if body.contains("os.environ") {
                "import os\n\n"
            } else {
                ""
            },
            if name.is_empty() { "session" } else { name }
        )
    }
}

/// One step as a statement.
fn step_code(lang: Lang, step: &Step) -> String {
    let ts = lang == Lang::TypeScript;
    let q = |s: &str| quote(s, lang);
    let (aw, end) = if ts { ("await ", ";") } else { ("", "") };
    let list = |v: &[String]| {
        let items: Vec<String> = v.iter().map(|s| q(s)).collect();
        match items.len() {
            1 => items[0].clone(),
            _ => format!("[{}]", items.join(", ")),
        }
    };
    // What was typed, or (into a password field) the environment's secret.
    let typed = |t: &str| {
        let env = if t == SECRET {
            Some(SECRET_ENV)
        } else {
            t.strip_prefix(SECRET_NAMED)
        };
        match (env, ts) {
            (None, _) => q(t),
            (Some(env), true) => format!("process.env.{env} ?? ''"),
            (Some(env), false) => format!("os.environ.get({}, '')", q(env)),
        }
    };
    let stmt = match step {
        Step::Goto(url) => format!("page.goto({})", q(url)),
        Step::Back => if ts {
            "page.goBack()"
        } else {
            "page.go_back()"
        }
        .into(),
        Step::Forward => if ts {
            "page.goForward()"
        } else {
            "page.go_forward()"
        }
        .into(),
        Step::Reload => "page.reload()".into(),
        Step::Key(k) => format!("page.keyboard.press({})", q(k)),
        Step::Drag(a, b) => format!(
            "{}.{}({})",
            a.code(lang),
            if ts { "dragTo" } else { "drag_to" },
            b.code(lang)
        ),
        Step::Act(loc, act) => {
            let l = loc.code(lang);
            match act {
                Act::Click {
                    button,
                    double,
                    modifiers,
                } => {
                    let verb = if *double { "dblclick" } else { "click" };
                    let mut opts = Vec::new();
                    if button != "left" {
                        opts.push(if ts {
                            format!("button: {}", q(button))
                        } else {
                            format!("button={}", q(button))
                        });
                    }
                    if !modifiers.is_empty() {
                        let m: Vec<String> = modifiers.iter().map(|m| q(m)).collect();
                        opts.push(if ts {
                            format!("modifiers: [{}]", m.join(", "))
                        } else {
                            format!("modifiers=[{}]", m.join(", "))
                        });
                    }
                    match (opts.is_empty(), ts) {
                        (true, _) => format!("{l}.{verb}()"),
                        (false, true) => format!("{l}.{verb}({{ {} }})", opts.join(", ")),
                        (false, false) => format!("{l}.{verb}({})", opts.join(", ")),
                    }
                }
                Act::Fill(t) => format!("{l}.fill({})", typed(t)),
                Act::TypeSlowly(t) => format!(
                    "{l}.fill({}){end}\n{aw}{l}.{}({})",
                    q(""),
                    if ts {
                        "pressSequentially"
                    } else {
                        "press_sequentially"
                    },
                    typed(t)
                ),
                Act::Press(k) => format!("{l}.press({})", q(k)),
                Act::Select(v) => format!(
                    "{l}.{}({})",
                    if ts { "selectOption" } else { "select_option" },
                    list(v)
                ),
                Act::Hover => format!("{l}.hover()"),
                Act::Check(on) => match ts {
                    true => format!("{l}.setChecked({on})"),
                    false => format!("{l}.set_checked({})", if *on { "True" } else { "False" }),
                },
            }
        }
        Step::ExpectText(t) => {
            let l = if ts {
                format!(
                    "page.getByText({}).filter({{ visible: true }}).first()",
                    q(t)
                )
            } else {
                format!("page.get_by_text({}).filter(visible=True).first", q(t))
            };
            expect(lang, &l, "toBeVisible()", "to_be_visible()")
        }
        Step::ExpectTextGone(t) => {
            let l = if ts {
                format!("page.getByText({}).filter({{ visible: true }})", q(t))
            } else {
                format!("page.get_by_text({}).filter(visible=True)", q(t))
            };
            expect(lang, &l, "toHaveCount(0)", "to_have_count(0)")
        }
        Step::ExpectRole { role, name } => {
            let l = if ts {
                format!(
                    "page.getByRole({}, {{ name: {}, exact: true }}).first()",
                    q(role),
                    q(name)
                )
            } else {
                format!(
                    "page.get_by_role({}, name={}, exact=True).first",
                    q(role),
                    q(name)
                )
            };
            expect(lang, &l, "toBeVisible()", "to_be_visible()")
        }
        // A password's value is not written down.
        Step::ExpectValue(loc, _) if loc.control.password => {
            let c = if ts { "//" } else { "#" };
            return format!("{c} (a check of a password field's value is left out)");
        }
        Step::ExpectValue(loc, want) => {
            let l = loc.code(lang);
            let c = &loc.control;
            match c.kind.as_str() {
                "checkbox" if c.checked => expect(lang, &l, "toBeChecked()", "to_be_checked()"),
                "checkbox" => expect(lang, &l, "not.toBeChecked()", "not_to_be_checked()"),
                // Playwright compares a select's value, not its label.
                "select" => expect(
                    lang,
                    &l,
                    &format!("toHaveValue({})", q(&c.value)),
                    &format!("to_have_value({})", q(&c.value)),
                ),
                "editable" => expect(
                    lang,
                    &l,
                    &format!("toHaveText({})", q(want)),
                    &format!("to_have_text({})", q(want)),
                ),
                "aria" => {
                    let attr = "aria-valuenow";
                    expect(
                        lang,
                        &l,
                        &format!("toHaveAttribute({}, {})", q(attr), q(want)),
                        &format!("to_have_attribute({}, {})", q(attr), q(want)),
                    )
                }
                _ => expect(
                    lang,
                    &l,
                    &format!("toHaveValue({})", q(want)),
                    &format!("to_have_value({})", q(want)),
                ),
            }
        }
    };
    format!("{aw}{stmt}{end}")
}

fn expect(lang: Lang, locator: &str, ts: &str, py: &str) -> String {
    match lang {
        Lang::TypeScript => format!("expect({locator}).{ts}"),
        Lang::Python => format!("expect({locator}).{py}"),
    }
}
