#!/usr/bin/env bash
# Installs Vidya's Windows test installer under Wine and checks the installed programs, as a
# teacher's laptop would run them. Run by `cargo xtask windows` (and so by `cargo xtask test`):
#
#   installers/windows/wine-smoke.sh target/windows-installer/Vidya_<version>_x64-test-setup.exe
#
# In a fresh Wine prefix (target/windows-wine/, removed first), with no network where the kernel
# allows a network namespace (`unshare -rn`; loopback only):
#   1. silent install (/S) from a folder whose name has spaces and Devanagari letters, per user
#      into %LOCALAPPDATA%\Vidya: the files, the Start-menu entry and the Apps entry (HKCU);
#   2. `vidya.exe doctor`: the bundled pdfium.dll, onnxruntime.dll and ocr\tesseract.exe (with
#      its languages) found and intact, every
#      bundled file intact, paths shown without the `\\?\` prefix;
#   3. `vidya.exe ingest` of the sample chapter copied into a folder with spaces and Hindi
#      letters, into the default per-user library (%APPDATA%\Vidya\data\library), with vectors
#      (ONNX Runtime and the embedder run);
#   4. `vidya.exe ask --no-llm --trace`: dense retrieval and the pruner ran, printed page 154
#      cited; `vidya.exe ask` with Ollama unreachable: the quotes and the reason;
#   4b. a scanned Hindi PDF (shared/data/tricky_pdfs; skipped with a note where absent) read by
#      the bundled Tesseract (ocr\tesseract.exe) and a Hindi question answered from it, citing
#      the scanned page;
#   5. Hindi on the console: `vidya.exe setup --lang hi` prints UTF-8 Devanagari (Rust writes
#      UTF-8 to pipes and files, UTF-16 to a real console: never a code page's `?`);
#   6. `vidya.exe serve`: the interface and /health requested from Linux over loopback,
#      while a second process asks the same library (SQLite's locking between processes),
#      then Ctrl-C (SIGINT, which Wine delivers as CTRL_C_EVENT) stops it cleanly;
#   7. a library on a drive Windows reports as a network share (journal mode DELETE: SQLite's
#      WAL needs memory shared between processes, which network file systems do not give) and
#      one on a removable drive (WAL, checkpointed when the process ends);
#   8. silent uninstall: the install folder, the Start-menu entry and the Apps entry removed,
#      the library in %APPDATA%\Vidya kept.
#
# Wine 8 (Debian 12) lacks bcryptprimitives.dll's ProcessPrng, which Rust's standard library
# uses and Windows 10/11 have: a stand-in (installers/windows/wine/) is built into the test
# prefix's system32, never into the installer. WebView2 does not run under Wine, so the window
# (vidya-desktop.exe) is installed and checked for its imports only (by `cargo xtask windows`).
#
# Exit status 0 when every check passed; 1 with "wine-smoke: FAIL ..." otherwise.
set -euo pipefail

INSTALLER=$(realpath "${1:?usage: wine-smoke.sh INSTALLER}")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/installers/windows

if [ -z "${VIDYA_SMOKE_NETNS:-}" ] && unshare -rn true 2>/dev/null; then
  echo "wine-smoke: no network: running in a network namespace of its own (unshare -rn; loopback only)"
  exec env VIDYA_SMOKE_NETNS=1 unshare -rn bash -c 'ip link set lo up && exec bash "$0" "$@"' "$0" "$@"
fi
[ -n "${VIDYA_SMOKE_NETNS:-}" ] || echo "wine-smoke: unshare -rn is not allowed here: the network stays up (Ollama's address is a closed port)"

WORK=$ROOT/target/windows-wine
rm -rf "$WORK"
mkdir -p "$WORK"
export WINEPREFIX=$WORK/prefix WINEARCH=win64 WINEDEBUG=-all
# No Mono or Gecko prompts; the VC++ runtime DLLs shipped beside the programs, not Wine's own.
export WINEDLLOVERRIDES="mscoree,mshtml=;msvcp140,msvcp140_1,vcruntime140,vcruntime140_1=n,b"
export OLLAMA_HOST=http://127.0.0.1:9   # a closed port: Ollama is not running

