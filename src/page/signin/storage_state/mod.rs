//! Storage state: a browser's sign-in as a file, in Playwright's
//! storage-state JSON (`{"cookies": [...], "origins": [...]}`), so a file
//! saved by tabwire loads in Playwright and the other way round.
//!
//! This module holds the file's shape and what a file must be to load
//! (checked before the browser is touched, so a bad file changes
//! nothing); `export.rs` reads a browser's state, `load.rs` puts one
//! into a browser.
//!
//! tabwire adds two fields: an origin's `sessionStorage`, saved for the
//! record and never loaded back (it belongs to a tab, which a new browser
//! does not have), and `passkeys`, the credentials of tabwire's own
//! browser's virtual authenticator (see `page::passkeys`). Fields tabwire does not know (Playwright's `indexedDB`)
//! are ignored.

pub mod export;
pub mod load;
pub mod provenance;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// The largest storage-state file read (bytes).
pub const MAX_FILE: u64 = 64 * 1024 * 1024;
/// The most cookies and origins one file may hold.
const MAX_COOKIES: usize = 20_000;
const MAX_ORIGINS: usize = 2_000;

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StorageState {
    pub cookies: Vec<Cookie>,
    pub origins: Vec<OriginStorage>,
    /// tabwire's addition: the passkeys of tabwire's own browser's virtual
    /// authenticator, as CDP's `WebAuthn.getCredentials` gives them
    /// (`credentialId`, `rpId`, `privateKey`, `userHandle`, `signCount`…).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub passkeys: Vec<Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cookie {
    pub name: String,
    pub value: String,
    /// As the browser keeps it: a leading dot for a cookie sent to every
    /// subdomain, none for one sent to this host only.
    pub domain: String,
    pub path: String,
    /// Unix time in seconds; -1 for a cookie that ends with the session.
    pub expires: f64,
    pub http_only: bool,
    pub secure: bool,
    pub same_site: SameSite,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub enum SameSite {
    Strict,
    Lax,
    None,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OriginStorage {
    /// `scheme://host[:port]`, no path.
    pub origin: String,
    #[serde(default)]
    pub local_storage: Vec<Item>,
    /// tabwire's addition: saved, never loaded (see the module's doc).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub session_storage: Vec<Item>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub name: String,
    pub value: String,
}

impl Cookie {
    /// A cookie as CDP describes it (`Network.getCookies`); None for a
    /// partitioned cookie (CHIPS), which Playwright's format cannot hold
    /// without changing whom it is sent to.
    pub fn from_cdp(c: &Value) -> Option<Self> {
        if !c["partitionKey"].is_null() {
            return None;
        }
        let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
        let session = c["session"].as_bool() == Some(true);
        Some(Self {
            name: text("name"),
            value: text("value"),
            domain: text("domain"),
            path: Some(text("path"))
                .filter(|p| !p.is_empty())
                .unwrap_or_else(|| "/".into()),
            expires: if session {
                -1.0
            } else {
                c["expires"].as_f64().unwrap_or(-1.0)
            },
            http_only: c["httpOnly"].as_bool() == Some(true),
            secure: c["secure"].as_bool() == Some(true),
            // Unset is what the browser treats as Lax.
            same_site: match c["sameSite"].as_str() {
                Some("Strict") => SameSite::Strict,
                Some("None") => SameSite::None,
                _ => SameSite::Lax,
            },
        })
    }

    /// `Network.setCookies`' entry for this cookie, set as if `origin` had
    /// sent it (its scheme and port are what the browser binds the cookie
    /// to). A host-only cookie is given no domain, so it stays host-only.
    pub fn to_cdp(&self, origin: &str) -> Value {
        let mut c = json!({
            "name": self.name,
            "value": self.value,
            "url": format!("{origin}{}", self.path),
            "path": self.path,
            "httpOnly": self.http_only,
            "secure": self.secure,
            "sameSite": match self.same_site {
                SameSite::Strict => "Strict",
                SameSite::Lax => "Lax",
                SameSite::None => "None",
            },
        });
        if self.domain.starts_with('.') {
            c["domain"] = json!(self.domain);
        }
        if self.expires > 0.0 {
            c["expires"] = json!(self.expires);
        }
        c
    }

    /// Whether the browser would send this cookie to `host` (path aside).
    pub fn is_for_host(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        let domain = self.domain.to_ascii_lowercase();
        match domain.strip_prefix('.') {
            Some(d) => host == d || host.ends_with(&format!(".{d}")),
            None => host == domain,
        }
    }

    /// The host the cookie belongs to (its domain without the dot).
    pub fn host(&self) -> &str {
        self.domain.trim_start_matches('.')
    }
}

/// One site of a state to load: an origin to stand on, the cookies set
/// from it and the localStorage put into it.
#[derive(Debug, Clone, PartialEq)]
pub struct Site<'a> {
    pub origin: String,
    pub cookies: Vec<&'a Cookie>,
    pub local_storage: Option<&'a [Item]>,
}

impl StorageState {
    /// Reads the storage-state file at `path` (its size checked before it
    /// is read); Err says what is wrong with it.
    pub fn read(path: &std::path::Path) -> Result<Self, String> {
        let size = std::fs::metadata(path).map_err(|e| e.to_string())?.len();
        if size > MAX_FILE {
            return Err(format!(
                "{size} bytes; a storage-state file may have at most {MAX_FILE}"
            ));
        }
        Self::parse(&std::fs::read(path).map_err(|e| e.to_string())?)
    }

    /// Reads a storage-state file's bytes; Err says what is wrong with it
    /// (nothing has been loaded then).
    pub fn parse(bytes: &[u8]) -> Result<Self, String> {
        if bytes.len() as u64 > MAX_FILE {
            return Err(format!(
                "the file is {} bytes; a storage-state file may have at most {MAX_FILE}",
                bytes.len()
            ));
        }
        let state: Self = serde_json::from_slice(bytes).map_err(|e| {
            format!(
                "it is not a storage-state file ({{\"cookies\": [...], \"origins\": [...]}}, \
                 as Playwright and browser_storage_state write it): {e}"
            )
        })?;
        state.check()?;
        Ok(state)
    }

    fn check(&self) -> Result<(), String> {
        if self.cookies.len() > MAX_COOKIES || self.origins.len() > MAX_ORIGINS {
            return Err(format!(
                "it holds {} cookies and {} origins; at most {MAX_COOKIES} and {MAX_ORIGINS} are loaded",
                self.cookies.len(),
                self.origins.len()
            ));
        }
        for (i, c) in self.cookies.iter().enumerate() {
            let bad = |why: &str| Err(format!("cookie {i} ({:?}): {why}", c.name));
            let host = c.host();
            if host.is_empty()
                || !host
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || "-._[]:".contains(ch))
            {
                return bad("its domain is not a host name");
            }
            if !c.path.starts_with('/') {
                return bad("its path does not start with /");
            }
            if !c.expires.is_finite() {
                return bad("its expiry is not a number of seconds");
            }
            if c.name.contains([';', '=', '\n', '\r']) || c.value.contains([';', '\n', '\r']) {
                return bad("its name or value holds a character a cookie cannot");
            }
        }
        if let Some(i) = self
            .passkeys
            .iter()
            .position(|c| !crate::page::signin::passkeys::is_credential(c))
        {
            return Err(format!(
                "passkey {i} lacks credentialId, rpId or privateKey (as WebAuthn.getCredentials gives them)"
            ));
        }
        for o in &self.origins {
            if origin_of(&o.origin).as_deref() != Some(o.origin.as_str()) {
                return Err(format!(
                    "{:?} is not an origin (scheme://host[:port] of an http(s) site, no path)",
                    o.origin
                ));
            }
        }
        Ok(())
    }

    /// The sites to stand on to load this state: every origin of the
    /// file, then, for cookies no origin of the file receives, their own
    /// host (https for a secure cookie, else http).
    pub fn sites(&self) -> Vec<Site<'_>> {
        let mut sites: Vec<Site> = self
            .origins
            .iter()
            .map(|o| Site {
                origin: o.origin.clone(),
                cookies: Vec::new(),
                local_storage: Some(&o.local_storage),
            })
            .collect();
        for c in &self.cookies {
            let home = sites
                .iter()
                .position(|s| host_of_origin(&s.origin).is_some_and(|h| c.is_for_host(&h)));
            match home {
                Some(i) => sites[i].cookies.push(c),
                None => {
                    let scheme = if c.secure { "https" } else { "http" };
                    let origin = format!("{scheme}://{}", c.host());
                    match sites.iter_mut().find(|s| s.origin == origin) {
                        Some(s) => s.cookies.push(c),
                        None => sites.push(Site {
                            origin,
                            cookies: vec![c],
                            local_storage: None,
                        }),
                    }
                }
            }
        }
        sites
    }

    /// A one-line account of what the state holds (names of sites, never
    /// values).
    pub fn summary(&self) -> String {
        let http_only = self.cookies.iter().filter(|c| c.http_only).count();
        let mut hosts: Vec<&str> = self.cookies.iter().map(Cookie::host).collect();
        hosts.sort_unstable();
        hosts.dedup();
        let local = self
            .origins
            .iter()
            .filter(|o| !o.local_storage.is_empty())
            .count();
        let session = self
            .origins
            .iter()
            .filter(|o| !o.session_storage.is_empty())
            .count();
        let mut s = format!(
            "{} cookies ({http_only} httpOnly) for {}; localStorage of {local} origin(s)",
            self.cookies.len(),
            if hosts.is_empty() {
                "no site".to_string()
            } else {
                hosts.join(", ")
            }
        );
        if !self.passkeys.is_empty() {
            s.push_str(&format!("; {} passkey(s)", self.passkeys.len()));
        }
        if session > 0 {
            s.push_str(&format!(
                "; sessionStorage of {session} origin(s) (kept for the record, not loaded back)"
            ));
        }
        s
    }
}

