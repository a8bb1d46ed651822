//! What an agent may reach: domains, tools, file access.
//!
//! The policy comes from an optional file in tabwire's config dir
//! (`policy.toml` or `policy.json`, or `--policy FILE`) and from `serve`
//! flags; a flag that is given wins over the file. It is enforced in Rust
//! for both backends: domains before navigating and before every read or
//! action on a tab, tools in `tools/list` and on every call.
//!
//! This file holds the rules and their checks; where a policy comes from
//! is `load.rs`, how a URL's host is read and matched against a domain
//! glob is `hosts.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

mod hosts;
mod load;

pub use hosts::glob_matches;
use hosts::host_of;
pub use load::{config_dir, Credential, PolicyArgs};

/// What a tool does to the page; mapped to MCP annotations in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only reads (snapshot, screenshot, listing).
    ReadOnly,
    /// Changes page or browser state (navigate, click, type, evaluate).
    Action,
    /// Runs what the page declares (its WebMCP tools): read-only or not as
    /// the page marks each one, so a read-only server offers it and lets
    /// it run only tools the page marks read-only.
    PageDeclared,
}

/// The opt-in groups of tools (`serve --caps`): each adds its tools to
/// `tools/list`; none is on by default, so the default list stays small.
/// The names are playwright-mcp's where it has the group.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Cap {
    /// Mock, block or change requests; offline and throttling; HAR export.
    Network,
    /// Device presets, geolocation, timezone, locale, media features, CPU.
    Emulation,
    /// Input at the coordinates of a screenshot.
    Vision,
    /// Performance traces with insights; screen recordings.
    Devtools,
    /// Assertions and test export.
    Testing,
    /// Cookies, web storage, and sign-in saved to a file and loaded again
    /// (storage state).
    Storage,
    /// The current page's own tools (WebMCP), each offered as an MCP tool
    /// of its own (`page_<name>`), kept current with `list_changed`.
    #[serde(rename = "page-tools")]
    PageTools,
}

impl Cap {
    pub fn name(self) -> &'static str {
        match self {
            Cap::Network => "network",
            Cap::Emulation => "emulation",
            Cap::Vision => "vision",
            Cap::Devtools => "devtools",
            Cap::Testing => "testing",
            Cap::Storage => "storage",
            Cap::PageTools => "page-tools",
        }
    }
}

/// The policy in force. Serializable so `browser_status` can show it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Policy {
    pub allow_domains: Vec<String>,
    pub deny_domains: Vec<String>,
    pub read_only: bool,
    pub no_eval: bool,
    /// Empty means every tool.
    pub tools: Vec<String>,
    /// Groups of tools switched on (`--caps` replaces the file's list).
    pub caps: Vec<Cap>,
    /// Groups this policy refuses, whoever asks for them.
    pub deny_caps: Vec<Cap>,
    pub allow_file_urls: bool,
    /// The user approves each site (registrable domain) per client, in the
    /// browser, before the client opens or acts on it (extension only).
    pub confirm_sites: bool,
    pub upload_dirs: Vec<PathBuf>,
    /// None: `<data dir>/downloads`.
    pub download_dir: Option<PathBuf>,
    /// None: [`DEFAULT_MAX_DOWNLOAD_MB`].
    pub max_download_mb: Option<u64>,
    /// Answers to HTTP authentication challenges, per host.
    pub credentials: Vec<Credential>,
    /// Named secrets (`serve --secrets`): never in the policy file, never
    /// shown (`Debug` lists names only).
    #[serde(skip)]
    pub secrets: std::sync::Arc<crate::secrets::Secrets>,
}

/// The size cap on saved files when the policy sets none.
pub const DEFAULT_MAX_DOWNLOAD_MB: u64 = 100;

