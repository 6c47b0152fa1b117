#!/usr/bin/env bash
# Builds Vidya's OCR engine for Windows on Debian: Tesseract 5.3.0 with Leptonica 1.82.0, both
# from the source tarballs Debian's archive carries (bookworm's packages), cross-compiled with
# the mingw-w64 posix compilers `cargo xtask windows` uses, linked statically (tesseract.exe
# imports only KERNEL32.dll and msvcrt.dll), with the traineddata of the six languages and the
# script detector from Debian's tesseract-ocr-* packages (Apache-2.0).
#
# Usage: installers/windows/build-tesseract.sh OUT_DIR
#   OUT_DIR gets tesseract.exe, tessdata/{eng,hin,mar,tel,tam,kan,osd}.traineddata,
#   tessdata/configs/tsv and licenses/. Nothing is rebuilt when OUT_DIR/.stamp matches.
#
# Choices, and why:
# - No image libraries (PNG, JPEG, TIFF, ...): Vidya hands each page over as a PGM on stdin,
#   which Leptonica reads without them. The debug-image fonts (stored as TIFF) are switched
#   off with Tesseract's own TESSERACT_DISABLE_DEBUG_FONTS, so nothing complains on stderr.
# - No training tools, libcurl, libarchive or OpenMP (Vidya runs one Tesseract per core).
# - No -march/-mavx flags: Tesseract builds its AVX/AVX2/AVX-512/FMA/SSE4.1 kernels in files
#   of their own and picks one at run time from CPUID (src/arch/simddetect.cpp), so the same
#   program runs on a 2009 CPU. Its CMakeLists.txt would also build src/arch/dotproduct.cpp
#   with -march=native, i.e. for the *build* machine's CPU (AVX-512 on the project's machines):
#   COMPILER_SUPPORTS_MARCH_NATIVE=OFF stops that.
# - An application manifest with activeCodePage UTF-8 (Windows 10 1903 and later): Tesseract
#   reads TESSDATA_PREFIX and opens its data through the narrow (ANSI) file APIs, so without it
#   an install folder under a user name in Devanagari or Tamil letters finds no languages.
# Measured on the project's 2-core machine: about 2.5 minutes from scratch; tesseract.exe
# 5.8 MB stripped; ocr/ 33 MB in all.
set -euo pipefail

OUT=$(realpath -m "${1:?usage: build-tesseract.sh OUT_DIR}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORK=${TESSERACT_BUILD_DIR:-$ROOT/target/tesseract-windows}
DEBIAN=http://deb.debian.org/debian/pool/main
TESS=tesseract_5.3.0.orig.tar.gz
TESS_SHA=7e70870f8341e5ea228af2836ce79a36eefa11b01b56177b4a8997f330c014b8
LEPT=leptonlib_1.82.0.orig.tar.gz
LEPT_SHA=155302ee914668c27b6fe3ca9ff2da63b245f6d62f3061c8f27563774b8ae2d6
LANGS="eng hin mar tel tam kan osd"
TESSDATA=/usr/share/tesseract-ocr/5/tessdata
STAMP="tesseract 5.3.0 leptonica 1.82.0 static mingw posix; $LANGS; build-tesseract.sh v2"

fail() { echo "build-tesseract.sh: $*" >&2; exit 1; }
if [ -f "$OUT/.stamp" ] && [ "$(cat "$OUT/.stamp")" = "$STAMP" ] && [ -f "$OUT/tesseract.exe" ]; then
  echo "build-tesseract.sh: $OUT is up to date"
  exit 0
fi
for t in cmake ninja curl x86_64-w64-mingw32-g++-posix x86_64-w64-mingw32-strip; do
  command -v "$t" >/dev/null || fail "$t is missing: cargo xtask setup installs it (apt-get install cmake ninja-build curl g++-mingw-w64-x86-64-posix)"
done
for l in $LANGS; do
  [ -f "$TESSDATA/$l.traineddata" ] || fail "$TESSDATA/$l.traineddata is missing: apt-get install tesseract-ocr-$l"
done

mkdir -p "$WORK"
cd "$WORK"
fetch() { # file sha256 url
  if [ ! -f "$1" ] || ! echo "$2  $1" | sha256sum -c --quiet 2>/dev/null; then
    curl -sSfL -o "$1.part" "$3" || fail "could not download $3"
    mv "$1.part" "$1"
  fi
  echo "$2  $1" | sha256sum -c --quiet || fail "$1 does not have the pinned sha256 $2"
}
fetch "$LEPT" "$LEPT_SHA" "$DEBIAN/l/leptonlib/$LEPT"
fetch "$TESS" "$TESS_SHA" "$DEBIAN/t/tesseract/$TESS"
rm -rf src build prefix caselib utf8.*
mkdir -p src
tar -xzf "$LEPT" -C src
tar -xzf "$TESS" -C src

cat > toolchain.cmake <<EOF
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32 $WORK/prefix)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
EOF
# pkg-config must not find the build machine's own libraries (it found libtiff's headers).
export PKG_CONFIG_LIBDIR=$WORK/prefix/lib/pkgconfig PKG_CONFIG_PATH=
# Tesseract links "Ws2_32"; mingw's file is libws2_32.a and Linux names are case-sensitive.
mkdir -p caselib
ln -sf /usr/x86_64-w64-mingw32/lib/libws2_32.a caselib/libWs2_32.a
cat > utf8.manifest <<'XML'
<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<assembly manifestVersion="1.0" xmlns="urn:schemas-microsoft-com:asm.v1">
  <assemblyIdentity type="win32" name="tesseract" version="5.3.0.0"/>
  <application xmlns="urn:schemas-microsoft-com:asm.v3">
    <windowsSettings>
      <activeCodePage xmlns="http://schemas.microsoft.com/SMI/2019/WindowsSettings">UTF-8</activeCodePage>
    </windowsSettings>
  </application>
