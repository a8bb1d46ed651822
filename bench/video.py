#!/usr/bin/env python3
"""What a screen recording costs: `browser_start_video`, N key presses that
scroll a big real page (PageDown on Python's stdtypes docs, each followed
by a pause), then `browser_stop_video`; per backend, the stop's time (the
GIF is encoded then), the GIF's size and frames, and what the key presses
cost while recording against the same presses without.

Needs: bench/real-site.sh running (it serves the pages), Chromium at
/usr/lib/chromium/chromium, a tabwire build (TABWIRE_BIN, else release,
else debug).
Run: python3 bench/video.py [--presses 30]
Prints a table and writes bench/results/video-<time>.json.
"""
import argparse, os, re, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, tabwire_bin, tabwire_servers, write_results  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="tabwire-video-")
PAGE = "http://127.0.0.1:8765/library/stdtypes.html"


def progress(msg):
    print(f"video: {msg}", file=sys.stderr, flush=True)


def presses(server, n, pause):
    times = []
    for _ in range(n):
        times.append(server.call("browser_press_key", {"key": "PageDown"})[0])
        time.sleep(pause)
    return statistics.median(times)


def measure(label, argv, env, n, pause):
    server = McpServer(label, [*argv, "--caps", "devtools"], env, TMP)
    server.call("browser_navigate", {"url": PAGE})
    plain = presses(server, n, pause)
    server.call("browser_navigate", {"url": PAGE})
    server.call("browser_start_video", {})
    recorded = presses(server, n, pause)
    stop_ms, text = server.call("browser_stop_video", {})
    server.stop()
    m = re.search(r"saved as (.+?\.gif) \((\d+) bytes, GIF (\d+)×(\d+)\): ([\d.]+) s, (\d+) frames \((\d+) painted", text)
    if not m:
        raise RuntimeError(f"{label}: unexpected answer: {text}")
    return {
        "press_key_ms": round(plain, 1),
        "press_key_recording_ms": round(recorded, 1),
        "stop_ms": round(stop_ms, 1),
        "gif_bytes": int(m.group(2)),
        "gif_size": f"{m.group(3)}×{m.group(4)}",
        "seconds": float(m.group(5)),
        "frames_written": int(m.group(6)),
        "frames_painted": int(m.group(7)),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--presses", type=int, default=30)
    ap.add_argument("--pause", type=float, default=0.2, help="seconds after each press")
    a = ap.parse_args()
    b = tabwire_bin("video")
    env, servers = tabwire_servers(b, TMP)
    results = {"binary": b, "presses": a.presses, "pause_s": a.pause, "backends": {}}
    for label, argv in servers:
        progress(f"{label}: {a.presses} presses without, then with a recording")
        results["backends"][label] = measure(label, argv, env, a.presses, a.pause)
    print(f"\n{a.presses} PageDown presses on stdtypes.html, {a.pause} s apart ({b})\n")
    print("| backend | key press | key press, recording | stop (encode + save) | GIF | frames written / painted |")
    print("|---|---:|---:|---:|---:|---:|")
    for label, r in results["backends"].items():
        print(f"| {label} | {r['press_key_ms']} ms | {r['press_key_recording_ms']} ms | {r['stop_ms']} ms | "
              f"{r['gif_bytes']:,} bytes, {r['gif_size']}, {r['seconds']} s | "
              f"{r['frames_written']} / {r['frames_painted']} |")
    out = write_results("video", results)
    print(f"\nwritten: {out}")


if __name__ == "__main__":
    main()
