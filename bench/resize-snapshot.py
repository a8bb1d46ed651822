#!/usr/bin/env python3
"""A snapshot right after the viewport's height changed, per backend.

Chrome hides and re-adds its "started debugging this browser" bar after
every navigation of a tab an extension debugs, so a page driven through
the extension changes height for ~150 ms after each navigation (a window
resize or DevTools docking does the same). The engine then reuses its
last walk of the page and only decides again what the viewport shows.

For each backend: navigate to the page, then --runs times: resize to the
same width and a height 40 px other than the last (browser_resize; not
timed), wait 200 ms, time browser_snapshot (after the height change),
then time it again (nothing changed: the kept answer).

Needs: a tabwire build (TABWIRE_BIN, else target/release, else
target/debug), Chromium at /usr/lib/chromium/chromium, and the page: by
default Python's stdtypes.html from bench/real-site.sh (~0.7 MB).
Run: python3 bench/resize-snapshot.py [--runs 20] [--url URL]
Prints medians per backend and writes bench/results/resize-snapshot-<time>.json.
"""
import argparse, os, re, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, tabwire_bin, tabwire_servers, write_results  # noqa: E402


def progress(msg):
    print(f"resize-snapshot: {msg}", file=sys.stderr, flush=True)


def measure(server, url, runs):
    server.call("browser_navigate", {"url": url})
    text = server.call("browser_evaluate", {"function": "() => innerWidth"})[1]
    width = int(re.findall(r"\n(\d+)\n", text)[0])
    after, kept = [], []
    for i in range(runs):
        progress(f"{server.label}: {i + 1}/{runs}")
        server.call("browser_resize", {"width": width, "height": 500 + (i % 2) * 40})
        time.sleep(0.2)
        after.append(server.call("browser_snapshot", {})[0])
        kept.append(server.call("browser_snapshot", {})[0])
    return {"after_height_change_ms": round(statistics.median(after), 1),
            "unchanged_ms": round(statistics.median(kept), 1)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--url", default="http://127.0.0.1:8765/library/stdtypes.html")
    a = ap.parse_args()
    b = tabwire_bin("resize-snapshot")
    tmp = tempfile.mkdtemp(prefix="tabwire-resize-snapshot-")
    env, servers = tabwire_servers(b, tmp)
    results = {"binary": b, "url": a.url, "runs": a.runs, "backends": {}}
    for label, argv in servers:
        server = McpServer(label, argv, env, tmp)
        try:
            results["backends"][label] = measure(server, a.url, a.runs)
        finally:
            server.stop()
    for label, r in results["backends"].items():
        print(f"{label}: snapshot after a height change {r['after_height_change_ms']} ms, "
              f"unchanged {r['unchanged_ms']} ms (medians of {a.runs})")
    print(f"written: {write_results('resize-snapshot', results)}")


if __name__ == "__main__":
    main()
