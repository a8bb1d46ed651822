#!/usr/bin/env python3
"""Fidelity of the snapshot engine (src/engine/parts/, joined by
bench/engine_source.py as the build joins them) on real pages and
apps, both ways: what it shows is right, and what a person can see or
operate is not left out.

Per page it measures:

  * Roles and names: for every interactive element Chromium's own
    accessibility tree lists (button, link, textbox, … not ignored), the
    (role, name) the engine computes against the AX tree's. Also lists the
    interactive elements the engine leaves out because a person cannot see
    them, with their markup, and how many blocks of page text it leaves
    out (what to audit when the visibility rules change).

  * Seen text left out (must be 0): text a person sees that the engine
    leaves out. Every non-blank text node of the document (open shadow
    roots and same-origin frames too) that the engine judges unseen
    (`__tabwire.seen(node)` false, all judged at once before anything
    scrolls) is tested with pixels, an oracle that knows none of the
    engine's rules: a screenshot of its region, then one with only that
    text made invisible (a CSS custom highlight painting it transparent:
    no layout change, no DOM mutation); if the PNGs differ, a person sees
    the text and it is a miss. Texts are tested in batches per scroll
    position (the window and the overflow: auto/scroll boxes around the
    text are scrolled to it, as a person's wheel would; nothing else) and a
    batch whose pixels change is split until the texts that change them are
    found; each miss is confirmed alone on its own region, its screenshot
    taken twice (the region must be stable, else it counts as unstable)
    and hidden twice. Each miss is listed with its text, a CSS path, the
    oracle's reading of the styles that may have made the engine leave it
    out (the engine does not say) and how much the pixels changed (FAINT:
    fewer than 10 pixels changed by 48 or more in a channel, e.g. text
    nearly the colour of its background or a 1 px font). Not tested
    (counted, by why): texts of no size, inside script/style/noscript/
    template/title, inside a closed <details> or a select/textarea (the
    browser draws those), out of reach (no scrolling brings them into the
    viewport), unstable regions, and those over the cap (--cap, default
    400 per page, spread over the kinds of element that hold them) or
    past the time per page (--page-seconds). The highlight cannot take
    away a text's shadow or a background clipped to its glyphs: text seen
    only through those counts as invisible (the engine shows both).

  * Operable controls without a ref (must be 0): every node of Chromium's
    AX tree (per frame where it can be read) with an interactive role, not
    ignored and not disabled, that the engine gives no ref to in one full
    snapshot (budget 10^7: every `[ref=eN]` resolved to its element; the
    ref may sit on the element, an ancestor or descendant within 2 levels,
    its label, or the surface a hidden proxy is drawn on), and that a
    person can operate: a box of at least 2x2 px that takes the pointer at
    its centre once scrolled into view (elementFromPoint hits it, a
    descendant or its label; boxes with overflow hidden are not scrolled).
    Each miss is listed with its role, name and markup, whether the engine
    judges it seen, and the oracle's reading of its styles.

Pages (--pages, comma-separated; default all whose software is here):
  docs       python3-doc (7 pages), served by bench/real-site.sh
  admin      Django's admin (login, index, change list, two add forms),
             bench/real-site.sh, signed in as its user
  mkdocs     a Material for MkDocs site built here (admonitions, tabs,
             code blocks, a table; 2 pages)
  streamlit  bench/apps/streamlit_fidelity.py (a form with a select box,
             text input, slider and submit, a button, a dataframe)
  datasette  a small SQLite database: its table page and its SQL editor
  jupyter    JupyterLab on a notebook with one empty cell
  gradio     bench/apps/gradio_compute.py (number, button, file upload)
  components web components whose labels and inputs live in shadow roots:
             Shoelace and Material Web from npm (tests/apps/widgets, npm
             ci there), and tests/pages/components.html and operable.html
             (hand-made components, date pickers, grids, sortable lists),
             shape.html and pixels.html (generated text, cut text, the
             pixel twins)
When bench/real-site.sh's ports do not answer, it is started here (and
stopped at the end); every app is started on a free port, waited for
until it answers and has drawn its controls (at most ~20 s), and stopped
at the end. A page whose software is not installed is skipped with a
line saying so (an error under --check). URLs given on the command line
are checked instead of the suite.

Needs: Chromium at /usr/lib/chromium/chromium (CHROMIUM); python3-doc and
django for docs/admin; pip: mkdocs-material, streamlit (with pandas),
datasette, jupyterlab, gradio for the apps. CDP goes over
--remote-debugging-pipe (no port, no Python dependencies); the window is
1280x800, as tabwire's.

Run: python3 bench/fidelity.py [--pages docs,admin,...] [--check] [--cap N]
                               [--page-seconds S] [URL ...]
Prints agreement per page, the two numbers per page and in total, and
every miss; progress on stderr; writes JSON to
bench/results/fidelity-<time>.json. --check exits 1 unless both totals
are 0 (and every selected page was checked). About 2 minutes on 2 cores
(bench/real-site.sh's start included).
"""
import argparse, collections, datetime, json, os, shutil, signal, socket, sqlite3, subprocess
import base64, struct, sys, tempfile, time, urllib.request, zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import engine_source  # noqa: E402

