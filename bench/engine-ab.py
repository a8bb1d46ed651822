#!/usr/bin/env python3
"""Two versions of the snapshot engine side by side, inside one page: the
time of a skeleton snapshot, a full (40 KB) snapshot and a change report
(`changes`) after a small DOM change, for engine A and engine B, runs
interleaved in fresh browsers so that machine load hits both alike.

Use it to check that a change to the engine (src/engine/parts/) keeps the
snapshot budget (issue 20: ≤ +10 % on the big page):
  python3 bench/engine-ab.py @main current
Each engine is `current` (the working tree's parts, joined as the build
joins them: bench/engine_source.py), `@REV` (the engine at git revision
REV, e.g. @main; a revision from before the split gives its engine.js) or
the path of a joined file, such as one written by
  python3 bench/engine_source.py --rev main > /tmp/engine-main.js

Needs Chromium at /usr/lib/chromium/chromium and, for the default page,
`sh bench/real-site.sh &` (python3-doc's stdtypes.html, ~0.7 MB).
Run: python3 bench/engine-ab.py A B [URL] [--rounds 3]
Prints medians and writes bench/results/engine-ab-<time>.json.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fidelity import Pipe, engine_tab  # noqa: E402
import engine_source  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEPS = {
    # A pixel of scrolling first: the skeleton is made again, not reused.
    "skeleton": "scrollBy(0, 1); __tabwire.snapshot({budget: 40000, skeleton: 12000}).text.length",
    "full": "__tabwire.snapshot({budget: 40000}).text.length",
    "changes": "document.body.append('x'); (__tabwire.changes({budget: 40000}) || {}).frames",
}


def measure(engine, url, repeat):
    cdp = Pipe()
    try:
        s, ctx = engine_tab(cdp, url, engine)
        out = {}
        for name, expr in STEPS.items():
            times = []
            for i in range(repeat + 1):
                t0 = time.perf_counter()
                cdp.send("Runtime.evaluate", {"expression": expr, "contextId": ctx, "returnByValue": True}, s)
                if i:  # the first call warms up
                    times.append((time.perf_counter() - t0) * 1000)
            out[name] = times
        return out
    finally:
        cdp.proc.kill()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a", help="engine A: current, @REV or a joined file")
    ap.add_argument("b", help="engine B: current, @REV or a joined file")
    ap.add_argument("url", nargs="?", default="http://127.0.0.1:8765/library/stdtypes.html")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=4)
    args = ap.parse_args()
    engines = {"A": engine_source.load(args.a), "B": engine_source.load(args.b)}
    times = {k: {s: [] for s in STEPS} for k in engines}
    for r in range(args.rounds):
        for k, src in engines.items():
            print(f"\rengine-ab: round {r + 1}/{args.rounds}, engine {k}", end="", file=sys.stderr)
            for step, t in measure(src, args.url, args.repeat).items():
                times[k][step] += t
    print(file=sys.stderr)
    print(f"\n{args.url}\n\n| step | A ({args.a}) | B ({args.b}) | B / A |\n|---|---:|---:|---:|")
    result = {}
    for step in STEPS:
        a, b = statistics.median(times["A"][step]), statistics.median(times["B"][step])
        result[step] = {"a_ms": a, "b_ms": b, "ratio": b / a}
        print(f"| {step} | {a:.1f} ms | {b:.1f} ms | {b / a:.2f} |")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.join(ROOT, "bench/results", f"engine-ab-{stamp}.json")
    with open(out, "w") as f:
        json.dump({"url": args.url, "a": args.a, "b": args.b, "medians": result, "times": times}, f, indent=1)
    print(f"\nwrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
