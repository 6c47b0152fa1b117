//! Usage figures for `vidya stats`, the HTTP API's `GET /api/stats` and the dashboard.

use super::Library;
use crate::error::Result;
use serde::Serialize;

/// What the library holds and how it has been used.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryStats {
    /// Books stored.
    pub books: i64,
    /// Pages stored.
    pub pages: i64,
    /// Chunks stored.
    pub chunks: i64,
    /// Questions asked (answered, gated or failed).
    pub questions: i64,
    /// Answer-cache lookups.
    pub cache_lookups: i64,
    /// Answer-cache hits.
    pub cache_hits: i64,
    /// `cache_hits / cache_lookups`, `None` before the first lookup.
    pub cache_hit_rate: Option<f64>,
    /// Median wall time of a stored turn (ms), `None` before the first answer.
    pub median_answer_ms: Option<f64>,
}

impl Library {
    /// The library's usage figures. Errors: database errors.
    pub fn stats(&self) -> Result<LibraryStats> {
        let (books, pages, chunks) = self.counts()?;
        let cache_lookups = self.counter("cache_lookups")?;
        let cache_hits = self.counter("cache_hits")?;
        let mut totals = self.turn_totals_ms()?;
        totals.sort_by(f64::total_cmp);
        Ok(LibraryStats {
            books,
            pages,
            chunks,
            questions: self.counter("questions")?,
            cache_lookups,
            cache_hits,
            cache_hit_rate: (cache_lookups > 0).then(|| cache_hits as f64 / cache_lookups as f64),
            median_answer_ms: totals.get(totals.len() / 2).copied(),
        })
    }
}
