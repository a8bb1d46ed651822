//! `tabwire-wsl-relay.exe`: the native-messaging host Windows Chrome starts
//! when tabwire is installed inside WSL (`tabwire install` run in the
//! distribution places it in `%LOCALAPPDATA%\tabwire\wsl\` and registers
//! it). It runs `tabwire-host <origin>` inside the distribution through
//! `wsl.exe` and passes frames both ways; the host there reaches the serves
//! over the usual private socket, so no network port is opened anywhere.
//!
//! Everything but process handling is in [`tabwire::wsl::relay`], compiled
//! and tested on Linux; this file is the Windows-only glue. On other
//! systems it only says what it is for.

#[cfg(not(windows))]
fn main() {
    eprintln!(
        "tabwire-wsl-relay runs on Windows only: Windows Chrome starts it to reach a tabwire \
         installed inside WSL. Inside WSL, `tabwire install` places and registers it."
    );
    std::process::exit(2);
}

#[cfg(windows)]
fn main() {
    std::process::exit(windows::run());
}

#[cfg(windows)]
mod windows {
    use std::fs::{File, OpenOptions};
    use std::io::Write;
    use std::os::windows::process::CommandExt;
    use std::path::Path;
    use std::process::{Child, Command, Stdio};
    use std::sync::mpsc;
    use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

    use tabwire::wire::{self, FrameError};
    use tabwire::wsl::relay::{self, RelayConfig};

    /// No console window for `wsl.exe` (Chrome starts the relay hidden; its
    /// child would otherwise flash one).
    const CREATE_NO_WINDOW: u32 = 0x0800_0000;

    /// After Chrome closes stdin, how long the host may take to exit on its
    /// own (it sees end of input through wsl.exe) before it is killed.
    const CHILD_GRACE: Duration = Duration::from_secs(3);

    /// The log beside the relay: appended to, started afresh past
    /// [`relay::LOG_LIMIT`]. None if it cannot be opened (the relay runs
    /// anyway; Chrome shows nothing of stderr).
    fn open_log(path: &Path) -> Option<File> {
        let too_big = std::fs::metadata(path)
            .map(|m| m.len() > relay::LOG_LIMIT)
            .unwrap_or(false);
        let mut options = OpenOptions::new();
        options.create(true);
        if too_big {
            options.write(true).truncate(true);
        } else {
            options.append(true);
        }
        options.open(path).ok()
    }

    fn note(log: &mut Option<File>, message: &str) {
        if let Some(f) = log {
            let secs = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            let _ = writeln!(f, "[{secs}] tabwire-wsl-relay: {message}");
        }
    }

    pub fn run() -> i32 {
        let exe = match std::env::current_exe() {
            Ok(p) => p,
            Err(e) => {
                eprintln!("tabwire-wsl-relay: could not find its own path: {e}");
                return 1;
            }
        };
        let mut log = open_log(&exe.with_file_name(relay::LOG_FILE));
        // Chrome passes the caller's origin first, then `--parent-window=N`.
        let Some(origin) = std::env::args().nth(1) else {
            note(
                &mut log,
                "started without an origin; Chrome starts this with the extension's origin",
            );
            return 2;
        };
        // Checked here too, so only the pinned origin reaches wsl.exe's command line.
        if let Err(e) = tabwire::host::check_origin(&origin) {
            note(&mut log, &e.to_string());
            return 1;
        }
        let config_path = exe.with_file_name(relay::CONFIG_FILE);
        let config = match std::fs::read_to_string(&config_path)
            .map_err(|e| format!("could not read {}: {e}", config_path.display()))
            .and_then(|t| RelayConfig::parse(&t))
        {
            Ok(c) => c,
            Err(e) => {
                note(&mut log, &format!("{e}; run `tabwire install` inside WSL"));
                return 1;
            }
        };
        let program = relay::wsl_exe(std::env::var("SystemRoot").ok().as_deref());
        let args = relay::wsl_args(&config, &origin);
        note(&mut log, &format!("starting {program} {}", args.join(" ")));
        let stderr = match log.as_ref().and_then(|f| f.try_clone().ok()) {
            Some(f) => Stdio::from(f),
            None => Stdio::null(),
        };
        let mut child = match Command::new(&program)
            .args(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(stderr)
            .creation_flags(CREATE_NO_WINDOW)
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                note(&mut log, &format!("could not start {program}: {e}"));
                return 1;
            }
        };
        let (Some(child_in), Some(child_out)) = (child.stdin.take(), child.stdout.take()) else {
            note(&mut log, "wsl.exe started without pipes");
            let _ = child.kill();
            return 1;
        };

        let (done, ended) = mpsc::channel::<(&'static str, Result<u64, FrameError>)>();
        let to_host = done.clone();
        std::thread::spawn(move || {
            // Dropping child_in when this returns closes the host's stdin.
            let r = relay::relay_frames(std::io::stdin().lock(), child_in, wire::DEFAULT_MAX_FRAME);
            let _ = to_host.send(("Chrome to host", r));
        });
        std::thread::spawn(move || {
            let r = relay::relay_frames(
                child_out,
                std::io::stdout().lock(),
                wire::NATIVE_TO_CHROME_MAX,
            );
            let _ = done.send(("host to Chrome", r));
        });

        let (side, result) = match ended.recv() {
            Ok(x) => x,
            Err(_) => ("both", Ok(0)),
        };
        let code = match &result {
            Ok(frames) => {
                note(&mut log, &format!("{side}: closed after {frames} frame(s)"));
                0
            }
            Err(e) => {
                note(&mut log, &format!("{side}: {e}"));
                1
            }
        };
        if side == "Chrome to host" && result.is_ok() {
            // Chrome closed stdin: the host sees end of input and exits;
            // let it, and let its last frames through, for a moment.
            wait_or_kill(&mut child, CHILD_GRACE);
            // The other pump ends at the host's end of output.
            let _ = ended.recv_timeout(Duration::from_millis(500));
        } else {
            // wsl.exe inherited copies of Chrome's pipe handles (std spawns
            // with handle inheritance on): Chrome sees the host's end only
            // once the child is gone too.
            let _ = child.kill();
            let _ = child.wait();
        }
        // Do not wait for the other pump's blocking read: exit now.
        code
    }

    fn wait_or_kill(child: &mut Child, grace: Duration) {
        let until = Instant::now() + grace;
        while Instant::now() < until {
            match child.try_wait() {
                Ok(Some(_)) | Err(_) => return,
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
            }
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}
