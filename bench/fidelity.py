#!/usr/bin/env python3
"""Fidelity of the snapshot engine: for every interactive element Chromium's
own accessibility tree lists on a page (button, link, textbox, … not
ignored), compare the (role, name) tabwire's in-page engine computes with
the (role, name) of the AX tree. Prints agreement per page and the misses
by kind; writes JSON to bench/results/fidelity-<time>.json.

It also lists the interactive elements the engine leaves out because a
person cannot see them (answers show only what a person sees), each with
its markup, and how many blocks of page text it leaves out: those lists
are what to audit when the visibility rules change (a visible element
there is content lost).

Needs: Chromium at /usr/lib/chromium/chromium. Pages are URLs given on the
command line, or the default corpus (python3-doc, Django's admin) that
bench/real-site.sh serves. CDP goes over --remote-debugging-pipe (no port,
no dependencies).

Run: python3 bench/fidelity.py [URL ...]
"""
import collections, datetime, json, os, subprocess, sys, tempfile, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE = open(os.path.join(ROOT, "src/engine/engine.js")).read()
CHROMIUM = os.environ.get("CHROMIUM", "/usr/lib/chromium/chromium")

DOCS = os.environ.get("DOCS_URL", "http://127.0.0.1:8765")
ADMIN = os.environ.get("ADMIN_URL", "http://127.0.0.1:8766")
CORPUS = [
    f"{DOCS}/library/stdtypes.html",
    f"{DOCS}/library/functions.html",
    f"{DOCS}/library/os.html",
    f"{DOCS}/reference/datamodel.html",
    f"{DOCS}/tutorial/index.html",
    f"{DOCS}/search.html?q=dict",
    f"{DOCS}/py-modindex.html",
    f"{ADMIN}/admin/login/",
    f"{ADMIN}/admin/",
    f"{ADMIN}/admin/auth/user/",
    f"{ADMIN}/admin/auth/user/add/",
    f"{ADMIN}/admin/auth/group/add/",
]

# The roles a model acts on (the engine's refs), as Chromium spells them.
INTERACTIVE = {"button", "checkbox", "combobox", "link", "listbox", "menuitem",
               "menuitemcheckbox", "menuitemradio", "option", "radio", "searchbox",
               "slider", "spinbutton", "switch", "tab", "textbox", "treeitem"}


class Pipe:
    """CDP over fds 3/4 of a Chromium started with --remote-debugging-pipe."""

    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="tabwire-fidelity-")
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        # The child needs the pipe ends at fds 3 and 4 exactly.
        def fds():
            # Move both ends out of the way first: a pipe end may itself be
            # fd 3 or 4 (and Python's pipe ends close on exec).
            a, b = os.dup(to_browser_r), os.dup(from_browser_w)
            os.dup2(a, 3, inheritable=True)
            os.dup2(b, 4, inheritable=True)
        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={self.tmp}/udd", "--remote-debugging-pipe", "about:blank"],
            # close_fds would close 3 and 4 after the dup2 above.
            preexec_fn=fds, close_fds=False,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buf = b""
        self.next = 0

    def send(self, method, params=None, session=None):
        self.next += 1
        msg = {"id": self.next, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_browser, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                chunk = os.read(self.from_browser, 1 << 20)
                if not chunk:
                    raise RuntimeError("browser closed the pipe")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            m = json.loads(raw)
            if m.get("id") == self.next:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error'].get('message')}")
                return m["result"]

    def close(self):
        self.proc.kill()


def clean(s):
    return " ".join((s or "").split())


def check_page(cdp, session, url):
    cdp.send("Page.navigate", {"url": url}, session)
    for _ in range(200):
        r = cdp.send("Runtime.evaluate", {"expression": "document.readyState + ' ' + location.href",
                                          "returnByValue": True}, session)
        if r["result"]["value"].startswith("complete"):
            break
        time.sleep(0.05)
    time.sleep(0.3)  # late scripts (search results, admin widgets)
    frame = cdp.send("Page.getFrameTree", {}, session)["frameTree"]["frame"]["id"]
    ctx = cdp.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": "tabwire"},
                   session)["executionContextId"]
    cdp.send("Runtime.evaluate", {"expression": ENGINE, "contextId": ctx}, session)
    nodes = cdp.send("Accessibility.getFullAXTree", {}, session)["nodes"]
    compared, misses, unseen = 0, [], []
    for n in nodes:
        role = n.get("role", {}).get("value", "")
        if n.get("ignored") or role not in INTERACTIVE or "backendDOMNodeId" not in n:
            continue
        # Options of a closed <select> live in the browser's popup, not the
        # page: the engine lists them under their select, unchecked here.
        obj = cdp.send("DOM.resolveNode", {"backendNodeId": n["backendDOMNodeId"],
                                           "executionContextId": ctx}, session)["object"]
        if "objectId" not in obj:
            continue
        mine = cdp.send("Runtime.callFunctionOn", {
            "objectId": obj["objectId"], "returnByValue": True,
            "functionDeclaration": "function() { const t = globalThis.__tabwire, r = t.roleOf(this); "
                                   "return [r, t.nameOf(this, r), this.outerHTML.slice(0, 120), "
                                   "t.read(() => t.seen(this), null).value]; }"},
            session)["result"]["value"]
        if not mine[3]:
            unseen.append({"role": role, "name": clean(n.get("name", {}).get("value", ""))[:80],
                           "html": mine[2]})
        ax_name = clean(n.get("name", {}).get("value", ""))
        compared += 1
        if mine[0] != role:
            misses.append({"kind": f"role {role} read as {mine[0]}", "html": mine[2]})
        elif clean(mine[1]) != ax_name:
            misses.append({"kind": f"name of {role}", "ax": ax_name[:80], "engine": clean(mine[1])[:80],
                           "html": mine[2]})
    hidden = cdp.send("Runtime.evaluate", {
        "expression": "globalThis.__tabwire.read(() => globalThis.__tabwire.text(null, 1e9), null).hidden",
        "contextId": ctx, "returnByValue": True}, session)["result"]["value"]
    return compared, misses, unseen, hidden


