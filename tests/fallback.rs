//! Backend choice and the CDP fallback's lifecycle, with real Chromium:
//! auto mode with and without the extension, an extension arriving
//! mid-session, attaching with --cdp-url, SIGKILL of serve, and a stale
//! profile lock.

mod common;

use std::time::Duration;

use common::*;
use serde_json::json;

fn auto_args(grace: &str) -> Vec<String> {
    [
        vec![
            "--backend".into(),
            "auto".into(),
            "--extension-grace".into(),
            grace.into(),
        ],
        cdp_launch_args(),
    ]
    .concat()
}

async fn start(sb: &Sandbox, name: &str, args: &[String]) -> Mcp {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Mcp::start(sb, name, &args).await
}

/// Fills and submits the test form; returns the echoed line.
async fn submit_form(mcp: &Mcp, site: &site::Site, name: &str) -> String {
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/form")}))
        .await;
    let field = find_ref(&snap, "textbox", "Name");
    let submit = find_ref(&snap, "button", "Send order");
    mcp.ok("browser_type", json!({"target": field, "text": name}))
        .await;
    mcp.ok("browser_click", json!({"target": submit})).await;
    mcp.ok(
        "browser_evaluate",
        json!({"function": "() => document.querySelector('#echo').textContent"}),
    )
    .await
}

/// Pid of the serve process of this sandbox.
fn serve_pid(sb: &Sandbox) -> i32 {
    let needle = format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display());
    let pids = processes_matching(|cmd, env| {
        cmd.split('\0').next() == Some(BIN)
            && cmd.split('\0').nth(1) == Some("serve")
            && env.split('\0').any(|kv| kv == needle)
    });
    assert_eq!(pids.len(), 1, "expected one serve, found {pids:?}");
    pids[0]
}

