//! The Chromium-family browsers tabwire registers with, how to tell whether
//! one is present, and where each reads per-user native-messaging hosts.
//!
//! Everything here is a pure function of an [`Env`] (OS, home, config and
//! app-data directories) so that the macOS and Windows answers are tested on
//! Linux too.
//!
//! The host locations themselves are computed in `host_locations.rs` and
//! re-exported here, where their callers look for them.

use std::path::{Path, PathBuf};

use super::{Env, Os};

pub use super::host_locations::{
    host_location, manifest_file_name, manifest_in_user_data_dir, registry_key,
    windows_manifest_path, HostLocation,
};

/// Windows base directory a relative browser path hangs off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WinBase {
    /// `%LOCALAPPDATA%`
    Local,
    /// `%APPDATA%` (roaming)
    Roaming,
}

/// One browser (one release channel). Relative paths use `/`; they are
/// joined with the target OS's separator.
#[derive(Debug)]
pub struct Browser {
    /// What `--browser` accepts, e.g. `chrome-beta`.
    pub id: &'static str,
    /// Other names `--browser` accepts.
    pub aliases: &'static [&'static str],
    pub name: &'static str,
    /// Linux: profile directory under `$XDG_CONFIG_HOME` (default `~/.config`).
    pub linux_dir: Option<&'static str>,
    /// macOS: profile directory under `~/Library/Application Support`.
    pub mac_dir: Option<&'static str>,
    /// Windows: profile directory ("User Data").
    pub windows_profile: Option<(WinBase, &'static str)>,
    /// Windows: the key under `HKEY_CURRENT_USER` whose `NativeMessagingHosts`
    /// subkey the browser reads (shared by all channels of one vendor).
    pub windows_key: Option<&'static str>,
    /// Linux executables: absolute paths, or names looked up in `PATH`.
    pub linux_exes: &'static [&'static str],
    /// macOS application bundle, looked up in `/Applications` and `~/Applications`.
    pub mac_app: Option<&'static str>,
    /// Windows executable under Program Files, Program Files (x86) or `%LOCALAPPDATA%`.
    pub windows_exe: Option<&'static str>,
    /// The page where unpacked extensions are loaded.
    pub extensions_page: &'static str,
    /// Reads this other browser's per-user host registrations instead of
    /// having its own (Opera uses Google Chrome's).
    pub hosts_of: Option<&'static str>,
}

