#!/usr/bin/env python3
"""Checks of the Windows installer definition that need no Windows (called by check.sh).

  check_config.py --root REPO --schema config.schema.json [--template installer.nsi]
                  [--english English.nsh] [--wrapper-out DIR]

* both config fragments merged into src-tauri/tauri.conf.json (JSON merge patch, as
  `tauri build --config` does) are valid against the config schema of @tauri-apps/cli;
* the values that matter (NSIS only, per-user, offline WebView2, languages, hooks);
* the resources come from installers/windows/payload.toml alone (the list the test installer
  built on Linux packs too; `cargo xtask windows --tauri-resources` writes it as the config
  fragment build.ps1 passes to Tauri), never from the config files; every source exists; the
  Windows-only ones (DLLs, the sidecar) are named as resources/manifest.toml and build.ps1 name
  them; the install layout is the one the app searches (native/, models/<dir>/, ui/, sample/);
* Tauri's NSIS template (from the CLI binary) still has what hooks.nsh relies on;
* Hindi.nsh translates every message of Tauri's English.nsh.
Prints one line per check; exits 1 on the first group with a failure.
"""

from __future__ import annotations

import argparse
import copy
import json
import re
import sys
import tomllib
from pathlib import Path

FAILED: list[str] = []


def ok(msg: str) -> None:
    print(f"  ok: {msg}")


def bad(msg: str) -> None:
    print(f"  FAIL: {msg}")
    FAILED.append(msg)


