#!/bin/sh
# Lints tabwire's JavaScript with the ESLint pinned here (eslint.config.mjs
# says what each file is and which rules apply): the extension, the in-page
# engine, bench/'s in-page scripts and the npm launcher. Run from anywhere;
# exits non-zero on any finding. Install first (once):
#   npm ci --prefix tools/jslint --no-audit --no-fund
set -eu
here=$(cd "$(dirname "$0")" && pwd)
cd "$here/../.."
if [ ! -x "$here/node_modules/.bin/eslint" ]; then
  echo "jslint: ESLint is not installed; run: npm ci --prefix tools/jslint --no-audit --no-fund" >&2
  exit 2
fi
exec "$here/node_modules/.bin/eslint" --config "$here/eslint.config.mjs" --max-warnings 0 \
  extension/ src/engine/ 'bench/*.js' installer/npm/tabwire/bin/
