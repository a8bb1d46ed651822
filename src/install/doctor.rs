//! `tabwire doctor`: checks every link of the chain — host manifests and
//! the binary they name, browser policy, the socket directory, running
//! servers and the extension behind them, the CDP fallback — and says for
//! each what is wrong and how to fix it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;
use serde_json::Value;

use super::browsers::{self, Browser, HostLocation};
use super::record::{self, Record};
use super::source::{self, Source};
use super::{extension_files, manifest, registry, this_binary, Env, Os};
use crate::broker;
use crate::frame::{self, FrameReader, Framing};
use crate::protocol::{ServeStatus, StatusQuery, HOST_NAME};

#[derive(Debug, Clone, Default)]
pub struct DoctorOptions {
    /// `--browser`: check these (default: every detected browser).
    pub browsers: Vec<String>,
    /// `--user-data-dir`: check the registration in this profile.
    pub user_data_dir: Option<PathBuf>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    /// Worth knowing, nothing to fix.
    Info,
    /// Works, but not as well as it could.
    Warn,
    /// Something the user must fix.
    Fail,
}

#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Stable name, e.g. `manifest.chromium`, `binary.chromium`, `servers`.
    pub id: String,
    pub status: Status,
    pub title: String,
    pub detail: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
    /// Extra machine-readable facts (e.g. a server's status answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

impl Check {
    fn new(
        id: impl Into<String>,
        status: Status,
        title: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            id: id.into(),
            status,
            title: title.into(),
            detail: detail.into(),
            fix: None,
            data: None,
        }
    }

    fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    fn data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub ok: bool,
    pub problems: usize,
    pub checks: Vec<Check>,
}

impl Report {
    fn new(checks: Vec<Check>) -> Self {
        let problems = checks.iter().filter(|c| c.status == Status::Fail).count();
        Self {
            ok: problems == 0,
            problems,
            checks,
        }
    }

    /// 0 when nothing needs fixing, else 1.
    pub fn exit_code(&self) -> i32 {
        if self.ok {
            0
        } else {
            1
        }
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serializes")
    }

    pub fn to_text(&self) -> String {
        let mut out = format!("tabwire doctor (tabwire {})\n", env!("CARGO_PKG_VERSION"));
        for c in &self.checks {
            let tag = match c.status {
                Status::Ok => "OK  ",
                Status::Info => "INFO",
                Status::Warn => "WARN",
                Status::Fail => "FAIL",
            };
            out.push_str(&format!("  {tag}  {}: {}\n", c.title, c.detail));
            if let Some(fix) = &c.fix {
                out.push_str(&format!("        fix: {fix}\n"));
            }
        }
        out.push('\n');
        if self.ok {
            out.push_str("No problems found.\n");
        } else {
            out.push_str(&format!(
                "{} problem(s) need fixing: see the \"fix:\" lines above.\n",
                self.problems
            ));
        }
        out
    }
}

/// Runs every check.
pub async fn run(opts: &DoctorOptions, env: &Env) -> Report {
    let mut checks = Vec::new();
    let me = this_binary().ok();
    let record = Record::load(&record::path(env.os, &env.data_dir))
        .ok()
        .flatten();
    checks.push(Check::new(
        "binary",
        Status::Info,
        "this tabwire",
        me.as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "its own path is unknown".into()),
    ));
    checks.push(install_check(env, me.as_deref(), record.as_ref()));
    // Fixes name the commands as this install runs them (`npx tabwire …`).
    let source = me
        .as_deref()
        .map(|m| Source::detect(env.os, env.launcher.as_deref(), m, &env.cargo_bin));
    let targets = match targets(opts, env) {
        Ok(t) => t,
        Err(e) => {
            checks.push(Check::new("browsers", Status::Fail, "browsers", e));
            return Report::new(checks);
        }
    };
    // The host `tabwire install` from this binary registers: its copy in
    // the data directory, or (--user-data-dir) the one beside it.
    let expected_host = if opts.user_data_dir.is_some() {
        me.as_deref()
            .map(|m| super::host_binary(env.os, m, Path::is_file))
    } else {
        Some(source::host_path(env.os, &env.data_dir))
    };
    checks.extend(manifest_checks(&targets, me.as_deref(), expected_host));
    checks.extend(policy_checks(&targets, env));
    checks.push(extension_files_check(env));
    let (dir_check, dir) = runtime_dir_check();
    checks.push(dir_check);
    // With no (safe) socket directory there are no servers to ask.
    checks.extend(server_checks(dir.as_deref()).await);
    checks.push(fallback_check());
    if let Some(source) = source {
        for c in &mut checks {
            c.fix = c.fix.take().map(|f| source.commands_in(&f));
        }
    }
    Report::new(checks)
}

