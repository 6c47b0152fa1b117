//! Benchmarks printed by `vidya bench`: per-stage latency over a large synthetic library, and
//! ingest throughput. Tests never time anything; these figures are for people.
//!
//! The synthetic library is grown from a real embedded library (e.g. Biology 2e): chunk `i` of
//! the synthetic library is a copy of source chunk `i mod n` (its text, so BM25 postings and
//! lengths stay realistic, and the sentence vectors stored at ingest, so the pruner reads them
//! as it does in a real library) whose vector is the source vector plus uniform noise of ±[`SyntheticSpec::noise`] per dimension, renormalised (so the
//! HNSW graph has realistic neighbourhoods rather than exact duplicates). Chunks are grouped
//! into chapters and books of textbook size.

use crate::error::{Result, VidyaError};
use crate::store::{Library, NewBook, NewChapter, NewChunk, NewFile, NewPage};
use crate::text::{estimate_tokens, Tokenizer};
use rand::{Rng, SeedableRng};
use serde::Serialize;

/// Shape of a synthetic library.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SyntheticSpec {
    /// Chunks in total.
    pub chunks: usize,
    /// Chunks per chapter (Biology 2e: ≈ 74).
    pub chunks_per_chapter: usize,
    /// Chapters per book.
    pub chapters_per_book: usize,
    /// Per-dimension noise added to the copied vectors (before renormalising).
    pub noise: f32,
    /// RNG seed.
    pub seed: u64,
}

impl Default for SyntheticSpec {
    fn default() -> Self {
        Self {
            chunks: 100_000,
            chunks_per_chapter: 75,
            chapters_per_book: 20,
            noise: 0.02,
            seed: 7,
        }
    }
}

/// A source chunk: its text, vector and sentence vectors (when stored) of the model.
type SourceChunk = (String, Vec<f32>, Option<Vec<Vec<f32>>>);

/// Source chunks with their vectors of `model` (and the sentence vectors stored at ingest,
/// when the source has them), in id order.
fn source_chunks(src: &Library, model: &str) -> Result<Vec<SourceChunk>> {
    let mut st = src
        .conn
        .prepare(
            "SELECT c.text, v.vector, s.vectors FROM chunks c
             JOIN chunk_vectors v ON v.chunk_id = c.id
             LEFT JOIN sentence_vectors s ON s.chunk_id = c.id AND s.model = ?1
             WHERE v.model = ?1 ORDER BY c.id",
        )
        .map_err(|e| src.db_err(e))?;
    let rows = st
        .query_map([model], |r| {
            let vector = crate::store::vectors::decode(&r.get::<_, Vec<u8>>(1)?);
            let sentences = r
                .get::<_, Option<Vec<u8>>>(2)?
                .and_then(|b| crate::store::sentences::decode(&b, vector.len()));
            Ok((r.get::<_, String>(0)?, vector, sentences))
        })
        .map_err(|e| src.db_err(e))?;
    rows.collect::<std::result::Result<_, _>>()
        .map_err(|e| src.db_err(e))
}

