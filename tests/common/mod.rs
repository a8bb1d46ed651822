//! Test harness shared by the integration and end-to-end tests: a private
//! sandbox (runtime dir, profile), a real MCP client over stdio, a real
//! headless Chromium with the extension, and a tiny local web site.
#![allow(dead_code)]

pub mod apps;
pub mod docs_site;
pub mod gif_frames;
pub mod install_env;
pub mod site;
pub mod ui;
pub mod xvfb;
#[macro_use]
pub mod world;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    NumberOrString, ProgressNotificationParam, ProgressToken, RequestMetaObject,
};
use rmcp::service::{NotificationContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{json, Value};

pub const BIN: &str = env!("CARGO_BIN_EXE_tabwire");
/// The small host binary `tabwire install` registers when it sits next to BIN.
pub const HOST_BIN: &str = env!("CARGO_BIN_EXE_tabwire-host");
pub const EXTENSION_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/extension");
pub const EXTENSION_ORIGIN: &str = "chrome-extension://ebbhhpakakegkmbpbfbllokdfijmbljf/";

/// Browser tests share two cores: run them one at a time per test binary.
pub static BROWSER_LOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A private directory tree for one test.
pub struct Sandbox {
    pub tmp: tempfile::TempDir,
    pub runtime: PathBuf,
    pub udd: PathBuf,
}

impl Sandbox {
    pub fn new() -> Self {
        let tmp = tempfile::tempdir().expect("tempdir");
        let runtime = tmp.path().join("rt");
        let udd = tmp.path().join("profile");
        std::fs::create_dir_all(&udd).unwrap();
        Self { tmp, runtime, udd }
    }

    /// tabwire's data dir for this test (fallback browser profiles).
    pub fn data_dir(&self) -> PathBuf {
        self.tmp.path().join("data")
    }

    /// The download folder of the test browser's profile: the user's
    /// `~/Downloads` of these tests ([`prepare_profile`] names it there).
    pub fn browser_downloads(&self) -> PathBuf {
        self.tmp.path().join("browser-downloads")
    }

    pub fn log(&self, name: &str) -> PathBuf {
        self.tmp.path().join(format!("{name}.log"))
    }

    /// Prints every log file (called when a test fails).
    pub fn dump_logs(&self) {
        for entry in std::fs::read_dir(self.tmp.path()).unwrap().flatten() {
            let p = entry.path();
            if p.extension().is_some_and(|e| e == "log") {
                let text = std::fs::read_to_string(&p).unwrap_or_default();
                let tail: Vec<_> = text.lines().rev().take(80).collect();
                eprintln!("===== {} (last 80 lines) =====", p.display());
                for l in tail.into_iter().rev() {
                    eprintln!("{l}");
                }
            }
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.dump_logs();
        }
        kill_processes_using(&self.runtime);
    }
}

/// Kills any process (e.g. a native host Chromium spawned) whose environment
/// points at this runtime dir, so nothing outlives its test.
pub fn kill_processes_using(runtime: &Path) {
    let needle = format!("TABWIRE_RUNTIME_DIR={}", runtime.display());
    for pid in processes_matching(|_, env| env.split('\0').any(|kv| kv == needle)) {
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}

/// Pids whose (cmdline, environ) satisfy `pred`.
pub fn processes_matching(pred: impl Fn(&str, &str) -> bool) -> Vec<i32> {
    let me = std::process::id() as i32;
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        if pid == me {
            continue;
        }
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let env = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if pred(
            &String::from_utf8_lossy(&cmd),
            &String::from_utf8_lossy(&env),
        ) {
            out.push(pid);
        }
    }
    out
}

/// The test client's handler: names the client and records progress.
#[derive(Clone)]
pub struct Recorder {
    info: ClientConfig,
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// How many `notifications/tools/list_changed` arrived.
    pub tools_changed: Arc<std::sync::atomic::AtomicUsize>,
}

impl ClientHandler for Recorder {
    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.tools_changed
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    fn get_info(&self) -> ClientConfig {
        self.info.clone()
    }
}

/// A real MCP client talking to a real `tabwire serve` over stdio.
pub struct Mcp {
    pub client: RunningService<RoleClient, Recorder>,
    pub progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    /// How many `notifications/tools/list_changed` arrived.
    pub tools_changed: Arc<std::sync::atomic::AtomicUsize>,
}

impl Mcp {
    pub async fn start(sb: &Sandbox, client_name: &str, args: &[&str]) -> Self {
        Self::start_with_env(sb, client_name, args, &[]).await
    }

    /// Like [`Self::start`], with extra environment for serve.
    pub async fn start_with_env(
        sb: &Sandbox,
        client_name: &str,
        args: &[&str],
        env: &[(&str, &Path)],
    ) -> Self {
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.arg("serve")
            .args(args)
            .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
            .env("TABWIRE_DATA_DIR", sb.data_dir())
            .env("RUST_LOG", "tabwire=debug");
        // Extra variables come last so they can override the defaults.
        for (k, v) in env {
            cmd.env(k, v);
        }
        let log = std::fs::File::create(sb.log(&format!("serve-{client_name}"))).unwrap();
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(log)
            .spawn()
            .expect("spawn tabwire serve");
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(client_name, "1.0"),
        );
        let progress = Arc::new(Mutex::new(Vec::new()));
        let tools_changed = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let recorder = Recorder {
            info,
            progress: progress.clone(),
            tools_changed: tools_changed.clone(),
        };
        let client = recorder.serve(transport).await.expect("MCP initialize");
        Self {
            client,
            progress,
            tools_changed,
        }
    }

    /// Calls a tool with a progress token, so the server may report progress.
    pub async fn call_with_progress(&self, tool: &str, args: Value) -> CallToolResult {
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        params.meta = Some(RequestMetaObject::with_progress_token(ProgressToken(
            NumberOrString::Number(7),
        )));
        self.client
            .call_tool(params)
            .await
            .expect("tools/call transport")
    }

    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        self.client
            .call_tool(params)
            .await
            .expect("tools/call transport")
    }

    /// Ok(text) for a successful call, Err(text) for an isError result.
    pub async fn text(&self, tool: &str, args: Value) -> Result<String, String> {
        let r = self.call(tool, args).await;
        let text = text_of(&r);
        if r.is_error == Some(true) {
            Err(text)
        } else {
            Ok(text)
        }
    }

    /// Like [`Self::text`] but a failure panics with the tool's message.
    pub async fn ok(&self, tool: &str, args: Value) -> String {
        match self.text(tool, args).await {
            Ok(t) => t,
            Err(e) => panic!("{tool} failed: {e}"),
        }
    }
}

