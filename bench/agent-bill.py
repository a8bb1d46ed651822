#!/usr/bin/env python3
"""The agent's bill: how many bytes a model reads to finish everyday tasks on
real pages, per server, each driven with its natural call sequence.

A task is a list of steps a person would describe ("open the docs, search
for json, open the json module"). Each step needs an element; the model
takes its ref from what it has read since the page last changed. Where the
ref is not there, it does what each server offers to get it:

- tabwire: the navigate/action answers carry the page (a skeleton on big
  pages, the changed lines after an in-page action); a ref that is not in
  them is looked up with browser_find (its answer is counted).
- playwright-mcp: answers carry the snapshot, or on big pages a link to a
  snapshot file; the model reads that file (all of it is counted), and
  calls browser_snapshot when the ref is in neither.
- chrome-devtools-mcp: actions do not return the page; the model calls
  take_snapshot before it needs a ref.

Counted: the text of every tool answer and of every snapshot file read.
Not counted: tool descriptions, the model's own messages.

Needs: `sh bench/real-site.sh &` (python3-doc on :8765, Django admin on
:8766), Chromium at /usr/lib/chromium/chromium, a tabwire build, and the
peers in bench/.cache (installed with npm when missing).
Run: python3 bench/agent-bill.py   (writes bench/results/agent-bill-*.json)
"""
import argparse, datetime, json, os, re, statistics, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import CHROMIUM, McpServer, tabwire_bin, tabwire_cdp  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = "http://127.0.0.1:8765"
ADMIN = "http://127.0.0.1:8766"
CACHE = f"{ROOT}/bench/.cache"
VERBOSE = 0

# (name, steps); a step is ("open", url) | ("click", role, name) |
# ("type", role, name, text, submit) | ("wait", text).
TASKS = [
    ("docs: search for json, open the module", [
        ("open", f"{DOCS}/index.html"),
        ("type", "textbox", "Quick search", "json", True),
        ("wait", "Search finished"),
        ("click", "link", "json — JSON encoder and decoder"),
    ]),
    ("docs: built-in functions, open()", [
        ("open", f"{DOCS}/library/functions.html"),
        ("click", "link", "open()"),
    ]),
    ("docs: built-in types, context managers", [
        ("open", f"{DOCS}/library/stdtypes.html"),
        ("click", "link", "Context Manager Types"),
    ]),
    ("docs: module index, zipfile", [
        ("open", f"{DOCS}/py-modindex.html"),
        ("click", "link", "zipfile"),
    ]),
    ("docs: data model, __init__ from the contents", [
        ("open", f"{DOCS}/contents.html"),
        ("click", "link", "3. Data model"),
    ]),
    ("admin: sign in, rename a user", [
        ("open", f"{ADMIN}/admin/login/"),
        ("type", "textbox", "Username:", "admin", False),
        ("type", "textbox", "Password:", "tabwire-bench", True),
        ("click", "link", "Users"),
        ("click", "link", "user7"),
        ("type", "textbox", "First name:", "Ada", False),
        ("click", "button", "Save"),
    ]),
]


def ref_on(line):
    m = re.search(r"\[ref=([^\]]+)\]", line) or re.search(r"uid=(\S+)", line)
    return m.group(1) if m else None


