//! What an agent may reach: domains, tools, file access.
//!
//! The policy comes from an optional file in tabwire's config dir
//! (`policy.toml` or `policy.json`, or `--policy FILE`) and from `serve`
//! flags; a flag that is given wins over the file. It is enforced in Rust
//! for both backends: domains before navigating and before every read or
//! action on a tab, tools in `tools/list` and on every call.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What a tool does to the page; mapped to MCP annotations in one place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Only reads (snapshot, screenshot, listing).
    ReadOnly,
    /// Changes page or browser state (navigate, click, type, evaluate).
    Action,
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
}

impl Cap {
    pub fn name(self) -> &'static str {
        match self {
            Cap::Network => "network",
            Cap::Emulation => "emulation",
            Cap::Vision => "vision",
            Cap::Devtools => "devtools",
            Cap::Testing => "testing",
        }
    }
}

/// The `serve` flags that shape the policy.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct PolicyArgs {
    /// Only these domains may be opened or read (glob, e.g. "*.example.com"; repeatable).
    #[arg(long = "allow-domain", value_name = "GLOB")]
    pub allow_domains: Vec<String>,
    /// These domains may never be opened or read (glob; repeatable). Wins over --allow-domain.
    #[arg(long = "deny-domain", value_name = "GLOB")]
    pub deny_domains: Vec<String>,
    /// Only tools that read: no navigation, clicks, typing or scripts.
    #[arg(long)]
    pub read_only: bool,
    /// No JavaScript evaluation (removes browser_evaluate).
    #[arg(long)]
    pub no_eval: bool,
    /// Expose only these tools (repeatable or comma-separated).
    #[arg(long = "tools", value_name = "NAME", value_delimiter = ',')]
    pub tools: Vec<String>,
    /// Add these groups of tools (comma-separated): network, emulation,
    /// vision, devtools, testing. None by default.
    #[arg(long = "caps", value_name = "GROUP", value_delimiter = ',')]
    pub caps: Vec<Cap>,
    /// Allow file:// URLs (off by default).
    #[arg(long)]
    pub allow_file_urls: bool,
    /// Ask the user (in the browser) before this client first opens or acts
    /// on a site they have not approved for it (extension only).
    #[arg(long)]
    pub confirm_sites: bool,
    /// Directories files may be uploaded from (repeatable; none by default).
    #[arg(long = "upload-dir", value_name = "DIR")]
    pub upload_dirs: Vec<PathBuf>,
    /// Where browser_download, browser_capture_media and browser_pdf_save
    /// write (default: <data dir>/downloads). Nothing is written elsewhere.
    #[arg(long = "download-dir", value_name = "DIR")]
    pub download_dir: Option<PathBuf>,
    /// Largest file those tools save, in MiB (default 100).
    #[arg(long = "max-download-mb", value_name = "MIB")]
    pub max_download_mb: Option<u64>,
    /// Policy file to use instead of <config dir>/policy.toml or policy.json.
    #[arg(long = "policy", value_name = "FILE")]
    pub policy_file: Option<PathBuf>,
    /// HTTP authentication for one host (glob), answered only for that host
    /// and never for a denied one (repeatable). Prefer the policy file: a
    /// flag is visible in the process list.
    #[arg(long = "credentials", value_name = "HOST=USER:PASSWORD")]
    pub credentials: Vec<Credential>,
}

/// A user name and password for the HTTP authentication (Basic, Digest …)
/// of the hosts matching `host`: `HOST=USER:PASSWORD`. The password is
/// never shown: not by `Debug`, not when serialized, not in any answer.
#[derive(Clone, PartialEq, Deserialize)]
#[serde(try_from = "String")]
pub struct Credential {
    /// A host glob, as in `allow_domains`.
    pub host: String,
    pub username: String,
    pub password: String,
}

impl std::str::FromStr for Credential {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || {
            "credentials must look like HOST=USER:PASSWORD (e.g. intranet.example.com=alice:secret)"
                .to_string()
        };
        let (host, user_pass) = s.split_once('=').ok_or_else(bad)?;
        let (username, password) = user_pass.split_once(':').ok_or_else(bad)?;
        let host = host.trim().to_ascii_lowercase();
        if host.is_empty() || host.contains(['/', ':']) || username.is_empty() {
            return Err(bad());
        }
        Ok(Self {
            host,
            username: username.to_string(),
            password: password.to_string(),
        })
    }
}

impl TryFrom<String> for Credential {
    type Error = String;

    fn try_from(s: String) -> Result<Self, String> {
        s.parse()
    }
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}:[password hidden]", self.host, self.username)
    }
}

impl Serialize for Credential {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{self:?}"))
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
}

/// The size cap on saved files when the policy sets none.
pub const DEFAULT_MAX_DOWNLOAD_MB: u64 = 100;

/// tabwire's config dir: `$TABWIRE_CONFIG_DIR`, else the platform's
/// (`~/.config/tabwire`, `~/Library/Application Support/tabwire`, …).
pub fn config_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("TABWIRE_CONFIG_DIR").filter(|v| !v.is_empty()) {
        return PathBuf::from(d);
    }
    directories::ProjectDirs::from("", "", "tabwire")
        .map(|p| p.config_dir().to_path_buf())
        .unwrap_or_else(|| std::env::temp_dir().join("tabwire-config"))
}

