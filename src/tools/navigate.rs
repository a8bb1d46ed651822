//! `browser_navigate`: load a URL in the current tab.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

use super::{snapshot, Kind, Response, Session, ToolDef, ToolError};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateArgs {
    /// The absolute URL to load, e.g. "https://example.com/login".
    pub url: String,
}

pub fn tools() -> Vec<ToolDef> {
    vec![ToolDef::new(
        "browser_navigate",
        "Navigate to a URL",
        Kind::Action,
        "Load a URL in the current tab (a tab is opened for you if you have none) and wait for \
         the page to load. Returns the page title and URL and a snapshot of the page with refs \
         you can pass to browser_click and browser_type. If the URL cannot be loaded, the error \
         says why (DNS, refused connection, …); check the URL and retry.",
        |s: Session, a: NavigateArgs| async move {
            let tab = s.tab().await?;
            go(&s, tab, &a.url).await?;
            Ok(Response::text(snapshot::take(&s, tab).await?))
        },
    )]
}

/// Navigates `tab` to `url` and waits until the new document has loaded.
pub async fn go(s: &Session, tab: crate::backend::TabId, url: &str) -> Result<(), ToolError> {
    let r = s.cdp(tab, "Page.navigate", json!({"url": url})).await?;
    if let Some(err) = r["errorText"].as_str().filter(|e| !e.is_empty()) {
        return Err(ToolError(format!("could not load {url}: {err}")));
    }
    // Same-document navigations return no loaderId: then only the current
    // document's load state matters.
    s.wait_for_load(tab, r["loaderId"].as_str()).await
}
