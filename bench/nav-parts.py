#!/usr/bin/env python3
"""Where a plain navigation's time goes, per backend: `browser_navigate`
of a small page (answer with its snapshot included), split by what serve
waited on, next to the browser's own time to the same page's load.

Each tabwire call's serve log (RUST_LOG tabwire::cdp=debug and
tabwire::load=debug; every CDP command is logged with its round trip) is
cut out and summed:
  cdp <method>   round trips of that command (as serve saw them: relay
                 included), per call
  load seen      when serve learned of the page's load event (ms after the
                 call's first log line)
  not in cdp     the call's time minus every command's round trip: waits on
                 events, serve's own work, the MCP stdio hop
  inside the extension  (extension only) the worker's own time on the
                 call's requests, as it reports in each response: checks
                 and chrome.debugger; the rest of a round trip is the relay
The browser's own time is Page.navigate → the load event over a raw CDP
pipe to a Chromium of its own (bench/nav-waits.py's client).

Needs Chromium at /usr/lib/chromium/chromium and a tabwire build
(TABWIRE_BIN, else target/release, else target/debug).
Run: python3 bench/nav-parts.py [--runs 15] [--no-debugging-bar] [--viewport WxH]
(--viewport: pin the tab's viewport first, as browser_resize does)
Prints a table per backend and writes bench/results/nav-parts-<time>.json.
"""
import argparse
import collections
import datetime
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, bench_module, tabwire_bin, tabwire_servers, write_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="tabwire-nav-parts-")

nav_waits = bench_module("nav-waits")

LINE = re.compile(r"^(\S+Z)\s+DEBUG\s+(tabwire::\w+):\s+(.*)$")
FIELD = re.compile(r'(\w+)=("([^"]*)"|\S+)')


def stamp(s):
    return datetime.datetime.fromisoformat(s.replace("Z", "+00:00")).timestamp() * 1000


def progress(msg):
    print(f"nav-parts: {msg}", file=sys.stderr, flush=True)


def parts_of(log_text):
    """{part: ms} of one call's log lines, plus the first line's time."""
    cdp = collections.defaultdict(float)
    count = collections.Counter()
    first = load_seen = None
    inside = 0.0
    for line in log_text.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        t = stamp(m.group(1))
        first = first if first is not None else t
        fields = {k: (q if q is not None and v.startswith('"') else v)
                  for k, v, q in FIELD.findall(m.group(3))}
        if m.group(2) == "tabwire::cdp" and "ms" in fields:
            name = fields.get("method") or f"batch of {fields.get('n')} from {fields.get('first')}"
            cdp[name] += float(fields["ms"])
            count[name] += 1
        if m.group(2) == "tabwire::relay" and "inside the extension" in m.group(3):
            inside += float(fields["ms"])
        if (m.group(2) == "tabwire::load" and load_seen is None
                and fields.get("method") in ('"Page.loadEventFired"', "Page.loadEventFired")):
            load_seen = t - first
    return cdp, count, load_seen, inside


def measure(label, argv, env, site, runs, viewport=None):
    env = dict(env, RUST_LOG="tabwire=info,tabwire::cdp=debug,tabwire::load=debug,tabwire::wait=debug,tabwire::relay=debug")
    server = McpServer(label, argv, env, TMP)
    # Warm: the tab, its setup and the engine.
    for i in range(3):
        server.call("browser_navigate", {"url": f"{site}/start?warm={i}"})
        if viewport and i == 0:
            # Pinned by emulation: the page keeps this size whatever bars
            # the browser shows or hides around it.
            server.call("browser_resize", {"width": viewport[0], "height": viewport[1]})
    totals, cdp_all, counts, loads, insides = [], {}, [], [], []
    for r in range(runs):
        progress(f"{label} {r + 1}/{runs}")
        before = os.path.getsize(server.log)
        ms, text = server.call("browser_navigate", {"url": f"{site}/landed?run={r}"})
        assert "landed" in text, text
        with open(server.log) as f:
            f.seek(before)
            cdp, count, load_seen, inside = parts_of(f.read())
        insides.append(inside)
        totals.append(ms)
        for k in set(cdp_all) | set(cdp):
            # A command first seen in this run took no time in the earlier ones.
            cdp_all.setdefault(k, [0.0] * r).append(cdp.get(k, 0.0))
        counts.append(sum(count.values()))
        if load_seen is not None:
            loads.append(load_seen)
    server.stop()
    med = lambda xs: round(statistics.median(xs), 1) if xs else None  # noqa: E731
    in_cdp = [sum(v[i] for v in cdp_all.values()) for i in range(runs)]
    return {
        "call_ms": med(totals),
        "commands_per_call": med(counts),
        "cdp_ms": {k: med(v) for k, v in sorted(cdp_all.items(), key=lambda kv: -statistics.median(kv[1]))},
        "all_cdp_ms": med(in_cdp),
        "not_in_cdp_ms": med([t - c for t, c in zip(totals, in_cdp)]),
        "load_seen_ms": med(loads),
        # Extension only: what its worker spent on the call's requests.
        "inside_extension_ms": med(insides) if any(insides) else None,
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--no-debugging-bar", action="store_true",
                    help="start the browsers with --silent-debugger-extension-api: no 'started "
                         "debugging this browser' bar, which Chrome hides and re-adds after every "
                         "navigation of a tab an extension debugs (what that costs)")
    ap.add_argument("--viewport", metavar="WxH",
                    help="pin the tab's viewport to this size first (browser_resize, i.e. "
                         "Emulation.setDeviceMetricsOverride), so the debugging bar coming and "
                         "going resizes nothing in the page")
    a = ap.parse_args()
    viewport = tuple(int(x) for x in a.viewport.split("x")) if a.viewport else None
    b = tabwire_bin("nav-parts")
    site = nav_waits.start_site()
    progress("the browser's own time (raw CDP pipe)")
    raw = nav_waits.Cdp()
    raw.time_to(f"{site}/start", "/start", "load")
    own = [raw.time_to(f"{site}/landed?raw={i}", f"/landed?raw={i}", "load") for i in range(a.runs)]
    raw.stop()
    results = {"binary": b, "runs": a.runs, "browser_load_ms": round(statistics.median(own), 1),
               "debugging_bar": not a.no_debugging_bar, "viewport": a.viewport, "backends": {}}
    bar = ("--silent-debugger-extension-api",) if a.no_debugging_bar else ()
    env, servers = tabwire_servers(b, TMP, bar)
    for label, argv in servers:
        results["backends"][label] = measure(label, argv, env, site, a.runs, viewport)

    print(f"\nbrowser alone, Page.navigate → load: {results['browser_load_ms']} ms (median of {a.runs})")
    for label, r in results["backends"].items():
        over = round(r["call_ms"] - results["browser_load_ms"], 1)
        print(f"\n{label}: browser_navigate {r['call_ms']} ms (overhead above the browser's load: "
              f"{over} ms; target ≤ 30), {r['commands_per_call']} CDP commands")
        print(f"  load event seen by serve at {r['load_seen_ms']} ms; not in a CDP round trip: "
              f"{r['not_in_cdp_ms']} ms; in CDP round trips: {r['all_cdp_ms']} ms")
        if r["inside_extension_ms"] is not None:
            print(f"  of the round trips, inside the extension's worker: {r['inside_extension_ms']} ms; "
                  f"relay (host, sockets, serve's parsing): "
                  f"{round(r['all_cdp_ms'] - r['inside_extension_ms'], 1)} ms")
        for k, v in r["cdp_ms"].items():
            if v:
                print(f"    {v:7.1f} ms  {k}")
    out = write_results("nav-parts", results)
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
