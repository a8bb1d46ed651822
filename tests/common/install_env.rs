//! Helpers for the install, doctor and popup tests: a fake home directory to
//! run `tabwire install|uninstall|doctor` in, a byte-for-byte snapshot of a
//! directory tree, and a headless Chromium with the extension that the test
//! itself drives over `--remote-debugging-pipe` (as the user would click).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::{chromium_path, Sandbox, BIN};

/// A private HOME (with `XDG_CONFIG_HOME` inside it) for install commands.
pub struct FakeHome {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    /// `PATH` for the commands: a private bin dir first, then the system's.
    pub bin: PathBuf,
    pub runtime: PathBuf,
}

impl FakeHome {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let home = tmp.path().join("home");
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&bin).unwrap();
        let runtime = tmp.path().join("rt");
        Self {
            tmp,
            home,
            bin,
            runtime,
        }
    }

    pub fn config(&self) -> PathBuf {
        self.home.join(".config")
    }

    pub fn data_dir(&self) -> PathBuf {
        self.home.join(".local/share/tabwire")
    }

    /// A command with only this home's environment.
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut cmd = Command::new(program);
        cmd.env_clear()
            .env("HOME", &self.home)
            .env("XDG_CONFIG_HOME", self.config())
            .env(
                "PATH",
                format!("{}:/usr/local/bin:/usr/bin:/bin", self.bin.display()),
            )
            .env("TABWIRE_RUNTIME_DIR", &self.runtime)
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `tabwire ARGS` in this home.
    pub fn tabwire(&self, args: &[&str]) -> Output {
        let out = self.command(BIN).args(args).output().expect("run tabwire");
        eprintln!(
            "$ tabwire {}\n--- stdout\n{}--- stderr\n{}--- status {:?}",
            args.join(" "),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
            out.status.code()
        );
        out
    }

    /// Puts an executable stub named `name` in this home's PATH.
    pub fn fake_program(&self, name: &str, script: &str) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let p = self.bin.join(name);
        std::fs::write(&p, script).unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
        p
    }
}

/// One entry of a tree snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    Dir,
    File(Vec<u8>),
}

/// Every path under `root` (relative) with its bytes; byte-for-byte equality
/// of two snapshots means nothing was added, removed or changed.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Node> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<PathBuf, Node>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            let rel = p.strip_prefix(root).unwrap().to_path_buf();
            if e.file_type().unwrap().is_dir() {
                out.insert(rel, Node::Dir);
                walk(root, &p, out);
            } else {
                out.insert(rel, Node::File(std::fs::read(&p).unwrap()));
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Paths that differ between two snapshots, for readable assertion messages.
pub fn tree_diff(a: &BTreeMap<PathBuf, Node>, b: &BTreeMap<PathBuf, Node>) -> Vec<String> {
    let mut out = Vec::new();
    for (p, n) in a {
        match b.get(p) {
            None => out.push(format!("only before: {}", p.display())),
            Some(m) if m != n => out.push(format!("changed: {}", p.display())),
            _ => {}
        }
    }
    for p in b.keys() {
        if !a.contains_key(p) {
            out.push(format!("only after: {}", p.display()));
        }
    }
    out
}

/// The manifest `tabwire install` must write for `binary`, built here from
/// the template file (not from tabwire's own rendering code).
pub fn expected_manifest(binary: &Path) -> String {
    let template = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/nm-manifests/com.tabwire.host.json"
    ))
    .unwrap();
    template
        .replace(
            "\"@TABWIRE_BINARY@\"",
            &serde_json::to_string(&binary.display().to_string()).unwrap(),
        )
        .replace("@EXTENSION_ORIGIN@", super::EXTENSION_ORIGIN)
}

/// The real path of the tabwire binary under test.
pub fn bin_path() -> PathBuf {
    Path::new(BIN).canonicalize().unwrap()
}

/// The host binary the installer registers for [`bin_path`]: the small
/// `tabwire-host` built beside it.
pub fn host_bin_path() -> PathBuf {
    Path::new(super::HOST_BIN).canonicalize().unwrap()
}

/// Calls waiting for their answer: id -> (the session it went to, where
/// the answer goes).
/// The error of a call whose page closed before it answered.
pub const SESSION_GONE: &str = "the page closed (its session detached)";

