//! The `testing` group (`serve --caps testing`) on both backends: the
//! verify tools pass on what a person sees and fail (with why) on what is
//! only in the markup; locators are by role and name, say when they are
//! not unique; a session (navigate, type into a labelled field, tick, pick,
//! click, verify) exported as a Playwright test holds no refs and passes
//! under Playwright against the same site (and an altered copy fails);
//! and the same on a real documentation theme (mkdocs-material). The
//! Python export passes under pytest-playwright too.
//!
//! Running the exported tests needs Node.js and npm: the test installs
//! `@playwright/test` (no browser download) into a cache directory
//! (TABWIRE_PLAYWRIGHT_DIR, else the target dir) and runs it with the
//! test Chromium. The real-page scenario needs `python3 -m mkdocs`
//! (`pip install mkdocs-material`), the Python run `pytest-playwright`
//! (`pip install pytest-playwright`; no browser download either).

#[macro_use]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::docs_site::{self, DocsSite};
use common::world::*;
use common::*;
use serde_json::json;

on_both_backends!(
    verify_locate_and_export_a_session,
    a_real_docs_page_as_a_test
);

/// The @playwright/test version the exported tests run under.
const PLAYWRIGHT: &str = "1.65.1";

async fn testing_client(w: &World, name: &str) -> Mcp {
    client_with(w, name, &["--caps".into(), "testing".into()]).await
}

