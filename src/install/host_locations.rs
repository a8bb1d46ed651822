//! Where each browser reads tabwire's per-user native-messaging host
//! registration: a manifest file in its profile on Linux and macOS, a
//! registry key pointing at one manifest on Windows. Like the browser
//! table it is computed from an [`Env`], so every OS's answer is tested on
//! Linux.

use std::path::{Path, PathBuf};

use super::browsers::{by_name, join, profile_dir, Browser};
use super::{Env, Os};
use crate::protocol::HOST_NAME;

/// Where a browser looks for tabwire's host registration.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HostLocation {
    /// Linux and macOS: the manifest file itself.
    File(PathBuf),
    /// Windows: a registry key (under `HKEY_CURRENT_USER`) whose default
    /// value is the path of the manifest file.
    Registry { key: String, manifest: PathBuf },
}

impl HostLocation {
    /// The manifest file this location uses.
    pub fn manifest_path(&self) -> &Path {
        match self {
            HostLocation::File(p) => p,
            HostLocation::Registry { manifest, .. } => manifest,
        }
    }
}

impl std::fmt::Display for HostLocation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HostLocation::File(p) => write!(f, "{}", p.display()),
            HostLocation::Registry { key, manifest } => {
                write!(f, r"HKCU\{key} → {}", manifest.display())
            }
        }
    }
}

/// The manifest file name Chrome looks for.
pub fn manifest_file_name() -> String {
    format!("{HOST_NAME}.json")
}

/// `<dir>/NativeMessagingHosts/com.tabwire.host.json` for a user data dir.
pub fn manifest_in_user_data_dir(os: Os, dir: &Path) -> PathBuf {
    join(
        os,
        dir,
        &format!("NativeMessagingHosts/{}", manifest_file_name()),
    )
}

/// The registry key (relative to `HKEY_CURRENT_USER`) for a vendor key.
pub fn registry_key(vendor_key: &str) -> String {
    format!(r"{vendor_key}\NativeMessagingHosts\{HOST_NAME}")
}

/// On Windows every browser's key points at one manifest in tabwire's data dir.
pub fn windows_manifest_path(env: &Env) -> PathBuf {
    join(Os::Windows, &env.data_dir, &manifest_file_name())
}

