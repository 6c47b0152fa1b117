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

    /// The question as the retrievers read it (normalised when `cfg.normalize`: SMS spellings,
    /// typos, Hinglish and Hindi terms) and its BM25 terms.
    fn read_question<'a>(
        &self,
        lib: &'a Library,
        typed: &'a str,
        books: Option<&'a [i64]>,
        cfg: &'a PipelineConfig,
    ) -> Run<'a> {
        let t = Instant::now();
        let query = if cfg.normalize {
            self.normalizer.normalize(typed)
        } else {
            NormalizedQuery {
                text: typed.to_string(),
                ..Default::default()
            }
        };
        let terms = self.tokenizer.terms(&query.text);
        let definition = (cfg.definition_weight > 0.0)
            .then(|| asked_term(typed, &query))
            .flatten()
            .map(|term| DefinitionMatcher::new(&term));
        Run {
            definition,
            lib,
            cfg,
            books,
            typed,
            query,
            terms,
            vector: None,
            route: Route::default(),
            bm25_hits: Vec::new(),
            dense_hits: Vec::new(),
            records: HashMap::new(),
            sentence_vectors: HashMap::new(),
            gate_top: None,
            stages: vec![StageReport::timed("normalize", t, 1, 1)],
        }
    }

    /// The question's vector, when the embedder is on and dense retrieval, the router or the
    /// pruner needs it.
    fn embed_question(&self, run: &mut Run) -> Result<Option<Vec<f32>>> {
        let cfg = run.cfg;
        let Some(e) = self
            .embedder
            .as_ref()
            .filter(|_| cfg.dense || cfg.router.is_some() || cfg.prune)
        else {
            return Ok(None);
        };
        let t = Instant::now();
        // A Hindi question with English terms found for its words: the question and the terms
        // are embedded apart and their vectors added, the terms' weighted by the share of the
        // question they translate (measured on the dev split: Hindi hit@3 0.90 → 1.00 against
        // embedding them as one text; weighting by the share keeps a lone translated word, as
        // in XQuAD's questions about named people, from steering the vector: XQuAD hi→en
        // recall@5 0.917 → 0.94).
        let v = match &run.query.english {
            Some(en) => {
                let vs = e.embed_queries(&[run.typed, en.as_str()])?;
                let w = run.query.english_share;
                let mut v: Vec<f32> = vs[0].iter().zip(&vs[1]).map(|(a, b)| a + w * b).collect();
                crate::store::vectors::normalize(&mut v);
                Some(v)
            }
            None => e.embed_queries(&[run.query.text.as_str()])?.pop(),
        };
        run.stages.push(StageReport::timed("embed_query", t, 1, 1));
        Ok(v)
    }

    /// Stage 0: the chapters worth searching, from the question's vector and the chapter
    /// centroids of the books asked about (every chapter without a router or a vector).
    fn route(&self, run: &mut Run) -> Route {
        let (Some(rc), Some(q)) = (&run.cfg.router, &run.vector) else {
            return Route::default();
        };
        let t = Instant::now();
        let chapters: Vec<ChapterVector> = self
            .chapters
            .iter()
            .filter(|c| run.in_books(c.book_id))
            .cloned()
            .collect();
        let r = router::route(q, &chapters, rc);
        run.stages
            .push(StageReport::timed("router", t, r.considered, r.kept));
        r
    }

    /// True when `chunk` is running text (not boilerplate), where a definition counts.
    fn is_body(&self, chunk: i64) -> bool {
        self.location
            .get(&chunk)
            .is_some_and(|l| l.2 == BlockKind::Body)
    }

    /// True when `chunk` is in a book asked about and in a chapter the router kept.
    fn allowed(&self, run: &Run, chunk: i64) -> bool {
        self.location.get(&chunk).is_some_and(|(b, c, _)| {
            run.in_books(*b) && run.route.chapters.as_ref().is_none_or(|cs| cs.contains(c))
        })
    }

    /// Stage 1: the first `cfg.candidates` BM25 and dense candidates among the allowed chunks.
    fn candidates(&self, run: &mut Run) {
        let cfg = run.cfg;
        if cfg.bm25 {
            let t = Instant::now();
            let hits: Vec<(i64, f32)> = self
                .bm25
                .search_filtered(&run.terms, cfg.candidates, &|c, _| self.allowed(run, c))
                .into_iter()
                .map(|h| (h.chunk_id, h.score))
                .collect();
            run.stages
                .push(StageReport::timed("bm25", t, self.bm25.len(), hits.len()));
            run.bm25_hits = hits;
        }
        if let (Some(d), Some(q), true) = (&self.dense, &run.vector, cfg.dense) {
            let t = Instant::now();
            let hits: Vec<(i64, f32)> = d
                .search(q, cfg.candidates, &|c| self.allowed(run, c))
                .into_iter()
                .map(|h| (h.chunk_id, h.cosine))
                .collect();
            run.stages
                .push(StageReport::timed("dense", t, d.len(), hits.len()));
            run.dense_hits = hits;
        }
    }

    /// Stage 1: the two lists fused ([`fusion_for`]), boilerplate ranked below body text unless
    /// the question asks for it ([`demote_boilerplate`]), and the first `rerank_top` (for the
    /// cross-encoder) or `rescore_top` (for the sentence rescoring), at least `keep`, kept as
    /// candidates.
    fn fuse_lists(&self, run: &mut Run) -> Vec<Candidate> {
        let t = Instant::now();
        let cfg = run.cfg;
        let (bm25, dense) = (&run.bm25_hits, &run.dense_hits);
        let mut fused = match (bm25.is_empty(), dense.is_empty()) {
            (false, false) => fuse(bm25, dense, fusion_for(&run.query, run.typed, cfg.fusion)),
            (false, true) => bm25.clone(),
            (true, _) => dense.clone(),
        };
        if cfg.boilerplate_weight < 1.0 && !asks_for_boilerplate(&run.query.text) {
            demote_boilerplate(&mut fused, cfg.boilerplate_weight, &|id| {
                self.location.get(&id).map(|l| l.2)
            });
        }
        let bm25_of: HashMap<i64, f32> = bm25.iter().copied().collect();
        let dense_of: HashMap<i64, f32> = dense.iter().copied().collect();
        let ranked: Vec<Candidate> = fused
            .iter()
            .take(self.stage2_depth(cfg).max(cfg.keep))
            .map(|&(id, s)| Candidate {
                chunk_id: id,
                book_id: self.location.get(&id).map(|l| l.0).unwrap_or(0),
                bm25: bm25_of.get(&id).copied(),
                dense: dense_of.get(&id).copied(),
                fused: s,
                rerank: None,
                sentence: None,
                defines: false,
            })
            .collect();
        let items_in = bm25.len() + dense.len();
        run.stages
            .push(StageReport::timed("fusion", t, items_in, ranked.len()));
        ranked
    }

    /// How many fused candidates stage 2 reads: `rerank_top` when the cross-encoder runs,
    /// else `rescore_top`.
    fn stage2_depth(&self, cfg: &PipelineConfig) -> usize {
        if self.reranker.is_some() && cfg.rerank {
            cfg.rerank_top
        } else {
            cfg.rescore_top
        }
    }

    /// The model id the stored vectors were made with (empty without an embedder).
    fn vector_model(&self) -> String {
        self.embedder
            .as_ref()
            .map(|e| e.model_id())
            .unwrap_or_default()
    }

    /// Stage 2: the cross-encoder's order, or without one the fused order rescored with the
    /// stored sentence vectors ([`rescore`]); at most `cfg.keep` candidates.
    fn rerank(&self, run: &mut Run, mut ranked: Vec<Candidate>) -> Result<Vec<Candidate>> {
        let cfg = run.cfg;
        match (&self.reranker, cfg.rerank) {
            (Some(ce), true) if !ranked.is_empty() => {
                let t = Instant::now();
                let n = ranked.len();
                let texts: Vec<&str> = ranked
                    .iter()
                    .map(|c| run.records[&c.chunk_id].text.as_str())
                    .collect();
                let order = ce.rerank(&run.query.text, &texts, cfg.keep)?;
                ranked = order
                    .into_iter()
                    .map(|(i, logit)| Candidate {
                        rerank: Some(logit),
                        ..ranked[i].clone()
                    })
                    .collect();
                run.stages
                    .push(StageReport::timed("rerank", t, n, ranked.len()));
            }
            _ if cfg.rescore && run.vector.is_some() && !ranked.is_empty() => {
                let t = Instant::now();
                let n = ranked.len();
                let ids: Vec<i64> = ranked.iter().map(|c| c.chunk_id).collect();
                run.sentence_vectors = run.lib.sentence_vectors_of(&self.vector_model(), &ids)?;
                let q = run.vector.as_deref().unwrap_or_default();
                let definition = run.definition.as_ref();
                for c in &mut ranked {
                    let sentences = prune::chunk_sentences(&run.records[&c.chunk_id].text);
                    c.sentence = run
                        .sentence_vectors
                        .get(&c.chunk_id)
                        .and_then(|vs| best_sentence_cosine(q, vs, &sentences));
                    c.defines = self.is_body(c.chunk_id)
                        && definition.is_some_and(|d| {
                            sentences
                                .iter()
                                .any(|s| prune::is_quotable(&s.text) && d.defines(&s.text))
                        });
                }
                if ranked.len() > gate::FIT_RESCORED {
                    let mut fitted = ranked[..gate::FIT_RESCORED].to_vec();
                    rescore(&mut fitted, cfg.rescore_weight, cfg.definition_weight);
                    run.gate_top = fitted.into_iter().next();
                }
                rescore(&mut ranked, cfg.rescore_weight, cfg.definition_weight);
                ranked.truncate(cfg.keep);
                run.stages
                    .push(StageReport::timed("rescore", t, n, ranked.len()));
            }
            _ => ranked.truncate(cfg.keep),
        }
        Ok(ranked)
    }

    /// The relevance gate: what it reads about the best candidate ([`Self::gate_input`]) and
    /// its decision ([`gate::decide_for`]).
    fn gate(&self, run: &mut Run, ranked: &[Candidate]) -> (GateInput, GateDecision) {
        let t = Instant::now();
        let input = self.gate_input(run, ranked);
        let decision = gate::decide_for(run.cfg.gate.as_ref(), &input, !ranked.is_empty());
        let items_out = if decision.pass { ranked.len() } else { 0 };
        run.stages
            .push(StageReport::timed("gate", t, ranked.len(), items_out));
        (input, decision)
    }

    /// The gate's features for the best of `ranked` (see [`GateInput`]).
    fn gate_input(&self, run: &Run, ranked: &[Candidate]) -> GateInput {
        let top = run.gate_top.as_ref().or(ranked.first());
        let top_text = top.map(|c| run.records[&c.chunk_id].text.as_str());
        GateInput {
            rerank: top.and_then(|c| c.rerank),
            dense: run.dense_hits.first().map(|d| d.1),
            sentence: top.and_then(|c| c.sentence),
            coverage: top_text
                .map(|text| self.coverage(&run.terms, text))
                .unwrap_or(0.0),
            cross_script: top_text.is_some_and(|text| self.cross_script(&run.terms, text)),
            unknown: run.query.unknown as f32 / run.query.content.max(1) as f32,
            indic: if run.query.hinglish {
                1.0
            } else {
                indic_share(run.typed)
            },
            agreement: gate::agreement(&run.bm25_hits, &run.dense_hits),
            router: run.route.best,
            other_subject: match (&self.other_subjects, &run.vector) {
                (Some(o), Some(q)) => o.closest(q),
                _ => 0.0,
            },
            spread: gate::spread(&run.dense_hits),
        }
    }

    /// Without the pruner: the token budget keeps whole chunks.
    fn budget_whole_chunks(
        &self,
        cfg: &PipelineConfig,
        chunks: Vec<ChunkRecord>,
        result: &mut PipelineResult,
    ) -> Result<()> {
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
        result.record_budget(StageReport::timed("budget", t, n, kept.len()), report);
        result.passages = prune::prune(kept, &Scorer::KeepAll)?;
        Ok(())
    }

    /// Stage 3, the pruner (cosine with the stored sentence vectors when the embedder is on,
    /// else the question's idf-weighted words), then stage 4, the token budget over the kept
    /// sentences.
    fn prune_and_budget(
        &self,
        run: &mut Run,
        chunks: Vec<ChunkRecord>,
        result: &mut PipelineResult,
    ) -> Result<()> {
        let cfg = run.cfg;
        let t = Instant::now();
        let missing: Vec<i64> = chunks
            .iter()
            .map(|c| c.id)
            .filter(|id| !run.sentence_vectors.contains_key(id))
            .collect();
        if self.embedder.is_some() && !missing.is_empty() {
            let more = run
                .lib
                .sentence_vectors_of(&self.vector_model(), &missing)?;
            run.sentence_vectors.extend(more);
        }
        let idf = |t: &str| self.bm25.idf(t);
        let scorer = match (&self.embedder, &run.vector) {
            (Some(e), Some(q)) => Scorer::Dense {
                embedder: e,
                stored: &run.sentence_vectors,
                query: q,
                threshold: cfg.prune_threshold,
            },
            _ => Scorer::Lexical {
                tokenizer: &self.tokenizer,
                terms: &run.terms,
                idf: &idf,
            },
        };
        let n = chunks.len();
        let tokens_in: usize = chunks.iter().map(|c| self.counter.count(&c.text)).sum();
        // The definition a definition question asks for is kept whatever its cosine.
        let defines = |c: &ChunkRecord, sentence: &str| {
            run.definition
                .as_ref()
                .is_some_and(|d| self.is_body(c.id) && d.defines(sentence))
        };
        let pruned = prune::prune_defining(chunks, &scorer, &defines)?;
        let pruned_tokens: usize = pruned.iter().map(|p| self.counter.count(&p.text())).sum();
        result.stages.push(StageReport {
            tokens_in: Some(tokens_in),
            tokens_out: Some(pruned_tokens),
            ..StageReport::timed("prune", t, n, pruned.len())
        });

        let t = Instant::now();
        let n = pruned.len();
        let (passages, report) = match cfg.budget {
            Some(b) => budget::fit(pruned, b, &self.counter),
            None => {
                let report = BudgetReport::unbudgeted(pruned_tokens, pruned.len(), &self.counter);
                (pruned, report)
            }
        };
        result.record_budget(StageReport::timed("budget", t, n, passages.len()), report);
        result.passages = passages;
        if !self.counter.is_exact() {
            result.notes.retain(|n| !n.starts_with("token counts"));
            result.notes.push("token counts are estimates (the answer model's tokenizer is not installed; run `cargo xtask setup --models`)".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
