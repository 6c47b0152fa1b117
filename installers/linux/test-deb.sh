#!/usr/bin/env bash
# Installs Vidya's .deb into a scratch root (dpkg-deb -x: no root rights, nothing touches the
# system) and checks the installed copy works on its own, with no network:
#   1. every bundled file is where the programs look for it, and vidya-desktop's libraries resolve;
#   2. `vidya doctor` passes and finds each native library and model under the scratch root
#      (an installed copy never falls back to a source checkout);
#   3. the installed sample chapter is read and one question gets an extractive, cited answer;
#   4. `vidya setup --lang hi` runs the wizard's checks and test question from installed files;
#   5. a damaged and a missing bundled model are each reported by name, with the fix.
# The network is cut with `unshare -rn` (a user and network namespace) where the kernel allows
# it; otherwise Ollama's address points at a closed port and the script says so.
#
# Usage: installers/linux/test-deb.sh PATH/TO/vidya_*.deb
set -euo pipefail
DEB=${1:?usage: test-deb.sh PATH/TO/vidya.deb}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/vidya-deb-test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
R=$WORK/root
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }
ok() { echo "  ok: $*"; }
step() { printf '\n== %s\n' "$*"; }

step "install $(basename "$DEB") into a scratch root"
dpkg-deb -x "$DEB" "$R"
dpkg-deb -f "$DEB" Package Version Depends | sed 's/^/  /'
LIB=$R/usr/lib/Vidya
for f in usr/bin/vidya usr/bin/vidya-desktop usr/share/applications/Vidya.desktop \
  usr/lib/Vidya/native/libpdfium.so usr/lib/Vidya/native/libonnxruntime.so.1.32.0 \
  usr/lib/Vidya/models/multilingual-e5-small/model_int8.onnx \
  usr/lib/Vidya/models/multilingual-e5-small/model_int8.onnx.data \
  usr/lib/Vidya/models/multilingual-e5-small/tokenizer.json \
  usr/lib/Vidya/models/llama-3.2-tokenizer/tokenizer.json \
  usr/lib/Vidya/models/wordnet/lexicon.tsv usr/lib/Vidya/models/wordnet/LICENSE-WordNet.txt \
  usr/lib/Vidya/ui/index.html usr/lib/Vidya/ui/fonts/NotoSansDevanagari-Regular.ttf \
  usr/lib/Vidya/sample/ch08.pdf usr/lib/Vidya/sample/ATTRIBUTION.md \
  usr/lib/Vidya/licenses/THIRD-PARTY-NOTICES.md; do
  [ -e "$R/$f" ] || fail "/$f is not in the package"
done
ok "programs, native libraries, models, interface, sample chapter and licences are in the package"
SRC_UI=$(cd "$(dirname "$0")/../../ui" && pwd)
diff -rq "$SRC_UI" "$LIB/ui" >/dev/null || { diff -rq "$SRC_UI" "$LIB/ui" | head; fail "the packaged interface differs from ui/ (a stale build?)"; }
ok "the packaged interface is this checkout's ui/"
missing=$(ldd "$R/usr/bin/vidya-desktop" | grep 'not found' || true)
[ -z "$missing" ] || fail "vidya-desktop needs libraries this system lacks: $missing"
ok "vidya-desktop's shared libraries all resolve"

export HOME=$WORK/home XDG_DATA_HOME=$WORK/home/.local/share OLLAMA_HOST=http://127.0.0.1:9
unset VIDYA_NATIVE_DIR VIDYA_MODELS_DIR VIDYA_UI_DIR VIDYA_LIBRARY VIDYA_MEDIA_DIRS || true
mkdir -p "$HOME"
if unshare -rn true 2>/dev/null; then
  NET=(unshare -rn)
  echo "  (no network: each command runs in its own network namespace, unshare -rn)"
else
  NET=()
  echo "  (unshare -rn is not allowed here: the network stays up, Ollama's address is a closed port)"
fi
vidya() { "${NET[@]}" "$R/usr/bin/vidya" "$@"; }
BOOKS=$WORK/library

