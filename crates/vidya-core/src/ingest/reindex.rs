//! Adds dense vectors to chunks already in the library (`vidya reindex`): chunks ingested
//! without the embedder, or embedded by another model version.
//!
//! Chunks are embedded [`REINDEX_COMMIT`] at a time and each group is committed on its own, so
//! an interrupted reindex keeps what it finished and the next run continues from there. The
//! HNSW index is then brought up to date ([`crate::search::DenseIndex::open`]).

use crate::embed::{EmbedPool, Embedder};
use crate::error::{Result, VidyaError};
use crate::retrieve::prune::{chunk_sentences, ChunkSentence};
use crate::search::DenseIndex;
use crate::store::{Library, NewChunk};
use serde::Serialize;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// Chunks embedded per committed group.
pub const REINDEX_COMMIT: usize = 256;

/// Chunks whose texts are embedded together by the pool's workers; progress and cancelling
/// are checked between such windows (about a second of work on this 2-core machine).
pub const WINDOW: usize = 8;

/// Fewest chunks for which [`embed_chunks`] and [`reindex`] open the worker sessions of
/// [`Embedder::pool`] (opening them takes longer than embedding a few chunks).
pub const PARALLEL_MIN_CHUNKS: usize = 32;

/// A [`ChunkEmbedder`] with the worker sessions when there are at least
/// [`PARALLEL_MIN_CHUNKS`] chunks to embed.
fn chunk_embedder(embedder: &Embedder, chunks: usize) -> Result<ChunkEmbedder<'_>> {
    if chunks >= PARALLEL_MIN_CHUNKS {
        ChunkEmbedder::parallel(embedder)
    } else {
        Ok(ChunkEmbedder::new(embedder))
    }
}

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
/// counts chunks; setting `cancel` stops within a window of [`WINDOW`] chunks with
/// [`VidyaError::Cancelled`], keeping every chunk embedded before it.
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
    let mut chunker = chunk_embedder(embedder, total)?;
    let mut done = 0;
    for group in todo.chunks(REINDEX_COMMIT) {
        let keep_going = || cancel.is_none_or(|c| !c.load(Ordering::SeqCst));
        let (mut vectors, mut sentence_vectors) = (Vec::new(), Vec::new());
        for window in group.chunks(WINDOW) {
            if !keep_going() {
                // What this group embedded so far is kept too.
                lib.put_chunk_vectors(&model, &vectors)?;
                lib.put_sentence_vectors(&model, &sentence_vectors)?;
                return Err(VidyaError::Cancelled);
            }
            let texts: Vec<_> = window
                .iter()
                .map(|c| (c.context.as_str(), c.text.as_str()))
                .collect();
            for (c, (v, s)) in window.iter().zip(chunker.embed_texts(&texts)?) {
                if c.lacks_vector {
                    vectors.push((c.id, v));
                }
                if c.lacks_sentences {
                    sentence_vectors.push((c.id, s));
                }
                done += 1;
                on_progress(done, total);
            }
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
    let mut e = chunk_embedder(embedder, total)?;
    let mut done = 0;
    for window in chunks.chunks_mut(WINDOW) {
        if !keep_going() {
            return Err(VidyaError::Cancelled);
        }
        let texts: Vec<_> = window
            .iter()
            .map(|c| (c.context.as_str(), c.text.as_str()))
            .collect();
        let embedded = e.embed_texts(&texts)?;
        for (c, (vector, sentence_vectors)) in window.iter_mut().zip(embedded) {
            c.vector = Some(vector);
            c.sentence_vectors = Some(sentence_vectors);
            done += 1;
            on_progress(done, total);
        }
    }
    Ok(())
}

/// The texts a chunk's vectors are made of: its sentences (or its whole text when it has
/// none), and its section title when it has one.
fn texts_of<'t>(c: &ChunkParts<'t>) -> (Vec<&'t str>, Option<&'t str>) {
    let own = if c.sentences.is_empty() {
        vec![c.text]
    } else {
        c.sentences.iter().map(|s| s.text.as_str()).collect()
    };
    (own, (!c.context.is_empty()).then_some(c.context))
}

/// A chunk's unit vector and one unit vector per sentence ([`crate::embed::DIM`] floats each).
pub type ChunkVectors = (Vec<f32>, Vec<Vec<f32>>);

/// What [`ChunkEmbedder::embed_group`] needs of one chunk.
#[derive(Debug, Clone, Copy)]
pub struct ChunkParts<'t> {
    /// Its section title (may be empty).
    pub context: &'t str,
    /// Its text (embedded whole only when it has no sentence).
    pub text: &'t str,
    /// Its [`chunk_sentences`], in their order.
    pub sentences: &'t [ChunkSentence],
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
/// The vectors of the previous chunk's sentences and of the sections seen are kept, and a
/// text repeated within one group is embedded once, so the sentence a chunk repeats from the
/// one before it (the overlap) and a section shared by many chunks are embedded once. Every
/// text is embedded alone, so its vector does not depend on how the chunks are grouped nor on
/// which session ran it.
pub struct ChunkEmbedder<'a> {
    embedder: &'a Embedder,
    /// Worker sessions ([`ChunkEmbedder::parallel`]); without, the embedder's own session.
    pool: Option<EmbedPool<'a>>,
    /// Vectors of the previous chunk's sentences, by text.
    previous: HashMap<String, Vec<f32>>,
    /// Vectors of the sections seen, by title.
    sections: HashMap<String, Vec<f32>>,
}

