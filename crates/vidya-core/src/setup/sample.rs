//! The sample chapter the wizard asks one question about, so the teacher sees a cited answer
//! before the students arrive: Biology 2e chapter 8, "Photosynthesis" (OpenStax, CC BY 4.0),
//! bundled as `sample/ch08.pdf` with its attribution. It is read into its own small library
//! (`<data dir>/setup-sample`), never into the teacher's.

use std::path::PathBuf;

/// The question asked about the sample chapter.
pub const SAMPLE_QUESTION: &str =
    "What happens in the light-dependent reactions of photosynthesis?";

/// The sample chapter's file name.
pub const SAMPLE_FILE: &str = "ch08.pdf";

/// The bundled sample chapter: `sample/ch08.pdf` in an install folder
/// ([`crate::paths::install_roots`]), else the source checkout's
/// `tests/fixtures/biology2e/ch08.pdf`. `None` when neither exists.
pub fn sample_chapter() -> Option<PathBuf> {
    let mut candidates: Vec<PathBuf> = crate::paths::install_roots()
        .into_iter()
        .map(|r| r.join("sample").join(SAMPLE_FILE))
        .collect();
    if crate::paths::is_installed() {
        return candidates.into_iter().find(|p| p.is_file());
    }
    candidates.push(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/biology2e")
            .join(SAMPLE_FILE),
    );
    candidates
        .into_iter()
        .find(|p| p.is_file())
        .map(|p| dunce::canonicalize(&p).unwrap_or(p))
}

/// The sample's own library folder: `<data dir>/setup-sample`.
pub fn sample_library_dir() -> PathBuf {
    crate::paths::data_dir().join("setup-sample")
}