/// Every browser tabwire knows, most common first.
pub const BROWSERS: &[Browser] = &[
    Browser {
        id: "chrome",
        aliases: &["google-chrome", "chrome-stable"],
        name: "Google Chrome",
        linux_dir: Some("google-chrome"),
        mac_dir: Some("Google/Chrome"),
        windows_profile: Some((WinBase::Local, "Google/Chrome/User Data")),
        windows_key: Some(r"Software\Google\Chrome"),
        linux_exes: &[
            "/opt/google/chrome/chrome",
            "google-chrome-stable",
            "google-chrome",
        ],
        mac_app: Some("Google Chrome.app"),
        windows_exe: Some("Google/Chrome/Application/chrome.exe"),
        extensions_page: "chrome://extensions",
        hosts_of: None,
    },
    Browser {
        id: "chrome-beta",
        aliases: &["google-chrome-beta"],
        name: "Google Chrome Beta",
        linux_dir: Some("google-chrome-beta"),
        mac_dir: Some("Google/Chrome Beta"),
        windows_profile: Some((WinBase::Local, "Google/Chrome Beta/User Data")),
        windows_key: Some(r"Software\Google\Chrome"),
        linux_exes: &["/opt/google/chrome-beta/chrome", "google-chrome-beta"],
        mac_app: Some("Google Chrome Beta.app"),
        windows_exe: Some("Google/Chrome Beta/Application/chrome.exe"),
        extensions_page: "chrome://extensions",
        hosts_of: None,
    },
    Browser {
        id: "chrome-dev",
        aliases: &["chrome-unstable", "google-chrome-unstable"],
        name: "Google Chrome Dev",
        linux_dir: Some("google-chrome-unstable"),
        mac_dir: Some("Google/Chrome Dev"),
        windows_profile: Some((WinBase::Local, "Google/Chrome Dev/User Data")),
        windows_key: Some(r"Software\Google\Chrome"),
        linux_exes: &[
            "/opt/google/chrome-unstable/chrome",
            "google-chrome-unstable",
        ],
        mac_app: Some("Google Chrome Dev.app"),
        windows_exe: Some("Google/Chrome Dev/Application/chrome.exe"),
        extensions_page: "chrome://extensions",
        hosts_of: None,
    },
    Browser {
        id: "chrome-canary",
        aliases: &["google-chrome-canary"],
        name: "Google Chrome Canary",
        linux_dir: Some("google-chrome-canary"),
        mac_dir: Some("Google/Chrome Canary"),
        windows_profile: Some((WinBase::Local, "Google/Chrome SxS/User Data")),
        windows_key: Some(r"Software\Google\Chrome"),
        linux_exes: &["/opt/google/chrome-canary/chrome", "google-chrome-canary"],
        mac_app: Some("Google Chrome Canary.app"),
        windows_exe: Some("Google/Chrome SxS/Application/chrome.exe"),
        extensions_page: "chrome://extensions",
        hosts_of: None,
    },
    Browser {
        id: "chromium",
        aliases: &["chromium-browser"],
        name: "Chromium",
        linux_dir: Some("chromium"),
        mac_dir: Some("Chromium"),
        windows_profile: Some((WinBase::Local, "Chromium/User Data")),
        windows_key: Some(r"Software\Chromium"),
        linux_exes: &[
            "/usr/lib/chromium/chromium",
            "/usr/lib/chromium-browser/chromium-browser",
            "/usr/lib64/chromium-browser/chromium-browser",
            "chromium",
            "chromium-browser",
        ],
        mac_app: Some("Chromium.app"),
        windows_exe: Some("Chromium/Application/chrome.exe"),
        extensions_page: "chrome://extensions",
        hosts_of: None,
    },
    Browser {
        id: "edge",
        aliases: &["msedge", "microsoft-edge", "edge-stable"],
        name: "Microsoft Edge",
        linux_dir: Some("microsoft-edge"),
        mac_dir: Some("Microsoft Edge"),
        windows_profile: Some((WinBase::Local, "Microsoft/Edge/User Data")),
        windows_key: Some(r"Software\Microsoft\Edge"),
        linux_exes: &[
            "/opt/microsoft/msedge/msedge",
            "microsoft-edge-stable",
            "microsoft-edge",
        ],
        mac_app: Some("Microsoft Edge.app"),
        windows_exe: Some("Microsoft/Edge/Application/msedge.exe"),
        extensions_page: "edge://extensions",
        hosts_of: None,
    },
    Browser {
        id: "edge-beta",
        aliases: &["microsoft-edge-beta"],
        name: "Microsoft Edge Beta",
        linux_dir: Some("microsoft-edge-beta"),
        mac_dir: Some("Microsoft Edge Beta"),
        windows_profile: Some((WinBase::Local, "Microsoft/Edge Beta/User Data")),
        windows_key: Some(r"Software\Microsoft\Edge"),
        linux_exes: &["/opt/microsoft/msedge-beta/msedge", "microsoft-edge-beta"],
        mac_app: Some("Microsoft Edge Beta.app"),
        windows_exe: Some("Microsoft/Edge Beta/Application/msedge.exe"),
        extensions_page: "edge://extensions",
        hosts_of: None,
    },
    Browser {
        id: "edge-dev",
        aliases: &["microsoft-edge-dev"],
        name: "Microsoft Edge Dev",
        linux_dir: Some("microsoft-edge-dev"),
        mac_dir: Some("Microsoft Edge Dev"),
        windows_profile: Some((WinBase::Local, "Microsoft/Edge Dev/User Data")),
        windows_key: Some(r"Software\Microsoft\Edge"),
        linux_exes: &["/opt/microsoft/msedge-dev/msedge", "microsoft-edge-dev"],
        mac_app: Some("Microsoft Edge Dev.app"),
        windows_exe: Some("Microsoft/Edge Dev/Application/msedge.exe"),
        extensions_page: "edge://extensions",
        hosts_of: None,
    },
    Browser {
        id: "edge-canary",
        aliases: &["microsoft-edge-canary"],
        name: "Microsoft Edge Canary",
        // Edge Canary is not released for Linux.
        linux_dir: None,
        mac_dir: Some("Microsoft Edge Canary"),
        windows_profile: Some((WinBase::Local, "Microsoft/Edge SxS/User Data")),
        windows_key: Some(r"Software\Microsoft\Edge"),
        linux_exes: &[],
        mac_app: Some("Microsoft Edge Canary.app"),
        windows_exe: Some("Microsoft/Edge SxS/Application/msedge.exe"),
        extensions_page: "edge://extensions",
        hosts_of: None,
    },
    Browser {
        id: "brave",
        aliases: &["brave-browser"],
        name: "Brave",
        linux_dir: Some("BraveSoftware/Brave-Browser"),
        mac_dir: Some("BraveSoftware/Brave-Browser"),
        windows_profile: Some((WinBase::Local, "BraveSoftware/Brave-Browser/User Data")),
        windows_key: Some(r"Software\BraveSoftware\Brave-Browser"),
        linux_exes: &[
            "/opt/brave.com/brave/brave",
            "brave-browser",
            "brave-browser-stable",
            "brave",
        ],
        mac_app: Some("Brave Browser.app"),
        windows_exe: Some("BraveSoftware/Brave-Browser/Application/brave.exe"),
        extensions_page: "brave://extensions",
        hosts_of: None,
    },
    Browser {
        id: "brave-beta",
        aliases: &["brave-browser-beta"],
        name: "Brave Beta",
        linux_dir: Some("BraveSoftware/Brave-Browser-Beta"),
        mac_dir: Some("BraveSoftware/Brave-Browser-Beta"),
        windows_profile: Some((WinBase::Local, "BraveSoftware/Brave-Browser-Beta/User Data")),
        windows_key: Some(r"Software\BraveSoftware\Brave-Browser"),
        linux_exes: &["/opt/brave.com/brave-beta/brave", "brave-browser-beta"],
        mac_app: Some("Brave Browser Beta.app"),
        windows_exe: Some("BraveSoftware/Brave-Browser-Beta/Application/brave.exe"),
        extensions_page: "brave://extensions",
        hosts_of: None,
    },
    Browser {
        id: "brave-nightly",
        aliases: &["brave-browser-nightly"],
        name: "Brave Nightly",
        linux_dir: Some("BraveSoftware/Brave-Browser-Nightly"),
        mac_dir: Some("BraveSoftware/Brave-Browser-Nightly"),
        windows_profile: Some((
            WinBase::Local,
            "BraveSoftware/Brave-Browser-Nightly/User Data",
        )),
        windows_key: Some(r"Software\BraveSoftware\Brave-Browser"),
        linux_exes: &[
            "/opt/brave.com/brave-nightly/brave",
            "brave-browser-nightly",
        ],
        mac_app: Some("Brave Browser Nightly.app"),
        windows_exe: Some("BraveSoftware/Brave-Browser-Nightly/Application/brave.exe"),
        extensions_page: "brave://extensions",
        hosts_of: None,
    },
    Browser {
        id: "vivaldi",
        aliases: &["vivaldi-stable"],
        name: "Vivaldi",
        linux_dir: Some("vivaldi"),
        mac_dir: Some("Vivaldi"),
        windows_profile: Some((WinBase::Local, "Vivaldi/User Data")),
        windows_key: Some(r"Software\Vivaldi"),
        linux_exes: &["/opt/vivaldi/vivaldi", "vivaldi", "vivaldi-stable"],
        mac_app: Some("Vivaldi.app"),
        windows_exe: Some("Vivaldi/Application/vivaldi.exe"),
        extensions_page: "vivaldi://extensions",
        hosts_of: None,
    },
    Browser {
        id: "opera",
        aliases: &["opera-stable"],
        name: "Opera",
        linux_dir: Some("opera"),
        mac_dir: Some("com.operasoftware.Opera"),
        windows_profile: Some((WinBase::Roaming, "Opera Software/Opera Stable")),
        windows_key: None,
        linux_exes: &["/usr/lib/x86_64-linux-gnu/opera/opera", "opera"],
        mac_app: Some("Opera.app"),
        windows_exe: Some("Programs/Opera/opera.exe"),
        extensions_page: "opera://extensions",
        hosts_of: Some("chrome"),
    },
];