</assembly>
XML
printf '#include <winuser.h>\n1 RT_MANIFEST "utf8.manifest"\n' > utf8.rc
x86_64-w64-mingw32-windres utf8.rc -O coff -o utf8-manifest.o || fail "windres could not build the manifest"
COMMON=(-G Ninja -DCMAKE_TOOLCHAIN_FILE="$WORK/toolchain.cmake" -DCMAKE_BUILD_TYPE=Release
  -DBUILD_SHARED_LIBS=OFF -DSW_BUILD=OFF -DCMAKE_INSTALL_PREFIX="$WORK/prefix")

echo "== Leptonica 1.82.0 (static, no image libraries)"
cmake -S src/leptonica-1.82.0 -B build/leptonica "${COMMON[@]}" \
  -DCMAKE_DISABLE_FIND_PACKAGE_GIF=ON -DCMAKE_DISABLE_FIND_PACKAGE_JPEG=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_PNG=ON -DCMAKE_DISABLE_FIND_PACKAGE_TIFF=ON \
  -DCMAKE_DISABLE_FIND_PACKAGE_ZLIB=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON >build-leptonica.log \
  || { tail -30 build-leptonica.log; fail "configuring Leptonica failed"; }
ninja -C build/leptonica install >>build-leptonica.log || { tail -30 build-leptonica.log; fail "building Leptonica failed"; }

echo "== Tesseract 5.3.0 (static program)"
cmake -S src/tesseract-5.3.0 -B build/tesseract "${COMMON[@]}" \
  -DBUILD_TRAINING_TOOLS=OFF -DGRAPHICS_DISABLED=ON -DDISABLE_ARCHIVE=ON -DDISABLE_CURL=ON \
  -DOPENMP_BUILD=OFF -DBUILD_TESTS=OFF -DCOMPILER_SUPPORTS_MARCH_NATIVE=OFF \
  -DCMAKE_CXX_FLAGS=-DTESSERACT_DISABLE_DEBUG_FONTS -DCMAKE_DISABLE_FIND_PACKAGE_TIFF=ON \
  -DLeptonica_DIR="$WORK/prefix/lib/cmake/leptonica" \
  "-DCMAKE_EXE_LINKER_FLAGS=-static -L$WORK/caselib $WORK/utf8-manifest.o" >build-tesseract.log \
  || { tail -30 build-tesseract.log; fail "configuring Tesseract failed"; }
! grep -q -- '-march=native' build/tesseract/build.ninja || fail "Tesseract would be built for this machine's CPU (-march=native)"
ninja -C build/tesseract >>build-tesseract.log || { tail -30 build-tesseract.log; fail "building Tesseract failed"; }

rm -rf "$OUT"
mkdir -p "$OUT/tessdata/configs" "$OUT/licenses"
x86_64-w64-mingw32-strip -o "$OUT/tesseract.exe" build/tesseract/bin/tesseract.exe
for l in $LANGS; do cp "$TESSDATA/$l.traineddata" "$OUT/tessdata/"; done
cp src/tesseract-5.3.0/tessdata/configs/tsv "$OUT/tessdata/configs/tsv"
cp src/tesseract-5.3.0/LICENSE "$OUT/licenses/tesseract-LICENSE.txt"
cp src/leptonica-1.82.0/leptonica-license.txt "$OUT/licenses/leptonica-license.txt"
cp /usr/share/doc/tesseract-ocr-hin/copyright "$OUT/licenses/tessdata-copyright.txt"
echo "$STAMP" > "$OUT/.stamp"
echo "build-tesseract.sh: $OUT: tesseract.exe $(stat -c %s "$OUT/tesseract.exe") bytes, $(du -sm "$OUT" | cut -f1) MB in all"
