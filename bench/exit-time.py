#!/usr/bin/env python3
"""How long `tabwire serve` takes to exit once its MCP client closes stdin,
with the browser it launched for the CDP fallback open (the usual end of a
session), and whether anything is left behind: a browser process, or a
profile lock in the profile.

Needs: a build of tabwire (TABWIRE_BIN, else target/release, else
target/debug), Chromium at /usr/lib/chromium/chromium (or CHROMIUM).
Run: python3 bench/exit-time.py [runs]   (default 10)
Each run starts serve with a fresh data dir, makes one call that launches
the browser (`browser_tabs` list, or `browser_navigate` to EXIT_URL when
set), closes stdin and times until serve has exited. Headless unless
DISPLAY is set; EXIT_BACKEND=auto tries the default backend choice.
Prints each run, the median and the slowest; never fails on a number
(exit 1 only when a browser process was left behind). Logs and data dirs
stay in the printed temp dir.
"""
import os, statistics, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import McpServer, tabwire_bin

CHROMIUM = os.environ.get("CHROMIUM", "/usr/lib/chromium/chromium")


def processes_with(needle):
    """Pids whose command line contains `needle`."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if needle.encode() in f.read():
                    out.append(int(pid))
        except OSError:
            pass
    return out


def descendants(pid):
    """`pid` and every process below it."""
    children = {}
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            with open(f"/proc/{p}/stat") as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(p))
    out, todo = [], [pid]
    while todo:
        q = todo.pop()
        out.append(q)
        todo.extend(children.get(q, []))
    return out


def alive(pids):
    """Those of `pids` still running (zombies count as gone)."""
    out = []
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    out.append(pid)
        except OSError:
            pass
    return out


def one_run(binary, tmp, n):
    data = f"{tmp}/data{n}"
    env = dict(os.environ, TABWIRE_RUNTIME_DIR=f"{tmp}/rt{n}", TABWIRE_DATA_DIR=data,
               RUST_LOG=os.environ.get("RUST_LOG", "tabwire=info"))
    argv = [binary, "serve", "--backend", os.environ.get("EXIT_BACKEND", "cdp"), "--browser-path", CHROMIUM,
            "--browser-arg=--disable-background-networking",
            "--browser-arg=--disable-component-update", "--browser-arg=--disable-sync"]
    if not os.environ.get("DISPLAY"):
        argv.append("--headless")
    s = McpServer(f"serve{n}", argv, env, tmp)
    if os.environ.get("EXIT_URL"):
        s.call("browser_navigate", {"url": os.environ["EXIT_URL"]})
    else:
        s.call("browser_tabs", {"action": "list"})
    assert processes_with(data), "no browser was launched"
    tree = [p for p in descendants(s.p.pid) if p != s.p.pid]
    t = time.perf_counter()
    s.p.stdin.close()
    s.p.wait(timeout=30)
    took = time.perf_counter() - t
    left = sorted(set(processes_with(data)) | set(alive(tree)))
    profile = f"{data}/profiles/default"
    locks = [f for f in ("SingletonLock", "SingletonSocket", "SingletonCookie")
             if os.path.lexists(f"{profile}/{f}")]
    return took, left, locks


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    binary = tabwire_bin("exit-time")
    tmp = tempfile.mkdtemp(prefix="tabwire-exit-")
    times, bad = [], 0
    for n in range(runs):
        took, left, locks = one_run(binary, tmp, n)
        times.append(took)
        note = ""
        if left:
            bad += 1
            note += f"  LEFT BEHIND: browser pids {left}"
            for pid in left:
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
        if locks:
            note += f"  (profile lock files left: {', '.join(locks)})"
        print(f"run {n + 1}: serve exited {took * 1000:.0f} ms after stdin closed{note}")
    print(f"median {statistics.median(times) * 1000:.0f} ms, min {min(times) * 1000:.0f} ms, "
          f"max {max(times) * 1000:.0f} ms over {runs} runs ({binary}; logs in {tmp})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
