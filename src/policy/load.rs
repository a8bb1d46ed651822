//! Where the policy comes from: the `serve` flags (`PolicyArgs`, with the
//! `HOST=USER:PASSWORD` form of a `Credential`), the policy file in
//! tabwire's config dir, and how a flag that is given wins over the file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Cap, Policy};

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
    /// A dotenv file of named secrets (NAME=value; NAME.origins=https://…
    /// binds one to origins): the model types a secret by passing its
    /// name as the text, and never sees its value in any answer.
    #[arg(long = "secrets", value_name = "FILE")]
    pub secrets: Option<PathBuf>,
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
        if let Some(path) = &args.secrets {
            policy.secrets = std::sync::Arc::new(crate::secrets::Secrets::load(path)?);
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