/// A place to check, with the browsers that read it.
struct Target {
    id: String,
    names: String,
    location: HostLocation,
    /// Named explicitly or detected (a missing registration is a failure),
    /// or merely found (a stray manifest of an absent browser).
    expected: bool,
}

fn targets(opts: &DoctorOptions, env: &Env) -> Result<Vec<Target>, String> {
    let named: Vec<&'static Browser> = opts
        .browsers
        .iter()
        .flat_map(|n| n.split(','))
        .filter(|n| !n.trim().is_empty())
        .map(|n| {
            browsers::by_name(n)
                .ok_or_else(|| format!("unknown browser {n:?}; known: {}", browsers::known_names()))
        })
        .collect::<Result<_, _>>()?;
    if let Some(udd) = &opts.user_data_dir {
        let b = named
            .first()
            .copied()
            .unwrap_or_else(|| browsers::by_name("chromium").expect("known"));
        return Ok(vec![Target {
            id: b.id.into(),
            names: format!("{} (profile {})", b.name, udd.display()),
            location: HostLocation::File(browsers::manifest_in_user_data_dir(env.os, udd)),
            expected: true,
        }]);
    }
    let chosen: Vec<&'static Browser> = if named.is_empty() {
        super::setup::detected(env)
            .into_iter()
            .map(|(b, _)| b)
            .collect()
    } else {
        named
    };
    let mut out: Vec<Target> = Vec::new();
    let add = |b: &'static Browser, expected: bool, out: &mut Vec<Target>| {
        let Some(loc) = browsers::host_location(b, env) else {
            return;
        };
        match out.iter_mut().find(|t| t.location == loc) {
            Some(t) => {
                if expected && !t.names.contains(b.name) {
                    t.names.push_str(&format!(", {}", b.name));
                }
                t.expected |= expected;
            }
            None => out.push(Target {
                id: b.id.into(),
                names: b.name.into(),
                location: loc,
                expected,
            }),
        }
    };
    for b in &chosen {
        add(b, true, &mut out);
    }
    // Registrations left for browsers that are not here: check them too.
    if opts.browsers.is_empty() {
        for b in browsers::BROWSERS {
            if let Some(HostLocation::File(p)) = browsers::host_location(b, env) {
                if p.exists() {
                    add(b, false, &mut out);
                }
            }
        }
    }
    Ok(out)
}