ENGINE = engine_source.source()
ORACLE = open(os.path.join(ROOT, "bench/fidelity-oracle.js")).read()
CHROMIUM = os.environ.get("CHROMIUM", "/usr/lib/chromium/chromium")
WIDTH, HEIGHT = 1280, 800

DOCS = os.environ.get("DOCS_URL", "http://127.0.0.1:8765")
ADMIN = os.environ.get("ADMIN_URL", "http://127.0.0.1:8766")
DOCS_PAGES = [
    f"{DOCS}/library/stdtypes.html",
    f"{DOCS}/library/functions.html",
    f"{DOCS}/library/os.html",
    f"{DOCS}/reference/datamodel.html",
    f"{DOCS}/tutorial/index.html",
    f"{DOCS}/search.html?q=dict",
    f"{DOCS}/py-modindex.html",
]
ADMIN_PAGES = [
    f"{ADMIN}/admin/login/",
    f"{ADMIN}/admin/",
    f"{ADMIN}/admin/auth/user/",
    f"{ADMIN}/admin/auth/user/add/",
    f"{ADMIN}/admin/auth/group/add/",
]
CORPUS = DOCS_PAGES + ADMIN_PAGES
SUITE = ["docs", "admin", "mkdocs", "streamlit", "datasette", "jupyter", "gradio", "components"]

# The roles a model acts on (the engine's refs), as Chromium spells them.
INTERACTIVE = {"button", "checkbox", "combobox", "link", "listbox", "menuitem",
               "menuitemcheckbox", "menuitemradio", "option", "radio", "searchbox",
               "slider", "spinbutton", "switch", "tab", "textbox", "treeitem"}


class Pipe:
    """CDP over fds 3/4 of a Chromium started with --remote-debugging-pipe."""

    def __init__(self, args=()):
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
             f"--user-data-dir={self.tmp}/udd", "--remote-debugging-pipe", *args, "about:blank"],
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

    def open_tab(self, width=1280, height=720):
        """A new blank tab at a desktop viewport, its Page events on; its
        session id."""
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable", {}, session)
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session)
        return session

    def close(self):
        self.proc.kill()
        self.proc.wait()
        shutil.rmtree(self.tmp, ignore_errors=True)


def engine_tab(cdp, url, source, name="tabwire"):
    """A fresh tab at `url`, loaded, with `source` (the engine) evaluated
    in an isolated world `name` as serve puts it there: (session, context id)."""
    s = cdp.open_tab()
    return s, engine_in(cdp, s, url, source, name)


