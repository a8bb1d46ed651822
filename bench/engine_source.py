"""The in-page engine's source, as the Rust build joins it.

The engine is one script (an arrow function called at once) kept as parts
under src/engine/parts/; src/engine/mod.rs joins them with
`concat!(include_str!("parts/01-….js"), …)`, and that list is the only
order. This module reads the list from mod.rs and joins the parts the same
way, so the benches evaluate exactly what the binary carries.

  python3 bench/engine_source.py              # the working tree's engine
  python3 bench/engine_source.py --rev main   # the engine at a revision

A revision from before the split (no parts list in its mod.rs) gives its
src/engine/engine.js. As a module: `source(rev=None)` returns the text,
`parts(rev=None)` the (path, text) pairs in order, and `load(spec)` the
engine a bench's argument names: `current` (the working tree's), `@REV`
(a revision's) or the path of a joined file.
"""
import os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE_DIR = "src/engine"
PARTS_DIR = "src/engine/parts"
MOD_RS = "src/engine/mod.rs"
OLD_FILE = "src/engine/engine.js"   # the single file before the split
INCLUDE = re.compile(r'include_str!\(\s*"(parts/[^"]+)"\s*\)')


class EngineSourceError(Exception):
    pass


def _git_show(rev, path):
    """The bytes of `path` at `rev`, or None when the revision lacks it."""
    r = subprocess.run(["git", "-C", ROOT, "show", f"{rev}:{path}"], capture_output=True)
    return r.stdout if r.returncode == 0 else None


def _git_ls(rev, path):
    r = subprocess.run(["git", "-C", ROOT, "ls-tree", "--name-only", f"{rev}:{path}"],
                       capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else []


def part_list(mod_rs):
    """The parts mod.rs includes, in order, as paths from the repository root."""
    names = INCLUDE.findall(mod_rs)
    seen = set()
    for n in names:
        if n in seen:
            raise EngineSourceError(f"{MOD_RS} includes {n} twice")
        seen.add(n)
    return [f"{ENGINE_DIR}/{n}" for n in names]


def _check_listed(listed, present):
    stray = sorted(f"{PARTS_DIR}/{n}" for n in present
                   if n.endswith(".js") and f"{PARTS_DIR}/{n}" not in listed)
    if stray:
        raise EngineSourceError(f"not in {MOD_RS}'s include list (their code would be left out): "
                                + ", ".join(stray))


def parts(rev=None):
    """[(path, text)] of the engine's parts in join order, from the working
    tree or from git revision `rev`. A revision from before the split gives
    one pair: its src/engine/engine.js."""
    if rev is None:
        with open(os.path.join(ROOT, MOD_RS), encoding="utf-8") as f:
            listed = part_list(f.read())
        if not listed:
            raise EngineSourceError(f"{MOD_RS} includes no parts/*.js")
        missing = [p for p in listed if not os.path.isfile(os.path.join(ROOT, p))]
        if missing:
            raise EngineSourceError("parts in the include list but not on disk: " + ", ".join(missing))
        _check_listed(listed, os.listdir(os.path.join(ROOT, PARTS_DIR)))
        out = []
        for p in listed:
            with open(os.path.join(ROOT, p), "rb") as f:
                out.append((p, f.read().decode("utf-8")))
        return out

    mod_rs = _git_show(rev, MOD_RS)
    if mod_rs is None:
        raise EngineSourceError(f"{rev}: no {MOD_RS} (is it a revision of this repository?)")
    listed = part_list(mod_rs.decode("utf-8"))
    if not listed:
        old = _git_show(rev, OLD_FILE)
        if old is None:
            raise EngineSourceError(f"{rev}: {MOD_RS} includes no parts/*.js and there is no {OLD_FILE}")
        return [(OLD_FILE, old.decode("utf-8"))]
    out = []
    for p in listed:
        text = _git_show(rev, p)
        if text is None:
            raise EngineSourceError(f"{rev}: {p} is in the include list but not in the revision")
        out.append((p, text.decode("utf-8")))
    _check_listed(listed, _git_ls(rev, PARTS_DIR))
    return out


def source(rev=None):
    """The engine's source text: its parts joined in mod.rs's order."""
    return "".join(text for _, text in parts(rev))


def load(spec):
    """The engine `spec` names: "current" (the working tree's parts joined),
    "@REV" (the parts at git revision REV joined), else a file's path."""
    try:
        if spec == "current":
            return source()
        if spec.startswith("@"):
            return source(spec[1:])
    except EngineSourceError as e:
        sys.exit(f"engine_source: {e}")
    with open(spec, encoding="utf-8") as f:
        return f.read()


def main():
    import argparse
    ap = argparse.ArgumentParser(description="Print the in-page engine's source (its parts joined).")
    ap.add_argument("--rev", help="a git revision (default: the working tree)")
    a = ap.parse_args()
    try:
        text = source(a.rev)
    except EngineSourceError as e:
        sys.exit(f"engine_source: {e}")
    sys.stdout.buffer.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()
