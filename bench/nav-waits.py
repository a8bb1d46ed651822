#!/usr/bin/env python3
"""Awkward navigations: how long `browser_navigate` takes against the
browser's own time to the final page.

Cases (served by a small local HTTP server in this script):
  plain     an ordinary small page (the fixed cost of navigate + snapshot)
  replace   a page whose head script calls location.replace
  chain     a script redirect, then a <meta http-equiv=refresh> to the end
  stuck     content at once, and an image that never arrives

"Browser" is Chromium driven over a raw CDP pipe by this script: from
Page.navigate to the final document's load event (for `stuck`, which never
loads, to its DOMContentLoaded). tabwire is timed over MCP stdio, snapshot
answer included, through the extension and through the CDP fallback;
playwright-mcp too when it is installed in bench/.cache (see
bench/real-pages.py). Targets (issue 14): replace and chain ≤ 1.2× the
browser, stuck ≤ 3 s with the content.

Needs Chromium at /usr/lib/chromium/chromium and a tabwire build
(TABWIRE_BIN, else target/release, else target/debug).
Run: python3 bench/nav-waits.py [--runs 5]
Prints a table and writes bench/results/nav-waits-<time>.json.
"""
import argparse
import atexit
import http.server
import json
import os
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CHROMIUM, FLAGS, McpServer, tabwire_bin, tabwire_servers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="tabwire-nav-waits-")

PAGES = {
    "/start": "<!doctype html><title>Start</title><h1>Start</h1>",
    "/jump": "<!doctype html><title>Jump</title><script>location.replace('/landed')</script><p>Jumping",
    "/landed": "<!doctype html><title>Landed</title><h1>landed</h1>",
    "/chain": "<!doctype html><title>Chain</title><script>location.href = '/chain-meta'</script><p>Chain",
    "/chain-meta": '<!doctype html><title>Meta</title><meta http-equiv="refresh" content="0; url=/chained"><p>Refreshing',
    "/chained": "<!doctype html><title>Chained</title><h1>chained</h1>",
    "/stuck": '<!doctype html><title>Stuck</title><h1>Stuck content</h1><img src="/never.png" alt="never">',
}
CASES = [("plain", "/landed", "/landed", "landed"),
         ("replace", "/jump", "/landed", "landed"),
         ("chain", "/chain", "/chained", "chained"),
         ("stuck", "/stuck", "/stuck", "Stuck content")]


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/never"):
            time.sleep(120)
            return
        body = PAGES.get(self.path.split("?")[0])
        if body is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        data = body.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *a):
        pass


class ThreadingServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def start_site():
    srv = ThreadingServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}"


