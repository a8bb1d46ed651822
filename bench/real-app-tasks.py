#!/usr/bin/env python3
"""Tasks on real apps installed from the registries, as an agent does
them: how many calls each task takes and how long, run after run, on both
tabwire backends.

Apps and tasks (minimum calls in brackets):
  gradio     compute [3]: navigate, type a number, click Compute (a second
             of work, delivered over Gradio's queue stream);
             upload [3]: navigate, click the upload button, upload a file
             (bench/apps/gradio_compute.py)
  datasette  sql [3]: navigate to the SQL page, type a query into its
             CodeMirror editor (an invisible textarea behind drawn code),
             click Run SQL (tests/apps/datasette_db.py)
  streamlit  slider [3]: navigate, set the slider (a range input hidden
             under its track) to 7 with fill_form, click Submit; 5 when
             navigate's answer comes before the app has drawn itself over
             its websocket (then wait_for and snapshot)
             (tests/apps/streamlit_form.py)
  mkdocs     search [2]: navigate to a Material for MkDocs page (its theme
             starts a search worker), type a word key by key into search

Apps whose server answers a click over its WebSocket after 0.8 s of work
(tests/apps/*_slow.py; issue 43). Each navigate is followed by one
browser_wait_for (its answer shows the line it found, with its ref) when
the app has not drawn the control yet, and by a snapshot only when a ref
the task needs is still missing; the task's minimum leaves both out:
  streamlit_slow  count [2]: navigate, click "Count birds" -> "Birds counted: 17"
  nicegui_slow    search [3]: navigate, type "Heron" into "Bird name", click
                  "SEARCH" -> "Result: 3 sightings of Heron"
  shiny_slow      report [2]: navigate, click "Run report" -> "Result: 42 items found"
  panel_slow      load [2]: navigate, click "Load stations" (Bokeh, in shadow
                  roots) -> "Result: 12 stations loaded"
Drags on the npm widget pages (tests/apps/widgets; issue 43's drags):
  sortable    drag [2]: navigate to sortable.html, browser_drag of
              "#list li[data-id=Echo]" onto "#list li[data-id=Alpha]" (CSS
              selectors) -> "Order: Echo, ..."; then checked (not counted)
              by browser_evaluate: widgetState().order[0] === "Echo"
  nouislider  drag [2]: navigate to nouislider.html, browser_mouse_drag_xy
              (--caps vision) of the upper handle to the middle of
              .noUi-base -> "Values: 20–50"; checked (not counted):
              widgetState().values is [20, 50]. The points come from a
              browser_evaluate that is not counted either (it stands for
              the model reading them off a screenshot).

The scripted agent does what a model does: it acts, reads the answer, and
when the result it wants is not in it, calls browser_snapshot (counted as
a call and as a poll) until it is (at most 10 times). Target (issues 26,
33 and 43): every run takes the minimum, with 0 polls, on both backends.

For the socket apps the bench also notes, outside the agent's count, when
the result text showed on the page (a MutationObserver installed by an
uncounted browser_evaluate just before the click, reading open shadow
roots too): "shown" is click -> text on the page, "answer lag" is text on
the page -> the click's answer back at the client. --no-seen leaves that
observer out.

Needs: pip install gradio streamlit datasette mkdocs-material nicegui
shiny panel; npm ci --prefix tests/apps/widgets; Chromium at
/usr/lib/chromium/chromium; a tabwire build (TABWIRE_BIN, else release,
else debug).
Run: python3 bench/real-app-tasks.py [--runs 5] [--only TASK,...] [--no-seen]
Prints a table and writes bench/results/real-app-tasks-<time>.json.
"""
import argparse
import datetime
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, page_data, tabwire_bin, tabwire_servers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ready(p, url, what, tmp):
    for _ in range(600):
        if p.poll() is not None:
            raise RuntimeError(f"real-app-tasks: {what} exited ({p.returncode}); see {tmp}/{what}.log")
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"real-app-tasks: {what} did not start; see {tmp}/{what}.log")


