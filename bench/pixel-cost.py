#!/usr/bin/env python3
"""What the pixel judgement (src/page/reading/pixels.rs) costs an answer.

Two generated pages with the same words in the first viewport: "plain"
(text the engine's rules vouch for: no pixels asked) and "styled" (every
paragraph drawn through a filter, a blend mode or an opacity, so every
text in view is a doubt and the answer takes a screenshot pair). Each is
navigated to --runs times, interleaved, on both backends; the navigate
answer is timed (its snapshot is where the pixels are asked), and so is a
browser_snapshot after a DOM change (the verdicts hold while the text
stays where it was: the second answer asks the pixels nothing new).

Needs: a build of tabwire (release preferred), Chromium at
/usr/lib/chromium/chromium. Run: python3 bench/pixel-cost.py [--runs 8]
[--paragraphs 40]. Prints medians and writes bench/results/pixel-cost-<time>.json.
"""
import argparse
import atexit
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, tabwire_bin, tabwire_servers, write_results  # noqa: E402

STYLES = ["filter: saturate(1.2)", "mix-blend-mode: multiply", "opacity: 0.95",
          "transform: rotate(0.5deg)"]


def page(kind, n, site, port):
    rows = []
    for i in range(n):
        style = STYLES[i % len(STYLES)] if kind == "styled" else ""
        rows.append(f'<p style="margin:0; font-size:11px; {style}">Paragraph {i}: the quick brown fox '
                    f'jumps over the lazy dog, twice over.</p>')
    html = f"<!doctype html><title>{kind}</title><body style='font:11px sans-serif'>{''.join(rows)}</body>"
    with open(f"{site}/{kind}.html", "w") as f:
        f.write(html)
    return f"http://127.0.0.1:{port}/{kind}.html"


def serve(site):
    """A local http server for the generated pages (tabwire opens http(s)
    pages only); its port."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    p = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
                         cwd=site, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    atexit.register(p.kill)
    for _ in range(100):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return port
        time.sleep(0.05)
    sys.exit("pixel-cost: the page server did not start")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--paragraphs", type=int, default=40)
    args = ap.parse_args()
    b = tabwire_bin("pixel-cost")
    tmp = tempfile.mkdtemp(prefix="tabwire-pixel-cost-")
    env, servers = tabwire_servers(b, tmp)
    site = f"{tmp}/site"
    os.makedirs(site)
    port = serve(site)
    urls = {k: page(k, args.paragraphs, site, port) for k in ("plain", "styled")}
    results = {}
    for label, argv in servers:
        mcp = McpServer(label, argv, env, tmp)
        times = {k: {"navigate": [], "snapshot after a change": []} for k in urls}
        for run in range(args.runs):
            for kind, url in urls.items():
                ms, text = mcp.call("browser_navigate", {"url": url})
                if f"Paragraph {args.paragraphs - 1}" not in text and "Paragraph 0" not in text:
                    raise RuntimeError(f"{label}: the {kind} page's answer lost its text:\n{text[:800]}")
                times[kind]["navigate"].append(ms)
                mcp.call("browser_evaluate", {"function": "() => document.body.append('.')"})
                ms, _ = mcp.call("browser_snapshot", {})
                times[kind]["snapshot after a change"].append(ms)
            print(f"{label}: run {run + 1}/{args.runs}", file=sys.stderr, flush=True)
        mcp.stop()
        results[label] = {k: {step: round(statistics.median(v), 1) for step, v in steps.items()}
                          for k, steps in times.items()}
    print(f"\n{args.paragraphs} paragraphs in view, median of {args.runs} runs (ms):\n")
    print("| backend | page | navigate | snapshot after a change |")
    print("|---|---|---:|---:|")
    for label, kinds in results.items():
        for kind, steps in kinds.items():
            print(f"| {label} | {kind} | {steps['navigate']} | {steps['snapshot after a change']} |")
    path = write_results("pixel-cost", {"paragraphs": args.paragraphs, "runs": args.runs, "results": results})
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
