//! The retrieval pipeline, stage by stage:
//! router → BM25 + dense → fusion → cross-encoder → relevance gate → token budget → pruner.
//!
//! [`Retriever`] holds what the stages load once per library (BM25 index, HNSW index, chapter
//! centroids, models); [`Retriever::run`] answers one question with a [`PipelineResult`]: the
//! pruned passages plus, per stage, its time (ms), items in/out, tokens in/out and scores.
//! Stages whose model is not installed are skipped and say so in [`PipelineResult::notes`].

use super::budget::{self, BudgetReport, TokenCounter};
use super::fusion::{fuse, Fusion};
use super::gate::{self, GateConfig, GateDecision, GateInput};
use super::prune::{self, PrunedPassage, Scorer};
use super::query::{NormalizedQuery, Normalizer};
use super::rerank::CrossEncoder;
use super::router::{self, Route, RouterConfig};
use crate::embed::{cosine, Embedder};
use crate::error::{Result, VidyaError};
use crate::ingest::blocks::BlockKind;
use crate::search::{Bm25Index, DenseIndex};
use crate::store::vectors::ChapterVector;
use crate::store::{ChunkRecord, Library};
use crate::text::Tokenizer;
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

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
    /// Stage 2 without a cross-encoder: rescore the first `rerank_top` fused candidates with
    /// the best cosine between the question and one of each chunk's sentences (the vectors
    /// stored at ingest), mixed with the fused score ([`rescore`]).
    pub rescore: bool,
    /// Weight of the sentence cosine in the rescored score (0..=1).
    pub rescore_weight: f32,
    /// Chunks kept after stage 2.
    pub keep: usize,
    /// The relevance gate; `None` never gates (for measuring recall).
    pub gate: Option<GateConfig>,
    /// Stage 3: budget in answer-model tokens; `None` keeps all `keep` chunks.
    pub budget: Option<usize>,
    /// Stage 4: prune sentences.
    pub prune: bool,
    /// Stage 4: cosine threshold.
    pub prune_threshold: f32,
    /// Stage 0: search with the normalised question ([`super::query`]: SMS spellings, typos
    /// against the library's words, Hinglish and Hindi terms) instead of the question as typed.
    pub normalize: bool,
    /// Stage 1: factor on the fused score of boilerplate chunks (not body text); 1 ranks them
    /// like body text.
    pub boilerplate_weight: f32,
}

/// Default [`PipelineConfig::rescore_weight`], chosen with `vidya eval --students` on the dev
/// split of `tests/eval`.
pub const RESCORE_WEIGHT: f32 = 0.5;

/// Stage 2 without a cross-encoder: re-sorts `ranked` by `(1 − w) · fused + w · sentence`,
/// each min–max normalised over the candidates (a candidate without a sentence cosine gets the
/// lowest). Ties keep the fused order.
pub fn rescore(ranked: &mut [Candidate], w: f32) {
    let norm = |xs: Vec<f32>| {
        let (lo, hi) = xs
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
        let span = (hi - lo).max(1e-6);
        xs.into_iter()
            .map(move |x| (x - lo) / span)
            .collect::<Vec<f32>>()
    };
    let fused = norm(ranked.iter().map(|c| c.fused).collect());
    let floor = ranked
        .iter()
        .filter_map(|c| c.sentence)
        .fold(f32::MAX, f32::min);
    let sentence = norm(
        ranked
            .iter()
            .map(|c| {
                c.sentence
                    .unwrap_or(if floor == f32::MAX { 0.0 } else { floor })
            })
            .collect(),
    );
    let mut keyed: Vec<(f32, usize)> = fused
        .iter()
        .zip(&sentence)
        .enumerate()
        .map(|(i, (f, s))| ((1.0 - w) * f + w * s, i))
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let order: Vec<Candidate> = keyed.iter().map(|(_, i)| ranked[*i].clone()).collect();
    ranked.clone_from_slice(&order);
}

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
            candidates: 50,
            rerank: true,
            rerank_top: 30,
            rescore: true,
            rescore_weight: RESCORE_WEIGHT,
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

/// A candidate chunk with the scores each stage gave it.
#[derive(Debug, Clone, Serialize)]
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
}

