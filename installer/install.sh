#!/usr/bin/env sh
# One-command install: build tabwire, then register its native-messaging host.
# Safe to re-run. Usage: ./installer/install.sh
set -eu
ROOT=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)

echo "tabwire: building and installing the binary (cargo install)…" >&2
cargo install --path "$ROOT" --locked --quiet

BIN=$(command -v tabwire || echo "$HOME/.cargo/bin/tabwire")
registered=0
for browser in chromium chrome; do
  case "$browser" in
    chromium) dir="$HOME/.config/chromium" ;;
    chrome) dir="$HOME/.config/google-chrome" ;;
  esac
  if [ -d "$dir" ] || command -v "$browser" >/dev/null 2>&1 || [ "$browser" = chromium ]; then
    "$BIN" install --browser "$browser"
    registered=1
  fi
done
[ "$registered" = 1 ] || echo "tabwire: no browser found to register with" >&2

cat >&2 <<MSG

Next steps:
  1. Open chrome://extensions, switch on "Developer mode", click "Load unpacked"
     and choose: $ROOT/extension
  2. Add tabwire to your MCP client, e.g. Claude Code:
       claude mcp add tabwire -- $BIN serve
MSG
