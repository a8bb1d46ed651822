#!/usr/bin/env python3
"""Tasks on a real app installed from a registry (Gradio, from PyPI), as an
agent does them: how many calls each task takes and how long, run after
run, on both tabwire backends. The app (bench/apps/gradio_compute.py) has
a Compute button whose work takes a second and a file upload that reports
what it received; both deliver their result over Gradio's queue (a fetch,
then an event stream the click opens and Gradio closes with the result).

The scripted agent does what a model does: it acts, reads the answer, and
when the result it wants is not in it, calls browser_snapshot (counted)
until it is (at most 10 times). The minimum is 3 calls for compute
(navigate, type, click) and 3 for upload (navigate, click, upload).
Target (issue 26): every run takes the minimum, on both backends.

Needs: pip install gradio; Chromium at /usr/lib/chromium/chromium; a
tabwire build. Run: python3 bench/real-app-tasks.py [--runs 5]
Prints a table and writes bench/results/real-app-tasks-<time>.json.
"""
import argparse
import datetime
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, tabwire_bin, tabwire_servers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(tmp):
    port = free_port()
    env = dict(os.environ, GRADIO_ANALYTICS_ENABLED="False")
    app = subprocess.Popen([sys.executable, f"{ROOT}/bench/apps/gradio_compute.py", str(port)],
                           env=env, stdout=open(f"{tmp}/gradio.log", "w"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}/"
    for _ in range(300):
        try:
            urllib.request.urlopen(url, timeout=1)
            return app, url
        except OSError:
            time.sleep(0.2)
    sys.exit("real-app-tasks: the Gradio app did not start (pip install gradio); see " + tmp)


def ref(text, role, name):
    m = re.search(role + r' "' + re.escape(name) + r'"[^\n]*?\[ref=(\w+)\]', text)
    if not m:
        raise RuntimeError(f"no {role} {name!r} with a ref in: {text[:1500]}")
    return m.group(1)


class Agent:
    """Counts calls and time; looks again (browser_snapshot) until `want` shows."""

    def __init__(self, server):
        self.server, self.calls, self.ms = server, 0, 0.0

    def call(self, tool, args):
        ms, text = self.server.call(tool, args)
        self.calls += 1
        self.ms += ms
        return text

    def until(self, text, want):
        for _ in range(10):
            if want in text:
                return text
            text = self.call("browser_snapshot", {})
        raise RuntimeError(f"never saw {want!r}")


def compute(server, url, n):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": url})
    a.call("browser_type", {"target": ref(page, "spinbutton", "Number"), "text": str(n)})
    a.until(a.call("browser_click", {"target": ref(page, "button", "Compute")}),
            f"The square of {n} is {n * n}")
    return a


def upload(server, url, path):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": url})
    a.call("browser_click", {"target": ref(page, "button", "Click to upload or drop files")})
    a.until(a.call("browser_file_upload", {"paths": [path]}),
            f"Received {os.path.basename(path)} ({os.path.getsize(path)} bytes)")
    return a


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tabwire-real-app-")
    app, url = start_app(tmp)
    uploads = f"{tmp}/uploads"
    os.makedirs(uploads)
    data = f"{uploads}/data.csv"
    with open(data, "w") as f:
        f.write("id,value\n" + "".join(f"{i},{i * i}\n" for i in range(100)))
    b = tabwire_bin("real-app-tasks")
    env, servers = tabwire_servers(b, tmp)
    results = {}
    try:
        for label, argv in servers:
            server = McpServer(label, argv + ["--upload-dir", uploads], env, tmp)
            try:
                server.call("browser_navigate", {"url": url})  # warm-up
                rows = {"compute": [], "upload": []}
                for r in range(args.runs):
                    print(f"\rreal-app-tasks: {label} run {r + 1}/{args.runs}", end="", file=sys.stderr)
                    for task, run in (("compute", lambda: compute(server, url, 7 + r)),
                                      ("upload", lambda: upload(server, url, data))):
                        a = run()
                        rows[task].append({"calls": a.calls, "ms": round(a.ms)})
                print(file=sys.stderr)
                results[label] = rows
            finally:
                server.stop()
    finally:
        app.kill()
    print("\n| backend | task | calls per run | median time | minimum every run |")
    print("|---|---|---|---:|---|")
    for label, rows in results.items():
        for task, runs in rows.items():
            calls = [r["calls"] for r in runs]
            print(f"| {label} | {task} | {' '.join(map(str, calls))} | "
                  f"{statistics.median(r['ms'] for r in runs) / 1000:.2f} s | "
                  f"{'yes' if all(c == 3 for c in calls) else 'no'} |")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.join(ROOT, "bench/results", f"real-app-tasks-{stamp}.json")
    with open(out, "w") as f:
        json.dump({"runs": args.runs, "binary": b, "app": "gradio", "results": results}, f, indent=1)
    print(f"\nwrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
