#!/usr/bin/env python3
"""What the extension path costs inside Chrome, with no tabwire process
involved: from tabwire's extension worker, the median time of
chrome.tabs.get, of a trivial Runtime.evaluate through chrome.debugger, and
of Accessibility.getFullAXTree on a page of links (200 by default); the same tree straight
over a CDP pipe for comparison. Last, a rough lower bound for an outline
built in the page instead: a DOM walk returning one line per heading, link
and control with its text (no ARIA name rules, no hidden-element checks),
evaluated through chrome.debugger.

With --navigation it measures a navigation instead, from the same worker:
Page.navigate through chrome.debugger (its answer, and the load event as
the worker sees it) as tabwire's tab setup is turned on step by step
(domains, lifecycle events, file chooser, the page-tools shim, the engine
for new documents, auto-attach, Fetch for sign-in challenges), then with
every event also posted to a native host as the extension does, then
with a snapshot after each load; and the same navigation over the CDP
pipe. What it shows is what chrome.debugger and the worker cost with no
tabwire process in the path (bench/nav-parts.py measures the whole path).

Needs: Chromium at /usr/lib/chromium/chromium; --navigation also a
tabwire build (TABWIRE_BIN, else target/release, else target/debug) to
register the native host.
Run: python3 bench/extension-floor.py [LINKS]   (LINKS: links on the page, default 200)
     python3 bench/extension-floor.py --navigation [--runs N]
"""
import functools, http.server, json, os, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="tabwire-extfloor-")
RUNS = 21
NAVIGATION = "--navigation" in sys.argv
if "--runs" in sys.argv:
    RUNS = int(sys.argv[sys.argv.index("--runs") + 1])
ARGS = [a for a in sys.argv[1:] if not a.startswith("--") and not (
    "--runs" in sys.argv and a == sys.argv[sys.argv.index("--runs") + 1])]
LINKS = int(ARGS[0]) if ARGS else 200

site = os.path.join(TMP, "site")
os.makedirs(site)
links = "".join(f'<li><a href="/page/item-{i}">Item {i}</a></li>' for i in range(LINKS))
with open(os.path.join(site, "links.html"), "w") as f:
    f.write(f"<!doctype html><title>Catalog</title><h1>Catalog</h1><ul>{links}</ul>")
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=site))
threading.Thread(target=srv.serve_forever, daemon=True).start()
url = f"http://127.0.0.1:{srv.server_address[1]}/links.html"

# CDP over a pipe: the browser reads fd 3 and writes fd 4.
to_browser_r, to_browser_w = os.pipe()
from_browser_r, from_browser_w = os.pipe()


def child_fds():
    os.dup2(to_browser_r, 3)
    os.dup2(from_browser_w, 4)


ext = os.path.join(ROOT, "extension")
os.makedirs(f"{TMP}/profile")
if NAVIGATION:
    # The extension's events go to a native host, as in use (the host
    # finds no serve and drops them).
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from benchlib import tabwire_bin  # noqa: E402
    subprocess.run([tabwire_bin("extension-floor"), "install", "--browser", "chromium",
                    "--user-data-dir", f"{TMP}/profile"], check=True, capture_output=True,
                   env=dict(os.environ, TABWIRE_RUNTIME_DIR=f"{TMP}/rt", TABWIRE_DATA_DIR=f"{TMP}/data"))
