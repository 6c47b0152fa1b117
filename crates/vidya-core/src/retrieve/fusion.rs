//! Stage 1, fusion of the BM25 and dense candidate lists.
//!
//! Reciprocal rank fusion (Cormack, Clarke & Büttcher, "Reciprocal Rank Fusion outperforms
//! Condorcet and individual Rank Learning Methods", SIGIR 2009): score(d) = Σ 1 / (k + rank(d)),
//! ranks from 1, k = 60. Weighted fusion is the alternative: each list's scores are min–max
//! normalised to 0..=1 and mixed as `w · dense + (1 − w) · bm25` (a chunk missing from a list
//! gets 0 there).

use serde::Serialize;
use std::collections::HashMap;

/// The RRF constant from Cormack et al. (2009).
pub const RRF_K: f32 = 60.0;

/// How the two candidate lists are combined.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Fusion {
    /// Reciprocal rank fusion with constant `k`.
    Rrf {
        /// The RRF constant.
        k: f32,
    },
    /// Min–max normalised scores mixed with weight `dense` for the dense list.
    Weighted {
        /// Weight of the dense list (0..=1).
        dense: f32,
    },
}

/// The dense list's weight in the default fusion ([`Fusion::default`]), for questions in
/// Latin letters (English, Hinglish). Chosen on BEIR SciFact's train judgements (809 queries:
/// nDCG@10 0.742 at 0.5, 0.748 at 0.4, 0.749 at 0.3, 0.734 at 0.6) and the student dev split
/// (hit@3 0.857 at 0.5, 0.875 at 0.4, 0.857 at 0.3); questions in an Indic script keep
/// [`INDIC_DENSE_WEIGHT`] ([`super::pipeline::fusion_for`]).
pub const DENSE_WEIGHT: f32 = 0.4;

/// The dense list's weight for a question in an Indic script with no English terms found:
/// BM25 over it is the weaker list (XQuAD hi→en recall@5 0.943 at 0.5, 0.907 at 0.4).
pub const INDIC_DENSE_WEIGHT: f32 = 0.5;

/// The default: weighted fusion, the dense list weighted [`DENSE_WEIGHT`]. Weighted fusion
/// against RRF (k = 60), measured with `vidya eval` on this machine's data at equal weights:
/// BEIR SciFact nDCG@10 0.730 against 0.712; Biology 2e QA page-level recall@5 0.907 for
/// both, MRR@5 0.811 against 0.802.
impl Default for Fusion {
    fn default() -> Self {
        Fusion::Weighted {
            dense: DENSE_WEIGHT,
        }
    }
}

/// Fuses ranked lists of `(chunk id, score)` (best first) into one list, best first; ties are
/// broken by chunk id so the order is reproducible.
pub fn fuse(bm25: &[(i64, f32)], dense: &[(i64, f32)], fusion: Fusion) -> Vec<(i64, f32)> {
    let mut score: HashMap<i64, f32> = HashMap::new();
    match fusion {
        Fusion::Rrf { k } => {
            for list in [bm25, dense] {
                for (rank, (id, _)) in list.iter().enumerate() {
                    *score.entry(*id).or_default() += 1.0 / (k + rank as f32 + 1.0);
                }
            }
        }
        Fusion::Weighted { dense: w } => {
            for (list, weight) in [(bm25, 1.0 - w), (dense, w)] {
                let (lo, hi) = list.iter().fold((f32::MAX, f32::MIN), |(lo, hi), (_, s)| {
                    (lo.min(*s), hi.max(*s))
                });
                let span = (hi - lo).max(1e-6);
                for (id, s) in list {
                    *score.entry(*id).or_default() += weight * (s - lo) / span;
                }
            }
        }
    }
    let mut out: Vec<(i64, f32)> = score.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rrf_rewards_agreement_and_keeps_single_list_hits() {
        let bm25 = [(1, 9.0), (2, 5.0), (3, 1.0)];
        let dense = [(2, 0.9), (4, 0.8)];
        let rrf = Fusion::Rrf { k: RRF_K };
        let f = fuse(&bm25, &dense, rrf);
        assert_eq!(f[0].0, 2, "in both lists: first");
        assert!((f[0].1 - (1.0 / 62.0 + 1.0 / 61.0)).abs() < 1e-6);
        assert_eq!(f.len(), 4);
        // Equal RRF scores (rank 1 in one list each): lower id first.
        let f = fuse(&[(7, 1.0)], &[(5, 1.0)], rrf);
        assert_eq!(f.iter().map(|x| x.0).collect::<Vec<_>>(), vec![5, 7]);
    }

    #[test]
    fn weighted_mixes_normalised_scores() {
        let bm25 = [(1, 10.0), (2, 0.0)];
        let dense = [(2, 0.9), (1, 0.5)];
        let f = fuse(&bm25, &dense, Fusion::Weighted { dense: 0.8 });
        assert_eq!(f[0].0, 2);
        let f = fuse(&bm25, &dense, Fusion::Weighted { dense: 0.2 });
        assert_eq!(f[0].0, 1);
        assert!(fuse(&[], &[], Fusion::default()).is_empty());
    }
}
