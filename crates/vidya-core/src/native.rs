//! Native libraries pinned in `resources/manifest.toml`: where they are looked for and whether
//! the copy found is the pinned one.
//!
//! `cargo xtask setup` places them under `resources/native/<target>/`; installers place them next
//! to the executable (or in `/usr/lib/Vidya` for the .deb). Nothing is downloaded at run time.

use std::path::{Path, PathBuf};

pub use vidya_manifest::{sha256_file, NativeEntry, MANIFEST_TOML};

/// This machine's platform folder name.
pub fn host_target() -> &'static str {
    if cfg!(windows) {
        "windows-x86_64"
    } else {
        "linux-x86_64"
    }
}

/// The manifest group of the Visual C++ runtime DLLs (Windows): Windows loads them from beside
/// the programs when ONNX Runtime is loaded; Vidya never looks them up itself.
pub const VC_RUNTIME_GROUP: &str = "vc-runtime";

/// The manifest's entries for this machine that Vidya loads itself (every group but
/// [`VC_RUNTIME_GROUP`]).
pub fn entries() -> Vec<NativeEntry> {
    vidya_manifest::Manifest::bundled()
        .map(|m| m.native)
        .unwrap_or_default()
        .into_iter()
        .filter(|e| e.target == host_target() && e.group != VC_RUNTIME_GROUP)
        .collect()
}

/// The entry named `name` for this machine.
pub fn entry(name: &str) -> Option<NativeEntry> {
    entries().into_iter().find(|e| e.name == name)
}

/// Folders searched for native libraries, in order: `$VIDYA_NATIVE_DIR`; `native/` in each
/// [`crate::paths::install_roots`] folder (the Windows install folder, `/usr/lib/Vidya`); and,
/// for builds from a source checkout (never for an installed copy), the checkout's
/// `resources/native/<target>`. Every path is
/// absolute, so a stale copy of a library elsewhere on the machine (System32) is never used.
pub fn search_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("VIDYA_NATIVE_DIR").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d));
    }
    for root in crate::paths::install_roots() {
        dirs.push(root.join("native"));
    }
    if !crate::paths::is_installed() {
        dirs.push(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../resources/native")
                .join(host_target()),
        );
    }
    dirs
}

/// Where a native library was looked for and what was found.
#[derive(Debug, Clone)]
pub struct Located {
    /// The manifest entry.
    pub entry: NativeEntry,
    /// The first existing file, if any.
    pub path: Option<PathBuf>,
    /// Every path tried.
    pub tried: Vec<PathBuf>,
}

impl Located {
    /// Whether the file found has the sha256 the manifest pins. Reads the whole file (35 MB
    /// for ONNX Runtime, about 35 ms here), so it is asked only where it is reported, never on
    /// a question's start-up path.
    pub fn verify(&self) -> bool {
        self.path
            .as_deref()
            .and_then(|p| sha256_file(p).ok())
            .is_some_and(|h| h == self.entry.wheel.sha256)
    }
}

/// Finds the library `name` (a manifest entry name) in [`search_dirs`]; [`Located::verify`]
/// checks its sha256. Returns `None` only when the manifest has no entry of that name for
/// this machine.
pub fn locate(name: &str) -> Option<Located> {
    let entry = entry(name)?;
    let tried: Vec<PathBuf> = search_dirs()
        .into_iter()
        .map(|d| d.join(&entry.wheel.file))
        .collect();
    let path = tried.iter().find(|p| p.is_file()).cloned();
    Some(Located { entry, path, tried })
}

#[cfg(test)]
mod tests {
    #[test]
    fn manifest_parses_and_has_pdfium() {
        let e = super::entry("pdfium").expect("pdfium entry for this platform");
        assert_eq!(e.wheel.sha256.len(), 64);
        assert!(
            e.wheel.package.contains("=="),
            "pinned exactly: {}",
            e.wheel.package
        );
    }
}
