//! Launching tabwire's own Chromium for the CDP fallback.
//!
//! The browser gets `--remote-debugging-pipe` (CDP on fds 3/4), so it opens
//! no TCP port, and a dedicated profile under tabwire's data directory —
//! never the user's real profile. When `serve` dies, even by SIGKILL, the
//! pipe closes and Chromium exits by itself (measured here: ~0.2 s).

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default)]
pub struct LaunchOptions {
    /// Explicit browser executable; otherwise one is searched for.
    pub browser_path: Option<PathBuf>,
    /// Extra command-line flags, passed as given.
    pub extra_args: Vec<String>,
    /// Force headless even when a display is available.
    pub headless: bool,
    /// Profile directory; defaults to `<data dir>/profiles/default`.
    pub profile_dir: Option<PathBuf>,
    /// Turn on the browser's WebMCP (pages' own tool registry, reached
    /// over the DevTools protocol); see `page/webmcp/`.
    pub webmcp: bool,
}

/// Standard install locations, most specific first.
pub fn browser_candidates() -> Vec<PathBuf> {
    let mut c: Vec<PathBuf> = Vec::new();
    if cfg!(target_os = "linux") {
        for p in [
            "/usr/lib/chromium/chromium",
            "/usr/bin/google-chrome-stable",
            "/usr/bin/google-chrome",
            "/opt/google/chrome/chrome",
            "/usr/bin/chromium",
            "/usr/bin/chromium-browser",
            "/snap/bin/chromium",
            "/usr/bin/microsoft-edge-stable",
            "/usr/bin/microsoft-edge",
            "/usr/bin/brave-browser",
            "/opt/brave.com/brave/brave",
        ] {
            c.push(p.into());
        }
    } else if cfg!(target_os = "macos") {
        for app in [
            "Google Chrome.app/Contents/MacOS/Google Chrome",
            "Chromium.app/Contents/MacOS/Chromium",
            "Microsoft Edge.app/Contents/MacOS/Microsoft Edge",
            "Brave Browser.app/Contents/MacOS/Brave Browser",
        ] {
            c.push(Path::new("/Applications").join(app));
            if let Some(home) = std::env::var_os("HOME") {
                c.push(Path::new(&home).join("Applications").join(app));
            }
        }
    } else if cfg!(windows) {
        let roots = ["ProgramFiles", "ProgramFiles(x86)", "LOCALAPPDATA"]
            .iter()
            .filter_map(std::env::var_os)
            .map(PathBuf::from)
            .collect::<Vec<_>>();
        for root in roots {
            for exe in [
                r"Google\Chrome\Application\chrome.exe",
                r"Chromium\Application\chrome.exe",
                r"Microsoft\Edge\Application\msedge.exe",
                r"BraveSoftware\Brave-Browser\Application\brave.exe",
            ] {
                c.push(root.join(exe));
            }
        }
    }
    c
}

/// The browser to launch: the explicit path, or the first installed one.
pub fn find_browser(explicit: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        return if p.exists() {
            Ok(p.to_path_buf())
        } else {
            Err(format!("--browser-path {} does not exist", p.display()))
        };
    }
    browser_candidates()
        .into_iter()
        .find(|p| p.exists())
        .ok_or_else(|| {
            "no Chrome, Chromium, Edge or Brave found in the standard locations; install one \
             or pass --browser-path (or load the tabwire extension in your browser)"
                .to_string()
        })
}

fn running_as_root() -> bool {
    #[cfg(unix)]
    {
        // SAFETY: geteuid has no preconditions and cannot fail.
        unsafe { libc::geteuid() == 0 }
    }
    #[cfg(not(unix))]
    {
        false
    }
}

fn display_available() -> bool {
    if cfg!(target_os = "linux") {
        std::env::var_os("DISPLAY").is_some() || std::env::var_os("WAYLAND_DISPLAY").is_some()
    } else {
        true
    }
}

/// The full command line (without the program) for a launch.
pub fn browser_args(opts: &LaunchOptions, profile: &Path) -> Vec<String> {
    let mut args = vec![
        "--remote-debugging-pipe".to_string(),
        format!("--user-data-dir={}", profile.display()),
        "--no-first-run".into(),
        "--no-default-browser-check".into(),
        "--window-size=1280,800".into(),
    ];
    if opts.headless || !display_available() {
        args.push("--headless=new".into());
        args.push("--disable-gpu".into());
    }
    if running_as_root() {
        tracing::warn!("running as root: launching the browser with --no-sandbox");
        args.push("--no-sandbox".into());
    }
    args.extend(opts.extra_args.iter().cloned());
    if opts.webmcp {
        with_feature(&mut args, "WebMCP");
    }
    args.push("about:blank".into());
    args
}

/// Adds `feature` to the command line's `--enable-features` (Chromium
/// reads only one such flag, so a list the user gave is extended, not
/// shadowed).
fn with_feature(args: &mut Vec<String>, feature: &str) {
    const FLAG: &str = "--enable-features=";
    match args.iter_mut().rev().find(|a| a.starts_with(FLAG)) {
        Some(flag) if flag[FLAG.len()..].split(',').any(|f| f == feature) => {}
        Some(flag) if flag.len() == FLAG.len() => flag.push_str(feature),
        Some(flag) => {
            flag.push(',');
            flag.push_str(feature);
        }
        None => args.push(format!("{FLAG}{feature}")),
    }
}

/// What a profile's `SingletonLock` says about who holds it.
#[derive(Debug, PartialEq)]
pub enum ProfileLock {
    Free,
    /// Held by a live browser process.
    Busy(u32),
    /// Left by a process that is gone (or is not a browser): safe to clear.
    Stale,
}

