//! Asking a question: run the retrieval pipeline ([`crate::retrieve`]) and compose the
//! extractive answer from its pruned passages.
//!
//! [`Engine`] holds an open library with its loaded indexes and models so that many questions
//! (a chat, an eval run) pay the loading cost once.

use crate::answer::extractive::{self, Citation, NOT_FOUND};
use crate::error::{Result, VidyaError};
use crate::retrieve::{Models, PipelineConfig, PipelineResult, Retriever};
use crate::search::Bm25Index;
use crate::store::Library;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// Questions longer than this many characters are cut before retrieval (a pasted page is not a
/// question; BM25 over thousands of terms only adds noise and time).
pub const MAX_QUESTION_CHARS: usize = 2000;

/// Options for [`Engine::ask`].
#[derive(Debug, Clone)]
pub struct AskOptions {
    /// Only search these books (ids); all books when `None`.
    pub books: Option<Vec<i64>>,
    /// Most sources quoted in the answer.
    pub max_citations: usize,
    /// Stage settings.
    pub pipeline: PipelineConfig,
}

impl Default for AskOptions {
    fn default() -> Self {
        Self {
            books: None,
            max_citations: 4,
            pipeline: PipelineConfig::default(),
        }
    }
}

/// The result of a question: the object `vidya ask --json` prints.
///
/// Stable fields (later versions add fields, never rename these): `answer` (text with `[n]`
/// markers), `gated` (true when retrieval found nothing relevant and no source is quoted),
/// `citations` (see [`Citation`]), `context_tokens` (answer-model tokens of the quoted text,
/// see [`crate::retrieve::budget`]), `timings_ms` (wall time per stage in milliseconds:
/// `retrieve`, `compose`, `total`), `retrieval` (the pipeline's per-stage figures, see
/// [`PipelineResult`]).
#[derive(Debug, Clone, Serialize)]
pub struct AskResponse {
    /// Answer text.
    pub answer: String,
    /// True when the relevance gate stopped the answer.
    pub gated: bool,
    /// Numbered sources.
    pub citations: Vec<Citation>,
    /// Answer-model tokens of the quoted context.
    pub context_tokens: usize,
    /// Answer-model tokens of the whole pages the kept chunks come from: what a tutor without
    /// the budget and the pruner would send (the dashboard's full-page baseline).
    pub page_tokens: usize,
    /// Milliseconds per stage.
    pub timings_ms: BTreeMap<String, f64>,
    /// Per-stage figures of the retrieval pipeline.
    pub retrieval: PipelineResult,
}

/// An open library with its indexes and models.
#[derive(Debug)]
pub struct Engine {
    lib: Library,
    retriever: Arc<Retriever>,
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

impl Engine {
    /// Opens the library in `dir` with every installed model.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        Self::from_library(Library::open(dir)?)
    }

    /// Wraps an open library, loading its indexes and every installed model.
    pub fn from_library(lib: Library) -> Result<Self> {
        Self::with_models(lib, &Models::load())
    }

    /// Wraps an open library with the given models.
    pub fn with_models(lib: Library, models: &Models) -> Result<Self> {
        let retriever = Arc::new(Retriever::load(&lib, models)?);
        Ok(Self { lib, retriever })
    }

    /// The same indexes and models over a connection of its own to the library, so that
    /// another thread can retrieve at the same time (the indexes are shared, not copied).
    /// Errors: the library's database cannot be opened.
    pub fn fork(&self) -> Result<Self> {
        Ok(Self {
            lib: Library::open_existing(self.lib.dir())?,
            retriever: self.retriever.clone(),
        })
    }

    /// The library.
    pub fn library(&self) -> &Library {
        &self.lib
    }

    /// The BM25 index.
    pub fn index(&self) -> &Bm25Index {
        self.retriever.bm25()
    }

    /// The retrieval pipeline.
    pub fn retriever(&self) -> &Retriever {
        &self.retriever
    }

    /// The question cut to [`MAX_QUESTION_CHARS`], without the invisible characters that split
    /// a word where they sit ([`crate::text::normalize::drop_invisible`]). Errors: [`VidyaError::EmptyQuestion`] when
    /// it has no letter or digit in any script (only spaces, punctuation or emoji: nothing to
    /// search for, and nothing worth keeping as a conversation).
    pub fn clean_question(question: &str) -> Result<String> {
        let q: String = crate::text::normalize::drop_invisible(question)
            .chars()
            .take(MAX_QUESTION_CHARS)
            .collect();
        if !q.chars().any(char::is_alphanumeric) {
            return Err(VidyaError::EmptyQuestion);
        }
        Ok(q)
    }

