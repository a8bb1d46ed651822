#!/usr/bin/env python3
"""Big real pages, every server in one run: tabwire through the extension,
tabwire over the CDP fallback, and playwright-mcp (npm, cached in
bench/.cache, pointed at the same Chromium).

Steps, medians over --runs calls each:
  navigate + snapshot over the real pages (python3-doc, Django's admin)
  snapshot of library/stdtypes.html (~0.7 MB, ~30k elements)
  hover on a link of that page
  press_key ArrowDown on that page
and three floors, each over a raw CDP pipe to a Chromium of its own
(bench/nav-waits.py's client), summed per pass: the browser alone
(Page.navigate → load of the same pages), and the engine alone (the same,
with tabwire's in-page engine registered for new documents as tabwire
does, and the answer's skeleton taken in the page after the load event,
as tabwire's load probe takes it: what any server that answers with this
skeleton pays, with no tabwire process in the way); and between them the
browser, then one read (the same loads, then one trivial evaluate: what
any reader waits for, since the page's own work after its load event
runs first; after that read, timed in the page and outside the pass, a
walk that only visits every node: the least any reader that counts what
a page holds must add). Each floor's parts are also timed by the pages'
own clocks (Navigation Timing, performance.now()), which are free of the
±10 % one browser differs from another by: the load, the page's own work
after it, the bare walk, the engine's look.

The navigate + snapshot passes are interleaved: every server and floor is
started first, then each round runs one pass of each, in an order that
rotates, so a slow spell of this machine (whole runs differ by ±10 % or
more here) falls on all of them alike. The other steps run per server.

Needs: bench/real-site.sh running (it serves the pages), Chromium at
/usr/lib/chromium/chromium, a tabwire build (release if present, else
debug; TABWIRE_BIN picks one). Prints a table with the issue's targets and
writes JSON to bench/results/real-pages-<time>.json.

Run: python3 bench/real-pages.py [--runs N] [--no-peers] [--no-debugging-bar] [--compare BIN]
(--compare: a second tabwire binary, its servers labelled "…@compare", run
in the same interleaved rounds: before and after a change, in one run)
(--no-debugging-bar: tabwire's browsers start with
--silent-debugger-extension-api, so Chrome shows no "started debugging this
browser" bar; a user's browser shows it, so the headline runs keep it)
"""
import argparse, datetime, json, os, re, statistics, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CHROMIUM, McpServer, bench_module, tabwire_bin, tabwire_servers  # noqa: E402
import engine_source  # noqa: E402

nav_waits = bench_module("nav-waits")


def raw_browser(home):
    """A Chromium of its own over a raw CDP pipe (profile under `home`),
    its page in a 1280×720 viewport like every server's."""
    os.makedirs(home, exist_ok=True)
    nav_waits.TMP = home
    c = nav_waits.Cdp()
    c.send("Emulation.setDeviceMetricsOverride",
           {"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": False}, c.session)
    return c


class RawFloor:
    """A floor's browser (raw_browser()), with `world` (a script) registered
    for new documents in an isolated world "tabwire" as tabwire registers
    its engine, if given. `parts` keeps what each page timed by its own
    clock: url → one {part: ms} per pass."""

    def __init__(self, home, world=None):
        self.c = raw_browser(home)
        self.parts = {}
        if world is not None:
            self.c.send("Runtime.enable", {}, self.c.session)
            self.c.send("Page.addScriptToEvaluateOnNewDocument",
                        {"source": world, "worldName": "tabwire"}, self.c.session)

    def look(self, url, expression):
        """Page.navigate → load → `expression` in the "tabwire" world:
        (ms for all of it, the expression's value, the world)."""
        t0 = time.perf_counter()
        world = self.c.load_in_world(url, "tabwire")
        value = self.evaluate(world, expression)
        return (time.perf_counter() - t0) * 1000, value, world

    def evaluate(self, world, expression):
        """`expression`'s value (awaited) in `world`."""
        r = self.c.send("Runtime.evaluate", {"expression": expression, "contextId": world,
                                             "awaitPromise": True, "returnByValue": True}, self.c.session)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{self.label}: {str(r['exceptionDetails'])[:300]}")
        return r["result"].get("value")

    def record(self, url, **parts):
        self.parts.setdefault(url, []).append(parts)

    def medians(self):
        """Per page, the median of each part over the passes."""
        return {u: {k: statistics.median(p[k] for p in passes) for k in passes[0]}
                for u, passes in self.parts.items()}

    def stop(self):
        self.c.stop()


