//! Passkeys (issue 44) on a real passkey site: django-otp-webauthn (PyPI).
//! The CDP fallback started with `--virtual-authenticator` registers a
//! passkey through the site's own "Register Passkey" button and signs in
//! with it after signing out; browser_storage_state saves the passkey (no
//! key in the answer); a fresh fallback started with that file signs in
//! with the passkey alone, and one without it cannot. Through the
//! extension, the user's browser keeps its own authenticators: a file's
//! passkeys are not loaded there, and the answer says so.

#[macro_use]
mod common;

use common::world::*;
use common::*;
use serde_json::{json, Value};

fn cdp_args(extra: &[&str]) -> Vec<String> {
    [
        vec!["--backend".to_string(), "cdp".to_string()],
        cdp_launch_args(),
        extra.iter().map(|s| s.to_string()).collect(),
    ]
    .concat()
}

async fn start(sb: &Sandbox, name: &str, extra: &[&str]) -> Mcp {
    let args = cdp_args(extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Mcp::start(sb, name, &args).await
}

async fn click(mcp: &Mcp, name: &str) -> String {
    let snap = snapshot_with(mcp, name, 15).await;
    let target = find_ref(&snap, "button", name);
    mcp.ok("browser_click", json!({"target": target})).await
}

/// Signs in with the site's passkey button; the home page's text after.
async fn passkey_sign_in(mcp: &Mcp, site: &str) -> String {
    mcp.ok(
        "browser_navigate",
        json!({"url": format!("{site}/accounts/login/")}),
    )
    .await;
    click(mcp, "Login using a Passkey").await;
    let _ = mcp
        .text(
            "browser_wait_for",
            json!({"text": "Signed in as alice", "timeout": 10}),
        )
        .await;
    mcp.ok("browser_get_text", json!({})).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_passkey_made_in_one_browser_signs_in_in_another() {
    let _serial = BROWSER_LOCK.lock().await;
    let sb = Sandbox::new();
    let app = apps::passkeys(sb.tmp.path());
    let site = apps::on_localhost(&app.base);
    let downloads = sb.tmp.path().join("dl");
    let dl = downloads.display().to_string();
    let mcp = start(
        &sb,
        "Registrar",
        &[
            "--virtual-authenticator",
            "--caps",
            "storage",
            "--download-dir",
            &dl,
        ],
    )
    .await;

    // Signed in with the password, a passkey is registered on the site.
    let login = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{site}/accounts/login/")}),
        )
        .await;
    let user = find_ref(&login, "textbox", "Username");
    let pass = find_ref(&login, "textbox", "Password");
    mcp.ok("browser_type", json!({"target": user, "text": "alice"}))
        .await;
    mcp.ok(
        "browser_type",
        json!({"target": pass, "text": "alice-pass-1234", "submit": true}),
    )
    .await;
    click(&mcp, "Register Passkey").await;
    let registered = mcp
        .text(
            "browser_wait_for",
            json!({"text": "Registration successful!", "timeout": 10}),
        )
        .await;
    assert!(registered.is_ok(), "{registered:?}");

    // Signed out, the passkey signs in again.
    click(&mcp, "Sign out").await;
    let home = passkey_sign_in(&mcp, &site).await;
    assert!(home.contains("Signed in as alice"), "{home}");

    // Saved with the sign-in: the key in the file, not in the answer.
    let saved = mcp
        .ok("browser_storage_state", json!({"filename": "alice"}))
        .await;
    assert!(saved.contains("1 passkey(s)"), "{saved}");
    let file = downloads.join("alice.json");
    let state: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let key = &state["passkeys"][0];
    assert_eq!(key["rpId"], "localhost", "{state}");
    let private = key["privateKey"].as_str().unwrap();
    assert!(
        !saved.contains(private),
        "the answer shows no key:\n{saved}"
    );
    assert!(
        key["signCount"].as_u64().unwrap_or(0) >= 2,
        "the counter after the sign-in is saved: {key}"
    );
    drop(mcp);

    // A fresh browser with the file: signed out first (the session cookie
    // came along), then signed in by the passkey alone.
    let file_arg = file.display().to_string();
    let fresh = start(&sb, "Fresh", &["--storage-state", &file_arg]).await;
    fresh
        .ok("browser_navigate", json!({"url": format!("{site}/")}))
        .await;
    click(&fresh, "Sign out").await;
    let out = fresh.ok("browser_get_text", json!({})).await;
    assert!(out.contains("Not signed in"), "{out}");
    let home = passkey_sign_in(&fresh, &site).await;
    assert!(
        home.contains("Signed in as alice"),
        "the saved passkey signs in:\n{home}"
    );
    drop(fresh);

    // Without the file, an authenticator has no passkey for the site.
    let bare = start(&sb, "Bare", &["--virtual-authenticator"]).await;
    bare.ok(
        "browser_navigate",
        json!({"url": format!("{site}/accounts/login/")}),
    )
    .await;
    click(&bare, "Login using a Passkey").await;
    let failed = bare
        .text(
            "browser_wait_for",
            json!({"text": "Verification canceled or not allowed.", "timeout": 10}),
        )
        .await;
    assert!(failed.is_ok(), "no passkey, no sign-in: {failed:?}");
}

/// Through the extension a file's passkeys are not loaded into the user's
/// browser (its own authenticators hold its passkeys), and the answer
/// says so; the file's cookies are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_users_browser_keeps_its_own_passkeys() {
    let _serial = BROWSER_LOCK.lock().await;
    let w = world(Via::Extension);
    // In an upload directory: a file the user chose (see provenance).
    let uploads = w.sb.tmp.path().join("up");
    std::fs::create_dir_all(&uploads).unwrap();
    let origin = w.site.url("").trim_end_matches('/').to_string();
    let keyed = uploads.join("keyed.json");
    std::fs::write(
        &keyed,
        json!({
            "cookies": [{"name": "kept", "value": "1", "domain": "127.0.0.1", "path": "/",
                         "expires": -1, "httpOnly": false, "secure": false, "sameSite": "Lax"}],
            "origins": [{"origin": origin, "localStorage": []}],
            "passkeys": [{"credentialId": "AAAA", "rpId": "localhost", "privateKey": "BBBB",
                          "isResidentCredential": true, "signCount": 1}]
        })
        .to_string(),
    )
    .unwrap();
    let mcp = client_with(
        &w,
        "Keeper",
        &[
            "--caps".into(),
            "storage".into(),
            "--upload-dir".into(),
            uploads.display().to_string(),
        ],
    )
    .await;
    let loaded = mcp
        .ok(
            "browser_set_storage_state",
            json!({"filename": keyed.display().to_string()}),
        )
        .await;
    assert!(
        loaded.contains("1 passkey(s) were not loaded") && loaded.contains("1 cookies on"),
        "{loaded}"
    );
    mcp.ok(
        "browser_navigate",
        json!({"url": w.site.url("/pages/batch-form.html")}),
    )
    .await;
    let cookies = mcp.ok("browser_cookies", json!({"action": "list"})).await;
    assert!(cookies.contains("kept=1"), "{cookies}");
}
