//! Adds dense vectors to chunks already in the library (`vidya reindex`): chunks ingested
//! without the embedder, or embedded by another model version.
//!
//! Chunks are embedded [`REINDEX_COMMIT`] at a time and each group is committed on its own, so
//! an interrupted reindex keeps what it finished and the next run continues from there. The
//! HNSW index is then brought up to date ([`crate::search::DenseIndex::open`]).

use crate::embed::Embedder;
use crate::error::{Result, VidyaError};
use crate::search::DenseIndex;
use crate::store::{Library, NewChunk};
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
    let sentence_todo = lib.chunks_without_sentence_vectors(&model)?;
    let total = todo.len() + sentence_todo.len();
    // A chunk that lacked both its vector and its sentence vectors is one chunk embedded.
    let chunks_embedded = todo
        .iter()
        .chain(&sentence_todo)
        .map(|(id, _)| *id)
        .collect::<std::collections::HashSet<i64>>()
        .len();
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
    // Sentence vectors (the pruner's and the rescoring stage's), per group of chunks.
    for group in sentence_todo.chunks(REINDEX_COMMIT) {
        let keep_going = || cancel.is_none_or(|c| !c.load(Ordering::SeqCst));
        let sentences: Vec<Vec<String>> = group
            .iter()
            .map(|(_, text)| {
                crate::retrieve::prune::chunk_sentences(text)
                    .into_iter()
                    .map(|s| s.text)
                    .collect()
            })
            .collect();
        let texts: Vec<&str> = sentences.iter().flatten().map(String::as_str).collect();
        let mut vectors = embedder
            .embed_passages_batched(&texts, &mut |_, _| {}, &keep_going)?
            .into_iter();
        let rows: Vec<(i64, Vec<Vec<f32>>)> = group
            .iter()
            .zip(&sentences)
            .map(|((id, _), s)| (*id, vectors.by_ref().take(s.len()).collect()))
            .collect();
        lib.put_sentence_vectors(&model, &rows)?;
        done += group.len();
        on_progress(done, total);
        if !keep_going() {
            return Err(VidyaError::Cancelled);
        }
    }
    DenseIndex::remove_files(lib.dir());
    let index = DenseIndex::open(lib, &model, crate::embed::DIM)?;
    Ok(ReindexReport {
        embedded: chunks_embedded,
        indexed: index.len(),
        model,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Embeds `chunks` for dense retrieval: each chunk's text with its section
/// ([`super::chunk::indexed_text`]) into [`NewChunk::vector`], and each of its sentences
/// ([`crate::retrieve::prune::chunk_sentences`]) into [`NewChunk::sentence_vectors`], in one
/// length-sorted batched run. `on_progress(done, total)` counts texts (chunks and sentences);
/// `keep_going` returning `false` stops with [`VidyaError::Cancelled`].
///
/// Errors: the embedder failed; cancelled.
pub fn embed_chunks(
    embedder: &Embedder,
    chunks: &mut [NewChunk],
    on_progress: &mut dyn FnMut(usize, usize),
    keep_going: &dyn Fn() -> bool,
) -> Result<()> {
    let indexed: Vec<String> = chunks
        .iter()
        .map(|c| super::chunk::indexed_text(&c.context, &c.text).into_owned())
        .collect();
    let sentences: Vec<Vec<String>> = chunks
        .iter()
        .map(|c| {
            crate::retrieve::prune::chunk_sentences(&c.text)
                .into_iter()
                .map(|s| s.text)
                .collect()
        })
        .collect();
    let mut texts: Vec<&str> = indexed.iter().map(String::as_str).collect();
    texts.extend(sentences.iter().flatten().map(String::as_str));
    let mut vectors = embedder
        .embed_passages_batched(&texts, on_progress, keep_going)?
        .into_iter();
    for c in chunks.iter_mut() {
        c.vector = vectors.next();
    }
    for (c, s) in chunks.iter_mut().zip(&sentences) {
        c.sentence_vectors = Some(vectors.by_ref().take(s.len()).collect());
    }
    Ok(())
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