class BrowserAlone(RawFloor):
    """The browser's own time for a page: Page.navigate → its load event."""
    label = "browser alone (loads only)"

    def page(self, url):
        return self.c.time_to(url, "/" + url.split("/", 3)[3], "load")


class BrowserThenRead(RawFloor):
    """What any reader of the page waits for, engine or not: Page.navigate
    → load → one trivial Runtime.evaluate in an isolated world made for new
    documents as tabwire makes its own. The page's own work after its load
    event (its first paint, the timers its load handlers set) runs before
    the evaluate does, so this floor minus the browser alone is that work
    plus one round trip; the engine alone minus this floor is the engine."""
    label = "browser, then one read"

    # (By the page's own clock: when its load event ended, and how long
    # after that the read began, free of the noise of whole loads.)
    LATE = ("(() => { const end = performance.getEntriesByType('navigation')[0].loadEventEnd;"
            " return [end, performance.now() - end]; })()")

    # The least any reader that counts what a page holds must do after
    # that read: visit every node once (into open shadow roots), reading
    # an element's name and a text's words, and judge nothing. Timed in
    # the page after the read (so not in this floor's pass), in a world
    # as fresh as the engine's first call finds it.
    WALK = """(() => { const t0 = performance.now(); let n = 0;
      const visit = (p) => { for (let c = p.firstChild; c; c = c.nextSibling) { n++;
        if (c.nodeType === 1) { c.localName; visit(c.shadowRoot || c); } else if (c.nodeType === 3) c.data; } };
      visit(document.documentElement); return [performance.now() - t0, n]; })()"""

    def __init__(self, home):
        super().__init__(home, world="0")

    def page(self, url):
        ms, (end, late), world = self.look(url, self.LATE)
        walk, _ = self.evaluate(world, self.WALK)
        self.record(url, load_ms=end, own_work_ms=late, bare_walk_ms=walk)
        return ms


class EngineAlone(RawFloor):
    """The floor for a server that answers a navigation with tabwire's
    skeleton: Page.navigate → load → the engine's `loaded()` look with the
    skeleton (one Runtime.evaluate in its world, as tabwire's load probe
    sends it), with the engine registered for new documents as tabwire
    does, and no tabwire process."""
    label = "engine alone (load + skeleton)"
    # (With the page's own clock around it: when the load event ended,
    # when the look began and when it ended.)
    LOOK = ("(async () => { const t0 = performance.now();"
            " const look = await __tabwire.loaded({snapshot: {budget: 40000, skeleton: 12000}, follow: 0});"
            " return {look, clock: [performance.getEntriesByType('navigation')[0].loadEventEnd, t0, performance.now()]}; })()")

    def __init__(self, home):
        super().__init__(home, world=engine_source.source())

    def page(self, url):
        ms, value, _ = self.look(url, self.LOOK)
        if "snapshot" not in (value or {}).get("look", {}):
            raise RuntimeError(f"engine alone: no snapshot for {url}: {str(value)[:300]}")
        end, t0, t1 = value["clock"]
        self.record(url, load_ms=end, own_work_ms=t0 - end, engine_ms=t1 - t0)
        return ms


class Served:
    """An MCP server's navigate + snapshot of a page."""

    def __init__(self, server):
        self.server = server
        self.label = server.label
        # Warm-up: the browser starts, the first page loads.
        server.call("browser_navigate", {"url": f"{DOCS}/index.html"})
        # One viewport for every server (the extension's headless window is
        # 780 px wide, where the docs switch to their narrow layout).
        server.call("browser_resize", {"width": 1280, "height": 720})

    def page(self, url):
        return (self.server.call("browser_navigate", {"url": url})[0]
                + self.server.call("browser_snapshot", {})[0])

    def stop(self):
        self.server.stop()


def navigate_passes(runners, runs, progress):
    """Passes over the pages, interleaved: each round runs every runner's
    pass, in an order that rotates, so a slow spell of the machine falls on
    all of them alike. The median pass of each after one warm-up round;
    a runner that fails is left out of the later rounds."""
    totals = {r.label: [] for r in runners}
    errors = {}
    for rnd in range(runs + 1):
        k = rnd % len(runners)
        for r in runners[k:] + runners[:k]:
            if r.label in errors:
                continue
            progress(f"navigate + snapshot, round {rnd + 1}/{runs + 1}: {r.label}")
            try:
                total = sum(r.page(u) for u in PAGES)
            except Exception as e:
                errors[r.label] = str(e)
                continue
            if rnd:
                totals[r.label].append(total)
    return {label: {"error": errors[label]} if label in errors else
            {"navigate_snapshot_total_ms": statistics.median(ts)} for label, ts in totals.items()}


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
    """The big page's steps on one server (already warmed up)."""
    out = {}
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


