//! Inside WSL: the Windows side that lets Windows Chrome reach this
//! distribution (see [`crate::wsl`]) — interop, the distribution's name,
//! the relay, its manifest and config, the registry keys. One line each.
//!
//! `severity` is what a broken link counts as: a failure when Windows
//! Chrome is the only browser (no Linux one is registered), else a warning
//! (the distribution may well use a Linux browser through WSLg).

use std::path::Path;

use super::report::{Check, Status};
use crate::install::browsers::manifest_file_name;
use crate::install::{manifest, registry};
use crate::wsl::interop::{self, Interop};
use crate::wsl::relay::{RelayConfig, CONFIG_FILE, RELAY_EXE};
use crate::wsl::setup::{browsers_reading, registry_keys, relay_source};
use crate::wsl::{Wsl, INTEROP_FIX};

/// What the Windows-side checks compare against.
pub(super) struct Expect<'a> {
    /// This tabwire (the relay is looked for beside it, for the fix).
    pub(super) binary: Option<&'a Path>,
    /// The serves' socket directory here.
    pub(super) runtime_dir: &'a Path,
    pub(super) severity: Status,
}

pub(super) fn wsl_checks(interop: &dyn Interop, wsl: &Wsl, expect: &Expect) -> Vec<Check> {
    let bad = expect.severity;
    let reinstall = match expect.binary {
        Some(b) if !relay_source(b).is_file() => format!(
            "put {RELAY_EXE} (from the Windows release archive) at {} and run `tabwire install`",
            relay_source(b).display()
        ),
        _ => "run `tabwire install` inside this distribution".to_string(),
    };
    let mut checks = Vec::new();

    if wsl.interop {
        checks.push(Check::new(
            "wsl.interop",
            Status::Ok,
            "WSL interop",
            "on: this distribution can run Windows programs (cmd.exe, reg.exe)",
        ));
    } else {
        checks.push(
            Check::new(
                "wsl.interop",
                bad,
                "WSL interop",
                "off: this distribution cannot run Windows programs, so tabwire cannot register \
                 with or check Windows Chrome",
            )
            .fix(format!("to turn it on, {INTEROP_FIX}")),
        );
    }

    let distro = match wsl.distro.as_deref() {
        Some(d) => {
            checks.push(Check::new(
                "wsl.distro",
                Status::Ok,
                "WSL distribution",
                format!("{d} (what the relay runs `wsl.exe -d` with)"),
            ));
            Some(d)
        }
        None => {
            checks.push(
                Check::new(
                    "wsl.distro",
                    bad,
                    "WSL distribution",
                    "unknown: WSL_DISTRO_NAME is not set",
                )
                .fix("run tabwire from a WSL shell, not through sudo or a service"),
            );
            None
        }
    };
    // Without interop nothing on the Windows side can be looked at.
    if !wsl.interop {
        return checks;
    }

    let dir = match interop::windows_dir(interop) {
        Ok(d) => d,
        Err(e) => {
            checks.push(Check::new("wsl.windows-dir", bad, "Windows folder", e));
            return checks;
        }
    };

    let relay_win = dir.windows_file(RELAY_EXE);
    if dir.linux_file(RELAY_EXE).is_file() {
        checks.push(Check::new(
            "wsl.relay",
            Status::Ok,
            "WSL relay for Windows Chrome",
            relay_win.clone(),
        ));
    } else {
        checks.push(
            Check::new(
                "wsl.relay",
                bad,
                "WSL relay for Windows Chrome",
                format!(
                    "{relay_win} does not exist; Windows Chrome cannot reach this distribution"
                ),
            )
            .fix(reinstall.clone()),
        );
    }

    let manifest_win = dir.windows_file(&manifest_file_name());
    let manifest_title = "host manifest for Windows Chrome";
    match std::fs::read_to_string(dir.linux_file(&manifest_file_name())) {
        Err(_) => checks.push(
            Check::new(
                "wsl.manifest",
                bad,
                manifest_title,
                format!("{manifest_win} does not exist"),
            )
            .fix(reinstall.clone()),
        ),
        Ok(text) => {
            // The relay itself was checked above; here only what the manifest names.
            let found = manifest::inspect(&text, &|_| Ok(()));
            let mut why: Vec<String> = found
                .manifest_problems
                .iter()
                .map(|p| p.to_string())
                .collect();
            if found.binary.as_deref() != Some(relay_win.as_str()) {
                why.push(format!(
                    "it names {:?}, not the relay {relay_win}",
                    found.binary.unwrap_or_default()
                ));
            }
            if why.is_empty() {
                checks.push(Check::new(
                    "wsl.manifest",
                    Status::Ok,
                    manifest_title,
                    format!("{manifest_win} names the relay"),
                ));
            } else {
                checks.push(
                    Check::new(
                        "wsl.manifest",
                        bad,
                        manifest_title,
                        format!("{manifest_win}: {}", why.join("; ")),
                    )
                    .fix(reinstall.clone()),
                );
            }
        }
    }

    for key in registry_keys() {
        let title = format!("registry key for {}", browsers_reading(&key));
        let value = interop
            .run("reg.exe", &registry::query_default_args(&key))
            .ok()
            .filter(|r| r.ok)
            .and_then(|r| registry::parse_sz(&r.stdout));
        let check = match value {
            Some(v) if v.eq_ignore_ascii_case(&manifest_win) => Check::new(
                format!("wsl.registry.{}", key_id(&key)),
                Status::Ok,
                title,
                format!(r"HKCU\{key} points at {manifest_win}"),
            ),
            Some(v) => Check::new(
                format!("wsl.registry.{}", key_id(&key)),
                bad,
                title,
                format!(
                    r"HKCU\{key} points at {v}, not at this distribution's relay manifest \
                     {manifest_win} (a tabwire installed on Windows, or another distribution?)"
                ),
            )
            .fix(reinstall.clone()),
            None => Check::new(
                format!("wsl.registry.{}", key_id(&key)),
                bad,
                title,
                format!(r"not registered: HKCU\{key} is missing"),
            )
            .fix(reinstall.clone()),
        };
        checks.push(check);
    }

    let config_win = dir.windows_file(CONFIG_FILE);
    let config_title = "WSL relay config";
    let config = std::fs::read_to_string(dir.linux_file(CONFIG_FILE))
        .map_err(|_| format!("{config_win} does not exist"))
        .and_then(|t| RelayConfig::parse(&t));
    let check = match config {
        Err(e) => Check::new("wsl.config", bad, config_title, e),
        Ok(c) => config_check(&c, distro, expect, bad, &config_win),
    };
    checks.push(if check.status == Status::Ok {
        check
    } else {
        check.fix(reinstall)
    });
    checks
}