async fn verify_locate_and_export_a_session(w: World) {
    // Off by default.
    let plain = client(&w, "plain").await;
    let listed = plain.client.list_all_tools().await.unwrap();
    assert!(!listed.iter().any(|t| t.name.starts_with("browser_verify")));
    drop(plain);

    let mcp = testing_client(&w, "tester").await;
    let listed = mcp.client.list_all_tools().await.unwrap();
    for name in [
        "browser_verify_text_visible",
        "browser_verify_element_visible",
        "browser_verify_value",
        "browser_generate_locator",
        "browser_export_test",
    ] {
        assert!(listed.iter().any(|t| t.name == name), "{name} not listed");
    }
    let url = w.site.url("/pages/testing.html");
    mcp.ok("browser_navigate", json!({ "url": url })).await;

    // Text: what a person sees passes; what only the markup holds fails.
    let ok = mcp
        .ok("browser_verify_text_visible", json!({"text": "Greeter"}))
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
    for hidden in ["Secret coupon", "Clear words"] {
        let err = mcp
            .text("browser_verify_text_visible", json!({ "text": hidden }))
            .await
            .unwrap_err();
        assert!(
            err.contains("FAIL") && err.contains("a person cannot see it"),
            "{err}"
        );
    }
    let err = mcp
        .text("browser_verify_text_visible", json!({"text": "greeter"}))
        .await
        .unwrap_err();
    assert!(
        err.contains("FAIL") && err.contains("other upper/lower case"),
        "{err}"
    );
    let err = mcp
        .text("browser_verify_text_visible", json!({"text": "Goodbye"}))
        .await
        .unwrap_err();
    assert!(
        err.contains("FAIL") && err.contains("Nothing on the page"),
        "{err}"
    );

    // Elements by role and exact name.
    let ok = mcp
        .ok(
            "browser_verify_element_visible",
            json!({"role": "heading", "accessibleName": "Greeter"}),
        )
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
    let err = mcp
        .text(
            "browser_verify_element_visible",
            json!({"role": "button", "accessibleName": "Hidden action"}),
        )
        .await
        .unwrap_err();
    assert!(
        err.contains("FAIL") && err.contains("1 button named so exist but a person cannot see"),
        "{err}"
    );
    let err = mcp
        .text(
            "browser_verify_element_visible",
            json!({"role": "button", "accessibleName": "Sen"}),
        )
        .await
        .unwrap_err();
    assert!(err.contains("FAIL") && err.contains("\"Send\""), "{err}");

    // Locators: role and name; not unique said so; a test id.
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let name_ref = find_ref(&snap, "textbox", "Your name");
    let send_ref = find_ref(&snap, "button", "Send");
    let delete_ref = find_ref(&snap, "button", "Delete");
    let out = mcp
        .ok("browser_generate_locator", json!({"target": send_ref}))
        .await;
    assert!(
        out.contains("page.getByRole('button', { name: 'Send' })")
            && out.contains("page.get_by_role(\"button\", name=\"Send\")")
            && out.contains("matches exactly this element"),
        "{out}"
    );
    let out = mcp
        .ok("browser_generate_locator", json!({"target": delete_ref}))
        .await;
    assert!(
        out.contains("page.getByRole('button', { name: 'Delete' }).nth(0)")
            && out.contains("Not unique")
            && out.contains("2 elements"),
        "{out}"
    );
    let out = mcp
        .ok(
            "browser_generate_locator",
            json!({"target": "[data-testid=promo]"}),
        )
        .await;
    assert!(out.contains("page.getByTestId('promo')"), "{out}");

    // The session: type, tick, pick, send, check.
    mcp.ok("browser_type", json!({"target": name_ref, "text": "Ada"}))
        .await;
    mcp.ok("browser_click", json!({"target": "#news"})).await;
    mcp.ok(
        "browser_select_option",
        json!({"target": "#size", "values": ["Medium"]}),
    )
    .await;
    mcp.ok("browser_click", json!({ "target": send_ref })).await;
    let ok = mcp
        .ok(
            "browser_verify_text_visible",
            json!({"text": "Hello, Ada!"}),
        )
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
    for (target, value) in [
        (name_ref.as_str(), "Ada"),
        ("#news", "true"),
        ("#size", "Medium"),
    ] {
        let ok = mcp
            .ok(
                "browser_verify_value",
                json!({"target": target, "value": value}),
            )
            .await;
        assert!(ok.starts_with("PASS"), "{target}: {ok}");
    }
    let err = mcp
        .text(
            "browser_verify_value",
            json!({"target": name_ref, "value": "Bob"}),
        )
        .await
        .unwrap_err();
    assert!(
        err.contains("FAIL") && common::plain(&err).contains("holds \"Ada\""),
        "{err}"
    );
    let err = mcp
        .text(
            "browser_verify_value",
            json!({"target": "#news", "value": "false"}),
        )
        .await
        .unwrap_err();
    assert!(
        err.contains("FAIL") && err.contains("holds checked"),
        "{err}"
    );
    // A failed action is not part of the test.
    mcp.text("browser_click", json!({"target": "#nowhere"}))
        .await
        .unwrap_err();

    // Exported: no refs, role and name locators, the checks that held.
    let out = mcp
        .ok("browser_export_test", json!({"title": "greets by name"}))
        .await;
    let code = fenced(&out);
    for r in [&name_ref, &send_ref, &delete_ref] {
        assert!(
            !code.contains(&format!("'{r}'")),
            "a ref in the test: {code}"
        );
    }
    assert!(!code.contains("nowhere") && !code.contains("Bob"), "{code}");
    for line in [
        format!("await page.goto('{url}');"),
        "await page.getByRole('textbox', { name: 'Your name' }).fill('Ada');".into(),
        "await page.getByRole('checkbox', { name: 'Send me news' }).click();".into(),
        "await page.getByRole('combobox', { name: 'Size' }).selectOption('Medium');".into(),
        "await page.getByRole('button', { name: 'Send' }).click();".into(),
        "await expect(page.getByText('Hello, Ada!').filter({ visible: true }).first()).toBeVisible();".into(),
        "await expect(page.getByRole('heading', { name: 'Greeter', exact: true }).first()).toBeVisible();".into(),
        "await expect(page.getByRole('textbox', { name: 'Your name' })).toHaveValue('Ada');".into(),
        "await expect(page.getByRole('checkbox', { name: 'Send me news' })).toBeChecked();".into(),
        "await expect(page.getByRole('combobox', { name: 'Size' })).toHaveValue('m');".into(),
    ] {
        assert!(code.contains(&line), "missing {line:?} in:\n{code}");
    }
    // Saved where the policy keeps downloads, the same text.
    let saved = saved_path(&out);
    assert_eq!(std::fs::read_to_string(&saved).unwrap().trim_end(), code);

    // Playwright runs it against the same site: it passes; a copy that
    // expects another greeting fails, so the run does check.
    run_playwright(&code).unwrap_or_else(|e| panic!("the exported test failed:\n{e}\n{code}"));
    let altered = code.replace("Hello, Ada!", "Hello, Bob!");
    assert!(
        run_playwright(&altered).is_err(),
        "an altered test passed too"
    );

    // Python: the same steps, valid syntax.
    let out = mcp
        .ok(
            "browser_export_test",
            json!({"language": "python", "title": "greets by name"}),
        )
        .await;
    let py = fenced(&out);
    assert!(
        py.contains("def test_greets_by_name(page: Page) -> None:")
            && py.contains("page.get_by_role(\"button\", name=\"Send\").click()")
            && py.contains(
                "expect(page.get_by_role(\"combobox\", name=\"Size\")).to_have_value(\"m\")"
            ),
        "{py}"
    );
    // pytest-playwright runs it against the same site: it passes, and a
    // copy that expects another greeting fails.
    run_pytest(&py).unwrap_or_else(|e| panic!("the exported Python test failed:\n{e}\n{py}"));
    assert!(
        run_pytest(&py.replace("Hello, Ada!", "Hello, Bob!")).is_err(),
        "an altered Python test passed too"
    );

    // A name is judged by the page as it is now, not as the last snapshot
    // saw it: a part of the heading hidden then and shown since counts.
    mcp.ok(
        "browser_evaluate",
        json!({"function": "() => { const s = document.createElement('span'); s.id = 'later'; s.hidden = true; s.textContent = ' and friends'; document.querySelector('h1').append(s); }"}),
    )
    .await;
    mcp.ok("browser_snapshot", json!({})).await;
    mcp.ok(
        "browser_evaluate",
        json!({"function": "() => { document.getElementById('later').hidden = false; }"}),
    )
    .await;
    let out = mcp
        .ok("browser_generate_locator", json!({"target": "h1"}))
        .await;
    assert!(
        out.contains("page.getByRole('heading', { name: 'Greeter and friends' })"),
        "{out}"
    );
    let ok = mcp
        .ok(
            "browser_verify_element_visible",
            json!({"role": "heading", "accessibleName": "Greeter and friends"}),
        )
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
}

