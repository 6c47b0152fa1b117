//! BM25 over chunks, read from the word index on disk ([`crate::store::postings`]).
//!
//! Scoring is Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25
//! and Beyond", 2009) with k1 = 1.2, b = 0.75 and idf = ln(1 + (N − df + 0.5)/(df + 0.5)), the
//! `bm25` crate's defaults and formulas (its scorer gives the same top-k: see the tests).
//! Terms come from [`crate::text::Tokenizer`] at ingest and pass through [`fold_variants`]; the
//! index keeps, per term and book, the chunks holding it with the term's count and the chunk's
//! length. Loading reads two figures (N and the total length); a question reads only the rows
//! of its own terms, and the top k are selected without sorting every match.

use crate::error::Result;
use crate::store::postings;
use crate::store::Library;
use crate::text::tokenize::fold_variants;
use std::collections::{HashMap, HashSet};
use std::sync::{Mutex, MutexGuard};

/// BM25's term-frequency saturation (the `bm25` crate's default).
pub const K1: f32 = 1.2;

/// BM25's length normalisation (the `bm25` crate's default).
pub const B: f32 = 0.75;

/// The average chunk length assumed for an empty library (terms; the `bm25` crate's fallback).
pub const FALLBACK_AVGDL: f32 = 256.0;

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

/// The BM25 index of a library: a connection of its own to the library's word index.
pub struct Bm25Index {
    lib: Mutex<Library>,
    docs: usize,
    avgdl: f32,
    repaired: Vec<String>,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("docs", &self.docs)
            .field("avgdl", &self.avgdl)
            .finish_non_exhaustive()
    }
}

impl Bm25Index {
    /// Opens the word index of `lib`. A book whose index is missing or damaged (a library
    /// from before the on-disk index, a damaged one) is indexed again first, from its stored
    /// terms ([`postings::repair`]); [`Bm25Index::repaired`] names those books.
    ///
    /// Errors: database errors (the library cannot be opened again, or written when a book
    /// needs indexing).
    pub fn load(lib: &Library) -> Result<Self> {
        let own = Library::open_existing(lib.dir())?;
        let repaired = postings::repair(&own.conn).map_err(|e| own.db_err(e))?;
        if !repaired.is_empty() {
            tracing::warn!(books = ?repaired, "the word index was missing or damaged: built again from the stored text");
        }
        let (docs, total) = postings::totals(&own.conn).map_err(|e| own.db_err(e))?;
        let avgdl = if docs == 0 || total == 0 {
            FALLBACK_AVGDL
        } else {
            total as f32 / docs as f32
        };
        Ok(Self {
            lib: Mutex::new(own),
            docs: docs as usize,
            avgdl,
            repaired,
        })
    }

    fn lib(&self) -> MutexGuard<'_, Library> {
        self.lib.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Books whose word index was built again when it was opened (titles).
    pub fn repaired(&self) -> &[String] {
        &self.repaired
    }

    /// Number of chunks indexed.
    pub fn len(&self) -> usize {
        self.docs
    }

    /// True when no chunk is indexed.
    pub fn is_empty(&self) -> bool {
        self.docs == 0
    }

