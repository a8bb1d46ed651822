//! playwright-mcp and chrome-devtools-mcp, installed from npm into
//! `bench/.cache` and pointed at the same Chromium (no browser download).

use super::*;

pub fn cache_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bench/.cache")
}

const PACKAGES: &[(&str, &str)] = &[
    ("@playwright/mcp", "cli.js"),
    (
        "chrome-devtools-mcp",
        "build/src/bin/chrome-devtools-mcp.js",
    ),
];

fn installed_version(cache: &Path, package: &str) -> Option<String> {
    let text = std::fs::read_to_string(
        cache
            .join("node_modules")
            .join(package)
            .join("package.json"),
    )
    .ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v["version"].as_str().map(str::to_string)
}

/// Installs the peers with npm unless they are already in the cache.
fn ensure_installed(cache: &Path) -> Result<(), String> {
    if PACKAGES
        .iter()
        .all(|(p, _)| installed_version(cache, p).is_some())
    {
        return Ok(());
    }
    std::fs::create_dir_all(cache).map_err(|e| e.to_string())?;
    eprintln!(
        "bench: installing the peer servers with npm into {}",
        cache.display()
    );
    let status = std::process::Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--prefix"])
        .arg(cache)
        .args(PACKAGES.iter().map(|(p, _)| *p))
        // Never let them fetch a browser: they drive the given Chromium.
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .env("PUPPETEER_SKIP_DOWNLOAD", "1")
        .status()
        .map_err(|e| format!("could not run npm: {e}"))?;
    if !status.success() {
        return Err("npm install of the peer servers failed".into());
    }
    Ok(())
}

pub fn targets(chromium: &Path, work: &Path) -> Result<Vec<Target>, String> {
    let cache = cache_dir();
    ensure_installed(&cache)?;
    let modules = cache.join("node_modules");
    let chromium = chromium.display().to_string();

    let pw_cli = modules.join("@playwright/mcp").join(PACKAGES[0].1);
    let pw_out = work.join("playwright-out");
    let pw_chromium = chromium.clone();
    let playwright = Target {
        label: "playwright-mcp",
        dialect: Dialect::Playwright,
        command: Box::new(move || {
            let mut cmd = tokio::process::Command::new("node");
            cmd.arg(&pw_cli)
                .args([
                    "--headless",
                    "--isolated",
                    "--no-sandbox",
                    "--executable-path",
                ])
                .arg(&pw_chromium)
                .arg("--output-dir")
                .arg(&pw_out)
                .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
            cmd
        }),
        runtime: None,
        version: format!(
            "@playwright/mcp {}",
            installed_version(&cache, "@playwright/mcp").unwrap_or_default()
        ),
        _browser: None,
        is_ours: false,
    };

    let cd_cli = modules.join("chrome-devtools-mcp").join(PACKAGES[1].1);
    let devtools = Target {
        label: "chrome-devtools-mcp",
        dialect: Dialect::DevTools,
        command: Box::new(move || {
            let mut cmd = tokio::process::Command::new("node");
            cmd.arg(&cd_cli)
                .args(["--headless", "--isolated", "--executablePath", &chromium])
                .args([
                    "--chromeArg=--no-sandbox",
                    "--chromeArg=--disable-gpu",
                    "--chromeArg=--disable-background-networking",
                    "--chromeArg=--disable-component-update",
                    "--chromeArg=--disable-sync",
                    "--no-usage-statistics",
                    "--no-performance-crux",
                    // One client, one page: no pageId on every call.
                    "--no-page-id-routing",
                ])
                .env("CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS", "1");
            cmd
        }),
        runtime: None,
        version: format!(
            "chrome-devtools-mcp {}",
            installed_version(&cache, "chrome-devtools-mcp").unwrap_or_default()
        ),
        _browser: None,
        is_ours: false,
    };
    Ok(vec![playwright, devtools])
}
