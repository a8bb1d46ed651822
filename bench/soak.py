#!/usr/bin/env python3
"""Long sessions stay flat (issue 24): the same work repeated for a
thousand rounds must not make the page, `tabwire serve` or the native host
heavier, nor each round slower.

Apps:
  feed     a local page that re-renders 1,000 buttons on every click (a
           feed, a dashboard): a round is browser_snapshot, then a click on
           a fresh ref from it (which replaces every button).
  jupyter  JupyterLab from PyPI (installed into bench/.cache/jupyter on
           first use), a notebook with one code cell: a round is
           browser_snapshot, a click on the cell's editor from it and
           Control+Enter (the kernel runs the cell and its output is
           replaced; the notebook keeps its size).

Each app runs on both backends (`--backend cdp|extension|both`). At round 1,
every `--every` rounds and at the end it samples the page's JS heap after a
GC (performance.memory with --enable-precise-memory-info and
--js-flags=--expose-gc, through browser_evaluate: the whole renderer
isolate, tabwire's isolated world included), the RSS of serve and of the
native host (from /proc; the host only exists on the extension backend)
and the mean time per round since the last sample; with a serve started
with TABWIRE_DEBUG_COUNTS=1 (as here) browser_status also gives the sizes
of the engine's ref table and serve's ref marks, sampled too.

Targets (issue 24): heap, serve RSS and host RSS at the last round <= 1.2x
their value at round 100; time per round over the last 100 rounds <= 1.1x
rounds 100-200. Printed, never failed on.

Needs Chromium at /usr/lib/chromium/chromium and a tabwire build
(TABWIRE_BIN, else target/release, else target/debug).
Run: python3 bench/soak.py [--rounds 1000] [--every 50] [--app feed|jupyter|both]
                           [--backend cdp|extension|both]
Prints a progress line and a table; writes bench/results/soak-<time>.json.
"""
import argparse
import atexit
import http.server
import json
import os
import re
import shutil
import socket
import socketserver
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, tabwire_bin, tabwire_servers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="tabwire-soak-")
CHROME_ARGS = ("--js-flags=--expose-gc", "--enable-precise-memory-info")

FEED = """<!doctype html><title>Soak feed</title>
<main><h1>Feed</h1><p id=round>round 0</p><ul id=list></ul></main>
<script>
let round = 0;
function render() {
  round++;
  const items = [];
  for (let i = 0; i < 1000; i++) {
    const li = document.createElement('li');
    const b = document.createElement('button');
    b.textContent = `Item ${i} of round ${round}`;
    b.onclick = render;
    li.append(b);
    items.push(li);
  }
  document.getElementById('list').replaceChildren(...items);
  document.getElementById('round').textContent = `round ${round}`;
}
render();
</script>"""

HEAP = "() => { if (globalThis.gc) gc(); return 'heap=' + performance.memory.usedJSHeapSize; }"
REF = re.compile(r'\[ref=(e\d+)\]')


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = FEED.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *a):
        pass