/// Looks a browser up by id or alias (case-insensitive).
pub fn by_name(name: &str) -> Option<&'static Browser> {
    let name = name.trim().to_ascii_lowercase();
    BROWSERS
        .iter()
        .find(|b| b.id == name || b.aliases.contains(&name.as_str()))
}

/// Every accepted `--browser` name, for error messages.
pub fn known_names() -> String {
    BROWSERS.iter().map(|b| b.id).collect::<Vec<_>>().join(", ")
}

/// Joins `rel` (with `/` separators) onto `base` using `os`'s separator, so
/// Windows answers come out right when computed on Linux too.
pub fn join(os: Os, base: &Path, rel: &str) -> PathBuf {
    let sep = os.separator();
    let mut s = base.to_string_lossy().into_owned();
    for part in rel.split('/').filter(|p| !p.is_empty()) {
        if !s.ends_with(sep) {
            s.push(sep);
        }
        s.push_str(part);
    }
    PathBuf::from(s)
}

/// The browser's default profile directory ("user data dir") on `env.os`.
pub fn profile_dir(b: &Browser, env: &Env) -> Option<PathBuf> {
    match env.os {
        Os::Linux => b.linux_dir.map(|d| join(env.os, &env.config_home, d)),
        Os::MacOs => b.mac_dir.map(|d| {
            join(
                env.os,
                &env.home,
                &format!("Library/Application Support/{d}"),
            )
        }),
        Os::Windows => b.windows_profile.map(|(base, d)| {
            let root = match base {
                WinBase::Local => &env.local_app_data,
                WinBase::Roaming => &env.app_data,
            };
            join(env.os, root, d)
        }),
    }
}

