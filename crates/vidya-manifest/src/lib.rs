//! `resources/manifest.toml`, read one way by the app (which files it expects, and their
//! sha256) and by `cargo xtask` (where it fetches them from): native libraries from PyPI
//! wheels, model files built from registry packages, files from npm packages, the test
//! graphs and the real test model. Every file is pinned by sha256 (hex). The file's own
//! comments say what each field means.
#![warn(missing_docs)]

use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;

/// The manifest as this build was compiled with (a binary knows the hashes it was built
/// against).
pub const MANIFEST_TOML: &str = include_str!("../../../resources/manifest.toml");

/// The whole manifest.
#[derive(Debug, Clone, Deserialize)]
pub struct Manifest {
    /// Native libraries (`[[native]]`).
    pub native: Vec<NativeEntry>,
    /// Model file sets built by a script (`[[model]]`).
    #[serde(default)]
    pub model: Vec<ModelEntry>,
    /// Test graphs built by a script (`[[test_model]]`).
    #[serde(default)]
    pub test_model: Vec<TestModelEntry>,
    /// Files taken from npm packages (`[[npm_file]]`).
    #[serde(default)]
    pub npm_file: Vec<NpmFile>,
    /// The production reranker's folder (`[reranker]`).
    pub reranker: Option<RerankerSlot>,
    /// The real model of the real-model tests (`[test_llm]`).
    pub test_llm: Option<TestLlm>,
}

impl Manifest {
    /// Parses manifest text. Errors: not TOML, or a field missing or of the wrong type.
    pub fn parse(text: &str) -> Result<Self, toml::de::Error> {
        toml::from_str(text)
    }

    /// The manifest compiled in ([`MANIFEST_TOML`]). Errors: as [`Manifest::parse`] (a test
    /// proves the bundled one parses).
    pub fn bundled() -> Result<Self, toml::de::Error> {
        Self::parse(MANIFEST_TOML)
    }

    /// The sha256 pinned for the built file `file` of the model in folder `dir`.
    pub fn model_output_sha256(&self, dir: &str, file: &str) -> Option<&str> {
        self.model
            .iter()
            .find(|m| m.dir == dir)?
            .outputs
            .iter()
            .find(|o| o.file == file)
            .map(|o| o.sha256.as_str())
    }
}

/// One file inside a wheel of a package registry, pinned twice: the wheel's sha256 and the
/// extracted file's.
#[derive(Debug, Clone, Deserialize)]
pub struct WheelFile {
    /// The PyPI requirement that carries it, pinned exactly (`pypdfium2==5.15.2`).
    pub package: String,
    /// The wheel's platform tag (`manylinux_2_17_x86_64`, `win_amd64`, `any`).
    pub platform: String,
    /// sha256 of the wheel.
    pub archive_sha256: String,
    /// Path of the file inside the wheel.
    pub member: String,
    /// File name it is placed under.
    pub file: String,
    /// sha256 of the placed file.
    pub sha256: String,
}

/// A native library (`[[native]]`).
#[derive(Debug, Clone, Deserialize)]
pub struct NativeEntry {
    /// What it is (`pdfium`), used in messages.
    pub name: String,
    /// `core` (needed by every build), `models` (neural retrieval, provisioned with
    /// `cargo xtask setup --models`) or `vc-runtime` (the Windows C++ runtime).
    #[serde(default = "core_group")]
    pub group: String,
    /// Upstream version.
    pub version: String,
    /// Platform folder (`linux-x86_64`, `windows-x86_64`).
    pub target: String,
    /// Licence of the file.
    pub license: String,
    /// Where it comes from and its hashes.
    #[serde(flatten)]
    pub wheel: WheelFile,
}

fn core_group() -> String {
    "core".into()
}

/// A model file set built from registry packages by a script (`[[model]]`).
#[derive(Debug, Clone, Deserialize)]
pub struct ModelEntry {
    /// What it is, used in messages.
    pub name: String,
    /// Its folder under the models folder.
    pub dir: String,
    /// The build script, relative to the repository root.
    pub build: String,
    /// PyPI requirements the build script runs with.
    pub python_requirements: Vec<String>,
    /// The wheel files it is built from.
    #[serde(default)]
    pub inputs: Vec<ModelInput>,
    /// Files of an npm package it is built from, given to the build script as one folder
    /// before the wheel inputs.
    #[serde(default)]
    pub npm_input: Option<NpmInput>,
    /// The files it builds.
    pub outputs: Vec<ModelOutput>,
}

/// Files of an npm package that a model build reads (`[model.npm_input]`).
#[derive(Debug, Clone, Deserialize)]
pub struct NpmInput {
    /// The npm package.
    pub package: String,
    /// Its exact version.
    pub version: String,
    /// sha256 of the package's tarball.
    pub tarball_sha256: String,
    /// Paths of the files inside the tarball; they are extracted into one folder, flat.
    pub members: Vec<String>,
}

/// An input of a model build.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelInput {
    /// The wheel file.
    #[serde(flatten)]
    pub wheel: WheelFile,
    /// Copied into the model folder (else only given to the build script).
    #[serde(default)]
    pub place: bool,
    /// The build script's option that takes this file (`--tokenizer`); inputs without one
    /// are given in order before the output folder.
    pub arg: Option<String>,
}

/// A file a model build writes.
#[derive(Debug, Clone, Deserialize)]
pub struct ModelOutput {
    /// File name in the model folder.
    pub file: String,
    /// Its sha256.
    pub sha256: String,
}