/// Which install this is (npm, archive, cargo…) and where the host that
/// browsers start comes from.
fn install_check(env: &Env, me: Option<&Path>, record: Option<&Record>) -> Check {
    let title = "install";
    let Some(me) = me else {
        return Check::new(
            "install",
            Status::Info,
            title,
            "this program's path is unknown",
        );
    };
    let mut source = Source::detect(env.os, env.launcher.as_deref(), me, &env.cargo_bin);
    // install.sh says "archive" only while it runs tabwire; the record keeps it.
    if let Some(r) = record {
        if r.binary.as_deref() == Some(me) && source == Source::Binary {
            source = r.source.unwrap_or(source);
        }
    }
    let host = source::host_path(env.os, &env.data_dir);
    let mut data = serde_json::json!({
        "source": source.name(),
        "binary": me.display().to_string(),
    });
    let what = format!("{}: {}", source.describe(), me.display());
    let placed = record.is_some_and(|r| r.files.contains(&host));
    if !placed || !host.is_file() {
        return Check::new(
            "install",
            Status::Info,
            title,
            format!(
                "{what}; no host copy in {} (`tabwire install` places one and registers it)",
                host.parent().unwrap_or(&host).display()
            ),
        )
        .data(data);
    }
    let r = record.expect("placed implies a record");
    data["host"] = serde_json::json!(host.display().to_string());
    let from = match &r.host_from {
        Some(from) => {
            data["host_from"] = serde_json::json!(from.display().to_string());
            let by = match r.source {
                Some(s) if s != source => format!(" (then run from {})", s.describe()),
                _ => String::new(),
            };
            format!(", copied from {} by `tabwire install`{by}", from.display())
        }
        None => ", copied by `tabwire install`".to_string(),
    };
    let detail = format!("{what}; browsers start {}{from}", host.display());
    // Is the copy this tabwire's own host?
    let mine = super::host_binary(env.os, me, Path::is_file);
    let same = match (std::fs::read(&mine), std::fs::read(&host)) {
        (Ok(a), Ok(b)) => a == b,
        _ => true,
    };
    if same {
        Check::new("install", Status::Ok, title, detail).data(data)
    } else {
        Check::new(
            "install",
            Status::Warn,
            title,
            format!(
                "{detail}; it is not this tabwire's host ({}), an older or other version",
                mine.display()
            ),
        )
        .fix(
            "run `tabwire install` to put this version's host in place; the extension picks it \
             up when it reconnects",
        )
        .data(data)
    }
}

fn manifest_checks(
    targets: &[Target],
    me: Option<&Path>,
    expected_host: Option<PathBuf>,
) -> Vec<Check> {
    let mut checks = Vec::new();
    if targets.is_empty() {
        checks.push(
            Check::new(
                "browsers",
                Status::Fail,
                "browsers",
                "no Chromium-family browser found (Chrome, Chromium, Edge, Brave, Vivaldi, Opera)",
            )
            .fix("install one, or name yours: tabwire doctor --browser chrome"),
        );
        return checks;
    }
    let reinstall = |t: &Target| {
        if t.expected {
            format!("run `tabwire install --browser {}`", t.id)
        } else {
            "run `tabwire install`, or `tabwire uninstall` if you no longer use this browser"
                .to_string()
        }
    };
    for t in targets {
        let mid = format!("manifest.{}", t.id);
        let mtitle = format!("host manifest for {}", t.names);
        let path = match &t.location {
            HostLocation::File(p) => p.clone(),
            HostLocation::Registry { key, manifest } => {
                let value = registry::run(&registry::query_default_args(key))
                    .ok()
                    .and_then(|o| registry::parse_sz(&o));
                match value {
                    Some(v) => {
                        if Path::new(&v) != manifest.as_path() {
                            checks.push(Check::new(
                                format!("registry.{}", t.id),
                                Status::Info,
                                format!("registry key for {}", t.names),
                                format!(r"HKCU\{key} points at {v}, not at {}", manifest.display()),
                            ));
                        }
                        PathBuf::from(v)
                    }
                    None => {
                        checks.push(
                            Check::new(
                                mid,
                                Status::Fail,
                                mtitle,
                                format!(r"not registered: HKCU\{key} is missing"),
                            )
                            .fix(reinstall(t)),
                        );
                        continue;
                    }
                }
            }
        };
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(_) => {
                let status = if t.expected {
                    Status::Fail
                } else {
                    Status::Info
                };
                checks.push(
                    Check::new(
                        mid,
                        status,
                        mtitle,
                        format!("not registered: {} does not exist", path.display()),
                    )
                    .fix(reinstall(t)),
                );
                continue;
            }
        };
        let found = manifest::inspect(&text, &manifest::check_binary_on_disk);
        if found.manifest_problems.is_empty() {
            checks.push(Check::new(
                mid,
                Status::Ok,
                mtitle,
                path.display().to_string(),
            ));
        } else {
            let why: Vec<String> = found
                .manifest_problems
                .iter()
                .map(|p| p.to_string())
                .collect();
            checks.push(
                Check::new(
                    mid,
                    Status::Fail,
                    mtitle,
                    format!("{}: {}", path.display(), why.join("; ")),
                )
                .fix(format!("{} to rewrite it", reinstall(t))),
            );
            continue;
        }
        let bid = format!("binary.{}", t.id);
        let btitle = format!("host binary for {}", t.names);
        let binary = found.binary.unwrap_or_default();
        if let Some(problem) = found.binary_problems.first() {
            let this = me
                .map(|p| format!(" (this one is {})", p.display()))
                .unwrap_or_default();
            checks.push(
                Check::new(
                    bid,
                    Status::Fail,
                    btitle,
                    format!("{problem}; the browser cannot start the host"),
                )
                .fix(format!(
                    "{} from the tabwire binary you want the browser to start{this}",
                    reinstall(t)
                )),
            );
        } else {
            // What `tabwire install` run from this binary would register.
            let note = match &expected_host {
                Some(e) if Path::new(&binary) != e => {
                    format!(" (not this tabwire's host, {})", e.display())
                }
                _ => String::new(),
            };
            checks.push(Check::new(
                bid,
                Status::Ok,
                btitle,
                format!("{binary} is executable{note}"),
            ));
        }
    }
    checks
}

