#!/usr/bin/env python3
"""Where the engine's time goes: the browser's own sampling profiler
(CDP Profiler, 100 µs) around the engine's calls on one big page, its
samples attributed to the engine's parts (src/engine/parts/NN-*.js, by
line) and to its functions (self time), and the rest split into the
browser's own work (layout and style done for the engine's reads, GC)
and other scripts.

The engine is injected as the server injects it (the joined parts in an
isolated world "tabwire"); the calls are the skeleton snapshot made on
navigate (a pixel of scrolling first, so it is made again each time) and
a full 40 KB snapshot.

Needs Chromium at /usr/lib/chromium/chromium and `sh bench/real-site.sh &`
for the default page (python3-doc's stdtypes.html).
Run: python3 bench/engine-profile.py [URL] [--calls 10] [--engine current|@REV|FILE] [--cold]
(--cold: the first skeleton on each of --calls fresh documents, the call a
navigation's answer makes, instead of repeated calls on one document)
Prints a table per part and the top functions, and writes
bench/results/engine-profile-<time>.json.
"""
import argparse
import collections
import datetime
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fidelity import Pipe, engine_in, engine_tab  # noqa: E402
import engine_source  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CALLS = {
    "skeleton": "scrollBy(0, 1); __tabwire.snapshot({budget: 40000, skeleton: 12000}).text.length",
    "full": "__tabwire.snapshot({budget: 40000}).text.length",
}
ENGINE_URL = "tabwire-engine.js"


def part_of_line(spans, line):
    """The part holding 0-based `line` of the joined engine."""
    for first, path in reversed(spans):
        if line >= first:
            return os.path.basename(path)
    return "?"


def profile(cdp, s, ctx, expr, calls):
    cdp.send("Profiler.enable", {}, s)
    cdp.send("Profiler.setSamplingInterval", {"interval": 100}, s)
    cdp.send("Profiler.start", {}, s)
    t0 = time.perf_counter()
    for _ in range(calls):
        cdp.send("Runtime.evaluate", {"expression": expr, "contextId": ctx, "returnByValue": True}, s)
    wall = (time.perf_counter() - t0) * 1000 / calls
    prof = cdp.send("Profiler.stop", {}, s)["profile"]
    cdp.send("Profiler.disable", {}, s)
    return prof, wall


def attribute(prof, spans, engine_ids):
    """{part or kind: µs} and {function (part): µs} of self time. The DOM
    and layout calls the engine makes (native frames) count for the part
    that made them, and under their own name among the functions."""
    nodes = {n["id"]: n for n in prof["nodes"]}
    parent = {c: n["id"] for n in prof["nodes"] for c in n.get("children", [])}
    # Frames of the engine carry its script id (inlined ones may lack the URL).
    engine_ids |= {n["callFrame"].get("scriptId") for n in prof["nodes"]
                   if n["callFrame"].get("url", "").endswith(ENGINE_URL)}

    def engine_caller(node_id):
        while node_id in parent:
            node_id = parent[node_id]
            f = nodes[node_id]["callFrame"]
            if f.get("scriptId") in engine_ids:
                return f
        return None

    by_bucket = collections.Counter()
    by_fn = collections.Counter()
    deltas = prof.get("timeDeltas", [])
    for node_id, dt in zip(prof.get("samples", []), deltas[1:] + [0]):
        f = nodes[node_id]["callFrame"]
        name = f.get("functionName") or "(anonymous)"
        if f.get("scriptId") in engine_ids:
            part = part_of_line(spans, f.get("lineNumber", 0))
            by_bucket[part] += dt
            by_fn[f"{name} ({part})"] += dt
            continue
        if name in ("(idle)", "(root)"):
            continue
        if name == "(garbage collector)":
            by_bucket["browser: garbage collection"] += dt
            continue
        caller = engine_caller(node_id)
        if caller is None:
            by_bucket[f"browser: {name}"] += dt
            continue
        part = part_of_line(spans, caller.get("lineNumber", 0))
        by_bucket[part] += dt
        by_fn[f"DOM {name} (from {caller.get('functionName') or '?'}, {part})"] += dt
    return by_bucket, by_fn


def cold_profiles(cdp, s, url, source, expr, calls, spans):
    """The first call on each of `calls` fresh documents, profiled one by
    one (what a navigation's answer pays): summed buckets and functions,
    and the mean wall time."""
    buckets, fns, wall = collections.Counter(), collections.Counter(), 0.0
    for i in range(calls):
        print(f"\rengine-profile: cold call {i + 1}/{calls}\033[K", end="", file=sys.stderr, flush=True)
        # (A new document: a new world, code V8 has not run yet.)
        ctx = engine_in(cdp, s, url, source)
        prof, ms = profile(cdp, s, ctx, expr, 1)
        b, f = attribute(prof, spans, set())
        buckets.update(b)
        fns.update(f)
        wall += ms
    print(file=sys.stderr)
    return buckets, fns, wall / calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url", nargs="?", default="http://127.0.0.1:8765/library/stdtypes.html")
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--engine", default="current")
    ap.add_argument("--cold", action="store_true",
                    help="profile the first skeleton on each of --calls fresh documents instead")
    args = ap.parse_args()
    source = engine_source.load(args.engine)
    spans, line = [], 0
    for path, text in engine_source.parts() if args.engine == "current" else [("engine.js", source)]:
        spans.append((line, path))
        line += text.count("\n")
    cdp = Pipe()
    results = {}
    try:
        # (Named, so the profile can tell the engine's frames.)
        named = f"{source}\n//# sourceURL={ENGINE_URL}"
        s, ctx = engine_tab(cdp, args.url, named)
        engine_ids = set()
        for name, expr in CALLS.items():
            if args.cold:
                if name != "skeleton":
                    continue
                buckets, fns, wall = cold_profiles(cdp, s, args.url, named, expr, args.calls, spans)
                name = "skeleton, first call on a fresh document"
            else:
                # Warm up: the first call compiles and fills the caches.
                cdp.send("Runtime.evaluate", {"expression": expr, "contextId": ctx, "returnByValue": True}, s)
                print(f"engine-profile: profiling {args.calls} {name} calls", file=sys.stderr, flush=True)
                prof, wall = profile(cdp, s, ctx, expr, args.calls)
                buckets, fns = attribute(prof, spans, engine_ids)
            total = sum(buckets.values()) or 1
            results[name] = {
                "wall_ms_per_call": round(wall, 1),
                "parts": {k: round(v / 1000 / args.calls, 2) for k, v in buckets.most_common()},
                "top_functions": {k: round(v / 1000 / args.calls, 2) for k, v in fns.most_common(15)},
            }
            print(f"\n{name}: {wall:.1f} ms per call (wall, round trip included); sampled CPU by part:")
            print("| part | ms per call | share |\n|---|---:|---:|")
            for k, v in buckets.most_common():
                print(f"| {k} | {v / 1000 / args.calls:.1f} | {100 * v / total:.0f} % |")
            print("\ntop functions (self time, ms per call):")
            for k, v in fns.most_common(15):
                print(f"  {v / 1000 / args.calls:6.2f}  {k}")
    finally:
        cdp.close()
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.join(ROOT, "bench/results", f"engine-profile-{stamp}.json")
    with open(out, "w") as f:
        json.dump({"url": args.url, "engine": args.engine, "calls": args.calls, "cold": args.cold,
                   "results": results}, f, indent=1)
    print(f"\nwrote {os.path.relpath(out, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
