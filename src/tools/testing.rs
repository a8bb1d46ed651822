//! The `testing` group (`serve --caps testing`): checks a person would make
//! (text, an element, a value), Playwright locators for elements, and the
//! session so far exported as a runnable Playwright test.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Cap, Kind, Response, ToolDef, ToolError};
use crate::page::downloads::save::{sanitize_name, save};
use crate::page::reading::locator::Lang;
use crate::page::{Client, Tab};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TextArgs {
    pub text: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ElementArgs {
    pub role: String,
    /// The exact accessible name, as browser_snapshot shows it in quotes.
    #[serde(rename = "accessibleName")]
    pub accessible_name: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ValueArgs {
    pub target: String,
    pub value: String,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    #[serde(rename = "type")]
    pub _kind: Option<String>,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    #[serde(rename = "element")]
    pub _element: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LocatorArgs {
    pub target: String,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    #[serde(rename = "element")]
    pub _element: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    Typescript,
    Python,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ExportArgs {
    /// typescript (@playwright/test, the default) or python (pytest-playwright).
    #[serde(default)]
    pub language: Language,
    /// The test's title (what it checks).
    pub title: Option<String>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::on_tab(
            "browser_verify_text_visible",
            "Verify text is visible",
            Kind::ReadOnly,
            "Check that a person can see `text` on the page (spaces normalised, case counts; hidden, \
             transparent or covered text does not count). Answers PASS, or fails with FAIL and why \
             (not there, only in hidden markup, other case). A pass becomes an expect() in browser_export_test.",
            |t: Tab, a: TextArgs| async move {
                t.verify_text_visible(&a.text).await.map(Response::text)
            },
        )
        .in_group(Cap::Testing),
        ToolDef::on_tab(
            "browser_verify_element_visible",
            "Verify element is visible",
            Kind::ReadOnly,
            "Check that a person can see an element of `role` (ARIA: button, link, heading, textbox…) \
             named exactly `accessibleName`. Answers PASS, or fails with FAIL, naming the visible \
             elements of that role and any hidden match.",
            verify_element_visible,
        )
        .in_group(Cap::Testing),
        ToolDef::on_tab(
            "browser_verify_value",
            "Verify value",
            Kind::ReadOnly,
            "Check that control `target` holds `value`: a field its text, a select its chosen option \
             (value or label), a checkbox or radio \"true\"/\"false\". Answers PASS, or fails with \
             FAIL and what it holds.",
            verify_value,
        )
        .in_group(Cap::Testing),
        ToolDef::on_tab(
            "browser_generate_locator",
            "Generate a locator",
            Kind::ReadOnly,
            "A Playwright locator for `target` by role and accessible name (else test id, label, \
             placeholder, text, CSS), in TypeScript and Python, and whether it matches only this element.",
            generate_locator,
        )
        .in_group(Cap::Testing),
        ToolDef::new(
            "browser_export_test",
            "Export the session as a test",
            Kind::ReadOnly,
            "Write what this client did in the current tab since the testing group was on (navigations, \
             clicks, typing, choices, keys; verify passes as expect()) as a runnable Playwright test, \
             elements by role and name, never refs. Saved in the download dir and returned.",
            export_test,
        )
        .in_group(Cap::Testing)
        .without_browser(),
    ]
}

/// browser_verify_element_visible.
async fn verify_element_visible(tab: Tab, a: ElementArgs) -> Result<Response, ToolError> {
    tab.verify_element_visible(&a.role, &a.accessible_name)
        .await
        .map(Response::text)
}

/// browser_verify_value.
async fn verify_value(tab: Tab, a: ValueArgs) -> Result<Response, ToolError> {
    tab.verify_value(&a.target, &a.value)
        .await
        .map(Response::text)
}

/// browser_generate_locator.
async fn generate_locator(tab: Tab, a: LocatorArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let el = tab.element(&a.target).await?;
    let loc = tab.locate(el).await?;
    let mut out = format!(
        "{}\nPython: {}\n{}",
        loc.code(Lang::TypeScript),
        loc.code(Lang::Python),
        loc.uniqueness()
    );
    if loc.frame != 0 {
        out.push_str(
            "\nThe element is inside an iframe: the locator is relative to that frame \
             (prefix it with page.frameLocator(...) for the iframe).",
        );
    }
    Ok(Response::text(s.fence().wrap(&out)))
}

/// browser_export_test.
async fn export_test(s: Client, a: ExportArgs) -> Result<Response, ToolError> {
    let lang = match a.language {
        Language::Typescript => Lang::TypeScript,
        Language::Python => Lang::Python,
    };
    let title = a
        .title
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or("recorded session")
        .to_string();
    let (code, notes) = s.export_test(lang, &title)?;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis())
        .unwrap_or_default();
    let name = match lang {
        Lang::TypeScript => format!("tabwire-{stamp}.spec.ts"),
        Lang::Python => format!("test_tabwire_{stamp}.py"),
    };
    let saved = save(
        &s.policy().download_dir(),
        &sanitize_name(&name, "tabwire.spec.ts"),
        &crate::page::downloads::save::without_secrets(&s.policy().secrets, code.as_bytes()),
        "text/plain",
    )?;
    let mut out = saved.describe(s.fence());
    for n in notes {
        out.push('\n');
        out.push_str(&n);
    }
    out.push_str(match lang {
        Lang::TypeScript => "\nRun: npx playwright test <file>.",
        Lang::Python => "\nRun: pytest <file> (pip install pytest-playwright).",
    });
    // Names and text in the test come from the page.
    Ok(Response::text(format!("{out}\n{}", s.fence().wrap(&code))))
}
