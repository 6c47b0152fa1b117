//! Textbook QA: the stage configurations side by side on one QA set.
//!
//! Per configuration: page-level recall@k and MRR@k (a question is found at rank r when the
//! r-th kept chunk comes from `source.pdf_file` and its pages overlap `source.pdf_pages`);
//! for configurations with the budget and pruner, answer-model tokens before and after them
//! (median and 95th percentile) and answer-sentence retention (of the questions whose short
//! expected answer, ≤ [`super::MAX_EXPECTED_WORDS`] words, appears in the best whole chunks
//! that fit the token budget, the share where it still appears in the pruned context); with the router, how often it dropped the chapter
//! holding the answer; with the gate, its accuracy on these (answerable) questions and on an
//! optional set of unanswerable ones, plus the thresholds that would separate them best.

use super::{contains_phrase, quantile, read_qa, read_questions, NamedConfig, QaItem};
use crate::engine::Engine;
use crate::error::{Result, VidyaError};
use crate::retrieve::gate::{calibrate, GateInput};
use crate::retrieve::{PipelineConfig, PipelineResult};
use serde::Serialize;
use std::collections::HashSet;
use std::path::Path;

/// Figures of one configuration.
#[derive(Debug, Clone, Serialize, Default)]
pub struct ConfigReport {
    /// Configuration name.
    pub name: String,
    /// Questions evaluated.
    pub evaluated: usize,
    /// Page-level recall@k.
    pub recall: f64,
    /// Page-level MRR@k.
    pub mrr: f64,
    /// Median / 95th-percentile retrieval time (ms).
    pub median_ms: f64,
    /// 95th-percentile retrieval time (ms).
    pub p95_ms: f64,
    /// Share of routed questions whose answer chapter the router dropped.
    pub router_miss: Option<f64>,
    /// Mean chapters kept by the router (share of those considered).
    pub router_kept_share: Option<f64>,
    /// Median answer-model tokens entering the token budget (the pruned sentences).
    pub budget_tokens_median: Option<f64>,
    /// 95th percentile of the same.
    pub budget_tokens_p95: Option<f64>,
    /// Median tokens after pruning and the budget (the context sent to the model).
    pub pruned_tokens_median: Option<f64>,
    /// 95th percentile of the same.
    pub pruned_tokens_p95: Option<f64>,
    /// Answer-sentence retention after pruning.
    pub retention: Option<f64>,
    /// Questions whose answer was in the budgeted context (the retention denominator).
    pub retention_base: Option<usize>,
    /// Share of these answerable questions the gate let through.
    pub gate_pass_answerable: Option<f64>,
}

/// Gate figures over answerable and unanswerable questions.
#[derive(Debug, Clone, Serialize, Default)]
pub struct GateReport {
    /// Answerable questions (the QA set).
    pub answerable: usize,
    /// Unanswerable questions.
    pub unanswerable: usize,
    /// Accuracy of the default gate: answerable passed + unanswerable gated, over both.
    pub accuracy: f64,
    /// Share of answerable questions passed.
    pub pass_answerable: f64,
    /// Share of unanswerable questions gated.
    pub gate_unanswerable: f64,
    /// Best single threshold on the dense cosine and its accuracy.
    pub best_dense: Option<(f32, f64)>,
    /// Best single threshold on BM25 coverage and its accuracy.
    pub best_coverage: Option<(f32, f64)>,
    /// Best single threshold on the reranker logit and its accuracy.
    pub best_rerank: Option<(f32, f64)>,
    /// Best pair `(dense cosine, coverage)` for the rule "dense ≥ d or coverage ≥ c", with
    /// its accuracy.
    pub best_dense_or_coverage: Option<(f32, f32, f64)>,
}

/// The whole run.
#[derive(Debug, Clone, Serialize, Default)]
pub struct BookEvalReport {
    /// k of recall@k.
    pub k: usize,
    /// Records skipped (unreadable, no source, file not in the library).
    pub skipped: usize,
    /// One row per configuration.
    pub configs: Vec<ConfigReport>,
    /// Gate figures (when a configuration has the gate).
    pub gate: Option<GateReport>,
    /// Notes from the pipeline (stages that were off).
    pub notes: Vec<String>,
}

