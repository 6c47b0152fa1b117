//! The Debian packages the tests need, installed with apt-get when missing.

use anyhow::{bail, Context, Result};
use std::process::Command;

/// Debian packages the tests need beyond Rust, Python and Node: WebKitGTK and friends to build
/// the Tauri window (`src-tauri`), and chromium, Xvfb, ImageMagick and xdotool for the browser
/// and window end-to-end tests (Noto fonts for their Indic screenshots), NSIS's makensis for the
/// Windows installers, and the Windows cross-build and its test under Wine (`cargo xtask
/// windows`: mingw-w64's posix compilers and binutils, Wine), and qemu-user for the old-CPU
/// check (`tests/old-cpu/check.sh`), and Tesseract with the six languages' data and its
/// script detector (OCR of scanned pages; Apache-2.0) with poppler-utils' `pdftoppm` and img2pdf for
/// the scanned test set (`tests/eval/scans/make_scans.py`), and cmake, ninja and curl for the
/// Windows build of Tesseract (`installers/windows/build-tesseract.sh`).
pub(crate) const SYSTEM_PACKAGES: [&str; 35] = [
    "build-essential",
    "pkg-config",
    "libssl-dev",
    "libwebkit2gtk-4.1-dev",
    "libgtk-3-dev",
    "librsvg2-dev",
    "libayatana-appindicator3-dev",
    "libxdo-dev",
    "xvfb",
    "xauth",
    "imagemagick",
    "xdotool",
    "chromium",
    "fonts-noto-core",
    "file",
    "nsis",
    "gcc-mingw-w64-x86-64-posix",
    "g++-mingw-w64-x86-64-posix",
    "binutils-mingw-w64-x86-64",
    "wine",
    "wine64",
    "qemu-user",
    "tesseract-ocr",
    "tesseract-ocr-eng",
    "tesseract-ocr-hin",
    "tesseract-ocr-mar",
    "tesseract-ocr-tel",
    "tesseract-ocr-tam",
    "tesseract-ocr-kan",
    "tesseract-ocr-osd",
    "poppler-utils",
    "img2pdf",
    "cmake",
    "ninja-build",
    "curl",
];

/// Installs the missing [`SYSTEM_PACKAGES`] with apt-get (as root, or through `sudo -n`);
/// otherwise stops with the command to run.
pub(crate) fn ensure_system_packages() -> Result<()> {
    let installed = |p: &str| {
        Command::new("dpkg-query")
            .args(["-W", "-f=${Status}", p])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
    };
    if Command::new("dpkg-query")
        .arg("--version")
        .output()
        .is_err()
    {
        println!("setup: not a Debian system; install WebKitGTK 4.1, chromium, Xvfb, ImageMagick and xdotool yourself");
        return Ok(());
    }
    let missing: Vec<&str> = SYSTEM_PACKAGES
        .iter()
        .copied()
        .filter(|p| !installed(p))
        .collect();
    if missing.is_empty() {
        println!("setup: Debian packages for the desktop build and the browser tests present");
        return Ok(());
    }
    let command = format!("apt-get install -y {}", missing.join(" "));
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let sudo = !is_root
        && Command::new("sudo")
            .args(["-n", "true"])
            .status()
            .is_ok_and(|s| s.success());
    if !is_root && !sudo {
        bail!(
            "the tests need these Debian packages: {}. Run: sudo apt-get update && sudo {command}",
            missing.join(" ")
        );
    }
    println!("setup: installing Debian packages: {}", missing.join(" "));
    let apt = |args: &[&str]| -> Result<()> {
        let mut c = if sudo {
            let mut c = Command::new("sudo");
            c.args(["-n", "apt-get"]);
            c
        } else {
            Command::new("apt-get")
        };
        c.args(args).env("DEBIAN_FRONTEND", "noninteractive");
        let status = c.status().context("apt-get")?;
        if !status.success() {
            bail!(
                "apt-get {} failed; run it yourself: {command}",
                args.join(" ")
            );
        }
        Ok(())
    };
    apt(&["update", "-qq"])?;
    let mut args = vec!["install", "-y", "-qq", "--no-install-recommends"];
    args.extend(missing.iter().copied());
    apt(&args)
}