def serve_feed():
    httpd = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/feed"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_jupyter():
    """JupyterLab (pip, into bench/.cache/jupyter) on a fresh notebook; its URL."""
    venv = f"{ROOT}/bench/.cache/jupyter"
    jupyter = f"{venv}/bin/jupyter"
    if not os.path.exists(jupyter):
        print("soak: installing jupyterlab from PyPI into bench/.cache/jupyter", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([f"{venv}/bin/pip", "install", "-q", "jupyterlab"], check=True)
    work = f"{TMP}/notebooks"
    os.makedirs(work)
    cell = "import random\nprint('value', random.random())"
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "id": "soak", "metadata": {},
                     "outputs": [], "source": cell}],
          "metadata": {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}},
          "nbformat": 4, "nbformat_minor": 5}
    json.dump(nb, open(f"{work}/soak.ipynb", "w"))
    port = free_port()
    env = dict(os.environ, JUPYTER_CONFIG_DIR=f"{TMP}/jconfig", JUPYTER_DATA_DIR=f"{TMP}/jdata",
               JUPYTER_RUNTIME_DIR=f"{TMP}/jrt", IPYTHONDIR=f"{TMP}/ipython")
    p = subprocess.Popen([jupyter, "lab", "--no-browser", f"--port={port}", "--ip=127.0.0.1",
                          "--allow-root", "--IdentityProvider.token=", "--ServerApp.password=",
                          "--ServerApp.disable_check_xsrf=True", f"--ServerApp.root_dir={work}",
                          "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
                         env=env, stdout=subprocess.DEVNULL, stderr=open(f"{TMP}/jupyter.log", "w"))
    atexit.register(p.kill)
    url = f"http://127.0.0.1:{port}/lab/tree/soak.ipynb"
    for _ in range(120):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return url
        except OSError:
            time.sleep(0.5)
    sys.exit(f"soak: jupyter lab did not start; see {TMP}/jupyter.log")


def rss_kb(pid):
    try:
        for line in open(f"/proc/{pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def host_rss_kb():
    """RSS of the native host(s) this run's Chromium started (known by the
    runtime dir in their environment), summed; None if none."""
    total, found = 0, False
    mark = f"TABWIRE_RUNTIME_DIR={TMP}/rt".encode()
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
            if not cmd or not cmd[0].endswith(b"tabwire-host"):
                continue
            if mark not in open(f"/proc/{pid}/environ", "rb").read().split(b"\0"):
                continue
        except OSError:
            continue
        kb = rss_kb(pid)
        if kb is not None:
            total += kb
            found = True
    return total if found else None


def heap_kb(srv):
    _, text = srv.call("browser_evaluate", {"function": HEAP})
    m = re.search(r"heap=(\d+)", text)
    return int(m.group(1)) // 1024 if m else None


def counts(srv):
    """Ref table sizes from browser_status (serve started with
    TABWIRE_DEBUG_COUNTS=1); {} from a build without them."""
    _, text = srv.call("browser_status", {})
    m = re.search(r"^Debug counts: (.*)$", text, re.M)
    if not m:
        return {}
    return {k: int(v) for k, v in re.findall(r"([\w.]+)=(\d+)", m.group(1))}


class Feed:
    name = "feed"

    def __init__(self, url):
        self.url = url

    def open(self, srv):
        srv.call("browser_navigate", {"url": self.url})

    def round(self, srv, i):
        _, snap = srv.call("browser_snapshot", {})
        refs = [r for line in snap.splitlines() if "Item " in line for r in REF.findall(line)]
        if not refs:
            raise RuntimeError(f"no button ref in the snapshot of round {i}:\n{snap[:2000]}")
        srv.call("browser_click", {"target": refs[i % len(refs)]})


class Jupyter:
    name = "jupyter"

    def __init__(self, url):
        self.url = url

    def open(self, srv):
        srv.call("browser_navigate", {"url": self.url})
        for attempt in range(4):
            try:
                srv.call("browser_wait_for", {"text": "random.random", "timeout": 25})
                break
            except RuntimeError:
                if attempt == 3:
                    raise
        # Lab asks once about news: answer, so the alert leaves the page.
        _, snap = srv.call("browser_snapshot", {})
        m = re.search(r'button "No" \[ref=(e\d+)\]', snap)
        if m:
            srv.call("browser_click", {"target": m.group(1)})
        # The kernel starts with the notebook.
        srv.call("browser_wait_for", {"time": 5})

    def round(self, srv, i):
        _, snap = srv.call("browser_snapshot", {})
        editor = None
        for line in snap.splitlines():
            if "textbox" in line and REF.search(line) and ("random" in line or "print" in line):
                editor = REF.search(line).group(1)
                break
        if editor is None:
            # The editor's line may not carry the cell's text: take the
            # notebook's first textbox.
            boxes = [REF.search(l).group(1) for l in snap.splitlines()
                     if "- textbox" in l and REF.search(l)]
            if not boxes:
                raise RuntimeError(f"no cell editor in the snapshot of round {i}:\n{snap[:3000]}")
            editor = boxes[-1]
        srv.call("browser_click", {"target": editor})
        srv.call("browser_press_key", {"key": "Control+Enter"})

    def done(self, srv):
        """The cell's execution count (the kernel ran it that many times)."""
        srv.call("browser_wait_for", {"time": 2})
        _, text = srv.call("browser_evaluate", {
            "function": "() => 'prompt=' + document.querySelector('.jp-InputPrompt').textContent"})
        m = re.search(r"prompt=\[(\d+)\]", text)
        return {"executions": int(m.group(1)) if m else None}


def soak(label, argv, env, app, rounds, every, progress):
    srv = McpServer(label, argv, env, TMP, client=f"soak-{app.name}")
    try:
        app.open(srv)
        samples, times = [], []
        t_last = time.perf_counter()
        for i in range(1, rounds + 1):
            t = time.perf_counter()
            app.round(srv, i)
            times.append((time.perf_counter() - t) * 1000)
            if i == 1 or i % every == 0 or i == rounds:
                n = len(times) - (samples[-1]["round"] if samples else 0)
                s = {"round": i,
                     "ms_per_round": round(sum(times[-n:]) / n, 1),
                     "page_heap_kb": heap_kb(srv),
                     "serve_rss_kb": rss_kb(srv.p.pid),
                     # (Only the extension backend goes through the host.)
                     "host_rss_kb": host_rss_kb() if "extension" in label else None,
                     **counts(srv)}
                samples.append(s)
                line = (f"{label} {app.name}: round {i}/{rounds}  {s['ms_per_round']} ms/round  "
                        f"heap {s['page_heap_kb']} KB  serve {s['serve_rss_kb']} KB  "
                        f"host {s['host_rss_kb']} KB  {time.perf_counter() - t_last:.0f} s")
                progress(line, final=(i == rounds))
        run = {"samples": samples, "ms": [round(x, 1) for x in times]}
        if hasattr(app, "done"):
            run.update(app.done(srv))
        return run
    finally:
        srv.stop()


def at(samples, r):
    """The sample at round r (or the last one before it)."""
    best = None
    for s in samples:
        if s["round"] <= r:
            best = s
    return best


def verdict(run, rounds):
    samples, ms = run["samples"], run["ms"]
    first, last = at(samples, 100), samples[-1]
    out = {}
    for k in ("page_heap_kb", "serve_rss_kb", "host_rss_kb", "engine.refs", "serve.marks"):
        a, b = (first or {}).get(k), last.get(k)
        if a and b is not None:
            out[k] = {"round_100": a, f"round_{last['round']}": b, "ratio": round(b / a, 2)}
    if rounds >= 300:
        early = ms[100:200]
        late = ms[-100:]
        a, b = sum(early) / len(early), sum(late) / len(late)
        out["ms_per_round"] = {"rounds_100_200": round(a, 1), "last_100": round(b, 1),
                               "ratio": round(b / a, 2)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=1000)
    ap.add_argument("--every", type=int, default=50)
    ap.add_argument("--app", choices=["feed", "jupyter", "both"], default="both")
    ap.add_argument("--backend", choices=["cdp", "extension", "both"], default="both")
    args = ap.parse_args()

    b = tabwire_bin("soak")
    env, servers = tabwire_servers(b, TMP, CHROME_ARGS)
    env = dict(env, TABWIRE_DEBUG_COUNTS="1")
    wanted = {"cdp": ["tabwire-cdp"], "extension": ["tabwire-extension"],
              "both": ["tabwire-extension", "tabwire-cdp"]}[args.backend]
    servers = [(l, a) for l, a in servers if l in wanted]
    apps = []
    if args.app in ("feed", "both"):
        apps.append(Feed(serve_feed()))
    if args.app in ("jupyter", "both"):
        apps.append(Jupyter(start_jupyter()))

    tty = sys.stderr.isatty()

    def progress(line, final=False):
        if tty:
            sys.stderr.write("\r\033[K" + line + ("\n" if final else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()

    results = {"bin": b, "rounds": args.rounds, "every": args.every, "runs": {}}
    for app in apps:
        for label, argv in servers:
            key = f"{label}/{app.name}"
            try:
                run = soak(label, argv, env, app, args.rounds, args.every, progress)
            except Exception as e:  # noqa: BLE001 (a bench reports and goes on)
                print(f"\n{key}: FAILED: {e}", file=sys.stderr)
                results["runs"][key] = {"error": str(e)}
                continue
            run["verdict"] = verdict(run, args.rounds)
            results["runs"][key] = run
            if "executions" in run:
                print(f"{key}: the kernel ran the cell {run['executions']} times", file=sys.stderr)

    print(f"\n## soak: {args.rounds} rounds ({b})\n")
    print("| run | round | ms/round | page heap KB | serve RSS KB | host RSS KB | engine refs | serve marks |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for key, run in results["runs"].items():
        for s in run.get("samples", []):
            if s["round"] in (1, 100, 200, 500) or s is run["samples"][-1]:
                print(f"| {key} | {s['round']} | {s['ms_per_round']} | {s['page_heap_kb']} | "
                      f"{s['serve_rss_kb']} | {s['host_rss_kb'] or '-'} | "
                      f"{s.get('engine.refs', '-')} | {s.get('serve.marks', '-')} |")
    print("\n| run | measure | at round 100 | at the end | ratio | target |")
    print("|---|---|---:|---:|---:|---:|")
    for key, run in results["runs"].items():
        for k, v in run.get("verdict", {}).items():
            vals = list(v.values())
            target = "≤ 1.1" if k == "ms_per_round" else "≤ 1.2"
            print(f"| {key} | {k} | {vals[0]} | {vals[1]} | {vals[2]} | {target} |")

    os.makedirs(f"{ROOT}/bench/results", exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H-%M-%SZ", time.gmtime())
    path = f"{ROOT}/bench/results/soak-{stamp}.json"
    json.dump(results, open(path, "w"), indent=1)
    print(f"\nwrote {path}")
    shutil.rmtree(TMP, ignore_errors=True)


if __name__ == "__main__":
    main()
