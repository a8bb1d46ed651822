//! The running serves: the socket directory they listen in (private to
//! this user), each serve's status answer, and whether the extension
//! reached any of them.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::report::{Check, Status};
use crate::broker;
use crate::install::extension_files;
use crate::protocol::{ServeStatus, StatusQuery};
use crate::wire::{self, FrameReader, Framing};

pub(super) fn runtime_dir_check() -> (Check, Option<PathBuf>) {
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
        wire::write_frame(&mut &stream, &query, Framing::Socket, 1 << 16)
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

pub(super) async fn server_checks(dir: Option<&Path>) -> Vec<Check> {
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
