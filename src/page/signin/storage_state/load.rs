//! Putting a storage state into a browser: cookies and localStorage,
//! site by site, from a tab that stands on each site.
//!
//! localStorage can only be written by a page of its origin, so a
//! scratch tab opens each origin of the file at a path tabwire answers
//! itself (a route fulfils it with an empty page: the site's server is
//! never asked), writes the origin's storage and sets the cookies the
//! origin receives, then closes. Standing on the site also means the
//! extension's checks of each site (policy, the user's consent) apply.
//!
//! What is cleared first depends on whose browser it is: tabwire's own
//! browser loses all its cookies (the file replaces its state, as
//! Playwright's does); the user's browser loses only the cookies and
//! localStorage of the sites in the file.

use serde_json::{json, Value};

use super::{Site, StorageState};
use crate::error::ToolError;
use crate::page::network::routes::RouteSpec;
use crate::page::tab::current::Tab;
use crate::page::Client;

/// The path a scratch tab opens on each site (answered by tabwire).
const SCRATCH_PATH: &str = "/__tabwire_storage_state__";

/// Replaces the origin's localStorage by `items` ([[name, value], …]).
const SET_LOCAL: &str = r#"(items) => {
  localStorage.clear();
  for (const [k, v] of items) localStorage.setItem(k, v);
  return localStorage.length;
}"#;

/// `serve --storage-state`: the state tabwire's own browser starts with,
/// and the browser generation it was last loaded into (the client's slot).
#[derive(Default)]
struct StartState(Option<(std::sync::Arc<StorageState>, Option<u64>)>);

/// Loads the start state before the first page of tabwire's own browser
/// (and of each browser that replaces it); never into the user's.
pub struct Feature;

impl crate::page::tab::feature::TabFeature for Feature {
    fn chosen<'a>(
        &'a self,
        tab: &'a Tab,
    ) -> crate::page::tab::feature::Hook<'a, Result<(), ToolError>> {
        Box::pin(async move {
            if let Some(state) = tab.start_state_due() {
                tab.load_storage_state_in(&state).await.map_err(|e| {
                    let text = format!("could not load the --storage-state file: {e}");
                    e.retold(text)
                })?;
            }
            Ok(())
        })
    }
}

impl Client {
    /// Loads `state` into tabwire's own browser before its first page
    /// (and into each browser that replaces it); never into the user's.
    pub fn start_with_state(&self, state: StorageState) {
        self.slot::<StartState>().0 = Some((std::sync::Arc::new(state), None));
    }
}

impl Tab {
    /// The start state, if `tab`'s browser has yet to get it: marked as
    /// given (a failed load is reported once, not on every call).
    fn start_state_due(&self) -> Option<std::sync::Arc<StorageState>> {
        let tab = self.id();
        if !self.client().backend().is_own_browser(tab) {
            return None;
        }
        let generation = self.client().backend().generation();
        let mut slot = self.client().slot::<StartState>();
        let (state, loaded_in) = slot.0.as_mut()?;
        if *loaded_in == Some(generation) {
            return None;
        }
        *loaded_in = Some(generation);
        Some(state.clone())
    }
}

/// What a load did.
pub struct Loaded {
    pub sites: usize,
    pub cookies: usize,
    pub local_origins: usize,
    pub whole_browser: bool,
    /// Passkeys given to tabwire's own browser's virtual authenticator.
    pub passkeys: usize,
    /// Passkeys not loaded: the user's browser has its own authenticators.
    pub passkeys_left_out: usize,
}

impl Client {
    /// Loads `state` (see the module's doc). Every site is checked
    /// against the policy first: a file naming a site the policy keeps
    /// out is refused whole, before anything changes.
    /// `users_word`: the file is one the user vouches for (tabwire wrote
    /// it, or it is in an upload directory); only such a file loads into
    /// the user's own browser (see `provenance`).
    pub async fn load_storage_state(
        &self,
        state: &StorageState,
        users_word: bool,
    ) -> Result<Loaded, ToolError> {
        let sites = self.allowed_sites(state)?;
        let scratch = self
            .backend()
            .new_tab("about:blank", &self.client_name())
            .await?
            .tab_id;
        if !users_word && !self.backend().is_own_browser(scratch) {
            let _ = self.backend().close_tab(scratch).await;
            return Err(ToolError::new(
                crate::error::ErrorKind::PolicyRefused,
                "nothing was loaded: your own browser takes only storage states tabwire saved \
                 itself (browser_storage_state) or files in an upload directory (--upload-dir). \
                 Any page can put a file in the download directory, and a stranger's state would \
                 sign your browser into their accounts. Ask the user to put the file in an upload \
                 directory if they want it loaded"
                    .into(),
            ));
        }
        let r = self.on(scratch).load_from(&sites, &state.passkeys).await;
        let _ = self.backend().close_tab(scratch).await;
        r
    }

