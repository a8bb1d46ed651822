//! Named secrets (issue 44), on both backends, on a real app: Django's
//! admin (PyPI) signed in by secret name (the user name is typed as it
//! is: a word on the page would be masked everywhere it appears). The password's value and its
//! encodings reach no answer of any tool the test calls; a field that
//! received a secret reads as `<secret NAME>`; a secret bound to the
//! admin's origin is refused on another origin and in a frame of another
//! origin inside the admin's tab, by name, and nothing is typed there. A bad secrets file stops the server with its line.

#[macro_use]
mod common;

use base64::Engine as _;
use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(signing_in_by_secret_name_shows_no_secret);

const PASSWORD: &str = "tw S3cret&<pw>";

/// The password and the forms it is encoded in on the way out.
fn forms() -> Vec<String> {
    vec![
        PASSWORD.to_string(),
        "tw%20S3cret%26%3Cpw%3E".into(),
        "tw+S3cret%26%3Cpw%3E".into(),
        base64::engine::general_purpose::STANDARD.encode(PASSWORD),
        "tw S3cret&amp;&lt;pw&gt;".into(),
        "S3cret".into(),
    ]
}

fn assert_clean(tool: &str, answer: &str) {
    for f in forms() {
        assert!(
            !answer.contains(&f),
            "{tool} answered with the password (as {f:?}):\n{answer}"
        );
    }
}

/// The ref of the first textbox among snapshot `lines`.
fn first_textbox<'a>(lines: impl Iterator<Item = &'a str>) -> Option<String> {
    lines
        .filter(|l| l.contains("textbox"))
        .find_map(|l| Some(l.split("[ref=").nth(1)?.split(']').next()?.to_string()))
}

