//! Windows Chrome driven from inside WSL, with no network port.
//!
//! An MCP client in a WSL distribution starts `tabwire serve` there; the
//! browser is the user's Windows Chrome. A Unix socket does not cross from
//! Windows into the distribution and tabwire opens no network port, so the
//! bridge is the one pipe Windows already has into the distribution:
//! `wsl.exe`.
//!
//! ```text
//! Chrome (Windows) ──stdio──▶ tabwire-wsl-relay.exe ──stdio──▶ wsl.exe
//!     ──▶ tabwire-host <origin> (inside the distribution) ──private socket──▶ serve
//! ```
//!
//! - [`relay`]   what the Windows relay does, as pure code tested on Linux:
//!   its config, the `wsl.exe` command line, the frame pump. Only the thin
//!   `main` of `src/bin/tabwire-wsl-relay.rs` is Windows-only.
//! - [`interop`] every call from the distribution into Windows (`cmd.exe`,
//!   `reg.exe`, `wslpath`) goes through the [`interop::Interop`] trait, so
//!   install and doctor are tested with a fake.
//! - [`setup`]   what `tabwire install` does on the Windows side: place the
//!   relay and its config, write the host manifest and the extension, set
//!   the `HKCU` registry keys.
//!
//! This file detects WSL. Detection is a pure function of the clues
//! ([`Clues`]) so every case is tested; [`Wsl::here`] reads the real ones.

pub mod interop;
pub mod relay;
pub mod setup;

/// Set to `0` to make tabwire ignore WSL (treat the distribution as plain
/// Linux: no Windows-side install, no Windows-side doctor checks), e.g. for
/// a distribution whose only browser is a Linux one shown through WSLg.
pub const DISABLE_VAR: &str = "TABWIRE_WSL";

/// The entries in `/proc/sys/fs/binfmt_misc` that make Windows programs
/// runnable from the distribution. Older WSL registers `WSLInterop`; WSL
/// with systemd registers `WSLInterop-late` (after systemd's binfmt reset).
pub const INTEROP_ENTRIES: &[&str] = &[
    "/proc/sys/fs/binfmt_misc/WSLInterop",
    "/proc/sys/fs/binfmt_misc/WSLInterop-late",
];

/// This process runs inside a WSL distribution.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Wsl {
    /// The distribution's name (`$WSL_DISTRO_NAME`), what `wsl.exe -d`
    /// takes. Unknown when tabwire runs without WSL's environment (under
    /// `sudo`, from a service).
    pub distro: Option<String>,
    /// Windows programs can be started from here (interop is on). Install
    /// and doctor need it to reach the Windows side; Chrome starting
    /// `wsl.exe` later does not.
    pub interop: bool,
}

/// What detection looks at, read by [`Wsl::here`] or given by tests.
#[derive(Debug, Clone, Default)]
pub struct Clues<'a> {
    /// `/proc/version`.
    pub proc_version: Option<&'a str>,
    /// The text of a `WSLInterop*` binfmt entry: an enabled one if any is.
    pub interop_entry: Option<&'a str>,
    /// `$WSL_DISTRO_NAME`.
    pub distro_var: Option<&'a str>,
}

/// The kernel WSL boots says so: `…-microsoft-standard-WSL2` (WSL 2),
/// `…-Microsoft` (WSL 1).
pub fn kernel_is_wsl(proc_version: &str) -> bool {
    let v = proc_version.to_ascii_lowercase();
    v.contains("microsoft") || v.contains("wsl")
}

/// A binfmt entry's text starts with `enabled` or `disabled`.
pub fn interop_entry_enabled(entry: &str) -> bool {
    entry.lines().next().map(str::trim) == Some("enabled")
}

/// WSL, or not, from the clues. Any one of the kernel string, the interop
/// entry or WSL's distribution variable is enough (a custom kernel may not
/// say "microsoft"; `sudo` drops the variable); interop is on only when
/// its binfmt entry exists and is enabled. (`$WSL_INTEROP`, the interop
/// socket, is not looked at: it is set per session and lost under `sudo`,
/// while the binfmt entry is what actually lets `cmd.exe` run.)
pub fn detect(c: &Clues) -> Option<Wsl> {
    let distro = c
        .distro_var
        .map(str::trim)
        .filter(|d| !d.is_empty())
        .map(str::to_string);
    let kernel = c.proc_version.is_some_and(kernel_is_wsl);
    if !kernel && c.interop_entry.is_none() && distro.is_none() {
        return None;
    }
    Some(Wsl {
        distro,
        interop: c.interop_entry.is_some_and(interop_entry_enabled),
    })
}

