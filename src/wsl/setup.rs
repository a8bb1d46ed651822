//! `tabwire install` inside WSL, on the Windows side: in
//! `%LOCALAPPDATA%\tabwire\wsl\` it places the relay (`tabwire-wsl-relay.exe`,
//! copied from beside the Linux `tabwire`), the relay's config, the host
//! manifest naming the relay and a copy of the extension to load in Windows
//! Chrome; then it points every Chromium vendor's `HKCU\…\NativeMessagingHosts\com.tabwire.host`
//! key at that manifest with `reg.exe`.
//!
//! The relay must be a Windows build, which a Linux tabwire cannot make:
//! the Windows release archive ships it. When it is not beside the Linux
//! binary install says so, and how to get it, and leaves Windows alone (a
//! registration naming a program that is not there would only fail later
//! in Chrome); the Linux side of the install is not affected.
//!
//! Nothing here is recorded for `tabwire uninstall`, which runs the Linux
//! side only: the README lists the two commands that remove the Windows
//! side.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::interop::{self, Interop, WinDir};
use super::relay::{RelayConfig, CONFIG_FILE, RELAY_EXE};
use super::{Wsl, INTEROP_FIX};
use crate::install::browsers::{self, manifest_file_name, registry_key};
use crate::install::{extension_files, manifest, registry};

/// What install needs to know, gathered by the caller.
#[derive(Debug, Clone)]
pub struct Plan<'a> {
    pub wsl: &'a Wsl,
    /// The tabwire binary install runs as; the relay is looked for beside it.
    pub binary: &'a Path,
    /// The Linux host copy (`<data dir>/bin/tabwire-host`) the relay runs.
    pub host: &'a Path,
    /// The serves' socket directory ([`crate::broker::dir::runtime_dir_path`]).
    pub runtime_dir: &'a Path,
    pub dry_run: bool,
}

/// `tabwire-wsl-relay.exe` beside the Linux `tabwire` (the release archive
/// puts it there).
pub fn relay_source(binary: &Path) -> PathBuf {
    binary.with_file_name(RELAY_EXE)
}

/// Every `HKCU` key a Chromium-family browser on Windows reads tabwire's
/// host from, once each (channels of one vendor share a key), in the
/// browser table's order.
pub fn registry_keys() -> Vec<String> {
    let mut keys: Vec<String> = Vec::new();
    for b in browsers::BROWSERS {
        if let Some(k) = b.windows_key {
            let key = registry_key(k);
            if !keys.contains(&key) {
                keys.push(key);
            }
        }
    }
    keys
}

/// The browsers that read `key`, for people (`Google Chrome, Opera`).
pub fn browsers_reading(key: &str) -> String {
    let mut names: Vec<&str> = Vec::new();
    for b in browsers::BROWSERS {
        let own = b.hosts_of.and_then(browsers::by_name).unwrap_or(b);
        if own.windows_key.map(registry_key).as_deref() == Some(key) {
            let vendor = b.name.split(" Beta").next().unwrap_or(b.name);
            let vendor = vendor.split(" Dev").next().unwrap_or(vendor);
            let vendor = vendor.split(" Canary").next().unwrap_or(vendor);
            let vendor = vendor.split(" Nightly").next().unwrap_or(vendor);
            if !names.contains(&vendor) {
                names.push(vendor);
            }
        }
    }
    names.join(", ")
}

/// The host manifest for the Windows side: the existing template
/// ([`manifest::render`]), naming the relay in `dir` by its Windows path.
pub fn manifest_text(dir: &WinDir) -> String {
    manifest::render(Path::new(&dir.windows_file(RELAY_EXE)))
}

/// The relay's config for this distribution.
pub fn relay_config(distro: &str, host: &Path, runtime_dir: &Path) -> RelayConfig {
    RelayConfig {
        distro: distro.to_string(),
        host: host.to_string_lossy().into_owned(),
        runtime_dir: Some(runtime_dir.to_string_lossy().into_owned()),
    }
}

/// The extension's folder on the Windows side (Chrome on Windows loads it
/// from a Windows path; a `\\wsl.localhost\…` one works poorly).
pub const EXTENSION_DIR: &str = "extension";

