//! Storage state (issue 44), on both backends, on a real app: Django's
//! admin (PyPI). A sign-in made in the browser is saved with
//! browser_storage_state (a private Playwright storage-state file holding
//! the httpOnly session cookie and the page's localStorage, whose values no
//! answer shows), and a fresh CDP fallback started with
//! `serve --storage-state` opens the admin signed in. Signed out again,
//! browser_set_storage_state signs the same browser back in. Bad files are
//! refused with what is wrong and change nothing: not JSON, a path outside
//! the download directory, a site the policy keeps out, and a bad
//! `--storage-state` stops the server.

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::{json, Value};

on_both_backends!(a_sign_in_saved_opens_signed_in_elsewhere);

const PASSWORD: &str = "state-pw-4821";

fn signed_in(page: &str) -> bool {
    page.contains("Site administration")
}

async fn a_sign_in_saved_opens_signed_in_elsewhere(w: World) {
    let app = apps::django_admin(w.sb.tmp.path(), PASSWORD);
    let downloads = w.sb.tmp.path().join("dl");
    let dl_flag = downloads.display().to_string();
    let mcp = client_with(
        &w,
        "Saver",
        &[
            "--caps".into(),
            "storage".into(),
            "--download-dir".into(),
            dl_flag.clone(),
        ],
    )
    .await;

    // Another site sets a cookie in this tab first (localhost: another
    // host than the admin's 127.0.0.1). When the sign-in is saved only the
    // admin is open, so through the extension that cookie stays in the
    // user's browser; tabwire's own browser saves all it holds.
    let elsewhere = w
        .site
        .url("/set-cookie")
        .replacen("127.0.0.1", "localhost", 1);
    mcp.ok("browser_navigate", json!({"url": elsewhere})).await;

    // Sign in as a person would, and leave something in localStorage.
    let login = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/admin/login/", app.base)}),
        )
        .await;
    let user = find_ref(&login, "textbox", "Username:");
    let pass = find_ref(&login, "textbox", "Password:");
    mcp.ok("browser_type", json!({"target": user, "text": "admin"}))
        .await;
    let after = mcp
        .ok(
            "browser_type",
            json!({"target": pass, "text": PASSWORD, "submit": true}),
        )
        .await;
    let page = mcp.ok("browser_snapshot", json!({})).await;
    assert!(signed_in(&after) || signed_in(&page), "{after}\n{page}");
    eval_json(
        &mcp,
        "() => { localStorage.setItem('tw-theme', 'dark'); return 1 }",
    )
    .await;

    // Saved: a private file, in Playwright's shape, with the session.
    let saved = mcp
        .ok("browser_storage_state", json!({"filename": "admin"}))
        .await;
    let file = downloads.join("admin.json");
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{e}: {saved}"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the file is the user's alone");
    }
    let state: Value = serde_json::from_str(&text).unwrap();
    let session = state["cookies"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "sessionid")
        .unwrap_or_else(|| panic!("the session cookie is saved:\n{text}"));
    assert_eq!(session["httpOnly"], true);
    let other_site = state["cookies"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["domain"] == "localhost");
    match w.via {
        Via::Extension => assert!(!other_site, "only the open tabs' sites: {text}"),
        Via::Cdp => assert!(other_site, "tabwire's own browser saves all: {text}"),
    }
    assert_eq!(session["domain"], "127.0.0.1");
    let origin = state["origins"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["origin"] == app.base.as_str())
        .unwrap_or_else(|| panic!("the admin's origin is listed:\n{text}"));
    assert!(
        origin["localStorage"]
            .as_array()
            .unwrap()
            .iter()
            .any(|i| i["name"] == "tw-theme" && i["value"] == "dark"),
        "{text}"
    );
    let value = session["value"].as_str().unwrap();
    assert!(
        !saved.contains(value),
        "the answer shows no cookie value:\n{saved}"
    );
    assert!(
        saved.contains("httpOnly") && saved.contains("127.0.0.1"),
        "{saved}"
    );
    // Only the sites of the client's tabs leave the user's browser, and
    // the audit log says which.
    let audit = std::fs::read_to_string(w.sb.data_dir().join("audit.log")).unwrap_or_default();
    assert!(
        audit.lines().any(|l| l.contains("browser_storage_state")
            && l.contains("exported_sites")
            && l.contains(&app.base)),
        "{audit}"
    );
    assert!(
        !audit.contains(value),
        "the audit log holds no cookie value"
    );

    // A fresh fallback started with the file opens the admin signed in.
    let fresh_args: Vec<String> = [
        vec!["--backend".to_string(), "cdp".to_string()],
        cdp_launch_args(),
        vec!["--storage-state".into(), file.display().to_string()],
    ]
    .concat();
    let fresh_args: Vec<&str> = fresh_args.iter().map(String::as_str).collect();
    let fresh = Mcp::start(&w.sb, "Fresh", &fresh_args).await;
    let admin = fresh
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/admin/", app.base)}),
        )
        .await;
    assert!(
        signed_in(&admin),
        "the fallback opens the admin signed in:\n{admin}"
    );
    let theme = eval_json(&fresh, "() => localStorage.getItem('tw-theme')").await;
    assert_eq!(theme, json!("dark"));
    drop(fresh);

    // The same file in Playwright (PyPI), and Playwright's own file back
    // into tabwire (below): one format, both ways.
    if w.via == Via::Cdp {
        let saved_by_playwright = downloads.join("playwright.json");
        let report =
            playwright_round_trip(&file, &format!("{}/admin/", app.base), &saved_by_playwright);
        assert!(report.contains("signed in: True"), "{report}");
        mcp.ok("browser_cookies", json!({"action": "clear"})).await;
        let loaded = mcp
            .ok(
                "browser_set_storage_state",
                json!({"filename": "playwright.json"}),
            )
            .await;
        let admin = mcp
            .ok(
                "browser_navigate",
                json!({"url": format!("{}/admin/", app.base)}),
            )
            .await;
        assert!(
            signed_in(&admin),
            "Playwright's file signs tabwire in:\n{loaded}\n{admin}"
        );
    }

    // Signed out in the first browser (the cookies cleared), then signed
    // back in from the file.
    mcp.ok("browser_cookies", json!({"action": "clear"})).await;
    let out = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/admin/", app.base)}),
        )
        .await;
    assert!(!signed_in(&out), "signed out:\n{out}");
    let loaded = mcp
        .ok(
            "browser_set_storage_state",
            json!({"filename": "admin.json"}),
        )
        .await;
    assert!(loaded.contains("cookies on"), "{loaded}");
    let back = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/admin/", app.base)}),
        )
        .await;
    assert!(signed_in(&back), "signed back in:\n{loaded}\n{back}");

    // A state file tabwire did not write (any page can put one in the
    // download directory) loads into tabwire's own browser, never into
    // the user's.
    std::fs::copy(&file, downloads.join("planted.json")).unwrap();
    let planted = mcp
        .text(
            "browser_set_storage_state",
            json!({"filename": "planted.json"}),
        )
        .await;
    match w.via {
        Via::Extension => {
            let refused = planted.expect_err("a planted file is refused in the user's browser");
            assert!(refused.contains("tabwire saved"), "{refused}");
        }
        Via::Cdp => {
            planted.expect("tabwire's own browser loads any state file");
        }
    }

    // Bad files are refused and change nothing.
    std::fs::write(downloads.join("broken.json"), "{\"cookies\": 3}").unwrap();
    let broken = refusal(
        &mcp,
        "browser_set_storage_state",
        json!({"filename": "broken.json"}),
        "a file that is not a storage state is refused",
    )
    .await;
    assert!(broken.contains("not a storage-state file"), "{broken}");
    let outside = w.sb.tmp.path().join("outside.json");
    std::fs::copy(&file, &outside).unwrap();
    let refused = refusal(
        &mcp,
        "browser_set_storage_state",
        json!({"filename": outside.display().to_string()}),
        "a file outside the download directory is refused",
    )
    .await;
    assert!(
        refused.contains("outside the download directory"),
        "{refused}"
    );
    let escape = refusal(
        &mcp,
        "browser_storage_state",
        json!({"filename": outside.display().to_string()}),
        "saving outside the download directory is refused",
    )
    .await;
    assert!(
        escape.contains("only in the download directory"),
        "{escape}"
    );
    let still = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/admin/", app.base)}),
        )
        .await;
    assert!(
        signed_in(&still),
        "a refused file changed nothing:\n{still}"
    );
}

