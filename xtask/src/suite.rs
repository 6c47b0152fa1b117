//! The README's two commands: `demo` (ingest the sample chapters and ask) and `test` (format,
//! lint, the Rust tests, the installers, the end-to-end tests).

use anyhow::{bail, Context, Result};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::models::model_venv;
use crate::{cargo, run_step};

pub(crate) fn demo(root: &Path) -> Result<()> {
    let library = root.join("target/demo-library");
    if library.exists() {
        fs::remove_dir_all(&library)?;
    }
    let vidya = |args: &[&str]| {
        let mut c = cargo();
        c.current_dir(root)
            .args(["run", "--quiet", "--package", "vidya-cli", "--"])
            .arg("--library")
            .arg(&library)
            .args(args);
        c
    };
    // Not quiet: the first build takes many minutes, and cargo's own progress shows it is
    // working.
    run_step(
        "build vidya (the first time 15-30 minutes on a 2-core machine; cargo shows how far)",
        {
            let mut c = cargo();
            c.current_dir(root)
                .args(["build", "--package", "vidya-cli"]);
            c
        },
    )?;
    run_step(
        "vidya ingest tests/fixtures/biology2e",
        vidya(&["ingest", "tests/fixtures/biology2e"]),
    )?;
    run_step("vidya books", vidya(&["books"]))?;
    let question = "What happens in the light-dependent reactions of photosynthesis?";
    run_step(
        &format!("vidya ask \"{question}\""),
        vidya(&["ask", question, "--trace"]),
    )?;
    println!("\nThe demo library is at {}.", library.display());
    Ok(())
}

/// Clippy's arguments for clippy-driver (what `cargo clippy -- -D warnings` passes, separated
/// as cargo-clippy separates them).
const CLIPPY_ARGS: &str = "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__";

/// `clippy-driver`, when the toolchain has it (the rustup component `clippy`).
fn clippy_wrapper() -> Option<String> {
    let works = Command::new("clippy-driver")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    works.then(|| "clippy-driver".to_string())
}

/// The README's second command after setup: each step in its own function, in order.
pub(crate) fn test(root: &Path) -> Result<()> {
    run_step("cargo fmt --check", {
        let mut c = cargo();
        c.current_dir(root).args(["fmt", "--all", "--check"]);
        c
    })?;
    check_docs(root)?;
    let lint = clippy_wrapper();
    check_eval_sets(root)?;
    rust_tests(root, &lint)?;
    // The binaries the end-to-end tests start (vidya, ollama-test-server, vidya-desktop).
    // Built with the same package selection as `cargo test --workspace`, so the dependencies
    // it compiled are reused; a `-p` subset would resolve other features and rebuild the
    // WebKitGTK/Tauri stack (measured: 28 crates again, minutes on CI).
    run_step("build the binaries the end-to-end tests start", {
        let mut c = cargo();
        c.current_dir(root)
            .args(["build", "--workspace", "--all-targets"]);
        linted(c, &lint)
    })?;
    // The CLI just built, run as a 2009-class CPU (no AVX): nothing may need an instruction
    // old school laptops lack unless it is chosen at run time (tests/old-cpu/check.sh).
    let python = model_venv(root, &["pypdfium2==5.15.2".to_string()])?;
    crate::cpu_baseline::old_cpu(root, &root.join("target/debug/vidya"), &python)?;
    linux_package(root)?;
    // Windows: the programs cross-built, the test installer packed with makensis, installed
    // under Wine and tested there (installers/windows/wine-smoke.sh).
    crate::windows::run(root, true, "zlib")?;
    // The release installer is built on Windows by Tauri's bundler: its configuration, the
    // resources made from the same payload list, and its NSIS hooks are checked here.
    run_step("check the Windows installer definition", {
        let mut c = Command::new("bash");
        c.current_dir(root).arg("installers/windows/check.sh");
        c
    })?;
    end_to_end(root)
}

/// Every command, path and link of the README and the guides in docs/ still holds
/// (tests/docs/check_docs.py, against the CLI's and xtask's own definitions).
fn check_docs(root: &Path) -> Result<()> {
    run_step(
        "check the README's and guides' commands, paths and links (tests/docs/check_docs.py)",
        {
            let mut c = Command::new(crate::python());
            c.current_dir(root).arg("tests/docs/check_docs.py");
            c
        },
    )
}

/// Every later cargo command of the workspace keeps the same compiler wrapper as the tests,
/// or cargo would compile the workspace's crates once more.
fn linted(mut c: Command, lint: &Option<String>) -> Command {
    if let Some(driver) = lint {
        c.env("RUSTC_WORKSPACE_WRAPPER", driver)
            .env("CLIPPY_ARGS", CLIPPY_ARGS);
    }
    c
}