impl Policy {
    /// The groups of tools on: asked for and not refused.
    pub fn caps_on(&self) -> Vec<Cap> {
        let on: BTreeSet<Cap> = self
            .caps
            .iter()
            .copied()
            .filter(|c| !self.deny_caps.contains(c))
            .collect();
        on.into_iter().collect()
    }

    /// Whether a tool (of the group `cap`, if any) is offered at all; Err
    /// says why not.
    pub fn tool_allowed(&self, name: &str, kind: Kind, cap: Option<Cap>) -> Result<(), String> {
        if let Some(cap) = cap {
            if self.deny_caps.contains(&cap) {
                return Err(format!(
                    "{name} belongs to the {} group of tools, which the policy refuses",
                    cap.name()
                ));
            }
            if !self.caps.contains(&cap) {
                return Err(format!(
                    "{name} belongs to the {0} group of tools, which this server does not offer \
                     (start it with --caps {0})",
                    cap.name()
                ));
            }
        }
        if !self.tools.is_empty() && !self.tools.iter().any(|t| t == name) {
            return Err(format!(
                "{name} is not among the tools this server exposes (--tools)"
            ));
        }
        if self.read_only && kind == Kind::Action {
            return Err(format!(
                "{name} changes the page, and this server is read-only (--read-only)"
            ));
        }
        if self.no_eval && name == "browser_evaluate" {
            return Err("JavaScript evaluation is disabled (--no-eval)".into());
        }
        Ok(())
    }

    /// Whether a page at `url` may be opened or read; Err says why not.
    pub fn check_url(&self, url: &str) -> Result<(), String> {
        let (scheme, rest) = url.split_once(':').unwrap_or(("", url));
        match scheme.to_ascii_lowercase().as_str() {
            "about" if matches!(rest, "blank" | "srcdoc") => return Ok(()),
            "file" if self.allow_file_urls => return Ok(()),
            "file" => {
                return Err(format!(
                    "{url} is a local file, and file:// URLs are not allowed (--allow-file-urls)"
                ))
            }
            "http" | "https" => {}
            _ => {
                return Err(format!(
                    "{url}: only http(s) pages (and about:blank) may be opened"
                ))
            }
        }
        let host = host_of(url)?;
        if let Some(g) = self.deny_domains.iter().find(|g| glob_matches(g, &host)) {
            return Err(format!("{host} is blocked by the policy (deny-domain {g})"));
        }
        if !self.allow_domains.is_empty()
            && !self.allow_domains.iter().any(|g| glob_matches(g, &host))
        {
            return Err(format!(
                "{host} is not among the allowed domains ({})",
                self.allow_domains.join(", ")
            ));
        }
        Ok(())
    }

    /// Whether a file may be uploaded: an existing absolute path under an
    /// allowed directory (after resolving `..` and links).
    pub fn check_upload(&self, path: &Path) -> Result<PathBuf, String> {
        if !path.is_absolute() {
            return Err(format!("{} is not an absolute path", path.display()));
        }
        let real = path
            .canonicalize()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if !real.is_file() {
            return Err(format!("{} is not a file", path.display()));
        }
        let allowed = self
            .upload_dirs
            .iter()
            .filter_map(|d| d.canonicalize().ok())
            .any(|d| real.starts_with(d));
        if allowed {
            Ok(real)
        } else if self.upload_dirs.is_empty() {
            Err(
                "uploads are disabled: start serve with --upload-dir DIR to allow files from DIR"
                    .into(),
            )
        } else {
            Err(format!(
                "{} is outside the upload directories",
                path.display()
            ))
        }
    }

    /// The domain rules in the shape the extension checks them
    /// (`extension/policy.js`).
    pub fn for_extension(&self) -> serde_json::Value {
        serde_json::json!({
            "allowDomains": self.allow_domains,
            "denyDomains": self.deny_domains,
            "allowFileUrls": self.allow_file_urls,
            "confirmSites": self.confirm_sites,
        })
    }