impl Policy {
    /// File policy (if any) overlaid with the flags.
    pub fn load(args: &PolicyArgs) -> Result<Self, String> {
        let file = match &args.policy_file {
            Some(p) => Some(p.clone()),
            None => ["policy.toml", "policy.json"]
                .iter()
                .map(|n| config_dir().join(n))
                .find(|p| p.exists()),
        };
        let mut policy = match file {
            Some(path) => Self::from_file(&path)?,
            None => Self::default(),
        };
        if !args.allow_domains.is_empty() {
            policy.allow_domains = args.allow_domains.clone();
        }
        if !args.deny_domains.is_empty() {
            policy.deny_domains = args.deny_domains.clone();
        }
        if !args.tools.is_empty() {
            policy.tools = args.tools.clone();
        }
        if !args.caps.is_empty() {
            policy.caps = args.caps.clone();
        }
        if !args.upload_dirs.is_empty() {
            policy.upload_dirs = args.upload_dirs.clone();
        }
        if args.download_dir.is_some() {
            policy.download_dir = args.download_dir.clone();
        }
        if args.max_download_mb.is_some() {
            policy.max_download_mb = args.max_download_mb;
        }
        if !args.credentials.is_empty() {
            policy.credentials = args.credentials.clone();
        }
        policy.read_only |= args.read_only;
        policy.no_eval |= args.no_eval;
        policy.allow_file_urls |= args.allow_file_urls;
        policy.confirm_sites |= args.confirm_sites;
        Ok(policy)
    }

    fn from_file(path: &Path) -> Result<Self, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("could not read policy file {}: {e}", path.display()))?;
        let parsed = if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text).map_err(|e| e.to_string())
        } else {
            toml::from_str(&text).map_err(|e| e.to_string())
        };
        parsed.map_err(|e| format!("policy file {} is invalid: {e}", path.display()))
    }

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
            "Policy: allowed domains: {}; denied domains: {}; read-only: {}; eval: {}; tools: {}; groups of tools: {}; file URLs: {}; upload dirs: {}; downloads: {} (max {} MiB); credentials for: {}{}",
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

/// The host of an http(s) `url` as the browser reads it (the WHATWG URL
/// standard: `\\` ends the authority, IPv4 in any notation and IPv6 are
/// made canonical, percent escapes decoded, names in punycode), lowercase,
/// without brackets or trailing dots. Reading it any other way lets a URL
/// name one host to the policy and another to the browser.
fn host_of(url: &str) -> Result<String, String> {
    let parsed =
        url::Url::parse(url).map_err(|e| format!("{url} is not a valid URL ({e}); not opened"))?;
    let host = parsed
        .host_str()
        .ok_or_else(|| format!("{url} is not a valid URL (it names no host); not opened"))?;
    Ok(host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase())
}

/// A domain glob in the form hosts are compared in: each label without a
/// `*` as the browser writes it (punycode, canonical IP addresses).
fn canonical_glob(glob: &str) -> String {
    let glob = glob.trim().to_ascii_lowercase();
    if glob.contains('*') {
        return glob
            .split('.')
            .map(|label| match label.contains('*') || label.is_ascii() {
                true => label.to_string(),
                false => canonical_host(label).unwrap_or_else(|| label.to_string()),
            })
            .collect::<Vec<_>>()
            .join(".");
    }
    canonical_host(&glob).unwrap_or(glob)
}

/// `name` (a domain or IP address) as it reads in a parsed URL.
fn canonical_host(name: &str) -> Option<String> {
    let bracketed = match name.contains(':') && !name.starts_with('[') {
        true => format!("[{name}]"),
        false => name.to_string(),
    };
    let host = url::Url::parse(&format!("http://{bracketed}/")).ok()?;
    let host = host.host_str()?;
    Some(
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .trim_end_matches('.')
            .to_string(),
    )
}

/// `*` matches any run of characters; `*.example.com` also matches
/// `example.com` itself. Case-insensitive; a glob naming a host in another
/// notation (Unicode, a short IPv4) matches it as the browser writes it.
pub fn glob_matches(glob: &str, host: &str) -> bool {
    let glob = canonical_glob(glob);
    if let Some(apex) = glob.strip_prefix("*.") {
        if host == apex {
            return true;
        }
    }
    wildcard(glob.as_bytes(), host.as_bytes())
}

