//! BM25 over chunks, read from the word index on disk ([`crate::store::postings`]).
//!
//! Scoring is Okapi BM25 (Robertson & Zaragoza, "The Probabilistic Relevance Framework: BM25
//! and Beyond", 2009) with k1 = 1.2, b = 0.75 and idf = ln(1 + (N − df + 0.5)/(df + 0.5)), the
//! `bm25` crate's defaults and formulas (its scorer gives the same top-k: see the tests).
//! Terms come from [`crate::text::Tokenizer`] at ingest and pass through [`fold_variants`]; the
//! index keeps, per term and book, the chunks holding it with the term's count and the chunk's
//! length. Loading reads two figures (N and the total length); a question reads only the rows
//! of its own terms, and the top k are selected without sorting every match.
//!
//! Damage ([`crate::store::postings`] says how it is found) is mended beside the questions: a
//! thread of the index's own ([`Mender`]) checks the whole index once after every load and
//! indexes again, from the stored terms, each book found damaged there or by a question. An
//! attempt that fails (the library cannot be opened) is not repeated until it is asked again.
//! Meanwhile a damaged row is skipped: the other rows and the dense search still answer.

use crate::error::Result;
use crate::store::postings;
use crate::store::Library;
use crate::text::tokenize::fold_variants;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

/// BM25's term-frequency saturation (the `bm25` crate's default).
pub const K1: f32 = 1.2;

/// BM25's length normalisation (the `bm25` crate's default).
pub const B: f32 = 0.75;

/// The average chunk length assumed for an empty library (terms; the `bm25` crate's fallback).
pub const FALLBACK_AVGDL: f32 = 256.0;

/// Seconds after a load before the whole word index is checked ([`postings::verify`], about
/// a second on a school's shelf of 100,000 chunks on a 2-core laptop): the window has
/// started and its first question has been answered by then.
pub const CHECK_AFTER_S: u64 = 10;

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
    /// N (chunks indexed) and the average chunk length (terms), read again after a mend.
    totals: Arc<Mutex<(usize, f32)>>,
    repaired: Vec<String>,
    mender: Arc<Mender>,
}

impl std::fmt::Debug for Bm25Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bm25Index")
            .field("totals", &self.totals)
            .finish_non_exhaustive()
    }
}

/// Mends the word index beside the questions: one thread at a time, with its own connection,
/// indexes again the books found damaged ([`postings::verify`], or a question that read a
/// damaged row), then reads N and the average length again.
#[derive(Debug)]
pub struct Mender {
    dir: PathBuf,
    totals: Arc<Mutex<(usize, f32)>>,
    /// Books a question found damaged, waiting for the thread.
    pending: Mutex<BTreeSet<i64>>,
    /// The whole index is to be checked (after a load, or a read that failed).
    check_all: AtomicBool,
    running: AtomicBool,
    /// Titles of the books mended so far (for tests and the log).
    mended: Mutex<Vec<String>>,
}

impl Mender {
    /// Asks for book `book_id` (or, with `None`, the whole index) to be checked and mended,
    /// and starts the thread if it is not running; it begins after `delay`.
    fn request(self: &Arc<Self>, book_id: Option<i64>, delay: std::time::Duration) {
        match book_id {
            Some(id) => {
                self.pending
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(id);
            }
            None => self.check_all.store(true, Ordering::SeqCst),
        }
        if self.running.swap(true, Ordering::SeqCst) {
            return;
        }
        let me = self.clone();
        let started = std::thread::Builder::new()
            .name("vidya-bm25-mend".into())
            .spawn(move || {
                std::thread::sleep(delay);
                loop {
                    // Each attempt takes the requests made so far; a failed one is not asked
                    // again by itself (it would fail again at once: a loop that held a core
                    // for as long as the program ran when the library folder was removed or
                    // unreadable). Requests made during the attempt get an attempt of their own.
                    if let Err(e) = me.mend_once() {
                        tracing::warn!(error = %e, "the word index could not be mended: it is tried again at the next start or the next damaged read");
                    }
                    me.running.store(false, Ordering::SeqCst);
                    let more = me.check_all.load(Ordering::SeqCst)
                        || !me.pending.lock().unwrap_or_else(|p| p.into_inner()).is_empty();
                    if !more || me.running.swap(true, Ordering::SeqCst) {
                        return;
                    }
                }
            });
        if started.is_err() {
            self.running.store(false, Ordering::SeqCst);
        }
    }

