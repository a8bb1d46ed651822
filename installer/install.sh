#!/usr/bin/env sh
# One-command install for Linux and macOS: build and install the tabwire
# binary (cargo install), then run `tabwire install`, which registers the
# native host with every Chromium-family browser found, places the
# extension and prints the next steps. Safe to re-run.
#
# Usage: ./installer/install.sh [--bin PATH] [tabwire install options…]
#   --bin PATH                    use this tabwire binary instead of building one
#   TABWIRE_INSTALL_SKIP_BUILD=1  use the tabwire already in PATH (or ~/.cargo/bin)
# Other options go to `tabwire install`, e.g. --client claude-desktop, --dry-run.
set -eu
ROOT=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
CARGO_BIN="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"

# Take --bin out of the arguments; pass the rest on.
BIN=""
n=$#
while [ "$n" -gt 0 ]; do
  arg=$1; shift; n=$((n - 1))
  case $arg in
    --bin)
      [ "$n" -gt 0 ] || { echo "tabwire: --bin needs a path" >&2; exit 2; }
      BIN=$1; shift; n=$((n - 1)) ;;
    --bin=*) BIN=${arg#--bin=} ;;
    *) set -- "$@" "$arg" ;;
  esac
done

if [ -z "$BIN" ]; then
  if [ "${TABWIRE_INSTALL_SKIP_BUILD:-}" = 1 ]; then
    BIN=$(command -v tabwire || echo "$CARGO_BIN/tabwire")
  else
    if ! command -v cargo >/dev/null 2>&1; then
      echo "tabwire: cargo (Rust) is not installed. Install it from https://rustup.rs, open a new terminal and run this script again." >&2
      exit 1
    fi
    echo "tabwire: building and installing the binary with cargo install (a few minutes the first time)…" >&2
    cargo install --path "$ROOT" --locked
    BIN="$CARGO_BIN/tabwire"
  fi
fi

if [ ! -x "$BIN" ]; then
  echo "tabwire: no tabwire binary at '$BIN'. Build it with 'cargo install --path $ROOT --locked' or pass --bin PATH." >&2
  exit 1
fi

"$BIN" install "$@"

case ":$PATH:" in
  *":$(dirname -- "$BIN"):"*) ;;
  *) echo "note: $(dirname -- "$BIN") is not in your PATH; the configurations above use the full path, so they work anyway." >&2 ;;
esac