/// One stage's figures.
#[derive(Debug, Clone, Serialize)]
pub struct StageReport {
    /// `embed_query`, `router`, `bm25`, `dense`, `fusion`, `rerank` (or `rescore`), `gate`, `budget`,
    /// `prune`.
    pub stage: &'static str,
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

/// What the pipeline produced for one question.
#[derive(Debug, Clone, Serialize)]
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

impl PipelineResult {
    /// Records the token budget's stage (its `tokens_in`/`tokens_out` from `report`), the
    /// context size it left and the report itself.
    fn record_budget(&mut self, mut stage: StageReport, report: BudgetReport) {
        stage.tokens_in = Some(report.tokens_in);
        stage.tokens_out = Some(report.tokens_out);
        self.stages.push(stage);
        self.context_tokens = report.tokens_out;
        self.budget = report;
    }
}

/// The models the pipeline can use; each is optional.
#[derive(Clone, Default)]
pub struct Models {
    /// multilingual-e5-small.
    pub embedder: Option<Arc<Embedder>>,
    /// A cross-encoder.
    pub reranker: Option<Arc<CrossEncoder>>,
    /// The answer model's tokenizer.
    pub counter: Option<Arc<TokenCounter>>,
    /// Why a model is not available.
    pub notes: Vec<String>,
}

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Models")
            .field("embedder", &self.embedder.is_some())
            .field("reranker", &self.reranker.is_some())
            .field("notes", &self.notes)
            .finish()
    }
}

impl Models {
    /// Loads every installed model. A model that is missing or damaged is left out with a note
    /// naming the setup command; the pipeline then skips its stage.
    pub fn load() -> Self {
        let mut notes = Vec::new();
        // The answer model's tokenizer before the embedder: its JSON is parsed through a few
        // hundred MB that are freed again (and returned to the system), so the embedder's load
        // does not add to that peak.
        let counter = TokenCounter::load();
        crate::memory::release_free_memory();
        let embedder = match Embedder::load() {
            Ok(e) => Some(Arc::new(e)),
            Err(e) => {
                notes.push(format!("dense retrieval and pruning are off: {e}"));
                None
            }
        };
        let reranker = match CrossEncoder::load() {
            Ok(r) => r.map(Arc::new),
            Err(e) => {
                notes.push(format!("reranking is off: {e}"));
                None
            }
        };
        let counter = match counter {
            Ok(c) => Some(Arc::new(c)),
            Err(e) => {
                notes.push(format!("token counts are estimates: {e}"));
                None
            }
        };
        if counter.as_ref().is_some_and(|c| !c.is_exact()) {
            notes.push(format!(
                "token counts are estimates: the answer model's tokenizer ({}) is not installed. Run `cargo xtask setup --models`",
                budget::TOKENIZER_DIR
            ));
        }
        Self {
            embedder,
            reranker,
            counter,
            notes,
        }
    }

    /// No models: BM25 and lexical pruning only.
    pub fn none() -> Self {
        Self::default()
    }
}

/// Per-library state of the pipeline.
pub struct Retriever {
    bm25: Bm25Index,
    tokenizer: Tokenizer,
    location: HashMap<i64, (i64, i64, BlockKind)>,
    embedder: Option<Arc<Embedder>>,
    dense: Option<DenseIndex>,
    chapters: Vec<ChapterVector>,
    reranker: Option<Arc<CrossEncoder>>,
    counter: Arc<TokenCounter>,
    normalizer: Normalizer,
    other_subjects: Option<super::subjects::OtherSubjects>,
    notes: Vec<String>,
}

impl std::fmt::Debug for Retriever {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Retriever")
            .field("bm25", &self.bm25)
            .field("dense", &self.dense)
            .field("notes", &self.notes)
            .finish_non_exhaustive()
    }
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

