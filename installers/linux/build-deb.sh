#!/usr/bin/env bash
# Builds Vidya's Linux package (.deb) with the Tauri bundler: the window (vidya-desktop), the
# command line (vidya, as /usr/bin/vidya) and every bundled file (native libraries, models,
# interface, sample chapter, licences) in /usr/lib/Vidya/. Nothing is downloaded but the pinned
# Tauri CLI from the npm registry (installers/package-lock.json).
#
# Usage: installers/linux/build-deb.sh [--release] [--no-build]
#   --release   optimised binaries (≈20 min on a 2-core laptop); default: the debug profile
#   --no-build  bundle the binaries already in the target folder (cargo xtask test builds them)
# Needs: `cargo xtask setup --models` done (resources/ and ui/fonts/), Node/npm, Python 3.
# Prints the .deb's path last.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
PROFILE=debug
BUILD=1
for a in "$@"; do
  case "$a" in
    --release) PROFILE=release ;;
    --no-build) BUILD=0 ;;
    *) echo "build-deb.sh: unknown option $a (use --release, --no-build)" >&2; exit 2 ;;
  esac
done
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
case "$TARGET_DIR" in /*) ;; *) TARGET_DIR=$ROOT/$TARGET_DIR ;; esac
step() { printf '\n== %s\n' "$*"; }

if [ "$BUILD" = 1 ]; then
  step "cargo build ($PROFILE) vidya-cli vidya-desktop"
  if [ "$PROFILE" = release ]; then
    cargo build --release -p vidya-cli -p vidya-desktop
  else
    cargo build -p vidya-cli -p vidya-desktop
  fi
fi
for b in vidya vidya-desktop; do
  [ -x "$TARGET_DIR/$PROFILE/$b" ] || { echo "build-deb.sh: $TARGET_DIR/$PROFILE/$b is missing: build it first (or drop --no-build)" >&2; exit 1; }
done

step "the command line as the bundle's external binary"
TRIPLE=$(rustc -vV | sed -n 's/^host: //p')
mkdir -p src-tauri/binaries
cp "$TARGET_DIR/$PROFILE/vidya" "src-tauri/binaries/vidya-$TRIPLE"

step "licences (installers/stage_licenses.py -> target/linux-licenses)"
python3 installers/stage_licenses.py --target linux-x86_64 --out "$ROOT/target/linux-licenses" | tail -1

step "Tauri CLI (npm ci in installers/)"
npm ci --prefix installers --no-audit --no-fund --silent

step "tauri bundle --bundles deb"
FLAGS=()
[ "$PROFILE" = debug ] && FLAGS+=(--debug)
CARGO_TARGET_DIR=$TARGET_DIR installers/node_modules/.bin/tauri bundle "${FLAGS[@]}" --bundles deb \
  --config installers/linux/tauri.linux.conf.json
DEB=$(ls -t "$TARGET_DIR/$PROFILE/bundle/deb/"*.deb | awk 'NR == 1')
printf '\n.deb: %s (%s bytes)\n' "$DEB" "$(stat -c %s "$DEB")"
echo "$DEB"
