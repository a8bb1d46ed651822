//! Calls from the distribution into Windows — `cmd.exe`, `reg.exe` — and
//! `wslpath`, all through one trait so install and doctor are tested with
//! a fake that answers like Windows would.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What a program printed, and whether it succeeded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ran {
    pub ok: bool,
    pub stdout: String,
    pub stderr: String,
}

/// Runs a program (a Windows one through WSL interop, or `wslpath`).
pub trait Interop {
    fn run(&self, program: &str, args: &[String]) -> io::Result<Ran>;
}

/// The real thing: `std::process::Command`.
pub struct SystemInterop;

/// Where Windows' own programs are when the distribution does not append
/// Windows' PATH (`appendWindowsPath=false` in /etc/wsl.conf) and C: is
/// mounted at the default place.
const SYSTEM32: &str = "/mnt/c/Windows/System32";

impl Interop for SystemInterop {
    fn run(&self, program: &str, args: &[String]) -> io::Result<Ran> {
        let run = |p: &str| Command::new(p).args(args).stdin(Stdio::null()).output();
        let out = match run(program) {
            Err(e) if e.kind() == io::ErrorKind::NotFound && program.ends_with(".exe") => {
                run(&format!("{SYSTEM32}/{program}"))?
            }
            other => other?,
        };
        Ok(Ran {
            ok: out.status.success(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        })
    }
}

/// Runs `program` and returns its trimmed output, or says why not.
fn output(interop: &dyn Interop, program: &str, args: &[String]) -> Result<String, String> {
    let ran = interop
        .run(program, args)
        .map_err(|e| format!("could not run {program}: {e}"))?;
    if !ran.ok {
        let why = ran.stderr.trim();
        return Err(if why.is_empty() {
            format!("{program} {} failed", args.join(" "))
        } else {
            format!("{program} {} failed: {why}", args.join(" "))
        });
    }
    Ok(ran.stdout.trim().to_string())
}

/// The arguments that make `cmd.exe` print `%LOCALAPPDATA%` (`/d`: no
/// AutoRun commands of the user's that could print first).
pub fn local_app_data_args() -> Vec<String> {
    ["/d", "/c", "echo", "%LOCALAPPDATA%"]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

/// The Windows user's `%LOCALAPPDATA%` (`C:\Users\ada\AppData\Local`), from
/// `cmd.exe`. cmd prints in the console code page: a path that does not
/// survive that is caught by [`windows_dir`], which finds no such folder.
pub fn local_app_data(interop: &dyn Interop) -> Result<String, String> {
    let text = output(interop, "cmd.exe", &local_app_data_args())?;
    // cmd may warn about a UNC working directory first: the value is last.
    let value = text
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty())
        .unwrap_or_default()
        .to_string();
    if value.is_empty() || value.contains('%') {
        return Err("Windows did not say where %LOCALAPPDATA% is".into());
    }
    Ok(value)
}

/// `wslpath -u <windows path>`: the same place as this distribution sees it.
pub fn linux_path(interop: &dyn Interop, windows: &str) -> Result<PathBuf, String> {
    let text = output(interop, "wslpath", &["-u".to_string(), windows.to_string()])?;
    if !text.starts_with('/') {
        return Err(format!("wslpath gave {text:?} for {windows}"));
    }
    Ok(PathBuf::from(text))
}

/// `wslpath -w <linux path>`: the same place as Windows sees it.
pub fn windows_path(interop: &dyn Interop, linux: &Path) -> Result<String, String> {
    output(
        interop,
        "wslpath",
        &["-w".to_string(), linux.to_string_lossy().into_owned()],
    )
}

/// `<windows dir>\<rel>` with Windows separators (`rel` uses `/`).
pub fn win_join(dir: &str, rel: &str) -> String {
    format!(
        r"{}\{}",
        dir.trim_end_matches(['\\', '/']),
        rel.replace('/', "\\")
    )
}

/// A Windows folder as both sides see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WinDir {
    /// `C:\Users\ada\AppData\Local\tabwire\wsl`
    pub windows: String,
    /// `/mnt/c/Users/ada/AppData/Local/tabwire/wsl`
    pub linux: PathBuf,
}

impl WinDir {
    /// A file in this folder, as Windows names it.
    pub fn windows_file(&self, name: &str) -> String {
        win_join(&self.windows, name)
    }

    /// The same file, as this distribution reaches it.
    pub fn linux_file(&self, name: &str) -> PathBuf {
        self.linux.join(name)
    }
}