    /// The sites of `state`, if the policy allows every one.
    fn allowed_sites<'a>(&self, state: &'a StorageState) -> Result<Vec<Site<'a>>, ToolError> {
        let sites = state.sites();
        let denied: Vec<String> = sites
            .iter()
            .filter_map(|s| {
                self.policy()
                    .check_url(&format!("{}/", s.origin))
                    .err()
                    .map(|why| format!("{} ({why})", s.origin))
            })
            .collect();
        if !denied.is_empty() {
            return Err(ToolError::new(
                crate::error::ErrorKind::PolicyRefused,
                format!(
                    "nothing was loaded: the file holds sites the policy keeps out: {}",
                    denied.join("; ")
                ),
            ));
        }
        Ok(sites)
    }
}

impl Tab {
    /// Loads `state` from `tab`, a blank tab about to show its first page
    /// (`serve --storage-state`), which is left blank again.
    pub async fn load_storage_state_in(&self, state: &StorageState) -> Result<Loaded, ToolError> {
        let sites = self.client().allowed_sites(state)?;
        let r = self.load_from(&sites, &state.passkeys).await;
        let _ = self
            .cdp("Page.navigate", json!({"url": "about:blank"}))
            .await;
        r
    }

    async fn load_from(&self, sites: &[Site<'_>], passkeys: &[Value]) -> Result<Loaded, ToolError> {
        let tab = self.id();
        let whole_browser = self.client().backend().is_own_browser(tab);
        if whole_browser && !passkeys.is_empty() {
            self.client().add_passkeys(passkeys).await?;
        }
        if whole_browser {
            self.cdp("Network.clearBrowserCookies", json!({})).await?;
        }
        let mut loaded = Loaded {
            sites: 0,
            cookies: 0,
            local_origins: 0,
            whole_browser,
            passkeys: if whole_browser { passkeys.len() } else { 0 },
            passkeys_left_out: if whole_browser { 0 } else { passkeys.len() },
        };
        for (i, site) in sites.iter().enumerate() {
            self.client().set_progress(Some(format!(
                "loading the storage state: site {} of {} ({})",
                i + 1,
                sites.len(),
                site.origin
            )));
            self.load_site(site, whole_browser).await.map_err(|e| {
                let text = format!(
                    "loading {} failed after {} of {} sites were loaded: {e}",
                    site.origin,
                    i,
                    sites.len()
                );
                e.retold(text)
            })?;
            loaded.sites += 1;
            loaded.cookies += site.cookies.len();
            loaded.local_origins += usize::from(site.local_storage.is_some());
        }
        self.client().set_progress(None);
        Ok(loaded)
    }

    async fn load_site(&self, site: &Site<'_>, whole_browser: bool) -> Result<(), ToolError> {
        let url = format!("{}{SCRATCH_PATH}", site.origin);
        self.add_route(RouteSpec {
            pattern: &url,
            abort: false,
            status: Some(200),
            body: Some("<!doctype html><title>tabwire</title>"),
            body_file: None,
            content_type: Some("text/html"),
            headers: Vec::new(),
        })
        .await?;
        let r = self.write_site(site, &url, whole_browser).await;
        let _ = self.remove_routes(Some(&url)).await;
        r
    }

    async fn write_site(
        &self,
        site: &Site<'_>,
        url: &str,
        whole_browser: bool,
    ) -> Result<(), ToolError> {
        self.go(url).await?;
        if !whole_browser {
            // The user's browser: this site's cookies make way for the
            // file's, nobody else's.
            let root = format!("{}/", site.origin);
            for c in self.cookies_for(&root).await? {
                self.delete_cookie(&c).await?;
            }
        }
        if !site.cookies.is_empty() {
            let cookies: Vec<Value> = site
                .cookies
                .iter()
                .map(|c| c.to_cdp(&site.origin))
                .collect();
            self.cdp("Network.setCookies", json!({ "cookies": cookies }))
                .await?;
        }
        if let Some(items) = site.local_storage {
            let pairs: Vec<[&str; 2]> = items
                .iter()
                .map(|i| [i.name.as_str(), i.value.as_str()])
                .collect();
            self.call_page(SET_LOCAL, json!(pairs)).await?;
        }
        Ok(())
    }
}