    /// The credentials for an authentication challenge from `origin`
    /// (`scheme://host[:port]`): only those given for its host, and never
    /// for a host the domain rules keep out.
    pub fn credentials_for(&self, origin: &str) -> Result<&Credential, String> {
        self.check_url(origin)?;
        let host = host_of(origin)?;
        self.credentials
            .iter()
            .find(|c| glob_matches(&c.host, &host))
            .ok_or_else(|| format!("no credentials are configured for {host}"))
    }

    /// The only directory files are saved into.
    pub fn download_dir(&self) -> PathBuf {
        self.download_dir
            .clone()
            .unwrap_or_else(|| crate::paths::data_dir().join("downloads"))
    }

    /// The size cap on one saved file, in bytes.
    pub fn max_download_bytes(&self) -> u64 {
        self.max_download_mb.unwrap_or(DEFAULT_MAX_DOWNLOAD_MB) * 1024 * 1024
    }

    pub fn summary(&self) -> String {
        let list = |v: &[String]| {
            if v.is_empty() {
                "any".to_string()
            } else {
                v.join(", ")
            }
        };
        let tools: BTreeSet<_> = self.tools.iter().collect();
        format!(
            "Policy: allowed domains: {}; denied domains: {}; read-only: {}; eval: {}; tools: {}; groups of tools: {}; file URLs: {}; upload dirs: {}; downloads: {} (max {} MiB); credentials for: {}{}{}",
            list(&self.allow_domains),
            if self.deny_domains.is_empty() { "none".into() } else { self.deny_domains.join(", ") },
            if self.read_only { "yes" } else { "no" },
            if self.no_eval { "off" } else { "on" },
            if tools.is_empty() { "all".into() } else { tools.into_iter().cloned().collect::<Vec<_>>().join(", ") },
            self.caps_summary(),
            if self.allow_file_urls { "allowed" } else { "blocked" },
            if self.upload_dirs.is_empty() { "none".into() } else { self.upload_dirs.iter().map(|d| d.display().to_string()).collect::<Vec<_>>().join(", ") },
            self.download_dir().display(),
            self.max_download_mb.unwrap_or(DEFAULT_MAX_DOWNLOAD_MB),
            if self.credentials.is_empty() { "none".into() } else { self.credentials.iter().map(|c| c.host.as_str()).collect::<Vec<_>>().join(", ") },
            if self.confirm_sites { "; sites need the user's yes: on" } else { "" },
            if self.secrets.is_empty() { String::new() } else {
                format!("; named secrets (type one by its name): {}", self.secrets.names().collect::<Vec<_>>().join(", "))
            },
        )
    }
}