chrome = subprocess.Popen(
    ["/usr/lib/chromium/chromium", "--headless=new", "--no-sandbox", "--disable-gpu",
     "--no-first-run", "--disable-background-networking", "--disable-component-update",
     "--disable-sync", "--remote-debugging-pipe", f"--user-data-dir={TMP}/profile",
     f"--load-extension={ext}", f"--disable-extensions-except={ext}", url],
    preexec_fn=child_fds, close_fds=False,
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
import atexit
atexit.register(chrome.kill)
os.close(to_browser_r)
os.close(from_browser_w)
out = os.fdopen(to_browser_w, "wb")
pending = b""
next_id = 0


def cdp(method, params=None, session=None):
    global next_id, pending
    next_id += 1
    msg = {"id": next_id, "method": method, "params": params or {}}
    if session:
        msg["sessionId"] = session
    out.write(json.dumps(msg).encode() + b"\0")
    out.flush()
    while True:
        while b"\0" not in pending:
            chunk = os.read(from_browser_r, 1 << 20)
            if not chunk:
                sys.exit("the browser closed its pipe")
            pending += chunk
        line, pending = pending.split(b"\0", 1)
        reply = json.loads(line)
        if reply.get("id") == next_id:
            if "error" in reply:
                raise RuntimeError(f"{method}: {reply['error']}")
            return reply["result"]


def targets():
    return cdp("Target.getTargets")["targetInfos"]


deadline = time.time() + 30
while True:
    ts = targets()
    # tabwire's worker: the browser may run other extensions' workers too.
    worker = [t for t in ts if t["type"] == "service_worker" and "chrome-extension://" in t["url"]
              and t["url"].endswith("/background.js")]
    page = [t for t in ts if t["type"] == "page" and t["url"] == url]
    if worker and page:
        break
    if time.time() > deadline:
        sys.exit("the extension's worker or the page did not show up within 30 s")
    time.sleep(0.2)
worker_session = cdp("Target.attachToTarget", {"targetId": worker[0]["targetId"], "flatten": True})["sessionId"]
page_session = cdp("Target.attachToTarget", {"targetId": page[0]["targetId"], "flatten": True})["sessionId"]
while cdp("Runtime.evaluate", {"expression": "document.readyState", "returnByValue": True},
          page_session)["result"]["value"] != "complete":
    time.sleep(0.05)


# ---- --navigation -----------------------------------------------------------

NAV_IN_WORKER = r"""(async (url, runs, engine) => {
  const [tab] = await chrome.tabs.query({ url });
  const target = { tabId: tab.id };
  await chrome.debugger.attach(target, "1.3");
  const send = (m, p) => chrome.debugger.sendCommand(target, m, p || {});
  let loaded = null, port = null, forward = false, snapshot = false;
  chrome.debugger.onEvent.addListener((src, method, params) => {
    if (src.tabId !== tab.id) return;
    // Paused document requests go on at once, as the extension does.
    if (method === "Fetch.requestPaused") send("Fetch.continueRequest", { requestId: params.requestId }).catch(() => {});
    if (forward) {
      port ??= chrome.runtime.connectNative("com.tabwire.host");
      port.postMessage({ c: 1, m: { event: "cdp", tabId: src.tabId, method, params } });
    }
    if (method === "Page.loadEventFired" && loaded) { const l = loaded; loaded = null; l(performance.now()); }
  });
  const out = {};
  let n = 0;
  const median = (xs) => { xs.sort((a, b) => a - b); return Math.round(xs[xs.length >> 1] * 10) / 10; };
  const measure = async (label) => {
    const answers = [], loads = [];
    for (let i = 0; i < runs; i++) {
      const t = performance.now();
      const load = new Promise((r) => { loaded = r; });
      await send("Page.navigate", { url: url + "?n=" + (n++) });
      answers.push(performance.now() - t);
      loads.push((await load) - t);
      if (snapshot) {
        const tree = await send("Page.getFrameTree");
        const w = await send("Page.createIsolatedWorld", { frameId: tree.frameTree.frame.id, worldName: "tabwire" });
        const r = await send("Runtime.evaluate", { contextId: w.executionContextId, returnByValue: true,
          expression: "((t) => (t.configure({prefix: ''}), t.snapshot({budget: 40000})))(globalThis.__tabwire)" });
        if (r.exceptionDetails) throw new Error("snapshot: " + r.exceptionDetails.text);
      }
    }
    out[label] = [median(answers), median(loads)];
  };
  await send("Page.enable");
  await measure("Page domain only");
  await send("Runtime.enable"); await send("Network.enable");
  await measure("+ Runtime, Network");
  await send("Page.setLifecycleEventsEnabled", { enabled: true });
  await send("Page.setInterceptFileChooserDialog", { enabled: true });
  await measure("+ lifecycle events, file chooser");
  await send("Page.addScriptToEvaluateOnNewDocument", { source: "globalThis.__shim = 1;" });
  await send("Page.addScriptToEvaluateOnNewDocument", { source: engine, worldName: "tabwire" });
  await measure("+ scripts for new documents (engine)");
  await send("Target.setAutoAttach", { autoAttach: true, waitForDebuggerOnStart: false, flatten: true });
  await send("Fetch.enable", { patterns: [{ urlPattern: "*", resourceType: "Document", requestStage: "Request" }], handleAuthRequests: true });
  await measure("+ auto-attach, Fetch (tabwire's whole setup)");
  forward = true;
  await measure("+ every event posted to the native host");
  snapshot = true;
  await measure("+ a snapshot after each load");
  await chrome.debugger.detach(target);
  return out;
})(%s, %d, %s)"""


def navigation_floor():
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import engine_source  # noqa: E402
    engine = engine_source.source()
    r = cdp("Runtime.evaluate", {"expression": NAV_IN_WORKER % (json.dumps(url), RUNS, json.dumps(engine)),
                                 "awaitPromise": True, "returnByValue": True}, worker_session)
    if "exceptionDetails" in r:
        sys.exit(f"in the worker: {r['exceptionDetails']}")
    global pending
    cdp("Page.enable", {}, page_session)
    pipe = []
    for i in range(RUNS):
        t = time.perf_counter()
        cdp("Page.navigate", {"url": f"{url}?pipe={i}"}, page_session)
        answered = (time.perf_counter() - t) * 1000
        while True:
            while b"\0" not in pending:
                pending += os.read(from_browser_r, 1 << 20)
            line, pending = pending.split(b"\0", 1)
            if json.loads(line).get("method") == "Page.loadEventFired":
                break
        pipe.append((answered, (time.perf_counter() - t) * 1000))
    rows = dict(r["result"]["value"])
    rows["over the CDP pipe (Page domain only)"] = [
        round(sorted(a for a, _ in pipe)[RUNS // 2], 1), round(sorted(l for _, l in pipe)[RUNS // 2], 1)]
    print(f"Page.navigate of a {LINKS}-link page, medians of {RUNS} runs (ms)")
    print("| through chrome.debugger in the extension's worker | answer | load event |")
    print("|---|---:|---:|")
    for label, (a, l) in rows.items():
        print(f"| {label} | {a} | {l} |")
    from benchlib import write_results  # noqa: E402
    print("written:", write_results("extension-nav-floor", {"links": LINKS, "runs": RUNS, "ms": rows}))


if NAVIGATION:
    navigation_floor()
    sys.exit(0)

direct = []
for _ in range(RUNS):
    t = time.perf_counter()
    tree = cdp("Accessibility.getFullAXTree", {}, page_session)
    direct.append((time.perf_counter() - t) * 1000)
direct.sort()
tree_bytes = len(json.dumps(tree))

# Roles by tag only; names from text content or the value/placeholder.
WALK = r"""(() => {
  const role = { A: "link", BUTTON: "button", INPUT: "textbox", SELECT: "combobox", TEXTAREA: "textbox",
                 H1: "heading", H2: "heading", H3: "heading", H4: "heading", H5: "heading", H6: "heading" };
  const out = [];
  let n = 0;
  const walk = (el, depth) => {
    for (const c of el.children) {
      const r = role[c.tagName];
      if (r) out.push("  ".repeat(depth) + "- " + r + " " + JSON.stringify((c.innerText || c.value || c.placeholder || "").trim().slice(0, 200)) + " [ref=e" + (++n) + "]");
      walk(c, r ? depth + 1 : depth);
    }
  };
  walk(document.body, 0);
  return out.join("\n");
})()"""

in_worker = """const WALK = %s;
(async (url, runs) => {
  const [tab] = await chrome.tabs.query({ url });
  const target = { tabId: tab.id };
  await chrome.debugger.attach(target, "1.3");
  const median = async (f) => {
    const ts = [];
    for (let i = 0; i < runs; i++) { const t = performance.now(); await f(); ts.push(performance.now() - t); }
    ts.sort((a, b) => a - b);
    return ts[Math.floor(runs / 2)];
  };
  const out = {
    tabs_get: await median(() => chrome.tabs.get(tab.id)),
    evaluate: await median(() => chrome.debugger.sendCommand(target, "Runtime.evaluate", { expression: "1" })),
    ax_tree: await median(() => chrome.debugger.sendCommand(target, "Accessibility.getFullAXTree", {})),
    dom_walk: await median(() => chrome.debugger.sendCommand(target, "Runtime.evaluate", {
      expression: WALK, returnByValue: true })),
  };
  const walked = await chrome.debugger.sendCommand(target, "Runtime.evaluate", { expression: WALK, returnByValue: true });
  out.walk_bytes = walked.result.value.length;
  await chrome.debugger.detach(target);
  return out;
})(%s, %d)""" % (json.dumps(WALK), json.dumps(url), RUNS)
r = cdp("Runtime.evaluate", {"expression": in_worker, "awaitPromise": True, "returnByValue": True},
        worker_session)
if "exceptionDetails" in r:
    sys.exit(f"in the worker: {r['exceptionDetails']}")
w = r["result"]["value"]
print(f"medians of {RUNS} runs, {LINKS}-link page ({tree_bytes / 1024:.0f} KiB AX tree)")
print(f"  chrome.tabs.get in the extension worker         {w['tabs_get']:.2f} ms")
print(f"  Runtime.evaluate via chrome.debugger            {w['evaluate']:.2f} ms")
print(f"  Accessibility.getFullAXTree via chrome.debugger {w['ax_tree']:.1f} ms")
print(f"  Accessibility.getFullAXTree over a CDP pipe     {direct[RUNS // 2]:.1f} ms")
print(f"  a DOM-walk outline via chrome.debugger          {w['dom_walk']:.1f} ms ({w['walk_bytes'] / 1024:.1f} KiB)")
