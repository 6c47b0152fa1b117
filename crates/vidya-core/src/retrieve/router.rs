//! Stage 0, the curriculum router: picks the chapters worth searching.
//!
//! Each chapter has a centroid, the normalised mean of its chunks' e5 vectors (stored at
//! ingest, [`crate::store::vectors`]). The question's vector is compared with every centroid of
//! the books being searched; the chapters within [`RouterConfig::margin`] of the best cosine
//! are kept, at least [`RouterConfig::min_keep`] of them. When that would keep more than
//! [`RouterConfig::max_share`] of the chapters the router is unsure and keeps every chapter, so
//! a vague question never loses its answer to routing.

use crate::store::vectors::ChapterVector;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Router settings. Defaults were chosen with `vidya eval` on the Biology 2e QA set so that the
/// chapter holding the answer is dropped for at most 1% of the questions.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RouterConfig {
    /// Chapters whose centroid cosine is within this of the best are kept.
    pub margin: f32,
    /// Chapters always kept (the best ones).
    pub min_keep: usize,
    /// When more than this share of the chapters would be kept, keep all of them.
    pub max_share: f32,
}

impl Default for RouterConfig {
    fn default() -> Self {
        Self {
            margin: 0.04,
            min_keep: 4,
            max_share: 0.5,
        }
    }
}

/// The router's decision.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Route {
    /// Chapter ids to search; `None` means every chapter.
    #[serde(skip)]
    pub chapters: Option<HashSet<i64>>,
    /// Chapters considered.
    pub considered: usize,
    /// Chapters kept (equal to `considered` when unsure).
    pub kept: usize,
    /// Best chapter cosine.
    pub best: f32,
    /// The best chapters' titles with their cosines (at most 3, for traces).
    pub top: Vec<(String, f32)>,
}

/// Routes the unit question vector `query` over `chapters` (already limited to the books being
/// searched).
pub fn route(query: &[f32], chapters: &[ChapterVector], cfg: &RouterConfig) -> Route {
    let mut scored: Vec<(&ChapterVector, f32)> = chapters
        .iter()
        .map(|c| (c, crate::embed::cosine(query, &c.vector)))
        .collect();
    scored.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then(a.0.chapter_id.cmp(&b.0.chapter_id))
    });
    let Some(&(_, best)) = scored.first() else {
        return Route::default();
    };
    let kept: Vec<i64> = scored
        .iter()
        .enumerate()
        .filter(|(i, (_, s))| *i < cfg.min_keep || *s >= best - cfg.margin)
        .map(|(_, (c, _))| c.chapter_id)
        .collect();
    let unsure = kept.len() as f32 > cfg.max_share * scored.len() as f32;
    Route {
        considered: scored.len(),
        kept: if unsure { scored.len() } else { kept.len() },
        chapters: (!unsure).then(|| kept.into_iter().collect()),
        best,
        top: scored
            .iter()
            .take(3)
            .map(|(c, s)| (c.title.clone(), (*s * 1000.0).round() / 1000.0))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ch(id: i64, v: [f32; 2]) -> ChapterVector {
        let mut vector = v.to_vec();
        crate::store::vectors::normalize(&mut vector);
        ChapterVector {
            chapter_id: id,
            book_id: 1,
            title: format!("Chapter {id}"),
            vector,
        }
    }

    #[test]
    fn keeps_close_chapters_and_everything_when_unsure() {
        let chapters: Vec<ChapterVector> = (0..20).map(|i| ch(i, [1.0, i as f32 * 0.5])).collect();
        let cfg = RouterConfig {
            margin: 0.01,
            min_keep: 2,
            max_share: 0.5,
        };
        let r = route(&[1.0, 0.0], &chapters, &cfg);
        let kept = r.chapters.expect("a clear winner is routed");
        assert!(kept.contains(&0) && kept.contains(&1), "{kept:?}");
        assert!(kept.len() < 10);
        // A question equally close to all chapters: unsure, so nothing is dropped.
        let same: Vec<ChapterVector> = (0..20).map(|i| ch(i, [1.0, 0.0])).collect();
        let r = route(&[1.0, 0.0], &same, &cfg);
        assert!(r.chapters.is_none());
        assert_eq!(r.kept, 20);
        // No chapters (empty library or no vectors): nothing to route.
        assert!(route(&[1.0, 0.0], &[], &cfg).chapters.is_none());
    }
}
