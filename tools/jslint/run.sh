#!/bin/sh
# Lints tabwire's JavaScript with the ESLint pinned here (eslint.config.mjs
# says what each file is and which rules apply): the extension, the in-page
# engine, bench/'s in-page scripts and the npm launcher. Run from anywhere;
# exits non-zero on any finding. Install first (once):
#   npm ci --prefix tools/jslint --no-audit --no-fund
#
# The engine is one script kept as parts (src/engine/parts/, joined in the
# order of src/engine/mod.rs's include list); a part alone does not parse.
# So its parts are joined, as the build joins them (bench/engine_source.py),
# into target/jslint/engine.js, that file is linted, and each finding is
# reported at its part's own line: src/engine/parts/NN-x.js:LINE:COL.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
eslint="$here/node_modules/.bin/eslint"
if [ ! -x "$eslint" ]; then
  echo "jslint: ESLint is not installed; run: npm ci --prefix tools/jslint --no-audit --no-fund" >&2
  exit 2
fi
mkdir -p target/jslint
python3 bench/engine_source.py > target/jslint/engine.js

status=0
"$eslint" --config "$here/eslint.config.mjs" --max-warnings 0 \
  extension/ 'bench/*.js' installer/npm/tabwire/bin/ || status=$?

engine_status=0
"$eslint" --config "$here/eslint.config.mjs" --max-warnings 0 --format json \
  target/jslint/engine.js > target/jslint/engine-lint.json || engine_status=$?
# Exit 1 is "findings" (listed below); anything else is ESLint failing.
if [ "$engine_status" -gt 1 ]; then
  echo "jslint: ESLint failed on target/jslint/engine.js (exit $engine_status)" >&2
  exit "$engine_status"
fi
python3 - target/jslint/engine-lint.json <<'EOF' || status=1
import json, sys
sys.path.insert(0, "bench")
import engine_source

# Where each part starts in the joined file (parts end with a newline).
spans, start = [], 1
for path, text in engine_source.parts():
    spans.append((start, path))
    start += text.count("\n")

def where(line):
    for first, path in reversed(spans):
        if line >= first:
            return path, line - first + 1
    return "target/jslint/engine.js", line

found = 0
for result in json.load(open(sys.argv[1])):
    for m in result["messages"]:
        found += 1
        path, line = where(m.get("line", 1))
        kind = "error" if m.get("severity", 2) == 2 else "warning"
        rule = m.get("ruleId") or ("parse" if m.get("fatal") else "-")
        print(f"{path}:{line}:{m.get('column', 0)}: {kind} {rule}: {m['message']}")
if found:
    print(f"jslint: {found} finding(s) in the engine (linted joined as target/jslint/engine.js)")
    sys.exit(1)
EOF
exit "$status"
