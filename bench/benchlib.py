"""What the Python benches share: finding the tabwire binary and a minimal
MCP client over stdio (JSON-RPC, one request at a time)."""
import atexit, datetime, json, os, re, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CHROMIUM = "/usr/lib/chromium/chromium"
# Headless Chromium on this kind of machine (root, no GPU, quiet).
FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-default-apps"]


def tabwire_bin(bench):
    """TABWIRE_BIN, else the release build, else the debug build."""
    if os.environ.get("TABWIRE_BIN"):
        return os.environ["TABWIRE_BIN"]
    for profile in ("release", "debug"):
        p = f"{ROOT}/target/{profile}/tabwire"
        if os.path.exists(p):
            return p
    sys.exit(f"{bench}: build tabwire first (cargo build --release) or set TABWIRE_BIN")


def tabwire_cdp(b, chrome_args=()):
    """`tabwire serve` on the CDP fallback, launching its own headless Chromium
    (with `chrome_args` added to its command line)."""
    return [b, "serve", "--backend", "cdp", "--headless", "--browser-path", CHROMIUM,
            "--browser-arg=--no-sandbox", *(f"--browser-arg={a}" for a in chrome_args)]


def tabwire_servers(b, tmp, chrome_args=()):
    """Both of tabwire's backends, ready for McpServer: registers the native
    host with `tabwire install` into a fresh profile under `tmp`, starts
    Chromium there with the extension (killed at exit), and returns the
    environment the servers need and their (label, argv) pairs. Both
    browsers get `chrome_args` too."""
    env = dict(os.environ, TABWIRE_RUNTIME_DIR=f"{tmp}/rt", TABWIRE_DATA_DIR=f"{tmp}/data")
    os.makedirs(f"{tmp}/udd")
    subprocess.run([b, "install", "--browser", "chromium", "--user-data-dir", f"{tmp}/udd"],
                   env=env, check=True, capture_output=True)
    ext = f"{ROOT}/extension"
    chrome = subprocess.Popen([CHROMIUM, *FLAGS, *chrome_args, f"--user-data-dir={tmp}/udd",
                               f"--load-extension={ext}", f"--disable-extensions-except={ext}",
                               "about:blank"], env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    atexit.register(chrome.kill)
    return env, [
        ("tabwire-extension", [b, "serve", "--backend", "extension", "--connect-timeout", "30"]),
        ("tabwire-cdp", tabwire_cdp(b, chrome_args)),
    ]


class McpServer:
    """One MCP server over stdio; its stderr goes to <log_dir>/<label>.log."""

    def __init__(self, label, argv, env, log_dir, client="tabwire-bench"):
        self.label = label
        self.log = f"{log_dir}/{label}.log"
        self.p = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(self.log, "w"))
        atexit.register(self.p.kill)
        self.i = 0
        self.rpc("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                "clientInfo": {"name": client, "version": "1"}})
        self.rpc("notifications/initialized", notify=True)

    def rpc(self, method, params=None, notify=False):
        msg = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        if not notify:
            self.i += 1
            msg["id"] = self.i
        self.p.stdin.write((json.dumps(msg) + "\n").encode())
        self.p.stdin.flush()
        if notify:
            return None
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.label} exited; see {self.log}")
            r = json.loads(line)
            if r.get("id") == self.i:
                return r

    def call(self, tool, args):
        """Calls a tool; (milliseconds, text of the answer). A tool error raises."""
        t = time.perf_counter()
        r = self.rpc("tools/call", {"name": tool, "arguments": args})
        ms = (time.perf_counter() - t) * 1000
        res = r.get("result", {})
        text = "".join(c.get("text", "") for c in res.get("content", []) if c.get("type") == "text")
        if res.get("isError") or "error" in r:
            raise RuntimeError(f"{self.label} {tool} failed: {text or r.get('error')}")
        return ms, text

    def stop(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=10)
        except Exception:
            self.p.kill()


def ref_of(snapshot, role, name):
    """The ref of the first `role "name"` line of a snapshot."""
    m = re.search(role + r' "' + re.escape(name) + r'"[^\n]*?\[ref=(\w+)\]', snapshot)
    if not m:
        raise RuntimeError(f"no {role} {name!r} with a ref in the snapshot: {snapshot[:600]}")
    return m.group(1)


def page_data(text):
    """The JSON value of a browser_evaluate answer (inside its fence)."""
    m = re.search(r"<<page-content \w+>>\n?(.*?)<<end-page-content \w+>>", text, re.S)
    return json.loads(m.group(1) if m else text.split("\n", 1)[1])


def bench_module(name):
    """The bench script bench/<name>.py as a module: its name has a dash,
    so no import statement reaches it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(name.replace("-", "_"), f"{ROOT}/bench/{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_results(bench, data):
    """Writes `data` as bench/results/<bench>-<UTC time>.json; its path."""
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H-%M-%SZ")
    os.makedirs(f"{ROOT}/bench/results", exist_ok=True)
    path = f"{ROOT}/bench/results/{bench}-{stamp}.json"
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    return path
