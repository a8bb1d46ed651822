#!/usr/bin/env python3
"""`tabwire call` from a shell, through the extension: how long each call
takes end to end, process start to exit, and where that time goes.
With --backend cdp, the same calls over the CDP fallback, where the calls
of one `--session` share a browser kept by the session's process (the
first call starts it and the browser; the parts below are then not split).

Headless Chromium runs with the real extension and the native host
registered by `tabwire install`; a small page is served by a local HTTP
server. The script runs `tabwire call browser_navigate` to it once, then
`tabwire call browser_get_text` N times, one process after another as a
shell script would, and times each process. From each call's log (stderr,
RUST_LOG=tabwire=info) it splits the time into:
  start     process start → its socket is listening
  discover  listening → the native host connected to it
  hello     host connected → the extension answered hello
  tool      hello answered → the tool's answer is ready (tab lookup, the
            tab's setup, the tool's own CDP calls)
  exit      answer ready → the process exited (printing, shutdown)

Needs Chromium at /usr/lib/chromium/chromium and a tabwire build
(TABWIRE_BIN, else target/release, else target/debug).
With --grow N it also times `tabwire call browser_navigate` (median of 7)
before the runs and again after N more calls: a tab's setup that piled up
per call (each serve adding the engine's script for new documents again)
showed as navigations getting slower with every call.

Run: python3 bench/call-latency.py [--runs 30] [--grow 300] [--backend cdp]
Prints median/p90 and the first call, and writes
bench/results/call-latency-<time>.json. Target (issue 25): median ≤ 20 ms
after the first call.
"""
import argparse
import datetime
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
from benchlib import ROOT, tabwire_bin, tabwire_servers  # noqa: E402

TMP = tempfile.mkdtemp(prefix="tabwire-call-latency-")
PAGE = b"<!doctype html><title>Small</title><h1>Small page</h1><p>Some words to read.</p>"


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *a):
        pass


def serve_page():
    srv = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    srv.daemon_threads = True
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{srv.server_address[1]}/small"


MARKS = [("listening", "listening for the native host"),
         ("host", "native host connected"),
         ("hello", "extension answered hello"),
         ("tool", "tool call tool=")]


def log_time(line):
    """Wall-clock seconds of a tracing line's leading RFC 3339 timestamp."""
    stamp = line.split(" ", 1)[0].rstrip("Z")
    try:
        day, frac = (stamp.split(".") + ["0"])[:2]
        t = datetime.datetime.strptime(day, "%Y-%m-%dT%H:%M:%S").replace(
            tzinfo=datetime.timezone.utc)
        return t.timestamp() + float("0." + frac)
    except ValueError:
        return None


CHROMIUM = os.environ.get("TABWIRE_TEST_CHROMIUM", "/usr/lib/chromium/chromium")
# The call's own flags: through the extension, or a CDP session.
VIA = {"extension": ["--connect-timeout", "30"],
       "cdp": ["--backend", "cdp", "--session", "bench", "--browser-path", CHROMIUM, "--headless",
               "--browser-arg=--disable-background-networking",
               "--browser-arg=--disable-component-update", "--browser-arg=--disable-sync"]}
via = "extension"


