#!/usr/bin/env python3
"""Big real pages, every server in one run: tabwire through the extension,
tabwire over the CDP fallback, and playwright-mcp (npm, cached in
bench/.cache, pointed at the same Chromium).

Steps, medians over --runs calls each:
  navigate + snapshot over the real pages (python3-doc, Django's admin)
  snapshot of library/stdtypes.html (~0.7 MB, ~30k elements)
  hover on a link of that page
  press_key ArrowDown on that page
and, as the floor, the browser alone: Page.navigate → load of the same
pages over a raw CDP pipe to a Chromium of its own (bench/nav-waits.py's
client), summed per pass.

Needs: bench/real-site.sh running (it serves the pages), Chromium at
/usr/lib/chromium/chromium, a tabwire build (release if present, else
debug; TABWIRE_BIN picks one). Prints a table with the issue's targets and
writes JSON to bench/results/real-pages-<time>.json.

Run: python3 bench/real-pages.py [--runs N] [--no-peers]
"""
import argparse, datetime, importlib.util, json, os, re, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CHROMIUM, McpServer, tabwire_bin, tabwire_servers  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "nav_waits", os.path.join(os.path.dirname(os.path.abspath(__file__)), "nav-waits.py"))
nav_waits = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nav_waits)


def browser_alone(runs, progress):
    """The browser's own time for the pages: Page.navigate → load over a
    raw CDP pipe (its own Chromium, 1280×720), summed over the pages;
    the median of `runs` passes after one warm-up pass."""
    c = nav_waits.Cdp()
    try:
        c.send("Emulation.setDeviceMetricsOverride",
               {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False}, c.session)
        totals = []
        for r in range(runs + 1):
            progress(f"pass {r + 1}/{runs + 1}")
            total = sum(c.time_to(u, "/" + u.split("/", 3)[3], "load") for u in PAGES)
            if r:
                totals.append(total)
        return {"navigate_snapshot_total_ms": statistics.median(totals)}
    finally:
        c.stop()

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = "http://127.0.0.1:8765"
ADMIN = "http://127.0.0.1:8766"
BIG = f"{DOCS}/library/stdtypes.html"
PAGES = [
    f"{DOCS}/library/stdtypes.html",
    f"{DOCS}/library/functions.html",
    f"{DOCS}/library/os.html",
    f"{DOCS}/reference/datamodel.html",
    f"{DOCS}/py-modindex.html",
    f"{ADMIN}/admin/login/",
]


def link_ref(snapshot, name):
    m = re.search(r'link "' + re.escape(name) + r'"[^\n]*?\[ref=(\w+)\]', snapshot)
    if not m:
        raise RuntimeError(f"no link {name!r} with a ref in the snapshot: {snapshot[:600]}")
    return m.group(1)


def measure(server, runs, progress):
    out = {}
    # Warm-up: the browser starts, the first page loads.
    server.call("browser_navigate", {"url": f"{DOCS}/index.html"})
    # One viewport for every server (the extension's headless window is
    # 780 px wide, where the docs switch to their narrow layout).
    server.call("browser_resize", {"width": 1280, "height": 720})
    totals = []
    for r in range(runs):
        progress(f"navigate + snapshot, round {r + 1}/{runs}")
        total = 0.0
        for url in PAGES:
            total += server.call("browser_navigate", {"url": url})[0]
            total += server.call("browser_snapshot", {})[0]
        totals.append(total)
    out["navigate_snapshot_total_ms"] = statistics.median(totals)
    server.call("browser_navigate", {"url": BIG})
    snaps = []
    for r in range(runs):
        progress(f"snapshot of the big page {r + 1}/{runs}")
        # A pixel of scrolling (not timed) first: tabwire reuses a skeleton
        # when nothing changed, and this measures making one.
        if server.label.startswith("tabwire"):
            server.call("browser_scroll", {"deltaY": 1 if r % 2 == 0 else -1})
        ms, text = server.call("browser_snapshot", {})
        snaps.append(ms)
    out["big_snapshot_ms"] = statistics.median(snaps)
    out["big_snapshot_bytes"] = len(text.encode())
    ref = link_ref(text, "Built-in Types")
    hovers, keys = [], []
    for r in range(runs):
        progress(f"hover and key press {r + 1}/{runs}")
        hovers.append(server.call("browser_hover", {"target": ref, "element": "Built-in Types link"})[0]
                      if server.label == "playwright-mcp" else
                      server.call("browser_hover", {"target": ref})[0])
        keys.append(server.call("browser_press_key", {"key": "ArrowDown"})[0])
    out["big_hover_ms"] = statistics.median(hovers)
    out["big_press_key_ms"] = statistics.median(keys)
    return out