type Waiters = Arc<Mutex<BTreeMap<u64, (Option<String>, mpsc::Sender<Value>)>>>;

/// A headless Chromium with the tabwire extension loaded, its native host
/// registered in the sandbox profile, and CDP on a pipe for the test to act
/// as the user. Killed with its process group on drop.
pub struct PipeChromium {
    child: Child,
    to_browser: Mutex<std::fs::File>,
    waiters: Waiters,
    next_id: AtomicU64,
}

/// A page the test opened and attached to.
pub struct Page {
    pub target_id: String,
    pub session_id: String,
}

/// A close-on-exec pipe whose ends are numbered 10 or above, so that
/// `dup2` onto 3 and 4 in the child never meets an end already numbered 3
/// or 4 (`dup2(3, 3)` would leave close-on-exec set and the fd would close).
fn cloexec_pipe() -> (OwnedFd, OwnedFd) {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid two-element array for pipe2 to fill.
    assert_eq!(unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) }, 0);
    let high = |fd: i32| {
        // SAFETY: fd is open; F_DUPFD_CLOEXEC returns a new fd >= 10 or -1.
        let h = unsafe { libc::fcntl(fd, libc::F_DUPFD_CLOEXEC, 10) };
        assert!(h >= 10, "fcntl F_DUPFD_CLOEXEC failed");
        // SAFETY: fd is open, ours, and replaced by h.
        unsafe { libc::close(fd) };
        // SAFETY: h was just created and is owned by nobody else.
        unsafe { OwnedFd::from_raw_fd(h) }
    };
    (high(fds[0]), high(fds[1]))
}

impl PipeChromium {
    /// Registers the host with `tabwire install --user-data-dir` (as the
    /// e2e harness does) and starts Chromium with the extension; `urls`
    /// open as the user's own tabs.
    pub fn launch(sb: &Sandbox, urls: &[String]) -> Self {
        Self::launch_with_flags(sb, urls, &[])
    }

    /// Like [`Self::launch`], with extra Chromium flags.
    pub fn launch_with_flags(sb: &Sandbox, urls: &[String], flags: &[&str]) -> Self {
        super::register_host(sb);
        Self::start(sb, urls, flags)
    }

    /// Like [`Self::launch`] but without registering the native host.
    pub fn launch_unregistered(sb: &Sandbox, urls: &[String]) -> Self {
        Self::start(sb, urls, &[])
    }

    /// Like [`Self::launch_with_flags`], but headed on the X display
    /// `display` (an [`super::xvfb::Xvfb`]), with the browser's own UI
    /// (tab strip, infobars) for the test to see and click.
    pub fn launch_headed(sb: &Sandbox, urls: &[String], flags: &[&str], display: &str) -> Self {
        super::register_host(sb);
        Self::start_on(sb, urls, flags, Some(display))
    }

    fn start(sb: &Sandbox, urls: &[String], flags: &[&str]) -> Self {
        Self::start_on(sb, urls, flags, None)
    }

