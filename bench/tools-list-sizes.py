#!/usr/bin/env python3
"""How many bytes `tools/list` costs a client, by group of tools: the
default list (which must stay within 10 KiB) and the list with each
`--caps` group added alone, then with all of them. The bytes are the
serialized `tools` array of the answer, as a client would put it in the
model's context. No browser is needed: listing tools starts none.

Run: python3 bench/tools-list-sizes.py   (TABWIRE_BIN to pick a build)
Writes bench/results/tools-list-sizes-<time>.json.
"""
import json, os, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ROOT, McpServer, tabwire_bin

GROUPS = ["network", "emulation", "vision", "devtools", "testing", "storage"]
LIMIT = 10 * 1024


def listing(b, env, tmp, caps):
    argv = [b, "serve", "--backend", "cdp"] + (["--caps", ",".join(caps)] if caps else [])
    label = "default" if not caps else "+".join(caps)
    server = McpServer(label, argv, env, tmp)
    r = server.rpc("tools/list", {})
    server.stop()
    if "error" in r:
        return label, None, r["error"].get("message", "")
    # The whole answer, compact, as serve writes it on stdout.
    return label, r["result"]["tools"], len(json.dumps(r, separators=(",", ":"), ensure_ascii=False).encode())


def main():
    b = tabwire_bin("tools-list-sizes")
    tmp = tempfile.mkdtemp(prefix="tabwire-listsizes-")
    env = dict(os.environ, TABWIRE_RUNTIME_DIR=f"{tmp}/rt", TABWIRE_DATA_DIR=f"{tmp}/data")
    rows = []
    _, base, _ = listing(b, env, tmp, [])
    base_names = {t["name"] for t in base}
    for caps in [[]] + [[g] for g in GROUPS] + [GROUPS]:
        print(f"tools-list-sizes: listing {'+'.join(caps) or 'default'} …", file=sys.stderr, flush=True)
        label, tools, size = listing(b, env, tmp, caps)
        if tools is None:
            rows.append({"caps": label, "error": size})
            continue
        added = [t["name"] for t in tools if t["name"] not in base_names]
        rows.append({"caps": label, "tools": len(tools), "bytes": size, "added": added})
    print(f"{'caps':<44} {'tools':>5} {'bytes':>7}  added")
    for r in rows:
        if "error" in r:
            print(f"{r['caps']:<44} error: {r['error']}")
            continue
        flag = "  (over 10 KiB)" if r["caps"] == "default" and r["bytes"] > LIMIT else ""
        print(f"{r['caps']:<44} {r['tools']:>5} {r['bytes']:>7}  {', '.join(r['added']) or '-'}{flag}")
    os.makedirs(f"{ROOT}/bench/results", exist_ok=True)
    out = f"{ROOT}/bench/results/tools-list-sizes-{time.strftime('%Y-%m-%dT%H-%M-%SZ', time.gmtime())}.json"
    with open(out, "w") as f:
        json.dump({"binary": b, "limit_default": LIMIT, "rows": rows}, f, indent=1)
    print(f"written: {out}")


if __name__ == "__main__":
    main()
