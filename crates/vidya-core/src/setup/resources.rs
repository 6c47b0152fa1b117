//! Verifies the files Vidya ships with (`resources/manifest.toml`): the native libraries, the
//! embedder and tokenizer files, and the interface fonts.
//!
//! Each file is found where the installers put it (see [`crate::paths::install_roots`]) and
//! checked by size and sha256 against the manifest compiled into this build. Hashing the
//! ≈160 MB of models takes about a second on a slow laptop, so a verified file's size,
//! modification time and hash are cached in `<data dir>/resource-check.json`: later starts only
//! re-hash a file whose size or time changed (as `make` and `rsync` decide; a same-size
//! overwrite that keeps the time stamp is not noticed). Files found damaged are not cached.

use crate::native;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The cache file name, in [`crate::paths::data_dir`].
pub const CACHE_FILE: &str = "resource-check.json";

/// What a bundled file is for, in the words the wizard uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceKind {
    /// A native library (pdfium: reading PDFs; ONNX Runtime: running the models).
    Library,
    /// A model or tokenizer file (searching by meaning, counting tokens).
    Model,
    /// An interface font (Indic scripts).
    Font,
}

/// The state of one bundled file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ResourceStatus {
    /// Present and identical to the pinned file.
    Ok,
    /// Not found in any place it is looked for.
    Missing,
    /// Present but different (truncated, overwritten, another version).
    Damaged,
}

/// One bundled file and what was found.
#[derive(Debug, Clone, Serialize)]
pub struct ResourceCheck {
    /// Manifest name (`pdfium`, `multilingual-e5-small`, `NotoSansTamil-Regular.ttf`).
    pub name: String,
    /// File name (`libpdfium.so`, `model_int8.onnx`).
    pub file: String,
    /// What it is for.
    pub kind: ResourceKind,
    /// True when Vidya cannot read books without it (pdfium); the others degrade one feature.
    pub required: bool,
    /// The file found (absolute), or where it was expected first.
    pub path: PathBuf,
    /// The verdict.
    pub status: ResourceStatus,
    /// Size found (bytes; 0 when missing).
    pub size_bytes: u64,
    /// For a file that is not [`ResourceStatus::Ok`]: what is wrong and how to fix it, in one
    /// sentence naming the file.
    pub message: Option<String>,
}

/// All bundled files of this build and platform.
#[derive(Debug, Clone, Serialize)]
pub struct ResourceReport {
    /// One entry per file.
    pub files: Vec<ResourceCheck>,
    /// Whether this executable runs from an installed copy (the fix is then "reinstall").
    pub installed: bool,
}

impl ResourceReport {
    /// The messages of every file that is missing or damaged.
    pub fn problems(&self) -> Vec<String> {
        self.files
            .iter()
            .filter_map(|f| f.message.clone())
            .collect()
    }

    /// True when every file is present and intact.
    pub fn all_ok(&self) -> bool {
        self.files.iter().all(|f| f.status == ResourceStatus::Ok)
    }
}

/// A file the manifest pins, and the folders it may be in.
struct Expected {
    name: String,
    file: String,
    sha256: String,
    kind: ResourceKind,
    required: bool,
    dirs: Vec<PathBuf>,
}

fn expected() -> Vec<Expected> {
    let mut out: Vec<Expected> = native::entries()
        .into_iter()
        .map(|e| Expected {
            dirs: native::search_dirs(),
            required: e.group == "core",
            kind: ResourceKind::Library,
            name: e.name,
            file: e.wheel.file,
            sha256: e.wheel.sha256,
        })
        .collect();
    let (model, npm_file) = vidya_manifest::Manifest::bundled()
        .map(|m| (m.model, m.npm_file))
        .unwrap_or_default();
    for m in model {
        let placed = m.outputs.iter().map(|o| (&o.file, &o.sha256)).chain(
            m.inputs
                .iter()
                .filter(|i| i.place)
                .map(|i| (&i.wheel.file, &i.wheel.sha256)),
        );
        for (file, sha256) in placed {
            out.push(Expected {
                name: m.name.clone(),
                file: file.clone(),
                sha256: sha256.clone(),
                kind: ResourceKind::Model,
                required: false,
                dirs: crate::onnx::model_dirs(&m.dir),
            });
        }
    }
    for f in npm_file {
        let (kind, dirs) = if f.under == "ui" {
            (
                ResourceKind::Font,
                vec![crate::paths::ui_dir().join(&f.dir)],
            )
        } else {
            (ResourceKind::Model, crate::onnx::model_dirs(&f.dir))
        };
        // Licence texts travel with the fonts but are not needed to run.
        if f.group == "fonts" && !f.file.ends_with(".ttf") {
            continue;
        }
        out.push(Expected {
            name: f.name,
            file: f.file,
            sha256: f.sha256,
            kind,
            required: false,
            dirs,
        });
    }
    out
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct CacheEntry {
    size: u64,
    modified_ns: u128,
    sha256: String,
}

type Cache = BTreeMap<String, CacheEntry>;

fn stamp(meta: &std::fs::Metadata) -> u128 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// What to do about a missing or damaged bundled file of `kind`: reinstall an installed copy,
/// or the `cargo xtask setup` command that provisions a source checkout again.
pub fn fix_for(installed: bool, kind: ResourceKind) -> &'static str {
    match (installed, kind) {
        (true, _) => "reinstall Vidya from its installer (your books and library are kept)",
        (false, ResourceKind::Library) => "run `cargo xtask setup --force` in the source folder",
        (false, ResourceKind::Model) => {
            "run `cargo xtask setup --models --force` in the source folder"
        }
        (false, ResourceKind::Font) => "run `cargo xtask setup --force` in the source folder",
    }
}

