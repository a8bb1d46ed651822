//! Several browsers (profiles) at once, real parts throughout: two headless
//! Chromium profiles (two user-data-dirs), each with the tabwire extension
//! and the native host registered by `tabwire install`, both connected to
//! the same `tabwire serve`s (issue 17).
//!
//! - one client: tabs of both listed (labelled with their browser) and
//!   driven, though Chrome's tab ids of two fresh profiles collide; new tabs
//!   open in the browser connected first, then in the one the user marks in
//!   its popup, or in the one `browser_tabs new` names; a rename on the
//!   options page is what agents see; a browser that restarts keeps its
//!   name and voids only its own handles;
//! - two clients: each sees only its own tabs in both browsers; a Stop in
//!   one browser's popup stops the clients there only; `browser_status` and
//!   `tabwire doctor` list both browsers; one browser quits mid-session and
//!   only its handles go void.

#[macro_use]
mod common;

use std::time::Duration;

use common::install_env::PipeChromium;
use common::ui::page_text;
use common::*;
use serde_json::{json, Value};

const EXT: [&str; 4] = ["--backend", "extension", "--connect-timeout", "30"];

/// A second profile beside `sb`'s: its own user-data-dir, the same runtime
/// dir, so its native host reaches the same serves.
fn second_profile(sb: &Sandbox) -> Sandbox {
    let tmp = tempfile::tempdir().expect("tempdir");
    let udd = tmp.path().join("profile");
    std::fs::create_dir_all(&udd).unwrap();
    Sandbox {
        tmp,
        runtime: sb.runtime.clone(),
        udd,
    }
}