    /// Runs the pipeline for `question`.
    ///
    /// Errors: [`VidyaError::EmptyQuestion`], [`VidyaError::EmptyLibrary`],
    /// [`VidyaError::NoSuchBook`] for an unknown book filter, database and model errors.
    pub fn retrieve(
        &self,
        question: &str,
        books: Option<&[i64]>,
        cfg: &PipelineConfig,
    ) -> Result<PipelineResult> {
        let q = Self::clean_question(question)?;
        if self.retriever.bm25().is_empty() {
            return Err(VidyaError::EmptyLibrary);
        }
        if let Some(books) = books {
            for id in books {
                self.lib.book(*id)?;
            }
        }
        self.retriever.run(&self.lib, &q, books, cfg)
    }

    /// Answers `question` from the library with quoted, cited sentences.
    ///
    /// Errors: as [`Engine::retrieve`].
    pub fn ask(&self, question: &str, opts: &AskOptions) -> Result<AskResponse> {
        let t0 = Instant::now();
        let result = self.retrieve(question, opts.books.as_deref(), &opts.pipeline)?;
        let mut timings = BTreeMap::new();
        timings.insert("retrieve".to_string(), ms(t0));
        let t = Instant::now();
        let (answer, citations) = if result.gate.pass {
            let a = extractive::from_passages(&self.lib, &result.passages, opts.max_citations)?;
            (a.answer, a.citations)
        } else {
            (NOT_FOUND.to_string(), Vec::new())
        };
        timings.insert("compose".to_string(), ms(t));
        timings.insert("total".to_string(), ms(t0));
        let counter = self.retriever.counter();
        let context_tokens = citations.iter().map(|c| counter.count(&c.text)).sum();
        let mut pages: Vec<(i64, usize)> = result
            .passages
            .iter()
            .map(|p| &p.chunk)
            .flat_map(|c| (c.first_page..=c.last_page).map(move |p| (c.book_id, p)))
            .collect();
        pages.sort_unstable();
        pages.dedup();
        let mut page_tokens = 0;
        for (book, page) in pages {
            if let Some(text) = self.lib.page_text(book, page)? {
                page_tokens += counter.count(&text);
            }
        }
        Ok(AskResponse {
            page_tokens,
            gated: citations.is_empty(),
            answer,
            citations,
            context_tokens,
            timings_ms: timings,
            retrieval: result,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invisible_characters_inside_words_are_dropped_but_indic_joiners_kept() {
        for (pasted, clean) in [
            ("what is os\u{200B}mosis", "what is osmosis"),
            ("what is os\u{200D}mosis", "what is osmosis"),
            (
                "photo\u{00AD}synthesis\u{2060} kya\u{200C} hai\u{FEFF}",
                "photosynthesis kya hai",
            ),
            ("\u{FEFF}define inertia", "define inertia"),
            // ZWNJ after a Devanagari letter shapes the conjunct: kept.
            ("क्\u{200C}ष क्या है", "क्\u{200C}ष क्या है"),
            ("ನ್ಯೂಟನ್\u{200C}ನ ನಿಯಮ", "ನ್ಯೂಟನ್\u{200C}ನ ನಿಯಮ"),
        ] {
            assert_eq!(Engine::clean_question(pasted).unwrap(), clean, "{pasted:?}");
        }
    }

    #[test]
    fn a_question_needs_a_letter_or_a_digit_in_some_script() {
        for empty in [
            "",
            "   ",
            "???",
            "!!! ...",
            "🙏🙏",
            "\u{200d}\u{200b}",
            "-- ** --",
        ] {
            assert!(
                matches!(
                    Engine::clean_question(empty),
                    Err(VidyaError::EmptyQuestion)
                ),
                "{empty:?}"
            );
        }
        for real in ["2+2?", "why?", "प्रकाश क्या है", "ಬೆಳಕು", "ஒளி 🙏", "x"]
        {
            assert_eq!(Engine::clean_question(real).unwrap(), real);
        }
        let long = "a".repeat(MAX_QUESTION_CHARS + 5);
        assert_eq!(
            Engine::clean_question(&long).unwrap().chars().count(),
            MAX_QUESTION_CHARS
        );
    }
}