/// The relay config against this distribution: its name, the host it
/// runs (which must exist here), and the socket directory it gives it.
fn config_check(
    c: &RelayConfig,
    distro: Option<&str>,
    expect: &Expect,
    bad: Status,
    shown: &str,
) -> Check {
    let title = "WSL relay config";
    if distro.is_some_and(|d| d != c.distro) {
        return Check::new(
            "wsl.config",
            bad,
            title,
            format!(
                "{shown} runs the host in distribution {:?}, not in this one ({:?})",
                c.distro,
                distro.unwrap_or_default()
            ),
        );
    }
    if !Path::new(&c.host).is_file() {
        return Check::new(
            "wsl.config",
            bad,
            title,
            format!(
                "{shown} runs {}, which does not exist in this distribution",
                c.host
            ),
        );
    }
    let here = expect.runtime_dir.to_string_lossy();
    if let Some(dir) = c.runtime_dir.as_deref() {
        if dir != here {
            return Check::new(
                "wsl.config",
                Status::Warn,
                title,
                format!(
                    "{shown} gives the host the socket directory {dir}, but serves started here \
                     use {here}: the host would not find them"
                ),
            );
        }
    }
    Check::new(
        "wsl.config",
        Status::Ok,
        title,
        format!("runs {} in {}", c.host, c.distro),
    )
}