/// Test graphs generated by a script from registry packages (`[[test_model]]`).
#[derive(Debug, Clone, Deserialize)]
pub struct TestModelEntry {
    /// What it is.
    pub name: String,
    /// Output folder, relative to the repository root.
    pub out: String,
    /// The build script.
    pub build: String,
    /// Other scripts the build script imports (part of the "same inputs" check).
    #[serde(default)]
    pub build_uses: Vec<String>,
    /// PyPI requirements the build script runs with.
    pub python_requirements: Vec<String>,
    /// The wheel files it is built from.
    pub inputs: Vec<TestModelInput>,
    /// Files the build writes, relative to `out`.
    pub outputs: Vec<String>,
}

/// An input of a test graph build.
#[derive(Debug, Clone, Deserialize)]
pub struct TestModelInput {
    /// The build script's option that takes this file.
    pub arg: String,
    /// The wheel file.
    #[serde(flatten)]
    pub wheel: WheelFile,
}

/// A file inside an npm package (`[[npm_file]]`), placed under `<under>/<dir>/`.
#[derive(Debug, Clone, Deserialize)]
pub struct NpmFile {
    /// What it is, used in messages.
    pub name: String,
    /// `models` (a model's file, optional until its stage runs) or `fonts` (the interface's).
    pub group: String,
    /// The npm package.
    pub package: String,
    /// Its exact version.
    pub version: String,
    /// sha256 of the package's tarball.
    pub tarball_sha256: String,
    /// Path of the file inside the tarball.
    pub member: String,
    /// Folder under `under`.
    pub dir: String,
    /// File name it is placed under.
    pub file: String,
    /// sha256 of the placed file.
    pub sha256: String,
    /// The folder, relative to the repository root: [`MODELS_FOLDER`] unless the entry says
    /// otherwise (`ui` for the interface's fonts).
    #[serde(default = "models_folder")]
    pub under: String,
}

/// Where model files are placed in a source checkout, relative to the repository root.
pub const MODELS_FOLDER: &str = "resources/models";

fn models_folder() -> String {
    MODELS_FOLDER.into()
}

/// The production reranker's folder (`[reranker]`; installed with `--reranker-from`).
#[derive(Debug, Clone, Deserialize)]
pub struct RerankerSlot {
    /// Its folder under the models folder.
    pub dir: String,
    /// Files it must hold.
    pub files: Vec<String>,
    /// Files it may hold.
    #[serde(default)]
    pub optional_files: Vec<String>,
}

/// The real model of the real-model tests (`[test_llm]`): a GGUF file split over PyPI wheels.
#[derive(Debug, Clone, Deserialize)]
pub struct TestLlm {
    /// What it is.
    pub name: String,
    /// Its folder, relative to the repository root.
    pub dir: String,
    /// The GGUF file's name.
    pub file: String,
    /// Its size (bytes).
    pub size: u64,
    /// Its sha256.
    pub sha256: String,
    /// The Ollama-compatible server's folder (npm packages installed there).
    pub server: String,
    /// The wheels that carry its parts, in order.
    pub part: Vec<TestLlmPart>,
}

/// One part of the real test model.
#[derive(Debug, Clone, Deserialize)]
pub struct TestLlmPart {
    /// The PyPI requirement that carries it.
    pub package: String,
    /// sha256 of the wheel.
    pub archive_sha256: String,
    /// Path of the part inside the wheel.
    pub member: String,
}

/// sha256 of the file at `path` (hex), read in 1 MiB pieces. Errors: the file cannot be read.
pub fn sha256_file(path: &Path) -> std::io::Result<String> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = f.read(&mut buf)?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(hex::encode(h.finalize()))
}

/// True when `path` is a file with this sha256 (hex).
pub fn verified(path: &Path, sha256: &str) -> bool {
    path.is_file() && sha256_file(path).is_ok_and(|h| h == sha256)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_manifest_parses_and_pins_every_file() {
        let m = Manifest::bundled().expect("resources/manifest.toml parses");
        assert!(m
            .native
            .iter()
            .any(|n| n.name == "pdfium" && n.group == "core"));
        let hex64 = |s: &str| s.len() == 64 && s.chars().all(|c| c.is_ascii_hexdigit());
        for n in &m.native {
            assert!(n.wheel.package.contains("=="), "{}", n.wheel.package);
            assert!(
                hex64(&n.wheel.sha256) && hex64(&n.wheel.archive_sha256),
                "{}",
                n.name
            );
        }
        for f in &m.npm_file {
            assert!(hex64(&f.sha256) && hex64(&f.tarball_sha256), "{}", f.name);
        }
        let e5 = &m.model[0];
        let weights = &e5.outputs[0];
        assert_eq!(
            m.model_output_sha256(&e5.dir, &weights.file),
            Some(weights.sha256.as_str())
        );
        assert_eq!(m.model_output_sha256("nowhere", &weights.file), None);
    }

    #[test]
    fn a_file_is_verified_by_its_hash() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("x");
        std::fs::write(&f, b"abc").unwrap();
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
        assert_eq!(sha256_file(&f).unwrap(), abc);
        assert!(verified(&f, abc));
        assert!(!verified(&f, &"0".repeat(64)));
        assert!(!verified(&dir.path().join("missing"), abc));
        assert!(sha256_file(&dir.path().join("missing")).is_err());
    }
}
