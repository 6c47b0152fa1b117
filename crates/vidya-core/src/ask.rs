//! Asking a question: retrieve passages, gate weak matches, compose the extractive answer.
//!
//! [`Engine`] holds an open library and its loaded BM25 index so that many questions (a chat,
//! an eval run) pay the loading cost once.

use crate::answer::extractive::{self, Citation, NOT_FOUND};
use crate::error::{Result, VidyaError};
use crate::search::{Bm25Index, Hit};
use crate::store::{ChunkRecord, Library};
use crate::text::{estimate_tokens, Tokenizer};
use serde::Serialize;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::Instant;

/// Questions longer than this many characters are cut before retrieval (a pasted page is not a
/// question; BM25 over thousands of terms only adds noise and time).
pub const MAX_QUESTION_CHARS: usize = 2000;

/// The relevance gate: the best passage must contain question terms carrying at least this
/// share of the question's total idf weight, or the answer is "not in your textbooks".
pub const GATE_MIN_COVERAGE: f32 = 0.35;

/// Options for [`Engine::ask`].
#[derive(Debug, Clone)]
pub struct AskOptions {
    /// Only search these books (ids); all books when `None`.
    pub books: Option<Vec<i64>>,
    /// Passages quoted in the answer.
    pub max_citations: usize,
}

impl Default for AskOptions {
    fn default() -> Self {
        Self {
            books: None,
            max_citations: 3,
        }
    }
}

/// The result of a question: the object `vidya ask --json` prints.
///
/// Stable fields (later versions add fields, never rename these): `answer` (text with `[n]`
/// markers), `gated` (true when retrieval found nothing relevant and no source is quoted),
/// `citations` (see [`Citation`]), `context_tokens` (estimated tokens of the quoted text, see
/// [`estimate_tokens`]), `timings_ms` (wall time per stage in milliseconds: `retrieve`,
/// `compose`, `total`).
#[derive(Debug, Clone, Serialize)]
pub struct AskResponse {
    /// Answer text.
    pub answer: String,
    /// True when the relevance gate stopped the answer.
    pub gated: bool,
    /// Numbered sources.
    pub citations: Vec<Citation>,
    /// Estimated tokens of the quoted context.
    pub context_tokens: usize,
    /// Milliseconds per stage.
    pub timings_ms: BTreeMap<String, f64>,
}

/// An open library with its search index.
#[derive(Debug)]
pub struct Engine {
    lib: Library,
    index: Bm25Index,
    tokenizer: Tokenizer,
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

impl Engine {
    /// Opens the library in `dir` and loads its BM25 index.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let lib = Library::open(dir)?;
        Self::from_library(lib)
    }

    /// Wraps an open library, loading its BM25 index.
    pub fn from_library(lib: Library) -> Result<Self> {
        let index = Bm25Index::load(&lib)?;
        Ok(Self {
            lib,
            index,
            tokenizer: Tokenizer::new(),
        })
    }

    /// The library.
    pub fn library(&self) -> &Library {
        &self.lib
    }

    /// The BM25 index.
    pub fn index(&self) -> &Bm25Index {
        &self.index
    }

    /// Question terms (cut to [`MAX_QUESTION_CHARS`]). Errors: [`VidyaError::EmptyQuestion`].
    pub fn question_terms(&self, question: &str) -> Result<Vec<String>> {
        let q: String = question.chars().take(MAX_QUESTION_CHARS).collect();
        if q.trim().is_empty() {
            return Err(VidyaError::EmptyQuestion);
        }
        Ok(self.tokenizer.terms(&q))
    }

    /// The top `k` chunks for `question` with their records.
    pub fn retrieve(
        &self,
        question: &str,
        k: usize,
        books: Option<&[i64]>,
    ) -> Result<Vec<(Hit, ChunkRecord)>> {
        let terms = self.question_terms(question)?;
        self.retrieve_terms(&terms, k, books)
    }