/// `Software\Google\Chrome\NativeMessagingHosts\…` → `google-chrome`, for check ids.
fn key_id(key: &str) -> String {
    key.split(r"\NativeMessagingHosts")
        .next()
        .unwrap_or(key)
        .trim_start_matches(r"Software\")
        .replace('\\', "-")
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wsl::interop::tests::FakeWindows;
    use crate::wsl::setup::{install, Plan};

    fn wsl() -> Wsl {
        Wsl {
            distro: Some("Ubuntu".into()),
            interop: true,
        }
    }

    fn find<'a>(checks: &'a [Check], id: &str) -> &'a Check {
        checks
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("no {id} in {checks:?}"))
    }

    #[test]
    fn interop_off_says_exactly_that_and_how_to_turn_it_on() {
        let tmp = tempfile::tempdir().unwrap();
        let fake = FakeWindows::new(tmp.path());
        let off = Wsl {
            interop: false,
            ..wsl()
        };
        let expect = Expect {
            binary: None,
            runtime_dir: Path::new("/run/user/1000/tabwire"),
            severity: Status::Fail,
        };
        let checks = wsl_checks(&fake, &off, &expect);
        let c = find(&checks, "wsl.interop");
        assert_eq!(c.status, Status::Fail);
        assert!(c.detail.starts_with("off: "), "{}", c.detail);
        let fix = c.fix.as_deref().unwrap();
        assert!(fix.contains("/etc/wsl.conf"), "{fix}");
        assert!(
            fix.contains("`[interop]`") && fix.contains("`enabled=true`"),
            "{fix}"
        );
        assert!(fix.contains("`wsl --shutdown` from Windows"), "{fix}");
        // Nothing on the Windows side is tried.
        assert!(fake.calls.borrow().is_empty());
        assert_eq!(checks.len(), 2, "{checks:?}");
        // Beside a Linux browser the same is only a warning.
        let soft = Expect {
            severity: Status::Warn,
            ..expect
        };
        assert_eq!(
            find(&wsl_checks(&fake, &off, &soft), "wsl.interop").status,
            Status::Warn
        );
    }

    #[test]
    fn before_install_each_missing_piece_is_named() {
        let tmp = tempfile::tempdir().unwrap();
        let fake = FakeWindows::new(tmp.path());
        let nameless = Wsl {
            distro: None,
            ..wsl()
        };
        let expect = Expect {
            binary: None,
            runtime_dir: Path::new("/run/user/1000/tabwire"),
            severity: Status::Fail,
        };
        let checks = wsl_checks(&fake, &nameless, &expect);
        assert_eq!(find(&checks, "wsl.interop").status, Status::Ok);
        assert!(find(&checks, "wsl.distro")
            .detail
            .contains("WSL_DISTRO_NAME is not set"));
        let relay = find(&checks, "wsl.relay");
        assert_eq!(relay.status, Status::Fail);
        assert!(
            relay
                .detail
                .contains(r"AppData\Local\tabwire\wsl\tabwire-wsl-relay.exe does not exist"),
            "{}",
            relay.detail
        );
        assert!(find(&checks, "wsl.manifest")
            .detail
            .contains("does not exist"));
        let chrome = find(&checks, "wsl.registry.google-chrome");
        assert_eq!(chrome.status, Status::Fail);
        assert_eq!(chrome.title, "registry key for Google Chrome, Opera");
        assert!(chrome.detail.contains(
            r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host is missing"
        ));
        assert_eq!(
            find(&checks, "wsl.registry.bravesoftware-brave-browser").status,
            Status::Fail
        );
        assert_eq!(find(&checks, "wsl.config").status, Status::Fail);
        // The fix says where the relay must come from when it is not here.
        let binary = tmp.path().join("tabwire");
        let expect = Expect {
            binary: Some(binary.as_path()),
            ..expect
        };
        let checks = wsl_checks(&fake, &wsl(), &expect);
        assert!(find(&checks, "wsl.relay")
            .fix
            .as_deref()
            .unwrap()
            .contains("Windows release archive"));
    }

    #[test]
    fn after_install_every_check_passes_and_a_moved_host_is_caught() {
        let tmp = tempfile::tempdir().unwrap();
        let local = tmp.path().join("local");
        std::fs::create_dir_all(&local).unwrap();
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let binary = bin.join("tabwire");
        std::fs::write(&binary, "linux").unwrap();
        std::fs::write(bin.join(RELAY_EXE), "MZ").unwrap();
        let host = tmp.path().join("tabwire-host");
        std::fs::write(&host, "host").unwrap();
        let runtime = Path::new("/run/user/1000/tabwire");
        let fake = FakeWindows::new(&local);
        let ubuntu = wsl();
        let plan = Plan {
            wsl: &ubuntu,
            binary: &binary,
            host: &host,
            runtime_dir: runtime,
            dry_run: false,
        };
        install(&fake, &plan, &mut Vec::<u8>::new());

        let expect = Expect {
            binary: Some(binary.as_path()),
            runtime_dir: runtime,
            severity: Status::Fail,
        };
        let checks = wsl_checks(&fake, &wsl(), &expect);
        assert_eq!(checks.len(), 2 + 1 + 1 + 5 + 1, "{checks:?}");
        for c in &checks {
            assert_eq!(c.status, Status::Ok, "{c:?}");
        }

        // Serves here use another socket directory: a warning naming both.
        let elsewhere = Expect {
            runtime_dir: Path::new("/tmp/tabwire-1000"),
            ..expect
        };
        let c = find(&wsl_checks(&fake, &wsl(), &elsewhere), "wsl.config").clone();
        assert_eq!(c.status, Status::Warn);
        assert!(c.detail.contains("/tmp/tabwire-1000"), "{}", c.detail);

        // Another distribution installed last.
        let other = Wsl {
            distro: Some("Debian".into()),
            interop: true,
        };
        let c = find(&wsl_checks(&fake, &other, &expect), "wsl.config").clone();
        assert_eq!(c.status, Status::Fail);
        assert!(c.detail.contains("\"Ubuntu\""), "{}", c.detail);

        // The host the relay runs is gone.
        std::fs::remove_file(&host).unwrap();
        let c = find(&wsl_checks(&fake, &wsl(), &expect), "wsl.config").clone();
        assert_eq!(c.status, Status::Fail);
        assert!(
            c.detail.contains("does not exist in this distribution"),
            "{}",
            c.detail
        );
        assert!(c.fix.is_some());

        // A key pointing elsewhere (a tabwire installed on Windows itself).
        fake.registry.borrow_mut().insert(
            r"HKCU\Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host".into(),
            r"C:\Users\ada\AppData\Local\tabwire\data\com.tabwire.host.json".into(),
        );
        let c = find(
            &wsl_checks(&fake, &wsl(), &expect),
            "wsl.registry.google-chrome",
        )
        .clone();
        assert_eq!(c.status, Status::Fail);
        assert!(
            c.detail.contains(r"tabwire\data\com.tabwire.host.json"),
            "{}",
            c.detail
        );
    }

    #[test]
    fn check_ids_from_keys() {
        assert_eq!(
            key_id(r"Software\Google\Chrome\NativeMessagingHosts\com.tabwire.host"),
            "google-chrome"
        );
        assert_eq!(
            key_id(r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\com.tabwire.host"),
            "bravesoftware-brave-browser"
        );
    }
}
