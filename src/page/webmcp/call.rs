//! Calling a page tool: through the browser's registry (`WebMCP.invokeTool`,
//! answered by its `toolResponded` event) or the shim (a script in the
//! page), within a time limit, and cancelling it in the page when the call
//! is given up (the limit ran out, the MCP request was cancelled, the user
//! stopped).

use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::{shim, Output, PageTool};
use crate::backend::TabEvent;
use crate::error::{ErrorKind, ToolError};
use crate::page::tab::current::Tab;

impl Tab {
    /// Runs `tool` with `args` (already checked against its schema), for
    /// at most `limit`; cancels it in the page when that runs out or the
    /// call is dropped (the client cancelled, the user stopped).
    pub async fn call_page_tool(
        &self,
        tool: &PageTool,
        args: Value,
        limit: Duration,
    ) -> Result<Output, ToolError> {
        match &tool.frame_id {
            Some(frame) => self.invoke_native(frame, tool, args, limit).await,
            None => self.invoke_shim(tool, args, limit).await,
        }
    }

    async fn invoke_native(
        &self,
        frame: &str,
        tool: &PageTool,
        args: Value,
        limit: Duration,
    ) -> Result<Output, ToolError> {
        let tab = self.id();
        // Listen before asking: the answer may come right behind the
        // command's own.
        let mut events = self.client().backend().subscribe();
        // A tool of an out-of-process frame is called in its session.
        let session = self.child_session(frame);
        let started = self
            .cdp_in(
                session.as_deref(),
                "WebMCP.invokeTool",
                json!({"frameId": frame, "toolName": tool.name, "input": args}),
            )
            .await?;
        let Some(id) = started["invocationId"].as_str().map(str::to_string) else {
            return Err(ToolError::other(format!(
                "the browser did not start page tool {} (no invocation id)",
                tool.name
            )));
        };
        let mut pending = Pending::new(self, Running::Native(id.clone(), session));
        let mut deadline = tokio::time::Instant::now() + limit;
        let mut navigated = false;
        loop {
            let event = match tokio::time::timeout_at(deadline, events.recv()).await {
                Err(_) if navigated => {
                    // The browser never answers a call whose document went
                    // away (a form tool's submit that loads a page answers
                    // just after the navigation, so it is waited for).
                    pending.finished();
                    return Err(ToolError::new(
                        ErrorKind::ContextGone,
                        format!(
                            "the page navigated while page tool {} ran, so it gave no answer; \
                                 call browser_snapshot to see where the page is now",
                            tool.name
                        ),
                    ));
                }
                Err(_) => return Err(timed_out(tool, limit)),
                Ok(Err(RecvError::Lagged(_))) => continue,
                Ok(Err(RecvError::Closed)) => {
                    return Err(ToolError::new(
                        ErrorKind::BackendGone,
                        "the browser connection closed while the page tool ran".into(),
                    ))
                }
                Ok(Ok(e)) => e,
            };
            match event {
                TabEvent::Cdp {
                    tab: t,
                    method,
                    params,
                } if t == tab => match method.as_str() {
                    "WebMCP.toolResponded" if params["invocationId"] == id.as_str() => {
                        pending.finished();
                        return self.native_answer(tool, &params).await;
                    }
                    "Page.frameNavigated"
                        if params["frame"].get("parentId").is_none()
                            && params["type"] != "BackForwardCacheRestore" =>
                    {
                        navigated = true;
                        deadline = deadline.min(tokio::time::Instant::now() + AFTER_NAVIGATION);
                    }
                    _ => {}
                },
                TabEvent::Closed { tab: t } if t == tab => {
                    pending.finished();
                    return Err(ToolError::new(
                        ErrorKind::TabClosed,
                        "the tab was closed while the page tool ran".into(),
                    ));
                }
                _ => {}
            }
        }
    }