def start(apps, argv, name, tmp, ready, env=None, cwd=None):
    """Starts an app (argv with {port}), its log in tmp, and adds
    (process, base URL) to `apps` under `name` before waiting for it, so
    that stop_apps stops it even when it never gets ready."""
    port = free_port()
    p = subprocess.Popen([a.replace("{port}", str(port)) for a in argv], cwd=cwd or tmp,
                         env=dict(os.environ, GRADIO_ANALYTICS_ENABLED="False", **(env or {})),
                         stdout=open(f"{tmp}/{name}.log", "w"), stderr=subprocess.STDOUT,
                         stdin=subprocess.DEVNULL, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    apps[name] = (p, base)
    wait_ready(p, base + ready, name, tmp)


def stop_apps(apps):
    """Stops every app (its whole process group): SIGTERM, then SIGKILL
    after 5 s."""
    for p, _ in apps.values():
        if p.poll() is None:
            try:
                os.killpg(p.pid, 15)
            except ProcessLookupError:
                pass
    for p, _ in apps.values():
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(p.pid, 9)
            except ProcessLookupError:
                pass
            p.wait()


def start_apps(tmp, apps, wanted):
    """Starts the apps the wanted tasks use, into `apps`."""
    py = sys.executable
    if "gradio" in wanted:
        start(apps, [py, f"{ROOT}/bench/apps/gradio_compute.py", "{port}"], "gradio", tmp, "/")
    if "datasette" in wanted:
        subprocess.run([py, f"{ROOT}/tests/apps/datasette_db.py", f"{tmp}/birds.db"], check=True)
        start(apps, [py, "-m", "datasette", "serve", f"{tmp}/birds.db", "-h", "127.0.0.1", "-p", "{port}"],
              "datasette", tmp, "/-/versions.json")
    streamlit = ["--server.headless", "true", "--server.port", "{port}", "--server.address", "127.0.0.1",
                 "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    if "streamlit" in wanted:
        start(apps, [py, "-m", "streamlit", "run", f"{ROOT}/tests/apps/streamlit_form.py", *streamlit],
              "streamlit", tmp, "/_stcore/health")
    if "mkdocs" in wanted:
        os.makedirs(f"{tmp}/mk/docs")
        with open(f"{tmp}/mk/mkdocs.yml", "w") as f:
            f.write("site_name: Guide\ntheme:\n  name: material\n  font: false\n")
        with open(f"{tmp}/mk/docs/index.md", "w") as f:
            f.write("# Home\n\nAnemones and crabs live here.\n")
        subprocess.run([py, "-m", "mkdocs", "build", "-q", "-d", "site"], cwd=f"{tmp}/mk",
                       check=True, capture_output=True, env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))
        start(apps, [py, "-m", "http.server", "{port}", "--bind", "127.0.0.1"], "mkdocs", tmp, "/",
              cwd=f"{tmp}/mk/site")
    if "streamlit_slow" in wanted:
        start(apps, [py, "-m", "streamlit", "run", f"{ROOT}/tests/apps/streamlit_slow.py", *streamlit],
              "streamlit_slow", tmp, "/_stcore/health")
    for name, ready in (("nicegui_slow", "/"), ("shiny_slow", "/"), ("panel_slow", "/liveness")):
        if name in wanted:
            start(apps, [py, f"{ROOT}/tests/apps/{name}.py", "{port}"], name, tmp, ready)
    if "widgets" in wanted:
        if not os.path.isdir(f"{ROOT}/tests/apps/widgets/node_modules"):
            raise RuntimeError("real-app-tasks: run `npm ci --prefix tests/apps/widgets` first")
        start(apps, [py, "-m", "http.server", "{port}", "--bind", "127.0.0.1"], "widgets", tmp, "/",
              cwd=f"{ROOT}/tests/apps/widgets")


def ref(text, role, name):
    m = re.search(role + r' "' + re.escape(name) + r'"[^\n]*?\[ref=(\w+)\]', text)
    if not m:
        raise RuntimeError(f"no {role} {name!r} with a ref in: {text[:1500]}")
    return m.group(1)


def has_ref(text, role, name):
    return re.search(role + r' "' + re.escape(name) + r'"[^\n]*?\[ref=(\w+)\]', text) is not None


def oracle(server, fn):
    """What the bench itself reads from the page: a browser_evaluate that
    is not one of the agent's calls (neither counted nor timed)."""
    return page_data(server.call("browser_evaluate", {"function": fn})[1])


class Agent:
    """Counts calls, polls and time; looks again (browser_snapshot, a
    poll) until `want` shows."""

    def __init__(self, server):
        self.server, self.calls, self.polls, self.ms = server, 0, 0, 0.0
        self.action_ms = None  # the task's main action (click, drag, typing)
        self.instead = []      # when a poll was needed: what the answer held instead
        self.steps = []        # [tool, ms] of every call

    def call(self, tool, args):
        ms, text = self.server.call(tool, args)
        self.calls += 1
        self.ms += ms
        self.last_ms = ms
        self.steps.append([tool, round(ms)])
        return text

    def act(self, tool, args):
        """The task's main action: its time is kept apart too."""
        text = self.call(tool, args)
        self.action_ms = self.last_ms
        return text

    def poll(self):
        self.polls += 1
        return self.call("browser_snapshot", {})

    def until(self, text, want):
        if want not in text:
            self.instead.append(text[-1200:])
        for _ in range(10):
            if want in text:
                return text
            text = self.poll()
        if want in text:
            return text
        raise Unfinished(self, f"never saw {want!r} in {self.polls} polls; the last: {text[-1500:]}")


class Unfinished(RuntimeError):
    """A task whose result never showed: its agent keeps the counts."""

    def __init__(self, agent, msg):
        super().__init__(msg)
        self.agent = agent


def compute(server, url, n):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": url})
    a.call("browser_type", {"target": ref(page, "spinbutton", "Number"), "text": str(n)})
    a.until(a.act("browser_click", {"target": ref(page, "button", "Compute")}),
            f"The square of {n} is {n * n}")
    return a


def upload(server, url, path):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": url})
    a.call("browser_click", {"target": ref(page, "button", "Click to upload or drop files")})
    a.until(a.act("browser_file_upload", {"paths": [path]}),
            f"Received {os.path.basename(path)} ({os.path.getsize(path)} bytes)")
    return a


def datasette_sql(server, base):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": f"{base}/birds?sql=select+1"})
    editor = re.search(r"- textbox \[ref=(\w+)\]", page).group(1)
    a.call("browser_type", {"target": editor,
                            "text": "select name from birds where wingspan_cm > 250 order by name"})
    a.until(a.act("browser_click", {"target": ref(page, "button", "Run SQL")}), "Wandering albatross")
    return a


def streamlit_slider(server, base):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": f"{base}/"})
    if "Submit" not in page:
        # The app draws itself over its websocket after loading: a model
        # waits for it, then looks.
        a.call("browser_wait_for", {"text": "Submit"})
        page = a.call("browser_snapshot", {})
    filled = a.call("browser_fill_form", {"fields": [{"target": ref(page, "slider", "Count"),
                                                      "type": "slider", "value": "7"}]})
    if "but" in filled:
        raise RuntimeError(f"the slider was not set: {filled}")
    text = a.act("browser_click", {"target": ref(page, "button", "Submit")})
    if "Order: 7 x" not in text:
        a.instead.append(text[-1200:])
    for _ in range(3):
        if "Order: 7 x" in text:
            return a
        text = a.poll()
    # A click that came while the app was still rerunning after the
    # slider moved can be dropped by Streamlit: a model clicks again.
    a.until(a.call("browser_click", {"target": ref(text, "button", "Submit")}), "Order: 7 x")
    return a


def mkdocs_search(server, base):
    a = Agent(server)
    page = a.call("browser_navigate", {"url": f"{base}/"})
    a.until(a.act("browser_type", {"target": ref(page, "textbox", "Search"), "text": "anemones",
                                   "slowly": True}), "1 matching document")
    return a


def load(a, url, needs):
    """Navigates; when the app has not drawn a control the task needs yet
    (it draws itself over its socket after the load), waits for its name:
    the wait's answer shows the line it found, with its ref. A snapshot
    only when a needed ref is still missing. The text holding the refs."""
    page = a.call("browser_navigate", {"url": url})
    missing = [n for n in needs if not has_ref(page, *n)]
    if missing:
        page = a.call("browser_wait_for", {"text": missing[-1][1], "timeout": 20}) + "\n" + page
        if any(not has_ref(page, *n) for n in needs):
            page = a.call("browser_snapshot", {})
    return page


# Installed before the click (not counted): notes the time (Date.now())
# when `want` first shows in the page's text, open shadow roots included.
SEEN_JS = r"""() => {
  const want = %s;
  const deep = (root) => {
    let t = '';
    const walk = (n) => {
      if (n.nodeType === 3) { t += n.data; return; }
      if (n.shadowRoot) walk(n.shadowRoot);
      for (const c of n.childNodes) walk(c);
    };
    walk(root);
    return t;
  };
  window.__benchSeen = null;
  const check = () => {
    if (window.__benchSeen === null && deep(document.documentElement).includes(want)) {
      window.__benchSeen = Date.now();
      for (const o of obs) o.disconnect();
    }
  };
  const obs = [];
  const watch = (root) => {
    const o = new MutationObserver(check);
    o.observe(root, {subtree: true, childList: true, characterData: true});
    obs.push(o);
    const all = root.querySelectorAll('*');
    for (const el of all) if (el.shadowRoot) watch(el.shadowRoot);
  };
  watch(document);
  check();
  return window.__benchSeen;
}"""


def socket_click(server, url, button, result, seen, typed=None):
    """A socket app's task: (type into a combobox, then) click `button`,
    whose result the server sends 0.8 s later."""
    a = Agent(server)
    needs = ([("combobox", typed[0])] if typed else []) + [("button", button)]
    page = load(a, url, needs)
    if typed:
        a.call("browser_type", {"target": ref(page, "combobox", typed[0]), "text": typed[1]})
    if seen:
        oracle(server, SEEN_JS % json.dumps(result))
    t0 = time.time() * 1000
    text = a.act("browser_click", {"target": ref(page, "button", button)})
    t1 = time.time() * 1000
    try:
        a.until(text, result)
    finally:
        if seen:
            at = oracle(server, "() => window.__benchSeen")
            if at is not None:
                a.shown_ms = at - t0
                a.answer_lag_ms = t1 - at  # negative: the answer came first
    return a


def sortable_drag(server, base):
    a = Agent(server)
    a.call("browser_navigate", {"url": f"{base}/sortable.html"})
    a.until(a.act("browser_drag", {"startTarget": "#list li[data-id=Echo]",
                                   "endTarget": "#list li[data-id=Alpha]"}), "Order: Echo,")
    if oracle(server, '() => window.widgetState().order[0] === "Echo"') is not True:
        raise Unfinished(a, f"Echo is not first: {oracle(server, '() => window.widgetState()')}")
    return a


def nouislider_drag(server, base):
    a = Agent(server)
    a.call("browser_navigate", {"url": f"{base}/nouislider.html"})
    # The points a model would read off a screenshot (viewport pixels).
    x0, y0, x1, y1 = oracle(server, """() => {
      const h = document.querySelector('.noUi-handle-upper').getBoundingClientRect();
      const b = document.querySelector('#price .noUi-base').getBoundingClientRect();
      return [h.left + h.width / 2, h.top + h.height / 2, b.left + b.width / 2, b.top + b.height / 2];
    }""")
    a.until(a.act("browser_mouse_drag_xy", {"element": "the upper handle of Price range",
                                            "startX": x0, "startY": y0, "endX": x1, "endY": y1}),
            "Values: 20\u201350")
    values = oracle(server, "() => window.widgetState().values")
    if values != [20, 50]:
        raise Unfinished(a, f"the slider's values are {values}, not [20, 50]")
    return a


# (app, task, minimum calls, run(server, apps, run index, upload file, seen))
TASKS = [
    ("gradio", "compute", 3, lambda srv, apps, r, data, seen: compute(srv, apps["gradio"][1] + "/", 7 + r)),
    ("gradio", "upload", 3, lambda srv, apps, r, data, seen: upload(srv, apps["gradio"][1] + "/", data)),
    ("datasette", "sql", 3, lambda srv, apps, r, data, seen: datasette_sql(srv, apps["datasette"][1])),
    ("streamlit", "slider", 3, lambda srv, apps, r, data, seen: streamlit_slider(srv, apps["streamlit"][1])),
    ("mkdocs", "search", 2, lambda srv, apps, r, data, seen: mkdocs_search(srv, apps["mkdocs"][1])),
    ("streamlit_slow", "count", 2, lambda srv, apps, r, data, seen: socket_click(
        srv, apps["streamlit_slow"][1] + "/", "Count birds", "Birds counted: 17", seen)),
    ("nicegui_slow", "search", 3, lambda srv, apps, r, data, seen: socket_click(
        srv, apps["nicegui_slow"][1] + "/", "SEARCH", "Result: 3 sightings of Heron", seen,
        typed=("Bird name", "Heron"))),
    ("shiny_slow", "report", 2, lambda srv, apps, r, data, seen: socket_click(
        srv, apps["shiny_slow"][1] + "/", "Run report", "Result: 42 items found", seen)),
    ("panel_slow", "load", 2, lambda srv, apps, r, data, seen: socket_click(
        srv, apps["panel_slow"][1] + "/", "Load stations", "Result: 12 stations loaded", seen)),
    ("sortable", "drag", 2, lambda srv, apps, r, data, seen: sortable_drag(srv, apps["widgets"][1])),
    ("nouislider", "drag", 2, lambda srv, apps, r, data, seen: nouislider_drag(srv, apps["widgets"][1])),
]
APP_OF = {"sortable": "widgets", "nouislider": "widgets"}


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt_ms(x):
    return "–" if x is None else f"{x:.0f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", help="comma-separated apps or 'app task' names (default: all)")
    ap.add_argument("--no-seen", action="store_true",
                    help="leave out the observer that notes when a socket app's result shows")
    args = ap.parse_args()
    tasks = TASKS
    if args.only:
        keep = {w.strip() for w in args.only.split(",")}
        tasks = [t for t in TASKS if t[0] in keep or f"{t[0]} {t[1]}" in keep]
        if not tasks:
            sys.exit(f"real-app-tasks: no task matches {args.only!r}")
    tmp = tempfile.mkdtemp(prefix="tabwire-real-app-")
    apps = {}
    results = {}
    b = tabwire_bin("real-app-tasks")
    try:
        start_apps(tmp, apps, {APP_OF.get(t[0], t[0]) for t in tasks})
        uploads = f"{tmp}/uploads"
        os.makedirs(uploads)
        data = f"{uploads}/data.csv"
        with open(data, "w") as f:
            f.write("id,value\n" + "".join(f"{i},{i * i}\n" for i in range(100)))
        env, servers = tabwire_servers(b, tmp, ["--window-size=1280,900"])
        for label, argv in servers:
            # --caps vision for browser_mouse_drag_xy (it only adds tools).
            server = McpServer(label, argv + ["--upload-dir", uploads, "--caps", "vision"], env, tmp)
            try:
                for _, (_, base) in apps.items():
                    server.call("browser_navigate", {"url": base + "/"})  # warm-up
                rows = {f"{app} {task}": [] for app, task, *_ in tasks}
                for r in range(args.runs):
                    print(f"\rreal-app-tasks: {label} run {r + 1}/{args.runs}", end="", file=sys.stderr)
                    for app, task, _, run in tasks:
                        try:
                            a, error = run(server, apps, r, data, not args.no_seen), None
                        except Unfinished as e:
                            a, error = e.agent, str(e)
                        except Exception as e:  # one failed run does not end the bench
                            a, error = None, str(e)
                        if a is None:
                            row = {"calls": None, "polls": None, "ms": None}
                        else:
                            row = {"calls": a.calls, "polls": a.polls, "ms": round(a.ms),
                                   "action_ms": None if a.action_ms is None else round(a.action_ms),
                                   "steps": a.steps}
                            if hasattr(a, "shown_ms"):
                                row["shown_ms"] = round(a.shown_ms)
                                row["answer_lag_ms"] = round(a.answer_lag_ms)
                            if a.instead:
                                row["instead"] = a.instead
                        if error:
                            row["error"] = error[-2000:]
                            print(f"\nreal-app-tasks: {label} {app} {task}: {error[:300]}", file=sys.stderr)
                        rows[f"{app} {task}"].append(row)
                print(file=sys.stderr)
                results[label] = rows
            finally:
                server.stop()
    finally:
        stop_apps(apps)
    minimum = {f"{app} {task}": m for app, task, m, _ in tasks}
    print(f"\n{args.runs} runs, {b}")
    print("\n| backend | task | calls per run | polls per run | median time | main action (median) "
          "| result shown / answer lag (median) | minimum, 0 polls, every run |")
    print("|---|---|---|---|---:|---:|---:|---|")
    for label, rows in results.items():
        for task, runs in rows.items():
            calls = ["x" if r["calls"] is None else f"{r['calls']}{'!' if 'error' in r else ''}" for r in runs]
            polls = ["x" if r["polls"] is None else f"{r['polls']}{'!' if 'error' in r else ''}" for r in runs]
            t = med(r["ms"] for r in runs)
            shown = med(r.get("shown_ms") for r in runs)
            lag = med(r.get("answer_lag_ms") for r in runs)
            ok = all(r["calls"] == minimum[task] and r["polls"] == 0 and "error" not in r for r in runs)
            print(f"| {label} | {task} | {' '.join(calls)} | {' '.join(polls)} | "
                  f"{'–' if t is None else f'{t / 1000:.2f} s'} | "
                  f"{fmt_ms(med(r.get('action_ms') for r in runs))} ms | "
                  f"{'–' if shown is None else f'{shown:.0f} / {lag:.0f} ms'} | {'yes' if ok else 'no'} |")
    print("\n(! = the run failed: its result never showed, or a check failed; see the JSON)")
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    out = os.path.join(ROOT, "bench/results", f"real-app-tasks-{stamp}.json")
    with open(out, "w") as f:
        json.dump({"runs": args.runs, "binary": b, "apps": list(apps), "minimum": minimum,
                   "results": results}, f, indent=1)
    print(f"\nwrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
