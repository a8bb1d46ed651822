//! Real applications installed from the registries (PyPI: streamlit,
//! datasette; npm: the editors of tests/apps/editors), started on
//! 127.0.0.1 for one test and stopped when dropped. `.ci/run` installs
//! them; tests/apps/README.md says how each is run by hand.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct App {
    child: Child,
    pub base: String,
}

impl Drop for App {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn apps_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/apps")
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Whether `url` answers 200 (a bare HTTP/1.0 GET; no client crate).
fn answers(url: &str) -> bool {
    use std::io::{Read, Write};
    let rest = url.trim_start_matches("http://");
    let (host, path) = rest.split_once('/').unwrap_or((rest, ""));
    let Ok(mut conn) = std::net::TcpStream::connect(host) else {
        return false;
    };
    let _ = conn.set_read_timeout(Some(Duration::from_secs(2)));
    if conn
        .write_all(format!("GET /{path} HTTP/1.0\r\nHost: {host}\r\n\r\n").as_bytes())
        .is_err()
    {
        return false;
    }
    let mut head = [0u8; 12];
    conn.read_exact(&mut head).is_ok() && head.starts_with(b"HTTP/1.") && &head[9..12] == b"200"
}

/// Starts `program args` (with `{port}` in args replaced by a free port)
/// in `dir`, its output into `log`, and waits (at most 60 s) until
/// `ready` (a path) answers 200.
fn start(program: &str, args: &[&str], dir: &Path, log: &Path, ready: &str) -> App {
    start_with_env(program, args, &[], dir, log, ready)
}

/// [`start`] with extra environment.
fn start_with_env(
    program: &str,
    args: &[&str],
    env: &[(&str, PathBuf)],
    dir: &Path,
    log: &Path,
    ready: &str,
) -> App {
    let port = free_port();
    let args: Vec<String> = args
        .iter()
        .map(|a| a.replace("{port}", &port.to_string()))
        .collect();
    let out = std::fs::File::create(log).unwrap();
    let child = Command::new(program)
        .args(&args)
        .current_dir(dir)
        .envs(env.iter().map(|(k, v)| (*k, v.as_os_str())))
        .stdin(Stdio::null())
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap_or_else(|e| panic!("{program} does not start ({e}); .ci/run installs it"));
    let base = format!("http://127.0.0.1:{port}");
    let app = App { child, base };
    let began = Instant::now();
    while !answers(&format!("{}{ready}", app.base)) {
        assert!(
            began.elapsed() < Duration::from_secs(60),
            "{program} did not get ready; its log: {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    eprintln!("{program} ready in {} ms", began.elapsed().as_millis());
    app
}

/// tests/apps/streamlit_form.py: Fruit, Name, Count (0–10), Submit.
pub fn streamlit(tmp: &Path) -> App {
    let script = apps_dir().join("streamlit_form.py");
    start(
        "python3",
        &[
            "-m",
            "streamlit",
            "run",
            script.to_str().unwrap(),
            "--server.headless",
            "true",
            "--server.port",
            "{port}",
            "--server.address",
            "127.0.0.1",
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
        ],
        tmp,
        &tmp.join("streamlit.log"),
        "/_stcore/health",
    )
}

/// Datasette serving tests/apps/datasette_db.py's birds database; also
/// the database's path (to check answers against sqlite3).
pub fn datasette(tmp: &Path) -> (App, PathBuf) {
    let db = tmp.join("birds.db");
    let made = Command::new("python3")
        .arg(apps_dir().join("datasette_db.py"))
        .arg(&db)
        .status()
        .unwrap();
    assert!(made.success());
    let app = start(
        "python3",
        &[
            "-m",
            "datasette",
            "serve",
            db.to_str().unwrap(),
            "-h",
            "127.0.0.1",
            "-p",
            "{port}",
        ],
        tmp,
        &tmp.join("datasette.log"),
        "/-/versions.json",
    );
    (app, db)
}

/// tests/apps/editors (its node_modules from `npm ci`, which .ci/run
/// does) served as static files.
pub fn editors(tmp: &Path) -> App {
    npm_pages(tmp, "editors", "monaco-editor")
}

/// The folder `name` of tests/apps, whose pages load their npm packages
/// from its node_modules (`installed`: one of them, to tell the install
/// was made), served as static files.
fn npm_pages(tmp: &Path, name: &str, installed: &str) -> App {
    let dir = apps_dir().join(name);
    assert!(
        dir.join("node_modules").join(installed).is_dir(),
        "run `npm ci --prefix tests/apps/{name}` first (.ci/run does)"
    );
    start(
        "python3",
        &["-m", "http.server", "{port}", "--bind", "127.0.0.1"],
        &dir,
        &tmp.join(format!("{name}.log")),
        "/",
    )
}

/// One row per line from `sqlite3 db sql` (the truth a test checks a page
/// against), through Python's sqlite3 (no sqlite3 binary needed).
pub fn sqlite_rows(db: &Path, sql: &str) -> Vec<String> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sqlite3, sys\nfor r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print('|'.join(map(str, r)))",
            db.to_str().unwrap(),
            sql,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_string)
        .collect()
}

/// tests/apps/gradio_chat.py: a streaming chat, a dropdown, an upload.
pub fn gradio(tmp: &Path) -> App {
    let script = apps_dir().join("gradio_chat.py");
    start_with_env(
        "python3",
        &[script.to_str().unwrap(), "{port}"],
        &[("GRADIO_ANALYTICS_ENABLED", PathBuf::from("False"))],
        tmp,
        &tmp.join("gradio.log"),
        "/",
    )
}

/// JupyterLab on a copy of tests/apps/jupyter_notebook.ipynb (one empty
/// code cell, kernel python3), with no token, no news and no extension
/// manager reaching the network.
pub fn jupyter(tmp: &Path) -> App {
    let root = tmp.join("jupyter");
    let nb = root.join("nb");
    std::fs::create_dir_all(&nb).unwrap();
    std::fs::copy(
        apps_dir().join("jupyter_notebook.ipynb"),
        nb.join("jupyter_notebook.ipynb"),
    )
    .unwrap();
    let settings = root.join("settings");
    copy_dir(&apps_dir().join("jupyter_settings"), &settings);
    let arg = |k: &str, v: &Path| format!("{k}={}", v.display());
    start_with_env(
        "python3",
        &[
            "-m",
            "jupyterlab",
            "--no-browser",
            "--allow-root",
            "--ip",
            "127.0.0.1",
            "--port",
            "{port}",
            &arg("--ServerApp.root_dir", &nb),
            "--IdentityProvider.token=",
            "--ServerApp.password=",
            "--ServerApp.disable_check_xsrf=True",
            "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
            "--LabApp.extension_manager=readonly",
            &arg("--LabApp.workspaces_dir", &root.join("workspaces")),
            &arg("--LabApp.user_settings_dir", &settings),
        ],
        &[
            ("JUPYTER_RUNTIME_DIR", root.join("runtime")),
            ("JUPYTER_CONFIG_DIR", root.join("config")),
        ],
        &root,
        &tmp.join("jupyter.log"),
        "/api/status",
    )
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dest = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dest);
        } else {
            std::fs::copy(e.path(), dest).unwrap();
        }
    }
}

