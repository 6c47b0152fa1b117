//! `vidya reindex` and the dense-index upkeep after `vidya ingest` / `vidya remove`.

use crate::output;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use vidya_core::embed::Embedder;
use vidya_core::{Library, VidyaError};

/// The embedder for `vidya ingest`, or `None` with a note when the models are not installed
/// (the book is then stored for BM25 and `vidya reindex` adds its vectors later).
pub fn embedder_for_ingest() -> Option<Arc<Embedder>> {
    match Embedder::load() {
        Ok(e) => Some(Arc::new(e)),
        Err(e) => {
            output::err_line(format!(
                "note: books are stored for word search only: {e}. Then run `vidya reindex`."
            ));
            None
        }
    }
}

/// Brings the HNSW index up to date after books were added (best effort: a failure is
/// reported and the next question rebuilds it).
pub fn sync_dense(lib: &Library, embedder: &Embedder) {
    if let Some(note) = vidya_core::ingest::reindex::sync_index(lib, embedder) {
        output::err_line(format!("note: {note}"));
    }
}

/// `vidya reindex [--force]`.
pub fn reindex_cmd(library: &Path, force: bool) -> Result<ExitCode> {
    let mut lib = Library::open_existing(library)?;
    let embedder = Embedder::load()?;
    let cancel = crate::ingest_cmd::stop_on_ctrl_c();
    let bar = ProgressBar::new(1);
    bar.set_style(
        ProgressStyle::with_template("embedding chunks [{bar:30}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let mut progress = (0, 0);
    let result = vidya_core::ingest::reindex::reindex(
        &mut lib,
        &embedder,
        force,
        Some(&cancel),
        &mut |done, total| {
            progress = (done, total);
            bar.set_length(total as u64);
            bar.set_position(done as u64);
        },
    );
    bar.finish_and_clear();
    match result {
        Ok(r) => {
            out!(
                "Embedded {} chunk(s) with {} in {:.1} s; the vector index holds {}.",
                r.embedded,
                r.model,
                r.seconds,
                r.indexed
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(VidyaError::Cancelled) => {
            // Every chunk embedded before the stop is saved with it.
            let (done, total) = progress;
            output::err_line(format!(
                "stopped: {done} of {total} chunk(s) were embedded and saved; run `vidya reindex` again to finish."
            ));
            Ok(ExitCode::from(130))
        }
        Err(e) => Err(e.into()),
    }
}