# No Windows process outlives the test (a server left running, a stuck program).
trap 'wineserver -k >/dev/null 2>&1 || true' EXIT
fail() { echo "wine-smoke: FAIL: $*" >&2; exit 1; }
ok() { echo "  ok: $*"; }
step() { printf '\n== %s\n' "$*"; }
# Runs a Windows program; its stdout and stderr go to $WORK/out.txt and $WORK/err.txt, its
# exit status to $WORK/rc.txt (for show).
win() {
  local rc=0
  wine "$@" >"$WORK/out.txt" 2>"$WORK/err.txt" || rc=$?
  echo "$rc" >"$WORK/rc.txt"
  return "$rc"
}
# The first N lines (40) of the last program's output and its exit status. It never fails:
# it runs inside `|| { show; fail ...; }`, where set -e would end the script before fail said
# why (grep -v exits 1 when the program printed nothing). awk reads to the end, so the
# pipeline never dies of SIGPIPE under pipefail as it would with head.
show() {
  sed 's/^/    /' "$WORK/out.txt" "$WORK/err.txt" | { grep -v 'Failed to create DXGI factory' || true; } | awk -v n="${1:-40}" 'NR <= n' || true
  [ -s "$WORK/out.txt" ] || [ -s "$WORK/err.txt" ] || echo "    (the program printed nothing; exit status $(cat "$WORK/rc.txt" 2>/dev/null || echo unknown))"
}

step "AMX: Wine's processes may run what ONNX Runtime picks"
# On a CPU with AMX, Linux traps a process's first AMX instruction until the process asks for
# it (arch_prctl ARCH_REQ_XCOMP_PERM); the Windows onnxruntime.dll uses AMX as Windows allows,
# and Wine never asks, so the embedder died of SIGILL. amx-permit.so, preloaded into every
# process of this test, asks (installers/windows/wine/amx-permit.c); the DLL is the one shipped.
cc -O2 -shared -fPIC -o "$WORK/amx-permit.so" "$HERE/wine/amx-permit.c" || fail "could not build amx-permit.so (a C compiler is needed)"
cc -O2 -o "$WORK/amx-probe" "$HERE/wine/amx-probe.c" || fail "could not build amx-probe"
PLAIN=$("$WORK/amx-probe" || true)
PERMITTED=$(LD_PRELOAD="$WORK/amx-permit.so" "$WORK/amx-probe" || true)
case "$PLAIN/$PERMITTED" in
  no-amx/no-amx) ok "this CPU has no AMX: amx-permit.so is loaded and changes nothing" ;;
  sigill/ran) ok "this CPU has AMX: an AMX instruction dies of SIGILL in a process that did not ask, and runs with amx-permit.so" ;;
  ran/ran) ok "this CPU has AMX and this kernel does not trap its first use" ;;
  *) fail "amx-probe: without amx-permit.so '$PLAIN', with it '$PERMITTED' (expected sigill/ran, ran/ran or no-amx/no-amx)" ;;
esac
AMX=$([ "$PLAIN" = no-amx ] && echo no || echo yes)
export LD_PRELOAD="$WORK/amx-permit.so${LD_PRELOAD:+:$LD_PRELOAD}" VIDYA_AMX_PERMIT_LOG="$WORK/amx-permit.log"

step "a fresh Wine prefix"
command -v wine >/dev/null || fail "wine is not installed (apt-get install wine wine64)"
wine wineboot -i >/dev/null 2>&1 || fail "wineboot failed"
wineserver -w
# A new prefix may report an older Windows; Vidya's installer refuses anything before 10.
wine winecfg -v win10 >/dev/null 2>&1 || fail "winecfg -v win10 failed"
wineserver -w
x86_64-w64-mingw32-gcc-posix -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  "$HERE/wine/bcryptprimitives.c" "$HERE/wine/bcryptprimitives.def" -ladvapi32 \
  || fail "could not build the bcryptprimitives.dll stand-in"