/// The realistic eval set's evidence, pages and off-topic key terms, against the books
/// (pypdfium2: the same PDFium build the app reads PDFs with), when the evaluation data is
/// there.
fn check_eval_sets(root: &Path) -> Result<()> {
    let shared = root.join("../shared/data");
    let d = std::env::var_os("VIDYA_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or(shared);
    if !d.is_dir() {
        println!(
            "\n== evaluation data not found at {}: the tests that need it pass without checking anything (set VIDYA_SHARED_DATA)",
            d.display()
        );
        return Ok(());
    }
    println!(
        "\n== evaluation data found at {}: the full-book, tricky-PDF and Indic tests run",
        d.display()
    );
    let python = model_venv(root, &["pypdfium2==5.15.2".to_string()])?;
    let check_set = |extra: &[&str]| {
        let mut c = Command::new(&python);
        c.current_dir(root)
            .arg("tests/eval/check_set.py")
            .arg("--data")
            .arg(&d)
            .args(extra);
        c
    };
    // The new-question sets written later (each run once, then graded blind) are checked with
    // the main set, in one pass over the books.
    run_step(
        "check the eval sets (tests/eval/check_set.py)",
        check_set(&[
            "--students",
            "tests/eval/students.jsonl",
            "tests/eval/students_fresh.jsonl",
            "tests/eval/students_blind.jsonl",
            "tests/eval/students_held.jsonl",
            "tests/eval/students_after.jsonl",
            "tests/eval/students_fifth.jsonl",
            "tests/eval/students_sixth.jsonl",
            "tests/eval/students_seventh.jsonl",
            "tests/eval/students_eighth.jsonl",
            "tests/eval/students_ninth.jsonl",
            "tests/eval/students_tenth.jsonl",
            "tests/eval/students_eleventh.jsonl",
            "tests/eval/students_twelfth.jsonl",
        ]),
    )?;
    // The held-out off-topic questions (never used to choose anything) are checked the same
    // way, so that each of them is off-topic for both books.
    run_step(
        "check the held-out off-topic questions (tests/eval/check_set.py)",
        check_set(&[
            "--off-topic",
            "tests/eval/off_topic_holdout.jsonl",
            "--no-size-check",
        ]),
    )
}

/// `cargo test --workspace`, clippy's lints as errors: clippy-driver as the workspace's
/// compiler wrapper while the workspace compiles for the tests, instead of a `cargo clippy`
/// pass of its own (which checked every dependency a second time, 12-30 minutes of CI on 2
/// cores).
fn rust_tests(root: &Path, lint: &Option<String>) -> Result<()> {
    if lint.is_none() {
        run_step("cargo clippy", {
            let mut c = cargo();
            c.current_dir(root).args([
                "clippy",
                "--workspace",
                "--all-targets",
                "--",
                "-D",
                "warnings",
            ]);
            c
        })?;
    }
    run_step(
        if lint.is_some() {
            "cargo test, with clippy's lints as errors (clippy-driver as the workspace wrapper)"
        } else {
            "cargo test"
        },
        {
            let mut c = cargo();
            c.current_dir(root).args(["test", "--workspace"]);
            linted(c, lint)
        },
    )
}

/// The Linux package, from the binaries just built: bundled, installed into a scratch root
/// and run from there with no network (installers/linux/).
fn linux_package(root: &Path) -> Result<()> {
    let deb = build_deb(root)?;
    run_step("install the .deb into a scratch root and run it offline", {
        let mut c = Command::new("bash");
        c.current_dir(root)
            .arg("installers/linux/test-deb.sh")
            .arg(&deb);
        c
    })
}

/// The browser and window end-to-end tests (tests/e2e, playwright-core with Debian's
/// chromium; the window under Xvfb).
fn end_to_end(root: &Path) -> Result<()> {
    let e2e = root.join("tests/e2e");
    run_step("npm ci (playwright-core)", {
        let mut c = Command::new("npm");
        c.current_dir(&e2e).args(["ci", "--no-audit", "--no-fund"]);
        c
    })?;
    run_step("browser and window end-to-end tests", {
        let mut c = Command::new("npm");
        c.current_dir(&e2e).args(["test"]);
        c
    })
}

/// Builds the .deb from the debug binaries in the target folder (installers/linux/build-deb.sh
/// --no-build) and returns its path (the script's last line).
pub(crate) fn build_deb(root: &Path) -> Result<PathBuf> {
    println!("\n== build the .deb (installers/linux/build-deb.sh --no-build)");
    let out = Command::new("bash")
        .current_dir(root)
        .args(["installers/linux/build-deb.sh", "--no-build"])
        .stderr(std::process::Stdio::inherit())
        .output()
        .context("running installers/linux/build-deb.sh")?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    if !out.status.success() {
        bail!("installers/linux/build-deb.sh failed ({})", out.status);
    }
    let deb = stdout.lines().last().map(PathBuf::from).unwrap_or_default();
    if !deb.is_file() {
        bail!("installers/linux/build-deb.sh printed no .deb path");
    }
    Ok(deb)
}