/// The origin (`scheme://host[:port]`, as browsers write it: default port
/// left out) of an http(s) URL; None otherwise.
pub fn origin_of(url: &str) -> Option<String> {
    let u = url::Url::parse(url).ok()?;
    matches!(u.scheme(), "http" | "https").then(|| u.origin().ascii_serialization())
}

/// The host of an origin (no port; an IPv6 address keeps its brackets).
pub fn host_of_origin(origin: &str) -> Option<String> {
    url::Url::parse(origin).ok()?.host_str().map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie(name: &str, domain: &str, secure: bool) -> Cookie {
        Cookie {
            name: name.into(),
            value: "v".into(),
            domain: domain.into(),
            path: "/".into(),
            expires: -1.0,
            http_only: true,
            secure,
            same_site: SameSite::Lax,
        }
    }

    #[test]
    fn reads_playwrights_file_and_ignores_what_it_does_not_know() {
        let file = br#"{"cookies":[{"name":"sid","value":"abc","domain":".example.com","path":"/",
            "expires":1900000000.5,"httpOnly":true,"secure":true,"sameSite":"None"}],
            "origins":[{"origin":"https://app.example.com","localStorage":[{"name":"k","value":"v"}],
            "indexedDB":[]}]}"#;
        let s = StorageState::parse(file).unwrap();
        assert_eq!(s.cookies[0].same_site, SameSite::None);
        assert_eq!(s.origins[0].local_storage[0].name, "k");
        // Written back in the same shape (no sessionStorage key when empty).
        let out = serde_json::to_value(&s).unwrap();
        assert_eq!(out["cookies"][0]["httpOnly"], true);
        assert!(out["origins"][0].get("sessionStorage").is_none());
    }

    #[test]
    fn bad_files_say_what_is_wrong() {
        let err = StorageState::parse(b"{\"cookies\": 3}").unwrap_err();
        assert!(err.contains("not a storage-state file"), "{err}");
        let err = StorageState::parse(b"not json").unwrap_err();
        assert!(err.contains("not a storage-state file"), "{err}");
        let path = br#"{"cookies":[{"name":"a","value":"b","domain":"x.com","path":"nope",
            "expires":-1,"httpOnly":false,"secure":false,"sameSite":"Lax"}],"origins":[]}"#;
        assert!(StorageState::parse(path).unwrap_err().contains("path"));
        let origin =
            br#"{"cookies":[],"origins":[{"origin":"https://x.com/app","localStorage":[]}]}"#;
        assert!(StorageState::parse(origin)
            .unwrap_err()
            .contains("not an origin"));
        let key =
            br#"{"cookies":[],"origins":[],"passkeys":[{"credentialId":"AA","rpId":"localhost"}]}"#;
        assert!(StorageState::parse(key).unwrap_err().contains("passkey 0"));
        let scheme = br#"{"cookies":[],"origins":[{"origin":"file:///etc","localStorage":[]}]}"#;
        assert!(StorageState::parse(scheme).is_err());
        let domain = br#"{"cookies":[{"name":"a","value":"b","domain":"a b","path":"/",
            "expires":-1,"httpOnly":false,"secure":false,"sameSite":"Lax"}],"origins":[]}"#;
        assert!(StorageState::parse(domain).unwrap_err().contains("domain"));
    }

    #[test]
    fn cookies_from_cdp_keep_their_shape_and_partitioned_ones_are_left_out() {
        let c = Cookie::from_cdp(&json!({"name": "sid", "value": "1", "domain": "127.0.0.1",
            "path": "/", "expires": -1, "session": true, "httpOnly": true, "secure": false}))
        .unwrap();
        assert_eq!(c.expires, -1.0);
        assert_eq!(c.same_site, SameSite::Lax);
        assert!(Cookie::from_cdp(&json!({"name": "p", "domain": "x.com",
            "partitionKey": {"topLevelSite": "https://y.com", "hasCrossSiteAncestor": true}}))
        .is_none());
    }

    #[test]
    fn a_host_only_cookie_stays_host_only_and_takes_the_origins_port() {
        let c = cookie("sid", "127.0.0.1", false);
        let p = c.to_cdp("http://127.0.0.1:8123");
        assert_eq!(p["url"], "http://127.0.0.1:8123/");
        assert!(p.get("domain").is_none());
        assert!(p.get("expires").is_none());
        let d = cookie("sid", ".example.com", true).to_cdp("https://www.example.com");
        assert_eq!(d["domain"], ".example.com");
    }

    #[test]
    fn cookies_are_loaded_from_the_origin_that_receives_them() {
        let state = StorageState {
            cookies: vec![
                cookie("a", "127.0.0.1", false),
                cookie("b", ".example.com", true),
                cookie("c", "other.org", true),
            ],
            origins: vec![
                OriginStorage {
                    origin: "http://127.0.0.1:8123".into(),
                    local_storage: vec![],
                    session_storage: vec![],
                },
                OriginStorage {
                    origin: "https://app.example.com".into(),
                    local_storage: vec![Item {
                        name: "k".into(),
                        value: "v".into(),
                    }],
                    session_storage: vec![],
                },
            ],
            passkeys: vec![],
        };
        let sites = state.sites();
        let names = |s: &Site| s.cookies.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
        assert_eq!(sites.len(), 3);
        assert_eq!(names(&sites[0]), ["a"]);
        assert_eq!(names(&sites[1]), ["b"]);
        assert_eq!(sites[2].origin, "https://other.org");
        assert!(sites[2].local_storage.is_none());
        let summary = state.summary();
        assert!(summary.contains("3 cookies (3 httpOnly)"), "{summary}");
        assert!(!summary.contains("\"v\""), "{summary}");
    }

    #[test]
    fn origins_and_hosts() {
        assert_eq!(
            origin_of("HTTP://User@Example.com:8080/a?b").as_deref(),
            Some("http://example.com:8080")
        );
        assert_eq!(origin_of("about:blank"), None);
        // Browsers leave a scheme's default port out of an origin.
        assert_eq!(
            origin_of("https://example.com:443/x").as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            host_of_origin("http://127.0.0.1:80").as_deref(),
            Some("127.0.0.1")
        );
        assert_eq!(host_of_origin("http://[::1]:80").as_deref(), Some("[::1]"));
    }
}