async fn signing_in_by_secret_name_shows_no_secret(w: World) {
    let app = apps::django_admin(w.sb.tmp.path(), PASSWORD);
    let file = w.sb.tmp.path().join("secrets.env");
    std::fs::write(
        &file,
        format!(
            "API_TOKEN=tok-1234567890\nADMIN_PASSWORD=\"{PASSWORD}\"\nADMIN_PASSWORD.origins={}\n",
            app.base
        ),
    )
    .unwrap();
    let downloads = w.sb.tmp.path().join("dl");
    let mcp = client_with(
        &w,
        "Signer",
        &[
            "--secrets".into(),
            file.display().to_string(),
            "--caps".into(),
            "network".into(),
            "--download-dir".into(),
            downloads.display().to_string(),
        ],
    )
    .await;
    let mut answers = Vec::new();

    // Another origin: the bound secret is refused by name, nothing typed.
    let other = mcp
        .ok(
            "browser_navigate",
            json!({"url": w.site.url("/pages/batch-form.html")}),
        )
        .await;
    let field = first_textbox(other.lines()).expect("a textbox on the form");
    let refused = mcp
        .text(
            "browser_type",
            json!({"target": field, "text": "ADMIN_PASSWORD"}),
        )
        .await
        .expect_err("typing a bound secret on another origin is refused");
    assert!(
        refused.contains("ADMIN_PASSWORD") && refused.contains(&app.base),
        "{refused}"
    );
    answers.push(("refusal", refused));
    let value = mcp
        .ok(
            "browser_evaluate",
            json!({"function": "() => document.querySelector('[aria-ref], input')?.value ?? ''"}),
        )
        .await;
    assert!(!value.contains("ADMIN_PASSWORD"), "{value}");

    // A frame of another origin in the admin's own tab: the frame that
    // gets the text decides, not the tab's URL.
    mcp.ok(
        "browser_navigate",
        json!({"url": format!("{}/admin/login/", app.base)}),
    )
    .await;
    let framed = mcp
        .ok(
            "browser_evaluate",
            json!({"function": format!(
                "() => new Promise(done => {{ const f = document.createElement('iframe'); \
                 f.src = {:?}; f.style.cssText = 'width:600px;height:400px'; f.onload = () => done(true); \
                 document.body.prepend(f); }})",
                w.site.url("/pages/batch-form.html")
            )}),
        )
        .await;
    assert!(framed.contains("true"), "{framed}");
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let in_frame = first_textbox(snap.lines().skip_while(|l| !l.contains("Iframe")))
        .unwrap_or_else(|| panic!("a textbox inside the frame:\n{snap}"));
    let refused = mcp
        .text(
            "browser_type",
            json!({"target": in_frame, "text": "ADMIN_PASSWORD"}),
        )
        .await
        .expect_err("typing a bound secret into a frame of another origin is refused");
    assert!(
        refused.contains("ADMIN_PASSWORD") && refused.contains(&w.site.url("")),
        "{refused}"
    );
    answers.push(("refusal in a frame", refused));

    // The admin: the user name, then the password with Enter.
    let login = mcp
        .ok(
            "browser_navigate",
            json!({"url": format!("{}/admin/login/", app.base)}),
        )
        .await;
    let user = find_ref(&login, "textbox", "Username:");
    let pass = find_ref(&login, "textbox", "Password:");
    answers.push((
        "type user",
        mcp.ok("browser_type", json!({"target": user, "text": "admin"}))
            .await,
    ));
    let typed = mcp
        .ok(
            "browser_type",
            json!({"target": pass, "text": "ADMIN_PASSWORD"}),
        )
        .await;
    assert!(typed.contains("Typed the secret ADMIN_PASSWORD"), "{typed}");
    assert!(!typed.contains("does not hold"), "{typed}");
    answers.push(("type password", typed));
    // Read back in every way a tool reads a field.
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(
        snap.contains("textbox \"Password:\" [required] [ref=")
            && snap.contains(": <secret ADMIN_PASSWORD>"),
        "{snap}"
    );
    answers.push(("snapshot", snap));
    let read = mcp
        .ok(
            "browser_evaluate",
            json!({"function": "() => document.querySelector('#id_password').value"}),
        )
        .await;
    assert!(read.contains("<secret ADMIN_PASSWORD>"), "{read}");
    answers.push(("evaluate", read));
    // A secret typed into a plain text field reads as its name.
    mcp.ok(
        "browser_type",
        json!({"target": user, "text": "ADMIN_PASSWORD"}),
    )
    .await;
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(
        snap.contains("textbox \"Username:\"") && snap.contains("<secret ADMIN_PASSWORD>"),
        "{snap}"
    );
    answers.push(("snapshot of a plain field", snap));
    mcp.ok("browser_type", json!({"target": user, "text": "admin"}))
        .await;
    let signed_in = mcp
        .ok(
            "browser_type",
            json!({"target": pass, "text": "ADMIN_PASSWORD", "submit": true}),
        )
        .await;
    answers.push(("sign in", signed_in.clone()));
    let page = mcp.ok("browser_snapshot", json!({})).await;
    assert!(
        page.contains("Site administration") || signed_in.contains("Site administration"),
        "signed in:\n{signed_in}\n{page}"
    );
    answers.push(("signed in", page));
    for tool in [
        "browser_get_text",
        "browser_get_html",
        "browser_console_messages",
        "browser_network_requests",
    ] {
        answers.push((tool, mcp.ok(tool, json!({})).await));
    }
    for (tool, answer) in &answers {
        assert_clean(tool, answer);
    }
    // A file written for the model: the HAR of the sign-in holds the
    // form's body, with the password masked.
    mcp.ok(
        "browser_network_har",
        json!({"filename": "signin", "all": true}),
    )
    .await;
    let har = std::fs::read_to_string(downloads.join("signin.har")).unwrap();
    assert!(
        har.contains("<secret ADMIN_PASSWORD>"),
        "the HAR holds the sign-in's body"
    );
    assert_clean("the HAR", &har);
    // browser_status names the secrets, never their values.
    let status = mcp.ok("browser_status", json!({})).await;
    assert!(
        status.contains("named secrets (type one by its name): API_TOKEN, ADMIN_PASSWORD"),
        "{status}"
    );
    assert_clean("browser_status", &status);
    // The audit log holds names, never the value.
    let audit = std::fs::read_to_string(w.sb.data_dir().join("audit.log")).unwrap_or_default();
    assert!(
        audit.contains("ADMIN_PASSWORD"),
        "the audit log records the call"
    );
    assert_clean("the audit log", &audit);
}

/// A secrets file with a duplicate name stops the server, naming the line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_secrets_file_stops_the_server_with_its_line() {
    let sb = common::Sandbox::new();
    let file = sb.tmp.path().join("bad.env");
    std::fs::write(&file, "A=abcd\nA=efgh\n").unwrap();
    let err = common::serve_refuses(&sb, "--secrets", &file);
    assert!(err.contains("line 2: A is defined twice"), "{err}");
}