def find_ref(text, role, name):
    """The ref of the first `role "name"` line: `[ref=e12]` or `uid=1_12`.
    playwright-mcp leaves the name out when the one child shows it
    (`- link [ref=e5]:` over `- code: open()`): that counts too."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if f'{role} "{name}"' in line and ref_on(line):
            return ref_on(line)
        if re.match(rf"\s*- {role} \[ref=", line):
            indent = len(line) - len(line.lstrip())
            for child in lines[i + 1:i + 4]:
                if len(child) - len(child.lstrip()) <= indent:
                    break
                if child.rstrip().endswith(f": {name}") or f'"{name}"' in child:
                    return ref_on(line)
    return None


class Driver:
    """One server and the model's view of the page: the text it has read
    since the page last changed."""

    def __init__(self, label, server):
        self.label, self.s = label, server
        self.seen = ""
        self.bytes = 0
        self.calls = 0
        self.pending_file = None

    def new_page(self, tool, text):
        """Whether an answer replaces what the model knows of the page."""
        if self.label == "tabwire":
            return tool == "browser_navigate" or "its new snapshot follows" in text
        if self.label == "playwright-mcp":
            return "### Snapshot" in text
        return True  # chrome-devtools-mcp: the model snapshots again after any action

    def call(self, tool, args, fresh=None):
        if self.label == "chrome-devtools-mcp":
            args = {"pageId": 1, **args}
        _, text = self.s.call(tool, args)
        self.bytes += len(text.encode())
        if VERBOSE:
            print(f"  {self.label} {tool} {len(text.encode()):,} B", file=sys.stderr)
            if VERBOSE > 1:
                print(text, file=sys.stderr)
        self.calls += 1
        if fresh is None:
            fresh = self.new_page(tool, text)
        self.seen = text if fresh else self.seen + "\n" + text
        m = re.search(r"\[Snapshot\]\(([^)]+\.ya?ml)\)", text)
        self.pending_file = m.group(1) if m else None
        return text

    def read_file(self):
        """playwright-mcp: the model reads the snapshot file it was pointed at."""
        path = self.pending_file
        self.pending_file = None
        if not path:
            return False
        full = path if os.path.isabs(path) else os.path.normpath(os.path.join(self.s.cwd, path))
        with open(full, encoding="utf-8") as f:
            text = f.read()
        self.bytes += len(text.encode())
        self.seen += "\n" + text
        return True

    def ref(self, role, name):
        r = find_ref(self.seen, role, name)
        if r:
            return r
        if self.label == "tabwire":
            self.call("browser_find", {"text": name, "role": role}, fresh=False)
        elif self.label == "playwright-mcp":
            if self.read_file() and find_ref(self.seen, role, name):
                return find_ref(self.seen, role, name)
            self.call("browser_snapshot", {}, fresh=False)
            self.read_file()
        else:
            self.call("take_snapshot", {}, fresh=False)
        r = find_ref(self.seen, role, name)
        if not r:
            raise RuntimeError(f"{self.label}: no {role} {name!r} found")
        return r

    def step(self, step):
        kind = step[0]
        if kind == "open":
            if self.label == "chrome-devtools-mcp":
                self.call("navigate_page", {"type": "url", "url": step[1]})
            else:
                self.call("browser_navigate", {"url": step[1]})
        elif kind == "wait":
            if self.label == "chrome-devtools-mcp":
                self.call("wait_for", {"text": [step[1]]})
            else:
                self.call("browser_wait_for", {"text": step[1]})
        elif kind == "click":
            _, role, name = step
            r = self.ref(role, name)
            if self.label == "tabwire":
                self.call("browser_click", {"target": r})
            elif self.label == "playwright-mcp":
                self.call("browser_click", {"element": f"{name} {role}", "target": r})
            else:
                self.call("click", {"uid": r})
        elif kind == "type":
            _, role, name, text, submit = step
            r = self.ref(role, name)
            if self.label == "tabwire":
                self.call("browser_type", {"target": r, "text": text, "submit": submit})
            elif self.label == "playwright-mcp":
                self.call("browser_type", {"element": f"{name} {role}", "target": r,
                                           "text": text, "submit": submit})
            else:
                self.call("fill", {"uid": r, "value": text}, fresh=False)
                if submit:
                    self.call("press_key", {"key": "Enter"})


# Big real pages whose navigate answer is measured and checked.
SKELETON_PAGES = [
    f"{DOCS}/library/stdtypes.html",
    f"{DOCS}/library/functions.html",
    f"{DOCS}/library/os.html",
    f"{DOCS}/reference/datamodel.html",
    f"{DOCS}/py-modindex.html",
    f"{DOCS}/genindex-all.html",
    f"{DOCS}/library/index.html",
    f"{DOCS}/contents.html",
    f"{ADMIN}/admin/auth/user/",
    f"{ADMIN}/admin/auth/user/2/change/",
]
FORM_ROLES = ("textbox", "searchbox", "combobox", "checkbox", "radio", "switch", "slider",
              "spinbutton", "listbox")
# What a person sees: the names of the links, buttons and fields the
# viewport shows, read by the page itself (not by tabwire's engine).
IN_VIEW_JS = """() => {
  const out = [];
  for (const el of document.querySelectorAll('a[href], button, input:not([type=hidden]), select, textarea')) {
    const r = el.getBoundingClientRect();
    if (!r.width || !r.height || r.bottom <= 0 || r.top >= innerHeight || r.right <= 0 || r.left >= innerWidth) continue;
    if (!el.checkVisibility({visibilityProperty: true})) continue;
    const squash = (t) => (t || '').trim().replace(/\\s+/g, ' ');
    // A label around its control: its own words, not the control's.
    const label = el.labels && el.labels[0] ? squash(el.labels[0].innerText).replace(squash(el.innerText), '') : '';
    const text = el.localName === 'select' ? '' : el.innerText;
    const name = (el.getAttribute('aria-label') || label || text || el.value || el.title || '').trim().replace(/\\s+/g, ' ');
    if (name) out.push(name.slice(0, 40));
  }
  return out;
}"""


def skeleton_check(d, progress):
    """Each big page's navigate answer: its size, and what it lost: form
    controls of the whole outline that it does not show (those in the rows
    of long tables are counted apart: they fold with their rows), and
    elements in the viewport whose names it does not show."""
    rows = []
    for url in SKELETON_PAGES:
        progress(url)
        _, page = d.s.call("browser_navigate", {"url": url})
        _, full = d.s.call("browser_snapshot", {"full": True})
        _, names = d.s.call("browser_evaluate", {"function": IN_VIEW_JS})
        names = json.loads(names[names.index("["):names.rindex("]") + 1]) if "[" in names else []
        lost, in_rows, stack, folded = [], 0, [], set()
        for line in full.splitlines():
            m = re.match(r"(\s*)- (\S+)(.*)", line)
            if not m:
                continue
            depth = len(m.group(1)) // 2
            del stack[depth:]
            stack.append(m.group(2))
            if m.group(2) in FORM_ROLES and "[ref=" in line:
                shown = line.strip()[2:].split(" [ref=")[0]
                if shown not in page:
                    if "row" in stack[:-1]:
                        in_rows += 1
                        folded.add(shown)
                    else:
                        lost.append(shown)
        # Past the 40 KB the whole outline shows: find them by role.
        for role in FORM_ROLES:
            _, found = d.s.call("browser_find", {"role": role})
            for line in found.splitlines():
                if line.startswith(f"- {role}") and "[ref=" in line:
                    shown = line.split(" [ref=")[0][2:]
                    if shown not in page and shown not in folded and shown not in lost:
                        lost.append(shown)
        unseen = [n for n in names if n not in page]
        rows.append({"url": url, "bytes": len(page.encode()), "full_bytes": len(full.encode()),
                     "form_controls_lost": lost, "controls_folded_with_table_rows": in_rows,
                     "in_view": len(names), "in_view_unseen": unseen})
    return rows


def servers(tmp):
    b = tabwire_bin("agent-bill")
    out = [("tabwire", tabwire_cdp(b), {"width": 1280, "height": 720})]
    pw = f"{CACHE}/node_modules/@playwright/mcp/cli.js"
    devtools = f"{CACHE}/node_modules/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js"
    if not (os.path.exists(pw) and os.path.exists(devtools)):
        print("agent-bill: installing the peers with npm into bench/.cache", file=sys.stderr)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefix", CACHE,
                        "@playwright/mcp", "chrome-devtools-mcp"], check=True,
                       env=dict(os.environ, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1",
                                PUPPETEER_SKIP_DOWNLOAD="1"))
    out.append(("playwright-mcp", ["node", pw, "--headless", "--isolated", "--no-sandbox",
                                   "--executable-path", CHROMIUM, "--output-dir", f"{tmp}/pw-out",
                                   "--viewport-size", "1280x720"], None))
    out.append(("chrome-devtools-mcp", ["node", devtools, "--headless", "--isolated",
                                        "--executablePath", CHROMIUM, "--chromeArg=--no-sandbox",
                                        "--viewport", "1280x720"], None))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", help="run one server (tabwire, playwright-mcp, chrome-devtools-mcp)")
    ap.add_argument("-v", "--verbose", action="count", default=0,
                    help="print each call's size (-vv: and its answer) on stderr")
    a = ap.parse_args()
    global VERBOSE
    VERBOSE = a.verbose
    for url in (f"{DOCS}/index.html", f"{ADMIN}/admin/login/"):
        if subprocess.run(["curl", "-sf", "-o", "/dev/null", url]).returncode:
            sys.exit(f"agent-bill: {url} does not answer: start `sh bench/real-site.sh &` first")
    tmp = tempfile.mkdtemp(prefix="tabwire-agent-bill-")
    env = dict(os.environ, TABWIRE_RUNTIME_DIR=f"{tmp}/rt", TABWIRE_DATA_DIR=f"{tmp}/data")
    results = {}
    skeletons = []
    for label, argv, viewport in servers(tmp):
        if a.only and label != a.only:
            continue
        s = McpServer(label, argv, env, tmp, client="agent-bill")
        s.cwd = os.getcwd()
        d = Driver(label, s)
        # Setup, not counted: one viewport for all; devtools' page id.
        if viewport:
            s.call("browser_resize", viewport)
        if label == "chrome-devtools-mcp":
            s.call("list_pages", {})
        per_task = {}
        if label == "tabwire":
            def progress(what):
                print(f"\ragent-bill: tabwire: skeleton of {what}\033[K", end="", file=sys.stderr,
                      flush=True)
        try:
            for name, steps in TASKS:
                print(f"\ragent-bill: {label}: {name}\033[K", end="", file=sys.stderr, flush=True)
                before, calls = d.bytes, d.calls
                d.seen = ""
                for step in steps:
                    d.step(step)
                per_task[name] = {"bytes": d.bytes - before, "calls": d.calls - calls}
            if label == "tabwire":  # after the tasks: signed in to the admin
                skeletons = skeleton_check(d, progress)
        except Exception as e:  # a failed task is reported, not hidden
            per_task["error"] = str(e)[:300]
        finally:
            s.stop()
        results[label] = per_task
    print(file=sys.stderr)
    labels = list(results)
    print("| task | " + " | ".join(labels) + " |")
    print("|---|" + "---:|" * len(labels))
    totals = {l: 0 for l in labels}
    for name, _ in TASKS:
        cells = []
        for l in labels:
            r = results[l].get(name)
            if r is None:
                cells.append("error")
                continue
            totals[l] += r["bytes"]
            cells.append(f"{r['bytes']:,} ({r['calls']} calls)")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print("| total bytes | " + " | ".join(f"{totals[l]:,}" for l in labels) + " |")
    for l in labels:
        if "error" in results[l]:
            print(f"{l}: {results[l]['error']}")
    if skeletons:
        print("\n| page | answer bytes | whole outline | form controls lost | in view, not shown |")
        print("|---|---:|---:|---:|---:|")
        for r in skeletons:
            folded = r["controls_folded_with_table_rows"]
            lost = f"{len(r['form_controls_lost'])}" + (f" (+{folded} in table rows)" if folded else "")
            cut = " (cut)" if r["full_bytes"] > 40000 else ""
            print(f"| {r['url'].split('//')[1]} | {r['bytes']:,} | {r['full_bytes']:,}{cut} | {lost} "
                  f"| {len(r['in_view_unseen'])} of {r['in_view']} |")
        sizes = sorted(r["bytes"] for r in skeletons)
        print(f"\nMedian navigate answer over these pages: {statistics.median(sizes):,.0f} bytes (≤ 12,000)")
        for r in skeletons:
            if r["form_controls_lost"] or r["in_view_unseen"]:
                print(f"  {r['url']}: lost {r['form_controls_lost'][:5]}, unseen {r['in_view_unseen'][:5]}")
    peers = [totals[l] for l in labels if l != "tabwire" and "error" not in results[l]]
    if "tabwire" in totals and peers and "error" not in results["tabwire"]:
        print(f"\nTarget: tabwire reads {totals['tabwire'] / min(peers):.2f}× the smallest peer's "
              f"total (≤ 0.5)")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    os.makedirs(f"{ROOT}/bench/results", exist_ok=True)
    path = f"{ROOT}/bench/results/agent-bill-{stamp}.json"
    with open(path, "w") as f:
        json.dump({"tasks": [t for t, _ in TASKS], "results": results, "totals": totals,
                   "skeletons": skeletons}, f, indent=1)
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
