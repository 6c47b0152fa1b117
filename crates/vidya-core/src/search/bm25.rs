//! BM25 over chunks, with the `bm25` crate's scorer.
//!
//! Scoring is Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25
//! and Beyond", 2009) with k1 = 1.2, b = 0.75 and idf = ln(1 + (N − df + 0.5)/(df + 0.5)), the
//! `bm25` crate's defaults. Terms come from [`crate::text::Tokenizer`] at ingest and are stored
//! per chunk, so loading the index never re-tokenizes the library (stored terms only pass
//! through [`fold_variants`], so libraries stored before that folding existed still match).

use crate::error::Result;
use crate::store::Library;
use crate::text::tokenize::fold_variants;
use bm25::{Embedder, EmbedderBuilder, Scorer};
use std::collections::{HashMap, HashSet};

/// Splits stored, space-joined terms (the text was tokenized at ingest).
#[derive(Debug, Default, Clone, Copy)]
pub struct StoredTerms;

impl bm25::Tokenizer for StoredTerms {
    fn tokenize(&self, input_text: &str) -> Vec<String> {
        input_text
            .split(' ')
            .filter(|t| !t.is_empty())
            .map(|t| fold_variants(t).into_owned())
            .collect()
    }
}

/// A retrieved chunk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Chunk id.
    pub chunk_id: i64,
    /// Book id.
    pub book_id: i64,
    /// BM25 score (unbounded, higher is better).
    pub score: f32,
}

/// The in-memory BM25 index of a library.
pub struct Bm25Index {
    scorer: Scorer<i64, u32>,
    embedder: Embedder<u32, StoredTerms>,
    book_of: HashMap<i64, i64>,
    doc_freq: HashMap<String, u32>,
    docs: usize,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("docs", &self.docs)
            .finish_non_exhaustive()
    }
}

impl Bm25Index {
    /// Builds the index from the terms stored in `lib` (no re-tokenizing).
    pub fn load(lib: &Library) -> Result<Self> {
        let rows = lib.all_terms()?;
        let total: usize = rows.iter().map(|r| r.term_count).sum();
        let avgdl = if rows.is_empty() {
            256.0
        } else {
            total as f32 / rows.len() as f32
        };
        let embedder: Embedder<u32, StoredTerms> = EmbedderBuilder::with_avgdl(avgdl).build();
        let mut scorer = Scorer::new();
        let mut book_of = HashMap::with_capacity(rows.len());
        let mut doc_freq: HashMap<String, u32> = HashMap::new();
        for r in &rows {
            scorer.upsert(&r.chunk_id, embedder.embed(&r.terms));
            book_of.insert(r.chunk_id, r.book_id);
            let distinct: HashSet<std::borrow::Cow<str>> = r
                .terms
                .split(' ')
                .filter(|t| !t.is_empty())
                .map(fold_variants)
                .collect();
            for t in distinct {
                *doc_freq.entry(t.into_owned()).or_default() += 1;
            }
        }
        Ok(Self {
            scorer,
            embedder,
            book_of,
            doc_freq,
            docs: rows.len(),
        })
    }

    /// Number of chunks indexed.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// True when no chunk is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    /// Inverse document frequency of a term, as BM25 uses it (0 for unknown terms is not
    /// returned: an unseen term gets the highest idf, ln(1 + (N + 0.5)/0.5)).
    pub fn idf(&self, term: &str) -> f32 {
        let df = self.doc_freq.get(term).copied().unwrap_or(0) as f32;
        let n = self.docs as f32;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// True when the term occurs in at least one chunk.
    pub fn knows(&self, term: &str) -> bool {
        self.doc_freq.contains_key(term)
    }

    /// The top `k` chunks for the query terms (duplicates ignored), optionally only from
    /// `books`. Returns hits by descending score; empty when no chunk shares a term.
    pub fn search(&self, query_terms: &[String], k: usize, books: Option<&[i64]>) -> Vec<Hit> {
        self.search_filtered(query_terms, k, &|_, book| {
            books.is_none_or(|b| b.contains(&book))
        })
    }

    /// The top `k` chunks for the query terms among those for which `allow(chunk id, book id)`
    /// is true, by descending score.
    pub fn search_filtered(
        &self,
        query_terms: &[String],
        k: usize,
        allow: &dyn Fn(i64, i64) -> bool,
    ) -> Vec<Hit> {
        let mut seen = HashSet::new();
        let distinct: Vec<&str> = query_terms
            .iter()
            .map(String::as_str)
            .filter(|t| seen.insert(*t))
            .collect();
        if distinct.is_empty() {
            return Vec::new();
        }
        let embedding = self.embedder.embed(&distinct.join(" "));
        let mut hits: Vec<Hit> = self
            .scorer
            .matches(&embedding)
            .into_iter()
            .filter_map(|d| {
                let book_id = *self.book_of.get(&d.id)?;
                allow(d.id, book_id).then_some(Hit {
                    chunk_id: d.id,
                    book_id,
                    score: d.score,
                })
            })
            .collect();
        // Equal scores come out of the scorer in hash order; break ties by chunk id so the same
        // question always gets the same answer.
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.chunk_id.cmp(&b.chunk_id))
        });
        hits.truncate(k);
        hits
    }
}