impl<'a> ChunkEmbedder<'a> {
    /// A chunk embedder with nothing seen yet, running texts in turn on the embedder's own
    /// session (a question's few chunks).
    pub fn new(embedder: &'a Embedder) -> Self {
        Self {
            embedder,
            pool: None,
            previous: HashMap::new(),
            sections: HashMap::new(),
        }
    }

    /// A chunk embedder that runs a group's texts in parallel on worker sessions
    /// ([`Embedder::pool`]): a book's chunks at ingest and at `reindex`.
    ///
    /// Errors: the worker sessions could not be opened.
    pub fn parallel(embedder: &'a Embedder) -> Result<Self> {
        Ok(Self {
            pool: Some(embedder.pool()?),
            ..Self::new(embedder)
        })
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
        sentences: &[ChunkSentence],
    ) -> Result<ChunkVectors> {
        let parts = ChunkParts {
            context,
            text,
            sentences,
        };
        Ok(self.embed_group(&[parts])?.remove(0))
    }

    /// [`ChunkEmbedder::embed_group`] for chunks given as (section title, text), their
    /// sentences being their [`chunk_sentences`].
    ///
    /// Errors: the embedder failed.
    pub fn embed_texts(&mut self, chunks: &[(&str, &str)]) -> Result<Vec<ChunkVectors>> {
        let sentences: Vec<_> = chunks.iter().map(|(_, t)| chunk_sentences(t)).collect();
        let parts: Vec<_> = chunks
            .iter()
            .zip(&sentences)
            .map(|((context, text), s)| ChunkParts {
                context,
                text,
                sentences: s,
            })
            .collect();
        self.embed_group(&parts)
    }

    /// [`ChunkEmbedder::embed`] for each of `chunks`, in order: the texts not seen yet run
    /// together (in parallel with [`ChunkEmbedder::parallel`]), then each chunk's vectors are
    /// put together.
    ///
    /// Errors: the embedder failed.
    pub fn embed_group(&mut self, chunks: &[ChunkParts<'_>]) -> Result<Vec<ChunkVectors>> {
        // The previous chunk's sentences as the group began: any chunk of the group may repeat
        // one of these.
        let before = std::mem::take(&mut self.previous);
        let mut todo: Vec<&str> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for c in chunks {
            let (own, section) = texts_of(c);
            for t in own.into_iter().chain(section) {
                let known = before.contains_key(t) || self.sections.contains_key(t);
                if !known && seen.insert(t) {
                    todo.push(t);
                }
            }
        }
        let ran = match &mut self.pool {
            Some(pool) => pool.embed_passages(&todo)?,
            None => self.embedder.embed_passages(&todo)?,
        };
        let fresh: HashMap<&str, Vec<f32>> = todo.into_iter().zip(ran).collect();
        let mut out = Vec::with_capacity(chunks.len());
        for c in chunks {
            let (own, section) = texts_of(c);
            let lookup = |t: &str| {
                fresh
                    .get(t)
                    .or_else(|| before.get(t))
                    .or_else(|| self.sections.get(t))
                    .filter(|v| v.len() == crate::embed::DIM)
                    .cloned()
                    .ok_or_else(|| {
                        VidyaError::Internal(format!(
                            "no vector was made for the text {:?}",
                            t.chars().take(60).collect::<String>()
                        ))
                    })
            };
            let vectors = own.iter().map(|t| lookup(t)).collect::<Result<Vec<_>>>()?;
            let section_vector = section.map(lookup).transpose()?;
            let mut parts: Vec<&[f32]> = vectors.iter().map(Vec::as_slice).collect();
            parts.extend(section_vector.as_deref());
            let vector = crate::store::vectors::centroid(parts).unwrap_or_default();
            if let (Some(title), Some(v)) = (section, section_vector) {
                self.sections.entry(title.to_string()).or_insert(v);
            }
            let sentence_vectors = if c.sentences.is_empty() {
                Vec::new()
            } else {
                vectors
            };
            out.push((vector, sentence_vectors));
        }
        // For the next group: the last chunk's sentences (none when it has none).
        if let (Some(c), Some((_, vectors))) = (chunks.last(), out.last()) {
            self.previous = c
                .sentences
                .iter()
                .map(|s| s.text.clone())
                .zip(vectors.iter().cloned())
                .collect();
        }
        Ok(out)
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