WUSER=$(ls "$WINEPREFIX/drive_c/users" | grep -vx Public | awk 'NR == 1')
HOME_W=$WINEPREFIX/drive_c/users/$WUSER
LOCAL=$HOME_W/AppData/Local/Vidya
ROAMING=$HOME_W/AppData/Roaming/Vidya
ok "$(wine --version), user $WUSER"

step "1. silent install from a folder with spaces and Devanagari letters"
USB="$WORK/USB स्टिक/Vidya setup"
mkdir -p "$USB"
cp "$INSTALLER" "$USB/Vidya-setup.exe"
SIZE=$(stat -c %s "$INSTALLER")
(cd "$USB" && wine ./Vidya-setup.exe /S) || fail "the silent install failed"
wineserver -w
for f in vidya.exe vidya-desktop.exe WebView2Loader.dll uninstall.exe installer-source.txt \
  native/pdfium.dll native/onnxruntime.dll msvcp140.dll msvcp140_1.dll vcruntime140.dll vcruntime140_1.dll \
  models/multilingual-e5-small/model_int8.onnx models/multilingual-e5-small/model_int8.onnx.data \
  models/multilingual-e5-small/tokenizer.json models/llama-3.2-tokenizer/tokenizer.json \
  models/wordnet/lexicon.tsv models/wordnet/LICENSE-WordNet.txt \
  ui/index.html sample/ch08.pdf licenses/THIRD-PARTY-NOTICES.md; do
  [ -f "$LOCAL/$f" ] || fail "%LOCALAPPDATA%\\Vidya\\$f was not installed"
done
ok "installed to %LOCALAPPDATA%\\Vidya ($(du -sm "$LOCAL" | cut -f1) MB from a $((SIZE / 1024 / 1024)) MiB installer)"
printf '%s\r\n' "$(wine winepath -w "$USB" 2>/dev/null | tr -d '\r')" >"$WORK/source.txt"
cmp -s "$LOCAL/installer-source.txt" "$WORK/source.txt" || fail "installer-source.txt is not the installer's folder as one UTF-8 line"
ok "installer-source.txt names the installer's folder (UTF-8): $(tr -d '\r' <"$LOCAL/installer-source.txt")"
ls "$HOME_W/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Vidya.lnk" >/dev/null 2>&1 \
  || fail "no Start-menu entry"
ok "Start-menu entry"
wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Vidya' /v UninstallString >"$WORK/reg.txt" 2>&1 \
  || fail "no entry in Settings > Apps (HKCU\\...\\Uninstall\\Vidya)"
ok "Settings > Apps entry: $(grep -o 'C:.*uninstall.exe' "$WORK/reg.txt" | head -1)"
VIDYA="$LOCAL/vidya.exe"

step "2. vidya.exe doctor"
win "$VIDYA" doctor || { show; fail "doctor failed"; }
show 13
grep -q 'pdfium: *ok' "$WORK/out.txt" || fail "doctor did not find pdfium.dll"
grep -q 'onnxruntime: *ok' "$WORK/out.txt" || fail "doctor did not find onnxruntime.dll"
grep -q 'ocr: *ok tesseract 5.*hin.*osd.*ocr\\tesseract.exe' "$WORK/out.txt" || fail "doctor did not find ocr\\tesseract.exe with its languages"
N=$(grep -o '[0-9]* of [0-9]* bundled files present and intact' "$WORK/out.txt") || fail "doctor printed no file check"
[ "${N%% of*}" = "$(echo "$N" | sed 's/.* of \([0-9]*\) .*/\1/')" ] || fail "doctor: only $N"
! grep -qF '\\?\' "$WORK/out.txt" || fail "doctor shows paths with the \\\\?\\ prefix"
grep -qF 'C:\users\' "$WORK/out.txt" || fail "doctor does not show the per-user library folder"
ok "libraries found, $N, no \\\\?\\ paths, library under %APPDATA%"

