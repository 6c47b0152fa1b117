//! What [`super::Retriever::run`] hands back: the candidates with each stage's scores, the
//! gate's input and decision, the budget, per-stage figures (ms, items and tokens in/out) and
//! the pruned passages.

use super::budget::BudgetReport;
use super::gate::{GateDecision, GateInput};
use super::prune::PrunedPassage;
use super::query::NormalizedQuery;
use super::router::Route;
use crate::store::ChunkRecord;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// A candidate chunk with the scores each stage gave it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Candidate {
    /// Chunk id.
    pub chunk_id: i64,
    /// Book id.
    pub book_id: i64,
    /// BM25 score, when BM25 found it.
    pub bm25: Option<f32>,
    /// Cosine with the question, when dense retrieval found it.
    pub dense: Option<f32>,
    /// Fused score.
    pub fused: f32,
    /// Cross-encoder logit, when reranked.
    pub rerank: Option<f32>,
    /// Best cosine of one of its sentences with the question, when rescored.
    pub sentence: Option<f32>,
    /// True when one of its sentences defines the term a definition question asks about
    /// ([`super::definition`]), when rescored.
    #[serde(default)]
    pub defines: bool,
}

/// One stage's figures.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StageReport {
    /// One of [`STAGES`].
    #[serde(deserialize_with = "stage_name")]
    pub stage: super::StaticName,
    /// Wall time (ms).
    pub ms: f64,
    /// Items in (chapters for the router, chunks otherwise).
    pub items_in: usize,
    /// Items out.
    pub items_out: usize,
    /// Answer-model tokens in (budget and prune).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_in: Option<usize>,
    /// Answer-model tokens out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_out: Option<usize>,
}

/// What the pipeline produced for one question (its JSON is the `retrieval` of an answer and
/// of a trace, read back by `vidya ask --trace`).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct PipelineResult {
    /// Chunks after stage 2 (at most `keep`), best first.
    pub ranked: Vec<Candidate>,
    /// The router's decision.
    pub route: Route,
    /// What the gate saw.
    pub gate_input: GateInput,
    /// The gate's decision (`pass` true when no gate ran).
    pub gate: GateDecision,
    /// Budget figures.
    pub budget: BudgetReport,
    /// Answer-model tokens of the pruned context.
    pub context_tokens: usize,
    /// The question as the retrievers read it (normalised).
    pub query: NormalizedQuery,
    /// Per-stage figures, in pipeline order.
    pub stages: Vec<StageReport>,
    /// Stages skipped and why.
    pub notes: Vec<String>,
    /// The pruned passages (empty when gated).
    #[serde(skip)]
    pub passages: Vec<PrunedPassage>,
    /// Chunks given to the pruner, best first (for retention measurements).
    #[serde(skip)]
    pub budgeted: Vec<ChunkRecord>,
}

/// Every [`StageReport::stage`], in pipeline order.
pub const STAGES: [&str; 11] = [
    "normalize",
    "embed_query",
    "router",
    "bm25",
    "dense",
    "fusion",
    "rerank",
    "rescore",
    "gate",
    "prune",
    "budget",
];

/// Reads a stage name back as the `&'static str` of [`STAGES`]. Errors: a name that is not
/// one of them.
fn stage_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let name = String::deserialize(d)?;
    STAGES
        .iter()
        .find(|s| **s == name)
        .copied()
        .ok_or_else(|| serde::de::Error::custom(format!("unknown pipeline stage {name:?}")))
}

impl PipelineResult {
    /// Records the token budget's stage (its `tokens_in`/`tokens_out` from `report`), the
    /// context size it left and the report itself.
    pub(super) fn record_budget(&mut self, mut stage: StageReport, report: BudgetReport) {
        stage.tokens_in = Some(report.tokens_in);
        stage.tokens_out = Some(report.tokens_out);
        self.stages.push(stage);
        self.context_tokens = report.tokens_out;
        self.budget = report;
    }
}

impl StageReport {
    /// A stage that started at `t` and took `items_in` items to `items_out`, with no token
    /// figures.
    pub(super) fn timed(
        stage: &'static str,
        t: Instant,
        items_in: usize,
        items_out: usize,
    ) -> Self {
        Self {
            stage,
            ms: (t.elapsed().as_secs_f64() * 1e6).round() / 1e3,
            items_in,
            items_out,
            tokens_in: None,
            tokens_out: None,
        }
    }
}