LOG_IN = """(() => { document.querySelector('#id_username').value = 'admin';
  document.querySelector('#id_password').value = 'tabwire-bench';
  document.querySelector('form').submit(); })()"""


def log_in(cdp, session):
    """Signs in to the Django admin (bench/real-site.sh's user), so the
    admin pages after the login page show their real content."""
    cdp.send("Runtime.evaluate", {"expression": LOG_IN}, session)
    time.sleep(1.0)


def main():
    pages = sys.argv[1:] or CORPUS
    cdp = Pipe()
    try:
        target = cdp.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = cdp.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        cdp.send("Page.enable", {}, session)
        results, kinds = [], collections.Counter()
        total = agree = 0
        for i, url in enumerate(pages, 1):
            print(f"fidelity: page {i}/{len(pages)} {url}", file=sys.stderr)
            try:
                n, misses, unseen, hidden = check_page(cdp, session, url)
            except Exception as e:  # a page that cannot load is reported, not fatal
                print(f"  skipped: {e}", file=sys.stderr)
                results.append({"url": url, "error": str(e)})
                continue
            if url.endswith("/admin/login/"):
                log_in(cdp, session)
            total += n
            agree += n - len(misses)
            for m in misses:
                kinds[m["kind"]] += 1
            results.append({"url": url, "compared": n, "misses": misses, "unseen": unseen,
                            "hidden_text_blocks": hidden})
            pct = 100.0 * (n - len(misses)) / n if n else 100.0
            print(f"| {url} | {n} | {len(misses)} | {pct:.1f} % | unseen: {len(unseen)} elements, "
                  f"{hidden} text blocks |")
            for u in unseen[:8]:
                print(f"    unseen {u['role']} {u['name']!r}: {u['html']}")
        pct = 100.0 * agree / total if total else 0.0
        print(f"\nAll pages: {agree} of {total} interactive elements agree ({pct:.2f} %).")
        print("\nMisses by kind:")
        for kind, count in kinds.most_common():
            print(f"  {count:5}  {kind}")
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
        out = os.path.join(ROOT, "bench/results", f"fidelity-{stamp}.json")
        with open(out, "w") as f:
            json.dump({"pages": results, "compared": total, "agree": agree, "percent": pct,
                       "misses_by_kind": kinds, "chromium": CHROMIUM}, f, indent=1)
        print(f"\nwrote {out}", file=sys.stderr)
    finally:
        cdp.close()


if __name__ == "__main__":
    main()