/// One configuration's running figures.
#[derive(Default)]
struct Acc {
    hits: usize,
    rr: f64,
    n: usize,
    times: Vec<f64>,
    router_total: usize,
    router_miss: usize,
    kept_share: f64,
    budget: Vec<f64>,
    pruned: Vec<f64>,
    retained: usize,
    retention_base: usize,
    gate_pass: usize,
    gated_runs: usize,
}

/// One located question, as every configuration sees it.
struct Asked<'a> {
    item: &'a QaItem,
    /// Chapter ids holding the answer's pages.
    answer_chapters: HashSet<i64>,
    /// The expected answers short enough to look for in a context.
    short: Vec<&'a String>,
}

impl Acc {
    /// Adds one question's result `r` (retrieved with `cfg` in `ms`).
    fn add(
        &mut self,
        engine: &Engine,
        q: &Asked,
        cfg: &PipelineConfig,
        r: &PipelineResult,
        ms: f64,
        k: usize,
    ) -> Result<()> {
        self.times.push(ms);
        self.n += 1;
        if let Some(rank) = answer_rank(engine.library(), q.item, r, k)? {
            self.hits += 1;
            self.rr += 1.0 / rank as f64;
        }
        self.add_route(r, &q.answer_chapters);
        if cfg.gate.is_some() {
            self.gated_runs += 1;
            self.gate_pass += r.gate.pass as usize;
        }
        if let (Some(budget), true) = (cfg.budget, r.gate.pass) {
            self.budget.push(r.budget.tokens_in as f64);
            self.pruned.push(r.context_tokens as f64);
            let before = whole_chunks_within(engine, r, budget);
            let after: String = r
                .passages
                .iter()
                .map(|p| p.text())
                .collect::<Vec<_>>()
                .join(" ");
            if q.short.iter().any(|x| contains_phrase(&before, x)) {
                self.retention_base += 1;
                self.retained += q.short.iter().any(|x| contains_phrase(&after, x)) as usize;
            }
        }
        Ok(())
    }

    /// The router's share of chapters kept, and whether it dropped the answer's chapter.
    fn add_route(&mut self, r: &PipelineResult, answer_chapters: &HashSet<i64>) {
        if let Some(chapters) = &r.route.chapters {
            self.router_total += 1;
            self.kept_share += r.route.kept as f64 / r.route.considered.max(1) as f64;
            if !answer_chapters.is_empty() && answer_chapters.is_disjoint(chapters) {
                self.router_miss += 1;
            }
        } else if r.route.considered > 0 {
            self.router_total += 1;
            self.kept_share += 1.0;
        }
    }

    fn into_report(self, name: &str) -> ConfigReport {
        let share = |x: usize, n: usize| x as f64 / n.max(1) as f64;
        let q = |xs: &[f64], p: f64| (!xs.is_empty()).then(|| quantile(xs, p));
        ConfigReport {
            name: name.to_string(),
            evaluated: self.n,
            recall: share(self.hits, self.n),
            mrr: self.rr / self.n.max(1) as f64,
            median_ms: quantile(&self.times, 0.5),
            p95_ms: quantile(&self.times, 0.95),
            router_miss: (self.router_total > 0)
                .then(|| share(self.router_miss, self.router_total)),
            router_kept_share: (self.router_total > 0)
                .then(|| self.kept_share / self.router_total as f64),
            budget_tokens_median: q(&self.budget, 0.5),
            budget_tokens_p95: q(&self.budget, 0.95),
            pruned_tokens_median: q(&self.pruned, 0.5),
            pruned_tokens_p95: q(&self.pruned, 0.95),
            retention: (self.retention_base > 0).then(|| share(self.retained, self.retention_base)),
            retention_base: (!self.budget.is_empty()).then_some(self.retention_base),
            gate_pass_answerable: (self.gated_runs > 0)
                .then(|| share(self.gate_pass, self.gated_runs)),
        }
    }
}

