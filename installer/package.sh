#!/usr/bin/env bash
# Packs one platform's release of tabwire into OUTDIR:
#
#   tabwire-<triple>.tar.gz           tabwire, tabwire-host, extension/, README.md,
#   (.zip on Windows)                 LICENSE-MIT, LICENSE-APACHE, in tabwire-<triple>/
#   tabwire-<triple>.tar.gz.sha256    its SHA-256, as `sha256sum` prints it
#   tabwire-<version>.tgz             the npm launcher package `tabwire`
#   tabwire-<os>-<cpu>-<version>.tgz  this platform's npm package `@tabwire/<os>-<cpu>`
#   tabwire-extension-<version>-store.zip
#                                     the extension for a web store: no "key" in
#                                     its manifest (the store assigns the ID)
#
# Archive names carry no version, so `releases/latest/download/<name>` always
# names the newest one (install.sh relies on it); the binaries know theirs.
#
# Usage: installer/package.sh [--target TRIPLE] [--bin-dir DIR] OUTDIR
#   --target TRIPLE  package that Rust target (default: this machine's), built
#                    with `cargo build --release --locked --target TRIPLE`
#   --bin-dir DIR    take tabwire and tabwire-host from DIR instead of building
#                    (release.yml builds with cargo-zigbuild first; the tests
#                    pass the debug binaries `cargo test` has just built)
#
# Needs: cargo (unless --bin-dir), tar (zip or 7z for Windows), node and npm,
# sha256sum or shasum. The release workflow (.github/workflows/release.yml)
# runs this once per target.
set -euo pipefail

ROOT=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
TARGET=""
BIN_DIR=""
OUT=""

die() { echo "package.sh: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
  case $1 in
    --target) [ $# -ge 2 ] || die "--target needs a triple"; TARGET=$2; shift 2 ;;
    --target=*) TARGET=${1#--target=}; shift ;;
    --bin-dir) [ $# -ge 2 ] || die "--bin-dir needs a directory"; BIN_DIR=$2; shift 2 ;;
    --bin-dir=*) BIN_DIR=${1#--bin-dir=}; shift ;;
    -h|--help) sed -n '2,27p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1 (see --help)" ;;
    *) [ -z "$OUT" ] || die "one OUTDIR only"; OUT=$1; shift ;;
  esac
done
[ -n "$OUT" ] || die "usage: installer/package.sh [--target TRIPLE] [--bin-dir DIR] OUTDIR"

# This machine's triple, among the ones tabwire ships.
host_triple() {
  local os arch
  os=$(uname -s); arch=$(uname -m)
  case "$os/$arch" in
    Linux/x86_64) echo x86_64-unknown-linux-gnu ;;
    Linux/aarch64|Linux/arm64) echo aarch64-unknown-linux-gnu ;;
    Darwin/x86_64) echo x86_64-apple-darwin ;;
    Darwin/arm64) echo aarch64-apple-darwin ;;
    MINGW*/x86_64|MSYS*/x86_64|CYGWIN*/x86_64) echo x86_64-pc-windows-msvc ;;
    *) die "no release target for $os $arch; pass --target" ;;
  esac
}
TRIPLE=${TARGET:-$(host_triple)}

# npm's names for the platform (process.platform, process.arch).
case $TRIPLE in
  x86_64-unknown-linux-gnu*) NPM_OS=linux; NPM_CPU=x64 ;;
  aarch64-unknown-linux-gnu*) NPM_OS=linux; NPM_CPU=arm64 ;;
  x86_64-apple-darwin) NPM_OS=darwin; NPM_CPU=x64 ;;
  aarch64-apple-darwin) NPM_OS=darwin; NPM_CPU=arm64 ;;
  x86_64-pc-windows-msvc) NPM_OS=win32; NPM_CPU=x64 ;;
  *) die "unsupported target $TRIPLE" ;;
esac
# cargo-zigbuild's glibc suffix (x86_64-unknown-linux-gnu.2.17) is not part
# of the directory or the name.
TRIPLE=${TRIPLE%%.*}
EXE=""
[ "$NPM_OS" = win32 ] && EXE=".exe"

VERSION=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n 1)
[ -n "$VERSION" ] || die "no version in Cargo.toml"

command -v node >/dev/null || die "node is needed (npm pack, and the store build's manifest)"
command -v npm >/dev/null || die "npm is needed (npm pack)"

# The launcher names each platform package at exactly this version.
LAUNCHER="$ROOT/installer/npm/tabwire"
node -e '
  const [file, version] = process.argv.slice(1);
  const p = require(file);
  const bad = [];
  if (p.version !== version) bad.push(`version ${p.version}`);
  for (const [name, v] of Object.entries(p.optionalDependencies || {}))
    if (v !== version) bad.push(`${name}@${v}`);
  if (bad.length) {
    console.error(`package.sh: ${file} must say ${version} (Cargo.toml) everywhere, not: ${bad.join(", ")}`);
    process.exit(1);
  }
' "$LAUNCHER/package.json" "$VERSION"

if [ -z "$BIN_DIR" ]; then
  command -v cargo >/dev/null || die "cargo is needed to build (or pass --bin-dir)"
  TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
  if [ -n "$TARGET" ]; then
    (cd "$ROOT" && cargo build --release --locked --target "$TRIPLE")
    BIN_DIR="$TARGET_DIR/$TRIPLE/release"
  else
    (cd "$ROOT" && cargo build --release --locked)
    BIN_DIR="$TARGET_DIR/release"
  fi
