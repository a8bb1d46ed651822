//! The browser's cookie jar, as tools read and change it: the cookies a
//! URL would send, one set, one deleted (by name, domain and path).

use serde_json::{json, Value};

use crate::error::ToolError;
use crate::page::tab::current::Tab;

impl Tab {
    /// The cookies the browser would send to `url`, as CDP describes them.
    pub async fn cookies_for(&self, url: &str) -> Result<Vec<Value>, ToolError> {
        let r = self
            .cdp("Network.getCookies", json!({"urls": [url]}))
            .await?;
        Ok(r["cookies"].as_array().cloned().unwrap_or_default())
    }

    /// Sets a cookie (CDP's `Network.setCookie` fields); whether the
    /// browser took it.
    pub async fn set_cookie(&self, cookie: Value) -> Result<bool, ToolError> {
        let r = self.cdp("Network.setCookie", cookie).await?;
        Ok(r["success"].as_bool() != Some(false))
    }

    /// Deletes exactly this cookie (its name, domain and path).
    pub async fn delete_cookie(&self, cookie: &Value) -> Result<(), ToolError> {
        self.cdp(
            "Network.deleteCookies",
            json!({"name": cookie["name"], "domain": cookie["domain"], "path": cookie["path"]}),
        )
        .await
        .map(|_| ())
    }
}
