#!/usr/bin/env python3
"""What pausing every document request costs a navigation (tabwire pauses
them so HTTP authentication challenges reach it: see
src/tools/interrupts.rs). Times browser_navigate between two small local
pages, 40 times per run and two runs per binary, through the extension or
the CDP fallback, for the binaries given (e.g. a build of main and one of
this branch), alternating binaries run by run so machine noise falls on
both; and, by the browser's own clock (Navigation Timing), how long each
document request took from fetchStart to requestStart, where a paused
request waits.

Run: python3 bench/nav-pause.py extension|cdp BIN [BIN ...]
"""
import json, os, subprocess, sys, tempfile, threading, time, atexit
import http.server, socketserver

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import page_data  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
backend, bins = sys.argv[1], sys.argv[2:]

class Page(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_GET(self):
        body = f"<!doctype html><title>{self.path}</title><h1>{self.path}</h1><a href=/b>b</a>".encode()
        self.send_response(200); self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)

site = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Page)
threading.Thread(target=site.serve_forever, daemon=True).start()
base = f"http://127.0.0.1:{site.server_address[1]}"

def run(binary):
    tmp = tempfile.mkdtemp(prefix="tabwire-navpause-")
    env = dict(os.environ, TABWIRE_RUNTIME_DIR=f"{tmp}/rt", TABWIRE_DATA_DIR=f"{tmp}/data", RUST_LOG="tabwire=info")
    chrome = None
    if backend == "extension":
        os.makedirs(f"{tmp}/udd")
        subprocess.run([binary, "install", "--browser", "chromium", "--user-data-dir", f"{tmp}/udd"], env=env, check=True, capture_output=True)
        ext = f"{ROOT}/extension"
        chrome = subprocess.Popen(["/usr/lib/chromium/chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-default-apps",
            f"--user-data-dir={tmp}/udd", f"--load-extension={ext}", f"--disable-extensions-except={ext}", "about:blank"],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        atexit.register(chrome.kill)
    args = [binary, "serve", "--backend", backend, "--connect-timeout", "30"]
    if backend == "cdp":
        args += ["--headless", "--browser-path", "/usr/lib/chromium/chromium", "--browser-arg=--no-sandbox"]
    p = subprocess.Popen(args, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = [0]
    def rpc(method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None: msg["params"] = params
        if not notify: n[0] += 1; msg["id"] = n[0]
        p.stdin.write((json.dumps(msg) + "\n").encode()); p.stdin.flush()
        while not notify:
            r = json.loads(p.stdout.readline())
            if r.get("id") == n[0]: return r
    rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "navpause", "version": "1"}})
    rpc("notifications/initialized", notify=True)
    def nav(url):
        t = time.perf_counter()
        r = rpc("tools/call", {"name": "browser_navigate", "arguments": {"url": url}})
        assert not r["result"].get("isError"), r
        took = (time.perf_counter() - t) * 1000
        # The browser's own clock: from the start of the fetch to the
        # request going out (where a paused request waits).
        r = rpc("tools/call", {"name": "browser_evaluate", "arguments": {"function":
            "() => { const n = performance.getEntriesByType('navigation')[0]; return n.requestStart - n.fetchStart; }"}})
        waited = float(page_data(r["result"]["content"][0]["text"]))
        return took, waited
    for _ in range(3): nav(f"{base}/warm")
    out = [nav(f"{base}/{'a' if i % 2 else 'b'}?{i}") for i in range(40)]
    p.stdin.close(); p.wait()
    if chrome: chrome.kill()
    return out

def med(xs):
    xs = sorted(xs); return xs[len(xs) // 2]

results = {b: [] for b in bins}
for round_ in range(2):
    for b in bins:
        results[b] += run(b)
for b, rs in results.items():
    took, waited = [r[0] for r in rs], [r[1] for r in rs]
    print(f"{backend} {b}: navigate median {med(took):.1f} ms; fetchStart→requestStart median {med(waited):.2f} ms, max {max(waited):.2f} ms (n={len(rs)})")
