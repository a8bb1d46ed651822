#!/usr/bin/env python3
"""Time from nothing to the first browser_navigate answer on the no-Rust
path, and the size of what a user downloads.

"Nothing" is a fresh HOME, an empty directory and no cargo or rustc on PATH.
The steps a user takes, each timed:
  1. npm install of the two npm tarballs (the launcher `tabwire` and this
     platform's `@tabwire/linux-x64`) — from local files, so the registry's
     download time is not in it: add package size / bandwidth for that;
  2. `npx tabwire install` (registers the host, places the extension);
  3. an MCP client starts `npx -y tabwire serve` (CDP fallback: headless
     Chromium of its own) and gets its `initialize` answer;
  4. its first `browser_navigate` to a local page answers.
Then the same for the archive path: `installer/install.sh --archive`.

Usage: python3 bench/no-rust-install.py [--packages DIR] [--runs N]
  --packages DIR  use packages installer/package.sh already made in DIR;
                  by default it runs `installer/package.sh` (a release build)
  --runs N        repeat the timed path N times (default 3), fresh each time
Prints a markdown table and writes JSON to bench/results/.
Needs node, npm, Chromium at /usr/lib/chromium/chromium.
"""
import argparse, datetime, http.server, json, os, shutil, socketserver
import subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = os.environ.get("TABWIRE_TEST_CHROMIUM", "/usr/lib/chromium/chromium")
TRIPLE = "x86_64-unknown-linux-gnu"
PLATFORM = "linux-x64"


def version():
    for line in open(os.path.join(ROOT, "Cargo.toml")):
        if line.startswith("version = "):
            return line.split('"')[1]
    raise SystemExit("no version in Cargo.toml")


def serve_page():
    """A one-page local site; returns its URL."""
    page = (b"<!doctype html><meta charset=utf-8><title>Hello</title>"
            b"<h1>Hello from the bench</h1><a href='/'>again</a><input id=q>")

    class H(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *a):
            pass

    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), H)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}/"


def fresh_env(tmp):
    home = os.path.join(tmp, "home")
    os.makedirs(home)
    env = {
        "HOME": home,
        "XDG_CONFIG_HOME": os.path.join(home, ".config"),
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "TABWIRE_RUNTIME_DIR": os.path.join(tmp, "rt"),
        "LANG": "C.UTF-8",
    }
    for tool in ("cargo", "rustc"):
        if shutil.which(tool, path=env["PATH"]):
            raise SystemExit(f"{tool} is on the bench PATH; the no-Rust path must not see it")
    return env


class Mcp:
    """A minimal MCP client over stdio (newline-delimited JSON-RPC)."""

    def __init__(self, argv, env, cwd, log):
        self.p = subprocess.Popen(argv, env=env, cwd=cwd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=open(log, "w"))
        self.i = 0

    def rpc(self, method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.i += 1
            msg["id"] = self.i
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        if notify:
            return None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit(f"serve closed its stdout (see its log) during {method}")
            r = json.loads(line)
            if r.get("id") == self.i:
                return r

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def first_navigate(argv, env, cwd, url, log):
    """(seconds to initialize, seconds to the navigate answer, answer text)."""
    t0 = time.perf_counter()
    m = Mcp(argv, env, cwd, log)
    m.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "no-rust-bench", "version": "1"}})
    m.rpc("notifications/initialized", notify=True)
    t_init = time.perf_counter() - t0
    r = m.rpc("tools/call", {"name": "browser_navigate", "arguments": {"url": url}})
    t_nav = time.perf_counter() - t0
    m.close()
    res = r.get("result") or {}
    text = "\n".join(c.get("text", "") for c in res.get("content", []))
    if res.get("isError") or "Hello from the bench" not in text:
        raise SystemExit(f"browser_navigate did not show the page: {r}")
    return t_init, t_nav, text


def timed(argv, env, cwd):
    t = time.perf_counter()
    p = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed:\n{p.stdout}\n{p.stderr}")
    return time.perf_counter() - t


CDP_ARGS = ["--backend", "cdp", "--headless", "--browser-path", CHROMIUM,
            "--browser-arg=--disable-background-networking",
            "--browser-arg=--disable-component-update", "--browser-arg=--disable-sync"]