/// Chromium processes serve launched over a pipe for this sandbox.
fn launched_browsers(sb: &Sandbox) -> Vec<i32> {
    let needle = format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display());
    processes_matching(|cmd, env| {
        cmd.contains("--remote-debugging-pipe") && env.split('\0').any(|kv| kv == needle)
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_without_extension_falls_back_to_cdp_and_completes_the_form() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let mcp = start(&sb, "fallback", &auto_args("1")).await;
    let echo = submit_form(&mcp, &site, "Grace Hopper").await;
    assert!(echo.contains("name=Grace Hopper"), "{echo}");
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(status.contains("falling back to CDP"), "{status}");
    assert!(status.contains("launched, CDP pipe"), "{status}");
    assert!(!launched_browsers(&sb).is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn auto_with_extension_connected_uses_the_extension() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let _browser = Chromium::launch(&sb);
    let site = site::Site::start();
    // A long grace: the extension connects within it on this cold start.
    let mcp = start(&sb, "prefers-extension", &auto_args("20")).await;
    let echo = submit_form(&mcp, &site, "Ada").await;
    assert!(echo.contains("name=Ada"), "{echo}");
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(status.contains("through the tabwire extension"), "{status}");
    assert!(
        launched_browsers(&sb).is_empty(),
        "no fallback browser may be launched"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_connecting_mid_session_takes_over_and_old_handles_go_stale() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let mcp = start(&sb, "switcher", &auto_args("0.5")).await;
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/before")}))
        .await;
    let link = find_ref(&snap, "link", "Go to form");
    assert!(mcp
        .ok("browser_status", json!({}))
        .await
        .contains("CDP pipe"));

    let _browser = Chromium::launch(&sb);
    for _ in 0..200 {
        if mcp
            .ok("browser_status", json!({}))
            .await
            .contains("Extension: connected")
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The fallback tab's ref is a handle of the other backend now.
    let stale = mcp
        .text("browser_click", json!({"target": link}))
        .await
        .unwrap_err();
    assert!(stale.contains("list") && stale.contains("again"), "{stale}");

    let list = mcp.ok("browser_tabs", json!({"action": "list"})).await;
    assert!(!list.contains("/page/before"), "{list}");
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/after")}))
        .await;
    assert!(snap.contains("after"), "{snap}");
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(status.contains("through the tabwire extension"), "{status}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cdp_url_attaches_and_leaves_the_browser_running() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let mut browser = Chromium::launch_with(&sb, &["--remote-debugging-port=0".to_string()]);
    let port_file = sb.udd.join("DevToolsActivePort");
    let port = eventually(20, "DevToolsActivePort", || {
        std::fs::read_to_string(&port_file)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
            .filter(|p| !p.is_empty())
    })
    .await;
    let url = format!("http://127.0.0.1:{port}");
    let mcp = Mcp::start(&sb, "attacher", &["--backend", "cdp", "--cdp-url", &url]).await;
    let echo = submit_form(&mcp, &site, "Attached").await;
    assert!(echo.contains("name=Attached"), "{echo}");
    assert!(mcp
        .ok("browser_status", json!({}))
        .await
        .contains("(attached)"));

    mcp.client.cancel().await.unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        browser.is_running(),
        "tabwire must never close a browser it did not launch"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_serve_leaves_no_launched_browser_behind() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let mcp = start_cdp(&sb, "doomed", &[]).await;
    mcp.ok("browser_navigate", json!({"url": site.url("/page/x")}))
        .await;
    assert!(!launched_browsers(&sb).is_empty());

    unsafe { libc::kill(serve_pid(&sb), libc::SIGKILL) };
    eventually(5, "the launched browser to exit", || {
        launched_browsers(&sb).is_empty().then_some(())
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stale_profile_lock_from_a_killed_run_is_recovered() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let profile = sb.data_dir().join("profiles/default");
    std::fs::create_dir_all(&profile).unwrap();
    // A lock whose owner is long gone (pid far above the kernel's max).
    std::os::unix::fs::symlink("somehost-999999999", profile.join("SingletonLock")).unwrap();
    let mcp = start_cdp(&sb, "recovering", &[]).await;
    let snap = mcp
        .ok(
            "browser_navigate",
            json!({"url": site.url("/page/recovered")}),
        )
        .await;
    assert!(snap.contains("recovered"), "{snap}");
    let lock = std::fs::read_link(profile.join("SingletonLock")).unwrap();
    assert!(!lock.to_string_lossy().ends_with("-999999999"), "{lock:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_stdin_ends_serve_and_closes_the_browser_it_launched() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let mcp = start_cdp(&sb, "tidy", &[]).await;
    mcp.ok("browser_tabs", json!({"action": "list"})).await;
    assert!(!launched_browsers(&sb).is_empty());
    let pid = serve_pid(&sb);

    mcp.client.cancel().await.unwrap(); // closes serve's stdin
    eventually(3, "serve to exit", || {
        let alive = std::fs::read_to_string(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        alive.is_empty().then_some(())
    })
    .await;
    assert!(
        launched_browsers(&sb).is_empty(),
        "the launched browser must be closed"
    );
}

/// Whether `pid` is running (a zombie counts as gone).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| rest.trim_start().to_string())
        })
        .is_some_and(|rest| !rest.starts_with('Z'))
}

/// `pid`'s parent.
fn parent_of(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

/// `pid`'s process group (-1 once it is gone).
fn group_of(pid: i32) -> i32 {
    // SAFETY: getpgid only reads another process's group id.
    unsafe { libc::getpgid(pid) }
}

/// Every process of the browsers serve launched for this sandbox: the
/// browsers, the helpers in their process groups (zygotes, renderers,
/// GPU, utilities) and their crash handlers (daemons of their own, which
/// inherit serve's environment), each with its process group.
fn browser_processes(sb: &Sandbox) -> Vec<(i32, i32)> {
    let leaders = launched_browsers(sb);
    let needle = format!("TABWIRE_RUNTIME_DIR={}", sb.runtime.display());
    let mut pids = processes_matching(|cmd, env| {
        cmd.split('\0').next() != Some(BIN) && env.split('\0').any(|kv| kv == needle)
    });
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() {
            if leaders.contains(&group_of(pid)) && !pids.contains(&pid) {
                pids.push(pid);
            }
        }
    }
    pids.into_iter().map(|p| (p, group_of(p))).collect()
}

/// Of a launched browser's processes, the browser itself (the one that is
/// no helper: no `--type=`) and the profile it was given.
fn main_browser(procs: &[(i32, i32)]) -> (i32, std::path::PathBuf) {
    procs
        .iter()
        .find_map(|(pid, _)| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).ok()?;
            let cmd = String::from_utf8_lossy(&cmd).into_owned();
            let args: Vec<&str> = cmd.split('\0').collect();
            if !args.contains(&"--remote-debugging-pipe") {
                return None;
            }
            let dir = args
                .iter()
                .find_map(|a| a.strip_prefix("--user-data-dir="))?;
            Some((*pid, std::path::PathBuf::from(dir)))
        })
        .expect("the launched browser's own process")
}

/// Asserts, once serve has exited, that none of `procs` in the group
/// `browser` leads (the browser and its helpers) is running, and that the
/// crash handlers outside the group end on their own right after.
async fn assert_all_gone(procs: &[(i32, i32)], browser: i32) {
    let left: Vec<i32> = procs
        .iter()
        .filter(|(p, g)| *g == browser && running(*p))
        .map(|(p, _)| *p)
        .collect();
    assert!(left.is_empty(), "browser processes left behind: {left:?}");
    eventually(2, "the browser's crash handlers to end", || {
        procs.iter().all(|(p, _)| !running(*p)).then_some(())
    })
    .await;
}

/// A second serve on the same data dir (its default profile held by the
/// first serve's browser) launches its browser on a throwaway profile.
/// When its client closes stdin, by the time that serve has exited the
/// browser and every helper process it started are gone, and so is the
/// throwaway profile; the first serve's browser is untouched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn closing_stdin_leaves_no_browser_process_and_no_throwaway_profile() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let first = start_cdp(&sb, "first", &[]).await;
    first.ok("browser_tabs", json!({"action": "list"})).await;
    let firsts = browser_processes(&sb);
    let (first_browser, _) = main_browser(&firsts);
    let second = start_cdp(&sb, "second", &[]).await;
    second
        .ok("browser_navigate", json!({"url": site.url("/page/x")}))
        .await;
    let seconds: Vec<(i32, i32)> = browser_processes(&sb)
        .into_iter()
        .filter(|(p, g)| *g != first_browser && !firsts.iter().any(|(f, _)| f == p))
        .collect();
    let (browser, profile) = main_browser(&seconds);
    assert!(
        seconds.iter().filter(|(_, g)| *g == browser).count() > 1,
        "a browser with helper processes: {seconds:?}"
    );
    assert!(
        profile
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("tabwire-profile-")),
        "{profile:?}"
    );
    assert!(profile.exists());
    let serve = parent_of(browser).expect("the browser's parent");

    second.client.cancel().await.unwrap(); // closes serve's stdin
    eventually(5, "the second serve to exit", || {
        (!running(serve)).then_some(())
    })
    .await;
    assert_all_gone(&seconds, browser).await;
    assert!(
        !profile.exists(),
        "the throwaway profile {profile:?} is left"
    );
    assert!(
        running(first_browser),
        "the first serve's browser must live on"
    );
    first.ok("browser_tabs", json!({"action": "list"})).await;
}

/// A launched browser that does not answer `Browser.close` (stopped with
/// SIGSTOP) does not hold serve: serve kills its process group, so when
/// serve has exited (within a few seconds, not the old 5 s of timeouts)
/// neither the browser nor any helper process of it is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_that_does_not_close_is_killed_with_its_helpers() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let mcp = start_cdp(&sb, "stuck", &[]).await;
    mcp.ok("browser_navigate", json!({"url": site.url("/page/x")}))
        .await;
    let procs = browser_processes(&sb);
    let (browser, _) = main_browser(&procs);
    assert!(
        procs.iter().filter(|(_, g)| *g == browser).count() > 1,
        "a browser with helper processes: {procs:?}"
    );
    let serve = serve_pid(&sb);
    // SAFETY: stopping the browser this test's serve launched.
    unsafe { libc::kill(browser, libc::SIGSTOP) };

    mcp.client.cancel().await.unwrap(); // closes serve's stdin
    eventually(3, "serve to exit", || (!running(serve)).then_some(())).await;
    assert_all_gone(&procs, browser).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_launched_browser_that_dies_is_replaced_and_old_handles_are_reported() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let site = site::Site::start();
    let mcp = start_cdp(&sb, "phoenix", &[]).await;
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/first")}))
        .await;
    let link = find_ref(&snap, "link", "Go to form");
    let before = launched_browsers(&sb);
    assert!(!before.is_empty());
    for pid in &before {
        unsafe { libc::kill(*pid, libc::SIGKILL) };
    }
    eventually(10, "the killed browser to be gone", || {
        launched_browsers(&sb).is_empty().then_some(())
    })
    .await;

    // The old tab and its refs belong to the dead browser: the next call
    // says so (after starting a new browser) instead of hanging or acting
    // on something else.
    let e = mcp
        .text("browser_click", json!({"target": link}))
        .await
        .unwrap_err();
    assert!(
        e.contains("closed") || e.contains("restart") || e.contains("stale"),
        "{e}"
    );
    // Then everything works on the new browser.
    let snap = mcp
        .ok("browser_navigate", json!({"url": site.url("/page/second")}))
        .await;
    assert!(snap.contains("heading \"second\""), "{snap}");
    let after = launched_browsers(&sb);
    assert!(
        !after.is_empty() && after.iter().all(|p| !before.contains(p)),
        "{before:?} -> {after:?}"
    );
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(status.contains("CDP pipe"), "{status}");
}
