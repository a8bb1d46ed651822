//! `tabwire-wsl-relay.exe`, the native-messaging host Windows Chrome starts
//! for a tabwire installed inside WSL: everything it does apart from
//! spawning processes, as pure code that is compiled and tested on Linux.
//!
//! The relay reads its config (the distribution and the Linux host to
//! run) from `tabwire-wsl-relay.json` beside itself, because Chrome starts
//! it with Windows' environment, not WSL's: it cannot know the distribution
//! otherwise. It then runs
//!
//! ```text
//! wsl.exe -d <distro> --exec /usr/bin/env TABWIRE_RUNTIME_DIR=<dir> <host> <origin>
//! ```
//!
//! and pumps frames both ways with [`relay_frames`]:
//!
//! - `--exec` runs the host directly, not through the user's login shell:
//!   nothing a shell prints at startup (a `.zshenv` echo, say) can land in
//!   the frame stream, and no shell re-parses the paths.
//! - `<host>` is the copy of `tabwire-host` that `tabwire install` keeps in
//!   tabwire's Linux data directory (it outlives npm's cache and `cargo
//!   clean`). It is given the origin as its first argument, which both
//!   `tabwire-host` and `tabwire` itself accept as "run the native host".
//! - `TABWIRE_RUNTIME_DIR` is the socket directory the serves in the user's
//!   shells use, recorded at install. A process `wsl.exe` starts gets WSL's
//!   own environment, whose `XDG_RUNTIME_DIR` may differ from (or be
//!   missing against) a systemd login shell's `/run/user/<uid>`: without it
//!   the host could look for serves in the wrong directory. `/usr/bin/env`
//!   sets it rather than `WSLENV`, so the whole command is in the log.
//!
//! Frames: Chrome's native messaging uses a native-endian `u32` length. The
//! relay never re-encodes: Windows and the distribution run on the same CPU
//! (x86-64 or ARM64, both little-endian), so the bytes pass unchanged. It
//! still reads every length and checks it (Chrome → host at most
//! [`crate::wire::DEFAULT_MAX_FRAME`], host → Chrome at most
//! [`crate::wire::NATIVE_TO_CHROME_MAX`], never zero) and forwards only
//! whole frames, so a broken or chatty child cannot desync Chrome: the
//! first bad length ends the relay instead.

use std::io::{self, Read, Write};

use serde::{Deserialize, Serialize};

use crate::wire::FrameError;

/// The relay program, placed on the Windows side and named in the manifest.
pub const RELAY_EXE: &str = "tabwire-wsl-relay.exe";

/// The relay's config, beside it.
pub const CONFIG_FILE: &str = "tabwire-wsl-relay.json";

/// The relay's log (its own lines and the Linux host's stderr), beside it.
pub const LOG_FILE: &str = "tabwire-wsl-relay.log";

/// A log larger than this is started afresh when the relay starts.
pub const LOG_LIMIT: u64 = 1024 * 1024;

const HEADER: usize = 4;

/// What the relay needs to know, written by `tabwire install` inside WSL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayConfig {
    /// The distribution to run the host in (`wsl.exe -d`).
    pub distro: String,
    /// The Linux path of the host program (the data directory's
    /// `tabwire-host` copy).
    pub host: String,
    /// The serves' socket directory, passed as `TABWIRE_RUNTIME_DIR`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub runtime_dir: Option<String>,
}

impl RelayConfig {
    pub fn parse(text: &str) -> Result<Self, String> {
        let c: RelayConfig = serde_json::from_str(text)
            .map_err(|e| format!("{CONFIG_FILE} is not a valid relay config: {e}"))?;
        if c.distro.trim().is_empty() {
            return Err(format!("{CONFIG_FILE} names no distribution"));
        }
        if !c.host.starts_with('/') {
            return Err(format!(
                "{CONFIG_FILE}: the host path {:?} is not an absolute Linux path",
                c.host
            ));
        }
        Ok(c)
    }

    pub fn to_text(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("config serializes");
        s.push('\n');
        s
    }
}

/// `wsl.exe` by its full path when Windows' `SystemRoot` is known (Chrome's
/// environment always has it; a full path cannot pick up another `wsl.exe`
/// from the PATH), else by name.
pub fn wsl_exe(system_root: Option<&str>) -> String {
    match system_root.map(str::trim).filter(|r| !r.is_empty()) {
        Some(root) => format!(r"{}\System32\wsl.exe", root.trim_end_matches('\\')),
        None => "wsl.exe".to_string(),
    }
}