/// Writes `bytes` to `path` unless it already holds them; the word to say.
fn put(path: &Path, bytes: &[u8], dry: bool) -> Result<&'static str, String> {
    let verb = match std::fs::read(path) {
        Ok(old) if old == bytes => return Ok("up to date:"),
        Ok(_) if dry => "would update",
        Ok(_) => "updated",
        Err(_) if dry => "would write",
        Err(_) => "wrote",
    };
    if !dry {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("could not create {}: {e}", parent.display()))?;
        }
        std::fs::write(path, bytes)
            .map_err(|e| format!("could not write {}: {e}", path.display()))?;
    }
    Ok(verb)
}

/// Places the relay: written beside the old one, then renamed into place.
/// Windows refuses to overwrite a program that runs (Chrome keeps the relay
/// running while the extension is connected) but lets it be renamed, so
/// the old one is moved aside first, as the Windows host copy is
/// ([`crate::install::source::replace`]).
fn put_program(from: &Path, dest: &Path, dry: bool) -> Result<&'static str, String> {
    let bytes =
        std::fs::read(from).map_err(|e| format!("could not read {}: {e}", from.display()))?;
    let verb = match std::fs::read(dest) {
        Ok(old) if old == bytes => return Ok("up to date:"),
        Ok(_) if dry => "would replace",
        Ok(_) => "replaced",
        Err(_) if dry => "would place",
        Err(_) => "placed",
    };
    if dry {
        return Ok(verb);
    }
    let dir = dest.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| format!("could not create {}: {e}", dir.display()))?;
    let staged = dir.join(format!(".{RELAY_EXE}.new-{}", std::process::id()));
    let aside = dir.join("tabwire-wsl-relay.old.exe");
    let result = std::fs::write(&staged, &bytes).and_then(|()| {
        crate::install::source::replace(crate::install::Os::Windows, &staged, dest, &aside)
    });
    if let Err(e) = result {
        let _ = std::fs::remove_file(&staged);
        return Err(format!("could not place {}: {e}", dest.display()));
    }
    Ok(verb)
}

/// Install's Windows-side step. It prints what it does and never fails the
/// install: whatever stops it is said, with what to do.
pub fn install(interop: &dyn Interop, plan: &Plan, out: &mut dyn Write) {
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "Windows browsers (this is WSL; Chrome on Windows reaches it through wsl.exe):"
    );
    if let Err(why) = install_steps(interop, plan, out) {
        let _ = writeln!(out, "  not registered with Windows browsers: {why}");
    }
}