class Cdp:
    """Chromium over --remote-debugging-pipe: the browser's own times."""

    def __init__(self):
        r_in, w_in = os.pipe()    # we write, browser reads (fd 3)
        r_out, w_out = os.pipe()  # browser writes (fd 4), we read

        def fds():
            os.dup2(r_in, 3)
            os.dup2(w_out, 4)
        self.p = subprocess.Popen([CHROMIUM, *FLAGS, f"--user-data-dir={TMP}/raw",
                                   "--remote-debugging-pipe", "about:blank"],
                                  preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        atexit.register(self.p.kill)
        os.close(r_in)
        os.close(w_out)
        self.w = os.fdopen(w_in, "wb")
        self.r = os.fdopen(r_out, "rb")
        self.buf = b""
        self.i = 0
        self.events = []
        t = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": t, "flatten": True})["sessionId"]
        for m, p in (("Page.enable", {}), ("Page.setLifecycleEventsEnabled", {"enabled": True})):
            self.send(m, p, self.session)

    def read(self):
        while b"\0" not in self.buf:
            chunk = self.r.read1(65536)
            if not chunk:
                raise RuntimeError("browser closed the pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params, session=None):
        self.i += 1
        msg = {"id": self.i, "method": method, "params": params}
        if session:
            msg["sessionId"] = session
        self.w.write(json.dumps(msg).encode() + b"\0")
        self.w.flush()
        while True:
            m = self.read()
            if m.get("id") == self.i:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m["result"]
            self.events.append(m)

    def time_to(self, url, final_path, event):
        """ms from Page.navigate to `event` (load or DOMContentLoaded) of
        the top document whose URL ends with final_path."""
        self.events = []
        t0 = time.perf_counter()
        self.send("Page.navigate", {"url": url}, self.session)
        loader = None
        pending = list(self.events)
        while True:
            m = pending.pop(0) if pending else self.read()
            meth, p = m.get("method"), m.get("params", {})
            if meth == "Page.frameNavigated" and "parentId" not in p["frame"]:
                loader = p["frame"]["loaderId"] if p["frame"]["url"].endswith(final_path) else None
            if (meth == "Page.lifecycleEvent" and loader and p["loaderId"] == loader
                    and p["name"] == event):
                return (time.perf_counter() - t0) * 1000

    def load_in_world(self, url, world_name):
        """Page.navigate to `url`, until its load event; the id of the
        context the world `world_name` (registered for new documents) has
        in the new document, or None."""
        self.events = []
        self.send("Page.navigate", {"url": url}, self.session)
        world, pending = None, list(self.events)
        while True:
            m = pending.pop(0) if pending else self.read()
            p = m.get("params", {})
            if m.get("method") == "Runtime.executionContextCreated" and p["context"]["name"] == world_name:
                world = p["context"]["id"]
            if m.get("method") == "Page.loadEventFired":
                return world

    def stop(self):
        self.p.kill()


def median(xs):
    return round(statistics.median(xs), 1) if xs else None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    site = start_site()
    results = {"runs": a.runs, "cases": {}}

    raw = Cdp()
    raw.time_to(f"{site}/start", "/start", "load")
    browser = {}
    for name, path, final, _ in CASES:
        event = "DOMContentLoaded" if name == "stuck" else "load"
        times = []
        for _ in range(a.runs):
            raw.time_to(f"{site}/start", "/start", "load")
            times.append(raw.time_to(f"{site}{path}", final, event))
        browser[name] = {"median_ms": median(times), "event": event, "all_ms": [round(t, 1) for t in times]}
    raw.stop()
    results["browser"] = browser

    b = tabwire_bin("nav-waits")
    results["tabwire_bin"] = b
    env, servers = tabwire_servers(b, TMP)
    pw = os.environ.get("PLAYWRIGHT_MCP", f"{ROOT}/bench/.cache/node_modules/@playwright/mcp/cli.js")
    if os.path.exists(pw):
        servers.append(("playwright-mcp", ["node", pw, "--headless", "--isolated", "--no-sandbox",
                                           "--executable-path", CHROMIUM, "--output-dir",
                                           f"{TMP}/pw-out"]))
    for label, argv in servers:
        print(f"nav-waits: {label}", file=sys.stderr)
        s = McpServer(label, argv, env, TMP, client="nav-waits")
        out = {}
        try:
            s.call("browser_navigate", {"url": f"{site}/start"})
            for name, path, final, heading in CASES:
                times, ok = [], True
                for _ in range(a.runs):
                    s.call("browser_navigate", {"url": f"{site}/start"})
                    ms, text = s.call("browser_navigate", {"url": f"{site}{path}"})
                    times.append(ms)
                    ok = ok and final in text and heading in text
                out[name] = {"median_ms": median(times), "all_ms": [round(t, 1) for t in times],
                             "final_page_shown": ok}
        except Exception as e:
            out["error"] = str(e)
        finally:
            s.stop()
        results["cases"][label] = out

    labels = list(results["cases"])
    print("| case | browser (ms) | " + " | ".join(f"{l} (ms)" for l in labels) + " |")
    print("|---|---:|" + "---:|" * len(labels))
    for name, *_ in CASES:
        br = browser[name]["median_ms"]
        cells = []
        for l in labels:
            c = results["cases"][l].get(name)
            if not c:
                cells.append("error")
                continue
            ratio = f" ({c['median_ms'] / br:.2f}×)" if br else ""
            # Without the fixed cost a plain page has over the browser
            # (MCP round trip, snapshot): the wait itself.
            plain = results["cases"][l].get("plain")
            if plain and name != "plain":
                wait = c["median_ms"] - (plain["median_ms"] - browser["plain"]["median_ms"])
                c["wait_estimate_ms"] = round(wait, 1)
                ratio += f", wait ≈ {wait:.0f} ({wait / br:.2f}×)"
            cells.append(f"{c['median_ms']}{ratio}{'' if c['final_page_shown'] else ' WRONG PAGE'}")
        print(f"| {name} | {br} ({browser[name]['event']}) | " + " | ".join(cells) + " |")
    print("targets: replace and chain ≤ 1.2× the browser; stuck ≤ 3000 ms with the content")
    print("(wait ≈ the case's time minus the fixed cost a plain page has over the browser)")
    os.makedirs(f"{ROOT}/bench/results", exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H-%M-%SZ", time.gmtime())
    path = f"{ROOT}/bench/results/nav-waits-{stamp}.json"
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