/// Reads Chromium's lock (a symlink to `<host>-<pid>`) and checks its owner.
pub fn profile_lock(profile: &Path) -> ProfileLock {
    let Ok(target) = std::fs::read_link(profile.join("SingletonLock")) else {
        return ProfileLock::Free;
    };
    let target = target.to_string_lossy();
    let Some(pid) = target
        .rsplit('-')
        .next()
        .and_then(|p| p.parse::<u32>().ok())
    else {
        return ProfileLock::Stale;
    };
    if process_is_browser(pid) {
        ProfileLock::Busy(pid)
    } else {
        ProfileLock::Stale
    }
}

#[cfg(target_os = "linux")]
fn process_is_browser(pid: u32) -> bool {
    let Ok(comm) = std::fs::read_to_string(format!("/proc/{pid}/comm")) else {
        return false;
    };
    let comm = comm.trim().to_ascii_lowercase();
    ["chrom", "msedge", "brave", "opera", "vivaldi"]
        .iter()
        .any(|b| comm.contains(b))
}

#[cfg(not(target_os = "linux"))]
fn process_is_browser(pid: u32) -> bool {
    // Without /proc, assume a live pid is the browser (never steal a lock).
    #[cfg(unix)]
    {
        // SAFETY: kill with signal 0 only checks for existence.
        unsafe { libc::kill(pid as i32, 0) == 0 }
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

/// Removes the lock files a killed browser left behind.
pub fn clear_stale_lock(profile: &Path) {
    for f in ["SingletonLock", "SingletonSocket", "SingletonCookie"] {
        let _ = std::fs::remove_file(profile.join(f));
    }
}

/// Picks the profile: the persistent one unless a live browser holds it, in
/// which case a throwaway profile is used (returned as a TempDir to delete).
pub fn choose_profile(
    opts: &LaunchOptions,
) -> Result<(PathBuf, Option<tempfile::TempDir>), String> {
    let profile = opts
        .profile_dir
        .clone()
        .unwrap_or_else(|| crate::paths::data_dir().join("profiles").join("default"));
    std::fs::create_dir_all(&profile)
        .map_err(|e| format!("could not create profile {}: {e}", profile.display()))?;
    match profile_lock(&profile) {
        ProfileLock::Free => Ok((profile, None)),
        ProfileLock::Stale => {
            tracing::info!(profile = %profile.display(), "recovering a stale profile lock");
            clear_stale_lock(&profile);
            Ok((profile, None))
        }
        ProfileLock::Busy(pid) => {
            tracing::info!(
                pid,
                "the fallback profile is in use by another browser; using a temporary profile"
            );
            let tmp = tempfile::Builder::new()
                .prefix("tabwire-profile-")
                .tempdir()
                .map_err(|e| format!("could not create a temporary profile: {e}"))?;
            Ok((tmp.path().to_path_buf(), Some(tmp)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn args_use_a_pipe_and_the_given_profile() {
        let opts = LaunchOptions {
            headless: true,
            extra_args: vec!["--lang=en".into()],
            ..Default::default()
        };
        let args = browser_args(&opts, Path::new("/p"));
        assert!(args.contains(&"--remote-debugging-pipe".to_string()));
        assert!(args.contains(&"--user-data-dir=/p".to_string()));
        assert!(args.contains(&"--headless=new".to_string()));
        assert!(args.contains(&"--lang=en".to_string()));
        assert!(!args
            .iter()
            .any(|a| a.starts_with("--remote-debugging-port")));
        assert_eq!(args.last().unwrap(), "about:blank");
    }

    #[test]
    fn webmcp_joins_the_features_the_user_gave() {
        let args = |extra: &[&str], webmcp| {
            let opts = LaunchOptions {
                extra_args: extra.iter().map(|s| s.to_string()).collect(),
                webmcp,
                ..Default::default()
            };
            browser_args(&opts, Path::new("/p"))
                .into_iter()
                .filter(|a| a.starts_with("--enable-features"))
                .collect::<Vec<_>>()
        };
        assert_eq!(args(&[], true), ["--enable-features=WebMCP"]);
        assert!(args(&[], false).is_empty());
        assert_eq!(
            args(&["--enable-features=Foo"], true),
            ["--enable-features=Foo,WebMCP"]
        );
        assert_eq!(
            args(&["--enable-features=WebMCP,Foo"], true),
            ["--enable-features=WebMCP,Foo"]
        );
    }

    #[cfg(unix)]
    #[test]
    fn lock_of_a_dead_process_is_stale_and_of_a_live_non_browser_too() {
        let tmp = tempfile::tempdir().unwrap();
        assert_eq!(profile_lock(tmp.path()), ProfileLock::Free);
        std::os::unix::fs::symlink("host-999999999", tmp.path().join("SingletonLock")).unwrap();
        assert_eq!(profile_lock(tmp.path()), ProfileLock::Stale);
        // Our own pid is alive but is not a browser.
        std::fs::remove_file(tmp.path().join("SingletonLock")).unwrap();
        std::os::unix::fs::symlink(
            format!("host-{}", std::process::id()),
            tmp.path().join("SingletonLock"),
        )
        .unwrap();
        assert_eq!(profile_lock(tmp.path()), ProfileLock::Stale);
        clear_stale_lock(tmp.path());
        assert_eq!(profile_lock(tmp.path()), ProfileLock::Free);
    }

    #[test]
    fn explicit_missing_browser_is_a_clear_error() {
        let err = find_browser(Some(Path::new("/nope/chrome"))).unwrap_err();
        assert!(err.contains("does not exist"));
    }
}