def page_clock_shares(runners):
    """The floors' parts by the pages' own clocks, sums over the pages
    of medians: the load (navigation start → end of the load event), the
    page's own work before a read could begin, a bare walk, and (if its
    floor ran) the engine's look. None if the reading floor has none."""
    reader = next((r for r in runners if isinstance(r, BrowserThenRead)), None)
    engine = next((r for r in runners if isinstance(r, EngineAlone)), None)
    if not (reader and reader.parts):
        return None
    per_page = reader.medians()
    total = lambda per, k: sum(p[k] for p in per.values())
    loads, own, walk = total(per_page, "load_ms"), total(per_page, "own_work_ms"), total(per_page, "bare_walk_ms")
    out = {"per_page": per_page, "loads_ms": loads, "own_work_ms": own, "bare_walk_ms": walk,
           "walker_x": (loads + own + walk) / loads}
    if engine and engine.parts:
        e = engine.medians()
        for u, p in per_page.items():
            if u in e:
                p["engine_ms"] = e[u]["engine_ms"]
        e_loads, e_own, e_look = total(e, "load_ms"), total(e, "own_work_ms"), total(e, "engine_ms")
        out.update(engine_loads_ms=e_loads, engine_own_work_ms=e_own, engine_ms=e_look,
                   engine_x=(e_loads + e_own + e_look) / e_loads)
    return out


