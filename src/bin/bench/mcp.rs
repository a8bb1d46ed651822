//! A scripted MCP client over stdio (rmcp), timing each call and counting
//! the bytes of each answer.

use std::path::Path;
use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, Tool,
};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::Value;

/// How long one tool call may take before the bench calls it a failure.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Clone)]
struct Named(ClientConfig);

impl ClientHandler for Named {
    fn get_info(&self) -> ClientConfig {
        self.0.clone()
    }
}

/// A running MCP server process and our session with it.
pub struct Server {
    client: Option<RunningService<RoleClient, Named>>,
    pub pid: u32,
}

/// One tool call as the bench saw it.
pub struct Call {
    pub elapsed: Duration,
    /// Bytes of the serialized result (what crosses stdio, less the
    /// JSON-RPC envelope).
    pub bytes: usize,
    pub text: String,
    pub is_error: bool,
}

impl Server {
    /// Spawns `cmd` and completes MCP initialize; returns the time from
    /// spawn to the initialize answer.
    pub async fn start(
        mut cmd: tokio::process::Command,
        stderr_log: &Path,
    ) -> Result<(Self, Duration), String> {
        cmd.kill_on_drop(true);
        let log = std::fs::File::create(stderr_log).map_err(|e| e.to_string())?;
        let t0 = Instant::now();
        let (transport, _) = TokioChildProcess::builder(cmd)
            .stderr(log)
            .spawn()
            .map_err(|e| format!("spawn: {e}"))?;
        let pid = transport.id().unwrap_or(0);
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("tabwire-bench", env!("CARGO_PKG_VERSION")),
        );
        let client = tokio::time::timeout(CALL_TIMEOUT, Named(info).serve(transport))
            .await
            .map_err(|_| "no initialize answer within 60 s".to_string())?
            .map_err(|e| format!("initialize failed: {e}"))?;
        let took = t0.elapsed();
        Ok((
            Self {
                client: Some(client),
                pid,
            },
            took,
        ))
    }

    fn client(&self) -> &RunningService<RoleClient, Named> {
        self.client.as_ref().expect("server is running")
    }

    /// Every tool and the byte size of the `tools/list` answer.
    pub async fn tools(&self) -> Result<(Vec<Tool>, usize), String> {
        let r = tokio::time::timeout(CALL_TIMEOUT, self.client().list_tools(None))
            .await
            .map_err(|_| "tools/list timed out".to_string())?
            .map_err(|e| format!("tools/list failed: {e}"))?;
        let bytes = serde_json::to_vec(&r).map(|v| v.len()).unwrap_or(0);
        Ok((r.tools, bytes))
    }

    pub async fn call(&self, tool: &str, args: Value) -> Result<Call, String> {
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(map) = args {
            params = params.with_arguments(map);
        }
        let t0 = Instant::now();
        let r = tokio::time::timeout(CALL_TIMEOUT, self.client().call_tool(params))
            .await
            .map_err(|_| format!("{tool} did not answer within 60 s"))?
            .map_err(|e| format!("{tool}: {e}"))?;
        let elapsed = t0.elapsed();
        Ok(Call {
            elapsed,
            bytes: serde_json::to_vec(&r).map(|v| v.len()).unwrap_or(0),
            text: text_of(&r),
            is_error: r.is_error == Some(true),
        })
    }

    /// Closes stdin (the MCP way to stop a stdio server) and waits briefly.
    pub async fn stop(mut self) {
        if let Some(c) = self.client.take() {
            let _ = tokio::time::timeout(Duration::from_secs(5), c.cancel()).await;
        }
    }
}

fn text_of(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}