/// tabwire's folder for WSL installs on the Windows side:
/// `%LOCALAPPDATA%\tabwire\wsl`. Its own subfolder, so a tabwire installed
/// on Windows itself (whose data is in `%LOCALAPPDATA%\tabwire\data`) keeps
/// its files. Only `%LOCALAPPDATA%` itself is translated (it exists, which
/// `wslpath` wants); the rest is joined on both sides.
pub fn windows_dir(interop: &dyn Interop) -> Result<WinDir, String> {
    let local = local_app_data(interop)?;
    let linux_local = linux_path(interop, &local)?;
    if !linux_local.is_dir() {
        return Err(format!(
            "%LOCALAPPDATA% is {local}, but {} is not a folder here (is the drive mounted?)",
            linux_local.display()
        ));
    }
    Ok(WinDir {
        windows: win_join(&local, "tabwire/wsl"),
        linux: linux_local.join("tabwire").join("wsl"),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashMap;

    /// Answers like Windows would: `%LOCALAPPDATA%` is `C:\Users\ada\AppData\Local`,
    /// seen here as `local` (a temporary folder); `reg.exe` keeps keys in a
    /// map. Records every call.
    pub(crate) struct FakeWindows {
        pub(crate) local: PathBuf,
        /// Interop off: every Windows program fails to start.
        pub(crate) off: bool,
        pub(crate) registry: RefCell<HashMap<String, String>>,
        pub(crate) calls: RefCell<Vec<String>>,
    }

    pub(crate) const LOCAL: &str = r"C:\Users\ada\AppData\Local";

    impl FakeWindows {
        pub(crate) fn new(local: &Path) -> Self {
            Self {
                local: local.to_path_buf(),
                off: false,
                registry: RefCell::new(HashMap::new()),
                calls: RefCell::new(Vec::new()),
            }
        }
    }

    fn ok(stdout: &str) -> io::Result<Ran> {
        Ok(Ran {
            ok: true,
            stdout: stdout.into(),
            stderr: String::new(),
        })
    }

    fn failed(stderr: &str) -> io::Result<Ran> {
        Ok(Ran {
            ok: false,
            stdout: String::new(),
            stderr: stderr.into(),
        })
    }

    impl Interop for FakeWindows {
        fn run(&self, program: &str, args: &[String]) -> io::Result<Ran> {
            self.calls
                .borrow_mut()
                .push(format!("{program} {}", args.join(" ")));
            if self.off && program.ends_with(".exe") {
                return Err(io::Error::other("exec format error"));
            }
            let a: Vec<&str> = args.iter().map(String::as_str).collect();
            match (program, a.as_slice()) {
                ("cmd.exe", ["/d", "/c", "echo", "%LOCALAPPDATA%"]) => ok(&format!("{LOCAL}\r\n")),
                ("wslpath", ["-u", w]) => match w.strip_prefix(LOCAL) {
                    Some(rest) => ok(&format!(
                        "{}{}\n",
                        self.local.display(),
                        rest.replace('\\', "/")
                    )),
                    None => failed("wslpath: invalid path"),
                },
                ("reg.exe", ["add", key, "/ve", "/t", "REG_SZ", "/d", value, "/f"]) => {
                    self.registry
                        .borrow_mut()
                        .insert(key.to_string(), value.to_string());
                    ok("The operation completed successfully.\r\n")
                }
                ("reg.exe", ["query", key, "/ve"]) => match self.registry.borrow().get(*key) {
                    Some(v) => ok(&format!(
                        "\r\n{}\r\n    (Default)    REG_SZ    {v}\r\n\r\n",
                        key.replace("HKCU", "HKEY_CURRENT_USER")
                    )),
                    None => failed(
                        "ERROR: The system was unable to find the specified registry key or value.",
                    ),
                },
                _ => failed("unexpected call"),
            }
        }
    }

    #[test]
    fn local_app_data_and_the_windows_folder() {
        let tmp = tempfile::tempdir().unwrap();
        let fake = FakeWindows::new(tmp.path());
        assert_eq!(local_app_data(&fake).unwrap(), LOCAL);
        fake.calls.borrow_mut().clear();
        let dir = windows_dir(&fake).unwrap();
        assert_eq!(dir.windows, r"C:\Users\ada\AppData\Local\tabwire\wsl");
        assert_eq!(dir.linux, tmp.path().join("tabwire/wsl"));
        assert_eq!(
            dir.windows_file("tabwire-wsl-relay.exe"),
            r"C:\Users\ada\AppData\Local\tabwire\wsl\tabwire-wsl-relay.exe"
        );
        assert_eq!(
            fake.calls.borrow()[..],
            [
                r"cmd.exe /d /c echo %LOCALAPPDATA%".to_string(),
                format!(r"wslpath -u {LOCAL}"),
            ]
        );
    }

    #[test]
    fn cmd_noise_and_failures() {
        struct Says(&'static str);
        impl Interop for Says {
            fn run(&self, _: &str, _: &[String]) -> io::Result<Ran> {
                ok(self.0)
            }
        }
        let noisy = Says(
            "'\\\\wsl.localhost\\Ubuntu\\home\\ada'\r\nCMD.EXE was started with the above path as the current directory.\r\nUNC paths are not supported.  Defaulting to Windows directory.\r\nC:\\Users\\ada\\AppData\\Local\r\n",
        );
        assert_eq!(local_app_data(&noisy).unwrap(), LOCAL);
        assert!(local_app_data(&Says("%LOCALAPPDATA%\r\n")).is_err());
        assert!(local_app_data(&Says("")).is_err());
        let tmp = tempfile::tempdir().unwrap();
        let mut off = FakeWindows::new(tmp.path());
        off.off = true;
        let e = local_app_data(&off).unwrap_err();
        assert!(e.contains("could not run cmd.exe"), "{e}");
    }

    #[test]
    fn windows_joins() {
        assert_eq!(win_join(r"C:\a\", "b/c.json"), r"C:\a\b\c.json");
        assert_eq!(win_join(r"C:\a", "b"), r"C:\a\b");
    }
}
