#!/usr/bin/env python3
"""Tasks on real apps installed from the registries, as an agent does
them: how many calls each task takes and how long, run after run, on both
tabwire backends.

Apps and tasks (minimum calls in brackets):
  gradio     compute [3]: navigate, type a number, click Compute (a second
             of work, delivered over Gradio's queue stream);
             upload [3]: navigate, click the upload button, upload a file
             (bench/apps/gradio_compute.py)
  datasette  sql [3]: navigate to the SQL page, type a query into its
             CodeMirror editor (an invisible textarea behind drawn code),
             click Run SQL (tests/apps/datasette_db.py)
  streamlit  slider [3]: navigate, set the slider (a range input hidden
             under its track) to 7 with fill_form, click Submit; 5 when
             navigate's answer comes before the app has drawn itself over
             its websocket (then wait_for and snapshot)
             (tests/apps/streamlit_form.py)
  mkdocs     search [2]: navigate to a Material for MkDocs page (its theme
             starts a search worker), type a word key by key into search

The scripted agent does what a model does: it acts, reads the answer, and
when the result it wants is not in it, calls browser_snapshot (counted)
until it is (at most 10 times). Target (issues 26 and 33): every run takes
the minimum, on both backends.

Needs: pip install gradio streamlit datasette mkdocs-material; Chromium
at /usr/lib/chromium/chromium; a tabwire build.
Run: python3 bench/real-app-tasks.py [--runs 5]
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


def wait_ready(url, what, tmp):
    for _ in range(600):
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            time.sleep(0.1)
    sys.exit(f"real-app-tasks: {what} did not start; see {tmp}")


def start(argv, name, tmp, ready, env=None, cwd=None):
    """Starts an app (argv with {port}), its log in tmp; (process, base URL)."""
    port = free_port()
    p = subprocess.Popen([a.replace("{port}", str(port)) for a in argv], cwd=cwd or tmp,
                         env=dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", **(env or {})),
                         stdout=open(f"{tmp}/{name}.log", "w"), stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    wait_ready(base + ready, name, tmp)
    return p, base


def start_apps(tmp):
    apps = {}
    apps["gradio"] = start([sys.executable, f"{ROOT}/bench/apps/gradio_compute.py", "{port}"],
                           "gradio", tmp, "/")
    subprocess.run([sys.executable, f"{ROOT}/tests/apps/datasette_db.py", f"{tmp}/birds.db"], check=True)
    apps["datasette"] = start([sys.executable, "-m", "datasette", "serve", f"{tmp}/birds.db",
                               "-h", "127.0.0.1", "-p", "{port}"], "datasette", tmp, "/-/versions.json")
    apps["streamlit"] = start([sys.executable, "-m", "streamlit", "run", f"{ROOT}/tests/apps/streamlit_form.py",
                               "--server.headless", "true", "--server.port", "{port}",
                               "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
                               "--server.fileWatcherType", "none"], "streamlit", tmp, "/_stcore/health")
    os.makedirs(f"{tmp}/mk/docs")
    with open(f"{tmp}/mk/mkdocs.yml", "w") as f:
        f.write("site_name: Guide\ntheme:\n  name: material\n  font: false\n")
    with open(f"{tmp}/mk/docs/index.md", "w") as f:
        f.write("# Home\n\nAnemones and crabs live here.\n")
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site"], cwd=f"{tmp}/mk",
                   check=True, capture_output=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
    apps["mkdocs"] = start([sys.executable, "-m", "http.server", "{port}", "--bind", "127.0.0.1"],
                           "mkdocs", tmp, "/", cwd=f"{tmp}/mk/site")
    return apps


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
        raise RuntimeError(f"never saw {want!r} in: {text[-1500:]}")


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


def datasette_sql(server, base):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": f"{base}/birds?sql=select+1"})
    editor = re.search(r"- textbox \[ref=(\w+)\]", page).group(1)
    a.call("browser_type", {"target": editor,
                            "text": "select name from birds where wingspan_cm > 250 order by name"})
    a.until(a.call("browser_click", {"target": ref(page, "button", "Run SQL")}), "Wandering albatross")
    return a


def streamlit_slider(server, base):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": f"{base}/"})
    if "Submit" not in page:
        # The app draws itself over its websocket after loading: a model
        # waits for it, then looks.
        a.call("browser_wait_for", {"text": "Submit"})
        page = a.call("browser_snapshot", {})
    filled = a.call("browser_fill_form", {"fields": [{"target": ref(page, "slider", "Count"),
                                                      "type": "slider", "value": "7"}]})
    if "but" in filled:
        raise RuntimeError(f"the slider was not set: {filled}")
    text = a.call("browser_click", {"target": ref(page, "button", "Submit")})
    for _ in range(3):
        if "Order: 7 x" in text:
            return a
        text = a.call("browser_snapshot", {})
    # A click that came while the app was still rerunning after the
    # slider moved can be dropped by Streamlit: a model clicks again.
    a.until(a.call("browser_click", {"target": ref(text, "button", "Submit")}), "Order: 7 x")
    return a


def mkdocs_search(server, base):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": f"{base}/"})
    a.until(a.call("browser_type", {"target": ref(page, "textbox", "Search"), "text": "anemones",
                                    "slowly": True}), "1 matching document")
    return a


TASKS = [
    ("gradio", "compute", 3, lambda srv, apps, r, data: compute(srv, apps["gradio"][1] + "/", 7 + r)),
    ("gradio", "upload", 3, lambda srv, apps, r, data: upload(srv, apps["gradio"][1] + "/", data)),
    ("datasette", "sql", 3, lambda srv, apps, r, data: datasette_sql(srv, apps["datasette"][1])),
    ("streamlit", "slider", 3, lambda srv, apps, r, data: streamlit_slider(srv, apps["streamlit"][1])),
    ("mkdocs", "search", 2, lambda srv, apps, r, data: mkdocs_search(srv, apps["mkdocs"][1])),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tabwire-real-app-")
    apps = start_apps(tmp)
    uploads = f"{tmp}/uploads"
    os.makedirs(uploads)
    data = f"{uploads}/data.csv"
    with open(data, "w") as f:
        f.write("id,value\n" + "".join(f"{i},{i * i}\n" for i in range(100)))
    b = tabwire_bin("real-app-tasks")
    env, servers = tabwire_servers(b, tmp, ["--window-size=1280,900"])
    results = {}
    try:
        for label, argv in servers:
            server = McpServer(label, argv + ["--upload-dir", uploads], env, tmp)
            try:
                for _, (_, base) in apps.items():
                    server.call("browser_navigate", {"url": base + "/"})  # warm-up
                rows = {f"{app} {task}": [] for app, task, *_ in TASKS}
                for r in range(args.runs):
                    print(f"\rreal-app-tasks: {label} run {r + 1}/{args.runs}", end="", file=sys.stderr)
                    for app, task, _, run in TASKS:
                        a = run(server, apps, r, data)
                        rows[f"{app} {task}"].append({"calls": a.calls, "ms": round(a.ms)})
                print(file=sys.stderr)
                results[label] = rows
            finally:
                server.stop()
    finally:
        for p, _ in apps.values():
            p.kill()
    minimum = {f"{app} {task}": m for app, task, m, _ in TASKS}
    print("\n| backend | task | calls per run | median time | minimum every run |")
    print("|---|---|---|---:|---|")
    for label, rows in results.items():
        for task, runs in rows.items():
            calls = [r["calls"] for r in runs]
            print(f"| {label} | {task} | {' '.join(map(str, calls))} | "
                  f"{statistics.median(r['ms'] for r in runs) / 1000:.2f} s | "
                  f"{'yes' if all(c == minimum[task] for c in calls) else 'no'} |")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.join(ROOT, "bench/results", f"real-app-tasks-{stamp}.json")
    with open(out, "w") as f:
        json.dump({"runs": args.runs, "binary": b, "apps": list(apps), "results": results}, f, indent=1)
    print(f"\nwrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