/// Fills the empty library `dst` with a synthetic library grown from `src` (which must hold
/// vectors of `model`). `on_book(done, total)` follows the books written. Returns the chunks
/// written.
///
/// Errors: `src` has no embedded chunks, `dst` is not empty, database errors.
pub fn build_synthetic(
    src: &Library,
    dst: &mut Library,
    model: &str,
    spec: &SyntheticSpec,
    on_book: &mut dyn FnMut(usize, usize),
) -> Result<usize> {
    let source = source_chunks(src, model)?;
    if source.is_empty() {
        return Err(VidyaError::BadOption(format!(
            "the source library at {} has no chunks embedded with {model}: ingest a book into it first (with the models installed)",
            src.dir().display()
        )));
    }
    if dst.counts()?.0 > 0 {
        return Err(VidyaError::BadOption(format!(
            "the benchmark library at {} is not empty: give a new folder",
            dst.dir().display()
        )));
    }
    let tokenizer = Tokenizer::new();
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(spec.seed);
    let per_book = spec.chunks_per_chapter * spec.chapters_per_book;
    let books = spec.chunks.div_ceil(per_book);
    let mut written = 0;
    for b in 0..books {
        let n = per_book.min(spec.chunks - written);
        let mut chunks = Vec::with_capacity(n);
        let mut pages = Vec::with_capacity(n);
        for i in 0..n {
            let (text, vector, sentence_vectors) = &source[(written + i) % source.len()];
            // BM25 is a bag of words, so a copy scores as its source; the chunk vector gets
            // noise so that the HNSW holds distinct points. The text is copied as it is, so
            // the sentence vectors stored at ingest still match its sentences.
            let text = text.clone();
            let mut v: Vec<f32> = vector
                .iter()
                .map(|x| x + rng.random_range(-spec.noise..=spec.noise))
                .collect();
            crate::store::vectors::normalize(&mut v);
            let chapter = i / spec.chunks_per_chapter;
            pages.push(NewPage {
                file: 0,
                chapter,
                pdf_page: (i + 1) as u32,
                label: (i + 1).to_string(),
                text: String::new(),
                ocr: None,
            });
            chunks.push(NewChunk {
                chapter,
                first_page: i,
                last_page: i,
                terms: tokenizer.terms(&text),
                token_count: estimate_tokens(&text),
                page_starts: vec![(0, i)],
                text,
                vector: Some(v),
                kind: crate::ingest::blocks::BlockKind::Body,
                context: String::new(),
                sentence_vectors: sentence_vectors.clone(),
            });
        }
        let chapters = n.div_ceil(spec.chunks_per_chapter);
        let book = NewBook {
            title: format!("Synthetic book {}", b + 1),
            language: "en".into(),
            sha256: format!("synthetic-{}-{b}", spec.seed),
            source_path: "synthetic".into(),
            files: vec![NewFile {
                path: "synthetic".into(),
                name: format!("synthetic-{b}.pdf"),
                sha256: format!("synthetic-{}-{b}", spec.seed),
                page_count: n,
            }],
            chapters: (0..chapters)
                .map(|c| NewChapter {
                    title: format!("Chapter {}", c + 1),
                    first_page: c * spec.chunks_per_chapter,
                    last_page: ((c + 1) * spec.chunks_per_chapter).min(n) - 1,
                })
                .collect(),
            pages,
            chunks,
            warnings: Vec::new(),
            embedding_model: Some(model.to_string()),
            replaces: None,
        };
        dst.insert_book(&book, || {})?;
        written += n;
        on_book(b + 1, books);
    }
    Ok(written)
}

/// Latency percentiles of one stage (ms).
#[derive(Debug, Clone, Serialize)]
pub struct StageLatency {
    /// Stage name ([`crate::retrieve::StageReport::stage`]), or `total`.
    pub stage: String,
    /// Runs that had this stage.
    pub runs: usize,
    /// Median (ms).
    pub p50_ms: f64,
    /// 95th percentile (ms).
    pub p95_ms: f64,
}

/// Runs `questions` through `engine` with `cfg` (after `warmup` untimed runs) and returns the
/// per-stage and total latency percentiles.
pub fn stage_latency(
    engine: &crate::Engine,
    questions: &[String],
    cfg: &crate::retrieve::PipelineConfig,
    warmup: usize,
) -> Result<Vec<StageLatency>> {
    for q in questions.iter().take(warmup) {
        engine.retrieve(q, None, cfg)?;
    }
    let mut per: Vec<(String, Vec<f64>)> = Vec::new();
    let mut totals = Vec::new();
    for q in questions {
        let t = std::time::Instant::now();
        let r = match engine.retrieve(q, None, cfg) {
            Ok(r) => r,
            Err(VidyaError::EmptyQuestion) => continue,
            Err(e) => return Err(e),
        };
        totals.push(t.elapsed().as_secs_f64() * 1e3);
        for s in r.stages {
            match per.iter_mut().find(|(n, _)| n == s.stage) {
                Some((_, v)) => v.push(s.ms),
                None => per.push((s.stage.to_string(), vec![s.ms])),
            }
        }
    }
    per.push(("total".into(), totals));
    Ok(per
        .into_iter()
        .map(|(stage, v)| StageLatency {
            stage,
            runs: v.len(),
            p50_ms: crate::eval::quantile(&v, 0.5),
            p95_ms: crate::eval::quantile(&v, 0.95),
        })
        .collect())
}

/// Peak resident memory of this process so far (bytes), from `/proc/self/status` (`VmHWM`);
/// `None` where the platform does not report it.
pub fn peak_rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Starts [`peak_rss_bytes`] again from the current resident memory (Linux: `5` written to
/// `/proc/self/clear_refs`, proc(5)), so that one run can report the peak of each of its
/// phases. Returns `false` where the platform cannot.
pub fn reset_peak_rss() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}
