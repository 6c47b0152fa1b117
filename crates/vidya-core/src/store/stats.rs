//! Usage figures for `vidya stats`, the HTTP API's `GET /api/stats` and the dashboard.

use super::Library;
use crate::error::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// Stored turns whose figures the dashboard charts ([`LibraryStats::recent`]).
pub const RECENT_TURNS: usize = 30;

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
    /// Answer-model tokens of the context sent, summed over stored turns that quoted the
    /// textbook.
    pub tokens_sent: i64,
    /// Tokens of the whole pages those contexts come from, summed over the same turns: what a
    /// tutor that sends full pages would have sent.
    pub tokens_full_pages: i64,
    /// `1 - tokens_sent / tokens_full_pages` (0–1), `None` before the first such turn.
    pub tokens_saved_rate: Option<f64>,
    /// Median milliseconds per stage over stored turns (`retrieve`, `compose`, `rewrite`,
    /// `ttft`, `generate`, `total`; a stage counts only the turns that ran it).
    pub stage_median_ms: BTreeMap<String, f64>,
    /// The last [`RECENT_TURNS`] turns, oldest first.
    pub recent: Vec<RecentTurn>,
}

/// One recent turn's figures, for the dashboard's charts.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RecentTurn {
    /// Wall time (ms).
    pub total_ms: f64,
    /// Answer-model tokens sent.
    pub tokens_sent: i64,
    /// Tokens of the whole cited pages.
    pub tokens_full_pages: i64,
}

/// The median of `values` (the upper one of an even count), `None` when empty.
fn median(mut values: Vec<f64>) -> Option<f64> {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied()
}

impl Library {
    /// The library's usage figures. Errors: database errors.
    pub fn stats(&self) -> Result<LibraryStats> {
        let (books, pages, chunks) = self.counts()?;
        let cache_lookups = self.counter("cache_lookups")?;
        let cache_hits = self.counter("cache_hits")?;
        let turns = self.turn_figures()?;
        let mut per_stage: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for t in &turns {
            for (stage, ms) in &t.timings_ms {
                per_stage.entry(stage.clone()).or_default().push(*ms);
            }
        }
        let quoted = turns.iter().filter(|t| t.page_tokens > 0);
        let tokens_sent: i64 = quoted.clone().map(|t| t.context_tokens).sum();
        let tokens_full_pages: i64 = quoted.map(|t| t.page_tokens).sum();
        let recent = turns
            .iter()
            .skip(turns.len().saturating_sub(RECENT_TURNS))
            .map(|t| RecentTurn {
                total_ms: t.timings_ms.get("total").copied().unwrap_or(0.0),
                tokens_sent: t.context_tokens,
                tokens_full_pages: t.page_tokens,
            })
            .collect();
        Ok(LibraryStats {
            books,
            pages,
            chunks,
            questions: self.counter("questions")?,
            cache_lookups,
            cache_hits,
            cache_hit_rate: (cache_lookups > 0).then(|| cache_hits as f64 / cache_lookups as f64),
            median_answer_ms: median(
                turns
                    .iter()
                    .filter_map(|t| t.timings_ms.get("total").copied())
                    .collect(),
            ),
            tokens_sent,
            tokens_full_pages,
            tokens_saved_rate: (tokens_full_pages > 0)
                .then(|| 1.0 - tokens_sent as f64 / tokens_full_pages as f64),
            stage_median_ms: per_stage
                .into_iter()
                .filter_map(|(k, v)| median(v).map(|m| (k, m)))
                .collect(),
            recent,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Turn;

    fn turn(conversation_id: i64, total: f64, ttft: Option<f64>, sent: i64, pages: i64) -> Turn {
        let mut timings = serde_json::json!({"total": total, "retrieve": total / 4.0});
        if let Some(t) = ttft {
            timings["ttft"] = t.into();
        }
        Turn {
            id: 0,
            conversation_id,
            question: "q".into(),
            query: "q".into(),
            answer: "a".into(),
            citations: serde_json::json!([]),
            mode: "answer".into(),
            language: "en".into(),
            model: None,
            status: "answered".into(),
            timings,
            context_tokens: sent,
            page_tokens: pages,
        }
    }

    #[test]
    fn dashboard_figures_come_from_the_stored_turns() {
        let dir = tempfile::tempdir().unwrap();
        let lib = Library::open(dir.path()).unwrap();
        let empty = lib.stats().unwrap();
        assert_eq!(empty.median_answer_ms, None);
        assert_eq!(empty.tokens_saved_rate, None);
        assert!(empty.recent.is_empty() && empty.stage_median_ms.is_empty());

        let c = lib.create_conversation("q").unwrap();
        lib.add_turn(&turn(c, 100.0, Some(40.0), 100, 1000))
            .unwrap();
        lib.add_turn(&turn(c, 300.0, None, 0, 0)).unwrap(); // gated: no quote, no baseline
        lib.add_turn(&turn(c, 200.0, Some(60.0), 300, 1000))
            .unwrap();
        let s = lib.stats().unwrap();
        assert_eq!(s.median_answer_ms, Some(200.0));
        assert_eq!(s.stage_median_ms["total"], 200.0);
        assert_eq!(s.stage_median_ms["retrieve"], 50.0);
        // ttft ran in two turns: the upper median of [40, 60].
        assert_eq!(s.stage_median_ms["ttft"], 60.0);
        assert_eq!((s.tokens_sent, s.tokens_full_pages), (400, 2000));
        assert!((s.tokens_saved_rate.unwrap() - 0.8).abs() < 1e-9);
        assert_eq!(s.recent.len(), 3);
        assert_eq!(s.recent[1].total_ms, 300.0);
    }
}
