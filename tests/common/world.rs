//! One scenario, two backends: the world a scenario runs in (sandbox,
//! browser for the extension path, local site) and the macro that runs
//! each scenario through the extension and through the CDP fallback.

use serde_json::json;

use super::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Via {
    Extension,
    Cdp,
}

/// Browser (for the extension path), site and sandbox for one scenario.
pub struct World {
    pub sb: Sandbox,
    pub _browser: Option<Chromium>,
    pub site: site::Site,
    pub via: Via,
}

pub fn world(via: Via) -> World {
    let sb = Sandbox::new();
    let browser = (via == Via::Extension).then(|| Chromium::launch(&sb));
    World {
        sb,
        _browser: browser,
        site: site::Site::start(),
        via,
    }
}

pub async fn client(w: &World, name: &str) -> Mcp {
    client_with(w, name, &[]).await
}

/// A client whose serve gets `extra` flags (policy, upload dirs, …).
pub async fn client_with(w: &World, name: &str, extra: &[String]) -> Mcp {
    client_with_env(w, name, extra, &[]).await
}

/// [`client_with`], with extra environment for serve.
pub async fn client_with_env(
    w: &World,
    name: &str,
    extra: &[String],
    env: &[(&str, &std::path::Path)],
) -> Mcp {
    let args: Vec<String> = match w.via {
        Via::Extension => ["--backend", "extension", "--connect-timeout", "30"]
            .map(String::from)
            .to_vec(),
        Via::Cdp => [
            vec!["--backend".to_string(), "cdp".to_string()],
            cdp_launch_args(),
        ]
        .concat(),
    };
    let args = [args, extra.to_vec()].concat();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    Mcp::start_with_env(&w.sb, name, &args, env).await
}

/// One test per scenario and backend, sharing the scenario code.
#[allow(unused_macros)]
macro_rules! on_both_backends {
    ($($scenario:ident),* $(,)?) => {
        mod extension {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let _serial = $crate::common::BROWSER_LOCK.lock().await;
                    super::$scenario($crate::common::world::world($crate::common::world::Via::Extension)).await
                }
            )*
        }
        mod cdp {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $scenario() {
                    let _serial = $crate::common::BROWSER_LOCK.lock().await;
                    super::$scenario($crate::common::world::world($crate::common::world::Via::Cdp)).await
                }
            )*
        }
    };
}

/// The value `browser_evaluate` returned, parsed.
pub async fn eval_json(mcp: &Mcp, function: &str) -> serde_json::Value {
    let out = mcp
        .ok("browser_evaluate", json!({"function": function}))
        .await;
    serde_json::from_str(&fenced(&out)).unwrap_or_else(|e| panic!("not JSON ({e}): {out}"))
}

/// A snapshot once `want` is in it (an app that draws itself over its
/// own connection after loading), looking at most `secs` seconds.
pub async fn snapshot_with(mcp: &Mcp, want: &str, secs: u64) -> String {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let snap = mcp.ok("browser_snapshot", json!({})).await;
        if snap.contains(want) {
            return snap;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "never saw {want:?} in:\n{snap}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    }
}
