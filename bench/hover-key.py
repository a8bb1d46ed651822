#!/usr/bin/env python3
"""Hover and key press on a big real page, on both of tabwire's backends,
with the split of each call: the input itself, the wait for what it
started (settle), the change report, and the rest (resolving the target,
aiming, the answer, the hops between client, serve and browser).

Page: library/stdtypes.html of the Python docs (~0.7 MB, ~30k elements),
served by bench/real-site.sh, in a 1280x720 viewport. Per run: hover the
"Built-in Types" link, then press ArrowDown. The split comes
from serve's own timing lines (RUST_LOG target tabwire::timing), read from
its stderr after each call.

Needs: bench/real-site.sh running, Chromium at /usr/lib/chromium/chromium,
a tabwire build (TABWIRE_BIN, else release, else debug). Prints a table
and writes bench/results/hover-key-<time>.json.

Run: python3 bench/hover-key.py [--runs N] [--page URL]
(--page: stdtypes.html served elsewhere, when port 8765 is taken; e.g.
`cd /usr/share/doc/python3/html && python3 -m http.server PORT`.)
"""
import argparse, os, re, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, ref_of, tabwire_bin, tabwire_servers, write_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIG = "http://127.0.0.1:8765/library/stdtypes.html"
FIELDS = ("action_ms", "wait_ms", "changes_ms")


class Timed:
    """A server whose stderr carries serve's timing lines."""

    def __init__(self, server):
        self.s = server
        self.at = 0

    def call(self, tool, args):
        ms, text = self.s.call(tool, args)
        with open(self.s.log) as f:
            f.seek(self.at)
            new = f.read()
            self.at = f.tell()
        split = {k: sum(float(v) for v in re.findall(k + r"=([\d.]+)", new)) for k in FIELDS}
        split["total_ms"] = ms
        split["other_ms"] = ms - sum(split[k] for k in FIELDS)
        return split, text


def measure(server, runs, progress, page=BIG):
    s = Timed(server)
    s.call("browser_navigate", {"url": page})
    s.call("browser_resize", {"width": 1280, "height": 720})
    _, snap = s.call("browser_snapshot", {})
    link = ref_of(snap, "link", "Built-in Types")
    steps = {"hover_link": [], "press_key": [], "answers": {}}
    for r in range(runs):
        progress(f"run {r + 1}/{runs}")
        split, text = s.call("browser_hover", {"target": link})
        steps["hover_link"].append(split)
        steps["answers"]["hover_link"] = text[:400]
        split, text = s.call("browser_press_key", {"key": "ArrowDown"})
        steps["press_key"].append(split)
        steps["answers"]["press_key"] = text[:400]
    return steps


def median_split(samples):
    return {k: statistics.median(x[k] for x in samples) for k in ("total_ms", *FIELDS, "other_ms")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--page", default=BIG, help=f"the URL of stdtypes.html (default {BIG})")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tabwire-hover-key-")
    try:
        subprocess.run(["curl", "-sf", "-o", "/dev/null", a.page], check=True)
    except subprocess.CalledProcessError:
        sys.exit(f"hover-key: {a.page} does not answer: start `sh bench/real-site.sh &` first")
    b = tabwire_bin("hover-key")
    env, servers = tabwire_servers(b, tmp)
    env["RUST_LOG"] = "tabwire=info,tabwire::timing=debug"
    results = {}
    for label, argv in servers:
        def progress(what, label=label):
            print(f"\rhover-key: {label}: {what}\033[K", end="", file=sys.stderr, flush=True)
        server = McpServer(label, argv, env, tmp, client="hover-key")
        try:
            steps = measure(server, a.runs, progress, a.page)
            results[label] = {k: {"median": median_split(v), "samples": v}
                              for k, v in steps.items() if k != "answers"}
            results[label]["answers"] = steps["answers"]
        except Exception as e:
            results[label] = {"error": str(e)}
        finally:
            server.stop()
        print(file=sys.stderr)
    print(f"medians over {a.runs} runs, ms ({b})\n")
    print("| backend | step | total | input | settle wait | change report | rest |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for label, r in results.items():
        if "error" in r:
            print(f"| {label} | error: {r['error'][:200]} | | | | | |")
            continue
        for step in ("hover_link", "press_key"):
            m = r[step]["median"]
            print(f"| {label} | {step} | {m['total_ms']:.1f} | {m['action_ms']:.1f} | {m['wait_ms']:.1f} "
                  f"| {m['changes_ms']:.1f} | {m['other_ms']:.1f} |")
    print("\nTarget: hover and key press ≤ 30 ms on both backends")
    path = write_results("hover-key", {"tabwire": b, "page": a.page, "runs": a.runs, "results": results})
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