fn install_steps(interop: &dyn Interop, plan: &Plan, out: &mut dyn Write) -> Result<(), String> {
    let dry = plan.dry_run;
    let Some(distro) = plan.wsl.distro.as_deref() else {
        return Err(
            "the distribution's name is unknown (WSL_DISTRO_NAME is not set); run \
             `tabwire install` from a WSL shell, not through sudo or a service"
                .into(),
        );
    };
    let from = relay_source(plan.binary);
    if !from.is_file() {
        return Err(format!(
            "{RELAY_EXE} is not beside this tabwire ({} is missing). It is the Windows program \
             Chrome starts to reach WSL, built for Windows only: take it from the Windows release \
             archive (tabwire-x86_64-pc-windows-msvc.zip), or build it on Windows with \
             `cargo build --release --bin tabwire-wsl-relay`; put it at {} and run `tabwire \
             install` again",
            from.display(),
            from.display()
        ));
    }
    if !plan.wsl.interop {
        return Err(format!(
            "Windows interop is off in this distribution, so tabwire cannot reach the Windows \
             side (cmd.exe, reg.exe). To turn it on, {INTEROP_FIX}; then run `tabwire install` \
             again"
        ));
    }
    let dir = interop::windows_dir(interop)?;
    let _ = writeln!(
        out,
        "  distribution {distro}; Windows folder {}",
        dir.windows
    );

    // The relay first: no manifest may name a program that is not there yet.
    let verb = put_program(&from, &dir.linux_file(RELAY_EXE), dry)?;
    let _ = writeln!(
        out,
        "    {verb} {} (copied from {})",
        dir.windows_file(RELAY_EXE),
        from.display()
    );
    let config = relay_config(distro, plan.host, plan.runtime_dir);
    let verb = put(
        &dir.linux_file(CONFIG_FILE),
        config.to_text().as_bytes(),
        dry,
    )?;
    let _ = writeln!(
        out,
        "    {verb} {} (runs {} in {distro})",
        dir.windows_file(CONFIG_FILE),
        config.host
    );
    let manifest_name = manifest_file_name();
    let verb = put(
        &dir.linux_file(&manifest_name),
        manifest_text(&dir).as_bytes(),
        dry,
    )?;
    let _ = writeln!(out, "    {verb} {}", dir.windows_file(&manifest_name));

    // The registry keys, each pointing at that manifest.
    let want = dir.windows_file(&manifest_name);
    for key in registry_keys() {
        let current = interop
            .run("reg.exe", &registry::query_default_args(&key))
            .ok()
            .filter(|r| r.ok)
            .and_then(|r| registry::parse_sz(&r.stdout));
        if current.as_deref() == Some(want.as_str()) {
            let _ = writeln!(out, r"    up to date: HKCU\{key}");
            continue;
        }
        if !dry {
            let ran = interop
                .run("reg.exe", &registry::add_default_args(&key, &want))
                .map_err(|e| format!(r"could not run reg.exe to set HKCU\{key}: {e}"))?;
            if !ran.ok {
                return Err(format!(r"could not set HKCU\{key}: {}", ran.stderr.trim()));
            }
        }
        let _ = writeln!(
            out,
            r"    {} HKCU\{key} = {want} ({})",
            if dry { "would set" } else { "set" },
            browsers_reading(&key)
        );
    }

    // The extension, where Windows Chrome can load it from.
    let ext = dir.linux_file(EXTENSION_DIR);
    let mut changed = 0;
    for (name, content) in extension_files::FILES {
        if put(&ext.join(name), content.as_bytes(), dry)? != "up to date:" {
            changed += 1;
        }
    }
    let ext_win = dir.windows_file(EXTENSION_DIR);
    if changed == 0 {
        let _ = writeln!(out, "    up to date: extension in {ext_win}");
    } else {
        let _ = writeln!(
            out,
            "    {} {changed} extension file(s) in {ext_win}",
            if dry { "would write" } else { "wrote" }
        );
    }
    let _ = writeln!(
        out,
        "  In Windows Chrome open chrome://extensions, switch on \"Developer mode\", click \
         \"Load unpacked\" and choose {ext_win}"
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wsl::interop::tests::{FakeWindows, LOCAL};
    use serde_json::Value;

    const KEYS: [&str; 5] = [
        r"Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host",
        r"Software\Chromium\NativeMessagingHosts\com.tabwire.host",
        r"Software\Microsoft\Edge\NativeMessagingHosts\com.tabwire.host",
        r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\com.tabwire.host",
        r"Software\Vivaldi\NativeMessagingHosts\com.tabwire.host",
    ];

    fn wsl() -> Wsl {
        Wsl {
            distro: Some("Ubuntu".into()),
            interop: true,
        }
    }

    /// A Linux tabwire with (or without) the relay beside it, and a fake
    /// Windows whose %LOCALAPPDATA% is a temporary folder.
    struct World {
        _tmp: tempfile::TempDir,
        binary: PathBuf,
        local: PathBuf,
        fake: FakeWindows,
    }

    fn world(with_relay: bool) -> World {
        let tmp = tempfile::tempdir().unwrap();
        let bin = tmp.path().join("bin");
        let local = tmp.path().join("c/Users/ada/AppData/Local");
        std::fs::create_dir_all(&bin).unwrap();
        std::fs::create_dir_all(&local).unwrap();
        let binary = bin.join("tabwire");
        std::fs::write(&binary, "linux").unwrap();
        if with_relay {
            std::fs::write(bin.join(RELAY_EXE), "MZ relay").unwrap();
        }
        let fake = FakeWindows::new(&local);
        World {
            _tmp: tmp,
            binary,
            local,
            fake,
        }
    }

    fn run(w: &World, wsl: &Wsl, dry_run: bool) -> String {
        let plan = Plan {
            wsl,
            binary: &w.binary,
            host: Path::new("/home/ada/.local/share/tabwire/bin/tabwire-host"),
            runtime_dir: Path::new("/run/user/1000/tabwire"),
            dry_run,
        };
        let mut out: Vec<u8> = Vec::new();
        install(&w.fake, &plan, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn keys_are_the_existing_vendor_keys_once_each() {
        assert_eq!(registry_keys(), KEYS);
        assert_eq!(browsers_reading(KEYS[0]), "Google Chrome, Opera");
        assert_eq!(browsers_reading(KEYS[2]), "Microsoft Edge");
    }

    #[test]
    fn the_windows_manifest_names_the_relay() {
        let dir = WinDir {
            windows: format!(r"{LOCAL}\tabwire\wsl"),
            linux: PathBuf::from("/mnt/c/Users/ada/AppData/Local/tabwire/wsl"),
        };
        let m: Value = serde_json::from_str(&manifest_text(&dir)).unwrap();
        assert_eq!(m["name"], "com.tabwire.host");
        assert_eq!(m["type"], "stdio");
        assert_eq!(
            m["path"],
            r"C:\Users\ada\AppData\Local\tabwire\wsl\tabwire-wsl-relay.exe"
        );
        assert_eq!(
            m["allowed_origins"],
            serde_json::json!(crate::protocol::extension_origins())
        );
        assert_eq!(
            dir.windows_file(&manifest_file_name()),
            r"C:\Users\ada\AppData\Local\tabwire\wsl\com.tabwire.host.json"
        );
    }

    #[test]
    fn install_places_everything_and_sets_each_key() {
        let w = world(true);
        let text = run(&w, &wsl(), false);
        let dir = w.local.join("tabwire/wsl");
        assert_eq!(std::fs::read(dir.join(RELAY_EXE)).unwrap(), b"MZ relay");
        let config =
            RelayConfig::parse(&std::fs::read_to_string(dir.join(CONFIG_FILE)).unwrap()).unwrap();
        assert_eq!(
            config,
            RelayConfig {
                distro: "Ubuntu".into(),
                host: "/home/ada/.local/share/tabwire/bin/tabwire-host".into(),
                runtime_dir: Some("/run/user/1000/tabwire".into()),
            }
        );
        let m: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("com.tabwire.host.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            m["path"],
            r"C:\Users\ada\AppData\Local\tabwire\wsl\tabwire-wsl-relay.exe"
        );
        assert!(dir.join("extension/manifest.json").is_file());
        let manifest = r"C:\Users\ada\AppData\Local\tabwire\wsl\com.tabwire.host.json";
        for key in KEYS {
            assert_eq!(
                w.fake
                    .registry
                    .borrow()
                    .get(&format!(r"HKCU\{key}"))
                    .map(String::as_str),
                Some(manifest),
                "{key}"
            );
        }
        // The exact reg.exe command line, reusing the registry module's.
        let calls = w.fake.calls.borrow();
        let add = format!(
            r"reg.exe add HKCU\{} /ve /t REG_SZ /d {manifest} /f",
            KEYS[0]
        );
        assert!(calls.contains(&add), "{calls:?}");
        assert!(text.contains(r"set HKCU\Software\Google\Chrome"), "{text}");
        assert!(text.contains("Load unpacked"), "{text}");
        drop(calls);

        // Again: everything is up to date and no key is set twice.
        let before = w.fake.calls.borrow().len();
        let text = run(&w, &wsl(), false);
        assert!(!text.contains(" set HKCU"), "{text}");
        assert!(
            text.contains(r"up to date: HKCU\Software\Vivaldi"),
            "{text}"
        );
        let adds = w.fake.calls.borrow()[before..]
            .iter()
            .filter(|c| c.starts_with("reg.exe add"))
            .count();
        assert_eq!(adds, 0);
    }

    #[test]
    fn a_dry_run_writes_nothing() {
        let w = world(true);
        let text = run(&w, &wsl(), true);
        assert!(!w.local.join("tabwire").exists());
        assert!(w.fake.registry.borrow().is_empty());
        assert!(text.contains("would place"), "{text}");
        assert!(text.contains(r"would set HKCU\Software\Chromium"), "{text}");
    }

    #[test]
    fn without_the_relay_windows_is_left_alone_and_the_reason_given() {
        let w = world(false);
        let text = run(&w, &wsl(), false);
        assert!(
            text.contains("tabwire-wsl-relay.exe is not beside this tabwire"),
            "{text}"
        );
        assert!(text.contains("Windows release archive"), "{text}");
        assert!(w.fake.calls.borrow().is_empty(), "no call into Windows");
        assert!(!w.local.join("tabwire").exists());
    }

    #[test]
    fn interop_off_or_unknown_distribution_is_said() {
        let w = world(true);
        let off = Wsl {
            interop: false,
            ..wsl()
        };
        let text = run(&w, &off, false);
        assert!(text.contains("Windows interop is off"), "{text}");
        assert!(text.contains("[interop]"), "{text}");
        assert!(text.contains("wsl --shutdown"), "{text}");
        assert!(w.fake.calls.borrow().is_empty());
        let nameless = Wsl {
            distro: None,
            ..wsl()
        };
        let text = run(&w, &nameless, false);
        assert!(text.contains("WSL_DISTRO_NAME is not set"), "{text}");
    }
}