    /// One attempt at the requests made so far (taken before anything can fail).
    fn mend_once(&self) -> Result<()> {
        let started = std::time::Instant::now();
        let mut ids: BTreeSet<i64> =
            std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()));
        let check_all = self.check_all.swap(false, Ordering::SeqCst);
        let lib = Library::open_existing(&self.dir)?;
        let mut titles = postings::repair(&lib.conn).map_err(|e| lib.db_err(e))?;
        if check_all {
            ids.extend(postings::verify(&lib.conn).map_err(|e| lib.db_err(e))?);
        }
        let ids: Vec<i64> = ids.into_iter().collect();
        titles.extend(postings::rebuild(&lib.conn, &ids).map_err(|e| lib.db_err(e))?);
        tracing::info!(
            ms = started.elapsed().as_millis() as u64,
            mended = titles.len(),
            "the word index was checked"
        );
        if titles.is_empty() {
            return Ok(());
        }
        tracing::warn!(books = ?titles, "the word index of these books was damaged: built again from the stored text");
        *self.totals.lock().unwrap_or_else(|p| p.into_inner()) = read_totals(&lib)?;
        self.mended
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .extend(titles);
        Ok(())
    }

    /// Waits until the thread is idle (tests), at most `limit`. True when it is.
    pub fn wait_idle(&self, limit: std::time::Duration) -> bool {
        let until = std::time::Instant::now() + limit;
        while self.running.load(Ordering::SeqCst) {
            if std::time::Instant::now() > until {
                return false;
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        true
    }

    /// Titles of the books mended since the index was loaded.
    pub fn mended(&self) -> Vec<String> {
        self.mended
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

/// N and the average chunk length of the library's index.
fn read_totals(lib: &Library) -> Result<(usize, f32)> {
    let (docs, total) = postings::totals(&lib.conn).map_err(|e| lib.db_err(e))?;
    let avgdl = if docs == 0 || total == 0 {
        FALLBACK_AVGDL
    } else {
        total as f32 / docs as f32
    };
    Ok((docs as usize, avgdl))
}

impl Bm25Index {
    /// Opens the word index of `lib`. A book with no index (a library from before the
    /// index's v7, an interrupted repair) is indexed first, from its stored terms
    /// ([`postings::repair`]); [`Bm25Index::repaired`] names those books. Then the whole
    /// index is checked beside the questions ([`Bm25Index::mender`]), [`CHECK_AFTER_S`]
    /// seconds later (a one-question command has ended by then and skips it).
    ///
    /// Errors: database errors (the library cannot be opened again, or written when a book
    /// needs indexing).
    pub fn load(lib: &Library) -> Result<Self> {
        Self::load_checked_after(lib, std::time::Duration::from_secs(CHECK_AFTER_S))
    }

    /// [`Bm25Index::load`] with the whole check after `delay` (tests: at once).
    /// Errors: as [`Bm25Index::load`].
    pub fn load_checked_after(lib: &Library, delay: std::time::Duration) -> Result<Self> {
        let own = Library::open_existing(lib.dir())?;
        let repaired = postings::repair(&own.conn).map_err(|e| own.db_err(e))?;
        if !repaired.is_empty() {
            tracing::warn!(books = ?repaired, "the word index was missing: built again from the stored text");
        }
        let totals = Arc::new(Mutex::new(read_totals(&own)?));
        let mender = Arc::new(Mender {
            dir: lib.dir().to_path_buf(),
            totals: totals.clone(),
            pending: Mutex::new(BTreeSet::new()),
            check_all: AtomicBool::new(false),
            running: AtomicBool::new(false),
            mended: Mutex::new(Vec::new()),
        });
        mender.request(None, delay);
        Ok(Self {
            lib: Mutex::new(own),
            totals,
            repaired,
            mender,
        })
    }

    /// What mends the index beside the questions (tests wait on it).
    pub fn mender(&self) -> &Arc<Mender> {
        &self.mender
    }

    fn totals(&self) -> (usize, f32) {
        *self.totals.lock().unwrap_or_else(|p| p.into_inner())
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
        self.totals().0
    }

    /// True when no chunk is indexed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn idf_of(docs: usize, df: u64) -> f32 {
        let (n, df) = (docs as f32, df as f32);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// A read of the index failed: it is checked whole, beside the questions.
    fn unreadable(&self, e: &rusqlite::Error) {
        tracing::warn!(error = %e, "the word index could not be read: it is checked and mended beside the questions");
        self.mender.request(None, std::time::Duration::ZERO);
    }

    fn doc_freq(&self, term: &str) -> u64 {
        let lib = self.lib();
        postings::doc_freq(&lib.conn, term).unwrap_or_else(|e| {
            self.unreadable(&e);
            0
        })
    }

    /// Inverse document frequency of a term, as BM25 uses it (an unseen term gets the highest
    /// idf, ln(1 + (N + 0.5)/0.5)).
    pub fn idf(&self, term: &str) -> f32 {
        Self::idf_of(self.len(), self.doc_freq(term))
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
    /// book is indexed again beside the questions ([`Mender`]).
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
        let (docs, avgdl) = self.totals();
        let lib = self.lib();
        let mut scores: HashMap<i64, (i64, f32)> = HashMap::new();
        for term in distinct {
            let folded = fold_variants(term);
            let rows = match postings::term_rows(&lib.conn, &folded) {
                Ok(r) => r,
                Err(e) => {
                    self.unreadable(&e);
                    continue;
                }
            };
            let df: u64 = rows.iter().map(|r| u64::from(r.df)).sum();
            let idf = Self::idf_of(docs, df);
            for row in rows {
                let Some(list) = row.intact(&folded) else {
                    tracing::warn!(
                        book = row.book_id,
                        term,
                        "the word index of this book is damaged: it is indexed again beside the questions"
                    );
                    self.mender
                        .request(Some(row.book_id), std::time::Duration::ZERO);
                    continue;
                };
                for p in list {
                    if !allow(p.chunk_id, row.book_id) {
                        continue;
                    }
                    let tf = p.tf as f32;
                    let norm = 1.0 - B + B * (p.dl as f32 / avgdl);
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
mod tests;
