//! Reading a browser's storage state: the cookies of the sites this
//! client's tabs show and each of those origins' web storage.
//!
//! Which cookies depends on whose browser it is. tabwire's own browser
//! (the CDP fallback) holds nothing but what this server did, so all of
//! its cookies are saved, as Playwright saves a context's. The user's own
//! browser (through the extension) holds their whole life: only the
//! cookies the browser would send to the pages the client's tabs have open
//! (and to their origins' roots) leave it, asked from each tab, so the
//! extension's per-tab checks (policy, the user's consent) apply to each.
//! Either way a cookie of a site the policy keeps out is never saved.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use super::{origin_of, Cookie, Item, OriginStorage, StorageState};
use crate::backend::TabId;
use crate::error::ToolError;
use crate::page::Client;

/// A state read from the browser, and what was left out of it.
pub struct Exported {
    pub state: StorageState,
    /// Partitioned cookies left out (the format cannot hold them).
    pub partitioned: usize,
    /// Whether all of the browser's cookies were read (tabwire's own
    /// browser) or only those of the open tabs' sites (the user's).
    pub whole_browser: bool,
}

/// Reads both storages of the page's origin (the page's own scripts could
/// only fake their own data). Storage a page may not use (a sandboxed
/// frame, disabled storage) reads as empty.
const WEB_STORAGE: &str = r#"() => {
  const read = (area) => { try { return Object.entries(globalThis[area] ?? {}); } catch { return []; } };
  return { local: read("localStorage"), session: read("sessionStorage") };
}"#;

impl Client {
    /// The storage state of this client's tabs (see the module's doc).
    pub async fn export_storage_state(&self) -> Result<Exported, ToolError> {
        let tabs = self.tabs().await?;
        // One tab per origin the policy allows, the first found.
        let mut origins: BTreeMap<String, (TabId, String)> = BTreeMap::new();
        for t in &tabs {
            let Some(origin) = origin_of(&t.url) else {
                continue;
            };
            if self.policy().check_url(&t.url).is_ok() {
                origins.entry(origin).or_insert((t.tab_id, t.url.clone()));
            }
        }
        let Some(&(any_tab, _)) = origins.values().next() else {
            return Err(ToolError::other(
                "none of your tabs shows a web page whose sign-in could be saved: open the site \
                 with browser_navigate (and sign in) first"
                    .into(),
            ));
        };
        let whole_browser = self.backend().is_own_browser(any_tab);
        let mut raw: Vec<Value> = Vec::new();
        if whole_browser {
            let r = self
                .on(any_tab)
                .cdp("Network.getAllCookies", json!({}))
                .await?;
            raw.extend(r["cookies"].as_array().cloned().unwrap_or_default());
        } else {
            for (origin, (tab, url)) in &origins {
                let urls = json!([url, format!("{origin}/")]);
                let r = self
                    .on(*tab)
                    .cdp("Network.getCookies", json!({ "urls": urls }))
                    .await?;
                raw.extend(r["cookies"].as_array().cloned().unwrap_or_default());
            }
        }
        let (cookies, partitioned) = self.allowed_cookies(&raw);
        // Passkeys only from tabwire's own browser: the user's live in
        // their own authenticators, whose keys never leave them.
        let passkeys = if whole_browser {
            self.passkeys_now().await
        } else {
            Vec::new()
        };
        let mut state = StorageState {
            cookies,
            origins: Vec::new(),
            passkeys,
        };
        for (origin, (tab, _)) in &origins {
            let r = self.on(*tab).call_page(WEB_STORAGE, Value::Null).await?;
            let items = |area: &str| -> Vec<Item> {
                r[area]
                    .as_array()
                    .map(|kv| {
                        kv.iter()
                            .map(|p| Item {
                                name: p[0].as_str().unwrap_or_default().to_string(),
                                value: p[1].as_str().unwrap_or_default().to_string(),
                            })
                            .collect()
                    })
                    .unwrap_or_default()
            };
            // Every open origin is listed, storage or not: a loader then
            // sets its cookies from it (with its port and scheme).
            state.origins.push(OriginStorage {
                origin: origin.clone(),
                local_storage: items("local"),
                session_storage: items("session"),
            });
        }
        Ok(Exported {
            state,
            partitioned,
            whole_browser,
        })
    }

    /// The cookies among CDP's `raw` that the policy allows, each once;
    /// and how many partitioned ones were left out.
    fn allowed_cookies(&self, raw: &[Value]) -> (Vec<Cookie>, usize) {
        let mut partitioned = 0;
        let mut seen = std::collections::HashSet::new();
        let mut cookies = Vec::new();
        for c in raw {
            let Some(cookie) = Cookie::from_cdp(c) else {
                partitioned += 1;
                continue;
            };
            let allowed = self
                .policy()
                .check_url(&format!("https://{}/", cookie.host()))
                .is_ok();
            let key = (
                cookie.name.clone(),
                cookie.domain.clone(),
                cookie.path.clone(),
            );
            if allowed && seen.insert(key) {
                cookies.push(cookie);
            }
        }
        (cookies, partitioned)
    }
}
