//! `browser_navigate`: load a URL in the current tab.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::done;
use super::def::{Kind, Response, ToolDef, ToolError, View};
use crate::page::{Client, Tab};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateArgs {
    pub url: String,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "browser_navigate",
            "Navigate",
            Kind::Action,
            "Load `url` in the current tab; returns a snapshot.",
            navigate,
        ),
        ToolDef::new(
            "browser_navigate_back",
            "Go back",
            Kind::Action,
            "Go back; returns a snapshot.",
            |s: Client, _: NoArgs| async move { history_step(s, -1).await },
        ),
        ToolDef::new(
            "browser_navigate_forward",
            "Go forward",
            Kind::Action,
            "Go forward; returns a snapshot.",
            |s: Client, _: NoArgs| async move { history_step(s, 1).await },
        ),
        ToolDef::on_tab(
            "browser_reload",
            "Reload",
            Kind::Action,
            "Reload; returns a snapshot.",
            reload,
        ),
    ]
}

/// browser_navigate.
async fn navigate(s: Client, a: NavigateArgs) -> Result<Response, ToolError> {
    let tab = s.on(s.tab_to_navigate().await?);
    let (mut load, notes) = tab.go(&a.url).await?;
    let page = tab.snapshot_loaded(load.snapshot.take()).await?;
    Ok(Response::showing(View::Snapshot(page))
        .with_tail(&load.note())
        .with_tail(&notes))
}

/// browser_reload.
async fn reload(tab: Tab, _: NoArgs) -> Result<Response, ToolError> {
    let _leaving = tab.leaving();
    let outcome = tab.settle(|| tab.reload()).await?;
    done(&tab, "Reloaded the page".into(), &outcome).await
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Moves `delta` entries through the tab's session history.
async fn history_step(s: Client, delta: i64) -> Result<Response, ToolError> {
    let tab = s.on(s.tab_to_navigate().await?);
    let (entries, current) = tab.history().await?;
    let index = current + delta;
    let Some(entry) = usize::try_from(index).ok().and_then(|i| entries.get(i)) else {
        let which = if delta < 0 { "previous" } else { "next" };
        return Err(ToolError::other(format!(
            "there is no {which} page in this tab's history; use browser_navigate with a URL"
        )));
    };
    if let Err(why) = s.policy().check_url(entry["url"].as_str().unwrap_or("")) {
        return Err(ToolError::other(format!("not navigating: {why}")));
    }
    let id = entry["id"].clone();
    let _leaving = tab.leaving();
    let outcome = tab.settle(|| tab.go_to_entry(id)).await?;
    let what = if delta < 0 {
        "Went back"
    } else {
        "Went forward"
    };
    done(&tab, what.into(), &outcome).await
}
