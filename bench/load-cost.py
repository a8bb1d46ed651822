#!/usr/bin/env python3
"""What driving a tab costs the page's own load: the load time a page
measures itself (Navigation Timing's loadEventStart) in a tab tabwire
drives, through each backend, against the same page in a tab nobody
drives (a raw CDP pipe to a Chromium of its own, nothing enabled but the
Page domain).

Everything tabwire sets up in a tab runs inside the page's loading: the
engine it registers for new documents, the domains it enables, the
document pause for sign-in challenges, and anything the engine starts at
document start. Until issue 46's fix, the engine watched the document
with a MutationObserver from document start, which made every page load
~20 % slower; this bench shows such a cost where no other does (the
other benches time the whole navigation, where it hides in the load).

The extension's numbers include Chrome's debugging bar, which moves the
viewport after each navigation of a debugged tab (see the performance
journal); --no-debugging-bar starts the browsers without it.

Needs Chromium at /usr/lib/chromium/chromium, `sh bench/real-site.sh &`
(the six big real pages of bench/real-pages.py) and a tabwire build
(TABWIRE_BIN, else target/release, else target/debug).
Run: python3 bench/load-cost.py [--runs 7] [--no-debugging-bar]
Prints the median load time of each page per tab and writes
bench/results/load-cost-<time>.json.
"""
import argparse
import os
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, bench_module, page_data, tabwire_bin, tabwire_servers, write_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
real_pages = bench_module("real-pages")

LOAD_START = "performance.getEntriesByType('navigation')[0].loadEventStart"


class Undriven(real_pages.RawFloor):
    """A tab nobody drives: Page.navigate, the load event, the page's clock."""
    label = "no one driving"

    def load_ms(self, url):
        c = self.c
        c.time_to(url, "/" + url.split("/", 3)[3], "load")
        r = c.send("Runtime.evaluate", {"expression": LOAD_START, "returnByValue": True}, c.session)
        return r["result"]["value"]


class Driven(real_pages.Served):
    """A tab tabwire drives (warmed up and sized as real-pages.py's):
    browser_navigate, then the page's clock."""

    def load_ms(self, url):
        self.server.call("browser_navigate", {"url": url})
        _, text = self.server.call("browser_evaluate", {"function": f"() => {LOAD_START}"})
        return float(page_data(text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--no-debugging-bar", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tabwire-load-cost-")
    b = tabwire_bin("load-cost")
    bar = ("--silent-debugger-extension-api",) if a.no_debugging_bar else ()
    env, servers = tabwire_servers(b, tmp, bar)
    tabs = [Undriven(f"{tmp}/raw")]
    tabs += [Driven(McpServer(label, argv, env, tmp, client="load-cost")) for label, argv in servers]
    pages = real_pages.PAGES
    times = {t.label: {u: [] for u in pages} for t in tabs}
    try:
        # Rounds of every page in every tab, the tabs' order rotating, so a
        # slow spell of the machine falls on all of them; the first round
        # warms up.
        for r in range(a.runs + 1):
            print(f"\rload-cost: round {r + 1}/{a.runs + 1}\033[K", end="", file=sys.stderr, flush=True)
            k = r % len(tabs)
            for u in pages:
                for t in tabs[k:] + tabs[:k]:
                    ms = t.load_ms(u)
                    if r:
                        times[t.label][u].append(ms)
    finally:
        for t in tabs:
            t.stop()
    print(file=sys.stderr)
    medians = {label: {u: statistics.median(v) for u, v in per.items()} for label, per in times.items()}
    print("| page | " + " | ".join(medians) + " |")
    print("|---|" + "---:|" * len(medians))
    for u in pages:
        print(f"| {u.split('/', 3)[3]} | " + " | ".join(f"{m[u]:.0f} ms" for m in medians.values()) + " |")
    totals = {label: sum(m.values()) for label, m in medians.items()}
    base = totals["no one driving"]
    print("| all six | " + " | ".join(f"{t:.0f} ms ({t / base:.2f}×)" for t in totals.values()) + " |")
    print("wrote", write_results("load-cost", {"tabwire": b, "runs": a.runs,
                                             "debugging_bar": not a.no_debugging_bar,
                                             "median_load_ms": medians, "total_ms": totals}))


if __name__ == "__main__":
    main()