    fn retrieve_terms(
        &self,
        terms: &[String],
        k: usize,
        books: Option<&[i64]>,
    ) -> Result<Vec<(Hit, ChunkRecord)>> {
        let mut out = Vec::new();
        for hit in self.index.search(terms, k, books) {
            if let Some(rec) = self.lib.chunk(hit.chunk_id)? {
                out.push((hit, rec));
            }
        }
        Ok(out)
    }

    /// Share of the question's idf weight found in `chunk_terms` (0..=1).
    ///
    /// Only terms written in a script the passage uses count: BM25 cannot match a Hindi word
    /// against English text, so in "photosynthesis में light reactions क्या हैं?" the Hindi
    /// words neither help nor hurt an English passage.
    fn coverage(&self, terms: &[String], passage: &ChunkRecord) -> f32 {
        use crate::text::script::{script_of, Script};
        let term_script = |t: &str| t.chars().map(script_of).find(|s| *s != Script::Other);
        let passage_scripts: HashSet<Script> = passage.text.chars().map(script_of).collect();
        let q: HashSet<&str> = terms
            .iter()
            .map(String::as_str)
            .filter(|t| term_script(t).is_none_or(|s| passage_scripts.contains(&s)))
            .collect();
        let have: HashSet<String> = self.tokenizer.terms(&passage.text).into_iter().collect();
        let total: f32 = q.iter().map(|t| self.index.idf(t)).sum();
        if total <= 0.0 {
            return 0.0;
        }
        q.iter()
            .filter(|t| have.contains(**t))
            .map(|t| self.index.idf(t))
            .sum::<f32>()
            / total
    }

    /// Answers `question` from the library with quoted, cited sentences.
    ///
    /// Errors: [`VidyaError::EmptyQuestion`], [`VidyaError::EmptyLibrary`],
    /// [`VidyaError::NoSuchBook`] for an unknown book filter, database errors.
    pub fn ask(&self, question: &str, opts: &AskOptions) -> Result<AskResponse> {
        self.ask_traced(question, opts).map(|(r, _)| r)
    }

    /// [`Engine::ask`], also returning the retrieved candidates (for trace logs).
    pub fn ask_traced(&self, question: &str, opts: &AskOptions) -> Result<(AskResponse, Vec<Hit>)> {
        let t0 = Instant::now();
        let terms = self.question_terms(question)?;
        if self.index.is_empty() {
            return Err(VidyaError::EmptyLibrary);
        }
        if let Some(books) = &opts.books {
            for id in books {
                self.lib.book(*id)?;
            }
        }
        let mut timings = BTreeMap::new();
        let t = Instant::now();
        let hits =
            self.retrieve_terms(&terms, opts.max_citations.max(1) * 2, opts.books.as_deref())?;
        timings.insert("retrieve".to_string(), ms(t));
        let t = Instant::now();
        let candidates: Vec<Hit> = hits.iter().map(|(h, _)| *h).collect();
        let gated = hits
            .first()
            .is_none_or(|(_, best)| self.coverage(&terms, best) < GATE_MIN_COVERAGE);
        let (answer, citations) = if gated {
            (NOT_FOUND.to_string(), Vec::new())
        } else {
            let passages: Vec<ChunkRecord> = hits.into_iter().map(|(_, r)| r).collect();
            let a = extractive::compose(
                &self.lib,
                &self.tokenizer,
                &terms,
                &passages,
                &|t| self.index.idf(t),
                opts.max_citations,
            )?;
            (a.answer, a.citations)
        };
        timings.insert("compose".to_string(), ms(t));
        timings.insert("total".to_string(), ms(t0));
        let context_tokens = citations.iter().map(|c| estimate_tokens(&c.text)).sum();
        Ok((
            AskResponse {
                gated: gated || citations.is_empty(),
                answer,
                citations,
                context_tokens,
                timings_ms: timings,
            },
            candidates,
        ))
    }
}