fi
for b in tabwire tabwire-host; do
  [ -f "$BIN_DIR/$b$EXE" ] || die "no $b$EXE in $BIN_DIR"
done

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1
  else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

# zip DEST.zip the contents of DIR (entries relative to DIR's parent when
# NAME is given, else to DIR itself).
zip_dir() {
  local dest=$1 dir=$2 what=${3:-.}
  rm -f "$dest"
  if command -v zip >/dev/null; then
    (cd "$dir" && zip -q -r -X "$dest" "$what")
  elif command -v 7z >/dev/null; then
    (cd "$dir" && 7z a -tzip -bd "$dest" "$what" >/dev/null)
  else
    die "zip or 7z is needed"
  fi
}

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

# 1. The archive.
NAME="tabwire-$TRIPLE"
mkdir "$STAGE/$NAME"
cp "$BIN_DIR/tabwire$EXE" "$BIN_DIR/tabwire-host$EXE" "$STAGE/$NAME/"
chmod 755 "$STAGE/$NAME/tabwire$EXE" "$STAGE/$NAME/tabwire-host$EXE"
# The Windows archive also carries the relay that lets a tabwire inside
# WSL use Windows Chrome (README: "Windows Chrome from WSL").
if [ "$NPM_OS" = win32 ] && [ -f "$BIN_DIR/tabwire-wsl-relay.exe" ]; then
  cp "$BIN_DIR/tabwire-wsl-relay.exe" "$STAGE/$NAME/"
fi
cp -R "$ROOT/extension" "$STAGE/$NAME/extension"
cp "$ROOT/README.md" "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$STAGE/$NAME/"
if [ "$NPM_OS" = win32 ]; then
  ARCHIVE="$NAME.zip"
  zip_dir "$OUT/$ARCHIVE" "$STAGE" "$NAME"
else
  ARCHIVE="$NAME.tar.gz"
  rm -f "$OUT/$ARCHIVE"
  tar -C "$STAGE" -czf "$OUT/$ARCHIVE" "$NAME"
fi
echo "$(sha256 "$OUT/$ARCHIVE")  $ARCHIVE" > "$OUT/$ARCHIVE.sha256"

# 2. The extension for a store: the same files, no "key".
mkdir "$STAGE/store"
cp -R "$ROOT/extension/." "$STAGE/store/"
node -e '
  const fs = require("fs");
  const file = process.argv[1];
  const m = JSON.parse(fs.readFileSync(file, "utf8"));
  delete m.key;
  fs.writeFileSync(file, JSON.stringify(m, null, 2) + "\n");
' "$STAGE/store/manifest.json"
zip_dir "$OUT/tabwire-extension-$VERSION-store.zip" "$STAGE/store"

# 3. This platform's npm package: the two binaries, nothing to run at install.
PLAT="$STAGE/npm-platform"
mkdir -p "$PLAT/bin"
cp "$BIN_DIR/tabwire$EXE" "$BIN_DIR/tabwire-host$EXE" "$PLAT/bin/"
chmod 755 "$PLAT/bin/tabwire$EXE" "$PLAT/bin/tabwire-host$EXE"
cp "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$PLAT/"
LIBC=""
[ "$NPM_OS" = linux ] && LIBC='
  "libc": ["glibc"],'
cat > "$PLAT/package.json" <<EOF
{
  "name": "@tabwire/$NPM_OS-$NPM_CPU",
  "version": "$VERSION",
  "description": "tabwire's native binaries for $NPM_OS $NPM_CPU ($TRIPLE); installed by the tabwire package",
  "license": "MIT OR Apache-2.0",
  "os": ["$NPM_OS"],
  "cpu": ["$NPM_CPU"],$LIBC
  "files": ["bin", "LICENSE-MIT", "LICENSE-APACHE"],
  "preferUnplugged": true
}
EOF
cat > "$PLAT/README.md" <<EOF
# @tabwire/$NPM_OS-$NPM_CPU

The \`tabwire\` and \`tabwire-host\` programs for $NPM_OS $NPM_CPU ($TRIPLE).
Install the \`tabwire\` package instead (\`npx tabwire\`): it depends on this
one, and npm fetches it only on matching machines.
EOF

# 4. The launcher package, the same for every platform.
LAUNCH="$STAGE/npm-launcher"
mkdir -p "$LAUNCH"
cp -R "$LAUNCHER/." "$LAUNCH/"
cp "$ROOT/LICENSE-MIT" "$ROOT/LICENSE-APACHE" "$LAUNCH/"

for dir in "$PLAT" "$LAUNCH"; do
  (cd "$dir" && npm pack --silent --pack-destination "$OUT" >/dev/null)
done

size() { wc -c < "$1" | tr -d ' '; }
echo "package.sh: tabwire $VERSION for $TRIPLE in $OUT:"
for f in "$ARCHIVE" "$ARCHIVE.sha256" "tabwire-extension-$VERSION-store.zip" \
  "tabwire-$NPM_OS-$NPM_CPU-$VERSION.tgz" "tabwire-$VERSION.tgz"; do
  [ -f "$OUT/$f" ] || die "$f was not made"
  printf '  %-44s %10s bytes\n' "$f" "$(size "$OUT/$f")"
done
