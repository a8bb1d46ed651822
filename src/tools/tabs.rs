//! `browser_tabs`: list, open, select and close this client's tabs.

use schemars::JsonSchema;
use serde::Deserialize;

use super::def::{Kind, Response, ToolDef, ToolError};
use crate::backend::TabInfo;
use crate::page::Client;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TabAction {
    List,
    New,
    Select,
    Close,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TabsArgs {
    pub action: TabAction,
    /// For select, close (default: current).
    pub index: Option<usize>,
    pub url: Option<String>,
    // For new: a browser name from list (the list explains it; no
    // description keeps tools/list within its 10 KiB budget).
    pub browser: Option<String>,
}

pub fn tools() -> Vec<ToolDef> {
    vec![
        ToolDef::new(
            "browser_tabs",
            "Manage tabs",
            Kind::Action,
            "List, open (`url`), select or close your tabs; tools act on the current one.",
            tabs,
        ),
        ToolDef::new(
            "browser_close",
            "Close tab",
            Kind::Action,
            "Close the current tab; returns your other tabs.",
            close,
        ),
    ]
}

/// browser_tabs.
async fn tabs(s: Client, a: TabsArgs) -> Result<Response, ToolError> {
    match a.action {
        TabAction::List => {}
        TabAction::New => {
            let tab = s.open_tab(a.browser.as_deref()).await?;
            if let Some(url) = a.url.as_deref() {
                s.on(tab).go(url).await?;
            }
        }
        TabAction::Select => {
            let index = a.index.ok_or_else(|| {
                ToolError::other("action \"select\" needs `index` (see action \"list\")".into())
            })?;
            let tab = nth(&s, index).await?;
            s.on(tab.tab_id).select().await?;
        }
        TabAction::Close => {
            let tab = match a.index {
                Some(i) => nth(&s, i).await?.tab_id,
                None => s.current_tab().ok_or_else(|| {
                    ToolError::other("there is no current tab to close; pass `index`".into())
                })?,
            };
            s.on(tab).close().await?;
        }
    }
    Ok(Response::text(render_list(&s).await?))
}

/// browser_close.
async fn close(s: Client, _: CloseArgs) -> Result<Response, ToolError> {
    let Some(tab) = s.current_tab() else {
        return Err(ToolError::other("there is no current tab to close".into()));
    };
    s.on(tab).close().await?;
    Ok(Response::text(format!(
        "Closed the tab.\n{}",
        render_list(&s).await?
    )))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CloseArgs {}

async fn nth(s: &Client, index: usize) -> Result<TabInfo, ToolError> {
    let tabs = s.tabs().await?;
    let count = tabs.len();
    tabs.into_iter().nth(index).ok_or_else(|| {
        ToolError::other(format!(
            "there is no tab at index {index}: you have {count} tab(s). Call browser_tabs with \
             action \"list\""
        ))
    })
}

async fn render_list(s: &Client) -> Result<String, ToolError> {
    let tabs = s.tabs().await?;
    // With several browsers (or profiles) connected, say which they are
    // and where each tab is.
    let browsers = s.browsers();
    let several = browsers.len() > 1;
    let header = if several {
        let names: Vec<String> = browsers
            .iter()
            .map(|(name, default)| {
                let here = if *default {
                    " (new tabs open here)"
                } else {
                    ""
                };
                format!("\"{name}\"{here}")
            })
            .collect();
        format!(
            "Browsers connected: {} (open a tab in one with action \"new\" and `browser`).\n",
            names.join(", ")
        )
    } else {
        String::new()
    };
    if tabs.is_empty() {
        return Ok(format!(
            "{header}You have no tabs. Page tools open one when needed."
        ));
    }
    let current = s.current_tab();
    let mut out = format!("{header}Your tabs:\n");
    for (i, t) in tabs.iter().enumerate() {
        let mark = if Some(t.tab_id) == current {
            " (current)"
        } else {
            ""
        };
        // With several browsers connected, each tab names its own.
        let place = match (&t.browser, several) {
            (Some(b), true) => format!(" (in \"{b}\")"),
            _ => String::new(),
        };
        if s.policy().check_url(&t.url).is_ok() {
            // Titles and URLs are the pages' words.
            out.push_str(&format!(
                "- {i}:{mark} {}{place}\n",
                s.fence().quote(&format!("[{}]({})", t.title, t.url))
            ));
        } else {
            out.push_str(&format!("- {i}:{mark} [a page the policy blocks]{place}\n"));
        }
    }
    Ok(out)
}