async fn a_real_docs_page_as_a_test(w: World) {
    let site = build_docs(&w.sb.tmp.path().join("mkdocs"));
    let mcp = testing_client(&w, "docs tester").await;
    let home = format!("{}/", site.base);
    mcp.ok("browser_navigate", json!({ "url": home })).await;
    mcp.ok("browser_resize", json!({"width": 1280, "height": 800}))
        .await;
    let ok = mcp
        .ok(
            "browser_verify_element_visible",
            json!({"role": "heading", "accessibleName": "Welcome"}),
        )
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
    let ok = mcp
        .ok(
            "browser_verify_element_visible",
            json!({"role": "textbox", "accessibleName": "Search"}),
        )
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    let guide = find_ref(&snap, "link", "Field guide");
    let out = mcp
        .ok("browser_generate_locator", json!({"target": guide}))
        .await;
    assert!(
        out.contains("page.getByRole('link', { name: 'Field guide'"),
        "{out}"
    );
    mcp.ok("browser_click", json!({ "target": guide })).await;
    let ok = mcp
        .ok(
            "browser_verify_text_visible",
            json!({"text": "Anemones and crabs."}),
        )
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
    let ok = mcp
        .ok(
            "browser_verify_element_visible",
            json!({"role": "heading", "accessibleName": "Field guide"}),
        )
        .await;
    assert!(ok.starts_with("PASS"), "{ok}");
    let out = mcp
        .ok("browser_export_test", json!({"title": "opens the guide"}))
        .await;
    let code = fenced(&out);
    assert!(
        code.contains("getByRole('link', { name: 'Field guide'"),
        "{code}"
    );
    run_playwright(&code).unwrap_or_else(|e| panic!("the exported test failed:\n{e}\n{code}"));
}

/// The saved file an export names ("Saved <path> (N bytes, …)").
fn saved_path(answer: &str) -> PathBuf {
    let answer = &plain(answer);
    let line = answer
        .lines()
        .find_map(|l| l.strip_prefix("Saved "))
        .unwrap_or_else(|| panic!("no saved file: {answer}"));
    PathBuf::from(&line[..line.rfind(" (").unwrap()])
}