/// Why a set of managed policy documents stops per-user native hosts, if it does.
pub fn policy_blocks(policies: &[Value]) -> Option<String> {
    for p in policies {
        if p.get("NativeMessagingUserLevelHosts") == Some(&Value::Bool(false)) {
            return Some(
                "the NativeMessagingUserLevelHosts policy is false: the browser ignores per-user \
                 native hosts like tabwire's"
                    .into(),
            );
        }
    }
    let listed = |key: &str, what: &str| {
        policies.iter().any(|p| {
            p.get(key)
                .and_then(Value::as_array)
                .is_some_and(|a| a.iter().any(|v| v.as_str() == Some(what)))
        })
    };
    let allowed = listed("NativeMessagingAllowlist", HOST_NAME)
        || listed("NativeMessagingWhitelist", HOST_NAME);
    for key in ["NativeMessagingBlocklist", "NativeMessagingBlacklist"] {
        if !allowed && (listed(key, "*") || listed(key, HOST_NAME)) {
            return Some(format!(
                "the {key} policy blocks {HOST_NAME} (and NativeMessagingAllowlist does not list it)"
            ));
        }
    }
    None
}

fn read_policy_dir(dir: &Path) -> Vec<Value> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
        .filter_map(|e| std::fs::read_to_string(e.path()).ok())
        .filter_map(|t| serde_json::from_str(&t).ok())
        .collect()
}

fn policy_checks(targets: &[Target], env: &Env) -> Vec<Check> {
    let mut blocked = Vec::new();
    let mut seen = Vec::new();
    for t in targets.iter().filter(|t| t.expected) {
        let Some(b) = browsers::by_name(&t.id) else {
            continue;
        };
        match env.os {
            Os::Linux => {
                for dir in browsers::linux_policy_dirs(b) {
                    if seen.contains(&dir) {
                        continue;
                    }
                    seen.push(dir.clone());
                    if let Some(why) = policy_blocks(&read_policy_dir(&dir)) {
                        blocked.push(format!("{} ({}): {why}", b.name, dir.display()));
                    }
                }
            }
            Os::Windows => {
                let Some(key) = browsers::windows_policy_key(b) else {
                    continue;
                };
                for root in ["HKLM", "HKCU"] {
                    let args =
                        registry::query_value_args(root, key, "NativeMessagingUserLevelHosts");
                    let value = registry::run(&args)
                        .ok()
                        .and_then(|o| registry::parse_dword(&o));
                    if value == Some(0) {
                        blocked.push(format!(
                            r"{}: {root}\{key}\NativeMessagingUserLevelHosts is 0: the browser ignores per-user native hosts",
                            b.name
                        ));
                    }
                }
            }
            Os::MacOs => {}
        }
    }
    if env.os == Os::MacOs {
        return vec![Check::new(
            "policy",
            Status::Info,
            "browser policy",
            "not checked on macOS; open chrome://policy and look for NativeMessagingUserLevelHosts \
             or NativeMessagingBlocklist",
        )];
    }
    if blocked.is_empty() {
        vec![Check::new(
            "policy",
            Status::Ok,
            "browser policy",
            "no policy blocks per-user native messaging hosts",
        )]
    } else {
        vec![Check::new("policy", Status::Fail, "browser policy", blocked.join("; ")).fix(
            "ask whoever manages this computer to allow per-user native hosts \
             (NativeMessagingUserLevelHosts) or to add com.tabwire.host to NativeMessagingAllowlist",
        )]
    }
}

