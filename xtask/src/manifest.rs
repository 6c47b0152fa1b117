//! `resources/manifest.toml`, read with the app's own reader ([`vidya_manifest`]): native
//! libraries, model builds, npm files, test graphs and the real test model, each pinned by
//! sha256.

use anyhow::{Context, Result};
use std::fs;
use std::path::Path;

pub(crate) use vidya_manifest::{verified, Manifest, NativeEntry, WheelFile};

/// The checkout's `resources/manifest.toml`. Errors: unreadable or not a manifest.
pub(crate) fn manifest(root: &Path) -> Result<Manifest> {
    let path = root.join("resources/manifest.toml");
    Manifest::parse(&fs::read_to_string(&path)?)
        .with_context(|| format!("parsing {}", path.display()))
}