/// Executable paths that would mean `b` is installed.
pub fn executable_candidates(b: &Browser, env: &Env) -> Vec<PathBuf> {
    let mut out = Vec::new();
    match env.os {
        Os::Linux => {
            for exe in b.linux_exes {
                if exe.starts_with('/') {
                    out.push(PathBuf::from(exe));
                } else {
                    out.extend(env.path_dirs.iter().map(|d| d.join(exe)));
                }
            }
        }
        Os::MacOs => {
            if let Some(app) = b.mac_app {
                out.push(join(env.os, Path::new("/Applications"), app));
                out.push(join(env.os, &env.home, &format!("Applications/{app}")));
            }
        }
        Os::Windows => {
            if let Some(exe) = b.windows_exe {
                for root in &env.program_dirs {
                    out.push(join(env.os, root, exe));
                }
                out.push(join(env.os, &env.local_app_data, exe));
            }
        }
    }
    out
}

/// Why a browser counts as present.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evidence {
    Executable(PathBuf),
    Profile(PathBuf),
}

impl std::fmt::Display for Evidence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Evidence::Executable(p) => write!(f, "installed at {}", p.display()),
            Evidence::Profile(p) => write!(f, "profile at {}", p.display()),
        }
    }
}

/// Whether `b` is present: its executable is installed or its profile
/// directory exists. `exists` is the file-system probe (a closure so tests
/// can answer for other OSes).
pub fn detect(b: &Browser, env: &Env, exists: &dyn Fn(&Path) -> bool) -> Option<Evidence> {
    if let Some(exe) = executable_candidates(b, env)
        .into_iter()
        .find(|p| exists(p))
    {
        return Some(Evidence::Executable(exe));
    }
    profile_dir(b, env)
        .filter(|p| exists(p))
        .map(Evidence::Profile)
}

/// Every present browser with its evidence, in table order.
pub fn detect_all(env: &Env, exists: &dyn Fn(&Path) -> bool) -> Vec<(&'static Browser, Evidence)> {
    BROWSERS
        .iter()
        .filter_map(|b| detect(b, env, exists).map(|e| (b, e)))
        .collect()
}

/// Directories with managed policies (JSON files) on Linux, per browser.
pub fn linux_policy_dirs(b: &Browser) -> Vec<PathBuf> {
    let dirs: &[&str] = match b.hosts_of.unwrap_or(b.id) {
        "chrome" | "chrome-beta" | "chrome-dev" | "chrome-canary" => {
            &["/etc/opt/chrome/policies/managed"]
        }
        "chromium" => &[
            "/etc/chromium/policies/managed",
            "/etc/chromium-browser/policies/managed",
        ],
        "edge" | "edge-beta" | "edge-dev" => &["/etc/opt/edge/policies/managed"],
        "brave" | "brave-beta" | "brave-nightly" => &["/etc/brave/policies/managed"],
        _ => &[],
    };
    dirs.iter().map(PathBuf::from).collect()
}