impl Wsl {
    /// Reads the real clues: `/proc/version`, the binfmt entries and WSL's
    /// environment variables. None outside Linux, outside WSL, or when
    /// `TABWIRE_WSL=0`.
    pub fn here() -> Option<Wsl> {
        if !cfg!(target_os = "linux") {
            return None;
        }
        if std::env::var(DISABLE_VAR).ok().as_deref() == Some("0") {
            return None;
        }
        let proc_version = std::fs::read_to_string("/proc/version").ok();
        // Either entry enabled means interop works.
        let entries: Vec<String> = INTEROP_ENTRIES
            .iter()
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .collect();
        let interop_entry = entries
            .iter()
            .find(|e| interop_entry_enabled(e))
            .or(entries.first());
        let distro_var = std::env::var("WSL_DISTRO_NAME").ok();
        detect(&Clues {
            proc_version: proc_version.as_deref(),
            interop_entry: interop_entry.map(String::as_str),
            distro_var: distro_var.as_deref(),
        })
    }
}

/// How to turn interop on, said by install and doctor alike.
pub const INTEROP_FIX: &str = "add these two lines to /etc/wsl.conf (with sudo): `[interop]` and \
     `enabled=true`; then run `wsl --shutdown` from Windows (PowerShell or cmd) and open the \
     distribution again";

#[cfg(test)]
mod tests {
    use super::*;

    const WSL2: &str = "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1) \
                        (gcc (GCC) 11.2.0, GNU ld (GNU Binutils) 2.37) #1 SMP Fri Mar 29 23:14:13 UTC 2024\n";
    const WSL1: &str = "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com) (gcc version 5.4.0 (GCC) ) #1237-Microsoft Sat Sep 11 14:32:00 PST 2021\n";
    const PLAIN: &str = "Linux version 6.8.0-45-generic (buildd@lcy02-amd64-115) (x86_64-linux-gnu-gcc-13 (Ubuntu 13.2.0-23ubuntu4) 13.2.0) #45-Ubuntu SMP\n";
    const ENABLED: &str = "enabled\ninterpreter /init\nflags: PF\noffset 0\nmagic 4d5a\n";
    const DISABLED: &str = "disabled\ninterpreter /init\nflags: PF\noffset 0\nmagic 4d5a\n";

    #[test]
    fn plain_linux_is_not_wsl() {
        let c = Clues {
            proc_version: Some(PLAIN),
            ..Clues::default()
        };
        assert_eq!(detect(&c), None);
        assert_eq!(detect(&Clues::default()), None);
    }

    #[test]
    fn wsl2_with_interop_and_its_distribution() {
        let c = Clues {
            proc_version: Some(WSL2),
            interop_entry: Some(ENABLED),
            distro_var: Some("Ubuntu-24.04"),
        };
        assert_eq!(
            detect(&c),
            Some(Wsl {
                distro: Some("Ubuntu-24.04".into()),
                interop: true
            })
        );
    }

    #[test]
    fn wsl1_kernel_string_is_recognised() {
        assert!(kernel_is_wsl(WSL1));
        assert!(kernel_is_wsl(WSL2));
        assert!(!kernel_is_wsl(PLAIN));
    }

    #[test]
    fn interop_off_when_the_entry_is_missing_or_disabled() {
        let missing = Clues {
            proc_version: Some(WSL2),
            distro_var: Some("Debian"),
            ..Clues::default()
        };
        assert_eq!(
            detect(&missing),
            Some(Wsl {
                distro: Some("Debian".into()),
                interop: false
            })
        );
        let disabled = Clues {
            interop_entry: Some(DISABLED),
            ..missing.clone()
        };
        assert!(!detect(&disabled).unwrap().interop);
        assert!(interop_entry_enabled(ENABLED));
        assert!(!interop_entry_enabled(DISABLED));
        assert!(!interop_entry_enabled(""));
    }

    #[test]
    fn any_one_clue_is_enough_and_the_distribution_may_be_unknown() {
        // A custom kernel that does not say "microsoft", but interop is there.
        let c = Clues {
            proc_version: Some(PLAIN),
            interop_entry: Some(ENABLED),
            ..Clues::default()
        };
        assert_eq!(
            detect(&c),
            Some(Wsl {
                distro: None,
                interop: true
            })
        );
        // Only the variable; an empty one counts as unset.
        let c = Clues {
            distro_var: Some("Ubuntu"),
            ..Clues::default()
        };
        assert_eq!(detect(&c).unwrap().distro.as_deref(), Some("Ubuntu"));
        let c = Clues {
            proc_version: Some(WSL2),
            distro_var: Some("  "),
            ..Clues::default()
        };
        assert_eq!(detect(&c).unwrap().distro, None);
    }
}