impl Retriever {
    /// Loads the indexes of `lib` for `models`. Dense retrieval is used only when every chunk
    /// has a vector from the installed embedder; otherwise a note says to run `vidya reindex`.
    ///
    /// Errors: database errors, a vector index that cannot be built.
    pub fn load(lib: &Library, models: &Models) -> Result<Self> {
        let bm25 = Bm25Index::load(lib)?;
        let location = lib
            .chunk_locations()?
            .into_iter()
            .map(|l| (l.chunk_id, (l.book_id, l.chapter_id, l.kind)))
            .collect();
        let mut notes = models.notes.clone();
        if !bm25.repaired().is_empty() {
            notes.push(format!(
                "the word index of {} was built again from the stored text (the first use after an update, or it was missing or damaged)",
                bm25.repaired().join(", ")
            ));
        }
        let (mut dense, mut chapters) = (None, Vec::new());
        if let Some(e) = &models.embedder {
            let model = e.model_id();
            let missing = lib.missing_vector_count(&model)?;
            if missing > 0 {
                notes.push(format!(
                    "dense retrieval is off: {missing} chunk(s) have no vectors from {model} yet. Run `vidya reindex`"
                ));
            } else if !bm25.is_empty() {
                dense = Some(DenseIndex::open(lib, &model, crate::embed::DIM)?);
                chapters = lib.chapter_vectors(&model)?;
            }
        }
        let embedder = models.embedder.clone().filter(|_| dense.is_some());
        let other_subjects = match &embedder {
            Some(e) => Some(super::subjects::OtherSubjects::load(lib.dir(), e)?),
            None => None,
        };
        Ok(Self {
            other_subjects,
            normalizer: Normalizer::new(lib.vocabulary()?),
            bm25,
            tokenizer: Tokenizer::new(),
            location,
            embedder,
            dense,
            chapters,
            reranker: models.reranker.clone(),
            counter: models
                .counter
                .clone()
                .unwrap_or_else(|| Arc::new(TokenCounter::estimate())),
            notes,
        })
    }

    /// The BM25 index.
    pub fn bm25(&self) -> &Bm25Index {
        &self.bm25
    }

    /// The dense index, when dense retrieval is on.
    pub fn dense(&self) -> Option<&DenseIndex> {
        self.dense.as_ref()
    }

    /// The embedder, when dense retrieval is on.
    pub fn embedder(&self) -> Option<&Embedder> {
        self.embedder.as_deref()
    }

    /// True when a cross-encoder is installed.
    pub fn has_reranker(&self) -> bool {
        self.reranker.is_some()
    }

    /// The answer-model token counter.
    pub fn counter(&self) -> &TokenCounter {
        &self.counter
    }

