//! `browser_evaluate`'s work: a model's JavaScript function run in the
//! page's own world (with an element, when it names one), stopped when it
//! runs too long, its value as JSON text.

use serde_json::json;

use crate::backend::BackendError;
use crate::error::ToolError;
use crate::page::tab::calls::exception_text;
use crate::page::tab::current::Tab;

/// Parks the element where the evaluated expression finds it (the top
/// window, so an element inside a same-origin iframe works too).
const PARK_TARGET: &str = "function() { (window.top || window).__tabwireTarget = this; }";

impl Tab {
    /// Runs `function` (or, leniently, an expression) in `tab`'s page, called
    /// with the element `target` names; its value as JSON text. A function
    /// that throws is an error quoting the page's message (fenced).
    pub async fn evaluate_function(
        &self,
        function: &str,
        target: Option<&str>,
    ) -> Result<String, ToolError> {
        let s = self.client();
        let tab = self.id();
        if let Some(t) = target {
            let el = self.element(t).await?;
            // The function runs in the page's own world: park the
            // element there, not in the snapshot engine's.
            let el = self.in_main_world(el).await?;
            self.call_on(el, PARK_TARGET, serde_json::Value::Null)
                .await?;
        }
        // Accept a function (called, with the target if any) or,
        // leniently, a plain expression.
        let expression = format!(
            "(async () => {{ const __el = window.__tabwireTarget; delete window.__tabwireTarget; \
             const __tw = ({}\n); return typeof __tw === 'function' ? await __tw(__el) : __tw; }})()",
            function
        );
        // V8 itself stops a script that runs past the limit, which keeps
        // a runaway loop from blocking the tab.
        let limit = s.script_timeout();
        let params = json!({
            "expression": expression,
            "returnByValue": true,
            "awaitPromise": true,
            "userGesture": true,
            "timeout": limit.as_millis() as u64,
        });
        self.ready("Runtime.evaluate").await?;
        let started = std::time::Instant::now();
        let r = match s.backend().cdp(tab, "Runtime.evaluate", params).await {
            Ok(r) => r,
            // Chromium answers a script it stopped at `timeout` with a
            // bare "Internal error"; the page is fine afterwards.
            Err(BackendError::Cdp { message, .. })
                if message.contains("Internal error") && started.elapsed() >= limit =>
            {
                return Err(ToolError::other(format!(
                    "the function ran longer than {:.1} s and was stopped; the page is usable again",
                    limit.as_secs_f64()
                )));
            }
            // A runaway script would block the page for good: stop it.
            Err(BackendError::Timeout { secs, .. }) => {
                let stopped = s
                    .backend()
                    .cdp(tab, "Runtime.terminateExecution", json!({}))
                    .await
                    .is_ok();
                return Err(ToolError::other(if stopped {
                    format!("the function ran longer than {secs} s and was stopped; the page is usable again")
                } else {
                    format!("the function ran longer than {secs} s and could not be stopped; reload the page")
                }));
            }
            Err(e) => return Err(self.tab_error(e)),
        };
        if let Some(ex) = r.get("exceptionDetails") {
            let text = exception_text(ex);
            return Err(ToolError::other(format!(
                "the function threw: {}",
                s.fence().quote(&text)
            )));
        }
        let result = &r["result"];
        let text = if let Some(u) = result["unserializableValue"].as_str() {
            u.to_string()
        } else if result["type"] == "undefined" {
            "undefined".to_string()
        } else {
            serde_json::to_string_pretty(&result["value"]).unwrap_or_default()
        };
        Ok(text)
    }
}