fn extension_files_check(env: &Env) -> Check {
    let dir = extension_files::dir(env.os, &env.data_dir);
    let title = "extension files";
    if !dir.exists() {
        return Check::new(
            "extension-files",
            Status::Warn,
            title,
            format!("{} does not exist", dir.display()),
        )
        .fix("run `tabwire install` to place the extension there, then load it unpacked from that folder");
    }
    let stale = extension_files::stale_files(&dir);
    if stale.is_empty() {
        Check::new(
            "extension-files",
            Status::Ok,
            title,
            format!("{} matches this tabwire", dir.display()),
        )
    } else {
        Check::new(
            "extension-files",
            Status::Warn,
            title,
            format!("{} is out of date ({})", dir.display(), stale.join(", ")),
        )
        .fix("run `tabwire install`, then press the reload button on tabwire's card in the browser's extensions page")
    }
}

fn runtime_dir_check() -> (Check, Option<PathBuf>) {
    let dir = broker::dir::runtime_dir_path();
    let title = "socket directory";
    if std::fs::symlink_metadata(&dir).is_err() {
        return (
            Check::new(
                "runtime-dir",
                Status::Ok,
                title,
                format!(
                    "{} does not exist yet; `tabwire serve` creates it (mode 0700)",
                    dir.display()
                ),
            ),
            None,
        );
    }
    match broker::dir::verify_private_dir(&dir) {
        Ok(()) => (
            Check::new(
                "runtime-dir",
                Status::Ok,
                title,
                format!("{} is yours with mode 0700", dir.display()),
            ),
            Some(dir),
        ),
        Err(e) => (
            Check::new("runtime-dir", Status::Fail, title, e.to_string()).fix(format!(
                "remove {} (tabwire recreates it safely) or fix its owner and mode: chmod 700",
                dir.display()
            )),
            None,
        ),
    }
}

/// Asks one serve for its status.
pub async fn query_serve(path: &Path) -> Result<ServeStatus, String> {
    let work = async {
        let stream = broker::connect(path).await.map_err(|e| e.to_string())?;
        broker::check_peer(&stream).map_err(|e| e.to_string())?;
        let query = serde_json::to_vec(&StatusQuery::new()).expect("query serializes");
        frame::write_frame(&mut &stream, &query, Framing::Socket, 1 << 16)
            .await
            .map_err(|e| e.to_string())?;
        let mut reader = FrameReader::new(&stream, Framing::Socket, 1 << 20);
        let reply = reader
            .read_frame()
            .await
            .map_err(|e| e.to_string())?
            .ok_or("the server closed without answering (an older tabwire?)")?;
        serde_json::from_slice::<ServeStatus>(&reply).map_err(|e| format!("bad answer: {e}"))
    };
    tokio::time::timeout(Duration::from_secs(3), work)
        .await
        .map_err(|_| "no answer within 3 s".to_string())?
}

async fn query_all(dir: &Path) -> Vec<(PathBuf, Result<ServeStatus, String>)> {
    let mut out = Vec::new();
    for path in broker::list_sockets(dir).unwrap_or_default() {
        let r = query_serve(&path).await;
        out.push((path, r));
    }
    out
}

