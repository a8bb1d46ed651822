#!/usr/bin/env python3
"""Pages that keep connections open, against the browser's own load:
how long `browser_navigate` takes on each backend (issue 33's targets).

Cases:
  live    a page that opens a long poll (held 30 s) and an event stream
          while it loads. Target: navigate ≤ the browser's load + 300 ms.
  mkdocs  a Material for MkDocs page (PyPI: mkdocs-material), built here
          and served as files; the theme starts a Web Worker for its
          search. Target: navigate ≤ 1.5× the browser's load.

"Browser" is Chromium over a raw CDP pipe (nav-waits.py's Cdp): from
Page.navigate to the page's load event. tabwire is timed over MCP stdio,
its snapshot answer included, through the extension and the CDP fallback.
Each run navigates away first (to a blank page), so every load is a
fresh navigation of the same URL.

Needs Chromium at /usr/lib/chromium/chromium, `pip install mkdocs-material`
and a tabwire build (TABWIRE_BIN, else target/release, else target/debug).
Run: python3 bench/open-waits.py [--runs 7]
Prints a table and writes bench/results/open-waits-<time>.json.
"""
import argparse
import http.server
import os
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from benchlib import McpServer, bench_module, tabwire_bin, tabwire_servers, write_results  # noqa: E402

nav_waits = bench_module("nav-waits")

LIVE = """<!doctype html><meta charset=utf-8><title>Live board</title>
<h1>Live board</h1><p id=news>No news yet</p><p id=ticks>no ticks</p>
<script>
  fetch('/poll?since=0').then(r => r.text()).then(t => { news.textContent = t; }).catch(() => {});
  new EventSource('/events').onmessage = (e) => { ticks.textContent = e.data; };
</script>"""


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def do_GET(self):
        if self.path.startswith("/poll"):
            time.sleep(30)
            return self.send_text("text/plain", "news")
        if self.path.startswith("/events"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for i in range(30):
                    self.wfile.write(f"data: tick {i}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:
                pass
            return
        if self.path.startswith("/blank"):
            return self.send_text("text/html", "<!doctype html><title>Blank</title>")
        return self.send_text("text/html", LIVE)

    def send_text(self, kind, body):
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            self.wfile.write(data)
        except OSError:
            pass

    def log_message(self, *a):
        pass


class Threading(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def serve(handler):
    srv = Threading(("127.0.0.1", 0), handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}"


def build_mkdocs(tmp):
    os.makedirs(f"{tmp}/mk/docs")
    with open(f"{tmp}/mk/mkdocs.yml", "w") as f:
        f.write("site_name: Bench\ntheme:\n  name: material\n  font: false\n")
    for name, text in (("index.md", "# Home\n\nHello.\n"), ("guide.md", "# Guide\n\nSteps.\n")):
        with open(f"{tmp}/mk/docs/{name}", "w") as f:
            f.write(text)
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site"], cwd=f"{tmp}/mk",
                   check=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"), capture_output=True)
    site = f"{tmp}/mk/site"

    class Files(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *a, **k):
            super().__init__(*a, directory=site, **k)

        def log_message(self, *a):
            pass
    return serve(Files)


def median(xs):
    return round(statistics.median(xs), 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tabwire-open-waits-")
    live = serve(Handler)
    mk = build_mkdocs(tmp)
    cases = [("live", f"{live}/live", "/live", f"{live}/blank"),
             ("mkdocs", f"{mk}/guide/", "/guide/", f"{mk}/404.html")]
    b = tabwire_bin("open-waits")
    env, servers = tabwire_servers(b, tmp)
    rows = {name: {"browser": [], **{label: [] for label, _ in servers}} for name, *_ in cases}
    answers = {}
    raw = nav_waits.Cdp()
    mcps = [(label, McpServer(label, argv, env, tmp)) for label, argv in servers]
    for name, url, path, away in cases:
        raw.time_to(url, path, "load")  # warm the cache
        for label, m in mcps:
            m.call("browser_navigate", {"url": url})
    for r in range(args.runs):
        print(f"\ropen-waits: run {r + 1}/{args.runs}", end="", file=sys.stderr)
        for name, url, path, away in cases:
            raw.send("Page.navigate", {"url": away}, raw.session)
            rows[name]["browser"].append(raw.time_to(url, path, "load"))
            for label, m in mcps:
                m.call("browser_navigate", {"url": away})
                ms, text = m.call("browser_navigate", {"url": url})
                rows[name][label].append(ms)
                answers[f"{name} {label}"] = text[-400:]
    print(file=sys.stderr)
    for _, m in mcps:
        m.stop()
    raw.stop()
    print("\n| page | browser load (ms) | backend | navigate (ms) | over the load | target |")
    print("|---|---:|---|---:|---:|---|")
    summary = {}
    for name, *_ in cases:
        load = median(rows[name]["browser"])
        for label, _ in servers:
            nav = median(rows[name][label])
            target = load + 300 if name == "live" else 1.5 * load
            summary[f"{name} {label}"] = {"load_ms": load, "navigate_ms": nav, "target_ms": target}
            print(f"| {name} | {load} | {label} | {nav} | +{nav - load:.0f} ms ({nav / load:.2f}×) | "
                  f"{'met' if nav <= target else 'missed'} (≤ {target:.0f} ms) |")
    path = write_results("open-waits", {"runs": args.runs, "binary": b, "rows": rows,
                                        "summary": summary, "last_answers": answers})
    print(f"\nwrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
