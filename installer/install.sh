#!/usr/bin/env sh
# One-command install for Linux and macOS: put the tabwire binaries in
# place, then run `tabwire install`, which registers the native host with
# every Chromium-family browser found, places the extension and prints the
# next steps. Safe to re-run.
#
# Two ways to get the binaries:
# - prebuilt: download this machine's release archive, check its SHA-256 and
#   copy tabwire and tabwire-host into ~/.local/bin. The default when cargo
#   is not installed or the script runs outside a checkout; --prebuilt asks
#   for it. Nothing is installed unless the checksum matches.
# - from source (in a checkout, with Rust's cargo): `cargo install`.
#
# Usage: ./installer/install.sh [options] [tabwire install options…]
#   --prebuilt         install the release archive even where cargo is installed
#   --archive PATH     install this release archive (a .tar.gz made by
#                      installer/package.sh), checked against PATH.sha256
#   --base-url URL     download archives from URL (default $TABWIRE_RELEASE_URL,
#                      else the latest GitHub release); file:// works too
#   --version V        download release V (e.g. 0.2.0) instead of the latest
#   --dir DIR          where prebuilt binaries go (default $TABWIRE_INSTALL_DIR,
#                      else ~/.local/bin)
#   --bin PATH         register this tabwire binary; install nothing
#   TABWIRE_INSTALL_SKIP_BUILD=1  register the tabwire already in PATH (or ~/.cargo/bin)
# Other options go to `tabwire install`, e.g. --client claude-desktop, --dry-run.
set -eu
REPO_URL="https://github.com/tabwire/tabwire"
ROOT=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
CARGO_BIN="${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}/bin"

die() { echo "tabwire: $*" >&2; exit 1; }

# Take this script's options out of the arguments; pass the rest on.
BIN=""
PREBUILT=""
ARCHIVE=""
BASE_URL=""
VERSION=""
DIR="${TABWIRE_INSTALL_DIR:-$HOME/.local/bin}"
n=$#
while [ "$n" -gt 0 ]; do
  arg=$1; shift; n=$((n - 1))
  case $arg in
    --bin|--archive|--base-url|--version|--dir)
      [ "$n" -gt 0 ] || { echo "tabwire: $arg needs a value" >&2; exit 2; }
      val=$1; shift; n=$((n - 1))
      case $arg in
        --bin) BIN=$val ;;
        --archive) ARCHIVE=$val ;;
        --base-url) BASE_URL=$val ;;
        --version) VERSION=$val ;;
        --dir) DIR=$val ;;
      esac ;;
    --bin=*) BIN=${arg#--bin=} ;;
    --archive=*) ARCHIVE=${arg#--archive=} ;;
    --base-url=*) BASE_URL=${arg#--base-url=} ;;
    --version=*) VERSION=${arg#--version=} ;;
    --dir=*) DIR=${arg#--dir=} ;;
    --prebuilt) PREBUILT=1 ;;
    *) set -- "$@" "$arg" ;;
  esac
done
# Naming an archive, a download URL or a version asks for the prebuilt path.
[ -z "$ARCHIVE" ] || PREBUILT=1
[ -z "$BASE_URL" ] || [ -n "$BIN" ] || PREBUILT=1
[ -z "$VERSION" ] || [ -n "$BIN" ] || PREBUILT=1
# The variable only says where downloads come from.
BASE_URL=${BASE_URL:-${TABWIRE_RELEASE_URL:-}}

# This machine's release target.
triple() {
  case "$(uname -s)/$(uname -m)" in
    Linux/x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux/aarch64|Linux/arm64) echo aarch64-unknown-linux-gnu ;;
    Darwin/x86_64) echo x86_64-apple-darwin ;;
    Darwin/arm64) echo aarch64-apple-darwin ;;
    *) return 1 ;;
  esac
}

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d' ' -f1
  else die "neither sha256sum nor shasum is installed: cannot check the download"; fi
}

download() {
  if command -v curl >/dev/null 2>&1; then
    curl -fsSL --retry 2 -o "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget -q -O "$2" "$1"
  else
    die "neither curl nor wget is installed: download $1 yourself and pass --archive PATH"
  fi
}

