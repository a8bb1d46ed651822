#!/usr/bin/env python3
"""Snapshot answer bytes of the same two pages (200 links, a long article) in
tabwire (CDP fallback), playwright-mcp and chrome-devtools-mcp: each server is
driven over stdio with navigate, then snapshot, and the serialized
CallToolResult is counted.

Needs: a release build (`cargo build --release`), the peers installed by
`bench --peers` into bench/.cache, Chromium at /usr/lib/chromium/chromium.
Run: python3 bench/snapshot-sizes.py
"""
import json, subprocess, threading, http.server, random, os, sys, tempfile
ROOT=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP=tempfile.mkdtemp(prefix="tabwire-snapsizes-")
random.seed(7)
W="browser extension protocol latency snapshot relay frame socket render measure median session document network pipe client server message native host debugger command event result".split()
art="<!doctype html><meta charset=utf-8><title>A long article</title><article><h1>How a message crosses the relay</h1>"
for s in range(8):
    art+=f"<h2>Section {s+1}</h2>"
    for p in range(8): art+="<p>"+" ".join(random.choice(W) for _ in range(70))+".</p>"
art+="</article>"
links="<!doctype html><meta charset=utf-8><title>Links</title><h1>Catalog</h1><ul>"+"".join(f'<li><a href="/page/item-{i}">Item {i}</a></li>' for i in range(200))+"</ul>"
pages={"/article":art,"/links":links}
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        b=pages.get(self.path,"<title>x</title>").encode(); self.send_response(200); self.send_header("Content-Type","text/html; charset=utf-8"); self.send_header("Content-Length",str(len(b))); self.end_headers(); self.wfile.write(b)
    def log_message(self,*a): pass
srv=http.server.ThreadingHTTPServer(("127.0.0.1",0),H); port=srv.server_address[1]
threading.Thread(target=srv.serve_forever,daemon=True).start()
C="/usr/lib/chromium/chromium"; M=f"{ROOT}/bench/.cache/node_modules"
servers={
 "tabwire": [f"{ROOT}/target/release/tabwire","serve","--backend","cdp","--headless","--browser-path",C,"--browser-arg=--no-sandbox"],
 "playwright-mcp": ["node",f"{M}/@playwright/mcp/cli.js","--headless","--isolated","--no-sandbox","--executable-path",C,"--output-dir",f"{TMP}/pw"],
 "chrome-devtools-mcp": ["node",f"{M}/chrome-devtools-mcp/build/src/bin/chrome-devtools-mcp.js","--headless","--isolated","--executablePath",C,"--chromeArg=--no-sandbox","--no-usage-statistics","--no-performance-crux","--no-page-id-routing"],
}
calls={"tabwire":("browser_navigate",lambda u:{"url":u},"browser_snapshot"),
       "playwright-mcp":("browser_navigate",lambda u:{"url":u},"browser_snapshot"),
       "chrome-devtools-mcp":("navigate_page",lambda u:{"type":"url","url":u},"take_snapshot")}
env=dict(os.environ, TABWIRE_DATA_DIR=f"{TMP}/data", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1", CHROME_DEVTOOLS_MCP_NO_USAGE_STATISTICS="1")
for name,cmd in servers.items():
    p=subprocess.Popen(cmd,stdin=subprocess.PIPE,stdout=subprocess.PIPE,stderr=subprocess.DEVNULL,env=env)
    n=[0]
    def rpc(method,params=None,notify=False):
        msg={"jsonrpc":"2.0","method":method}
        if params is not None: msg["params"]=params
        if not notify: n[0]+=1; msg["id"]=n[0]
        p.stdin.write((json.dumps(msg)+"\n").encode()); p.stdin.flush()
        if notify: return
        while True:
            r=json.loads(p.stdout.readline())
            if r.get("id")==n[0]: return r
    rpc("initialize",{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"cmp","version":"1"}})
    rpc("notifications/initialized",notify=True)
    nav,args,snap=calls[name]
    for path in ["/links","/article"]:
        rpc("tools/call",{"name":nav,"arguments":args(f"http://127.0.0.1:{port}{path}")})
        r=rpc("tools/call",{"name":snap,"arguments":{}})
        body=json.dumps(r["result"],separators=(",",":"))
        print(f"{name:20} {path:9} snapshot answer {len(body):6} B")
    # Closing stdin lets each server close the browser it started.
    p.stdin.close()
    try:
        p.wait(timeout=15)
    except subprocess.TimeoutExpired:
        p.kill()
