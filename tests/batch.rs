//! `browser_batch` on both backends: type, click and wait on a form in one
//! call give the page's answer; a failing step stops the rest and says
//! which; a batch in a batch and a step the policy refuses are refused
//! before anything runs; earlier steps shrink to a line when a later one
//! returns a full snapshot.

#[macro_use]
mod common;

use common::plain;
use common::world::*;
use serde_json::json;

on_both_backends!(a_batch_runs_steps_in_order_and_stops_at_a_failure);

async fn a_batch_runs_steps_in_order_and_stops_at_a_failure(w: World) {
    let mcp = client_with(&w, "batch", &["--no-eval".into()]).await;
    let listed = mcp.client.list_all_tools().await.unwrap();
    assert!(listed.iter().any(|t| t.name == "browser_batch"));
    let form = w.site.url("/pages/batch-form.html");
    mcp.ok("browser_navigate", json!({"url": form})).await;

    // One call: type, click, wait; the answer shows the result.
    let out = mcp
        .ok(
            "browser_batch",
            json!({"actions": [
                {"tool": "browser_type", "arguments": {"target": "#name", "text": "Ada"}},
                {"tool": "browser_click", "arguments": {"target": "#send"}},
                {"tool": "browser_wait_for", "arguments": {"text": "Thanks, Ada"}},
            ]}),
        )
        .await;
    assert!(out.starts_with("Ran 3 steps."), "{out}");
    assert!(out.contains("\n1. browser_type: "), "{out}");
    assert!(out.contains("\n2. browser_click: Clicked"), "{out}");
    assert!(out.contains("\n3. browser_wait_for: "), "{out}");
    assert!(out.contains("Thanks, Ada"), "{out}");

    // A failing step stops the rest and says which.
    let err = mcp
        .text(
            "browser_batch",
            json!({"actions": [
                {"tool": "browser_type", "arguments": {"target": "#name", "text": "Bo"}},
                {"tool": "browser_click", "arguments": {"target": "#nothing-here"}},
                {"tool": "browser_type", "arguments": {"target": "#name", "text": "Cy"}},
            ]}),
        )
        .await
        .unwrap_err();
    assert!(
        err.contains("step 2 of 3 (browser_click) failed, so the batch stopped; not run: step 3 browser_type"),
        "{err}"
    );
    assert!(err.contains("1. browser_type: "), "{err}");
    assert!(
        err.contains("2. browser_click: browser_click failed:"),
        "{err}"
    );
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(snap.contains("Bo") && !snap.contains("Cy"), "{snap}");

    // Refused before anything runs: a batch in a batch, a tool the policy
    // refuses (--no-eval), a tool that does not exist.
    for (bad, why) in [
        (
            json!({"tool": "browser_batch", "arguments": {"actions": []}}),
            "cannot hold a batch",
        ),
        (
            json!({"tool": "browser_evaluate", "arguments": {"function": "() => 1"}}),
            "--no-eval",
        ),
        (json!({"tool": "browser_fly"}), "no tool \"browser_fly\""),
    ] {
        let err = mcp
            .text(
                "browser_batch",
                json!({"actions": [
                    {"tool": "browser_type", "arguments": {"target": "#name", "text": "Dee"}},
                    bad,
                ]}),
            )
            .await
            .unwrap_err();
        assert!(
            err.contains(why) && err.contains("Nothing was run"),
            "{err}"
        );
    }
    let snap = mcp.ok("browser_snapshot", json!({})).await;
    assert!(!snap.contains("Dee"), "a refused batch typed: {snap}");

    // A later full snapshot supersedes an earlier step's answer.
    let out = mcp
        .ok(
            "browser_batch",
            json!({"actions": [
                {"tool": "browser_navigate", "arguments": {"url": w.site.url("/pages/emulation.html")}},
                {"tool": "browser_navigate", "arguments": {"url": form}},
            ]}),
        )
        .await;
    assert!(
        plain(&out).contains("1. browser_navigate: Page: What this device looks like")
            && out.contains("(its full answer is superseded by a later snapshot)"),
        "{out}"
    );
    assert!(!out.contains("Device facts"), "{out}");
    assert!(
        plain(&out).contains("2. browser_navigate: Page: Sign up"),
        "{out}"
    );
    assert!(out.contains("textbox \"Your name\""), "{out}");

    // Too many steps: said so.
    let many: Vec<_> = (0..11)
        .map(|_| json!({"tool": "browser_snapshot"}))
        .collect();
    let err = mcp
        .text("browser_batch", json!({"actions": many}))
        .await
        .unwrap_err();
    assert!(err.contains("give 1 to 10 actions, not 11"), "{err}");
}