    /// The BM25 tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tokenizer
    }

    /// Notes on stages that are off.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// True when the question has words but none is written in a script `passage` uses.
    pub fn cross_script(&self, terms: &[String], passage: &str) -> bool {
        use crate::text::script::{script_of, Script};
        let passage_scripts: HashSet<Script> = passage.chars().map(script_of).collect();
        let scripts: Vec<Script> = terms
            .iter()
            .filter_map(|t| t.chars().map(script_of).find(|s| *s != Script::Other))
            .collect();
        !scripts.is_empty() && scripts.iter().all(|s| !passage_scripts.contains(s))
    }

    /// Share of the question's idf weight found in `passage` (0..=1). Only terms written in a
    /// script the passage uses count: BM25 cannot match a Hindi word against English text.
    pub fn coverage(&self, terms: &[String], passage: &str) -> f32 {
        use crate::text::script::{script_of, Script};
        let term_script = |t: &str| t.chars().map(script_of).find(|s| *s != Script::Other);
        let passage_scripts: HashSet<Script> = passage.chars().map(script_of).collect();
        let q: HashSet<&str> = terms
            .iter()
            .map(String::as_str)
            .filter(|t| term_script(t).is_none_or(|s| passage_scripts.contains(&s)))
            .collect();
        let have: HashSet<String> = self.tokenizer.terms(passage).into_iter().collect();
        let total: f32 = q.iter().map(|t| self.bm25.idf(t)).sum();
        if total <= 0.0 {
            return 0.0;
        }
        q.iter()
            .filter(|t| have.contains(**t))
            .map(|t| self.bm25.idf(t))
            .sum::<f32>()
            / total
    }

    /// Runs the pipeline for `question` (already cut to length and non-empty) over `books`
    /// (all when `None`).
    ///
    /// Errors: [`VidyaError::EmptyLibrary`], database errors, a model that fails mid-run.
    pub fn run(
        &self,
        lib: &Library,
        question: &str,
        books: Option<&[i64]>,
        cfg: &PipelineConfig,
    ) -> Result<PipelineResult> {
        if self.bm25.is_empty() {
            return Err(VidyaError::EmptyLibrary);
        }
        let t = Instant::now();
        let query = if cfg.normalize {
            self.normalizer.normalize(question)
        } else {
            NormalizedQuery {
                text: question.to_string(),
                ..Default::default()
            }
        };
        let original_question = question;
        let question = query.text.as_str();
        let terms = self.tokenizer.terms(question);
        let mut stages = vec![StageReport {
            stage: "normalize",
            ms: ms(t),
            items_in: 1,
            items_out: 1,
            tokens_in: None,
            tokens_out: None,
        }];
        let mut notes = self.notes.clone();
        let stage = |name, t: Instant, items_in, items_out| StageReport {
            stage: name,
            ms: ms(t),
            items_in,
            items_out,
            tokens_in: None,
            tokens_out: None,
        };
        let in_books = |b: i64| books.is_none_or(|bs| bs.contains(&b));

        // Question vector.
        let dense_on = cfg.dense || cfg.router.is_some() || cfg.prune;
        let query_vec = match (&self.embedder, dense_on) {
            (Some(e), true) => {
                let t = Instant::now();
                // A Hindi question with English terms found for its words: the question and
                // the terms are embedded apart and their vectors added, the terms' weighted by
                // the share of the question they translate (measured on the dev split: Hindi
                // hit@3 0.90 → 1.00 against embedding them as one text; weighting by the share
                // keeps a lone translated word, as in XQuAD's questions about named people,
                // from steering the vector: XQuAD hi→en recall@5 0.917 → 0.94).
                let v = match &query.english {
                    Some(en) => {
                        let vs = e.embed_queries(&[original_question, en.as_str()])?;
                        let w = query.english_share;
                        let mut v: Vec<f32> =
                            vs[0].iter().zip(&vs[1]).map(|(a, b)| a + w * b).collect();
                        crate::store::vectors::normalize(&mut v);
                        Some(v)
                    }
                    None => e.embed_queries(&[question])?.pop(),
                };
                stages.push(stage("embed_query", t, 1, 1));
                v
            }
            _ => None,
        };

        // Stage 0: router.
        let t = Instant::now();
        let route = match (&cfg.router, &query_vec) {
            (Some(rc), Some(q)) => {
                let chapters: Vec<ChapterVector> = self
                    .chapters
                    .iter()
                    .filter(|c| in_books(c.book_id))
                    .cloned()
                    .collect();
                let r = router::route(q, &chapters, rc);
                stages.push(stage("router", t, r.considered, r.kept));
                r
            }
            _ => Route::default(),
        };
        let allow = |chunk: i64| {
            self.location.get(&chunk).is_some_and(|(b, c, _)| {
                in_books(*b) && route.chapters.as_ref().is_none_or(|cs| cs.contains(c))
            })
        };

        // Stage 1: candidates.
        let bm25_hits: Vec<(i64, f32)> = if cfg.bm25 {
            let t = Instant::now();
            let h: Vec<(i64, f32)> = self
                .bm25
                .search_filtered(&terms, cfg.candidates, &|c, _| allow(c))
                .into_iter()
                .map(|h| (h.chunk_id, h.score))
                .collect();
            stages.push(stage("bm25", t, self.bm25.len(), h.len()));
            h
        } else {
            Vec::new()
        };
        let dense_hits: Vec<(i64, f32)> = match (&self.dense, &query_vec, cfg.dense) {
            (Some(d), Some(q), true) => {
                let t = Instant::now();
                let h: Vec<(i64, f32)> = d
                    .search(q, cfg.candidates, &allow)
                    .into_iter()
                    .map(|h| (h.chunk_id, h.cosine))
                    .collect();
                stages.push(stage("dense", t, d.len(), h.len()));
                h
            }
            _ => Vec::new(),
        };
        let t = Instant::now();
        let mut fused = match (bm25_hits.is_empty(), dense_hits.is_empty()) {
            (false, false) => {
                // BM25 over a Hindi question's English terms is the weaker list.
                let fusion = match (query.english.is_some(), cfg.fusion) {
                    (true, Fusion::Weighted { .. }) => Fusion::Weighted {
                        dense: CROSS_LINGUAL_DENSE_WEIGHT,
                    },
                    (false, Fusion::Weighted { .. })
                        if crate::text::script::indic_share(original_question) >= 0.5 =>
                    {
                        Fusion::Weighted {
                            dense: super::fusion::INDIC_DENSE_WEIGHT,
                        }
                    }
                    (_, f) => f,
                };
                fuse(&bm25_hits, &dense_hits, fusion)
            }
            (false, true) => bm25_hits.clone(),
            (true, _) => dense_hits.clone(),
        };
        // Boilerplate (objectives, captions, boxes, summaries, key terms, exercises) shares the
        // body's words but rarely answers: it ranks below body text of similar score, unless
        // the question asks for it ("summary of chapter 8", "figure 8.6").
        // Learning objectives are instructions to the reader ("Explain how plants absorb
        // energy from sunlight"), never an answer: they only rank when asked for.
        if cfg.boilerplate_weight < 1.0 && !asks_for_boilerplate(question) {
            fused.retain(|(id, _)| {
                self.location
                    .get(id)
                    .is_none_or(|l| l.2 != BlockKind::Objectives)
            });
            for (id, s) in fused.iter_mut() {
                if self
                    .location
                    .get(id)
                    .is_some_and(|l| l.2 != BlockKind::Body)
                {
                    *s *= cfg.boilerplate_weight;
                }
            }
            fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        let bm25_of: HashMap<i64, f32> = bm25_hits.iter().copied().collect();
        let dense_of: HashMap<i64, f32> = dense_hits.iter().copied().collect();
        let mut ranked: Vec<Candidate> = fused
            .iter()
            .take(cfg.rerank_top.max(cfg.keep))
            .map(|&(id, s)| Candidate {
                chunk_id: id,
                book_id: self.location.get(&id).map(|l| l.0).unwrap_or(0),
                bm25: bm25_of.get(&id).copied(),
                dense: dense_of.get(&id).copied(),
                fused: s,
                rerank: None,
                sentence: None,
            })
            .collect();
        stages.push(stage(
            "fusion",
            t,
            bm25_hits.len() + dense_hits.len(),
            ranked.len(),
        ));
        let mut records: HashMap<i64, ChunkRecord> = HashMap::new();
        for c in &ranked {
            if let Some(r) = lib.chunk(c.chunk_id)? {
                records.insert(c.chunk_id, r);
            }
        }
        ranked.retain(|c| records.contains_key(&c.chunk_id));

        // Stage 2: cross-encoder, or sentence-level rescoring with the stored vectors.
        let model = self
            .embedder
            .as_ref()
            .map(|e| e.model_id())
            .unwrap_or_default();
        let mut sentence_vectors: HashMap<i64, Vec<Vec<f32>>> = HashMap::new();
        match (&self.reranker, cfg.rerank) {
            (Some(ce), true) if !ranked.is_empty() => {
                let t = Instant::now();
                let n = ranked.len();
                let texts: Vec<&str> = ranked
                    .iter()
                    .map(|c| records[&c.chunk_id].text.as_str())
                    .collect();
                let order = ce.rerank(question, &texts, cfg.keep)?;
                ranked = order
                    .into_iter()
                    .map(|(i, logit)| Candidate {
                        rerank: Some(logit),
                        ..ranked[i].clone()
                    })
                    .collect();
                stages.push(stage("rerank", t, n, ranked.len()));
            }
            _ if cfg.rescore && query_vec.is_some() && !ranked.is_empty() => {
                let t = Instant::now();
                let n = ranked.len();
                let q = query_vec.as_deref().unwrap_or_default();
                let ids: Vec<i64> = ranked.iter().map(|c| c.chunk_id).collect();
                sentence_vectors = lib.sentence_vectors_of(&model, &ids)?;
                for c in &mut ranked {
                    c.sentence = sentence_vectors.get(&c.chunk_id).and_then(|vs| {
                        vs.iter()
                            .zip(prune::chunk_sentences(&records[&c.chunk_id].text))
                            .filter(|(_, s)| prune::is_quotable(&s.text))
                            .map(|(v, _)| cosine(q, v))
                            .max_by(f32::total_cmp)
                    });
                }
                rescore(&mut ranked, cfg.rescore_weight);
                ranked.truncate(cfg.keep);
                stages.push(stage("rescore", t, n, ranked.len()));
            }
            _ => ranked.truncate(cfg.keep),
        }

        // Relevance gate.
        let t = Instant::now();
        let top_dense: HashSet<i64> = dense_hits.iter().take(5).map(|d| d.0).collect();
        let gate_input = GateInput {
            rerank: ranked.first().and_then(|c| c.rerank),
            dense: dense_hits.first().map(|d| d.1),
            sentence: ranked.first().and_then(|c| c.sentence),
            coverage: ranked
                .first()
                .map(|c| self.coverage(&terms, &records[&c.chunk_id].text))
                .unwrap_or(0.0),
            cross_script: ranked
                .first()
                .is_some_and(|c| self.cross_script(&terms, &records[&c.chunk_id].text)),
            unknown: query.unknown as f32 / query.content.max(1) as f32,
            indic: if query.hinglish {
                1.0
            } else {
                crate::text::script::indic_share(original_question)
            },
            agreement: if top_dense.is_empty() {
                0.0
            } else {
                bm25_hits
                    .iter()
                    .take(5)
                    .filter(|(id, _)| top_dense.contains(id))
                    .count() as f32
                    / 5.0
            },
            router: route.best,
            other_subject: match (&self.other_subjects, &query_vec) {
                (Some(o), Some(q)) => o.closest(q),
                _ => 0.0,
            },
            spread: match (dense_hits.first(), dense_hits.len()) {
                (Some(best), n) if n > 1 => {
                    best.1 - dense_hits.iter().map(|d| d.1).sum::<f32>() / n as f32
                }
                _ => 0.0,
            },
        };
        let gate = match &cfg.gate {
            Some(g) if !ranked.is_empty() => gate::decide(&gate_input, g),
            Some(_) => GateDecision {
                pass: false,
                signal: "no_candidates",
                probability: None,
            },
            None => GateDecision {
                pass: !ranked.is_empty(),
                signal: "off",
                probability: None,
            },
        };
        stages.push(stage(
            "gate",
            t,
            ranked.len(),
            if gate.pass { ranked.len() } else { 0 },
        ));
        let mut result = PipelineResult {
            query: query.clone(),
            route,
            gate_input,
            gate,
            budget: BudgetReport::default(),
            context_tokens: 0,
            stages,
            notes: Vec::new(),
            passages: Vec::new(),
            budgeted: Vec::new(),
            ranked,
        };
        if !gate.pass {
            result.notes = notes;
            return Ok(result);
        }
        let chunks: Vec<ChunkRecord> = result
            .ranked
            .iter()
            .filter_map(|c| records.remove(&c.chunk_id))
            .collect();
        result.budgeted = chunks.clone();

        if !cfg.prune {
            // Without the pruner the budget keeps whole chunks.
            let t = Instant::now();
            let n = chunks.len();
            let (kept, report) = match cfg.budget {
                Some(b) => budget::enforce(chunks, b, &self.counter),
                None => {
                    let tokens = chunks.iter().map(|c| self.counter.count(&c.text)).sum();
                    let report = BudgetReport::unbudgeted(tokens, chunks.len(), &self.counter);
                    (chunks, report)
                }
            };
            result.record_budget(stage("budget", t, n, kept.len()), report);
            result.passages = prune::prune(kept, &Scorer::KeepAll)?;
            result.notes = notes;
            return Ok(result);
        }

        // Stage 3: pruner.
        let t = Instant::now();
        let idf = |t: &str| self.bm25.idf(t);
        let missing: Vec<i64> = chunks
            .iter()
            .map(|c| c.id)
            .filter(|id| !sentence_vectors.contains_key(id))
            .collect();
        if self.embedder.is_some() && !missing.is_empty() {
            sentence_vectors.extend(lib.sentence_vectors_of(&model, &missing)?);
        }
        let scorer = match (&self.embedder, &query_vec) {
            (Some(e), Some(q)) => Scorer::Dense {
                embedder: e,
                stored: &sentence_vectors,
                query: q,
                threshold: cfg.prune_threshold,
            },
            _ => Scorer::Lexical {
                tokenizer: &self.tokenizer,
                terms: &terms,
                idf: &idf,
            },
        };
        let n = chunks.len();
        let tokens_in: usize = chunks.iter().map(|c| self.counter.count(&c.text)).sum();
        let pruned = prune::prune(chunks, &scorer)?;
        let pruned_tokens: usize = pruned.iter().map(|p| self.counter.count(&p.text())).sum();
        result.stages.push(StageReport {
            tokens_in: Some(tokens_in),
            tokens_out: Some(pruned_tokens),
            ..stage("prune", t, n, pruned.len())
        });

        // Stage 4: token budget over the kept sentences.
        let t = Instant::now();
        let n = pruned.len();
        let (passages, report) = match cfg.budget {
            Some(b) => budget::fit(pruned, b, &self.counter),
            None => {
                let report = BudgetReport::unbudgeted(pruned_tokens, pruned.len(), &self.counter);
                (pruned, report)
            }
        };
        result.record_budget(stage("budget", t, n, passages.len()), report);
        result.passages = passages;
        if !self.counter.is_exact() {
            notes.retain(|n| !n.starts_with("token counts"));
            notes.push("token counts are estimates (the answer model's tokenizer is not installed; run `cargo xtask setup --models`)".into());
        }
        result.notes = notes;
        Ok(result)
    }
}
