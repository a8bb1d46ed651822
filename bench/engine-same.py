#!/usr/bin/env python3
"""Whether two versions of the snapshot engine give the same answers, byte
for byte: the safety net for changes to the engine (src/engine/parts/)
that are meant to make it cheaper without changing what a model reads.

Per page, one tab; each engine is evaluated in an isolated world of its
own in that tab (as serve puts the engine there), so both read the very
same page, and the calls are made in turn, A then B, step by step:

  skeleton      scrollBy(0, 1), then snapshot({budget: 40000, skeleton: 12000})
  changes-1     a button inserted at the top of the body, then changes()
  full          snapshot({budget: 40000})
  small         snapshot({budget: 2000})
  changes-2     the first heading's text edited, then changes()
  middle-skel   scrolled to the middle of the page, then the skeleton again
  middle-full   there, snapshot({budget: 40000})
  skeleton-kept the skeleton once more, nothing changed (the kept answer)
  changes-3     text appended to the body, then changes({force: true})
  find          find({text: "the"}) (a walk of the whole page)
  stats         stats(): the ref table's counts (refs made in the same order)

Before the first step the page is left until its DOM has been quiet for
half a second (at most 8 s: a search page fills its results in late).
The whole returned objects are compared, as JSON. A step whose answers
differ is asked of A once more: when A's second answer is B's, the page
moved between the two calls (counted as same); when A disagrees with
itself and with B, the page is unstable there (a failure too).

Pages: python3-doc on 127.0.0.1:8765 (`sh bench/real-site.sh &`; the
seven pages bench/fidelity.py checks, stdtypes.html first), every
tests/pages/*.html fixture (and tests/pages/webmcp/*.html) and the
component pages fidelity.py checks (served here from the repository's
root), the Django admin's login page when bench/real-site.sh serves it,
and with --apps the app pages fidelity.py starts (mkdocs, streamlit, …;
started and stopped here as fidelity.py does). URLs given on the command
line are checked instead.

Each engine is `current` (the working tree's parts, joined as the build
joins them: bench/engine_source.py), `@REV` (the engine at git revision
REV) or the path of a joined file.

Run: python3 bench/engine-same.py [--a @main] [--b current] [--apps mkdocs,...]
                                  [--height 720] [--only SUBSTRING] [URL ...]
Prints per page `same` or `DIFFERENT` (with the step and the first line
that differs); exits 1 when any page differs or could not be checked.
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fidelity  # noqa: E402
from fidelity import Pipe  # noqa: E402
import engine_source  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (name, expression run in the page's main world first or None, engine call)
STEPS = [
    ("skeleton", "scrollBy(0, 1)", "__tabwire.snapshot({budget: 40000, skeleton: 12000})"),
    ("changes-1", "(() => { const b = document.createElement('button'); b.textContent = 'Tabwire probe';"
                  " (document.body || document.documentElement).prepend(b); })()",
     "__tabwire.changes({budget: 40000})"),
    ("full", None, "__tabwire.snapshot({budget: 40000})"),
    ("small", None, "__tabwire.snapshot({budget: 2000})"),
    ("changes-2", "(() => { const h = document.querySelector('h1, h2, h3, p, li, a');"
                  " if (h) h.append(' (edited)'); })()",
     "__tabwire.changes({budget: 40000})"),
    ("middle-skel", "scrollTo(0, Math.max(0, (document.documentElement.scrollHeight - innerHeight) / 2))",
     "__tabwire.snapshot({budget: 40000, skeleton: 12000})"),
    ("middle-full", None, "__tabwire.snapshot({budget: 40000})"),
    ("skeleton-kept", None, "__tabwire.snapshot({budget: 40000, skeleton: 12000})"),
    ("changes-3", "(document.body || document.documentElement).append(' tabwire probe text')",
     "__tabwire.changes({budget: 40000, force: true})"),
    ("find", None, "__tabwire.find({text: 'the', limit: 50})"),
    ("stats", None, "__tabwire.stats()"),
]
QUIET, QUIET_MAX = 500, 8000
QUIET_JS = f"""new Promise((done) => {{
  let t = setTimeout(end, {QUIET});
  const cap = setTimeout(end, {QUIET_MAX});
  const o = new MutationObserver(() => {{ clearTimeout(t); t = setTimeout(end, {QUIET}); }});
  o.observe(document, {{subtree: true, childList: true, attributes: true, characterData: true}});
  function end() {{ o.disconnect(); clearTimeout(t); clearTimeout(cap); done(true); }}
}})"""
WORLDS = {"A": "tabwire-same-a", "B": "tabwire-same-b"}


def serve_root():
    """An http.server on the repository's root (fixtures and component
    pages); (process, base URL)."""
    port = fidelity.free_port()
    p = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                         cwd=ROOT, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    until = time.time() + 20
    while not fidelity.answers(base + "/tests/pages/golden.html"):
        if time.time() > until:
            p.kill()
            raise RuntimeError("the fixtures' http.server did not start")
        time.sleep(0.1)
    return p, base


def plan(root_base):
    """[(url, ready selector or None)] of the default pages."""
    pages = []
    if fidelity.answers(fidelity.DOCS_PAGES[0]):
        pages += [(u, None) for u in fidelity.DOCS_PAGES]
    else:
        print("engine-same: python3-doc does not answer on 8765 (sh bench/real-site.sh &): its pages skipped",
              file=sys.stderr)
    if fidelity.answers(fidelity.ADMIN_PAGES[0]):
        pages.append((fidelity.ADMIN_PAGES[0], None))
    fixtures = sorted(glob.glob(os.path.join(ROOT, "tests/pages/*.html")) +
                      glob.glob(os.path.join(ROOT, "tests/pages/webmcp/*.html")))
    pages += [(root_base + "/" + os.path.relpath(f, ROOT), None) for f in fixtures]
    have = {u for u, _ in pages}
    if not fidelity.available("components"):
        for path, ready in fidelity.APP_PAGES["components"]:
            if root_base + path not in have:
                pages.append((root_base + path, ready))
    return pages


def evaluate(cdp, s, expr, ctx=None):
    params = {"expression": expr, "returnByValue": True, "awaitPromise": True}
    if ctx is not None:
        params["contextId"] = ctx
    r = cdp.send("Runtime.evaluate", params, s)
    if "exceptionDetails" in r:
        d = r["exceptionDetails"]
        return {"exception": d.get("exception", {}).get("description") or d.get("text")}
    return r["result"].get("value")


def open_page(cdp, s, url, ready, sources):
    """Loads `url` in tab `s` and puts each engine in its own world:
    {"A": context id, "B": context id}."""
    cdp.send("Page.navigate", {"url": url}, s)
    for _ in range(400):
        if (evaluate(cdp, s, "document.readyState") or "") == "complete":
            break
        time.sleep(0.05)
    if ready:
        until = time.time() + 20
        while not evaluate(cdp, s, f"!!document.querySelector({json.dumps(ready)})"):
            if time.time() > until:
                break
            time.sleep(0.2)
    # Late scripts (a search page fills its results in over time): until
    # the DOM has been quiet for QUIET ms, at most QUIET_MAX ms.
    evaluate(cdp, s, QUIET_JS)
    frame = cdp.send("Page.getFrameTree", {}, s)["frameTree"]["frame"]["id"]
    ctxs = {}
    for k, world in WORLDS.items():
        ctxs[k] = cdp.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": world},
                           s)["executionContextId"]
        evaluate(cdp, s, sources[k], ctxs[k])
    return ctxs


def canon(v):
    return json.dumps(v, sort_keys=True, indent=1, ensure_ascii=False)


def first_difference(a, b):
    """The first line where two answers differ, told for a person."""
    ta = a.get("text") if isinstance(a, dict) else None
    tb = b.get("text") if isinstance(b, dict) else None
    if isinstance(ta, str) and isinstance(tb, str) and ta != tb:
        la, lb = ta.split("\n"), tb.split("\n")
        for i in range(max(len(la), len(lb))):
            x = la[i] if i < len(la) else "<none>"
            y = lb[i] if i < len(lb) else "<none>"
            if x != y:
                return f"text line {i + 1}:\n      A: {x[:300]}\n      B: {y[:300]}"
    la, lb = canon(a).split("\n"), canon(b).split("\n")
    for i in range(max(len(la), len(lb))):
        x = la[i] if i < len(la) else "<none>"
        y = lb[i] if i < len(lb) else "<none>"
        if x != y:
            return f"JSON line {i + 1}:\n      A: {x[:300]}\n      B: {y[:300]}"
    return "?"


def check(cdp, s, url, ready, sources):
    """(verdict, detail): "same", "DIFFERENT" or "UNSTABLE"."""
    ctxs = open_page(cdp, s, url, ready, sources)
    for name, before, call in STEPS:
        if before:
            evaluate(cdp, s, before)
        a = evaluate(cdp, s, call, ctxs["A"])
        b = evaluate(cdp, s, call, ctxs["B"])
        if canon(a) == canon(b):
            continue
        # (A change report asked again reports nothing: not asked again.)
        again = a if name.startswith("changes") else evaluate(cdp, s, call, ctxs["A"])
        if canon(again) == canon(b):
            continue
        verdict = "UNSTABLE" if canon(again) != canon(a) else "DIFFERENT"
        return verdict, f"step {name}: {first_difference(a, b)}"
    return "same", ""


def main():
    ap = argparse.ArgumentParser(description="Whether two engines give byte-identical answers.")
    ap.add_argument("urls", nargs="*", help="pages to check instead of the default set")
    ap.add_argument("--a", default="@main", help="engine A: current, @REV or a joined file (default @main)")
    ap.add_argument("--b", default="current", help="engine B (default current: the working tree)")
    ap.add_argument("--apps", default="", help="comma-separated app sets of bench/fidelity.py to start and "
                    "check too (mkdocs, streamlit, datasette, jupyter, gradio)")
    ap.add_argument("--height", type=int, default=720, help="the viewport's height")
    ap.add_argument("--only", help="check only the pages whose URL contains this")
    args = ap.parse_args()
    sources = {"A": engine_source.load(args.a), "B": engine_source.load(args.b)}
    if sources["A"] == sources["B"]:
        print(f"engine-same: note: {args.a} and {args.b} are the same source", file=sys.stderr)
    server, cdp, apps = None, None, None
    results = []
    try:
        if args.urls:
            pages = [(u, None) for u in args.urls]
        else:
            server, base = serve_root()
            pages = plan(base)
            names = [n for n in args.apps.split(",") if n]
            if names:
                apps = fidelity.Apps(tempfile.mkdtemp(prefix="tabwire-same-apps-"))
                keep = []
                for n in names:
                    why = fidelity.available(n) if n in fidelity.APP_PAGES else f"no app set {n!r}"
                    if why:
                        results.append((n, "SKIPPED", why))
                    else:
                        keep.append(n)
                apps.start(keep)
                for n in keep:
                    try:
                        b = apps.base(n)
                    except RuntimeError as e:
                        results.append((n, "SKIPPED", str(e)))
                        continue
                    pages += [(b + path, ready) for path, ready in fidelity.APP_PAGES[n]]
        if args.only:
            pages = [(u, r) for u, r in pages if args.only in u]
        cdp = Pipe()
        s = cdp.open_tab(1280, args.height)
        for i, (url, ready) in enumerate(pages, 1):
            print(f"\rengine-same: page {i}/{len(pages)}", end="", file=sys.stderr)
            try:
                verdict, detail = check(cdp, s, url, ready, sources)
            except Exception as e:   # a page that cannot be checked fails the run
                verdict, detail = "ERROR", str(e)
            results.append((url, verdict, detail))
        print(file=sys.stderr)
    finally:
        if cdp:
            cdp.close()
        if server:
            server.kill()
            server.wait()
        if apps:
            apps.stop()
    bad = 0
    for url, verdict, detail in results:
        print(f"{verdict:9} {url}")
        if verdict != "same":
            bad += 1
            if detail:
                print(f"    {detail}")
    print(f"\n{len(results) - bad} same, {bad} not ({args.a} vs {args.b}, {len(STEPS)} steps per page)")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