/// Where `b` reads tabwire's per-user host registration on `env.os`, or
/// None if it has no per-user location there.
pub fn host_location(b: &Browser, env: &Env) -> Option<HostLocation> {
    if let Some(other) = b.hosts_of.and_then(by_name) {
        return host_location(other, env);
    }
    match env.os {
        Os::Linux | Os::MacOs => {
            profile_dir(b, env).map(|d| HostLocation::File(manifest_in_user_data_dir(env.os, &d)))
        }
        Os::Windows => b.windows_key.map(|k| HostLocation::Registry {
            key: registry_key(k),
            manifest: windows_manifest_path(env),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::install::browsers::tests::{linux, mac, windows};
    use crate::install::browsers::BROWSERS;
    use std::collections::HashSet;

    fn file(env: &Env, id: &str) -> String {
        match host_location(by_name(id).unwrap(), env).unwrap() {
            HostLocation::File(p) => p.to_string_lossy().into_owned(),
            other => panic!("{id}: expected a file, got {other:?}"),
        }
    }

    fn reg(env: &Env, id: &str) -> (String, String) {
        match host_location(by_name(id).unwrap(), env).unwrap() {
            HostLocation::Registry { key, manifest } => {
                (key, manifest.to_string_lossy().into_owned())
            }
            other => panic!("{id}: expected a registry key, got {other:?}"),
        }
    }

    #[test]
    fn linux_locations_for_every_browser() {
        let env = linux();
        let want = [
            ("chrome", "/home/ada/.config/google-chrome"),
            ("chrome-beta", "/home/ada/.config/google-chrome-beta"),
            ("chrome-dev", "/home/ada/.config/google-chrome-unstable"),
            ("chrome-canary", "/home/ada/.config/google-chrome-canary"),
            ("chromium", "/home/ada/.config/chromium"),
            ("edge", "/home/ada/.config/microsoft-edge"),
            ("edge-beta", "/home/ada/.config/microsoft-edge-beta"),
            ("edge-dev", "/home/ada/.config/microsoft-edge-dev"),
            ("brave", "/home/ada/.config/BraveSoftware/Brave-Browser"),
            (
                "brave-beta",
                "/home/ada/.config/BraveSoftware/Brave-Browser-Beta",
            ),
            (
                "brave-nightly",
                "/home/ada/.config/BraveSoftware/Brave-Browser-Nightly",
            ),
            ("vivaldi", "/home/ada/.config/vivaldi"),
            // Opera reads Google Chrome's registrations.
            ("opera", "/home/ada/.config/google-chrome"),
        ];
        for (id, dir) in want {
            assert_eq!(
                file(&env, id),
                format!("{dir}/NativeMessagingHosts/com.tabwire.host.json"),
                "{id}"
            );
        }
        assert_eq!(
            host_location(by_name("edge-canary").unwrap(), &env),
            None,
            "no Edge Canary on Linux"
        );
        assert_eq!(want.len() + 1, BROWSERS.len(), "every browser is covered");
    }

    #[test]
    fn linux_honors_xdg_config_home() {
        let mut env = linux();
        env.config_home = PathBuf::from("/xdg/conf");
        assert_eq!(
            file(&env, "chromium"),
            "/xdg/conf/chromium/NativeMessagingHosts/com.tabwire.host.json"
        );
    }

    #[test]
    fn macos_locations_for_every_browser() {
        let env = mac();
        let base = "/Users/ada/Library/Application Support";
        let want = [
            ("chrome", "Google/Chrome"),
            ("chrome-beta", "Google/Chrome Beta"),
            ("chrome-dev", "Google/Chrome Dev"),
            ("chrome-canary", "Google/Chrome Canary"),
            ("chromium", "Chromium"),
            ("edge", "Microsoft Edge"),
            ("edge-beta", "Microsoft Edge Beta"),
            ("edge-dev", "Microsoft Edge Dev"),
            ("edge-canary", "Microsoft Edge Canary"),
            ("brave", "BraveSoftware/Brave-Browser"),
            ("brave-beta", "BraveSoftware/Brave-Browser-Beta"),
            ("brave-nightly", "BraveSoftware/Brave-Browser-Nightly"),
            ("vivaldi", "Vivaldi"),
            ("opera", "Google/Chrome"),
        ];
        for (id, dir) in want {
            assert_eq!(
                file(&env, id),
                format!("{base}/{dir}/NativeMessagingHosts/com.tabwire.host.json"),
                "{id}"
            );
        }
        assert_eq!(want.len(), BROWSERS.len());
    }

    #[test]
    fn windows_registry_keys_for_every_browser() {
        let env = windows();
        let manifest = r"C:\Users\ada\AppData\Local\tabwire\data\com.tabwire.host.json";
        let want = [
            ("chrome", r"Software\Google\Chrome"),
            ("chrome-beta", r"Software\Google\Chrome"),
            ("chrome-dev", r"Software\Google\Chrome"),
            ("chrome-canary", r"Software\Google\Chrome"),
            ("chromium", r"Software\Chromium"),
            ("edge", r"Software\Microsoft\Edge"),
            ("edge-beta", r"Software\Microsoft\Edge"),
            ("edge-dev", r"Software\Microsoft\Edge"),
            ("edge-canary", r"Software\Microsoft\Edge"),
            ("brave", r"Software\BraveSoftware\Brave-Browser"),
            ("brave-beta", r"Software\BraveSoftware\Brave-Browser"),
            ("brave-nightly", r"Software\BraveSoftware\Brave-Browser"),
            ("vivaldi", r"Software\Vivaldi"),
            ("opera", r"Software\Google\Chrome"),
        ];
        for (id, vendor) in want {
            assert_eq!(
                reg(&env, id),
                (
                    format!(r"{vendor}\NativeMessagingHosts\com.tabwire.host"),
                    manifest.to_string()
                ),
                "{id}"
            );
        }
        assert_eq!(want.len(), BROWSERS.len());
        // Channels of one vendor share one key: five keys cover them all.
        let distinct: HashSet<_> = BROWSERS
            .iter()
            .filter_map(|b| host_location(b, &env))
            .collect();
        assert_eq!(distinct.len(), 5);
    }

    #[test]
    fn user_data_dir_override_uses_the_os_separator() {
        assert_eq!(
            manifest_in_user_data_dir(Os::Linux, Path::new("/tmp/p")),
            PathBuf::from("/tmp/p/NativeMessagingHosts/com.tabwire.host.json")
        );
        assert_eq!(
            manifest_in_user_data_dir(Os::Windows, Path::new(r"D:\p\")),
            PathBuf::from(r"D:\p\NativeMessagingHosts\com.tabwire.host.json")
        );
    }
}