    fn idf_of(&self, df: u64) -> f32 {
        let (n, df) = (self.docs as f32, df as f32);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    fn doc_freq(&self, term: &str) -> u64 {
        let lib = self.lib();
        postings::doc_freq(&lib.conn, term).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the word index could not be read");
            0
        })
    }

    /// Inverse document frequency of a term, as BM25 uses it (an unseen term gets the highest
    /// idf, ln(1 + (N + 0.5)/0.5)).
    pub fn idf(&self, term: &str) -> f32 {
        self.idf_of(self.doc_freq(term))
    }

    /// True when the term occurs in at least one chunk.
    pub fn knows(&self, term: &str) -> bool {
        self.doc_freq(term) > 0
    }

    /// The top `k` chunks for the query terms (duplicates ignored), optionally only from
    /// `books`. Returns hits by descending score; empty when no chunk shares a term.
    pub fn search(&self, query_terms: &[String], k: usize, books: Option<&[i64]>) -> Vec<Hit> {
        self.search_filtered(query_terms, k, &|_, book| {
            books.is_none_or(|b| b.contains(&book))
        })
    }

    /// The top `k` chunks for the query terms among those for which `allow(chunk id, book id)`
    /// is true, by descending score (ties by ascending chunk id, so the same question always
    /// gets the same answer). A damaged row of the index is skipped with a warning and its
    /// book is indexed again at the next load.
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
            .filter(|t| !t.is_empty() && seen.insert(*t))
            .collect();
        if distinct.is_empty() || k == 0 {
            return Vec::new();
        }
        let lib = self.lib();
        let mut scores: HashMap<i64, (i64, f32)> = HashMap::new();
        for term in distinct {
            let rows = match postings::term_rows(&lib.conn, &fold_variants(term)) {
                Ok(r) => r,
                Err(e) => {
                    tracing::warn!(error = %e, "the word index could not be read");
                    continue;
                }
            };
            let df: u64 = rows.iter().map(|r| u64::from(r.df)).sum();
            let idf = self.idf_of(df);
            for row in rows {
                let Some(list) = postings::decode(&row.postings) else {
                    tracing::warn!(
                        book = row.book_id,
                        term,
                        "the word index of this book is damaged: it is indexed again the next time Vidya starts"
                    );
                    let _ = postings::mark_damaged(&lib.conn, row.book_id);
                    continue;
                };
                for p in list {
                    if !allow(p.chunk_id, row.book_id) {
                        continue;
                    }
                    let tf = p.tf as f32;
                    let norm = 1.0 - B + B * (p.dl as f32 / self.avgdl);
                    let weight = tf * (K1 + 1.0) / (tf + K1 * norm);
                    scores.entry(p.chunk_id).or_insert((row.book_id, 0.0)).1 += idf * weight;
                }
            }
        }
        drop(lib);
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|(chunk_id, (book_id, score))| Hit {
                chunk_id,
                book_id,
                score,
            })
            .collect();
        let order = |a: &Hit, b: &Hit| {
            b.score
                .total_cmp(&a.score)
                .then(a.chunk_id.cmp(&b.chunk_id))
        };
        if hits.len() > k {
            hits.select_nth_unstable_by(k - 1, order);
            hits.truncate(k);
        }
        hits.sort_unstable_by(order);
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{NewBook, NewChapter, NewChunk, NewFile, NewPage};
    use crate::text::Tokenizer;
    use rand::{Rng, SeedableRng};

    const WORDS: &[&str] = &[
        "photosynthesis",
        "chlorophyll",
        "light",
        "energy",
        "plant",
        "leaf",
        "green",
        "sugar",
        "carbon",
        "dioxide",
        "water",
        "oxygen",
        "cell",
        "nucleus",
        "mitosis",
        "meiosis",
        "gene",
        "force",
        "motion",
        "newton",
        "mass",
        "velocity",
        "acceleration",
        "work",
        "power",
        "heat",
        "electron",
        "atom",
        "current",
        "voltage",
        "wave",
        "sound",
        "river",
        "soil",
        "root",
    ];

    /// A book of `chunks` chunks of random sentences over [`WORDS`] (seeded).
    fn book(title: &str, chunks: usize, seed: u64, replaces: Option<i64>) -> NewBook {
        let tokenizer = Tokenizer::new();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let chunks: Vec<NewChunk> = (0..chunks)
            .map(|i| {
                let n = rng.random_range(5..80);
                let text: String = (0..n)
                    .map(|_| WORDS[rng.random_range(0..WORDS.len())])
                    .collect::<Vec<_>>()
                    .join(" ");
                NewChunk {
                    chapter: 0,
                    first_page: i,
                    last_page: i,
                    terms: tokenizer.terms(&text),
                    token_count: n,
                    page_starts: vec![(0, i)],
                    text,
                    vector: None,
                    kind: crate::ingest::blocks::BlockKind::Body,
                    context: String::new(),
                    sentence_vectors: None,
                }
            })
            .collect();
        let n = chunks.len();
        NewBook {
            title: title.into(),
            language: "en".into(),
            sha256: format!("{title}-{seed}"),
            source_path: "test".into(),
            files: vec![NewFile {
                path: "test".into(),
                name: format!("{title}.txt"),
                sha256: format!("{title}-{seed}"),
                page_count: n,
            }],
            chapters: vec![NewChapter {
                title: "Chapter 1".into(),
                first_page: 0,
                last_page: n - 1,
            }],
            pages: (0..n)
                .map(|i| NewPage {
                    file: 0,
                    chapter: 0,
                    pdf_page: i as u32 + 1,
                    label: (i + 1).to_string(),
                    text: String::new(),
                })
                .collect(),
            chunks,
            warnings: Vec::new(),
            embedding_model: None,
            replaces,
        }
    }

    /// The `bm25` crate's scorer over the same stored terms: what the index answered before it
    /// moved to disk.
    fn reference(lib: &Library, terms: &[String], k: usize) -> Vec<(i64, f32)> {
        #[derive(Default)]
        struct Folded;
        impl bm25::Tokenizer for Folded {
            fn tokenize(&self, text: &str) -> Vec<String> {
                text.split(' ')
                    .filter(|t| !t.is_empty())
                    .map(|t| fold_variants(t).into_owned())
                    .collect()
            }
        }
        let rows = lib.all_terms().unwrap();
        let total: usize = rows.iter().map(|r| r.term_count).sum();
        let embedder: bm25::Embedder<u32, Folded> =
            bm25::EmbedderBuilder::with_avgdl(total as f32 / rows.len() as f32).build();
        let mut scorer = bm25::Scorer::<i64, u32>::new();
        for r in &rows {
            scorer.upsert(&r.chunk_id, embedder.embed(&r.terms));
        }
        // As the index before: each distinct query term once.
        let mut seen = HashSet::new();
        let distinct: Vec<&str> = terms
            .iter()
            .map(String::as_str)
            .filter(|t| seen.insert(*t))
            .collect();
        let mut hits: Vec<(i64, f32)> = scorer
            .matches(&embedder.embed(&distinct.join(" ")))
            .into_iter()
            .map(|d| (d.id, d.score))
            .collect();
        hits.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        hits.truncate(k);
        hits
    }

    /// A question's terms, as the pipeline makes them.
    fn terms(text: &str) -> Vec<String> {
        Tokenizer::new().terms(text)
    }

    fn queries(seed: u64) -> Vec<Vec<String>> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        (0..40)
            .map(|_| {
                let text: Vec<&str> = (0..rng.random_range(1..6))
                    .map(|_| WORDS[rng.random_range(0..WORDS.len())])
                    .collect();
                terms(&text.join(" "))
            })
            .filter(|q| !q.is_empty())
            .collect()
    }

    fn assert_same(index: &Bm25Index, lib: &Library) {
        for q in queries(7) {
            let got: Vec<(i64, f32)> = index
                .search(&q, 10, None)
                .into_iter()
                .map(|h| (h.chunk_id, h.score))
                .collect();
            let want = reference(lib, &q, 10);
            assert_eq!(
                got.iter().map(|h| h.0).collect::<Vec<_>>(),
                want.iter().map(|h| h.0).collect::<Vec<_>>(),
                "{q:?}"
            );
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g.1 - w.1).abs() <= 1e-3 * w.1.abs().max(1.0),
                    "{q:?}: {g:?} vs {w:?}"
                );
            }
        }
    }

    #[test]
    fn the_index_on_disk_answers_the_same_top_k_as_the_bm25_crate() {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        lib.insert_book(&book("Science", 300, 1, None), || {})
            .unwrap();
        lib.insert_book(&book("Geography", 120, 2, None), || {})
            .unwrap();
        let index = Bm25Index::load(&lib).unwrap();
        assert_eq!(index.len(), 420);
        assert!(index.repaired().is_empty());
        assert_same(&index, &lib);
        // A book filter keeps only that book's chunks.
        let q = terms("river soil");
        let only = index.search(&q, 50, Some(&[2]));
        assert!(!only.is_empty() && only.iter().all(|h| h.book_id == 2));
        let (river, mughal) = (&terms("river")[0], &terms("mughal")[0]);
        assert!(index.knows(river) && !index.knows(mughal));
        assert!(index.idf(mughal) > index.idf(river));
    }

    #[test]
    fn deleting_and_reindexing_a_book_update_the_index_and_a_killed_ingest_leaves_it_consistent() {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        let science = lib
            .insert_book(&book("Science", 200, 1, None), || {})
            .unwrap();
        let geo = lib
            .insert_book(&book("Geography", 100, 2, None), || {})
            .unwrap();
        lib.delete_book(geo).unwrap();
        let index = Bm25Index::load(&lib).unwrap();
        assert_eq!(index.len(), 200);
        let q = terms("river");
        let hits = index.search(&q, 500, None);
        assert!(!hits.is_empty() && hits.iter().all(|h| h.book_id == science));
        assert_same(&index, &lib);
        // Re-indexing replaces the book's rows in the same transaction.
        lib.insert_book(&book("Science", 150, 9, Some(science)), || {})
            .unwrap();
        let index = Bm25Index::load(&lib).unwrap();
        assert_eq!(index.len(), 150);
        assert!(index.repaired().is_empty());
        assert_same(&index, &lib);
        // A book killed before its commit leaves neither chunks nor index rows behind.
        let killed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = lib.insert_book(&book("History", 80, 3, None), || panic!("killed"));
        }));
        assert!(killed.is_err());
        drop(lib);
        let lib = Library::open(dir.path()).unwrap();
        let index = Bm25Index::load(&lib).unwrap();
        assert_eq!(index.len(), 150);
        assert!(index.repaired().is_empty());
        assert_same(&index, &lib);
    }

    #[test]
    fn a_damaged_index_is_detected_and_built_again_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        lib.insert_book(&book("Science", 200, 1, None), || {})
            .unwrap();
        // A damaged row: the search skips it and marks the book.
        let (energy, river) = (terms("energy").remove(0), terms("river").remove(0));
        let damaged = lib
            .conn
            .execute(
                "UPDATE bm25_postings SET postings = x'ffffffffffffffffffffff' WHERE term = ?1",
                [&energy],
            )
            .unwrap();
        assert_eq!(damaged, 1);
        let index = Bm25Index::load(&lib).unwrap();
        let hits = index.search(&[energy.clone(), river], 10, None);
        assert!(!hits.is_empty(), "the other term still answers");
        let only_energy = index.search(&[energy], 10, None);
        assert!(only_energy.is_empty(), "the damaged row is skipped");
        drop(index);
        // The next load indexes the book again, says so, and answers as before.
        let index = Bm25Index::load(&lib).unwrap();
        assert_eq!(index.repaired(), ["Science".to_string()]);
        assert_same(&index, &lib);
        // Rows lost (a library from before the index on disk reads the same way).
        lib.conn.execute("DELETE FROM bm25_postings", []).unwrap();
        lib.conn.execute("DELETE FROM bm25_books", []).unwrap();
        let index = Bm25Index::load(&lib).unwrap();
        assert_eq!(index.repaired(), ["Science".to_string()]);
        assert_eq!(index.len(), 200);
        assert_same(&index, &lib);
    }
}