/// Waits until `mcp`'s serve has `n` browsers connected.
async fn wait_for_browsers(mcp: &Mcp, n: usize) -> String {
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let status = mcp.ok("browser_status", json!({})).await;
        if status.contains(&format!("Browsers connected: {n}")) {
            return status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never saw {n} browsers:\n{status}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The quoted browser names `browser_tabs list` gives, in its order.
fn browser_names(list: &str) -> Vec<String> {
    let line = list
        .lines()
        .find(|l| l.starts_with("Browsers connected:"))
        .unwrap_or_else(|| panic!("no browser line in:\n{list}"));
    let line = line.split(" (open a tab").next().unwrap_or(line);
    line.split('"')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// The index of the listed tab whose line contains `part`.
fn index_of(list: &str, part: &str) -> usize {
    list.lines()
        .filter(|l| l.starts_with("- "))
        .position(|l| l.contains(part))
        .unwrap_or_else(|| panic!("no tab with {part} in:\n{list}"))
}

fn line_of<'a>(list: &'a str, part: &str) -> &'a str {
    list.lines()
        .find(|l| l.starts_with("- ") && l.contains(part))
        .unwrap_or_else(|| panic!("no tab with {part} in:\n{list}"))
}

async fn list(mcp: &Mcp) -> String {
    mcp.ok("browser_tabs", json!({"action": "list"})).await
}

/// The path of the current tab's page (or the call's error).
async fn path_of_current(mcp: &Mcp) -> Result<String, String> {
    let text = mcp
        .text(
            "browser_evaluate",
            json!({"function": "() => location.pathname"}),
        )
        .await?;
    let quoted = fenced(&text);
    Ok(serde_json::from_str::<String>(&quoted).unwrap_or_else(|_| text.clone()))
}

/// Selects the listed tab showing `part` and checks that tools act there.
async fn drive(mcp: &Mcp, part: &str) {
    let l = list(mcp).await;
    mcp.ok(
        "browser_tabs",
        json!({"action": "select", "index": index_of(&l, part)}),
    )
    .await;
    let path = path_of_current(mcp).await.expect("evaluate in the tab");
    assert!(path.contains(part), "{part}: {path}");
}

/// Tabs of the browser showing a page whose URL contains `part`.
fn shows(b: &PipeChromium, part: &str) -> bool {
    b.call(None, "Target.getTargets", json!({}))
        .expect("Target.getTargets")["targetInfos"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .any(|t| t["type"] == "page" && t["url"].as_str().unwrap_or("").contains(part))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tabs_of_two_profiles_are_listed_and_driven_and_new_tabs_go_where_the_user_said() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let sb2 = second_profile(&sb);
    let site = site::Site::start();
    let first = PipeChromium::launch(&sb, &[]);
    // The user's own extension pages, opened before any agent tab (a tab
    // opened from an agent's tab would be the agent's).
    let options = first.open(&format!("{EXTENSION_ORIGIN}options.html"));
    let mcp = Mcp::start(&sb, "Agent", &EXT).await;
    mcp.ok("browser_navigate", json!({"url": site.url("/page/alpha")}))
        .await;
    assert!(shows(&first, "/page/alpha"));

    // A second profile starts: it is added, the first stays.
    let second = PipeChromium::launch(&sb2, &[]);
    let popup = second.open(&format!("{EXTENSION_ORIGIN}popup.html"));
    let status = wait_for_browsers(&mcp, 2).await;
    eprintln!("{status}");
    let l = list(&mcp).await;
    let names = browser_names(&l);
    assert_eq!(names.len(), 2, "{l}");
    assert_ne!(names[0], names[1], "each profile has its own name: {l}");
    let (a, b) = (names[0].clone(), names[1].clone());
    assert!(
        line_of(&l, "alpha").contains(&format!("(in \"{a}\")")),
        "{l}"
    );
    // The current tab (in the first browser) still works.
    assert_eq!(path_of_current(&mcp).await.unwrap(), "/page/alpha");

    // No mark: new tabs open in the browser connected first.
    assert!(l.contains(&format!("\"{a}\" (new tabs open here)")), "{l}");
    mcp.ok(
        "browser_tabs",
        json!({"action": "new", "url": site.url("/page/beta")}),
    )
    .await;
    assert!(shows(&first, "/page/beta") && !shows(&second, "/page/beta"));

    // The user marks the second browser in its popup.
    page_text(&second, &popup, "the browser's name in the popup", |t| {
        t.contains("Agents open new tabs here") && t.contains(&b)
    })
    .await;
    second
        .eval(&popup, "document.getElementById('new-tabs-here').click()")
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let l = list(&mcp).await;
        if l.contains(&format!("\"{b}\" (new tabs open here)")) {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "mark not seen:\n{l}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    mcp.ok(
        "browser_tabs",
        json!({"action": "new", "url": site.url("/page/gamma")}),
    )
    .await;
    assert!(shows(&second, "/page/gamma") && !shows(&first, "/page/gamma"));
    assert_eq!(path_of_current(&mcp).await.unwrap(), "/page/gamma");

    // `browser` picks the browser; an unknown name is a clear error.
    mcp.ok(
        "browser_tabs",
        json!({"action": "new", "url": site.url("/page/delta"), "browser": a}),
    )
    .await;
    assert!(shows(&first, "/page/delta") && !shows(&second, "/page/delta"));
    let err = mcp
        .text(
            "browser_tabs",
            json!({"action": "new", "browser": "Netscape Navigator"}),
        )
        .await
        .unwrap_err();
    assert!(err.contains(&a) && err.contains(&b), "{err}");

    // Every tab is listed once, labelled, and driven in the right browser.
    let l = list(&mcp).await;
    eprintln!("{l}");
    for (part, browser) in [("alpha", &a), ("beta", &a), ("gamma", &b), ("delta", &a)] {
        assert!(
            line_of(&l, part).contains(&format!("(in \"{browser}\")")),
            "{part}: {l}"
        );
    }
    for part in ["gamma", "alpha", "delta", "beta", "gamma"] {
        drive(&mcp, part).await;
    }
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(snap.contains("gamma"), "{snap}");

    // The user renames the first browser on its options page.
    page_text(&first, &options, "the rename field", |t| t.contains("Name")).await;
    first
        .eval(
            &options,
            "(() => { document.getElementById('browser-label').value = 'Work Chrome'; \
             document.querySelector('button[data-action=rename]').click(); })()",
        )
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let l = list(&mcp).await;
        if line_of(&l, "alpha").contains("(in \"Work Chrome\")") {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "rename not seen:\n{l}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    mcp.ok(
        "browser_tabs",
        json!({"action": "new", "url": site.url("/page/epsilon"), "browser": "work chrome"}),
    )
    .await;
    assert!(shows(&first, "/page/epsilon"));

    // The second browser restarts: same name, and only its handles are void.
    drive(&mcp, "gamma").await;
    drop(popup);
    drop(second);
    wait_for_browsers(&mcp, 1).await;
    let second = PipeChromium::launch(&sb2, &[]);
    wait_for_browsers(&mcp, 2).await;
    let l = list(&mcp).await;
    assert_eq!(
        browser_names(&l),
        vec!["Work Chrome".to_string(), b.clone()],
        "{l}"
    );
    let err = path_of_current(&mcp).await.unwrap_err();
    assert!(err.contains("restarted"), "{err}");
    assert!(!l.contains("gamma"), "{l}");
    drive(&mcp, "alpha").await;
    mcp.ok(
        "browser_tabs",
        json!({"action": "new", "url": site.url("/page/zeta"), "browser": b}),
    )
    .await;
    assert!(shows(&second, "/page/zeta"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_clients_stay_apart_in_both_browsers_and_a_browser_that_quits_voids_only_its_tabs() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let sb2 = second_profile(&sb);
    let site = site::Site::start();
    let first = PipeChromium::launch(&sb, &[]);
    let alice = Mcp::start(&sb, "Alice Agent", &EXT).await;
    let bob = Mcp::start(&sb, "Bob Bot", &EXT).await;
    list(&alice).await;
    let second = PipeChromium::launch(&sb2, &[]);
    let popup = second.open(&format!("{EXTENSION_ORIGIN}popup.html"));
    wait_for_browsers(&alice, 2).await;
    wait_for_browsers(&bob, 2).await;
    let names = browser_names(&list(&alice).await);
    let (a, b) = (names[0].clone(), names[1].clone());

    for (mcp, who) in [(&alice, "alice"), (&bob, "bob")] {
        for browser in [&a, &b] {
            let url = site.url(&format!(
                "/page/{who}-in-{}",
                &browser[browser.len() - 5..browser.len() - 1]
            ));
            mcp.ok(
                "browser_tabs",
                json!({"action": "new", "url": url, "browser": browser}),
            )
            .await;
        }
    }
    let tag = |name: &str| name[name.len() - 5..name.len() - 1].to_string();
    let (ta, tb) = (tag(&a), tag(&b));

    // Each client lists its own two tabs, one per browser, and no other.
    let la = list(&alice).await;
    let lb = list(&bob).await;
    eprintln!("{la}\n{lb}");
    assert!(line_of(&la, &format!("alice-in-{ta}")).contains(&a), "{la}");
    assert!(line_of(&la, &format!("alice-in-{tb}")).contains(&b), "{la}");
    assert!(!la.contains("bob-in"), "{la}");
    assert!(line_of(&lb, &format!("bob-in-{ta}")).contains(&a), "{lb}");
    assert!(line_of(&lb, &format!("bob-in-{tb}")).contains(&b), "{lb}");
    assert!(!lb.contains("alice-in"), "{lb}");

    // browser_status lists both browsers with the client's tabs in each.
    let status = alice.ok("browser_status", json!({})).await;
    assert!(
        status.contains(&format!("\"{a}\"")) && status.contains(&format!("\"{b}\"")),
        "{status}"
    );
    assert_eq!(status.matches(": 1 tab").count(), 2, "{status}");

    // tabwire doctor lists both.
    let home = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(BIN)
        .env_clear()
        .env("HOME", home.path())
        .env("PATH", "/usr/bin:/bin")
        .env("TABWIRE_RUNTIME_DIR", &sb.runtime)
        .env("TABWIRE_DATA_DIR", sb.data_dir())
        .args(["doctor", "--json", "--user-data-dir"])
        .arg(&sb.udd)
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let servers: Vec<&Value> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"].as_str().unwrap_or("").starts_with("server."))
        .collect();
    assert_eq!(servers.len(), 2, "{report:#}");
    for s in &servers {
        let browsers = s["data"]["browsers"].as_array().expect("browsers");
        assert_eq!(browsers.len(), 2, "{s}");
        assert!(browsers.iter().all(|b| b["tabs"] == 1), "{s}");
        let detail = s["detail"].as_str().unwrap();
        assert!(detail.contains(&a) && detail.contains(&b), "{detail}");
    }

    // The user presses Stop all in the second browser's popup: the clients
    // are stopped there only.
    page_text(&second, &popup, "Stop all", |t| t.contains("Stop all")).await;
    second
        .eval(
            &popup,
            "document.querySelector('button[data-action=stop-all]').click()",
        )
        .unwrap();
    drive(&alice, &format!("alice-in-{ta}")).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let status = alice.ok("browser_status", json!({})).await;
        if status.contains("STOPPED by the user here") {
            assert!(!status.starts_with("STOPPED BY THE USER"), "{status}");
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let err = bob
        .text(
            "browser_tabs",
            json!({"action": "new", "url": site.url("/page/refused"), "browser": b}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("stopped by the user"), "{err}");
    // Not stopped in the first browser: new tabs go there now.
    bob.ok(
        "browser_tabs",
        json!({"action": "new", "url": site.url("/page/bob-after-stop")}),
    )
    .await;
    assert!(shows(&first, "/page/bob-after-stop"));
    // The popup shows its Resume button once it has heard of the stop.
    page_text(&second, &popup, "Browser control stopped", |t| {
        t.contains("Browser control stopped")
    })
    .await;
    second
        .eval(
            &popup,
            "document.querySelector('button[data-action=resume-all]').click()",
        )
        .unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    loop {
        let status = bob.ok("browser_status", json!({})).await;
        if !status.contains("STOPPED") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{status}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // Alice works in the first browser, Bob in the second.
    drive(&alice, &format!("alice-in-{ta}")).await;
    drive(&bob, &format!("bob-in-{tb}")).await;

    // The second browser quits.
    drop(popup);
    drop(second);
    wait_for_browsers(&alice, 1).await;

    // Alice's handle (first browser) still works, without listing again.
    assert_eq!(
        path_of_current(&alice).await.unwrap(),
        format!("/page/alice-in-{ta}")
    );
    // Bob's (second browser) is void, and says so.
    let err = path_of_current(&bob).await.unwrap_err();
    assert!(err.contains("no longer connected"), "{err}");
    assert!(err.contains("list"), "{err}");
    // What is left: each client's tabs in the first browser.
    let la = list(&alice).await;
    let lb = list(&bob).await;
    assert!(
        la.contains(&format!("alice-in-{ta}")) && !la.contains(&format!("alice-in-{tb}")),
        "{la}"
    );
    assert!(
        lb.contains(&format!("bob-in-{ta}")) && !lb.contains(&format!("bob-in-{tb}")),
        "{lb}"
    );
    assert!(!la.contains("bob") && !lb.contains("alice"), "{la}\n{lb}");
    drive(&bob, &format!("bob-in-{ta}")).await;
    drop(first);
}