step "3. ingest a book from a folder with spaces and Hindi letters, with vectors"
BOOKS="$HOME_W/Documents/मेरी किताबें"
mkdir -p "$BOOKS"
cp "$ROOT/tests/fixtures/biology2e/ch08.pdf" "$BOOKS/ch08 photosynthesis.pdf"
BOOK_W=$(wine winepath -w "$BOOKS/ch08 photosynthesis.pdf" 2>/dev/null | tr -d '\r')
win "$VIDYA" ingest "$BOOK_W" || { show; fail "ingest failed"; }
show 4
grep -q 'Added ".*Photosynthesis"' "$WORK/out.txt" || fail "ingest did not add the book"
grep -qi 'no vectors\|without vectors\|dense retrieval is off' "$WORK/out.txt" "$WORK/err.txt" && fail "the book was stored without vectors"
[ -f "$ROAMING/data/library/library.sqlite3" ] || fail "the library is not in %APPDATA%\\Vidya\\data\\library"
ok "ingested with vectors into %APPDATA%\\Vidya\\data\\library"
# The preload ran inside the Windows program's own process (Wine's loader running vidya.exe),
# and, on a CPU with AMX, got the permission there.
grep -q 'wine64-preloader\|/wine64 ' "$WORK/amx-permit.log" || { cat "$WORK/amx-permit.log"; fail "amx-permit.so did not run in Wine's processes"; }
if [ "$AMX" = yes ]; then
  ! grep -v 'permit=ok' "$WORK/amx-permit.log" | grep -q . || { cat "$WORK/amx-permit.log"; fail "a Wine process was refused AMX"; }
  ok "AMX CPU: every Wine process ($(wc -l <"$WORK/amx-permit.log")) got the AMX permission, and ONNX Runtime embedded the book"
else
  ok "amx-permit.so ran in $(wc -l <"$WORK/amx-permit.log") Wine processes (no AMX here: permit=$(awk '{print $NF}' "$WORK/amx-permit.log" | sort -u | tr '\n' ' ' | sed 's/permit=//g'))"
fi

step "4. ask: dense retrieval, the pruner, the cited page; Ollama down"
win "$VIDYA" ask --no-llm --trace "What happens in the light-dependent reactions of photosynthesis?" || { show; fail "ask failed"; }
show 30
grep -q 'printed page 154' "$WORK/out.txt" || fail "the answer does not cite printed page 154"
grep -qi 'dense' "$WORK/out.txt" || fail "the trace shows no dense retrieval stage"
grep -qi 'dense retrieval is off\|dense retrieval and pruning are off' "$WORK/out.txt" "$WORK/err.txt" && fail "dense retrieval was off"
ok "cited printed page 154 with dense retrieval and pruning"
win "$VIDYA" ask "why do plants look green" || { show; fail "ask with Ollama down failed"; }
grep -q '\[1\]' "$WORK/out.txt" || { show; fail "no quoted answer while Ollama is down"; }
grep -qi 'ollama' "$WORK/out.txt" "$WORK/err.txt" || { show; fail "no word on Ollama being down"; }
ok "Ollama down: the textbook's quotes and the reason"

