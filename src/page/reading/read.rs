//! Reading a page or an element as a person sees it, through the engine's
//! readers (text, Markdown, links), alongside the page line.

use crate::backend::TabId;
use crate::error::ToolError;
use crate::page::tab::client::Client;

/// Reads the page (or the `target` element) with `reader`, a JS function
/// called with the element (null: the page) as `this` and `arg`, in the
/// snapshot engine's world, where it may ask `globalThis.__tabwire.seen(node)`
/// whether a person can see a node. Returns its value, how many blocks of
/// text it left out as unseen, and the page line (read alongside).
pub async fn read_with_page_line(
    s: &Client,
    tab: TabId,
    target: Option<&str>,
    reader: &str,
    arg: serde_json::Value,
) -> Result<(serde_json::Value, usize, String), ToolError> {
    let hidden_of = |r: &serde_json::Value| r["hidden"].as_u64().unwrap_or(0) as usize;
    let Some(t) = target else {
        // The whole page: the engine's answer carries the page line's
        // title and URL.
        let args = format!("{reader}, {arg}, null");
        let mut r = s
            .engine_value::<serde_json::Value>(tab, 0, "read", &args)
            .await?
            .unwrap_or_default();
        // Text the rules cannot vouch for: the pixels decide (see
        // super::pixels), and the page is read again when they hid any.
        if r["doubts"].as_u64().unwrap_or(0) > 0 && super::pixels::hid_any(s, tab).await {
            r = s
                .engine_value::<serde_json::Value>(tab, 0, "read", &args)
                .await?
                .unwrap_or_default();
        }
        let page = match (r["title"].as_str(), r["url"].as_str()) {
            (Some(title), Some(url)) => s.page_head(tab, title, url),
            // An engine from before it said them.
            _ => s.page_line(tab).await?,
        };
        return Ok((r["value"].clone(), hidden_of(&r), page));
    };
    let read = async {
        let el = s.element(tab, t).await?;
        let call =
            format!("function(a) {{ return globalThis.__tabwire.read({reader}, a, this); }}");
        let r = s.call_on(tab, el, &call, arg).await?;
        Ok::<_, ToolError>((r["value"].clone(), hidden_of(&r)))
    };
    let ((value, hidden), page) = tokio::try_join!(read, s.page_line(tab))?;
    Ok((value, hidden, page))
}
