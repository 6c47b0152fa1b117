//! The relevance gate: when the best candidate is not relevant enough, the answer is "not in
//! your textbooks" and the model is never called.
//!
//! The signal depends on the stages that ran: the cross-encoder's best logit when a reranker is
//! installed; else the best dense cosine among the top fused candidates together with the BM25
//! coverage (share of the question's idf weight found in the best passage); else the coverage
//! alone. Thresholds were calibrated with `vidya eval` on answerable (Biology 2e QA) against
//! unanswerable questions (Physics QA and XQuAD English over the Biology library); see the
//! README for the figures.

use serde::Serialize;

/// Default thresholds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GateConfig {
    /// Minimum best cross-encoder logit (used when a reranker ran).
    pub rerank_logit: f32,
    /// Minimum best dense cosine that passes a question on its own (e5 cosines of related text
    /// sit around 0.8–0.9, so only a very close passage passes without shared words).
    pub dense_cosine: f32,
    /// Minimum best dense cosine for a question written in another script than the passages
    /// (a Hindi question over an English book): BM25 coverage cannot apply, so the dense
    /// cosine decides alone, with a lower bar because cross-lingual cosines are lower.
    pub cross_script_cosine: f32,
    /// Minimum BM25 coverage (0..=1) that lets a passage through on its words alone.
    pub coverage: f32,
}

impl Default for GateConfig {
    fn default() -> Self {
        Self {
            rerank_logit: 0.0,
            dense_cosine: 0.895,
            cross_script_cosine: 0.83,
            coverage: 0.28,
        }
    }
}

/// What the gate saw.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct GateInput {
    /// Best cross-encoder logit, when a reranker ran.
    pub rerank: Option<f32>,
    /// Best dense cosine among the kept candidates, when dense retrieval ran.
    pub dense: Option<f32>,
    /// BM25 coverage of the best passage (0..=1).
    pub coverage: f32,
    /// True when no question word is written in a script the best passage uses.
    pub cross_script: bool,
}

/// The gate's decision.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GateDecision {
    /// True when the question is answered.
    pub pass: bool,
    /// `rerank`, `dense_or_coverage` or `coverage`.
    pub signal: &'static str,
}

/// Decides with `cfg` on `input`.
pub fn decide(input: &GateInput, cfg: &GateConfig) -> GateDecision {
    if let Some(logit) = input.rerank {
        return GateDecision {
            pass: logit >= cfg.rerank_logit,
            signal: "rerank",
        };
    }
    if let Some(cos) = input.dense {
        if input.cross_script {
            return GateDecision {
                pass: cos >= cfg.cross_script_cosine,
                signal: "dense_cross_script",
            };
        }
        return GateDecision {
            pass: cos >= cfg.dense_cosine || input.coverage >= cfg.coverage,
            signal: "dense_or_coverage",
        };
    }
    GateDecision {
        pass: input.coverage >= cfg.coverage,
        signal: "coverage",
    }
}

/// The threshold on `scores` that best separates answerable (`true`) from unanswerable
/// (`false`) questions, with its accuracy: every observed score is tried as "pass when ≥".
pub fn calibrate(scores: &[(f32, bool)]) -> Option<(f32, f64)> {
    let mut best: Option<(f32, f64)> = None;
    for &(t, _) in scores {
        let right = scores.iter().filter(|(s, a)| (*s >= t) == *a).count();
        let acc = right as f64 / scores.len() as f64;
        if best.is_none_or(|(_, b)| acc > b) {
            best = Some((t, acc));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gate_uses_the_strongest_signal_available() {
        let cfg = GateConfig::default();
        let weak = GateInput {
            rerank: Some(-3.0),
            dense: Some(0.95),
            coverage: 1.0,
            cross_script: false,
        };
        assert!(
            !decide(&weak, &cfg).pass,
            "the reranker decides when it ran"
        );
        let dense_only = GateInput {
            rerank: None,
            dense: Some(0.70),
            coverage: 0.1,
            cross_script: false,
        };
        assert!(!decide(&dense_only, &cfg).pass);
        let words = GateInput {
            coverage: 0.9,
            ..dense_only
        };
        assert!(decide(&words, &cfg).pass);
        let hindi = GateInput {
            dense: Some(0.85),
            coverage: 0.0,
            cross_script: true,
            ..dense_only
        };
        assert!(
            decide(&hindi, &cfg).pass,
            "a close cross-lingual passage passes"
        );
        let english = GateInput {
            cross_script: false,
            ..hindi
        };
        assert!(
            !decide(&english, &cfg).pass,
            "the same cosine alone is not enough with shared script"
        );
        assert_eq!(decide(&GateInput::default(), &cfg).signal, "coverage");
    }

    #[test]
    fn calibration_finds_the_separating_threshold() {
        let s = [
            (0.9, true),
            (0.85, true),
            (0.7, false),
            (0.6, false),
            (0.8, true),
        ];
        let (t, acc) = calibrate(&s).unwrap();
        assert_eq!(t, 0.8);
        assert_eq!(acc, 1.0);
        assert!(calibrate(&[]).is_none());
    }
}