    /// A `toolResponded` event as the tool's answer or error.
    async fn native_answer(&self, tool: &PageTool, params: &Value) -> Result<Output, ToolError> {
        match params["status"].as_str() {
            Some("Completed") => Ok(Output {
                text: match &params["output"] {
                    Value::String(s) => s.clone(),
                    Value::Null if params.get("output").is_none() => String::new(),
                    other => other.to_string(),
                },
            }),
            Some("Canceled") => Err(ToolError::new(
                ErrorKind::Cancelled,
                format!("page tool {} was cancelled", tool.name),
            )),
            _ => {
                let exception = &params["exception"];
                if let Some(object) = exception["objectId"].as_str() {
                    // The thrown error stays alive in the page until freed.
                    let _ = self
                        .cdp("Runtime.releaseObject", json!({"objectId": object}))
                        .await;
                }
                let message = params["errorText"]
                    .as_str()
                    .filter(|t| !t.is_empty())
                    .map(str::to_string)
                    .or_else(|| exception["description"].as_str().map(first_line))
                    .or_else(|| exception.get("value").map(|v| v.to_string()))
                    .unwrap_or_else(|| "no reason given".into());
                Err(ToolError::new(ErrorKind::PageToolFailed, message))
            }
        }
    }

    async fn invoke_shim(
        &self,
        tool: &PageTool,
        args: Value,
        limit: Duration,
    ) -> Result<Output, ToolError> {
        let id = format!("{:x}", rand_id());
        let mut pending = Pending::new(self, Running::Shim(id.clone()));
        let call = self.call_page(
            shim::CALL,
            json!({"id": id, "name": tool.name, "args": args}),
        );
        let r = match tokio::time::timeout(limit, call).await {
            Err(_) => return Err(timed_out(tool, limit)),
            Ok(r) => r?,
        };
        pending.finished();
        if r["missing"] == true {
            return Err(ToolError::new(
                ErrorKind::NotFound,
                format!("the page withdrew tool {} before it could run", tool.name),
            ));
        }
        if r["cancelled"] == true {
            return Err(ToolError::new(
                ErrorKind::Cancelled,
                format!("page tool {} was cancelled", tool.name),
            ));
        }
        if let Some(e) = r["error"].as_str() {
            return Err(ToolError::new(ErrorKind::PageToolFailed, e.to_string()));
        }
        Ok(Output {
            text: r["output"].as_str().unwrap_or("").to_string(),
        })
    }
}

/// A page tool's call that has not answered yet: dropped before it
/// answers (the wait ran out, the MCP request was cancelled, the user
/// stopped), it cancels the call in the page.
struct Pending {
    tab: Tab,
    running: Option<Running>,
}

enum Running {
    /// The invocation id, and the frame's session when it is not the tab's.
    Native(String, Option<String>),
    Shim(String),
}

impl Pending {
    fn new(tab: &Tab, running: Running) -> Self {
        Pending {
            tab: tab.clone(),
            running: Some(running),
        }
    }

    fn finished(&mut self) {
        self.running = None;
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        let Some(running) = self.running.take() else {
            return;
        };
        let tab = self.tab.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let sent = match running {
                Running::Native(id, session) => tab
                    .cdp_in(
                        session.as_deref(),
                        "WebMCP.cancelInvocation",
                        json!({"invocationId": id}),
                    )
                    .await
                    .map(|_| ()),
                Running::Shim(id) => tab
                    .call_page(shim::CANCEL, json!({"id": id}))
                    .await
                    .map(|_| ()),
            };
            if let Err(e) = sent {
                tracing::debug!(error = %e, "cancelling a page tool's call");
            }
        });
    }
}

/// How long a call whose page navigated still waits for its answer.
const AFTER_NAVIGATION: Duration = Duration::from_secs(2);

fn timed_out(tool: &PageTool, limit: Duration) -> ToolError {
    let hint = if tool.form && !tool.annotations.autosubmit {
        " (a form tool that does not submit itself waits for a person to press its submit \
         button)"
    } else {
        ""
    };
    ToolError::new(
        ErrorKind::Timeout,
        format!(
            "page tool {} did not answer within {} s, so it was cancelled{hint}",
            tool.name,
            limit.as_secs()
        ),
    )
}

fn first_line(s: &str) -> String {
    s.lines().next().unwrap_or("").to_string()
}

/// An id no other call of this process has (the shim's calls are keyed
/// by it in the page).
fn rand_id() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos() as u64)
        .unwrap_or(0);
    (nanos << 20) ^ NEXT.fetch_add(1, Ordering::Relaxed)
}