/// A file naming a site the policy keeps out is refused whole: nothing of
/// it is loaded, and the refusal names the site.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_for_a_blocked_site_is_refused_whole() {
    let _serial = common::BROWSER_LOCK.lock().await;
    let w = world(Via::Cdp);
    let downloads = w.sb.tmp.path().join("dl");
    std::fs::create_dir_all(&downloads).unwrap();
    let site = w.site.url("");
    let origin = site.trim_end_matches('/');
    std::fs::write(
        downloads.join("mixed.json"),
        json!({
            "cookies": [
                {"name": "ok", "value": "1", "domain": "127.0.0.1", "path": "/", "expires": -1,
                 "httpOnly": false, "secure": false, "sameSite": "Lax"},
                {"name": "bad", "value": "2", "domain": "blocked.example", "path": "/",
                 "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"}
            ],
            "origins": [{"origin": origin, "localStorage": []}]
        })
        .to_string(),
    )
    .unwrap();
    let mcp = client_with(
        &w,
        "Blocked",
        &[
            "--caps".into(),
            "storage".into(),
            "--download-dir".into(),
            downloads.display().to_string(),
            "--deny-domain".into(),
            "blocked.example".into(),
        ],
    )
    .await;
    let refused = refusal(
        &mcp,
        "browser_set_storage_state",
        json!({"filename": "mixed.json"}),
        "a blocked site in the file refuses it whole",
    )
    .await;
    assert!(
        refused.contains("blocked.example") && refused.contains("nothing was loaded"),
        "{refused}"
    );
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/batch-form.html")}),
    )
    .await;
    let cookies = mcp.ok("browser_cookies", json!({"action": "list"})).await;
    assert!(!cookies.contains("ok="), "nothing was loaded:\n{cookies}");
}