step "4b. a scanned Hindi page, read by the bundled OCR engine"
SCAN="${VIDYA_SHARED_DATA:-$ROOT/../shared/data}/tricky_pdfs/constructed/scanned_hi_xquad_p1-2.pdf"
if [ -f "$SCAN" ]; then
  [ -f "$LOCAL/ocr/tesseract.exe" ] && [ -f "$LOCAL/ocr/tessdata/hin.traineddata" ] || fail "the installer did not install ocr\\tesseract.exe and its Hindi data"
  cp "$SCAN" "$WORK/स्कैन.pdf"
  SCAN_W=$(wine winepath -w "$WORK/स्कैन.pdf" 2>/dev/null | tr -d '\r')
  win "$VIDYA" --library 'C:\scan-library' ingest --no-embed "$SCAN_W" || { show; fail "the scanned Hindi PDF did not ingest"; }
  grep -q '2 of 2 pages were read by OCR' "$WORK/out.txt" "$WORK/err.txt" || { show; fail "the scanned pages were not read by OCR"; }
  grep -q 'Hindi' "$WORK/out.txt" "$WORK/err.txt" || { show; fail "the OCR'd pages were not read as Hindi"; }
  win "$VIDYA" --library 'C:\scan-library' ask --no-llm 'पैंथर्स की डिफ़ेन्स ने कितने अंक दिए?' || { show; fail "ask on the scanned book failed"; }
  grep -q '308' "$WORK/out.txt" && grep -q 'printed page 1 ' "$WORK/out.txt" || { show; fail "the answer does not quote '308' from scanned page 1"; }
  ok "scanned Hindi PDF read by ocr\\tesseract.exe; '308 अंक' quoted from printed page 1"
else
  echo "  skipped: $SCAN not found (the shared evaluation data is not beside the checkout)"
fi

step "5. Hindi on the console"
win "$VIDYA" setup --lang hi || true
# Once on CI (stop 55) this run printed nothing at all, and the same build passed here: the
# first try's exit status and output are shown, and it runs once more before the checks.
if ! [ -s "$WORK/out.txt" ]; then
  echo "  setup --lang hi printed nothing to stdout on its first try; its stderr and exit status:"
  show
  win "$VIDYA" setup --lang hi || true
fi
iconv -f UTF-8 -t UTF-8 "$WORK/out.txt" >/dev/null || { show; fail "setup --lang hi printed bytes that are not UTF-8"; }
grep -qF 'पुस्तकालय' "$WORK/out.txt" || { show; fail "setup --lang hi printed no Devanagari"; }
! grep -q '??' "$WORK/out.txt" || { show; fail "setup --lang hi printed question marks (a code page conversion)"; }
ok "UTF-8 Devanagari: $(grep -m1 -F 'पुस्तकालय' "$WORK/out.txt" | sed 's/^ *//' | cut -c1-120)"

step "6. vidya.exe serve, requested from Linux, while another process asks the same library"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
wine "$VIDYA" serve --port "$PORT" >"$WORK/serve.txt" 2>&1 &
SERVE=$!
for _ in $(seq 1 120); do
  curl -fsS "http://127.0.0.1:$PORT/health" >"$WORK/health.json" 2>/dev/null && break
  sleep 0.5
done
[ -s "$WORK/health.json" ] || { cat "$WORK/serve.txt"; fail "vidya.exe serve did not answer on 127.0.0.1:$PORT"; }
# Responses go to files before grep -q reads them: grep stops at its first match, and curl
# writing into the closed pipe fails the pipeline (pipefail).
curl -fsS "http://127.0.0.1:$PORT/" >"$WORK/index.html" || fail "the interface is not served"
grep -qi '<html' "$WORK/index.html" || fail "the interface is not served"
ok "http://127.0.0.1:$PORT/ serves the interface; /health: $(head -c 120 "$WORK/health.json")"
win "$VIDYA" ask --no-llm "What is the Calvin cycle?" || { show; fail "a second process could not ask while serve had the library open"; }
grep -q '\[1\]' "$WORK/out.txt" || fail "the second process got no answer"
curl -fsS "http://127.0.0.1:$PORT/api/books" >"$WORK/books.json" || fail "/api/books did not answer"
grep -q 'Photosynthesis' "$WORK/books.json" || fail "/api/books does not list the book"
ok "a second process answered from the library the server has open"
# Ctrl-C: Wine turns SIGINT into the console's CTRL_C_EVENT, which the program's handler
# (SetConsoleCtrlHandler, through tokio) receives as on Windows.
kill -INT "$SERVE"
for _ in $(seq 1 60); do kill -0 "$SERVE" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$SERVE" 2>/dev/null; then
  kill -KILL "$SERVE" 2>/dev/null || true
  cat "$WORK/serve.txt"
  fail "vidya.exe serve did not stop on Ctrl-C within 30 s"
