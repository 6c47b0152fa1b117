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

/// Embeds every chunk lacking its vector or its sentence vectors from `embedder` (every chunk
/// when `force`; [`ChunkEmbedder`]) and rebuilds the HNSW index. `on_progress(done, total)`
/// counts chunks; setting `cancel` stops before the next chunk with [`VidyaError::Cancelled`]
/// (groups of [`REINDEX_COMMIT`] chunks already finished stay stored).
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
    let todo = lib.chunks_to_embed(&model)?;
    let total = todo.len();
    let mut chunker = ChunkEmbedder::new(embedder);
    let mut done = 0;
    for group in todo.chunks(REINDEX_COMMIT) {
        let keep_going = || cancel.is_none_or(|c| !c.load(Ordering::SeqCst));
        let (mut vectors, mut sentence_vectors) = (Vec::new(), Vec::new());
        for c in group {
            if !keep_going() {
                return Err(VidyaError::Cancelled);
            }
            let sentences = crate::retrieve::prune::chunk_sentences(&c.text);
            let (v, s) = chunker.embed(&c.context, &c.text, &sentences)?;
            if c.lacks_vector {
                vectors.push((c.id, v));
            }
            if c.lacks_sentences {
                sentence_vectors.push((c.id, s));
            }
            done += 1;
            on_progress(done, total);
        }
        lib.put_chunk_vectors(&model, &vectors)?;
        lib.put_sentence_vectors(&model, &sentence_vectors)?;
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

/// Embeds `chunks` for dense retrieval ([`ChunkEmbedder`]): [`NewChunk::vector`] and
/// [`NewChunk::sentence_vectors`]. `on_progress(done, total)` counts chunks; `keep_going`
/// returning `false` stops with [`VidyaError::Cancelled`].
///
/// Errors: the embedder failed; cancelled.
pub fn embed_chunks(
    embedder: &Embedder,
    chunks: &mut [NewChunk],
    on_progress: &mut dyn FnMut(usize, usize),
    keep_going: &dyn Fn() -> bool,
) -> Result<()> {
    let total = chunks.len();
    let mut e = ChunkEmbedder::new(embedder);
    for (done, c) in chunks.iter_mut().enumerate() {
        if !keep_going() {
            return Err(VidyaError::Cancelled);
        }
        let sentences = crate::retrieve::prune::chunk_sentences(&c.text);
        let (vector, sentence_vectors) = e.embed(&c.context, &c.text, &sentences)?;
        c.vector = Some(vector);
        c.sentence_vectors = Some(sentence_vectors);
        on_progress(done + 1, total);
    }
    Ok(())
}

/// A chunk's vectors, made from its sentences: each sentence
/// ([`crate::retrieve::prune::chunk_sentences`]) is embedded alone, and the chunk's vector is
/// the normalised mean of its sentences' vectors and its section's (the section title embedded
/// alone), so every sentence is embedded once per chunk and the chunk costs no run of its own.
///
/// Measured against embedding each chunk's text as a whole (alone) beside its sentences, with
/// the same gate, Biology 2e and Physics in the library: the student set's (`tests/eval`) test
/// hit@3 0.877 both, hit@1 0.693 against 0.684; dev hit@3 0.866 against 0.857; Biology 2e QA
/// recall@5 0.945 against 0.939, answer-sentence retention 0.953 against 0.947; and about 55 %
/// of the model's time at ingest. Pooling from the chunk's own run instead ("late chunking",
/// Günther et al. 2024, arXiv:2409.04701) was faster still but lost 0.12 of dev hit@3: sentence
/// vectors that all carry the chunk's context no longer tell its sentences apart.
///
/// The vectors of the previous chunk's sentences and of the sections seen are kept, so the
/// sentence a chunk repeats from the one before it (the overlap) and a section shared by many
/// chunks are embedded once.
pub struct ChunkEmbedder<'a> {
    embedder: &'a Embedder,
    /// Vectors of the previous chunk's sentences, by text.
    previous: std::collections::HashMap<String, Vec<f32>>,
    /// Vectors of the sections seen, by title.
    sections: std::collections::HashMap<String, Vec<f32>>,
}

impl<'a> ChunkEmbedder<'a> {
    /// A chunk embedder with nothing seen yet.
    pub fn new(embedder: &'a Embedder) -> Self {
        Self {
            embedder,
            previous: Default::default(),
            sections: Default::default(),
        }
    }

    /// One chunk's unit vector and one unit vector per sentence of `sentences` (its
    /// [`crate::retrieve::prune::chunk_sentences`], in their order), [`crate::embed::DIM`]
    /// floats each; `context` is its section (may be empty), `text` its text (embedded whole
    /// only when it has no sentence).
    ///
    /// Errors: the embedder failed.
    pub fn embed(
        &mut self,
        context: &str,
        text: &str,
        sentences: &[crate::retrieve::prune::ChunkSentence],
    ) -> Result<(Vec<f32>, Vec<Vec<f32>>)> {
        let mut current = std::collections::HashMap::new();
        let mut vectors = Vec::with_capacity(sentences.len());
        for s in sentences {
            let v = match self.previous.get(&s.text).or(current.get(&s.text)) {
                Some(v) => v.clone(),
                None => self.embedder.embed_passages(&[&s.text])?.remove(0),
            };
            current.insert(s.text.clone(), v.clone());
            vectors.push(v);
        }
        self.previous = current;
        let mut parts: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
        let whole;
        if parts.is_empty() {
            whole = self.embedder.embed_passages(&[text])?.remove(0);
            parts.push(&whole);
        }
        if !context.is_empty() {
            if !self.sections.contains_key(context) {
                let v = self.embedder.embed_passages(&[context])?.remove(0);
                self.sections.insert(context.to_string(), v);
            }
            parts.push(&self.sections[context]);
        }
        let vector = crate::store::vectors::centroid(parts).unwrap_or_default();
        Ok((vector, vectors))
    }
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