/// tests/apps/widgets (its node_modules from `npm ci`, which .ci/run
/// does): drag, slider and web-component libraries served as files.
pub fn widgets(tmp: &Path) -> App {
    npm_pages(tmp, "widgets", "sortablejs")
}

/// One of the small apps of tests/apps whose server answers a click over
/// a WebSocket after 0.8 s of work (`streamlit_slow`, `nicegui_slow`,
/// `shiny_slow`, `panel_slow`; tests/apps/README.md).
pub fn socket_app(tmp: &Path, name: &str) -> App {
    let script = apps_dir().join(format!("{name}.py"));
    let script = script.to_str().unwrap();
    let log = tmp.join(format!("{name}.log"));
    match name {
        "streamlit_slow" => start(
            "python3",
            &[
                "-m",
                "streamlit",
                "run",
                script,
                "--server.headless",
                "true",
                "--server.port",
                "{port}",
                "--server.address",
                "127.0.0.1",
                "--browser.gatherUsageStats",
                "false",
                "--server.fileWatcherType",
                "none",
            ],
            tmp,
            &log,
            "/_stcore/health",
        ),
        "panel_slow" => start("python3", &[script, "{port}"], tmp, &log, "/liveness"),
        _ => start("python3", &[script, "{port}"], tmp, &log, "/"),
    }
}

/// Django's admin (PyPI: django) in a new project under `tmp`, with a
/// superuser `admin` whose password is `password`.
pub fn django_admin(tmp: &Path, password: &str) -> App {
    let dir = tmp.join("django");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |args: &[&str], cwd: &Path, env: &[(&str, &str)]| {
        let ok = Command::new(args[0])
            .args(&args[1..])
            .current_dir(cwd)
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .status()
            .unwrap()
            .success();
        assert!(
            ok,
            "{args:?} failed (is django installed? tools/test --setup-only installs it)"
        );
    };
    run(&["django-admin", "startproject", "site_"], &dir, &[]);
    let site = dir.join("site_");
    run(&["python3", "manage.py", "migrate", "-v", "0"], &site, &[]);
    run(
        &[
            "python3",
            "manage.py",
            "createsuperuser",
            "--noinput",
            "--username",
            "admin",
            "--email",
            "admin@example.org",
        ],
        &site,
        &[("DJANGO_SUPERUSER_PASSWORD", password)],
    );
    start(
        "python3",
        &["manage.py", "runserver", "127.0.0.1:{port}", "--noreload"],
        &site,
        &tmp.join("django.log"),
        "/admin/login/",
    )
}

/// tests/apps/passkeys_app.py: django-otp-webauthn (PyPI) with one user,
/// alice. Passkeys work only at `http://localhost:PORT` (an IP address is
/// no relying-party id): use [`on_localhost`] for the browser's URLs.
pub fn passkeys(tmp: &Path) -> App {
    let dir = tmp.join("passkeys");
    std::fs::create_dir_all(&dir).unwrap();
    let script = apps_dir().join("passkeys_app.py");
    let script = script.to_str().unwrap().to_string();
    let data = dir.to_str().unwrap().to_string();
    start(
        "python3",
        &[&script, "{port}", &data],
        &dir,
        &tmp.join("passkeys.log"),
        "/",
    )
}

/// `base` (http://127.0.0.1:PORT) as http://localhost:PORT.
pub fn on_localhost(base: &str) -> String {
    base.replacen("127.0.0.1", "localhost", 1)
}