def main():
    global TMP
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-peers", action="store_true")
    a = ap.parse_args()
    TMP = tempfile.mkdtemp(prefix="tabwire-real-pages-")
    for url in (BIG, f"{ADMIN}/admin/login/"):
        try:
            subprocess.run(["curl", "-sf", "-o", "/dev/null", url], check=True)
        except subprocess.CalledProcessError:
            sys.exit(f"real-pages: {url} does not answer: start `sh bench/real-site.sh &` first")
    b = tabwire_bin("real-pages")
    env, servers = tabwire_servers(b, TMP)
    if not a.no_peers:
        pw = f"{ROOT}/bench/.cache/node_modules/@playwright/mcp/cli.js"
        if not os.path.exists(pw):
            print("real-pages: installing @playwright/mcp with npm into bench/.cache", file=sys.stderr)
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix",
                            f"{ROOT}/bench/.cache", "@playwright/mcp"], check=True,
                           env=dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1"))
        servers.append(("playwright-mcp", ["node", pw, "--headless", "--isolated", "--no-sandbox",
                                           "--executable-path", CHROMIUM, "--output-dir",
                                           f"{TMP}/pw-out"]))
    results = {}
    nav_waits.TMP = TMP
    results["browser alone (loads only)"] = browser_alone(
        a.runs, lambda what: print(f"\rreal-pages: browser alone: {what}\033[K", end="",
                                   file=sys.stderr, flush=True))
    print(file=sys.stderr)
    for label, argv in servers:
        def progress(what, label=label):
            print(f"\rreal-pages: {label}: {what}\033[K", end="", file=sys.stderr, flush=True)
        s = McpServer(label, argv, env, TMP, client="real-pages")
        try:
            results[label] = measure(s, a.runs, progress)
        except Exception as e:
            results[label] = {"error": str(e)}
        finally:
            s.stop()
        print(file=sys.stderr)
    rows = [("navigate + snapshot, 6 real pages (ms)", "navigate_snapshot_total_ms"),
            ("snapshot of stdtypes.html (ms)", "big_snapshot_ms"),
            ("hover on that page (ms)", "big_hover_ms"),
            ("press_key on that page (ms)", "big_press_key_ms"),
            ("snapshot answer bytes", "big_snapshot_bytes")]
    labels = list(results)
    print("| step | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    for title, key in rows:
        cells = []
        for l in labels:
            v = results[l].get(key)
            if l.startswith("browser alone"):
                cells.append("–" if v is None else f"{v:.0f}")
                continue
            cells.append("error" if v is None else f"{v:.0f}" if isinstance(v, float) else str(v))
        print(f"| {title} | " + " | ".join(cells) + " |")
    # The targets, scored (reported, never asserted).
    ext, cdp = results.get("tabwire-extension", {}), results.get("tabwire-cdp", {})
    peer = results.get("playwright-mcp", {})
    print("\nTargets:")
    for l, r in (("extension", ext), ("cdp", cdp)):
        if "big_snapshot_ms" in r:
            print(f"  {l}: snapshot {r['big_snapshot_ms']:.0f} ms (≤ 100), hover {r['big_hover_ms']:.0f} ms, "
                  f"key {r['big_press_key_ms']:.0f} ms (≤ 50)")
        if "navigate_snapshot_total_ms" in r and "navigate_snapshot_total_ms" in peer:
            print(f"  {l}: navigate + snapshot {r['navigate_snapshot_total_ms'] / peer['navigate_snapshot_total_ms']:.2f}× "
                  f"playwright-mcp (issue 25: ≤ 0.25)")
    alone = results["browser alone (loads only)"]["navigate_snapshot_total_ms"]
    if "navigate_snapshot_total_ms" in peer:
        print(f"  the browser's own loads: {alone / peer['navigate_snapshot_total_ms']:.2f}× playwright-mcp")
    if ext and cdp and "error" not in ext and "error" not in cdp:
        worst = max(ext[k] / cdp[k] for _, k in rows[:4])
        print(f"  extension / cdp, worst step: {worst:.2f}× (issue 25: ≤ 1.1)")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    path = f"{ROOT}/bench/results/real-pages-{stamp}.json"
    with open(path, "w") as f:
        json.dump({"tabwire": b, "runs": a.runs, "pages": PAGES, "results": results}, f, indent=1)
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