fi
SERVE_RC=0
wait "$SERVE" || SERVE_RC=$?
[ "$SERVE_RC" = 0 ] || { cat "$WORK/serve.txt"; fail "vidya.exe serve exited with $SERVE_RC on Ctrl-C"; }
grep -q 'stopped serving' "$WORK/serve.txt" || { cat "$WORK/serve.txt"; fail "vidya.exe serve did not say it stopped"; }
ok "Ctrl-C stopped vidya.exe serve cleanly (exit 0, 'stopped serving')"

step "7. libraries on a network share and on a removable drive"
mkdir -p "$WORK/share" "$WORK/usb"
ln -sfn "$WORK/share" "$WINEPREFIX/dosdevices/n:"
ln -sfn "$WORK/usb" "$WINEPREFIX/dosdevices/u:"
wine reg add 'HKLM\Software\Wine\Drives' /v 'n:' /d network /f >/dev/null 2>&1
wine reg add 'HKLM\Software\Wine\Drives' /v 'u:' /d floppy /f >/dev/null 2>&1
wineserver -k || true
SAMPLE_W=$(wine winepath -w "$LOCAL/sample/ch08.pdf" 2>/dev/null | tr -d '\r')
for d in n u; do
  win "$VIDYA" --library "$d:\\library" ingest --no-embed "$SAMPLE_W" || { show; fail "ingest into $d:\\library failed"; }
  win "$VIDYA" --library "$d:\\library" ask --no-llm "What is the Calvin cycle?" || { show; fail "ask from $d:\\library failed"; }
  grep -q '\[1\]' "$WORK/out.txt" || fail "no answer from $d:\\library"
done
[ ! -e "$WORK/share/library/library.sqlite3-wal" ] && [ ! -e "$WORK/share/library/library.sqlite3-shm" ] \
  || fail "the library on the network share was left in WAL mode ($(ls "$WORK/share/library"))"
python3 - "$WORK/share/library/library.sqlite3" "$WORK/usb/library/library.sqlite3" <<'PY' || fail "journal modes"
import sqlite3, sys
net, usb = (sqlite3.connect(p).execute("PRAGMA journal_mode").fetchone()[0] for p in sys.argv[1:])
assert net == "delete", f"network share: journal mode {net}, expected delete"
assert usb == "wal", f"removable drive: journal mode {usb}, expected wal"
print(f"  ok: network share: journal mode {net}; removable drive: {usb}")
PY
[ ! -s "$WORK/usb/library/library.sqlite3-wal" ] || fail "the library on the removable drive has an unsaved WAL after the process ended"
ok "the removable drive's library is whole in library.sqlite3 once the process ends"

step "8. silent uninstall keeps the library"
wine "$LOCAL/uninstall.exe" /S || fail "the silent uninstall failed"
wineserver -w
[ ! -e "$LOCAL" ] || fail "the uninstaller left $(ls -A "$LOCAL" | head -5 | tr '\n' ' ')"
[ ! -e "$HOME_W/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Vidya.lnk" ] || fail "the Start-menu entry is still there"
! wine reg query 'HKCU\Software\Microsoft\Windows\CurrentVersion\Uninstall\Vidya' >/dev/null 2>&1 || fail "the Settings > Apps entry is still there"
[ -f "$ROAMING/data/library/library.sqlite3" ] || fail "uninstalling deleted the library"
ok "install folder, Start-menu and Apps entries removed; %APPDATA%\\Vidya\\data\\library kept"

echo
echo "wine-smoke: all checks passed (installer $SIZE bytes)"