/// `serve --storage-state` with a file that is not one stops the server
/// before it starts, saying what is wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_storage_state_flag_stops_the_server() {
    let sb = common::Sandbox::new();
    let file = sb.tmp.path().join("state.json");
    std::fs::write(
        &file,
        r#"{"cookies": [], "origins": [{"origin": "https://x.example/path", "localStorage": []}]}"#,
    )
    .unwrap();
    let err = common::serve_refuses(&sb, "--storage-state", &file);
    assert!(
        err.contains("--storage-state") && err.contains("not an origin"),
        "{err}"
    );
}

/// Opens `url` in Playwright (Python, from PyPI; this machine's Chromium)
/// with the storage state `file`, then saves Playwright's own state to
/// `out`; Playwright's report.
fn playwright_round_trip(file: &std::path::Path, url: &str, out: &std::path::Path) -> String {
    let script = format!(
        "from playwright.sync_api import sync_playwright\n\
         with sync_playwright() as p:\n    \
         b = p.chromium.launch(executable_path={chromium:?}, args=['--no-sandbox'])\n    \
         ctx = b.new_context(storage_state={file:?})\n    \
         page = ctx.new_page()\n    \
         page.goto({url:?})\n    \
         print('signed in:', 'Site administration' in page.content())\n    \
         ctx.storage_state(path={out:?})\n    \
         b.close()\n",
        chromium = chromium_path().display().to_string(),
        file = file.display().to_string(),
        out = out.display().to_string(),
    );
    let run = std::process::Command::new("python3")
        .args(["-c", &script])
        .output()
        .expect("python3 runs");
    format!(
        "{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    )
}

/// The error text of a `tool` call that must be refused (`why`: what the
/// refusal is for, said if the call succeeds instead).
async fn refusal(mcp: &Mcp, tool: &str, args: Value, why: &str) -> String {
    mcp.text(tool, args).await.expect_err(why)
}
