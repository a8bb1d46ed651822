"""What the Python benches share: finding the tabwire binary and a minimal
MCP client over stdio (JSON-RPC, one request at a time)."""
import atexit, json, os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def tabwire_bin(bench):
    """TABWIRE_BIN, else the release build, else the debug build."""
    if os.environ.get("TABWIRE_BIN"):
        return os.environ["TABWIRE_BIN"]
    for profile in ("release", "debug"):
        p = f"{ROOT}/target/{profile}/tabwire"
        if os.path.exists(p):
            return p
    sys.exit(f"{bench}: build tabwire first (cargo build --release) or set TABWIRE_BIN")


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
