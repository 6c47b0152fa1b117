//! Adds dense vectors to chunks already in the library (`vidya reindex`): chunks ingested
//! without the embedder, or embedded by another model version.
//!
//! Chunks are embedded [`REINDEX_COMMIT`] at a time and each group is committed on its own, so
//! an interrupted reindex keeps what it finished and the next run continues from there. The
//! HNSW index is then brought up to date ([`crate::search::DenseIndex::open`]).

use crate::embed::Embedder;
use crate::error::{Result, VidyaError};
use crate::search::DenseIndex;
use crate::store::Library;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};

/// Chunks embedded per committed group.
pub const REINDEX_COMMIT: usize = 256;

/// What a reindex did.
#[derive(Debug, Clone, Serialize)]
pub struct ReindexReport {
    /// Chunks embedded.
    pub embedded: usize,
    /// Vectors in the HNSW index afterwards.
    pub indexed: usize,
    /// Model id.
    pub model: String,
    /// Wall time (s).
    pub seconds: f64,
}

/// Embeds every chunk lacking a vector from `embedder` (every chunk when `force`) and rebuilds
/// the HNSW index. `on_progress(done, total)` follows the embedding; setting `cancel` stops
/// after the current group with [`VidyaError::Cancelled`] (finished groups stay stored).
pub fn reindex(
    lib: &mut Library,
    embedder: &Embedder,
    force: bool,
    cancel: Option<&AtomicBool>,
    on_progress: &mut dyn FnMut(usize, usize),
) -> Result<ReindexReport> {
    let t0 = std::time::Instant::now();
    let model = embedder.model_id();
    if force {
        lib.delete_vectors()?;
    }
    let todo = lib.chunks_without_vectors(&model)?;
    let total = todo.len();
    let mut done = 0;
    for group in todo.chunks(REINDEX_COMMIT) {
        let texts: Vec<&str> = group.iter().map(|(_, t)| t.as_str()).collect();
        let keep_going = || cancel.is_none_or(|c| !c.load(Ordering::SeqCst));
        let vectors = embedder.embed_passages_batched(
            &texts,
            &mut |d, _| on_progress(done + d, total),
            &keep_going,
        )?;
        let rows: Vec<(i64, Vec<f32>)> = group.iter().map(|(id, _)| *id).zip(vectors).collect();
        lib.put_chunk_vectors(&model, &rows)?;
        done += group.len();
        if !keep_going() {
            return Err(VidyaError::Cancelled);
        }
    }
    DenseIndex::remove_files(lib.dir());
    let index = DenseIndex::open(lib, &model, crate::embed::DIM)?;
    Ok(ReindexReport {
        embedded: total,
        indexed: index.len(),
        model,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Brings the HNSW index file up to date after books were added (best effort): `None` when it
/// is current, else a note for the teacher (earlier chunks still without vectors, or why the
/// index could not be rebuilt; the next question then rebuilds it).
pub fn sync_index(lib: &Library, embedder: &Embedder) -> Option<String> {
    let model = embedder.model_id();
    match lib.missing_vector_count(&model) {
        Ok(0) => DenseIndex::open(lib, &model, crate::embed::DIM)
            .err()
            .map(|e| e.to_string()),
        Ok(n) => Some(format!(
            "{n} chunk(s) of earlier books have no dense vectors; run `vidya reindex` to add them"
        )),
        Err(e) => Some(e.to_string()),
    }
}
