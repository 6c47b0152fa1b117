//! Every x86-64 CPU: the programs are built for the baseline instruction set (x86-64, SSE2),
//! so that they run on a school's 2010–2015 Core i3/i5, some of which lack AVX2 or AVX. Faster
//! instructions are used only where the code (or a native library: ONNX Runtime, pdfium,
//! usearch's numkong) asks the CPU at run time.
//!
//! Two checks:
//! - [`check_build_flags`]: no compiler flag of the build assumes a newer CPU
//!   (`-C target-cpu`, `-C target-feature=+avx…`, `-march=`, `-mavx…`), in the environment,
//!   `.cargo/config.toml` or the flags `cargo xtask` passes itself. Run before the Windows
//!   cross-build (whose programs cannot be run under an emulated CPU here) and before the
//!   Linux check below.
//! - [`old_cpu`]: the Linux CLI run under Debian's qemu-user as a 2009-class CPU
//!   (`tests/old-cpu/check.sh`: ingest with vectors, ask, the cited page; an AVX2 canary first
//!   proves the emulator refuses what that CPU lacks).

use anyhow::{bail, Result};
use std::path::Path;
use std::process::Command;

use crate::run_step;

/// Flags that make a compiler assume more than the x86-64 baseline (`-march=x86-64` itself is
/// the baseline and allowed).
const NEWER_CPU: [&str; 11] = [
    "target-cpu",
    "-march=",
    "-mavx",
    "-mfma",
    "-msse4",
    "-mbmi",
    "-mf16c",
    "+avx",
    "+fma",
    "+sse4",
    "+bmi",
];

/// The environment variables through which cargo, rustc and the `cc` crate take flags.
const FLAG_VARIABLES: [&str; 8] = [
    "RUSTFLAGS",
    "CARGO_ENCODED_RUSTFLAGS",
    "CARGO_BUILD_RUSTFLAGS",
    "CFLAGS",
    "CXXFLAGS",
    "CARGO_TARGET_X86_64_PC_WINDOWS_GNU_RUSTFLAGS",
    "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUSTFLAGS",
    "TARGET_CFLAGS",
];

/// The first flag of `flags` that assumes a newer CPU than the x86-64 baseline.
pub(crate) fn newer_cpu_flag(flags: &str) -> Option<&'static str> {
    let baseline_march = |f: &str| {
        f == "-march="
            && flags.match_indices("-march=").all(|(i, _)| {
                let arch = flags[i + 7..].split_whitespace().next().unwrap_or("");
                arch == "x86-64"
            })
    };
    NEWER_CPU
        .iter()
        .copied()
        .find(|f| flags.contains(f) && !baseline_march(f))
}

/// Fails when the build would assume a newer CPU: a flag of [`NEWER_CPU`] in the environment
/// ([`FLAG_VARIABLES`] and their per-target `_x86_64…` forms), in `.cargo/config.toml`, or in
/// `passed` (the flags `cargo xtask` sets itself, as `(variable, value)`). `what` names the
/// build in the message.
pub(crate) fn check_build_flags(
    root: &Path,
    what: &str,
    passed: &[(String, String)],
) -> Result<()> {
    let mut found = Vec::new();
    for (k, v) in std::env::vars() {
        let flag_var = FLAG_VARIABLES.contains(&k.as_str())
            || k.starts_with("CFLAGS_")
            || k.starts_with("CXXFLAGS_");
        if let Some(f) = newer_cpu_flag(&v).filter(|_| flag_var) {
            found.push(format!("{f} in the environment ({k})"));
        }
    }
    for (k, v) in passed {
        if let Some(f) = newer_cpu_flag(v) {
            found.push(format!("{f} in what cargo xtask passes ({k})"));
        }
    }
    let config = root.join(".cargo/config.toml");
    if let Ok(text) = std::fs::read_to_string(&config) {
        if let Some(f) = newer_cpu_flag(&text) {
            found.push(format!("{f} in {}", config.display()));
        }
    }
    if !found.is_empty() {
        bail!(
            "the {what} would assume a newer CPU than the x86-64 baseline, and old school laptops (no AVX2, some no AVX) could not run it: {}. Remove the flag; choose faster instructions at run time instead",
            found.join("; ")
        );
    }
    println!("cpu baseline: the {what} assumes no CPU beyond x86-64 (no target-cpu, -march or -mavx flags)");
    Ok(())
}

/// Runs `tests/old-cpu/check.sh` with the CLI at `vidya` (and `python`, which has pypdfium2).
pub(crate) fn old_cpu(root: &Path, vidya: &Path, python: &Path) -> Result<()> {
    check_build_flags(root, "Linux build", &[])?;
    run_step(
        "the CLI as a 2009-class CPU (qemu-x86_64 -cpu Nehalem: tests/old-cpu/check.sh)",
        {
            let mut c = Command::new("bash");
            c.current_dir(root)
                .arg("tests/old-cpu/check.sh")
                .arg(vidya)
                .arg(python);
            c
        },
    )
}

#[cfg(test)]
mod tests {
    use super::newer_cpu_flag;

    #[test]
    fn flags_that_assume_a_newer_cpu_are_found() {
        for f in [
            "-C target-cpu=haswell",
            "-Ctarget-cpu=native",
            "-C target-feature=+avx2,+fma",
            "-O2 -march=haswell",
            "-mavx2",
            "-mavx",
            "-mfma",
            "-msse4.2",
        ] {
            assert!(newer_cpu_flag(f).is_some(), "{f}");
        }
        for f in [
            "-L native=/usr/lib -C link-arg=-static -C link-arg=-static-libgcc",
            "-I/tmp/shim",
            "-O2 -fPIC",
            "-C target-feature=+crt-static",
            "-O2 -march=x86-64",
        ] {
            assert!(newer_cpu_flag(f).is_none(), "{f}");
        }
    }
}
