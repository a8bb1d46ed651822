//! This client's tabs as a whole: list them (and the browsers they are
//! in), open one (and make it current), bring one to the front, close one.
//! One tab's own state and commands are in `tab.rs`.

use super::client::Client;
use crate::backend::{TabId, TabInfo};
use crate::error::ToolError;
use crate::page::tab::current::Tab;

impl Client {
    /// This client's tabs, in a stable order.
    pub async fn tabs(&self) -> Result<Vec<TabInfo>, ToolError> {
        Ok(self.backend().list_tabs().await?)
    }

    /// The browsers connected (name, whether new tabs open there).
    pub fn browsers(&self) -> Vec<(String, bool)> {
        self.backend().browsers()
    }

    /// Opens a blank tab (in the browser named `browser`, if given) and
    /// makes it the current one.
    pub async fn open_tab(&self, browser: Option<&str>) -> Result<TabId, ToolError> {
        let tab = self
            .backend()
            .new_tab_in("about:blank", &self.client_name(), browser)
            .await?;
        self.set_current(Some(tab.tab_id));
        Ok(tab.tab_id)
    }

    /// Why the user stopped browser control, while they have.
    pub fn stopped_by_user(&self) -> Option<String> {
        self.backend()
            .user_stop()
            .and_then(|rx| rx.borrow().clone())
    }

    /// Which browser serves this client and why, in words.
    pub async fn browser_status(&self) -> String {
        self.backend().status().await
    }
}

impl Tab {
    /// Brings `tab` to the front and makes it the current one.
    pub async fn select(&self) -> Result<(), ToolError> {
        let tab = self.id();
        self.client().backend().select_tab(tab).await?;
        self.client().set_current(Some(tab));
        Ok(())
    }

    /// Closes `tab` (no longer current, if it was).
    pub async fn close(&self) -> Result<(), ToolError> {
        let tab = self.id();
        let leaving = self.leaving();
        self.client().backend().close_tab(tab).await?;
        drop(leaving);
        if self.client().current_tab() == Some(tab) {
            self.client().set_current(None);
        }
        Ok(())
    }
}
