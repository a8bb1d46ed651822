#!/usr/bin/env python3
"""What the extension path costs inside Chrome, with no tabwire process
involved: from tabwire's extension worker, the median time of
chrome.tabs.get, of a trivial Runtime.evaluate through chrome.debugger, and
of Accessibility.getFullAXTree on a page of links (200 by default); the same tree straight
over a CDP pipe for comparison. Last, a rough lower bound for an outline
built in the page instead: a DOM walk returning one line per heading, link
and control with its text (no ARIA name rules, no hidden-element checks),
evaluated through chrome.debugger.

Needs: Chromium at /usr/lib/chromium/chromium.
Run: python3 bench/extension-floor.py [LINKS]   (LINKS: links on the page, default 200)
"""
import functools, http.server, json, os, subprocess, sys, tempfile, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="tabwire-extfloor-")
RUNS = 21
LINKS = int(sys.argv[1]) if len(sys.argv) > 1 else 200

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
    worker = [t for t in ts if t["type"] == "service_worker" and "chrome-extension://" in t["url"]]
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