step "vidya doctor (installed copy)"
vidya --library "$BOOKS" doctor || fail "vidya doctor reported problems"
vidya --library "$BOOKS" doctor --json > "$WORK/doctor.json" || fail "vidya doctor --json"
python3 - "$WORK/doctor.json" "$LIB" <<'PY' || fail "doctor found files outside the installed copy"
import json, os, sys
d = json.load(open(sys.argv[1])); lib = os.path.realpath(sys.argv[2])
assert d["resources"]["installed"], "the installed copy does not know it is installed"
paths = [n["path"] for n in d["native"]] + [f["path"] for f in d["resources"]["files"]]
bad = [p for p in paths if not p or not os.path.realpath(p).startswith(lib)]
assert not bad, f"not under {lib}: {bad}"
assert all(f["status"] == "ok" for f in d["resources"]["files"]), d["resources"]
print(f"  ok: {len(paths)} native libraries and bundled files, all under {lib}")
PY

step "one extractive question from the installed sample chapter"
vidya --library "$BOOKS" ingest "$LIB/sample/ch08.pdf" || fail "ingest of the installed sample chapter"
vidya --library "$BOOKS" ask --json "What happens in the light-dependent reactions of photosynthesis?" > "$WORK/answer.json" \
  || fail "vidya ask"
python3 - "$WORK/answer.json" <<'PY' || fail "the answer is not an extractive, cited answer"
import json, sys
a = json.load(open(sys.argv[1]))
assert a["status"] == "extractive", a["status"]
assert a["citations"], "no citations"
c = a["citations"][0]
assert c["page_label"] and c["file"] == "ch08.pdf", c
print(f"  ok: extractive answer with {len(a['citations'])} citations, first: {c['book']}, printed page {c['page_label']}")
PY

step "vidya setup --lang hi (the wizard from installed files)"
vidya --library "$BOOKS" setup --lang hi > "$WORK/setup.txt" || { cat "$WORK/setup.txt"; fail "vidya setup"; }
sed 's/^/  | /' "$WORK/setup.txt" | awk 'NR <= 40'
grep -q "विद्या\|Vidya" "$WORK/setup.txt" && grep -q "ch08.pdf\|Biology" "$WORK/setup.txt" \
  || fail "the Hindi wizard output lacks its test answer"
ok "the wizard ran its checks and the test question"

step "a damaged and a missing bundled file are named, with the fix"
printf 'x' >> "$LIB/models/llama-3.2-tokenizer/tokenizer.json"
rm "$LIB/models/multilingual-e5-small/model_int8.onnx"
if vidya --library "$BOOKS" doctor > "$WORK/broken.txt" 2>&1; then
  cat "$WORK/broken.txt"; fail "doctor passed with a damaged and a missing file"
fi
grep -q "tokenizer.json (llama-3.2-tokenizer, counts words for the model) is damaged" "$WORK/broken.txt" \
  || { cat "$WORK/broken.txt"; fail "the damaged tokenizer is not named"; }
grep -q "model_int8.onnx (multilingual-e5-small, finds passages by meaning) is missing" "$WORK/broken.txt" \
  || { cat "$WORK/broken.txt"; fail "the missing model is not named"; }
grep -q "Fix: reinstall Vidya from its installer" "$WORK/broken.txt" || fail "no fix is given"
grep "damaged\|missing" "$WORK/broken.txt" | sed 's/^/  | /'
ok "both named, with the fix"
# Without its whole native/ folder, the installed copy still never reaches for files elsewhere.
rm -r "$LIB/native"
if vidya --library "$BOOKS" doctor > "$WORK/broken2.txt" 2>&1; then
  cat "$WORK/broken2.txt"; fail "doctor passed without native/"
fi
grep -q "libpdfium.so is missing" "$WORK/broken2.txt" && grep -q "reinstall Vidya" "$WORK/broken2.txt" \
  || { cat "$WORK/broken2.txt"; fail "a missing native/ folder is not reported with the fix"; }
if grep -q "$(cd "$(dirname "$0")/../.." && pwd)/resources" "$WORK/broken2.txt"; then
  cat "$WORK/broken2.txt"; fail "the installed copy looked in the source checkout"
fi
ok "without native/: libpdfium.so reported missing, reinstall advised, the checkout not used"

printf '\ntest-deb: all checks passed (%s, %s bytes)\n' "$(basename "$DEB")" "$(stat -c %s "$DEB")"
