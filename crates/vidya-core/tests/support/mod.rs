//! What the integration tests of both crates share: finding the files `cargo xtask setup`
//! provides (the installed models, the generated cross-encoder test graphs) and skipping
//! cleanly when they are absent on a developer's machine. Under CI (`CI` set) a missing file is
//! a failure, never a silent skip. `vidya-cli`'s tests include this file with `#[path]`.
#![allow(dead_code)] // each test binary uses part of it

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use vidya_core::retrieve::Models;

/// Says why a test is skipped and what to run; panics instead under CI.
pub fn skip(why: &str, fix: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "{why}: CI must run `{fix}` (`cargo xtask test` does) before the tests"
    );
    eprintln!("skipped: {why}; run `{fix}`");
}

/// The installed models (embedder required), loaded once per test binary; `None` after
/// [`skip`] when the embedder is missing.
pub fn installed_models() -> Option<Models> {
    static M: OnceLock<Option<Models>> = OnceLock::new();
    M.get_or_init(|| {
        let m = Models::load();
        if m.embedder.is_some() {
            return Some(m);
        }
        skip(
            &format!("the retrieval models are not installed ({:?})", m.notes),
            "cargo xtask setup --models",
        );
        None
    })
    .clone()
}

/// The folder of the generated cross-encoder test graphs (`overlap/`, `minilm-shape/`), from
/// `VIDYA_TEST_MODELS` or `target/test-models`; `None` after [`skip`] when a graph or ONNX
/// Runtime is missing.
pub fn test_graphs() -> Option<PathBuf> {
    let dir = std::env::var_os("VIDYA_TEST_MODELS")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/test-models"));
    let graphs = ["overlap", "minilm-shape"]
        .iter()
        .all(|m| dir.join(m).join("model.onnx").is_file());
    let runtime = vidya_core::native::locate("onnxruntime").is_some_and(|l| l.path.is_some());
    if graphs && runtime {
        return Some(dir);
    }
    let why = if graphs {
        "ONNX Runtime is not installed".to_string()
    } else {
        format!("the cross-encoder test graphs are not in {}", dir.display())
    };
    skip(&why, "cargo xtask setup --test-models");
    None
}
