//! The pipeline's settings ([`PipelineConfig`]) and the measured defaults and weights the
//! stages use.

use super::budget;
use super::fusion::Fusion;
use super::gate::GateConfig;
use super::prune;
use super::router::RouterConfig;
use serde::Serialize;

/// Stage settings. [`PipelineConfig::default`] is the full pipeline with the measured defaults.
#[derive(Debug, Clone, Serialize)]
pub struct PipelineConfig {
    /// Stage 0; `None` searches every chapter.
    pub router: Option<RouterConfig>,
    /// Stage 1: BM25 candidates.
    pub bm25: bool,
    /// Stage 1: dense candidates.
    pub dense: bool,
    /// Stage 1: how the two lists are fused.
    pub fusion: Fusion,
    /// Candidates taken from each of BM25 and dense.
    pub candidates: usize,
    /// Stage 2: rerank with the cross-encoder when one is installed.
    pub rerank: bool,
    /// Fused candidates given to the cross-encoder.
    pub rerank_top: usize,
    /// Fused candidates rescored when no cross-encoder runs ([`RESCORE_TOP`]).
    pub rescore_top: usize,
    /// Stage 2 without a cross-encoder: rescore the first `rescore_top` fused candidates with
    /// the best cosine between the question and one of each chunk's sentences (the vectors
    /// stored at ingest), mixed with the fused score ([`super::rescore::rescore`]).
    pub rescore: bool,
    /// Weight of the sentence cosine in the rescored score (0..=1).
    pub rescore_weight: f32,
    /// Added to the rescored score (whose parts are each 0..=1) of a body-text chunk with a
    /// sentence that defines the term a definition question asks about
    /// ([`super::definition`]), whose pruner then keeps that sentence (and the extractive
    /// answer cites its page first); 0 turns all three off.
    pub definition_weight: f32,
    /// Chunks kept after stage 2.
    pub keep: usize,
    /// The relevance gate; `None` never gates (for measuring recall).
    pub gate: Option<GateConfig>,
    /// Stage 4: budget in answer-model tokens (of the pruned sentences, or of whole chunks
    /// without the pruner); `None` keeps all `keep` chunks.
    pub budget: Option<usize>,
    /// Stage 3: prune sentences.
    pub prune: bool,
    /// Stage 3: cosine threshold.
    pub prune_threshold: f32,
    /// Stage 0: search with the normalised question ([`super::query`]: SMS spellings, typos
    /// against the library's words, Hinglish and Hindi terms) instead of the question as typed.
    pub normalize: bool,
    /// Stage 1: factor on the fused score of boilerplate chunks (not body text); 1 ranks them
    /// like body text.
    pub boilerplate_weight: f32,
}

/// Default [`PipelineConfig::candidates`]: taken from each of BM25 and dense retrieval. A
/// chunk's vector is the mean of its sentences' ([`crate::ingest`]), which ranks a passage more
/// coarsely than its best sentence; the sentence rescoring finds the answer deeper in the lists
/// when it sees more of them. 50 → 100 (with [`RESCORE_TOP`]), chosen on BEIR SciFact's 809
/// train queries (`full` nDCG@10 0.740 → 0.745) and the dev split of `tests/eval` (hit@3
/// 0.875 → 0.902, span@5 0.911 → 0.929); the README gives the held-out figures.
pub const CANDIDATES: usize = 100;

/// Default [`PipelineConfig::rescore_top`]: every fused candidate ([`CANDIDATES`] from each
/// list). It costs the rescore stage 12–17 ms p50 at 100k chunks on a 2-core machine, against
/// 2 ms for 30 (reading the sentence vectors and splitting the sentences of each); the
/// cross-encoder, far slower per candidate, keeps [`PipelineConfig::rerank_top`].
pub const RESCORE_TOP: usize = 2 * CANDIDATES;

/// Default [`PipelineConfig::rescore_weight`], chosen with `vidya eval --students` on the dev
/// split of `tests/eval`.
pub const RESCORE_WEIGHT: f32 = 0.5;

/// Default [`PipelineConfig::definition_weight`]. On the dev split of `tests/eval` every weight
/// from 0.1 to 1.0 gave the same hits (definition questions hit@3 0.812 → 0.875 against 0); on
/// the books' own glossary questions (`qa_glossary.jsonl` of both OpenStax books, 2,763
/// "What is meant by …?" questions none of which were used to choose), 0.2 gave Physics
/// recall@5 0.950 and gate pass 0.987 against 0.948 and 0.983 at 1.0 (with this module's first,
/// looser matcher), so a definition lifts a passage without overriding the other signals.
pub const DEFINITION_WEIGHT: f32 = 0.2;

/// Weight of the dense list in weighted fusion for a Devanagari question whose words were
/// translated to English terms (the BM25 list searches those terms, a weaker signal than the
/// question's own vector): chosen on 400 XQuAD hi→en queries and the dev split's Hindi
/// questions (0.5: XQuAD recall@5 0.935; 0.7: 0.940, Hindi hit@3 the same).
pub const CROSS_LINGUAL_DENSE_WEIGHT: f32 = 0.7;

/// Default [`PipelineConfig::boilerplate_weight`], chosen with `vidya eval --students` on the
/// dev split of `tests/eval` (the README lists the figures).
pub const BOILERPLATE_WEIGHT: f32 = 0.5;

/// True when the question asks for boilerplate itself: a summary, objectives, a figure or
/// table, key terms.
pub fn asks_for_boilerplate(question: &str) -> bool {
    let q = question.to_lowercase();
    [
        "summary",
        "summar",
        "objective",
        "figure",
        "fig ",
        "fig.",
        "diagram",
        "table ",
        "key term",
        "glossary",
        "key equation",
    ]
    .iter()
    .any(|w| q.contains(w))
}

impl Default for PipelineConfig {
    fn default() -> Self {
        Self {
            router: Some(RouterConfig::default()),
            bm25: true,
            dense: true,
            fusion: Fusion::default(),
            candidates: CANDIDATES,
            rerank: true,
            rerank_top: 30,
            rescore_top: RESCORE_TOP,
            rescore: true,
            rescore_weight: RESCORE_WEIGHT,
            definition_weight: DEFINITION_WEIGHT,
            keep: 5,
            gate: Some(GateConfig::default()),
            budget: Some(budget::DEFAULT_BUDGET),
            prune: true,
            prune_threshold: prune::DEFAULT_THRESHOLD,
            boilerplate_weight: BOILERPLATE_WEIGHT,
            normalize: true,
        }
    }
}

impl PipelineConfig {
    /// Candidates only (stage 1, both retrievers, default fusion): no router, reranker, gate, budget or
    /// pruning. For measuring recall.
    pub fn retrieval_only() -> Self {
        Self {
            router: None,
            rerank: false,
            rescore: false,
            gate: None,
            budget: None,
            prune: false,
            ..Self::default()
        }
    }
}