    fn start_on(sb: &Sandbox, urls: &[String], flags: &[&str], display: Option<&str>) -> Self {
        super::prepare_profile(sb);
        let ext = super::EXTENSION_DIR;
        let (browser_reads, we_write) = cloexec_pipe();
        let (we_read, browser_writes) = cloexec_pipe();
        let (r, w) = (browser_reads.as_raw_fd(), browser_writes.as_raw_fd());
        let log = std::fs::File::create(sb.log("chromium")).unwrap();
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(chromium_path());
        match display {
            None => {
                cmd.args(super::HEADLESS_FLAGS);
            }
            Some(display) => {
                // The same flags minus headless; --test-type drops the
                // "unsupported flag: --no-sandbox" bar, which would sit on
                // top of every other infobar.
                cmd.args(
                    super::HEADLESS_FLAGS
                        .iter()
                        .filter(|f| !f.starts_with("--headless")),
                )
                .arg("--test-type")
                .env("DISPLAY", display);
            }
        }
        cmd.args(["--remote-debugging-pipe", "--window-size=900,700"])
            .arg(format!("--user-data-dir={}", sb.udd.display()))
            .arg(format!("--load-extension={ext}"))
            .arg(format!("--disable-extensions-except={ext}"))
            .args(flags)
            .args(urls)
            .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
            .env("RUST_LOG", "tabwire=debug")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                if libc::dup2(r, 3) < 0 || libc::dup2(w, 4) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("launch chromium");
        drop((browser_reads, browser_writes));
        let waiters: Waiters = Arc::new(Mutex::new(BTreeMap::new()));
        let w2 = waiters.clone();
        let reader = std::fs::File::from(we_read);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(reader);
            let mut buf = Vec::new();
            while let Ok(n) = reader.read_until(0, &mut buf) {
                if n == 0 {
                    break;
                }
                buf.pop();
                if let Ok(v) = serde_json::from_slice::<Value>(&buf) {
                    if let Some(id) = v["id"].as_u64() {
                        if let Some((_, tx)) = w2.lock().unwrap().remove(&id) {
                            let _ = tx.send(v);
                        }
                    } else if v["method"] == "Target.detachedFromTarget" {
                        // A page that closed (a click that answered a
                        // question closes its window) never answers the
                        // calls still open in its session: fail them now.
                        let gone = v["params"]["sessionId"].as_str().map(str::to_string);
                        w2.lock().unwrap().retain(|_, (session, tx)| {
                            let open = *session != gone;
                            if !open {
                                let _ = tx.send(json!({"error": {"message": SESSION_GONE}}));
                            }
                            open
                        });
                    }
                }
                buf.clear();
            }
        });
        Self {
            child,
            to_browser: Mutex::new(std::fs::File::from(we_write)),
            waiters,
            next_id: AtomicU64::new(1),
        }
    }

    /// One CDP command (browser-level, or in `session`); Err is CDP's message.
    pub fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let mut msg = json!({"id": id, "method": method, "params": params});
        if let Some(s) = session {
            msg["sessionId"] = json!(s);
        }
        let (tx, rx) = mpsc::channel();
        self.waiters
            .lock()
            .unwrap()
            .insert(id, (session.map(str::to_string), tx));
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(0);
        self.to_browser
            .lock()
            .unwrap()
            .write_all(&bytes)
            .map_err(|e| format!("pipe write: {e}"))?;
        let v = rx
            .recv_timeout(Duration::from_secs(30))
            .map_err(|_| format!("{method}: no answer within 30 s"))?;
        match v.get("error") {
            Some(e) => Err(e["message"].as_str().unwrap_or("error").to_string()),
            None => Ok(v["result"].clone()),
        }
    }

    /// Opens `url` in a new tab and attaches to it.
    pub fn open(&self, url: &str) -> Page {
        let t = self
            .call(None, "Target.createTarget", json!({"url": url}))
            .expect("createTarget");
        let target_id = t["targetId"].as_str().unwrap().to_string();
        let s = self
            .call(
                None,
                "Target.attachToTarget",
                json!({"targetId": target_id, "flatten": true}),
            )
            .expect("attachToTarget");
        Page {
            target_id,
            session_id: s["sessionId"].as_str().unwrap().to_string(),
        }
    }

    /// Evaluates `expr` in the page (promises awaited); returns its value.
    pub fn eval(&self, page: &Page, expr: &str) -> Result<Value, String> {
        let r = self.call(
            Some(&page.session_id),
            "Runtime.evaluate",
            json!({"expression": expr, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(ex) = r.get("exceptionDetails") {
            return Err(ex["exception"]["description"]
                .as_str()
                .or(ex["text"].as_str())
                .unwrap_or("exception")
                .to_string());
        }
        Ok(r["result"]["value"].clone())
    }

    /// A PNG of the page's viewport.
    pub fn screenshot(&self, page: &Page) -> Vec<u8> {
        use base64::Engine as _;
        let _ = self.call(
            None,
            "Target.activateTarget",
            json!({"targetId": page.target_id}),
        );
        let r = self
            .call(
                Some(&page.session_id),
                "Page.captureScreenshot",
                json!({"format": "png"}),
            )
            .expect("captureScreenshot");
        base64::engine::general_purpose::STANDARD
            .decode(r["data"].as_str().unwrap())
            .unwrap()
    }
}

impl Drop for PipeChromium {
    fn drop(&mut self) {
        // SAFETY: signalling our own child's process group.
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(png: &[u8]) -> (u32, u32) {
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let w = u32::from_be_bytes(png[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(png[20..24].try_into().unwrap());
    (w, h)
}