def engine_in(cdp, s, url, source, name="tabwire"):
    """Tab `s` loaded at `url` (a new document), with `source` evaluated in
    an isolated world `name`: the world's context id."""
    cdp.send("Page.navigate", {"url": url}, s)
    for _ in range(200):
        r = cdp.send("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True}, s)
        if r["result"]["value"] == "complete":
            break
        time.sleep(0.05)
    frame = cdp.send("Page.getFrameTree", {}, s)["frameTree"]["frame"]["id"]
    ctx = cdp.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": name}, s)["executionContextId"]
    cdp.send("Runtime.evaluate", {"expression": source, "contextId": ctx}, s)
    return ctx


def clean(s):
    return " ".join((s or "").split())


class Page:
    """One tab: evaluation in the page's main world and in the engine's
    isolated world ("tabwire"), screenshots."""

    def __init__(self, cdp, session):
        self.cdp, self.s, self.ctx = cdp, session, None

    def send(self, method, params=None):
        return self.cdp.send(method, params, self.s)

    def main(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        return r["result"].get("value")

    def ev(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "contextId": self.ctx,
                                           "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            d = r["exceptionDetails"]
            raise RuntimeError(f"{expr[:60]}: {d.get('exception', {}).get('description') or d.get('text')}")
        return r["result"].get("value")

    def on(self, object_id, fn, args=()):
        r = self.send("Runtime.callFunctionOn", {
            "objectId": object_id, "returnByValue": True, "functionDeclaration": fn,
            "arguments": [{"value": a} for a in args]})
        if "exceptionDetails" in r:
            raise RuntimeError(r["exceptionDetails"].get("exception", {}).get("description", "error"))
        return r["result"].get("value")

    def shot(self, clip):
        """PNG (base64) of `clip` = [x, y, w, h] in document coordinates."""
        x, y, w, h = clip
        return self.send("Page.captureScreenshot", {
            "format": "png", "clip": {"x": x, "y": y, "width": w, "height": h, "scale": 1}})["data"]


def load(page, url, ready=None, wait=20.0):
    """Navigates and waits for the load; with `ready` (a CSS selector), also
    until the page's scripts have drawn it and the DOM has settled."""
    page.send("Page.navigate", {"url": url})
    for _ in range(400):
        v = page.main("document.readyState + ' ' + location.href") or ""
        if v.startswith("complete"):
            break
        time.sleep(0.05)
    time.sleep(0.3)  # late scripts (search results, admin widgets)
    if ready:
        until = time.time() + wait
        while time.time() < until and not page.main(f"!!document.querySelector({json.dumps(ready)})"):
            time.sleep(0.2)
        if not page.main(f"!!document.querySelector({json.dumps(ready)})"):
            raise RuntimeError(f"{ready!r} not on the page after {wait:.0f} s")
    # Settled: the number of elements and of text characters unchanged for
    # 0.6 s, and no finite animation running (apps fade their widgets in;
    # a search page adds its results one by one), at most 6 s.
    last, same, until = None, 0, time.time() + 6
    while time.time() < until and same < 3:
        n = page.main("[document.getElementsByTagName('*').length, document.body ? "
                      "document.body.textContent.length : 0, document.getAnimations().filter(a => "
                      "a.playState === 'running' && a.effect && "
                      "a.effect.getComputedTiming().endTime !== Infinity).length].join(':')")
        same = same + 1 if n == last and n.endswith(":0") else 0
        last = n
        time.sleep(0.2)
    frame = page.send("Page.getFrameTree")["frameTree"]["frame"]["id"]
    page.ctx = page.send("Page.createIsolatedWorld", {"frameId": frame, "worldName": "tabwire"})["executionContextId"]
    page.ev(ENGINE)
    page.ev(ORACLE)


def ax_nodes(page):
    """The AX tree's nodes, of every frame whose tree can be read."""
    tree = page.send("Page.getFrameTree")["frameTree"]
    nodes, frames, unread = [], [], 0
    todo = [(tree, True)]
    while todo:
        t, top = todo.pop()
        frames.append((t["frame"]["id"], top))
        todo += [(c, False) for c in t.get("childFrames", [])]
    for fid, top in frames:
        try:
            nodes += page.send("Accessibility.getFullAXTree", {} if top else {"frameId": fid})["nodes"]
        except RuntimeError:
            unread += 1
    return nodes, len(frames), unread


def prop(n, name):
    for p in n.get("properties", []):
        if p.get("name") == name:
            return p.get("value", {}).get("value")
    return None


# ---- seen text left out -------------------------------------------------------

def pixels(b64):
    """(width, height, channels, rows of bytes) of a PNG (8-bit RGB/RGBA, as
    Chromium encodes screenshots)."""
    data = base64.b64decode(b64)
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            ch = {2: 3, 6: 4}.get(ctype)
            if depth != 8 or not ch:
                raise ValueError(f"PNG colour type {ctype}, depth {depth}")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, rows, prev, stride = zlib.decompress(idat), [], bytearray(w * ch), w * ch
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - ch] if x >= ch else 0
            b, c = prev[x], prev[x - ch] if x >= ch else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    return w, h, ch, rows


def difference(a, b):
    """How two screenshots of one region differ: pixels changed, pixels
    changed by at least 48 in a channel (plainly visible), the largest
    channel difference."""
    w, h, ch, ra = pixels(a)
    _, _, _, rb = pixels(b)
    changed = strong = top = 0
    for la, lb in zip(ra, rb):
        for x in range(0, w * ch, ch):
            d = max(abs(la[x + k] - lb[x + k]) for k in range(3))
            if d:
                changed += 1
                strong += d >= 48
                top = max(top, d)
    return {"pixels": changed, "strong": strong, "max": top}


def union(rects, pad, w, h):
    l = max(0, min(r[0] for r in rects) - pad)
    t = max(0, min(r[1] for r in rects) - pad)
    rr = min(w, max(r[2] for r in rects) + pad)
    b = min(h, max(r[3] for r in rects) + pad)
    return l, t, rr, b


def pick(cands, cap):
    """At most `cap` candidate indices, spread over the kinds of element that
    hold the texts (a page's 600 hidden permalinks do not crowd out the
    one other kind), in document order."""
    if len(cands) <= cap:
        return list(range(len(cands)))
    kinds = collections.defaultdict(collections.deque)
    for i, c in enumerate(cands):
        kinds[c["kind"]].append(i)
    out = []
    while len(out) < cap:
        for q in list(kinds.values()):
            if q and len(out) < cap:
                out.append(q.popleft())
    return sorted(out)


class TextOracle:
    """Pixel tests of the candidates F.nodes[i] of the current page."""

    PAD = 3  # glyphs (italics, shadows) reach a little past their box

    def __init__(self, page, deadline):
        self.page, self.deadline = page, deadline
        self.status = {}  # index -> invisible | miss | unstable | out of reach
        self.diffs = {}  # index of a miss -> how its pixels changed
        self.shots = 0

    def shot(self, clip):
        self.shots += 1
        return self.page.shot(clip)

    def changes(self, idx, clip, base):
        """The screenshot with texts `idx` hidden when it differs from `base`."""
        self.page.ev(f"__fid.hide({json.dumps(idx)})")
        try:
            after = self.shot(clip)
        finally:
            self.page.ev("__fid.show()")
        return after if after != base else None

    def run(self, idx):
        todo = list(idx)
        while todo and time.time() < self.deadline:
            first = todo[0]
            self.page.ev(f"__fid.bring({first})")
            time.sleep(0.03)  # what the page does on scroll
            at = self.page.ev(f"__fid.places({json.dumps(todo)})")
            batch = [(i, r) for i, r in zip(todo, at["rects"]) if r]
            if not any(i == first for i, _ in batch):
                self.status[first] = "out of reach"
            self.test(batch, at)
            todo = [i for i in todo if i not in self.status]

    def clip(self, rects, at):
        l, t, r, b = union(rects, self.PAD, at["w"], at["h"])
        return [l + at["x"], t + at["y"], r - l, b - t]

    def test(self, batch, at):
        if not batch:
            return
        clip = self.clip([r for _, r in batch], at)
        base = self.shot(clip)
        idx = [i for i, _ in batch]
        if not self.changes(idx, clip, base):
            # The same pixels with these texts hidden: none of them shows.
            for i in idx:
                self.status[i] = "invisible"
            return
        if self.shot(clip) != base:
            # Something moves here: smaller regions, down to one text.
            if len(batch) == 1:
                self.status[batch[0][0]] = "unstable"
                return
            half = len(batch) // 2
            self.test(batch[:half], at)
            self.test(batch[half:], at)
            return
        self.find(batch, clip, base, at)

    def find(self, batch, clip, base, at):
        """Hiding `batch` changes the pixels: which of its texts do?"""
        if len(batch) == 1:
            self.confirm(batch[0], at)
            return
        half = len(batch) // 2
        for part in (batch[:half], batch[half:]):
            if self.changes([i for i, _ in part], clip, base):
                self.find(part, clip, base, at)
            else:
                for i, _ in part:
                    self.status[i] = "invisible"

    def confirm(self, item, at):
        """One text, on its own region: changed by hiding it, and stable."""
        i, r = item
        clip = self.clip([r], at)
        base = self.shot(clip)
        after = self.changes([i], clip, base)
        if not after:
            self.status[i] = "invisible"
        elif self.shot(clip) == base and self.changes([i], clip, base) == after:
            self.status[i] = "miss"
            try:
                self.diffs[i] = difference(base, after)
            except (ValueError, zlib.error) as e:
                self.diffs[i] = {"error": str(e)}
        else:
            self.status[i] = "unstable"


def seen_text(page, cap, seconds):
    scan = page.ev("__fid.scan()")
    cands = scan.pop("cands")
    chosen = pick(cands, cap)
    # The oracle's reading of why each was left out, where the engine
    # judged it (before any scrolling).
    about = page.ev(f"__fid.describe({json.dumps(chosen)})")
    oracle = TextOracle(page, time.time() + seconds)
    oracle.run(chosen)
    page.ev("__fid.show(); __fid.unscroll()")
    st = collections.Counter(oracle.status.values())
    left_out = []
    for i, d in zip(chosen, about):
        if oracle.status.get(i) == "miss":
            left_out.append({"text": cands[i]["text"], "reason": d["reason"], "path": d["path"],
                             "pixels": oracle.diffs.get(i)})
    return {
        "texts": scan["texts"], "seen": scan["seen"], "unseen": scan["texts"] - scan["seen"],
        "tested": st["invisible"] + st["miss"], "invisible": st["invisible"],
        "not_tested": {"zero size": scan["zero"], "script/style/template": scan["container"],
                       "closed details/select/textarea": scan["closed"],
                       "out of reach": st["out of reach"], "unstable": st["unstable"],
                       "over the cap": len(cands) - len(chosen),
                       "out of time": len(chosen) - len(oracle.status)},
        "capped": len(cands) > len(chosen), "candidates": len(cands), "screenshots": oracle.shots,
        "kinds": dict(collections.Counter(c["kind"] for c in cands).most_common(12)),
        "left_out": left_out,
    }


# ---- the page -------------------------------------------------------------------

CHECK = ("function() { const t = globalThis.__tabwire, r = t.roleOf(this); "
         "return [r, t.nameOf(this, r), this.outerHTML.slice(0, 120), "
         "t.read(() => t.seen(this), null).value, globalThis.__fid.hasRef(this), "
         "this.outerHTML.slice(0, 160)]; }")


def check_page(page, url, ready, cap, seconds):
    load(page, url, ready)
    refs = page.ev("__fid.loadRefs(__tabwire.snapshot({budget: 10000000}).text)")
    # The engine's view of each control, where it judged it (before the
    # pointer tests scroll).
    about = {}
    nodes, frames, unread = ax_nodes(page)
    compared, misses, unseen, no_ref = 0, [], [], []
    disabled_n = 0
    for n in nodes:
        role = n.get("role", {}).get("value", "")
        if n.get("ignored") or role not in INTERACTIVE or "backendDOMNodeId" not in n:
            continue
        # Options of a closed <select> live in the browser's popup, not the
        # page: the engine lists them under their select, unchecked here.
        try:
            obj = page.send("DOM.resolveNode", {"backendNodeId": n["backendDOMNodeId"],
                                                "executionContextId": page.ctx})["object"]
        except RuntimeError:
            continue  # (a node of a frame this world cannot reach)
        if "objectId" not in obj:
            continue
        mine = page.on(obj["objectId"], CHECK)
        ax_name = clean(n.get("name", {}).get("value", ""))
        if not mine[3]:
            unseen.append({"role": role, "name": ax_name[:80], "html": mine[2]})
        compared += 1
        if mine[0] != role:
            misses.append({"kind": f"role {role} read as {mine[0]}", "html": mine[2]})
        elif clean(mine[1]) != ax_name:
            misses.append({"kind": f"name of {role}", "ax": ax_name[:80], "engine": clean(mine[1])[:80],
                           "html": mine[2]})
        if prop(n, "disabled"):
            disabled_n += 1
        elif not mine[4]:
            no_ref.append((obj["objectId"], role, ax_name[:80], mine[5]))
            about[obj["objectId"]] = page.on(obj["objectId"], "function() { return globalThis.__fid.aboutControl(this); }")
    hidden = page.ev("globalThis.__tabwire.read(() => globalThis.__tabwire.text(null, 1e9), null).hidden")
    text = seen_text(page, cap, seconds)
    # Last: scrolling controls into view moves scroll boxes.
    without, not_operable = [], collections.Counter()
    for oid, role, name, html in no_ref:
        try:
            r = page.on(oid, "function() { return globalThis.__fid.operable(this); }")
        except RuntimeError as e:
            not_operable[f"gone ({e})"[:60]] += 1
            continue
        if r["ok"]:
            a = about[oid]
            without.append({"role": role, "name": name, "html": html,
                            "engine": "seen" if a["seen"] else "unseen", "styles": a["reason"]})
        else:
            not_operable[r["why"].split(" ")[0]] += 1
    controls = {"interactive": compared, "disabled": disabled_n, "no_ref": len(no_ref),
                "not_operable": dict(not_operable), "without_ref": without, "refs": refs,
                "frames": frames, "frames_unread": unread}
    return {"url": url, "compared": compared, "misses": misses, "unseen": unseen,
            "hidden_text_blocks": hidden, "text": text, "controls": controls}


LOG_IN = """(() => { document.querySelector('#id_username').value = 'admin';
  document.querySelector('#id_password').value = 'tabwire-bench';
  document.querySelector('form').submit(); })()"""


def log_in(page):
    """Signs in to the Django admin (bench/real-site.sh's user), so the
    admin pages after the login page show their real content."""
    page.main(LOG_IN)
    time.sleep(1.0)


# ---- the apps -------------------------------------------------------------------

def answers(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return r.status == 200
    except (OSError, ValueError):
        return False


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def have(module):
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True).returncode == 0


MKDOCS_YML = """site_name: Tide pools
theme:
  name: material
  font: false
  features: [content.code.copy, content.tabs.link, navigation.sections]
markdown_extensions:
  - admonition
  - attr_list
  - tables
  - toc: {permalink: true}
  - pymdownx.details
  - pymdownx.highlight: {anchor_linenums: true}
  - pymdownx.inlinehilite
  - pymdownx.superfences
  - pymdownx.tabbed: {alternate_style: true}
nav: [index.md, reference.md]
"""
MKDOCS_INDEX = '''# Tide pools

Anemones and crabs live in the pools the tide leaves behind.

!!! note "Before you go"
    Check the tide tables: the pools are only reachable at low tide.

!!! warning
    Rocks covered in weed are slippery.

??? tip "Collapsed tip"
    Turn stones back the way you found them.

???+ info "Open info"
    Wet your hands before you touch an anemone.

=== "Python"

    ```python
    def count(pool):
        return sum(1 for animal in pool if animal.kind == "anemone")
    ```

=== "Shell"

    ```sh
    grep -c anemone pool.txt
    ```

=== "Notes"

    Counting by hand is fine too.
'''
MKDOCS_REFERENCE = '''# Reference

| Animal | Where | Count |
|--------|-------|------:|
| Beadlet anemone | North rocks | 14 |
| Shore crab | Harbour wall | 11 |
| Common prawn | Sandy cove | 23 |

``` py title="survey.py" linenums="1" hl_lines="2"
import csv

rows = list(csv.reader(open("survey.csv")))
print(len(rows), "surveys")
```

## Fields

Each row holds `pool`, `animal` and `count`.[^1]

[^1]: Counts are per visit.
'''


class Apps:
    """The servers the selected pages need: started here, stopped at the end."""

    def __init__(self, tmp):
        self.tmp, self.procs, self.bases = tmp, [], {}

    def spawn(self, name, argv, cwd=None, env=None):
        log = open(f"{self.tmp}/{name}.log", "w")
        p = subprocess.Popen(argv, cwd=cwd or self.tmp, stdin=subprocess.DEVNULL, stdout=log,
                             stderr=subprocess.STDOUT, start_new_session=True,
                             env=dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", **(env or {})))
        self.procs.append(p)
        return p

    def app(self, name, argv, ready, cwd=None, env=None):
        port = free_port()
        self.spawn(name, [a.replace("{port}", str(port)) for a in argv], cwd, env)
        self.bases[name] = (f"http://127.0.0.1:{port}", ready)

    def start(self, names):
        """Starts what `names` need, without waiting (they start together)."""
        tmp = self.tmp
        if ("docs" in names or "admin" in names) and not (answers(DOCS_PAGES[0]) and answers(ADMIN_PAGES[0])):
            print("fidelity: starting bench/real-site.sh", file=sys.stderr)
            self.spawn("real-site", ["sh", f"{ROOT}/bench/real-site.sh"])
        if "mkdocs" in names:
            subprocess.run([sys.executable, "-m", "mkdocs", "new", "mk"], cwd=tmp, check=True,
                           capture_output=True)
            with open(f"{tmp}/mk/mkdocs.yml", "w") as f:
                f.write(MKDOCS_YML)
            with open(f"{tmp}/mk/docs/index.md", "w") as f:
                f.write(MKDOCS_INDEX)
            with open(f"{tmp}/mk/docs/reference.md", "w") as f:
                f.write(MKDOCS_REFERENCE)
            subprocess.run([sys.executable, "-m", "mkdocs", "build", "-q", "-d", "site"], cwd=f"{tmp}/mk",
                           check=True, capture_output=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
            self.app("mkdocs", [sys.executable, "-m", "http.server", "{port}", "--bind", "127.0.0.1"], "/",
                     cwd=f"{tmp}/mk/site")
        if "streamlit" in names:
            self.app("streamlit", [sys.executable, "-m", "streamlit", "run", f"{ROOT}/bench/apps/streamlit_fidelity.py",
                                   "--server.headless", "true", "--server.port", "{port}",
                                   "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
                                   "--server.fileWatcherType", "none"], "/_stcore/health")
        if "datasette" in names:
            db = sqlite3.connect(f"{tmp}/pools.db")
            db.execute("create table finds (id integer primary key, pool text, animal text, count integer, seen text)")
            db.executemany("insert into finds (pool, animal, count, seen) values (?, ?, ?, ?)", [
                (p, a, (7 * i + 3) % 25, f"2024-0{1 + i % 9}-1{i % 10}")
                for i, (p, a) in enumerate((p, a) for p in ("North rocks", "Harbour wall", "Sandy cove")
                                           for a in ("Beadlet anemone", "Shore crab", "Common prawn",
                                                     "Blenny", "Limpet"))])
            db.execute("create table pools (name text primary key, depth_cm integer)")
            db.executemany("insert into pools values (?, ?)", [("North rocks", 40), ("Harbour wall", 25),
                                                               ("Sandy cove", 15)])
            db.commit()
            db.close()
            self.app("datasette", [sys.executable, "-m", "datasette", "serve", f"{tmp}/pools.db",
                                   "-h", "127.0.0.1", "-p", "{port}"], "/-/versions.json")
        if "jupyter" in names:
            root = f"{tmp}/jupyter"
            os.makedirs(f"{root}/nb")
            shutil.copy(f"{ROOT}/tests/apps/jupyter_notebook.ipynb", f"{root}/nb/notebook.ipynb")
            shutil.copytree(f"{ROOT}/tests/apps/jupyter_settings", f"{root}/settings")
            self.app("jupyter", [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
                                 "--ip", "127.0.0.1", "--port", "{port}", f"--ServerApp.root_dir={root}/nb",
                                 "--IdentityProvider.token=", "--ServerApp.password=",
                                 "--ServerApp.disable_check_xsrf=True", "--LabApp.news_url=None",
                                 "--LabApp.check_for_updates_class=jupyterlab.handlers.announcements.NeverCheckForUpdate",
                                 "--LabApp.extension_manager=readonly",
                                 f"--LabApp.workspaces_dir={root}/workspaces",
                                 f"--LabApp.user_settings_dir={root}/settings"], "/api/status",
                     env={"JUPYTER_RUNTIME_DIR": f"{root}/runtime", "JUPYTER_CONFIG_DIR": f"{root}/config"})
        if "gradio" in names:
            self.app("gradio", [sys.executable, f"{ROOT}/bench/apps/gradio_compute.py", "{port}"], "/")
        if "components" in names:
            self.app("components", [sys.executable, "-m", "http.server", "{port}", "--bind", "127.0.0.1"],
                     "/tests/pages/components.html", cwd=ROOT)

    def base(self, name, wait=90):
        """The app's base URL once it answers."""
        base, ready = self.bases[name]
        until = time.time() + wait
        while not answers(base + ready):
            if time.time() > until:
                raise RuntimeError(f"{name} did not start in {wait} s; its log: {self.tmp}/{name}.log")
            time.sleep(0.2)
        return base

    def real_site(self, wait=120):
        until = time.time() + wait
        while not (answers(DOCS_PAGES[0]) and answers(ADMIN_PAGES[0])):
            if time.time() > until:
                raise RuntimeError(f"bench/real-site.sh did not serve in {wait} s; see {self.tmp}/real-site.log")
            time.sleep(0.3)

    def stop(self):
        for p in self.procs:
            try:
                os.killpg(p.pid, signal.SIGTERM)  # the group started here, by its id
            except ProcessLookupError:
                pass
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)


# Each suite entry: what it needs installed, its pages (path, ready selector).
NEEDS = {"docs": ["django"], "admin": ["django"], "mkdocs": ["material"], "streamlit": ["streamlit", "pandas"],
         "datasette": ["datasette"], "jupyter": ["jupyterlab", "ipykernel"], "gradio": ["gradio"],
         "components": []}
APP_PAGES = {
    "mkdocs": [("/", "label.md-search__icon, .md-content"), ("/reference/", ".md-content")],
    "streamlit": [("/", "[data-testid=stDataFrame] canvas, [data-testid=stDataFrame] table")],
    "datasette": [("/pools/finds", None), ("/pools?sql=select+pool%2C+animal%2C+count+from+finds", ".CodeMirror")],
    "jupyter": [("/lab/tree/notebook.ipynb", ".jp-Notebook .cm-content")],
    "gradio": [("/", "button.primary, button.lg")],
    # (Served from the repository's root: the npm pages and the fixtures.)
    "components": [("/tests/apps/widgets/shoelace.html", "sl-tree-item:defined"),
                   ("/tests/apps/widgets/material.html", "md-filled-button:defined"),
                   ("/tests/pages/components.html", None),
                   ("/tests/pages/operable.html", None),
                   # (Round 4's reading fixtures: generated text, cut
                   # text, line breaks; the pixel twins.)
                   ("/tests/pages/shape.html", None),
                   ("/tests/pages/pixels.html", None)],
}


def available(name):
    if name in ("docs", "admin") and not os.path.exists("/usr/share/doc/python3/html/library/stdtypes.html") \
            and not answers(DOCS_PAGES[0]):
        return "python3-doc is not installed (apt)"
    if name == "components" and not os.path.isdir(f"{ROOT}/tests/apps/widgets/node_modules/@shoelace-style"):
        return "npm packages of tests/apps/widgets not installed (npm ci there)"
    missing = [m for m in NEEDS[name] if not have(m)]
    return f"pip package(s) {', '.join(missing)} not installed" if missing else ""


def main():
    ap = argparse.ArgumentParser(description="Fidelity of the snapshot engine, both ways.")
    ap.add_argument("urls", nargs="*", help="pages to check instead of the suite")
    ap.add_argument("--pages", help=f"comma-separated, of {','.join(SUITE)} (default: all available)")
    ap.add_argument("--check", action="store_true", help="exit 1 unless both totals are 0")
    ap.add_argument("--cap", type=int, default=400, help="unseen texts pixel-tested per page")
    ap.add_argument("--page-seconds", type=float, default=25, help="time for pixel tests per page")
    ap.add_argument("--height", type=int, default=HEIGHT,
                    help="the window's height (a short one puts more of each page below the fold, "
                         "where covers are judged without hit-testing)")
    args = ap.parse_args()
    t0 = time.time()
    failed = []
    plan = []  # (suite name, url or path, ready)
    if args.urls:
        plan = [("url", u, None) for u in args.urls]
        names = []
    else:
        names = args.pages.split(",") if args.pages else list(SUITE)
        for n in names:
            if n not in SUITE:
                sys.exit(f"fidelity: no page set {n!r}; there are {', '.join(SUITE)}")
        keep = []
        for n in names:
            why = available(n)
            if why:
                print(f"fidelity: {n} skipped: {why}")
                if args.check or args.pages:
                    failed.append(f"{n}: {why}")
            else:
                keep.append(n)
        names = keep
        for n in names:
            pages = DOCS_PAGES if n == "docs" else ADMIN_PAGES if n == "admin" else APP_PAGES[n]
            plan += [(n, p, None) if isinstance(p, str) else (n, p[0], p[1]) for p in pages]
    tmp = tempfile.mkdtemp(prefix="tabwire-fidelity-apps-")
    apps = Apps(tmp)
    cdp = None
    try:
        apps.start(names)
        cdp = Pipe([f"--window-size={WIDTH},{args.height}"])
        page = Page(cdp, cdp.open_tab(WIDTH, args.height))
        results, kinds = [], collections.Counter()
        total = agree = left_out = without_ref = 0
        for i, (name, where, ready) in enumerate(plan, 1):
            p0 = time.time()
            try:
                if name in ("docs", "admin"):
                    apps.real_site()
                    url = where
                elif name == "url":
                    url = where
                else:
                    url = apps.base(name) + where
            except RuntimeError as e:
                print(f"fidelity: page {i}/{len(plan)} {name} {where}: {e}", file=sys.stderr)
                results.append({"set": name, "url": where, "error": str(e)})
                failed.append(f"{name} {where}: {e}")
                continue
            print(f"fidelity: page {i}/{len(plan)} {url}", file=sys.stderr)
            try:
                r = check_page(page, url, ready, args.cap, args.page_seconds)
            except Exception as e:  # a page that cannot load is reported, not fatal
                print(f"  skipped: {e}", file=sys.stderr)
                results.append({"set": name, "url": url, "error": str(e)})
                failed.append(f"{url}: {e}")
                continue
            if url.endswith("/admin/login/"):
                log_in(page)
            r["set"], r["seconds"] = name, round(time.time() - p0, 1)
            n, misses, unseen, tx, co = r["compared"], r["misses"], r["unseen"], r["text"], r["controls"]
            total += n
            agree += n - len(misses)
            left_out += len(tx["left_out"])
            without_ref += len(co["without_ref"])
            for m in misses:
                kinds[m["kind"]] += 1
            results.append(r)
            print(f"  {r['seconds']} s: {len(tx['left_out'])} seen texts left out "
                  f"({tx['tested']} tested, {tx['screenshots']} screenshots), "
                  f"{len(co['without_ref'])} operable controls without a ref", file=sys.stderr)
            pct = 100.0 * (n - len(misses)) / n if n else 100.0
            print(f"| {url} | {n} | {len(misses)} | {pct:.1f} % | unseen: {len(unseen)} elements, "
                  f"{r['hidden_text_blocks']} text blocks |")
            for u in unseen[:8]:
                print(f"    unseen {u['role']} {u['name']!r}: {u['html']}")
            nt = ", ".join(f"{k} {v}" for k, v in tx["not_tested"].items() if v)
            print(f"    seen text left out: {len(tx['left_out'])} — of {tx['unseen']} unseen texts, "
                  f"{tx['tested']} pixel-tested{' (capped at %d)' % args.cap if tx['capped'] else ''}; "
                  f"not tested: {nt or 'none'}")
            for m in tx["left_out"]:
                px = m["pixels"] or {}
                faint = " FAINT" if (px.get("strong") or 0) < 10 else ""
                print(f"      LEFT OUT{faint} {m['text']!r} at {m['path']} (styles: {m['reason']}; pixels: "
                      f"{px.get('pixels')} changed, {px.get('strong')} by >= 48, max {px.get('max')})")
            nop = ", ".join(f"{k} {v}" for k, v in co["not_operable"].items())
            print(f"    operable controls without a ref: {len(co['without_ref'])} — of {n} interactive "
                  f"({co['disabled']} disabled); {co['no_ref']} with no ref, not operable: {nop or 'none'}")
            for m in co["without_ref"]:
                print(f"      NO REF {m['role']} {m['name']!r}: {m['html']} (engine: {m['engine']}; "
                      f"styles: {m['styles']})")
        pct = 100.0 * agree / total if total else 0.0
        print(f"\nAll pages: {agree} of {total} interactive elements agree ({pct:.2f} %).")
        print("\nMisses by kind:")
        for kind, count in kinds.most_common():
            print(f"  {count:5}  {kind}")
        print(f"\nSeen text left out: {left_out} (must be 0).")
        print(f"Operable controls without a ref: {without_ref} (must be 0).")
        elapsed = time.time() - t0
        print(f"{len(plan)} pages in {elapsed:.0f} s.")
        stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
        out = os.path.join(ROOT, "bench/results", f"fidelity-{stamp}.json")
        with open(out, "w") as f:
            json.dump({"pages": results, "compared": total, "agree": agree, "percent": pct,
                       "misses_by_kind": kinds, "seen_text_left_out": left_out,
                       "operable_controls_without_ref": without_ref, "failed": failed,
                       "cap": args.cap, "page_seconds": args.page_seconds, "seconds": round(elapsed),
                       "viewport": [WIDTH, args.height], "chromium": CHROMIUM}, f, indent=1)
        print(f"\nwrote {out}", file=sys.stderr)
    finally:
        if cdp:
            cdp.close()
        apps.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if args.check:
        if failed:
            print("fidelity: --check: not checked: " + "; ".join(failed), file=sys.stderr)
        if failed or left_out or without_ref:
            sys.exit(1)


if __name__ == "__main__":
    main()