/// A directory holding node_modules/@playwright/test, installed once
/// (without browsers: the tests use the test Chromium).
fn playwright_dir() -> PathBuf {
    let dir = std::env::var_os("TABWIRE_PLAYWRIGHT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("playwright"));
    let marker = dir.join("node_modules/@playwright/test/package.json");
    let wanted = format!("\"version\": \"{PLAYWRIGHT}\"");
    if std::fs::read_to_string(&marker).is_ok_and(|p| p.contains(&wanted)) {
        return dir;
    }
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(&dir)
        .arg(format!("@playwright/test@{PLAYWRIGHT}"))
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .output()
        .unwrap_or_else(|e| {
            panic!("running the exported tests needs Node.js and npm ({e}); install them")
        });
    assert!(
        out.status.success() && marker.exists(),
        "could not install @playwright/test@{PLAYWRIGHT} into {} (npm needs the registry; or set \
         TABWIRE_PLAYWRIGHT_DIR to a directory where it is installed): {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    dir
}

/// Runs a TypeScript test under Playwright with the test Chromium: Ok, or
/// Err with Playwright's report.
fn run_playwright(code: &str) -> Result<(), String> {
    let dir = playwright_dir();
    let run = tempfile::Builder::new()
        .prefix("run-")
        .tempdir_in(&dir)
        .unwrap();
    std::fs::write(run.path().join("exported.spec.ts"), code).unwrap();
    // An expect waits up to 15 s, not Playwright's 5: on this 2-core
    // machine, under the rest of the suite, Material for MkDocs once took
    // longer than 5 s to show the page a click opened (the exported code is
    // the same either way).
    let config = format!(
        "module.exports = {{ testDir: '.', timeout: 30000, expect: {{ timeout: 15000 }}, \
         reporter: 'line', workers: 1, use: {{ headless: true, launchOptions: {{ executablePath: {:?}, args: ['--no-sandbox'] }} }} }};\n",
        chromium_path().display().to_string()
    );
    std::fs::write(run.path().join("playwright.config.js"), config).unwrap();
    let out = Command::new("node")
        .arg(dir.join("node_modules/@playwright/test/cli.js"))
        .args(["test", "--config", "playwright.config.js"])
        .current_dir(run.path())
        .env("CI", "1")
        .output()
        .expect("node runs");
    one_passed(&out)
}

/// Runs an exported Python test with pytest-playwright (from PyPI; .ci/run
/// installs it) on this machine's Chromium; Ok when it passed.
fn run_pytest(code: &str) -> Result<(), String> {
    let run = tempfile::Builder::new()
        .prefix("pytest-")
        .tempdir_in(playwright_dir())
        .unwrap();
    std::fs::write(run.path().join("test_exported.py"), code).unwrap();
    // The browser is the apt one: pytest-playwright never downloads one.
    let conftest = format!(
        "import pytest\n\n\n@pytest.fixture(scope=\"session\")\n\
         def browser_type_launch_args(browser_type_launch_args):\n    \
         return {{**browser_type_launch_args, \"executable_path\": {:?}, \"args\": [\"--no-sandbox\"]}}\n",
        chromium_path().display().to_string()
    );
    std::fs::write(run.path().join("conftest.py"), conftest).unwrap();
    let out = Command::new("python3")
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "test_exported.py",
        ])
        .current_dir(run.path())
        .output()
        .expect("python3 runs");
    one_passed(&out)
}

/// Ok when a test runner's output says its one test passed; else its
/// output.
fn one_passed(out: &std::process::Output) -> Result<(), String> {
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if out.status.success() && report.contains("1 passed") {
        Ok(())
    } else {
        Err(report)
    }
}

/// The guide site: three pages.
fn build_docs(dir: &Path) -> DocsSite {
    docs_site::build(
        dir,
        "site_name: Tidepool Guide\ntheme:\n  name: material\n\
         nav:\n  - Home: index.md\n  - Field guide: guide.md\n  - About us: about.md\n",
        &[
            ("index.md", "# Welcome\n\nTidepools hold life.\n"),
            ("guide.md", "# Field guide\n\nAnemones and crabs.\n"),
            ("about.md", "# About us\n\nWe count crabs.\n"),
        ],
    )
}
