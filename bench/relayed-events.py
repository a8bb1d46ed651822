#!/usr/bin/env python3
"""How many CDP events a page load sends through the extension to serve,
next to how many the browser emits for the same loads.

The extension drops events no server reads before they enter native
messaging (extension/relay.js, `unread`): every message it does not
send is work the worker, the browser's native-messaging thread, the host
and serve skip while the page loads.

For each of the big real pages (bench/real-pages.py's six), `tabwire call
browser_navigate` runs twice (the second, warm load counts) through the
extension; serve's load wait logs each tab event it receives
(RUST_LOG=tabwire::load=debug), and those are counted by method. The
browser's own count comes from a raw CDP pipe to a Chromium of its own
with the domains tabwire enables for a load (Page, Network, Runtime; the
lifecycle events too), over the same window: navigate, then until the
load event and a second more.

Needs Chromium at /usr/lib/chromium/chromium, `sh bench/real-site.sh &`
and a tabwire build (TABWIRE_BIN, else target/release, else
target/debug).
Run: python3 bench/relayed-events.py [--extension DIR]
Prints both counts per method and writes
bench/results/relayed-events-<time>.json.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchlib  # noqa: E402
import fidelity  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The same pages as bench/real-pages.py.
real_pages = benchlib.bench_module("real-pages")
PAGES = real_pages.PAGES
EVENT = re.compile(r'tabwire::load: event ms=\S+ method="([^"]+)"')


def relayed(b, extension_root):
    """Events serve received during the warm loads, by method."""
    # benchlib loads <ROOT>/extension: another root tries another worker.
    benchlib.ROOT = extension_root
    tmp = tempfile.mkdtemp(prefix="tabwire-relayed-events-")
    try:
        env, _ = benchlib.tabwire_servers(b, tmp)
    finally:
        benchlib.ROOT = ROOT
    env["RUST_LOG"] = "tabwire::load=debug"
    seen = collections.Counter()
    for i, url in enumerate(PAGES):
        print(f"\rrelayed-events: through the extension, page {i + 1}/{len(PAGES)}",
              end="", file=sys.stderr)
        for warm in (False, True):
            p = subprocess.run([b, "call", "browser_navigate", "--args", json.dumps({"url": url}),
                                "--connect-timeout", "30"], env=env, capture_output=True)
            if p.returncode != 0:
                sys.exit(f"relayed-events: navigate to {url} failed: {p.stdout[:300]!r}")
            if warm:
                seen.update(EVENT.findall(p.stderr.decode(errors="replace")))
    print(file=sys.stderr)
    return seen


class CountingPipe(fidelity.Pipe):
    """A CDP pipe that counts the events it reads past."""

    def __init__(self):
        super().__init__()
        self.events = collections.Counter()

    def send(self, method, params=None, session=None):
        loads = fidelity.json.loads

        def counting(raw, *a, **k):
            m = loads(raw, *a, **k)
            if isinstance(m, dict) and "method" in m:
                self.events[m["method"]] += 1
            return m
        fidelity.json.loads = counting
        try:
            return super().send(method, params, session)
        finally:
            fidelity.json.loads = loads


def emitted():
    """Events the browser emits for the same warm loads, by method."""
    cdp = CountingPipe()
    try:
        t = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = cdp.send("Target.attachToTarget", {"targetId": t, "flatten": True})["sessionId"]
        for domain in ("Page", "Network", "Runtime"):
            cdp.send(f"{domain}.enable", {}, s)
        cdp.send("Page.setLifecycleEventsEnabled", {"enabled": True}, s)
        total = collections.Counter()
        for i, url in enumerate(PAGES):
            print(f"\rrelayed-events: the browser alone, page {i + 1}/{len(PAGES)}",
                  end="", file=sys.stderr)
            for warm in (False, True):
                cdp.events.clear()
                cdp.send("Page.navigate", {"url": url}, s)
                until = time.time() + 15
                while time.time() < until and not cdp.events["Page.loadEventFired"]:
                    cdp.send("Runtime.evaluate", {"expression": "0"}, s)
                    time.sleep(0.02)
                time.sleep(1)
                cdp.send("Runtime.evaluate", {"expression": "0"}, s)
                if warm:
                    total.update(cdp.events)
        print(file=sys.stderr)
        return total
    finally:
        cdp.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--extension", default=ROOT,
                    help="a directory holding extension/ (default: this checkout)")
    opts = ap.parse_args()
    b = benchlib.tabwire_bin("relayed-events")
    through = relayed(b, os.path.abspath(opts.extension))
    alone = emitted()
    print(f"CDP events of {len(PAGES)} warm page loads (bench/real-pages.py's pages):")
    print(f"  {'method':45} {'browser':>8} {'relayed':>8}")
    for method in sorted(set(alone) | set(through), key=lambda m: -alone.get(m, 0)):
        print(f"  {method:45} {alone.get(method, 0):8} {through.get(method, 0):8}")
    print(f"  {'all':45} {sum(alone.values()):8} {sum(through.values()):8}")
    print("  (relayed: what serve's load wait received; the browser's column is over a "
          "slightly longer window)")
    path = benchlib.write_results("relayed-events", {
        "bench": "relayed-events", "binary": b, "pages": PAGES,
        "browser": dict(alone), "relayed": dict(through),
        "browser_total": sum(alone.values()), "relayed_total": sum(through.values()),
    })
    print(f"wrote {os.path.relpath(path, ROOT)}")


if __name__ == "__main__":
    main()
