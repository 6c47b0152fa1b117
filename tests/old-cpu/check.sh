#!/usr/bin/env bash
# The old-laptop check: runs the Linux CLI as a 2009-class CPU (Intel Nehalem: SSE4.2, no AVX,
# no AVX2) under Debian's qemu-user, so that no instruction the school laptops lack can slip in
# unnoticed (ours, or a native library's: pdfium, ONNX Runtime, usearch) unless it is chosen at
# run time after asking the CPU. Run by `cargo xtask test` with the debug CLI it built:
#
#   tests/old-cpu/check.sh target/debug/vidya PYTHON
#
# PYTHON: a Python with pypdfium2 (xtask's environment), to cut the small book out of the
# sample chapter.
#
#   1. The canary: a program built with -mavx2 must die of SIGILL under `-cpu Nehalem`;
#      otherwise the emulator does not hold the CPU model and the check below would prove
#      nothing.
#   2. A three-page book (printed pages 153-155 of the sample chapter, Biology 2e ch. 8) is
#      ingested with vectors (pdfium reads it, ONNX Runtime embeds it), and
#   3. asked "What happens in the light-dependent reactions of photosynthesis?" with the dense
#      retrieval, the HNSW search and the sentence pruner: printed page 154 must be cited.
#
# Emulation is slow (tens of times): only the absence of an illegal instruction and the right
# citation are checked, never the time. CPU model: VIDYA_OLD_CPU (default Nehalem; SandyBridge
# gives AVX without AVX2, 2011-2012's Core i3/i5).
#
# Exit status 0 when every check passed; 1 with "old-cpu: FAIL ..." otherwise.
set -euo pipefail

VIDYA=$(realpath "${1:?usage: check.sh VIDYA_BINARY PYTHON}")
PYTHON=${2:?usage: check.sh VIDYA_BINARY PYTHON}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CPU=${VIDYA_OLD_CPU:-Nehalem}
WORK=$ROOT/target/old-cpu
rm -rf "$WORK"
mkdir -p "$WORK"

fail() { echo "old-cpu: FAIL: $*" >&2; exit 1; }
ok() { echo "  ok: $*"; }
# qemu-user prints a warning per CPU feature TCG lacks (pcid, x2apic, ...): not ours.
emulate() { qemu-x86_64 -cpu "$CPU" "$@" 2> >(grep -v "TCG doesn't support requested feature" >&2); }

command -v qemu-x86_64 >/dev/null || fail "qemu-x86_64 is missing (apt-get install qemu-user)"
[ -x "$VIDYA" ] || fail "$VIDYA is not a program"

echo "== the canary: an AVX2 program under qemu-x86_64 -cpu $CPU"
cc -O2 -mavx2 -o "$WORK/avx2-canary" "$ROOT/tests/old-cpu/avx2-canary.c" || fail "could not build the canary"
RC=0
emulate "$WORK/avx2-canary" >/dev/null 2>&1 || RC=$?
# 132 = 128 + SIGILL from the shell; qemu-user re-raises the guest's signal.
[ "$RC" = 132 ] || fail "the AVX2 canary was not stopped (exit $RC): qemu-x86_64 -cpu $CPU does not hold the CPU model, so this check proves nothing"
ok "an AVX2 instruction dies of SIGILL as a $CPU"

echo "== a three-page book from the sample chapter"
"$PYTHON" - "$ROOT/tests/fixtures/biology2e/ch08.pdf" "$WORK/light-reactions.pdf" <<'PY' || fail "could not cut the small book"
import sys
import pypdfium2 as pdfium

src = pdfium.PdfDocument(sys.argv[1])
# PDF pages whose printed page number (in their text) is 153, 154 and 155.
pages = [i for i in range(len(src)) if any(line.strip() == str(n)
         for n in (153, 154, 155)
         for line in src[i].get_textpage().get_text_range().splitlines()[-3:] + src[i].get_textpage().get_text_range().splitlines()[:3])]
if len(pages) != 3:
    sys.exit(f"expected the pages printed 153-155, found PDF pages {pages}")
out = pdfium.PdfDocument.new()
out.import_pages(src, pages)
out.save(sys.argv[2])
print(f"  ok: PDF pages {[p + 1 for p in pages]} of ch08.pdf")
PY

LIB=$WORK/library
echo "== vidya ingest, with vectors, as a $CPU"
START=$(date +%s)
emulate "$VIDYA" --library "$LIB" ingest "$WORK/light-reactions.pdf" >"$WORK/ingest.txt" 2>&1 \
  || { cat "$WORK/ingest.txt"; fail "ingest died as a $CPU (an instruction this CPU lacks?)"; }
grep -qi 'illegal instruction' "$WORK/ingest.txt" && { cat "$WORK/ingest.txt"; fail "illegal instruction during ingest"; }
grep -qi 'without vectors\|no vectors\|dense retrieval is off' "$WORK/ingest.txt" \
  && { cat "$WORK/ingest.txt"; fail "the book was stored without vectors (the embedder did not run)"; }
ok "ingested with vectors in $(( $(date +%s) - START )) s (emulated)"

echo "== vidya ask --no-llm, as a $CPU"
START=$(date +%s)
Q="What happens in the light-dependent reactions of photosynthesis?"
emulate "$VIDYA" --library "$LIB" ask --no-llm --json "$Q" >"$WORK/ask.json" 2>"$WORK/ask.err" \
  || { cat "$WORK/ask.err"; fail "ask died as a $CPU"; }
"$PYTHON" - "$WORK/ask.json" <<'PY' || fail "the answer is not the one expected"
import json, sys
a = json.load(open(sys.argv[1]))
labels = [c["page_label"] for c in a["citations"]]
stages = a.get("retrieval", {}).get("stages", a.get("retrieval", {}))
if "154" not in labels:
    sys.exit(f"printed page 154 is not cited (cited: {labels})")
text = json.dumps(a.get("retrieval", {})).lower()
if "dense" not in text:
    sys.exit("the retrieval trace shows no dense stage: the embedder did not run")
print(f"  ok: cited printed pages {labels}")
PY
ok "asked in $(( $(date +%s) - START )) s (emulated)"
echo "old-cpu: all checks passed as a $CPU"
