#!/usr/bin/env python3
"""The engine's first snapshots on a fresh document against later ones.

Every navigation gives the engine a new world, so its code starts cold
(V8 has not optimised it for that world yet) just when a navigation's
answer needs a skeleton. This bench shows what that costs, with no tabwire
process involved: Chromium over a CDP pipe, the engine registered for new
documents in its own world as tabwire does, and for each page, --runs
times: navigate, wait for the load event, then time skeleton snapshots
1 to 6 (a pixel of scrolling before each, so none reuses the last).

Needs Chromium at /usr/lib/chromium/chromium and, for the default pages,
`sh bench/real-site.sh &` (Python's docs: stdtypes, os, functions).
Run: python3 bench/first-snapshot.py [--runs 5] [--engine ENGINE] [URL ...]
(--engine: the engine to time: `current`, the default, is the working
tree's src/engine/parts/ joined as the build joins them; `@REV` is the
engine at git revision REV; anything else is the path of a joined file,
e.g. from `python3 bench/engine_source.py --rev main > /tmp/engine-main.js`)
Prints the median of each snapshot's time per page and writes
bench/results/first-snapshot-<time>.json.
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import bench_module, write_results  # noqa: E402
import engine_source  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
nav_waits = bench_module("nav-waits")

DOCS = "http://127.0.0.1:8765"
PAGES = [f"{DOCS}/library/stdtypes.html", f"{DOCS}/library/os.html",
         f"{DOCS}/library/functions.html"]
SNAPSHOTS = 6
# Times measured inside the page (performance.now), so the pipe's hops do
# not count: the engine's own work only.
TIMED = """(() => { const out = [];
  for (let i = 0; i < %d; i++) { scrollBy(0, i %% 2 ? -1 : 1); const t = performance.now();
    __tabwire.snapshot({budget: 40000, skeleton: 12000}); out.push(performance.now() - t); }
  return out; })()""" % SNAPSHOTS


def measure(cdp, url, runs):
    rows = []
    for r in range(runs + 1):
        print(f"\rfirst-snapshot: {url.rsplit('/', 1)[-1]} {r + 1}/{runs + 1}\033[K",
              end="", file=sys.stderr, flush=True)
        world = cdp.load_in_world(f"{url}?run={r}", "tabwire")
        times = cdp.send("Runtime.evaluate", {"expression": TIMED, "contextId": world,
                                              "returnByValue": True}, cdp.session)
        if r:  # the first run warms the browser up
            rows.append(times["result"]["value"])
    return [statistics.median(col) for col in zip(*rows)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--engine", default="current")
    ap.add_argument("urls", nargs="*", default=PAGES)
    a = ap.parse_args()
    nav_waits.TMP = tempfile.mkdtemp(prefix="tabwire-first-snapshot-")
    cdp = nav_waits.Cdp()
    try:
        cdp.send("Emulation.setDeviceMetricsOverride",
                 {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False}, cdp.session)
        cdp.send("Runtime.enable", {}, cdp.session)
        engine = engine_source.load(a.engine)
        cdp.send("Page.addScriptToEvaluateOnNewDocument",
                 {"source": engine, "worldName": "tabwire"}, cdp.session)
        results = {u: measure(cdp, u, a.runs) for u in a.urls}
    finally:
        cdp.stop()
    print(file=sys.stderr)
    print("| page | " + " | ".join(f"snapshot {i + 1}" for i in range(SNAPSHOTS)) + " |")
    print("|---|" + "---:|" * SNAPSHOTS)
    for u, ms in results.items():
        print(f"| {u.rsplit('/', 1)[-1]} | " + " | ".join(f"{x:.1f} ms" for x in ms) + " |")
    print("wrote", write_results("first-snapshot", {"runs": a.runs, "engine": a.engine,
                                             "median_ms": results}))


if __name__ == "__main__":
    main()