# Verifies and unpacks a release archive, then copies its binaries into
# $DIR; sets BIN. Nothing is written outside a temporary directory until the
# checksum has matched and the binary has run.
install_prebuilt() {
  TMP=$(mktemp -d)
  trap 'rm -rf "$TMP"' EXIT
  trap 'rm -rf "$TMP"; exit 130' INT TERM
  if [ -n "$ARCHIVE" ]; then
    [ -f "$ARCHIVE" ] || die "no archive at $ARCHIVE"
    SUMS="$ARCHIVE.sha256"
    [ -f "$SUMS" ] || die "no checksum file $SUMS beside the archive: tabwire installs only an archive whose SHA-256 it can check. Nothing was installed."
    WHAT=$ARCHIVE
  else
    T=$(triple) || die "no prebuilt tabwire for $(uname -s) $(uname -m); build it from source (install Rust from https://rustup.rs, then run this script in a checkout)"
    if [ -z "$BASE_URL" ]; then
      if [ -n "$VERSION" ]; then
        BASE_URL="$REPO_URL/releases/download/v${VERSION#v}"
      else
        BASE_URL="$REPO_URL/releases/latest/download"
      fi
    fi
    NAME="tabwire-$T.tar.gz"
    WHAT="$BASE_URL/$NAME"
    echo "tabwire: downloading $WHAT" >&2
    download "$WHAT" "$TMP/$NAME" || die "could not download $WHAT. Nothing was installed."
    download "$WHAT.sha256" "$TMP/$NAME.sha256" || die "could not download $WHAT.sha256. Nothing was installed."
    ARCHIVE="$TMP/$NAME"
    SUMS="$TMP/$NAME.sha256"
  fi
  WANT=$(cut -d' ' -f1 < "$SUMS" | tr 'A-F' 'a-f')
  case $WANT in
    *[!0-9a-f]*|"") die "the checksum file $SUMS holds no SHA-256. Nothing was installed." ;;
  esac
  [ ${#WANT} -eq 64 ] || die "the checksum file $SUMS holds no SHA-256. Nothing was installed."
  GOT=$(sha256_of "$ARCHIVE")
  if [ "$GOT" != "$WANT" ]; then
    die "checksum mismatch for $WHAT:
  expected $WANT
  got      $GOT
The archive is damaged or is not the one released. Nothing was installed."
  fi
  echo "tabwire: SHA-256 checked ($GOT)" >&2
  mkdir "$TMP/unpacked"
  tar -xzf "$ARCHIVE" -C "$TMP/unpacked" || die "could not unpack $WHAT. Nothing was installed."
  SRC=""
  for d in "$TMP"/unpacked/*; do
    if [ -f "$d/tabwire" ]; then SRC=$d; break; fi
  done
  [ -n "$SRC" ] && [ -f "$SRC/tabwire-host" ] || die "$WHAT holds no tabwire and tabwire-host. Nothing was installed."
  chmod 755 "$SRC/tabwire" "$SRC/tabwire-host"
  "$SRC/tabwire" --version >/dev/null 2>&1 || die "the tabwire in $WHAT does not run on this machine. Nothing was installed."
  mkdir -p "$DIR"
  # Copy beside the target, then rename: a running tabwire is not disturbed
  # and no half-copied binary is ever in place.
  for b in tabwire tabwire-host; do
    cp "$SRC/$b" "$DIR/.$b.new.$$"
    chmod 755 "$DIR/.$b.new.$$"
    mv -f "$DIR/.$b.new.$$" "$DIR/$b"
  done
  rm -rf "$TMP"
  trap - EXIT INT TERM
  echo "tabwire: installed $("$DIR/tabwire" --version) in $DIR" >&2
  BIN="$DIR/tabwire"
  export TABWIRE_LAUNCHER=archive
}

if [ -z "$BIN" ]; then
  if [ -z "$PREBUILT" ] && [ "${TABWIRE_INSTALL_SKIP_BUILD:-}" = 1 ]; then
    BIN=$(command -v tabwire || echo "$CARGO_BIN/tabwire")
  elif [ -z "$PREBUILT" ] && [ -f "$ROOT/Cargo.toml" ] && command -v cargo >/dev/null 2>&1; then
    echo "tabwire: building and installing the binary with cargo install (a few minutes the first time; --prebuilt downloads a release instead)…" >&2
    cargo install --path "$ROOT" --locked
    BIN="$CARGO_BIN/tabwire"
  else
    if [ -z "$PREBUILT" ]; then
      echo "tabwire: cargo (Rust) is not installed: installing the prebuilt release. (To build from source instead, install Rust from https://rustup.rs and run this script again in a checkout.)" >&2
    fi
    install_prebuilt
  fi
fi

if [ ! -x "$BIN" ]; then
  die "no tabwire binary at '$BIN'. Build it with 'cargo install --path $ROOT --locked', pass --bin PATH, or use --prebuilt."
fi

"$BIN" install "$@"

case ":$PATH:" in
  *":$(dirname -- "$BIN"):"*) ;;
  *) echo "note: $(dirname -- "$BIN") is not in your PATH; the configurations above use the full path, so they work anyway." >&2 ;;
esac
