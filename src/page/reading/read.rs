//! Reading a page or an element as a person sees it, through the engine's
//! readers (text, Markdown, links), alongside the page line.

use crate::error::ToolError;
use crate::page::tab::current::Tab;

impl Tab {
    /// Reads the page (or the `target` element) with `reader`, a JS function
    /// called with the element (null: the page) as `this` and `arg`, in the
    /// snapshot engine's world, where it may ask `globalThis.__tabwire.seen(node)`
    /// whether a person can see a node. Returns its value, how many blocks of
    /// text it left out as unseen, and the page line (read alongside).
    pub async fn read_with_page_line(
        &self,
        target: Option<&str>,
        reader: &str,
        arg: serde_json::Value,
    ) -> Result<(serde_json::Value, usize, String), ToolError> {
        let hidden_of = |r: &serde_json::Value| r["hidden"].as_u64().unwrap_or(0) as usize;
        let Some(t) = target else {
            // The whole page: the engine's answer carries the page line's
            // title and URL.
            let args = format!("{reader}, {arg}, null");
            let mut r = self
                .engine_value::<serde_json::Value>(0, "read", &args)
                .await?
                .unwrap_or_default();
            // Text the rules cannot vouch for: the pixels decide (see
            // super::pixels), and the page is read again when they hid any.
            if r["doubts"].as_u64().unwrap_or(0) > 0 && self.hid_any().await {
                r = self
                    .engine_value::<serde_json::Value>(0, "read", &args)
                    .await?
                    .unwrap_or_default();
            }
            let page = match (r["title"].as_str(), r["url"].as_str()) {
                (Some(title), Some(url)) => self.page_head(title, url),
                // An engine from before it said them.
                _ => self.page_line().await?,
            };
            return Ok((r["value"].clone(), hidden_of(&r), page));
        };
        let read = async {
            let el = self.element(t).await?;
            let call =
                format!("function(a) {{ return globalThis.__tabwire.read({reader}, a, this); }}");
            let r = self.call_on(el, &call, arg).await?;
            Ok::<_, ToolError>((r["value"].clone(), hidden_of(&r)))
        };
        let ((value, hidden), page) = tokio::try_join!(read, self.page_line())?;
        Ok((value, hidden, page))
    }
}