fn wildcard(p: &[u8], s: &[u8]) -> bool {
    let (mut pi, mut si, mut star, mut mark) = (0, 0, None, 0);
    while si < s.len() {
        if pi < p.len() && (p[pi] == s[si]) {
            pi += 1;
            si += 1;
        } else if pi < p.len() && p[pi] == b'*' {
            star = Some(pi);
            mark = si;
            pi += 1;
        } else if let Some(st) = star {
            pi = st + 1;
            mark += 1;
            si = mark;
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|&c| c == b'*')
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
    fn globs_match_hosts() {
        assert!(glob_matches("*.example.com", "a.b.example.com"));
        assert!(glob_matches("*.example.com", "example.com"));
        assert!(!glob_matches("*.example.com", "badexample.com"));
        assert!(glob_matches("EXAMPLE.com", "example.com"));
        assert!(glob_matches("*", "anything.org"));
        assert!(glob_matches("127.0.0.*", "127.0.0.1"));
        assert!(!glob_matches("example.com", "example.com.evil.org"));
    }

    #[test]
    fn hosts_are_read_as_the_browser_reads_them() {
        let host = |u: &str| host_of(u).unwrap();
        assert_eq!(
            host("https://user:pw@Bank.Example.com:8443/x?y"),
            "bank.example.com"
        );
        assert_eq!(host("http://[::1]:80/"), "::1");
        assert_eq!(host("https://example.com./"), "example.com");
        // The browser goes to evil.com: a backslash ends the authority.
        assert_eq!(host("https://evil.com\\@allowed.com/"), "evil.com");
        assert_eq!(host("http://127.1/"), "127.0.0.1");
        assert_eq!(host("http://0x7f.0.0.1/"), "127.0.0.1");
        assert_eq!(host("https://%65vil.com/"), "evil.com");
        assert_eq!(
            host("https://B\u{dc}CHER.example/"),
            "xn--bcher-kva.example"
        );
        assert!(host_of("https://exa mple.com/").is_err());
        assert!(host_of("https://example.com:99999/").is_err());
    }

    #[test]
    fn globs_are_compared_in_the_browser_s_notation() {
        assert!(glob_matches("b\u{fc}cher.example", "xn--bcher-kva.example"));
        assert!(glob_matches(
            "*.b\u{fc}cher.example",
            "a.xn--bcher-kva.example"
        ));
        assert!(glob_matches("127.1", "127.0.0.1"));
        assert!(glob_matches("::FFFF:127.0.0.1", "::ffff:7f00:1"));
        assert!(glob_matches("0:0:0:0:0:0:0:1", "::1"));
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

    #[test]
    fn flags_win_over_the_file() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("policy.toml");
        std::fs::write(
            &file,
            "deny_domains = [\"a.com\"]\nallow_domains = [\"*.b.com\"]\nno_eval = true\n",
        )
        .unwrap();
        let args = PolicyArgs {
            deny_domains: vec!["c.com".into()],
            policy_file: Some(file.clone()),
            ..Default::default()
        };
        let p = Policy::load(&args).unwrap();
        assert_eq!(p.deny_domains, vec!["c.com"]);
        assert_eq!(p.allow_domains, vec!["*.b.com"]);
        assert!(p.no_eval);
        std::fs::write(&file, "deny_domain = [\"typo\"]").unwrap();
        assert!(Policy::load(&args).unwrap_err().contains("invalid"));
    }

    #[test]
    fn confirming_sites_comes_from_the_file_or_the_flag_and_reaches_the_extension() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("policy.toml");
        std::fs::write(&file, "confirm_sites = true\n").unwrap();
        let from_file = Policy::load(&PolicyArgs {
            policy_file: Some(file.clone()),
            ..Default::default()
        })
        .unwrap();
        assert!(from_file.confirm_sites);
        assert_eq!(from_file.for_extension()["confirmSites"], true);
        assert!(from_file
            .summary()
            .contains("sites need the user's yes: on"));
        std::fs::write(&file, "").unwrap();
        let from_flag = Policy::load(&PolicyArgs {
            policy_file: Some(file),
            confirm_sites: true,
            ..Default::default()
        })
        .unwrap();
        assert!(from_flag.confirm_sites);
        assert_eq!(Policy::default().for_extension()["confirmSites"], false);
        assert!(!Policy::default().summary().contains("sites need"));
    }

    #[test]
    fn credentials_are_per_host_never_for_denied_hosts_and_never_shown() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("policy.toml");
        std::fs::write(
            &file,
            "deny_domains = [\"bad.example\"]\ncredentials = [\"intra.example=alice:pa:ss\", \"*.bad.example=eve:x\"]\n",
        )
        .unwrap();
        let p = Policy::load(&PolicyArgs {
            policy_file: Some(file),
            ..Default::default()
        })
        .unwrap();
        let c = p.credentials_for("http://intra.example:8080").unwrap();
        assert_eq!(
            (c.username.as_str(), c.password.as_str()),
            ("alice", "pa:ss")
        );
        assert!(p
            .credentials_for("https://other.example")
            .unwrap_err()
            .contains("no credentials"));
        assert!(p
            .credentials_for("https://bad.example")
            .unwrap_err()
            .contains("blocked"));
        let shown = format!(
            "{p:?} {} {}",
            serde_json::to_string(&p).unwrap(),
            p.summary()
        );
        assert!(
            !shown.contains("pa:ss") && shown.contains("credentials for: intra.example"),
            "{shown}"
        );
        for bad in ["nohost", "=a:b", "h=nopass", "h=:p", "h/x=a:b"] {
            assert!(bad.parse::<Credential>().is_err(), "{bad}");
        }
    }
}