impl Policy {
    /// The groups on, and those asked for but refused.
    fn caps_summary(&self) -> String {
        let on = self.caps_on();
        let mut out = if on.is_empty() {
            "none (serve --caps adds them)".to_string()
        } else {
            on.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
        };
        let refused: Vec<_> = self
            .caps
            .iter()
            .filter(|c| self.deny_caps.contains(c))
            .map(|c| c.name())
            .collect();
        if !refused.is_empty() {
            out.push_str(&format!(" ({} refused by the policy)", refused.join(", ")));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allow: &[&str], deny: &[&str]) -> Policy {
        Policy {
            allow_domains: allow.iter().map(|s| s.to_string()).collect(),
            deny_domains: deny.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        }
    }

    #[test]
    fn deny_wins_and_allow_limits() {
        let p = policy(&["*.example.com"], &["bank.example.com"]);
        assert!(p.check_url("https://shop.example.com/cart").is_ok());
        assert!(p
            .check_url("https://bank.example.com/")
            .unwrap_err()
            .contains("blocked"));
        assert!(p
            .check_url("https://evil.org/")
            .unwrap_err()
            .contains("not among the allowed"));
        // A userinfo trick does not smuggle a host past the check.
        assert!(p.check_url("https://shop.example.com@evil.org/").is_err());
        assert!(p.check_url("about:blank").is_ok());
    }

    #[test]
    fn file_and_other_schemes_need_permission() {
        let mut p = Policy::default();
        assert!(p.check_url("file:///etc/passwd").is_err());
        assert!(p.check_url("chrome://settings").is_err());
        assert!(p.check_url("javascript:alert(1)").is_err());
        p.allow_file_urls = true;
        assert!(p.check_url("file:///etc/passwd").is_ok());
    }

    #[test]
    fn tool_rules() {
        let p = Policy {
            read_only: true,
            no_eval: true,
            ..Default::default()
        };
        assert!(p
            .tool_allowed("browser_snapshot", Kind::ReadOnly, None)
            .is_ok());
        assert!(p
            .tool_allowed("browser_click", Kind::Action, None)
            .unwrap_err()
            .contains("read-only"));
        let p = Policy {
            no_eval: true,
            ..Default::default()
        };
        assert!(p
            .tool_allowed("browser_evaluate", Kind::Action, None)
            .unwrap_err()
            .contains("--no-eval"));
        let p = Policy {
            tools: vec!["browser_snapshot".into()],
            ..Default::default()
        };
        assert!(p.tool_allowed("browser_click", Kind::Action, None).is_err());
        assert!(p
            .tool_allowed("browser_snapshot", Kind::ReadOnly, None)
            .is_ok());
    }

    #[test]
    fn groups_of_tools_are_off_until_asked_and_the_policy_can_refuse_them() {
        let p = Policy::default();
        assert!(p
            .tool_allowed("browser_mouse_click_xy", Kind::Action, Some(Cap::Vision))
            .unwrap_err()
            .contains("--caps vision"));
        let p = Policy {
            caps: vec![Cap::Vision, Cap::Network],
            deny_caps: vec![Cap::Network],
            ..Default::default()
        };
        assert!(p
            .tool_allowed("browser_mouse_click_xy", Kind::Action, Some(Cap::Vision))
            .is_ok());
        assert!(p
            .tool_allowed("browser_route", Kind::Action, Some(Cap::Network))
            .unwrap_err()
            .contains("refuses"));
        assert_eq!(p.caps_on(), vec![Cap::Vision]);
        assert!(p
            .summary()
            .contains("groups of tools: vision (network refused by the policy)"));
        // Read-only still applies inside a group.
        let p = Policy {
            caps: vec![Cap::Vision],
            read_only: true,
            ..Default::default()
        };
        assert!(p
            .tool_allowed("browser_mouse_click_xy", Kind::Action, Some(Cap::Vision))
            .is_err());
        // The file names groups as lowercase words.
        let f: Policy = toml::from_str("caps = [\"vision\"]\ndeny_caps = [\"devtools\"]").unwrap();
        assert_eq!(
            (f.caps, f.deny_caps),
            (vec![Cap::Vision], vec![Cap::Devtools])
        );
    }

    #[test]
    fn uploads_only_from_allowed_dirs() {
        let tmp = tempfile::tempdir().unwrap();
        let ok_dir = tmp.path().join("up");
        std::fs::create_dir(&ok_dir).unwrap();
        std::fs::write(ok_dir.join("a.txt"), b"a").unwrap();
        std::fs::write(tmp.path().join("secret.txt"), b"s").unwrap();
        let p = Policy {
            upload_dirs: vec![ok_dir.clone()],
            ..Default::default()
        };
        assert!(p.check_upload(&ok_dir.join("a.txt")).is_ok());
        assert!(p
            .check_upload(&ok_dir.join("../secret.txt"))
            .unwrap_err()
            .contains("outside"));
        assert!(p
            .check_upload(Path::new("a.txt"))
            .unwrap_err()
            .contains("absolute"));
        assert!(Policy::default()
            .check_upload(&ok_dir.join("a.txt"))
            .unwrap_err()
            .contains("disabled"));
    }
}
