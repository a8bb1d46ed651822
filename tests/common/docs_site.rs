//! A real documentation theme, Material for MkDocs (PyPI:
//! `mkdocs-material`, which .ci/run installs), built from a config and a
//! few pages into a folder and served on 127.0.0.1 until dropped.

use std::path::Path;
use std::process::{Child, Command, Stdio};

pub struct DocsSite {
    server: Child,
    pub base: String,
}

impl Drop for DocsSite {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// Builds `mkdocs.yml` (`config`) and `docs/<name>` (`pages`) in `dir`
/// with `python3 -m mkdocs` and serves the site with Python's static
/// server on a free port.
pub fn build(dir: &Path, config: &str, pages: &[(&str, &str)]) -> DocsSite {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(dir.join("mkdocs.yml"), config).unwrap();
    for (name, text) in pages {
        std::fs::write(docs.join(name), text).unwrap();
    }
    let built = Command::new("python3")
        .args(["-m", "mkdocs", "build", "-q", "-d", "site"])
        .current_dir(dir)
        .env("NO_MKDOCS_2_WARNING", "1")
        .output()
        .expect("python3 runs");
    assert!(
        built.status.success(),
        "mkdocs build failed (pip install mkdocs-material): {}",
        String::from_utf8_lossy(&built.stderr)
    );
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let server = Command::new("python3")
        .args([
            "-m",
            "http.server",
            &port.to_string(),
            "--bind",
            "127.0.0.1",
        ])
        .current_dir(dir.join("site"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("python3 -m http.server starts");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    DocsSite {
        server,
        base: format!("http://127.0.0.1:{port}"),
    }
}
