#!/usr/bin/env python3
"""Action answers that show their result: how long a click takes whose
handler fetches an API (600 ms) and renders the answer, while an event
stream and a long poll stay open on the page, and how long a click that
starts no request takes (the fixed cost, which the request wait must not
raise). Both tabwire backends; each click's answer is checked for the
rendered result ("The answer is 42"), not "Loading…".

The page is tests/pages/compute.html, served by this script with the API
(/api/slow?ms=N), an endless event stream (/api/events) and a request that
never answers (/never/...).

Target (issue 26): the click's answer shows the result and takes
≤ 600 ms + 100 ms.

Needs Chromium at /usr/lib/chromium/chromium and a tabwire build
(TABWIRE_BIN, else target/release, else target/debug).
Run: python3 bench/action-waits.py [--runs 5]
Prints a table and writes bench/results/action-waits-<time>.json.
"""
import argparse
import datetime
import http.server
import json
import os
import socketserver
import statistics
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, tabwire_bin, tabwire_servers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = open(os.path.join(ROOT, "tests/pages/compute.html"), "rb").read()


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def _send(self, ctype, body):
        self.send_response(200)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path
        if path.startswith("/never"):
            time.sleep(120)
        elif path.startswith("/api/slow"):
            ms = int(path.split("ms=")[1].split("&")[0]) if "ms=" in path else 600
            time.sleep(ms / 1000)
            self._send("application/json", json.dumps({"answer": 42, "ms": ms}).encode())
        elif path.startswith("/api/events"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            try:
                for i in range(120):
                    self.wfile.write(f"data: tick {i}\n\n".encode())
                    self.wfile.flush()
                    time.sleep(1)
            except OSError:
                pass
        else:
            self._send("text/html; charset=utf-8", PAGE)

    do_POST = do_GET

    def log_message(self, *a):
        pass


class ThreadingServer(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    srv = ThreadingServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    site = f"http://127.0.0.1:{srv.server_address[1]}/compute"
    b = tabwire_bin("action-waits")
    tmp = tempfile.mkdtemp(prefix="tabwire-action-waits-")
    env, servers = tabwire_servers(b, tmp)
    results = {}
    for label, argv in servers:
        server = McpServer(label, argv, env, tmp)
        try:
            server.call("browser_navigate", {"url": site})
            rows = {"compute": [], "plain": []}
            shown = 0
            for r in range(args.runs):
                print(f"\raction-waits: {label} round {r + 1}/{args.runs}", end="", file=sys.stderr)
                server.call("browser_navigate", {"url": site})
                ms, text = server.call("browser_click", {"target": "#compute"})
                rows["compute"].append(ms)
                shown += "The answer is 42" in text
                ms, _ = server.call("browser_click", {"target": "#plain"})
                rows["plain"].append(ms)
            print(file=sys.stderr)
            results[label] = {
                "compute_click_ms": statistics.median(rows["compute"]),
                "plain_click_ms": statistics.median(rows["plain"]),
                "result_shown": f"{shown}/{args.runs}",
                "all_ms": rows,
            }
        finally:
            server.stop()
    print("\n| backend | click + 600 ms request (median) | result in the answer | "
          "plain click (median) | target ≤ 700 ms |")
    print("|---|---:|---:|---:|---|")
    for label, r in results.items():
        ok = "yes" if r["compute_click_ms"] <= 700 else "no"
        print(f"| {label} | {r['compute_click_ms']:.0f} ms | {r['result_shown']} | "
              f"{r['plain_click_ms']:.0f} ms | {ok} |")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.join(ROOT, "bench/results", f"action-waits-{stamp}.json")
    with open(out, "w") as f:
        json.dump({"runs": args.runs, "binary": b, "results": results}, f, indent=1)
    print(f"\nwrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