fn purpose(kind: ResourceKind, name: &str) -> String {
    match kind {
        ResourceKind::Library if name == "pdfium" => "reads PDF books".into(),
        ResourceKind::Library => "runs the search models".into(),
        ResourceKind::Model if name.contains("tokenizer") => "counts words for the model".into(),
        ResourceKind::Model => "finds passages by meaning".into(),
        ResourceKind::Font => "shows Indian scripts".into(),
    }
}

/// Checks every bundled file, using and refreshing the cache in `cache_dir` (pass
/// [`crate::paths::data_dir`]; a cache that cannot be read or written only costs time).
pub fn verify(cache_dir: &Path) -> ResourceReport {
    let cache_path = cache_dir.join(CACHE_FILE);
    // The cache is a few KB; anything much larger is not Vidya's and is not read.
    let small = std::fs::metadata(&cache_path).is_ok_and(|m| m.is_file() && m.len() < 1 << 20);
    let mut cache: Cache = small
        .then(|| std::fs::read(&cache_path).ok())
        .flatten()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let mut changed = false;
    let installed = crate::paths::is_installed();
    let mut files = Vec::new();
    for e in expected() {
        let candidates: Vec<PathBuf> = e.dirs.iter().map(|d| d.join(&e.file)).collect();
        let found = candidates.iter().find(|p| p.is_file()).cloned();
        let fix = fix_for(installed, e.kind);
        let what = purpose(e.kind, &e.name);
        let (path, status, size, message) = match found {
            None => {
                let first = candidates.first().cloned().unwrap_or_default();
                let message = format!(
                    "{} ({}, {what}) is missing: it was looked for in {}. Fix: {fix}.",
                    e.file,
                    e.name,
                    e.dirs
                        .iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                (first, ResourceStatus::Missing, 0, Some(message))
            }
            Some(p) => {
                let p = dunce::canonicalize(&p).unwrap_or(p);
                let meta = std::fs::metadata(&p).ok();
                let size = meta.as_ref().map(|m| m.len()).unwrap_or(0);
                let modified_ns = meta.as_ref().map(stamp).unwrap_or(0);
                let key = p.display().to_string();
                let hash = match cache.get(&key) {
                    Some(c) if c.size == size && c.modified_ns == modified_ns => {
                        Some(c.sha256.clone())
                    }
                    // Only intact files are remembered: a damaged one is hashed again at each
                    // check, so a repaired copy is seen at once whatever its time stamp.
                    _ => native::sha256_file(&p).ok().inspect(|h| {
                        if *h == e.sha256 {
                            cache.insert(
                                key.clone(),
                                CacheEntry {
                                    size,
                                    modified_ns,
                                    sha256: h.clone(),
                                },
                            );
                            changed = true;
                        }
                    }),
                };
                if hash.as_deref() == Some(e.sha256.as_str()) {
                    (p, ResourceStatus::Ok, size, None)
                } else {
                    let message = format!(
                        "{} ({}, {what}) is damaged: {} ({size} bytes) is not the file this Vidya was built with (sha256 differs). Fix: {fix}.",
                        e.file,
                        e.name,
                        p.display()
                    );
                    (p, ResourceStatus::Damaged, size, Some(message))
                }
            }
        };
        files.push(ResourceCheck {
            name: e.name,
            file: e.file,
            kind: e.kind,
            required: e.required,
            path,
            status,
            size_bytes: size,
            message,
        });
    }
    if changed && std::fs::create_dir_all(cache_dir).is_ok() {
        if let Ok(json) = serde_json::to_vec_pretty(&cache) {
            let tmp = cache_path.with_extension("json.tmp");
            if std::fs::write(&tmp, json).is_ok() {
                let _ = std::fs::rename(&tmp, &cache_path);
            }
        }
    }
    ResourceReport { files, installed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_lists_pdfium_the_embedder_and_fonts() {
        let names: Vec<String> = expected().into_iter().map(|e| e.file).collect();
        for f in [
            "model_int8.onnx",
            "tokenizer.json",
            "NotoSansTamil-Regular.ttf",
        ] {
            assert!(names.iter().any(|n| n == f), "{f} in {names:?}");
        }
        assert!(names.iter().any(|n| n.contains("pdfium")), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with("OFL-")), "{names:?}");
    }
}