pub fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The ref of the first snapshot line with this role and quoted name.
/// The page content of an answer: what sits between its
/// `<<page-content ID>>` and `<<end-page-content ID>>` lines (the first
/// such part; the whole answer when it has none), without a final newline.
pub fn fenced(answer: &str) -> String {
    // The first fence on lines of its own (a page line's inline fence
    // comes before it).
    let Some((open, id)) = answer.match_indices("<<page-content ").find_map(|(i, _)| {
        let at_line_start = i == 0 || answer[..i].ends_with('\n');
        let rest = &answer[i + "<<page-content ".len()..];
        let id = &rest[..rest.find(">>")?];
        (at_line_start && rest[id.len()..].starts_with(">>\n")).then_some((i, id))
    }) else {
        return answer.to_string();
    };
    let body = &answer[open + "<<page-content ".len() + id.len() + 3..];
    let close = format!("<<end-page-content {id}>>");
    let end = body.find(&close).expect("the fence is closed");
    body[..end].trim_end_matches('\n').to_string()
}

/// `answer` without its fence markers (inline ones and whole lines), for
/// assertions about the words: `Page: Title (url)`.
pub fn plain(answer: &str) -> String {
    let mut out = String::with_capacity(answer.len());
    let mut rest = answer;
    while let Some(i) = rest.find("<<") {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let marker = ["<<page-content ", "<<end-page-content "]
            .iter()
            .find(|m| tail.starts_with(**m))
            .and_then(|m| {
                let end = tail.find(">>")?;
                let id = &tail[m.len()..end];
                (id.len() == 12 && id.chars().all(|c| c.is_ascii_hexdigit())).then_some(end + 2)
            });
        match marker {
            Some(len) => {
                let after = &tail[len..];
                // A marker on a line of its own goes with its line break.
                rest = if out.ends_with('\n') || out.is_empty() {
                    after.strip_prefix('\n').unwrap_or(after)
                } else {
                    after
                };
            }
            None => {
                out.push_str("<<");
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `answer` with every fenced part (inline or on lines of their own) cut
/// out: what the server itself says. Page-controlled text must never be
/// found here.
pub fn outside_fences(answer: &str) -> String {
    let mut out = String::new();
    let mut rest = answer;
    while let Some(i) = rest.find("<<page-content ") {
        out.push_str(&rest[..i]);
        let tail = &rest[i + "<<page-content ".len()..];
        let Some(end) = tail.find(">>") else {
            out.push_str(&rest[i..]);
            return out;
        };
        let close = format!("<<end-page-content {}>>", &tail[..end]);
        match tail.find(&close) {
            Some(c) => rest = &tail[c + close.len()..],
            None => {
                out.push_str("[UNCLOSED FENCE]");
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}

pub fn find_ref(snapshot: &str, role: &str, name: &str) -> String {
    let prefix = format!("- {role} \"{name}\"");
    let line = snapshot
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no {role} {name:?} in snapshot:\n{snapshot}"));
    let start = line.find("[ref=").expect("line has a ref") + 5;
    let end = line[start..].find(']').unwrap() + start;
    line[start..end].to_string()
}

/// Flags a test Chromium needs on this machine (headless, as root, quiet).
pub const HEADLESS_FLAGS: &[&str] = &[
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
];

pub fn chromium_path() -> PathBuf {
    let p = std::env::var_os("TABWIRE_TEST_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/chromium/chromium"));
    assert!(
        p.exists(),
        "Chromium not found at {} (install it: apt-get install -y chromium, or set TABWIRE_TEST_CHROMIUM)",
        p.display()
    );
    p
}

/// A real headless Chromium with the tabwire extension loaded and the host
/// registered (by `tabwire install`) in the sandbox profile. Killed, with its
/// whole process group, on drop.
pub struct Chromium {
    child: Child,
}

impl Chromium {
    /// Chromium with the extension loaded and the host registered.
    pub fn launch(sb: &Sandbox) -> Self {
        Self::launch_with_extension(sb, &[])
    }

    /// [`Self::launch`] with more browser flags.
    pub fn launch_with_extension(sb: &Sandbox, extra: &[&str]) -> Self {
        let mut flags = vec![
            format!("--load-extension={EXTENSION_DIR}"),
            format!("--disable-extensions-except={EXTENSION_DIR}"),
        ];
        flags.extend(extra.iter().map(|f| f.to_string()));
        Self::launch_with(sb, &flags)
    }

    /// Chromium with arbitrary extra flags (and the host registered).
    pub fn launch_with(sb: &Sandbox, extra: &[String]) -> Self {
        register_host(sb);
        prepare_profile(sb);
        let log = std::fs::File::create(sb.log("chromium")).unwrap();
        use std::os::unix::process::CommandExt;
        let mut cmd = Command::new(chromium_path());
        cmd.args(HEADLESS_FLAGS)
            .arg(format!("--user-data-dir={}", sb.udd.display()))
            .args(extra)
            .arg("about:blank")
            .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
            .env("RUST_LOG", "tabwire=debug")
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log)
            .process_group(0);
        // If the test process dies without running Drop (SIGKILL), take the
        // browser down with it.
        unsafe {
            cmd.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = cmd.spawn().expect("launch chromium");
        Self { child }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    pub fn is_running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        unsafe { libc::killpg(self.child.id() as i32, libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// Waits until `f` returns Some, or panics after `secs`.
pub async fn eventually<T>(secs: u64, what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = std::time::Instant::now() + Duration::from_secs(secs);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A hand-made serve endpoint speaking tabwire's socket protocol directly,
/// to test the host and extension without the MCP layer in between.
pub struct RawServe {
    conn: RawConn,
    next_id: u64,
}

impl RawServe {
    /// Binds `serve-<fake_pid>.sock` and waits (up to 20 s) for the host.
    pub async fn accept(sb: &Sandbox, fake_pid: u32) -> Self {
        let conn = RawServeListener::bind(sb, fake_pid).accept().await;
        Self { conn, next_id: 1 }
    }

    /// Sends a request and returns the whole response (`result` or `error`).
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.conn
            .send(&serde_json::json!({"id": id, "method": method, "params": params}));
        loop {
            let msg = self.conn.recv();
            if msg["id"] == id {
                return msg;
            }
        }
    }
}

pub fn read_socket_frame(conn: &mut std::os::unix::net::UnixStream) -> Value {
    use std::io::Read;
    let mut len = [0u8; 4];
    conn.read_exact(&mut len).expect("read frame header");
    let mut body = vec![0u8; u32::from_le_bytes(len) as usize];
    conn.read_exact(&mut body).expect("read frame body");
    serde_json::from_slice(&body).expect("frame is JSON")
}

/// Serve flags that make the CDP fallback launch this machine's Chromium
/// headless, quietly, with no network chatter.
pub fn cdp_launch_args() -> Vec<String> {
    vec![
        "--browser-path".into(),
        chromium_path().display().to_string(),
        "--headless".into(),
        "--browser-arg=--disable-background-networking".into(),
        "--browser-arg=--disable-component-update".into(),
        "--browser-arg=--disable-sync".into(),
    ]
}

/// Inet sockets held by `pids`: (table, /proc/net line) for each.
pub fn inet_sockets(pids: &[i32]) -> Vec<(String, String)> {
    let mut inodes = std::collections::HashSet::new();
    for pid in pids {
        for fd in std::fs::read_dir(format!("/proc/{pid}/fd"))
            .into_iter()
            .flatten()
            .flatten()
        {
            if let Ok(link) = std::fs::read_link(fd.path()) {
                let l = link.to_string_lossy().to_string();
                if let Some(n) = l.strip_prefix("socket:[").and_then(|s| s.strip_suffix(']')) {
                    inodes.insert(n.to_string());
                }
            }
        }
    }
    let mut out = Vec::new();
    for table in ["tcp", "tcp6", "udp", "udp6"] {
        let text = std::fs::read_to_string(format!("/proc/net/{table}")).unwrap_or_default();
        for line in text.lines().skip(1) {
            let cols: Vec<_> = line.split_whitespace().collect();
            if cols.len() > 9 && inodes.contains(cols[9]) {
                out.push((table.to_string(), line.to_string()));
            }
        }
    }
    out
}

/// TCP sockets in LISTEN state (state 0A) among [`inet_sockets`].
pub fn tcp_listeners(pids: &[i32]) -> Vec<String> {
    inet_sockets(pids)
        .into_iter()
        .filter(|(t, l)| t.starts_with("tcp") && l.split_whitespace().nth(3) == Some("0A"))
        .map(|(_, l)| l)
        .collect()
}

/// Chromium processes started on behalf of this sandbox (they inherit its env).
pub fn sandbox_browsers(sb: &Sandbox) -> Vec<i32> {
    let needle = format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display());
    processes_matching(|cmd, env| cmd.contains("chrom") && env.split('\0').any(|kv| kv == needle))
}

/// A fake serve socket that only relays frames (for soak tests).
pub struct RawServeListener {
    listener: std::os::unix::net::UnixListener,
}

/// One accepted host connection on a [`RawServeListener`].
pub struct RawConn {
    conn: std::os::unix::net::UnixStream,
    writer: std::io::BufWriter<std::os::unix::net::UnixStream>,
}

impl RawServeListener {
    pub fn bind(sb: &Sandbox, fake_pid: u32) -> Self {
        tabwire::broker::dir::ensure_runtime_dir(&sb.runtime).unwrap();
        let path = sb.runtime.join(format!("serve-{fake_pid}.sock"));
        Self {
            listener: std::os::unix::net::UnixListener::bind(path).unwrap(),
        }
    }

    /// Waits for the host and reads its hello.
    pub async fn accept(&mut self) -> RawConn {
        let listener = self.listener.try_clone().unwrap();
        let mut conn = tokio::time::timeout(
            Duration::from_secs(20),
            tokio::task::spawn_blocking(move || listener.accept().unwrap().0),
        )
        .await
        .expect("native host never connected")
        .unwrap();
        conn.set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        assert_eq!(read_socket_frame(&mut conn)["type"], "host-hello");
        let writer = std::io::BufWriter::new(conn.try_clone().unwrap());
        RawConn { conn, writer }
    }
}

impl RawConn {
    pub fn send(&mut self, msg: &Value) {
        use std::io::Write;
        let body = serde_json::to_vec(msg).unwrap();
        self.writer
            .write_all(&(body.len() as u32).to_le_bytes())
            .unwrap();
        self.writer.write_all(&body).unwrap();
        self.writer.flush().unwrap();
    }

    pub fn recv(&mut self) -> Value {
        read_socket_frame(&mut self.conn)
    }
}

/// Width and height of a base64 PNG or JPEG image block.
pub fn image_size(r: &rmcp::model::CallToolResult) -> (String, u32, u32) {
    use base64::Engine as _;
    let img = r
        .content
        .iter()
        .find_map(|c| c.as_image())
        .expect("an image block");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&img.data)
        .unwrap();
    if bytes.starts_with(b"\x89PNG") {
        let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        return (img.mime_type.clone(), w, h);
    }
    assert_eq!(&bytes[..2], b"\xff\xd8", "neither PNG nor JPEG");
    // Walk JPEG segments to the start-of-frame marker.
    let mut i = 2;
    while i + 9 < bytes.len() {
        let (marker, len) = (
            bytes[i + 1],
            u16::from_be_bytes([bytes[i + 2], bytes[i + 3]]) as usize,
        );
        if (0xc0..=0xc2).contains(&marker) {
            let h = u16::from_be_bytes([bytes[i + 5], bytes[i + 6]]) as u32;
            let w = u16::from_be_bytes([bytes[i + 7], bytes[i + 8]]) as u32;
            return (img.mime_type.clone(), w, h);
        }
        i += 2 + len;
    }
    panic!("no JPEG frame header");
}

/// Polls (with the same page, concurrently with a call in flight) until
/// `flag` is set on the page's window.
pub async fn wait_for_page_flag(mcp: &Mcp, flag: &str) {
    let probe = json!({"function": format!("() => !!window.{flag}")});
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while fenced(&mcp.ok("browser_evaluate", probe.clone()).await) != "true" {
        assert!(
            std::time::Instant::now() < deadline,
            "window.{flag} was never set"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A call that stays in flight until its tab goes away: a 20 s promise, or
/// a wait for text that never comes. Returns once the page is running it.
pub async fn start_long_call(
    mcp: &std::sync::Arc<Mcp>,
    tool: &'static str,
) -> tokio::task::JoinHandle<Result<String, String>> {
    let args = match tool {
        "browser_evaluate" => json!({"function": "async () => { window.__started = true; \
            await new Promise(r => setTimeout(r, 20000)); return 'late'; }"}),
        _ => {
            // A selector wait asks the page's document (in the page's own
            // world): mark the page when it does.
            mcp.ok(
                "browser_evaluate",
                json!({"function": "() => { const q = document.querySelector.bind(document); \
                    document.querySelector = (s) => { window.__started = true; return q(s); }; \
                    return 1; }"}),
            )
            .await;
            json!({"selector": "#never-there", "timeout": 20})
        }
    };
    let call = {
        let mcp = mcp.clone();
        tokio::spawn(async move { mcp.text(tool, args).await })
    };
    wait_for_page_flag(mcp, "__started").await;
    call
}

/// `tabwire serve --backend cdp` on a Chromium it launches, plus `extra`.
pub async fn start_cdp(sb: &Sandbox, name: &str, extra: &[&str]) -> Mcp {
    let mut args = vec!["--backend".to_string(), "cdp".to_string()];
    args.extend(cdp_launch_args());
    args.extend(extra.iter().map(|a| a.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Mcp::start(sb, name, &args).await
}

/// Points a fresh sandbox profile's download folder at
/// [`Sandbox::browser_downloads`] (its `Default/Preferences`, as a user's
/// settings would), so no test browser writes into the real `~/Downloads`
/// and tests can look at what the browser itself saved.
pub fn prepare_profile(sb: &Sandbox) {
    let downloads = sb.browser_downloads();
    std::fs::create_dir_all(&downloads).unwrap();
    let prefs = sb.udd.join("Default").join("Preferences");
    if prefs.exists() {
        return;
    }
    std::fs::create_dir_all(prefs.parent().unwrap()).unwrap();
    let dir = downloads.display().to_string();
    let v = serde_json::json!({
        "download": {"default_directory": dir, "prompt_for_download": false},
        "savefile": {"default_directory": dir},
    });
    std::fs::write(prefs, v.to_string()).unwrap();
}

/// Registers the native host in the sandbox profile with tabwire's own
/// installer, as a user would (`tabwire install --user-data-dir`).
pub fn register_host(sb: &Sandbox) {
    // (The host copy it registers goes into the sandbox's data dir.)
    let status = Command::new(BIN)
        .env("TABWIRE_DATA_DIR", sb.data_dir())
        .args(["install", "--browser", "chromium", "--user-data-dir"])
        .arg(&sb.udd)
        .status()
        .expect("run tabwire install");
    assert!(status.success(), "tabwire install failed");
}

/// `tabwire serve --backend cdp` with a flag given `file`, expected to
/// refuse to start: its stderr (stdout, which carries protocol bytes
/// only, must stay empty).
pub fn serve_refuses(sb: &Sandbox, flag: &str, file: &Path) -> String {
    let out = std::process::Command::new(BIN)
        .args(["serve", "--backend", "cdp", flag])
        .arg(file)
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .env("TABWIRE_DATA_DIR", sb.data_dir())
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "serve started with {flag} {}",
        file.display()
    );
    assert!(out.stdout.is_empty(), "stdout carries protocol bytes only");
    String::from_utf8_lossy(&out.stderr).into_owned()
}
