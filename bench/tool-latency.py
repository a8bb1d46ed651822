#!/usr/bin/env python3
"""Per-tool latency of tabwire serve (30 calls per tool on a one-field page),
through the extension in headless Chromium or over the CDP fallback.

Needs: a release build (`cargo build --release`), Chromium at
/usr/lib/chromium/chromium. Run: python3 bench/tool-latency.py extension|cdp
"""
import json, subprocess, sys, time, os, tempfile
ROOT=os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP=tempfile.mkdtemp(prefix="tabwire-latency-")
B=os.environ.get('TABWIRE_BIN', f'{ROOT}/target/release/tabwire')
env=dict(os.environ, TABWIRE_RUNTIME_DIR=f'{TMP}/rt', TABWIRE_DATA_DIR=f'{TMP}/data', RUST_LOG=os.environ.get('RUST_LOG','tabwire=info'))
os.makedirs(f'{TMP}/udd')
subprocess.run([B,'install','--browser','chromium','--user-data-dir',f'{TMP}/udd'],env=env,check=True,capture_output=True)
ext=f'{ROOT}/extension'
import atexit
chrome=subprocess.Popen(['/usr/lib/chromium/chromium','--headless=new','--no-sandbox','--disable-gpu','--no-first-run','--disable-background-networking','--disable-component-update','--disable-sync','--disable-default-apps',f'--user-data-dir={TMP}/udd',f'--load-extension={ext}',f'--disable-extensions-except={ext}','about:blank'],env=env,stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
# The browser goes away however this script ends.
atexit.register(chrome.kill)
backend=sys.argv[1]
args=[B,'serve','--backend',backend,'--connect-timeout','30']
if backend=='cdp': args+=['--headless','--browser-path','/usr/lib/chromium/chromium','--browser-arg=--no-sandbox']
p=subprocess.Popen(args,env=env,stdin=subprocess.PIPE,stdout=subprocess.PIPE,stderr=open(os.environ.get('SERVE_LOG',f'{TMP}/serve.log'),'w'))
i=0
def rpc(method,params=None,notify=False):
    global i
    msg={"jsonrpc":"2.0","method":method}
    if params is not None: msg["params"]=params
    if not notify: i+=1; msg["id"]=i
    p.stdin.write((json.dumps(msg)+"\n").encode()); p.stdin.flush()
    if notify: return
    while True:
        line=p.stdout.readline()
        r=json.loads(line)
        if r.get("id")==i: return r
rpc("initialize",{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"prof","version":"1"}})
rpc("notifications/initialized",notify=True)
def call(name,args):
    t=time.perf_counter(); r=rpc("tools/call",{"name":name,"arguments":args}); return (time.perf_counter()-t)*1000, r
print(call("browser_navigate",{"url":"data:text/html,<title>x</title><input id=a><button>b</button>"})[0])
for tool,a in [("browser_tabs",{"action":"list"}),("browser_evaluate",{"function":"() => 1"}),("browser_get_text",{}),("browser_snapshot",{}),("browser_type",{"target":"#a","text":"hi"}),("browser_click",{"target":"button"})]:
    ts=sorted(call(tool,a)[0] for _ in range(30))
    print(f"{backend} {tool}: median {ts[15]:.1f} ms min {ts[0]:.1f}")
p.stdin.close(); p.wait()