/// The arguments after `wsl.exe` that run the host for `origin` (see the
/// module comment for each part). The origin has been checked by the relay
/// ([`crate::host::check_origin`]) before it gets here, so no caller-chosen
/// text reaches the command line.
pub fn wsl_args(config: &RelayConfig, origin: &str) -> Vec<String> {
    let mut args = vec![
        "-d".to_string(),
        config.distro.clone(),
        "--exec".to_string(),
    ];
    if let Some(dir) = config.runtime_dir.as_deref().filter(|d| !d.is_empty()) {
        args.push("/usr/bin/env".to_string());
        args.push(format!("TABWIRE_RUNTIME_DIR={dir}"));
    }
    args.push(config.host.clone());
    args.push(origin.to_string());
    args
}

/// Copies whole native-messaging frames from `from` to `to` until `from`
/// ends between two frames (`Ok` with the number of frames copied). Each
/// length is checked before anything of its frame is written: zero or more
/// than `max` ends the pump with an error, and so does a stream ending
/// inside a frame; the partial frame is not forwarded. Each frame is
/// flushed at once (stdout would otherwise hold it back).
pub fn relay_frames<R: Read, W: Write>(
    mut from: R,
    mut to: W,
    max: usize,
) -> Result<u64, FrameError> {
    let mut frames = 0u64;
    loop {
        let mut header = [0u8; HEADER];
        let got = read_full(&mut from, &mut header)?;
        if got == 0 {
            return Ok(frames);
        }
        if got < HEADER {
            return Err(FrameError::Truncated { got, want: HEADER });
        }
        let len = u32::from_ne_bytes(header) as usize;
        if len == 0 {
            return Err(FrameError::Empty);
        }
        if len > max {
            return Err(FrameError::TooLarge { len, max });
        }
        let mut frame = vec![0u8; HEADER + len];
        frame[..HEADER].copy_from_slice(&header);
        let got = read_full(&mut from, &mut frame[HEADER..])?;
        if got < len {
            return Err(FrameError::Truncated {
                got: HEADER + got,
                want: HEADER + len,
            });
        }
        to.write_all(&frame)?;
        to.flush()?;
        frames += 1;
    }
}