def main():
    global TMP
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--no-debugging-bar", action="store_true")
    ap.add_argument("--compare", metavar="BIN",
                    help="another tabwire binary (e.g. a build of main), run in the same rounds")
    a = ap.parse_args()
    TMP = tempfile.mkdtemp(prefix="tabwire-real-pages-")
    for url in (BIG, f"{ADMIN}/admin/login/"):
        try:
            subprocess.run(["curl", "-sf", "-o", "/dev/null", url], check=True)
        except subprocess.CalledProcessError:
            sys.exit(f"real-pages: {url} does not answer: start `sh bench/real-site.sh &` first")
    b = tabwire_bin("real-pages")
    bar = ("--silent-debugger-extension-api",) if a.no_debugging_bar else ()
    env, servers = tabwire_servers(b, TMP, bar)
    servers = [(label, argv, env) for label, argv in servers]
    if a.compare:
        # (A profile, a browser and an environment of its own.)
        os.makedirs(f"{TMP}/compare")
        env2, more = tabwire_servers(os.path.abspath(a.compare), f"{TMP}/compare", bar)
        servers += [(f"{label}@compare", argv, env2) for label, argv in more]
    if not a.no_peers:
        pw = f"{ROOT}/bench/.cache/node_modules/@playwright/mcp/cli.js"
        if not os.path.exists(pw):
            print("real-pages: installing @playwright/mcp with npm into bench/.cache", file=sys.stderr)
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix",
                            f"{ROOT}/bench/.cache", "@playwright/mcp"], check=True,
                           env=dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1"))
        servers.append(("playwright-mcp", ["node", pw, "--headless", "--isolated", "--no-sandbox",
                                           "--executable-path", CHROMIUM, "--output-dir",
                                           f"{TMP}/pw-out"], env))
    def progress(what):
        print(f"\rreal-pages: {what}\033[K", end="", file=sys.stderr, flush=True)
    runners = []
    try:
        progress("starting the browsers and servers")
        runners.append(BrowserAlone(f"{TMP}/alone"))
        runners.append(BrowserThenRead(f"{TMP}/read"))
        runners.append(EngineAlone(f"{TMP}/engine"))
        served_errors = {}
        for label, argv, server_env in servers:
            try:
                runners.append(Served(McpServer(label, argv, server_env, TMP, client="real-pages")))
            except Exception as e:
                served_errors[label] = {"error": str(e)}
        results = navigate_passes(runners, a.runs, progress)
        results.update(served_errors)
        for r in runners:
            if isinstance(r, Served) and "error" not in results[r.label]:
                try:
                    results[r.label].update(measure(r.server, a.runs,
                                                    lambda what, l=r.label: progress(f"{l}: {what}")))
                except Exception as e:
                    results[r.label]["error"] = str(e)
    finally:
        for r in runners:
            r.stop()
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
            if l.startswith(("browser alone", "browser, then", "engine alone")):
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
    # (A floor that failed has an error instead of a time: its lines are left out.)
    alone = results["browser alone (loads only)"].get("navigate_snapshot_total_ms")
    floor = results["engine alone (load + skeleton)"].get("navigate_snapshot_total_ms")
    if "navigate_snapshot_total_ms" in peer:
        if alone:
            print(f"  the browser's own loads: {alone / peer['navigate_snapshot_total_ms']:.2f}× playwright-mcp")
        if floor:
            print(f"  the engine alone (loads + skeletons, no tabwire): "
                  f"{floor / peer['navigate_snapshot_total_ms']:.2f}× playwright-mcp")
    read = results["browser, then one read"].get("navigate_snapshot_total_ms")
    # The floors' parts by the pages' own clocks, each floor's in its own
    # browser: free of the ±10 % one browser differs from another by.
    by_clock = page_clock_shares(runners)
    if by_clock:
        own, walk = by_clock["own_work_ms"], by_clock["bare_walk_ms"]
        results["by the pages' own clocks"] = by_clock
        results["browser, then one read"].update(read_after_load_event_ms=own, bare_walk_ms=walk)
        print(f"  the read began {own:.0f} ms after the load events ended, by the pages' own clocks "
              f"(sum of medians over the six pages): the page's own work after its load")
        if read and alone:
            print(f"  a walk that only visits every node, after that read: {walk:.0f} ms in the pages (sum of medians); "
                  f"the cheapest reader that counts a page's nodes: {(read + walk) / alone:.2f}× the browser's loads")
        line = (f"  by the pages' own clocks (sums of medians): loads {by_clock['loads_ms']:.0f} ms; "
                f"after them, the page's own work {own:.0f} ms, a bare walk {walk:.0f} ms "
                f"({by_clock['walker_x']:.2f}× the loads)")
        if "engine_ms" in by_clock:
            line += (f"; in the engine's browser, loads {by_clock['engine_loads_ms']:.0f} ms, the page's own work "
                     f"{by_clock['engine_own_work_ms']:.0f} ms, the engine {by_clock['engine_ms']:.0f} ms "
                     f"({by_clock['engine_x']:.2f}× the loads)")
        print(line)
        if alone:
            # (Issue 46 counts against Page.navigate → load event, which is
            # longer than the page's own clock: those parts added to it.)
            floors = {"own_work": (alone + own) / alone, "bare_walk": (alone + own + walk) / alone}
            line = (f"  those parts added to the browser alone ({alone:.0f} ms): the page's own work "
                    f"{floors['own_work']:.2f}×, then a bare walk {floors['bare_walk']:.2f}×")
            if "engine_ms" in by_clock:
                floors["engine"] = (alone + by_clock["engine_own_work_ms"] + by_clock["engine_ms"]) / alone
                line += f"; the page's own work and the engine {floors['engine']:.2f}×"
            by_clock["issue_floors_x"] = floors
            print(line)
    if alone and read and floor:
        print(f"  the page's own work after its load, and one read: {read - alone:+.0f} ms "
              f"({read / alone:.2f}× the browser's loads); the engine on top of that: {floor - read:+.0f} ms")
    for l, r in results.items():
        if l.startswith("tabwire") and "navigate_snapshot_total_ms" in r and alone:
            print(f"  {l}: navigate + snapshot {r['navigate_snapshot_total_ms'] / alone:.2f}× the browser's loads "
                  f"(issue 46: ≤ 1.25)")
    if floor and alone:
        print(f"  the engine alone: {floor / alone:.2f}× the browser's loads (issue 46: ≤ 1.15)")
    for l, r in (("extension", ext), ("cdp", cdp)):
        if "navigate_snapshot_total_ms" in r and floor and alone:
            print(f"  {l}: navigate + snapshot {r['navigate_snapshot_total_ms'] - floor:+.0f} ms "
                  f"over the engine alone, {r['navigate_snapshot_total_ms'] - alone:+.0f} ms over the browser's loads")
    if ext and cdp and "error" not in ext and "error" not in cdp:
        worst = max(ext[k] / cdp[k] for _, k in rows[:4])
        print(f"  extension / cdp, worst step: {worst:.2f}× (issue 25: ≤ 1.1)")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    path = f"{ROOT}/bench/results/real-pages-{stamp}.json"
    with open(path, "w") as f:
        json.dump({"tabwire": b, "compare": a.compare, "runs": a.runs, "debugging_bar": not a.no_debugging_bar,
                   "pages": PAGES, "results": results}, f, indent=1)
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