def call(b, env, tool, args, log):
    """Runs one `tabwire call`; (ms end to end, {phase: ms}, stdout)."""
    wall = time.time()
    t = time.perf_counter()
    p = subprocess.run([b, "call", *VIA[via], tool, "--args", json.dumps(args)],
                       env=env, capture_output=True)
    ms = (time.perf_counter() - t) * 1000
    end = wall + ms / 1000
    with open(log, "ab") as f:
        f.write(p.stderr)
    if p.returncode != 0:
        sys.exit(f"call-latency: {tool} failed ({p.returncode}): {p.stdout[:300]!r} "
                 f"{p.stderr[-600:]!r}")
    at = {"start": wall}
    for line in p.stderr.decode(errors="replace").splitlines():
        for name, text in MARKS:
            if text in line and name not in at:
                at[name] = log_time(line)
    phases = {}
    at["exit"] = end
    order = ["start", "listening", "host", "hello", "tool", "exit"]
    names = {"listening": "start", "host": "discover", "hello": "hello", "tool": "tool",
             "exit": "exit"}
    if all(at.get(k) for k in order):
        for a, b_ in zip(order, order[1:]):
            phases[names[b_]] = (at[b_] - at[a]) * 1000
    return ms, phases, p.stdout


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(q * (len(xs) - 1))))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--grow", type=int, default=0)
    ap.add_argument("--backend", choices=["extension", "cdp"], default="extension")
    opts = ap.parse_args()
    global via
    via = opts.backend
    b = tabwire_bin("call-latency")
    if via == "cdp":
        env = dict(os.environ, TABWIRE_RUNTIME_DIR=f"{TMP}/rt", TABWIRE_DATA_DIR=f"{TMP}/data")
    else:
        env, _ = tabwire_servers(b, TMP)
    # CALL_LATENCY_LOG=tabwire=debug shows each call's CDP round trips in
    # the log (its path is printed at the end).
    env["RUST_LOG"] = os.environ.get("CALL_LATENCY_LOG", "tabwire=info")
    url = serve_page()
    log = f"{TMP}/calls.log"

    # The first call also waits for Chromium and its extension to come up.
    nav_ms, nav_phases, out = call(b, env, "browser_navigate", {"url": url}, log)
    if b"Small page" not in out:
        sys.exit(f"call-latency: navigate did not reach the page: {out[:300]!r}")
    print(f"call-latency: navigate (first call) {nav_ms:.0f} ms", file=sys.stderr)

    def navigations():
        return statistics.median(call(b, env, "browser_navigate", {"url": url}, log)[0]
                                 for _ in range(7))
    grow = {}
    if opts.grow:
        grow["navigate_before_ms"] = round(navigations(), 1)
    runs = []
    for i in range(opts.runs):
        ms, phases, out = call(b, env, "browser_get_text", {}, log)
        if b"Some words to read" not in out:
            sys.exit(f"call-latency: get_text did not read the page: {out[:300]!r}")
        runs.append({"ms": ms, "phases": phases})
        print(f"call-latency: get_text {i + 1}/{opts.runs}: {ms:.0f} ms", file=sys.stderr)

    if opts.grow:
        for i in range(opts.grow):
            call(b, env, "browser_get_text", {}, log)
            if (i + 1) % 50 == 0:
                print(f"call-latency: grow {i + 1}/{opts.grow}", file=sys.stderr)
        grow["navigate_after_ms"] = round(navigations(), 1)
        grow["calls_between"] = opts.runs + opts.grow

    first = runs[0]["ms"]
    after = [r["ms"] for r in runs[1:]] or [first]
    summary = {
        "first_ms": round(first, 1),
        "median_ms": round(statistics.median(after), 1),
        "p90_ms": round(pct(after, 0.9), 1),
        "min_ms": round(min(after), 1),
    }
    phase_medians = {}
    for name in ["start", "discover", "hello", "tool", "exit"]:
        xs = [r["phases"][name] for r in runs[1:] if name in r["phases"]]
        if xs:
            phase_medians[name] = round(statistics.median(xs), 1)

    print(f"tabwire call browser_navigate (first, browser warming): {nav_ms:.0f} ms")
    if via == "cdp":
        subprocess.run([b, "call", *VIA["cdp"], "--close"], env=env, capture_output=True)
    through = "through the extension" if via == "extension" else "over the CDP fallback (one session)"
    print(f"tabwire call browser_get_text, {opts.runs} runs {through}:")
    print(f"  first {summary['first_ms']:.1f} ms; after it: median {summary['median_ms']:.1f} ms, "
          f"p90 {summary['p90_ms']:.1f} ms, min {summary['min_ms']:.1f} ms  (target: median ≤ 20 ms)")
    print("  median per part: " + ", ".join(f"{k} {v:.1f} ms" for k, v in phase_medians.items()))
    if grow:
        print(f"tabwire call browser_navigate, median of 7: {grow['navigate_before_ms']:.1f} ms, "
              f"and {grow['navigate_after_ms']:.1f} ms after {grow['calls_between']} more calls")

    os.makedirs(f"{ROOT}/bench/results", exist_ok=True)
    stamp = time.strftime("%Y-%m-%dT%H-%M-%SZ", time.gmtime())
    path = f"{ROOT}/bench/results/call-latency-{via}-{stamp}.json"
    with open(path, "w") as f:
        binary = os.path.relpath(b, ROOT) if b.startswith(ROOT + "/") else os.path.basename(b)
        json.dump({"bench": "call-latency", "backend": via, "binary": binary,
                   "build": "release" if "/release/" in b else "debug",
                   "runs": opts.runs, "navigate_first_ms": round(nav_ms, 1),
                   "get_text": summary, "phase_medians_ms": phase_medians, "grow": grow,
                   "each": [{"ms": round(r["ms"], 1),
                             "phases": {k: round(v, 1) for k, v in r["phases"].items()}}
                            for r in runs]}, f, indent=1)
    print(f"wrote {os.path.relpath(path, ROOT)} (the calls' log: {log})")


if __name__ == "__main__":
    main()