/// The rank (1-based, at most `k`) of the first kept chunk from the answer's file whose pages
/// overlap the answer's pages.
fn answer_rank(
    lib: &crate::Library,
    item: &QaItem,
    r: &PipelineResult,
    k: usize,
) -> Result<Option<usize>> {
    let (a, b) = item.pages;
    for (i, cand) in r.ranked.iter().take(k).enumerate() {
        let Some(chunk) = lib.chunk(cand.chunk_id)? else {
            continue;
        };
        let (Some(first), Some(last)) = (
            lib.page(chunk.book_id, chunk.first_page)?,
            lib.page(chunk.book_id, chunk.last_page)?,
        ) else {
            continue;
        };
        if first.file_name == item.file && first.pdf_page <= b && last.pdf_page >= a {
            return Ok(Some(i + 1));
        }
    }
    Ok(None)
}

/// The retention base: what whole chunks within `budget` tokens would hold (the best chunks,
/// while they fit, at least the first), as a context without the pruner would.
fn whole_chunks_within(engine: &Engine, r: &PipelineResult, budget: usize) -> String {
    let counter = engine.retriever().counter();
    let mut used = 0;
    r.budgeted
        .iter()
        .take_while(|c| {
            let first = used == 0;
            used += counter.count(&c.text);
            first || used <= budget
        })
        .map(|c| c.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The question as asked: with `with_options`, the MCQ options appended (as a student pasting
/// the whole question would).
fn question_of(item: &QaItem, with_options: bool) -> String {
    let mut question = item.question.clone();
    if with_options && !item.options.is_empty() {
        question.push('\n');
        question.push_str(&item.options.join("\n"));
    }
    question
}

/// Runs `configs` over the QA JSONL at `qa_path` (questions outer, configurations inner, so
/// the question's vector is embedded once). `unanswerable`: a JSONL of questions the library
/// cannot answer, used for the gate. `with_options`: append MCQ options to the question (as a
/// student pasting the whole question would). `limit`: at most this many questions.
///
/// Errors: unreadable files, no usable question, database or model errors.
pub fn book_eval(
    engine: &Engine,
    qa_path: &Path,
    unanswerable: Option<&Path>,
    configs: &[NamedConfig],
    k: usize,
    with_options: bool,
    limit: Option<usize>,
) -> Result<BookEvalReport> {
    let lib = engine.library();
    let in_library = lib.file_names()?;
    let mut report = BookEvalReport {
        k,
        notes: engine.retriever().notes().to_vec(),
        ..Default::default()
    };
    let mut acc: Vec<Acc> = configs.iter().map(|_| Acc::default()).collect();
    // The gate's input and decision per question, with whether it is answerable.
    let mut gate_runs: Vec<(GateInput, bool, bool)> = Vec::new();
    let gate_cfg = configs.iter().find(|c| c.config.gate.is_some()).cloned();
    let mut evaluated = 0usize;
    for item in read_qa(qa_path)? {
        if limit.is_some_and(|l| evaluated >= l) {
            break;
        }
        let Some(item) = item.filter(|i| in_library.contains(&i.file)) else {
            report.skipped += 1;
            continue;
        };
        let asked = Asked {
            answer_chapters: lib.chapters_of_pages(&item.file, item.pages.0, item.pages.1)?,
            short: item
                .answers
                .iter()
                .filter(|x| {
                    let w = x.split_whitespace().count();
                    w > 0 && w <= super::MAX_EXPECTED_WORDS
                })
                .collect(),
            item: &item,
        };
        evaluated += 1;
        let question = question_of(&item, with_options);
        for (c, s) in configs.iter().zip(acc.iter_mut()) {
            let cfg = PipelineConfig {
                keep: c.config.keep.max(k),
                ..c.config.clone()
            };
            let t = std::time::Instant::now();
            let r = match engine.retrieve(&question, None, &cfg) {
                Ok(r) => r,
                Err(VidyaError::EmptyQuestion) => continue,
                Err(e) => return Err(e),
            };
            s.add(engine, &asked, &cfg, &r, t.elapsed().as_secs_f64() * 1e3, k)?;
            if gate_cfg.as_ref().is_some_and(|g| g.name == c.name) {
                gate_runs.push((r.gate_input, r.gate.pass, true));
            }
        }
    }
    if evaluated == 0 {
        return Err(VidyaError::BadOption(format!(
            "no usable questions in {}: records need source.pdf_file/pdf_pages about files in the library ({} skipped)",
            qa_path.display(),
            report.skipped
        )));
    }
    if let (Some(path), Some(g)) = (unanswerable, &gate_cfg) {
        let questions = read_questions(path)?;
        for q in questions.iter().take(limit.unwrap_or(usize::MAX)) {
            match engine.retrieve(q, None, &g.config) {
                Ok(r) => gate_runs.push((r.gate_input, r.gate.pass, false)),
                Err(VidyaError::EmptyQuestion) => continue,
                Err(e) => return Err(e),
            }
        }
    }
    if gate_cfg.is_some() && !gate_runs.is_empty() {
        report.gate = Some(gate_report(&gate_runs));
    }
    report.configs = configs
        .iter()
        .zip(acc)
        .map(|(c, s)| s.into_report(&c.name))
        .collect();
    Ok(report)
}

/// The gate's figures over `(input, passed, answerable)` runs: the default gate's accuracy and
/// the best single thresholds on each signal.
fn gate_report(runs: &[(GateInput, bool, bool)]) -> GateReport {
    let answerable = runs.iter().filter(|r| r.2).count();
    let unanswerable = runs.len() - answerable;
    let right = runs.iter().filter(|r| r.1 == r.2).count();
    let signals: Vec<(GateInput, bool)> = runs.iter().map(|r| (r.0, r.2)).collect();
    let signal = |f: &dyn Fn(&GateInput) -> Option<f32>| {
        let v: Vec<(f32, bool)> = signals
            .iter()
            .filter_map(|(g, a)| f(g).map(|s| (s, *a)))
            .collect();
        calibrate(&v)
    };
    GateReport {
        answerable,
        unanswerable,
        accuracy: right as f64 / runs.len() as f64,
        pass_answerable: runs.iter().filter(|r| r.1 && r.2).count() as f64
            / answerable.max(1) as f64,
        gate_unanswerable: runs.iter().filter(|r| !r.1 && !r.2).count() as f64
            / unanswerable.max(1) as f64,
        best_dense: signal(&|g| g.dense),
        best_coverage: signal(&|g| Some(g.coverage)),
        best_rerank: signal(&|g| g.rerank),
        best_dense_or_coverage: best_pair(&signals),
    }
}

/// Grid search for the "dense ≥ d or coverage ≥ c" rule: every observed dense cosine and
/// coverage value is tried (rounded to 0.005 to bound the grid).
fn best_pair(signals: &[(GateInput, bool)]) -> Option<(f32, f32, f64)> {
    let round = |x: f32| (x * 200.0).round() / 200.0;
    let mut ds: Vec<f32> = signals
        .iter()
        .filter_map(|(g, _)| g.dense.map(round))
        .collect();
    let mut cs: Vec<f32> = signals.iter().map(|(g, _)| round(g.coverage)).collect();
    for v in [&mut ds, &mut cs] {
        v.push(f32::MAX);
        v.sort_by(f32::total_cmp);
        v.dedup();
    }
    if ds.len() < 2 {
        return None;
    }
    let mut best: Option<(f32, f32, f64)> = None;
    for &d in &ds {
        for &c in &cs {
            let right = signals
                .iter()
                .filter(|(g, a)| (g.dense.is_some_and(|x| x >= d) || g.coverage >= c) == *a)
                .count();
            let acc = right as f64 / signals.len() as f64;
            if best.is_none_or(|b| acc > b.2) {
                best = Some((d, c, acc));
            }
        }
    }
    best
}