/// The Windows policy keys (under HKLM and HKCU) for a browser.
pub fn windows_policy_key(b: &Browser) -> Option<&'static str> {
    match b.hosts_of.unwrap_or(b.id) {
        "chrome" | "chrome-beta" | "chrome-dev" | "chrome-canary" => {
            Some(r"SOFTWARE\Policies\Google\Chrome")
        }
        "chromium" => Some(r"SOFTWARE\Policies\Chromium"),
        "edge" | "edge-beta" | "edge-dev" | "edge-canary" => {
            Some(r"SOFTWARE\Policies\Microsoft\Edge")
        }
        "brave" | "brave-beta" | "brave-nightly" => Some(r"SOFTWARE\Policies\BraveSoftware\Brave"),
        _ => None,
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use std::collections::HashSet;

    // One user's machine on each system (host_locations.rs's tests use
    // them too).
    pub(in crate::install) fn linux() -> Env {
        Env::for_tests(Os::Linux, "/home/ada")
    }
    pub(in crate::install) fn mac() -> Env {
        Env::for_tests(Os::MacOs, "/Users/ada")
    }
    pub(in crate::install) fn windows() -> Env {
        Env::for_tests(Os::Windows, r"C:\Users\ada")
    }

    #[test]
    fn windows_profiles_and_executables() {
        let env = windows();
        let chrome = by_name("chrome").unwrap();
        assert_eq!(
            profile_dir(chrome, &env).unwrap(),
            PathBuf::from(r"C:\Users\ada\AppData\Local\Google\Chrome\User Data")
        );
        assert_eq!(
            profile_dir(by_name("opera").unwrap(), &env).unwrap(),
            PathBuf::from(r"C:\Users\ada\AppData\Roaming\Opera Software\Opera Stable")
        );
        let exes = executable_candidates(by_name("edge").unwrap(), &env);
        assert!(exes.contains(&PathBuf::from(
            r"C:\Program Files (x86)\Microsoft\Edge\Application\msedge.exe"
        )));
    }

    #[test]
    fn detection_by_executable_in_path_or_profile() {
        let env = linux();
        let present = |paths: &'static [&'static str]| {
            move |p: &Path| paths.iter().any(|x| Path::new(x) == p)
        };
        // A system-wide Chromium whose user never started it counts.
        let found = detect_all(&env, &present(&["/usr/lib/chromium/chromium"]));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0.id, "chromium");
        assert_eq!(
            found[0].1,
            Evidence::Executable("/usr/lib/chromium/chromium".into())
        );
        // A bare name is searched in PATH.
        let found = detect_all(&env, &present(&["/usr/local/bin/vivaldi"]));
        assert_eq!(
            found.iter().map(|f| f.0.id).collect::<Vec<_>>(),
            ["vivaldi"]
        );
        // A profile directory alone counts too.
        let found = detect_all(
            &env,
            &present(&["/home/ada/.config/BraveSoftware/Brave-Browser"]),
        );
        assert_eq!(found[0].0.id, "brave");
        assert!(matches!(found[0].1, Evidence::Profile(_)));
        assert!(detect_all(&env, &|_| false).is_empty());

        let mac_env = mac();
        let found = detect_all(&mac_env, &|p: &Path| {
            p == Path::new("/Users/ada/Applications/Microsoft Edge.app")
        });
        assert_eq!(found[0].0.id, "edge");
    }

    #[test]
    fn names_and_aliases() {
        assert_eq!(by_name("Chrome").unwrap().id, "chrome");
        assert_eq!(by_name("google-chrome-unstable").unwrap().id, "chrome-dev");
        assert_eq!(by_name("msedge").unwrap().id, "edge");
        assert!(by_name("netscape").is_none());
        let ids: HashSet<_> = BROWSERS.iter().map(|b| b.id).collect();
        assert_eq!(ids.len(), BROWSERS.len(), "ids are unique");
    }
}