fn describe_extension(s: &ServeStatus) -> String {
    match &s.extension {
        Some(e) => {
            let mut text = format!(
                "tabwire extension {} in {} (native host pid {})",
                e.version,
                e.browser.as_deref().unwrap_or("an unknown browser"),
                e.host_pid
            );
            // Every connected browser (or profile), with this client's tabs.
            if !s.browsers.is_empty() {
                let each: Vec<String> = s
                    .browsers
                    .iter()
                    .map(crate::backend::extension::describe_browser)
                    .collect();
                text.push_str(&format!(
                    "; {} browser(s) connected: {}",
                    s.browsers.len(),
                    each.join("; ")
                ));
            }
            text
        }
        None if s.hosts > 0 => {
            "a native host is connected but the extension has not answered".into()
        }
        None => "no native host connected".into(),
    }
}

async fn server_checks(dir: Option<&Path>) -> Vec<Check> {
    let Some(dir) = dir else {
        return vec![Check::new(
            "extension",
            Status::Info,
            "extension connection",
            "no tabwire serve is running, so nothing can be connected yet; your MCP client starts one when it launches",
        )];
    };
    let mut answers = query_all(dir).await;
    let none_connected = |a: &[(PathBuf, Result<ServeStatus, String>)]| {
        a.iter().any(|(_, r)| r.is_ok())
            && !a
                .iter()
                .any(|(_, r)| r.as_ref().is_ok_and(|s| s.extension.is_some()))
    };
    // A server that has just started may be a moment ahead of its host.
    if none_connected(&answers) {
        tokio::time::sleep(Duration::from_millis(1500)).await;
        answers = query_all(dir).await;
    }
    let mut checks = Vec::new();
    let mut live = Vec::new();
    for (path, r) in &answers {
        match r {
            Ok(s) => {
                let client = s.client.as_deref().unwrap_or("an MCP client that has not said its name");
                let status = if s.extension.is_some() { Status::Ok } else { Status::Warn };
                checks.push(
                    Check::new(
                        format!("server.{}", s.pid),
                        status,
                        format!("tabwire serve pid {}", s.pid),
                        format!("for {client}; {}", describe_extension(s)),
                    )
                    .data(serde_json::to_value(s).expect("status serializes")),
                );
                live.push(s.clone());
            }
            Err(e) => checks.push(Check::new(
                "server.unreachable",
                Status::Info,
                "server socket",
                format!("{} did not answer ({e}); a server that has exited leaves this behind and the next serve removes it", path.display()),
            )),
        }
    }
    let ours = extension_files::version();
    let connected: Vec<&ServeStatus> = live.iter().filter(|s| s.extension.is_some()).collect();
    let summary = if live.is_empty() {
        Check::new(
            "extension",
            Status::Info,
            "extension connection",
            "no tabwire serve is running, so nothing can be connected yet; your MCP client starts one when it launches",
        )
    } else if let Some(s) = connected.first() {
        let e = s.extension.as_ref().expect("filtered on Some");
        let mut c = Check::new(
            "extension",
            Status::Ok,
            "extension connection",
            format!("connected: {}", describe_extension(s)),
        )
        .data(serde_json::to_value(e).expect("serializes"));
        if e.version != ours {
            c.status = Status::Warn;
            c.detail
                .push_str(&format!("; this tabwire ships extension {ours}"));
            c = c
                .fix("run `tabwire install`, then reload tabwire on the browser's extensions page");
        }
        c
    } else {
        Check::new(
            "extension",
            Status::Fail,
            "extension connection",
            format!(
                "{} server(s) running, none reached by the extension: the browser did not start \
                 the native host, or the extension is not loaded",
                live.len()
            ),
        )
        .fix(
            "open the browser's extensions page and check that tabwire is loaded and enabled \
             (its toolbar popup says why it is not connected); fix any FAIL above about the host \
             manifest; if the browser runs with --user-data-dir, register that profile: \
             tabwire install --user-data-dir DIR",
        )
    };
    checks.push(summary);
    checks
}