def merge_patch(target, patch):
    """RFC 7396 JSON merge patch (what Tauri applies for each --config)."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = copy.deepcopy(target) if isinstance(target, dict) else {}
    for k, v in patch.items():
        if v is None:
            result.pop(k, None)
        else:
            result[k] = merge_patch(result.get(k), v)
    return result


def get(d: dict, dotted: str):
    for part in dotted.split("."):
        if not isinstance(d, dict) or part not in d:
            return None
        d = d[part]
    return d


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", type=Path, required=True)
    ap.add_argument("--schema", type=Path)
    ap.add_argument("--template", type=Path)
    ap.add_argument("--english", type=Path)
    ap.add_argument("--nsis-languages", type=Path, default=Path("/usr/share/nsis/Contrib/Language files"))
    args = ap.parse_args()
    root = args.root.resolve()
    here = root / "installers" / "windows"
    tauri_dir = root / "src-tauri"

    base = json.loads((tauri_dir / "tauri.conf.json").read_text(encoding="utf-8"))
    full_frag = json.loads((here / "tauri.windows.conf.json").read_text(encoding="utf-8"))
    small_frag = json.loads((here / "tauri.windows.small.conf.json").read_text(encoding="utf-8"))
    payload = tomllib.loads((here / "payload.toml").read_text(encoding="utf-8"))
    # What `cargo xtask windows --tauri-resources` writes (sources relative to src-tauri/).
    resources_frag = {"bundle": {"resources": {f"../{e['src']}": e["dest"] for e in payload["entry"]}}}
    full = merge_patch(merge_patch(base, full_frag), resources_frag)
    small = merge_patch(full, small_frag)
    manifest = tomllib.loads((root / "resources" / "manifest.toml").read_text(encoding="utf-8"))
    build_ps1 = (here / "build.ps1").read_text(encoding="utf-8")

    # --- schema ---------------------------------------------------------------------------
    print("[config] merged configs against the Tauri config schema")
    if args.schema:
        try:
            import jsonschema
        except ImportError:
            bad("python module jsonschema is missing (pip install jsonschema)")
        else:
            schema = json.loads(args.schema.read_text(encoding="utf-8"))
            validator = jsonschema.Draft7Validator(schema)
            for name, cfg in [("tauri.conf.json + tauri.windows.conf.json", full),
                              ("... + tauri.windows.small.conf.json", small)]:
                errs = sorted(validator.iter_errors(cfg), key=lambda e: list(e.path))
                if errs:
                    for e in errs[:10]:
                        bad(f"{name}: {'/'.join(map(str, e.path))}: {e.message[:300]}")
                else:
                    ok(f"{name} is valid against {args.schema.name} ({schema.get('title', 'Config')})")
    else:
        print("  skipped: no schema given (--offline)")

    # --- values ---------------------------------------------------------------------------
    print("[config] installer settings")
    expect = {
        "bundle.targets": ["nsis"],
        "bundle.externalBin": ["binaries/vidya"],
        "bundle.windows.nsis.installMode": "currentUser",
        "bundle.windows.webviewInstallMode": {"type": "offlineInstaller", "silent": True},
        "bundle.windows.bundleVCRuntime": False,
        "bundle.windows.nsis.displayLanguageSelector": True,
    }
    for key, want in expect.items():
        got = get(full, key)
        (ok if got == want else bad)(f"{key} = {json.dumps(got)}" + ("" if got == want else f" (want {json.dumps(want)})"))
    got = get(small, "bundle.windows.webviewInstallMode")
    (ok if got and got.get("type") in ("downloadBootstrapper", "embedBootstrapper", "skip") else bad)(
        f"small variant: bundle.windows.webviewInstallMode = {json.dumps(got)} (no offline installer)")
    if {k for k in small_frag} != {"bundle"} or set(small_frag["bundle"]) != {"windows"} or set(small_frag["bundle"]["windows"]) != {"webviewInstallMode"}:
        bad("tauri.windows.small.conf.json must change only bundle.windows.webviewInstallMode")
    else:
        ok("small variant differs only in bundle.windows.webviewInstallMode")

    langs = get(full, "bundle.windows.nsis.languages") or []
    custom = get(full, "bundle.windows.nsis.customLanguageFiles") or {}
    tauri_translated = {"arabic", "bulgarian", "dutch", "english", "german", "italian", "japanese",
                        "korean", "portuguesebr", "russian", "tradchinese", "simpchinese", "french",
                        "spanish", "spanishinternational", "persian", "turkish", "swedish",
                        "portuguese", "ukrainian", "norwegian", "hebrew", "vietnamese"}
    for want in ("English", "Hindi"):
        (ok if want in langs else bad)(f"languages include {want}")
    for lang in langs:
        nlf = args.nsis_languages / f"{lang}.nlf"
        if args.nsis_languages.is_dir():
            (ok if nlf.is_file() else bad)(f"NSIS has a language file for {lang!r} ({nlf.name})")
        has_strings = lang.lower() in tauri_translated or lang in custom
        (ok if has_strings else bad)(
            f"Tauri's own messages exist for {lang!r} ("
            + ("customLanguageFiles" if lang in custom else "built into Tauri") + ")")
    for lang, rel in custom.items():
        p = (tauri_dir / rel).resolve()
        (ok if p.is_file() and lang in langs else bad)(f"customLanguageFiles.{lang} -> {p.relative_to(root)}")

    for key, want in [("bundle.windows.nsis.installerHooks", here / "hooks.nsh"),
                      ("bundle.windows.nsis.installerIcon", here / "icon.ico")]:
        rel = get(full, key)
        p = (tauri_dir / rel).resolve() if rel else None
        (ok if p == want and p.is_file() else bad)(f"{key} = {rel!r} resolves from src-tauri/ to {p}")
    icons = get(full, "bundle.icon") or []
    ico = [i for i in icons if i.endswith(".ico")]
    if ico:
        p = (tauri_dir / ico[0]).resolve()
        head = p.read_bytes()[:4] if p.is_file() else b""
        (ok if head == b"\x00\x00\x01\x00" else bad)(
            f"bundle.icon has {ico[0]} (tauri-build needs an .ico on Windows): ICO file {p.relative_to(root)}")
    else:
        bad("bundle.icon has no .ico: tauri-build fails on Windows without one")
    for i in icons:
        (ok if (tauri_dir / i).is_file() else bad)(f"bundle.icon {i} exists")

    # --- resources and layout -------------------------------------------------------------
    print("[resources] installers/windows/payload.toml: sources and install layout")
    for name, frag in [("src-tauri/tauri.conf.json", base), ("tauri.windows.conf.json", full_frag),
                       ("tauri.windows.small.conf.json", small_frag)]:
        (bad if get(frag, "bundle.resources") else ok)(
            f"{name} lists no resources of its own (payload.toml is the one list)")
    if "payload.toml" not in build_ps1 and "--tauri-resources" not in build_ps1:
        bad("build.ps1 does not pass the payload to Tauri (`cargo xtask windows --tauri-resources`)")
    else:
        ok("build.ps1 passes the payload to Tauri (cargo xtask windows --tauri-resources)")
    resources: dict[str, str] = get(full, "bundle.resources") or {}
    win_natives = [e for e in manifest["native"] if e["target"] == "windows-x86_64"]
    native_files = {e["file"]: e for e in win_natives}
    vc_group = {e["file"] for e in win_natives if e.get("group") == "vc-runtime"}
    vc_in_ps1 = set(re.findall(r"'((?:msvcp|vcruntime|concrt|vccorlib)[0-9a-z_]*\.dll)'", build_ps1, re.I))
    targets = {}
    for src, dst in resources.items():
        path = (tauri_dir / src).resolve()
        rel_src = path.relative_to(root) if path.is_relative_to(root) else path
        targets[dst] = src
        parts = rel_src.parts
        if parts[:3] == ("resources", "native", "windows-x86_64"):
            name = parts[3]
            e = native_files.get(name)
            if name == "ocr":
                # Built from source by installers/windows/build-tesseract.sh, not a registry file.
                (ok if dst == "ocr" else bad)(f"{src} -> {dst}: the OCR engine built by installers/windows/build-tesseract.sh goes to ocr/")
            elif e is None:
                bad(f"{src}: no windows-x86_64 [[native]] entry has file = {name!r}")
            elif name in vc_group and dst != name:
                bad(f"{src} -> {dst}: the VC++ runtime goes beside the programs, as {name}")
            elif name not in vc_group and dst != f"native/{name}":
                bad(f"{src} -> {dst}: native libraries go to native/{name}")
            elif path.is_file():
                import hashlib
                h = hashlib.sha256(path.read_bytes()).hexdigest()
                (ok if h == e["sha256"] else bad)(f"{src} -> {dst}: present here, sha256 {'matches' if h == e['sha256'] else 'DIFFERS from'} the manifest")
            else:
                ok(f"{src} -> {dst}: Windows-only; named as manifest entry {e['name']} {e['version']} (file {name!r}); placed by `cargo xtask setup --target windows-x86_64 --models`")
        elif parts[:2] == ("target", "windows-licenses"):
            good = dst == "licenses" and "stage_licenses.py" in build_ps1
            (ok if good else bad)(f"{src} -> {dst}: staged by installers/stage_licenses.py (build.ps1 runs it)")
        elif path.is_dir():
            n = sum(1 for p in path.rglob("*") if p.is_file())
            (ok if n else bad)(f"{src} -> {dst}/: folder with {n} files")
        elif path.is_file():
            ok(f"{src} -> {dst}: {path.stat().st_size:,} bytes")
        else:
            bad(f"{src} -> {dst}: source {path} does not exist (run `cargo xtask setup --models` first?)")
    for name, e in native_files.items():
        where = name if name in vc_group else f"native/{name}"
        (ok if where in targets else bad)(f"manifest windows-x86_64 entry {e['name']} ({name}) is bundled as {where}")
    vc_in_cfg = {d for d in targets if re.fullmatch(r"(msvcp|vcruntime|concrt|vccorlib)[0-9a-z_]*\.dll", d, re.I)}
    (ok if vc_in_cfg == vc_in_ps1 and vc_in_cfg else bad)(
        f"VC++ runtime DLLs at the install root: config {sorted(vc_in_cfg)}, build.ps1 {sorted(vc_in_ps1)}")
    for need in ("msvcp140.dll", "msvcp140_1.dll", "vcruntime140.dll", "vcruntime140_1.dll"):
        (ok if need in vc_in_cfg and need in vc_group else bad)(
            f"{need} shipped (onnxruntime.dll 1.32.0 imports it), pinned in the manifest's vc-runtime group")

    # Model files: what the manifest provisions under resources/models.
    for m in manifest.get("model", []):
        files = [o["file"] for o in m.get("outputs", [])] + [i["file"] for i in m.get("inputs", []) if i.get("place")]
        for f in files:
            dst = f"models/{m['dir']}/{f}"
            (ok if targets.get(dst) == f"../resources/models/{m['dir']}/{f}" else bad)(f"model {m['name']}: {dst}")
    for f in manifest.get("npm_file", []):
        if f.get("under", "resources/models") == "resources/models":
            dst = f"models/{f['dir']}/{f['file']}"
            (ok if targets.get(dst) == f"../resources/models/{f['dir']}/{f['file']}" else bad)(f"{f['name']}: {dst}")
    for dst, what in [("ui", "ui/ (for `vidya serve`)"), ("sample/ch08.pdf", "sample chapter"),
                      ("sample/ATTRIBUTION.md", "its attribution"), ("licenses", "licences")]:
        (ok if dst in targets else bad)(f"layout has {dst} ({what})")
    ui = (tauri_dir / targets.get("ui", "../ui")).resolve()
    (ok if (ui / "index.html").is_file() else bad)("ui/index.html exists")

    # Sidecar.
    triple = "x86_64-pc-windows-msvc"
    sidecar = f"binaries/vidya-{triple}.exe"
    (ok if sidecar in build_ps1.replace("\\", "/") else bad)(
        f"externalBin binaries/vidya: build.ps1 puts the CLI at src-tauri/{sidecar} (installed as vidya.exe next to vidya-desktop.exe)")

    # --- Tauri's NSIS template --------------------------------------------------------------
    print("[template] Tauri's installer.nsi (from the CLI) has what hooks.nsh relies on")
    if args.template:
        t = args.template.read_text(encoding="utf-8", errors="replace")
        inc = t.find('!include "{{installer_hooks}}"')
        checks = [
            (inc >= 0, "hooks are !included ({{installer_hooks}})"),
            (0 <= inc < t.find('!define PRODUCTNAME'), "the include comes before !define PRODUCTNAME (hooks.nsh uses no ${PRODUCTNAME} at top level)"),
            (0 <= inc < t.find("\nSection "), "the include comes before the first Section (hooks.nsh's hidden section runs first)"),
            (t.find("\nSection WebView2") < t.find("\nSection Install"), "Section WebView2 runs before Section Install"),
            (0 <= inc < t.find("!insertmacro MUI_PAGE_WELCOME"), "the include comes before the welcome page (MUI_WELCOMEPAGE_TEXT applies)"),
            ("MUI_CUSTOMFUNCTION_GUIINIT" not in t, "the template does not set MUI_CUSTOMFUNCTION_GUIINIT itself"),
            ("MUI_WELCOMEPAGE_TEXT" not in t, "the template does not set MUI_WELCOMEPAGE_TEXT itself"),
            ("Var UpdateMode" in t, "Var UpdateMode"),
            ("Var DeleteAppDataCheckboxState" in t, "Var DeleteAppDataCheckboxState"),
            ("${If} $DeleteAppDataCheckboxState = 1" in t, "the uninstaller tests $DeleteAppDataCheckboxState = 1"),
            ('StrCpy $INSTDIR "$LOCALAPPDATA\\${PRODUCTNAME}"' in t, "currentUser installs to $LOCALAPPDATA\\${PRODUCTNAME} (%LOCALAPPDATA%\\Vidya)"),
            ("RequestExecutionLevel user" in t, "currentUser installers request no elevation"),
            ("MUI_STARTMENU_WRITE_BEGIN" in t and "CreateOrUpdateStartMenuShortcut" in t, "the template creates the Start-menu shortcut"),
        ]
        for hook in ("NSIS_HOOK_PREINSTALL", "NSIS_HOOK_POSTINSTALL", "NSIS_HOOK_PREUNINSTALL", "NSIS_HOOK_POSTUNINSTALL"):
            checks.append((f"!insertmacro {hook}" in t, f"the template inserts {hook}"))
        for good, msg in checks:
            (ok if good else bad)(msg)
    else:
        print("  skipped: no template given (--offline)")

    # --- Hindi.nsh ------------------------------------------------------------------------
    print("[languages] Hindi.nsh against Tauri's English.nsh")
    hindi = (here / "Hindi.nsh").read_text(encoding="utf-8")
    hi_names = re.findall(r"^LangString (\w+) \$\{LANG_HINDI\} ", hindi, re.M)
    if len(hi_names) != len(set(hi_names)):
        bad("Hindi.nsh defines a LangString twice")
    if args.english:
        en = args.english.read_text(encoding="utf-8")
        en_names = re.findall(r"^LangString (\w+) \$\{LANG_ENGLISH\} ", en, re.M)
        missing = sorted(set(en_names) - set(hi_names))
        extra = sorted(set(hi_names) - set(en_names))
        (ok if en_names and not missing else bad)(f"Hindi.nsh has all {len(en_names)} messages of English.nsh" + (f"; missing {missing}" if missing else ""))
        (ok if not extra else bad)("Hindi.nsh has no message English.nsh lacks" + (f"; extra {extra}" if extra else ""))
    else:
        print(f"  skipped: no English.nsh given (--offline); Hindi.nsh has {len(hi_names)} messages")

    if FAILED:
        print(f"check_config: {len(FAILED)} failure(s)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
