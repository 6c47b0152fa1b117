//! The retrieval pipeline, stage by stage:
//! question → router → BM25 + dense → fusion → cross-encoder → relevance gate → pruner →
//! token budget.
//!
//! [`Retriever`] holds what the stages load once per library (BM25 index, HNSW index, chapter
//! centroids, models); [`Retriever::run`] answers one question with a [`PipelineResult`]: the
//! pruned passages plus, per stage, its time (ms), items in/out, tokens in/out and scores.
//! Each stage is one step over the question's [`Run`] state; stages whose model is not
//! installed are skipped and say so in [`PipelineResult::notes`].

use super::budget::{self, BudgetReport, TokenCounter};
use super::config::{asks_for_boilerplate, CROSS_LINGUAL_DENSE_WEIGHT};
use super::definition::{asked_term, DefinitionMatcher};
use super::fusion::{fuse, Fusion, INDIC_DENSE_WEIGHT};
use super::gate::{self, GateDecision, GateInput};
use super::prune::{self, Scorer};
use super::query::{NormalizedQuery, Normalizer};
use super::rerank::CrossEncoder;
use super::rescore::{best_sentence_cosine, rescore};
use super::result::{Candidate, PipelineResult, StageReport};
use super::router::{self, Route};
use super::{Models, PipelineConfig};
use crate::embed::Embedder;
use crate::error::{Result, VidyaError};
use crate::ingest::blocks::BlockKind;
use crate::search::{Bm25Index, DenseIndex};
use crate::store::vectors::ChapterVector;
use crate::store::{ChunkRecord, Library};
use crate::text::script::indic_share;
use crate::text::Tokenizer;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

/// The fusion used for a question: a weighted fusion takes [`CROSS_LINGUAL_DENSE_WEIGHT`] when
/// the question's words were translated to English terms (BM25 then searches those terms, the
/// weaker list), and [`INDIC_DENSE_WEIGHT`] when at least half of the letters `typed` are in
/// an Indian script; any other fusion is `configured` unchanged.
pub fn fusion_for(query: &NormalizedQuery, typed: &str, configured: Fusion) -> Fusion {
    match (query.english.is_some(), configured) {
        (true, Fusion::Weighted { .. }) => Fusion::Weighted {
            dense: CROSS_LINGUAL_DENSE_WEIGHT,
        },
        (false, Fusion::Weighted { .. }) if indic_share(typed) >= 0.5 => Fusion::Weighted {
            dense: INDIC_DENSE_WEIGHT,
        },
        (_, f) => f,
    }
}

/// Boilerplate (objectives, captions, boxes, summaries, key terms, exercises) shares the body's
/// words but rarely answers: each fused `(chunk id, score)` whose block is not body text gets
/// its score multiplied by `weight`, learning objectives (instructions to the reader, never an
/// answer) are dropped, and the list is sorted again (ties by chunk id). `kind_of` gives a
/// chunk's block kind; a chunk of unknown kind is left as it is.
pub fn demote_boilerplate(
    fused: &mut Vec<(i64, f32)>,
    weight: f32,
    kind_of: &dyn Fn(i64) -> Option<BlockKind>,
) {
    fused.retain(|(id, _)| kind_of(*id) != Some(BlockKind::Objectives));
    for (id, s) in fused.iter_mut() {
        if kind_of(*id).is_some_and(|k| k != BlockKind::Body) {
            *s *= weight;
        }
    }
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
}

/// One question on its way through the stages: what each step of [`Retriever::run`] leaves
/// for the next.
struct Run<'a> {
    lib: &'a Library,
    cfg: &'a PipelineConfig,
    /// The books asked about (`None`: all).
    books: Option<&'a [i64]>,
    /// The question as typed (its script picks fusion weights and the gate's `indic`).
    typed: &'a str,
    /// The question as the retrievers read it.
    query: NormalizedQuery,
    /// BM25 terms of `query.text`.
    terms: Vec<String>,
    /// The question's unit vector, when the embedder is on and a stage needs it.
    vector: Option<Vec<f32>>,
    route: Route,
    /// Stage 1's lists, `(chunk id, score)`, best first.
    bm25_hits: Vec<(i64, f32)>,
    dense_hits: Vec<(i64, f32)>,
    /// Texts of the ranked candidates, by chunk id.
    records: HashMap<i64, ChunkRecord>,
    /// Stored sentence vectors read so far, by chunk id.
    sentence_vectors: HashMap<i64, Vec<Vec<f32>>>,
    /// Finds definitions of the term a definition question asks about (`None` for other
    /// questions, or with `cfg.definition_weight` 0).
    definition: Option<DefinitionMatcher>,
    /// The candidate the gate reads when the sentence rescoring ran over more than
    /// [`gate::FIT_RESCORED`] candidates: the best of the first ones (else the first ranked).
    gate_top: Option<Candidate>,
    stages: Vec<StageReport>,
}

impl Run<'_> {
    fn in_books(&self, book: i64) -> bool {
        self.books.is_none_or(|bs| bs.contains(&book))
    }

    /// Reads the texts of `ranked`; a candidate whose chunk is gone is dropped.
    fn read_texts(&mut self, mut ranked: Vec<Candidate>) -> Result<Vec<Candidate>> {
        for c in &ranked {
            if let Some(r) = self.lib.chunk(c.chunk_id)? {
                self.records.insert(c.chunk_id, r);
            }
        }
        ranked.retain(|c| self.records.contains_key(&c.chunk_id));
        Ok(ranked)
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
    /// (all when `None`), one step per stage: read the question, embed it, route, BM25 and
    /// dense candidates, fusion, cross-encoder (or rescoring), relevance gate, then the pruner
    /// and the token budget.
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
        let mut run = self.read_question(lib, question, books, cfg);
        run.vector = self.embed_question(&mut run)?;
        run.route = self.route(&mut run);
        self.candidates(&mut run);
        let fused = self.fuse_lists(&mut run);
        let ranked = run.read_texts(fused)?;
        let ranked = self.rerank(&mut run, ranked)?;
        let (gate_input, gate) = self.gate(&mut run, &ranked);
        let mut result = PipelineResult {
            query: run.query.clone(),
            route: std::mem::take(&mut run.route),
            gate_input,
            gate,
            budget: BudgetReport::default(),
            context_tokens: 0,
            stages: std::mem::take(&mut run.stages),
            notes: self.notes.clone(),
            passages: Vec::new(),
            budgeted: Vec::new(),
            ranked,
        };
        if !gate.pass {
            return Ok(result);
        }
        let chunks: Vec<ChunkRecord> = result
            .ranked
            .iter()
            .filter_map(|c| run.records.remove(&c.chunk_id))
            .collect();
        result.budgeted = chunks.clone();
        if cfg.prune {
            self.prune_and_budget(&mut run, chunks, &mut result)?;
        } else {
            self.budget_whole_chunks(cfg, chunks, &mut result)?;
        }
        Ok(result)
    }
}

mod context;
mod first_stage;
mod gate_stage;
mod question;
mod second_stage;

#[cfg(test)]
mod tests;