fn fallback_check() -> Check {
    match crate::backend::direct::launch::find_browser(None) {
        Ok(p) => Check::new(
            "cdp-fallback",
            Status::Ok,
            "browser for the CDP fallback",
            format!("{} (used when the extension is not connected)", p.display()),
        ),
        Err(e) => Check::new("cdp-fallback", Status::Warn, "browser for the CDP fallback", e)
            .fix("only needed without the extension: install Chrome or Chromium, or pass --browser-path to `tabwire serve`"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn policy_verdicts() {
        assert_eq!(policy_blocks(&[]), None);
        assert!(
            policy_blocks(&[json!({"NativeMessagingUserLevelHosts": false})])
                .unwrap()
                .contains("NativeMessagingUserLevelHosts")
        );
        assert_eq!(
            policy_blocks(&[json!({"NativeMessagingUserLevelHosts": true})]),
            None
        );
        assert!(policy_blocks(&[json!({"NativeMessagingBlocklist": ["*"]})]).is_some());
        assert!(
            policy_blocks(&[json!({"NativeMessagingBlocklist": ["com.tabwire.host"]})]).is_some()
        );
        assert_eq!(
            policy_blocks(&[
                json!({"NativeMessagingBlocklist": ["*"]}),
                json!({"NativeMessagingAllowlist": ["com.tabwire.host"]})
            ]),
            None
        );
        assert_eq!(
            policy_blocks(&[json!({"NativeMessagingBlocklist": ["com.other"]})]),
            None
        );
    }

    #[test]
    fn report_exit_code_and_text() {
        let ok = Report::new(vec![Check::new("a", Status::Ok, "A", "fine")]);
        assert_eq!(ok.exit_code(), 0);
        assert!(ok.to_text().contains("No problems found"));
        let bad = Report::new(vec![
            Check::new("a", Status::Warn, "A", "meh"),
            Check::new("b", Status::Fail, "B", "broken").fix("do this"),
        ]);
        assert_eq!(bad.exit_code(), 1);
        let text = bad.to_text();
        assert!(
            text.contains("FAIL  B: broken\n        fix: do this"),
            "{text}"
        );
        let v: Value = serde_json::from_str(&bad.to_json()).unwrap();
        assert_eq!(v["ok"], false);
        assert_eq!(v["problems"], 1);
        assert_eq!(v["checks"][1]["status"], "fail");
        assert_eq!(v["checks"][1]["fix"], "do this");
        assert!(v["checks"][0].get("fix").is_none());
    }

    #[tokio::test]
    async fn manifest_checks_name_each_failure() {
        let tmp = tempfile::tempdir().unwrap();
        let env = Env::for_tests(Os::Linux, tmp.path().to_str().unwrap());
        let udd = tmp.path().join("p");
        let opts = DoctorOptions {
            browsers: vec![],
            user_data_dir: Some(udd.clone()),
        };
        let t = targets(&opts, &env).unwrap();
        let c = manifest_checks(&t, None, None);
        assert_eq!(c[0].id, "manifest.chromium");
        assert_eq!(c[0].status, Status::Fail);
        assert!(c[0].detail.contains("not registered"));

        let path = udd.join("NativeMessagingHosts/com.tabwire.host.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, manifest::render(Path::new("/nonexistent/tabwire"))).unwrap();
        let c = manifest_checks(&t, None, None);
        assert_eq!(c[0].status, Status::Ok);
        assert_eq!(c[1].id, "binary.chromium");
        assert_eq!(c[1].status, Status::Fail);
        assert!(
            c[1].detail.contains("/nonexistent/tabwire does not exist"),
            "{}",
            c[1].detail
        );
        assert!(c[1].fix.as_ref().unwrap().contains("tabwire install"));

        std::fs::write(&path, "{\"name\": \"com.tabwire.host\"").unwrap();
        let c = manifest_checks(&t, None, None);
        assert_eq!(c[0].status, Status::Fail);
        assert!(c[0].detail.contains("not valid JSON"), "{}", c[0].detail);
    }
}