/// Fills `buf` unless the stream ends first; returns how many bytes were read.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(body: &[u8]) -> Vec<u8> {
        let mut f = (body.len() as u32).to_ne_bytes().to_vec();
        f.extend_from_slice(body);
        f
    }

    /// Hands out its bytes a few at a time, as a pipe may.
    struct Trickle {
        data: Vec<u8>,
        pos: usize,
        step: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
            buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
            self.pos += n;
            Ok(n)
        }
    }

    fn config() -> RelayConfig {
        RelayConfig {
            distro: "Ubuntu-24.04".into(),
            host: "/home/ada/.local/share/tabwire/bin/tabwire-host".into(),
            runtime_dir: Some("/run/user/1000/tabwire".into()),
        }
    }

    #[test]
    fn the_wsl_command_line() {
        let origin = "chrome-extension://ebbhhpakakegkmbpbfbllokdfijmbljf/";
        assert_eq!(
            wsl_args(&config(), origin),
            [
                "-d",
                "Ubuntu-24.04",
                "--exec",
                "/usr/bin/env",
                "TABWIRE_RUNTIME_DIR=/run/user/1000/tabwire",
                "/home/ada/.local/share/tabwire/bin/tabwire-host",
                origin,
            ]
        );
        let bare = RelayConfig {
            runtime_dir: None,
            ..config()
        };
        assert_eq!(
            wsl_args(&bare, origin),
            [
                "-d",
                "Ubuntu-24.04",
                "--exec",
                "/home/ada/.local/share/tabwire/bin/tabwire-host",
                origin,
            ]
        );
        assert_eq!(wsl_exe(Some(r"C:\WINDOWS")), r"C:\WINDOWS\System32\wsl.exe");
        assert_eq!(wsl_exe(Some(r"D:\Win\")), r"D:\Win\System32\wsl.exe");
        assert_eq!(wsl_exe(None), "wsl.exe");
        assert_eq!(wsl_exe(Some("")), "wsl.exe");
    }

    #[test]
    fn config_round_trips_and_is_checked() {
        let c = config();
        assert_eq!(RelayConfig::parse(&c.to_text()).unwrap(), c);
        let v: serde_json::Value = serde_json::from_str(&c.to_text()).unwrap();
        assert_eq!(v["distro"], "Ubuntu-24.04");
        assert_eq!(v["host"], "/home/ada/.local/share/tabwire/bin/tabwire-host");
        let old = r#"{"distro":"Debian","host":"/usr/local/bin/tabwire"}"#;
        assert_eq!(RelayConfig::parse(old).unwrap().runtime_dir, None);
        assert!(RelayConfig::parse(r#"{"distro":"","host":"/x"}"#).is_err());
        assert!(RelayConfig::parse(r#"{"distro":"D","host":"C:\\x.exe"}"#)
            .unwrap_err()
            .contains("not an absolute Linux path"));
        assert!(RelayConfig::parse("{").is_err());
    }

    #[test]
    fn whole_frames_pass_unchanged() {
        let mut input = frame(br#"{"a":1}"#);
        input.extend(frame(br#"{"b":"two"}"#));
        let mut out: Vec<u8> = Vec::new();
        assert_eq!(relay_frames(&input[..], &mut out, 1024).unwrap(), 2);
        assert_eq!(out, input);
        // Nothing at all is a clean end too.
        let mut out: Vec<u8> = Vec::new();
        assert_eq!(relay_frames(&b""[..], &mut out, 1024).unwrap(), 0);
        assert!(out.is_empty());
    }

    #[test]
    fn frames_split_across_reads_are_joined() {
        let mut input = frame(&[b'x'; 300]);
        input.extend(frame(b"{}"));
        for step in [1, 3, 5, 299] {
            let mut out: Vec<u8> = Vec::new();
            let r = Trickle {
                data: input.clone(),
                pos: 0,
                step,
            };
            assert_eq!(relay_frames(r, &mut out, 1024).unwrap(), 2, "step {step}");
            assert_eq!(out, input, "step {step}");
        }
    }

    #[test]
    fn an_oversize_length_stops_the_pump_before_its_frame() {
        let mut input = frame(b"{}");
        input.extend(frame(&[b'y'; 65]));
        input.extend(frame(b"{}"));
        let mut out: Vec<u8> = Vec::new();
        let err = relay_frames(&input[..], &mut out, 64).unwrap_err();
        assert!(
            matches!(err, FrameError::TooLarge { len: 65, max: 64 }),
            "{err:?}"
        );
        // The good frame before it went through; nothing of the bad one did,
        // nor anything after it.
        assert_eq!(out, frame(b"{}"));
        // A length no frame can have (garbage where a header should be).
        let mut out: Vec<u8> = Vec::new();
        let err = relay_frames(&b"\xff\xff\xff\xffjunk"[..], &mut out, 1024).unwrap_err();
        assert!(matches!(err, FrameError::TooLarge { .. }));
        assert!(out.is_empty());
        // A zero length is refused as well.
        let err = relay_frames(&[0u8, 0, 0, 0][..], &mut Vec::<u8>::new(), 1024).unwrap_err();
        assert!(matches!(err, FrameError::Empty));
    }

    #[test]
    fn eof_inside_a_frame_is_an_error_and_the_partial_frame_is_dropped() {
        let mut input = frame(b"{}");
        let mut cut = frame(br#"{"long":"message"}"#);
        cut.truncate(10);
        input.extend(&cut);
        let mut out: Vec<u8> = Vec::new();
        let err = relay_frames(&input[..], &mut out, 1024).unwrap_err();
        assert!(
            matches!(err, FrameError::Truncated { got: 10, want: 22 }),
            "{err:?}"
        );
        assert_eq!(out, frame(b"{}"));
        // Inside the header.
        let mut out: Vec<u8> = Vec::new();
        let err = relay_frames(&[7u8, 0][..], &mut out, 1024).unwrap_err();
        assert!(matches!(err, FrameError::Truncated { got: 2, want: 4 }));
        assert!(out.is_empty());
    }

    #[test]
    fn a_closed_writer_ends_the_pump() {
        struct Gone;
        impl Write for Gone {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Err(io::ErrorKind::BrokenPipe.into())
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let input = frame(b"{}");
        assert!(matches!(
            relay_frames(&input[..], Gone, 1024),
            Err(FrameError::Io(_))
        ));
    }
}
