//! The handlers of the tools that set form controls: choose options,
//! fill a form's fields (text, boxes, radios, combos, sliders), put files
//! on a file input. Declared with the other input tools in `input/mod.rs`.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

use super::describe;
use crate::page::input::fields::{checked_from, SELECTED_NOW};
use crate::page::{Element, Tab};
use crate::tools::def::{done, Response, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SelectArgs {
    pub target: String,
    pub values: Vec<String>,
    /// Accepted for playwright-mcp compatibility; not in the schema.
    #[schemars(skip)]
    pub element: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    Textbox,
    Checkbox,
    Radio,
    Combobox,
    Slider,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FormField {
    pub target: String,
    #[serde(rename = "type")]
    pub kind: FieldType,
    /// true/false, or a number (slider).
    pub value: String,
    pub name: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UploadArgs {
    pub target: Option<String>,
    pub paths: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FillFormArgs {
    pub fields: Vec<FormField>,
}

/// browser_select_option.
pub(super) async fn select_option(tab: Tab, a: SelectArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let mut chosen = Vec::new();
    let outcome = tab
        .settle(|| async {
            chosen = tab.select_options(&a.target, &a.values).await?;
            Ok(())
        })
        .await?;
    let mut what = format!(
        "Selected {} in {}",
        chosen.join(", "),
        describe(&a.target, &a.element)
    );
    if !outcome.navigated {
        let now = tab.value_again(&a.target, SELECTED_NOW).await;
        if let Some(Value::Array(now)) = now {
            let now: Vec<&str> = now.iter().filter_map(Value::as_str).collect();
            if now != chosen.iter().map(String::as_str).collect::<Vec<_>>() {
                what.push_str(&format!(
                    " (but the page changed it back: now {})",
                    s.fence().quote(&quote_list(&now))
                ));
            }
        }
    }
    done(&tab, what, &outcome).await
}

/// browser_fill_form.
pub(super) async fn fill_form(tab: Tab, a: FillFormArgs) -> Result<Response, ToolError> {
    let mut filled = Vec::new();
    let outcome = tab
        .settle(|| async {
            for f in &a.fields {
                fill_field(&tab, f).await.map_err(|e| {
                    ToolError::other(format!(
                        "field {} failed after {} filled: {e}",
                        f.name.as_deref().unwrap_or(&f.target),
                        filled.len()
                    ))
                })?;
                filled.push(f.name.clone().unwrap_or_else(|| f.target.clone()));
            }
            Ok(())
        })
        .await?;
    let mut what = format!("Filled {}", filled.join(", "));
    if !outcome.navigated {
        for f in &a.fields {
            if let Some(note) = field_back(&tab, f).await {
                what.push_str(&note);
            }
        }
    }
    done(&tab, what, &outcome).await
}

/// browser_file_upload.
pub(super) async fn file_upload(tab: Tab, a: UploadArgs) -> Result<Response, ToolError> {
    let s = tab.client();
    let files = a
        .paths
        .iter()
        .map(|p| s.policy().check_upload(std::path::Path::new(p)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(ToolError::other)?;
    let (el, what) = match &a.target {
        Some(t) => (tab.element(t).await?, t.clone()),
        None => match tab.take_file_chooser() {
            Some(node) => (Element::by_node(node), "the open file chooser".to_string()),
            None => {
                return Err(ToolError::other(
                    "no target given and no file chooser is open: pass the file input's ref, \
                     or click the upload button first"
                        .into(),
                ))
            }
        },
    };
    let is_file_input = tab
        .call_on(
            el.clone(),
            "function() { return this.localName === 'input' && this.type === 'file'; }",
            Value::Null,
        )
        .await?;
    if is_file_input != json!(true) {
        return Err(ToolError::other(
            "the element is not an <input type=file>".into(),
        ));
    }
    // Only absolute paths of existing files reach the browser: a
    // relative one is accepted and then crashes the renderer.
    let outcome = tab.settle(|| tab.set_input_files(&el, &files)).await?;
    done(
        &tab,
        format!("Set {} file(s) on {what}", files.len()),
        &outcome,
    )
    .await
}

/// The same check for one field of a filled form.
async fn field_back(tab: &Tab, f: &FormField) -> Option<String> {
    let s = tab.client();
    let name = f.name.as_deref().unwrap_or(&f.target);
    match f.kind {
        FieldType::Textbox => {
            // (A secret's name compares as its value; any echo of it is
            // masked on the way out.)
            let want = match s.policy().secrets.named(&f.value) {
                Some(secret) => secret.value().to_string(),
                None => f.value.clone(),
            };
            tab.typed_back(&f.target, &want)
                .await
                .map(|n| format!("; {name}{n}"))
        }
        FieldType::Checkbox | FieldType::Radio => {
            let want = checked_from(&f.value) == Some(true);
            let now = tab
                .value_again(&f.target, "function() { return !!this.checked; }")
                .await?;
            (now != json!(want)).then(|| {
                format!(
                    "; but {name} is {} (the page changed it back)",
                    if want { "not checked" } else { "checked" }
                )
            })
        }
        FieldType::Slider => {
            let now = tab.value_again(&f.target,
                "function() { return this.localName === 'input' ? this.value : this.getAttribute('aria-valuenow'); }",
            )
            .await?;
            let now: f64 = now.as_str()?.parse().ok()?;
            let want: f64 = f.value.trim().parse().ok()?;
            ((now - want).abs() > 1e-9)
                .then(|| format!("; but {name} is at {now} (the nearest value it allows)"))
        }
        FieldType::Combobox => None,
    }
}

fn quote_list(items: &[&str]) -> String {
    if items.is_empty() {
        return "nothing".into();
    }
    items
        .iter()
        .map(|i| format!("{i:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

async fn fill_field(tab: &Tab, f: &FormField) -> Result<(), ToolError> {
    match f.kind {
        FieldType::Textbox => {
            let (text, secret) = tab.secret_text_for(&f.target, &f.value).await?;
            tab.fill_text(&f.target, &text).await?;
            if let Some(name) = secret {
                tab.mark_secret(&f.target, &name, &text).await;
            }
            Ok(())
        }
        FieldType::Combobox => tab
            .select_options(&f.target, std::slice::from_ref(&f.value))
            .await
            .map(|_| ()),
        FieldType::Checkbox | FieldType::Radio => {
            let el = tab.element(&f.target).await?;
            let Some(want) = checked_from(&f.value) else {
                return Err(ToolError::other(format!(
                    "value {:?} is not true or false",
                    f.value.to_ascii_lowercase()
                )));
            };
            let is = tab.call_on(el.clone(),
                    "function() { const T = globalThis.__tabwire; \
                     return (T ? T.disabled(this) : this.disabled) ? 'disabled' : !!this.checked; }",
                    Value::Null,
                )
                .await?;
            if is == json!("disabled") {
                return Err(ToolError::other(
                    "the box is disabled: nothing was checked or unchecked".into(),
                ));
            }
            if is != json!(want) {
                tab.click(el, "left", 1, 0).await?;
            }
            Ok(())
        }
        FieldType::Slider => tab.set_slider(&f.target, &f.value).await.map(|_| ()),
    }
}