def npm_run(pk, ver, url):
    tmp = tempfile.mkdtemp(prefix="tabwire-norust-")
    try:
        env = fresh_env(tmp)
        app = os.path.join(tmp, "app")
        os.makedirs(app)
        t_start = time.perf_counter()
        t_npm = timed(["npm", "install", "--offline", "--no-audit", "--no-fund",
                       "--no-update-notifier", os.path.join(pk, f"tabwire-{ver}.tgz"),
                       os.path.join(pk, f"tabwire-{PLATFORM}-{ver}.tgz")], env, app)
        t_install = timed(["npx", "tabwire", "install"], env, app)
        t_init, t_nav, _ = first_navigate(["npx", "-y", "tabwire", "serve"] + CDP_ARGS, env, app,
                                          url, os.path.join(tmp, "serve.log"))
        total = time.perf_counter() - t_start
        # The same session again, everything installed: what npx adds to
        # each start, against the binary started directly.
        t2_init, t2_nav, _ = first_navigate(["npx", "-y", "tabwire", "serve"] + CDP_ARGS, env,
                                            app, url, os.path.join(tmp, "serve2.log"))
        direct = os.path.join(app, f"node_modules/@tabwire/{PLATFORM}/bin/tabwire")
        t3_init, t3_nav, _ = first_navigate([direct, "serve"] + CDP_ARGS, env, app, url,
                                            os.path.join(tmp, "serve3.log"))
        return {"npm_install_s": t_npm, "tabwire_install_s": t_install,
                "serve_initialize_s": t_init, "first_navigate_s": t_nav,
                "total_s": total,
                "again_npx_initialize_s": t2_init, "again_npx_navigate_s": t2_nav,
                "again_direct_initialize_s": t3_init, "again_direct_navigate_s": t3_nav}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def archive_run(pk, url):
    tmp = tempfile.mkdtemp(prefix="tabwire-norust-")
    try:
        env = fresh_env(tmp)
        t_start = time.perf_counter()
        t_sh = timed(["sh", os.path.join(ROOT, "installer/install.sh"), "--archive",
                      os.path.join(pk, f"tabwire-{TRIPLE}.tar.gz")], env, tmp)
        binary = os.path.join(env["HOME"], ".local/bin/tabwire")
        t_init, t_nav, _ = first_navigate([binary, "serve"] + CDP_ARGS, env, tmp, url,
                                          os.path.join(tmp, "serve.log"))
        return {"install_sh_s": t_sh, "serve_initialize_s": t_init,
                "first_navigate_s": t_nav, "total_s": time.perf_counter() - t_start}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--packages")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    ver = version()
    pk = a.packages
    if not pk:
        pk = tempfile.mkdtemp(prefix="tabwire-packages-")
        print("packing a release build with installer/package.sh …", file=sys.stderr)
        subprocess.run(["bash", os.path.join(ROOT, "installer/package.sh"), pk], check=True)
    pk = os.path.abspath(pk)
    files = {
        "archive": f"tabwire-{TRIPLE}.tar.gz",
        "npm platform package": f"tabwire-{PLATFORM}-{ver}.tgz",
        "npm launcher package": f"tabwire-{ver}.tgz",
        "store extension zip": f"tabwire-extension-{ver}-store.zip",
    }
    sizes = {k: os.path.getsize(os.path.join(pk, f)) for k, f in files.items()}
    unpacked = {}
    with tempfile.TemporaryDirectory() as x:
        subprocess.run(["tar", "-xzf", os.path.join(pk, files["archive"]), "-C", x], check=True)
        for b in ("tabwire", "tabwire-host"):
            unpacked[b] = os.path.getsize(os.path.join(x, f"tabwire-{TRIPLE}", b))

    url = serve_page()
    npm_runs = [npm_run(pk, ver, url) for _ in range(a.runs)]
    archive_runs = [archive_run(pk, url) for _ in range(a.runs)]

    def summary(runs):
        return {k: round(median([r[k] for r in runs]), 3) for k in runs[0]}

    npm_s, arc_s = summary(npm_runs), summary(archive_runs)
    mb = lambda n: f"{n / 1e6:.2f} MB"
    print(f"\n## No-Rust install, tabwire {ver} ({TRIPLE}), median of {a.runs}\n")
    print("| npm path step | seconds |\n|---|---|")
    for k, label in [("npm_install_s", "npm install (2 local tarballs)"),
                     ("tabwire_install_s", "npx tabwire install"),
                     ("serve_initialize_s", "npx -y tabwire serve → initialize answered"),
                     ("first_navigate_s", "… → first browser_navigate answered"),
                     ("total_s", "**from nothing to the first navigate answer**"),
                     ("again_npx_navigate_s", "next session: npx serve → navigate answered"),
                     ("again_direct_navigate_s", "next session: binary serve → navigate answered")]:
        print(f"| {label} | {npm_s[k]:.2f} |")
    print("\n| archive path step | seconds |\n|---|---|")
    for k, label in [("install_sh_s", "install.sh --archive (check, unpack, install)"),
                     ("first_navigate_s", "serve → first browser_navigate answered"),
                     ("total_s", "**from nothing to the first navigate answer**")]:
        print(f"| {label} | {arc_s[k]:.2f} |")
    print("\n| download | size |\n|---|---|")
    for k, n in sizes.items():
        print(f"| {k} ({files[k]}) | {mb(n)} |")
    for b, n in unpacked.items():
        print(f"| {b}, unpacked | {mb(n)} |")

    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    path = os.path.join(ROOT, "bench/results", f"no-rust-install-{stamp}.json")
    with open(path, "w") as f:
        json.dump({"version": ver, "target": TRIPLE, "runs": a.runs,
                   "node": subprocess.run(["node", "--version"], capture_output=True,
                                          text=True).stdout.strip(),
                   "npm_path": {"median": npm_s, "runs": npm_runs},
                   "archive_path": {"median": arc_s, "runs": archive_runs},
                   "sizes_bytes": sizes, "unpacked_bytes": unpacked}, f, indent=2)
    print(f"\nwrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
