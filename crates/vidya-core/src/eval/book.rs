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

use super::{contains_phrase, quantile, read_qa, read_questions, NamedConfig};
use crate::ask::Engine;
use crate::error::{Result, VidyaError};
use crate::retrieve::gate::{calibrate, GateInput};
use crate::retrieve::PipelineConfig;
use serde::Serialize;
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
    let mut gate_signals: Vec<(GateInput, bool)> = Vec::new();
    let mut gate_default: Vec<(bool, bool)> = Vec::new();
    let gate_cfg = configs.iter().find(|c| c.config.gate.is_some()).cloned();
    let mut evaluated = 0usize;
    for item in read_qa(qa_path)? {
        if limit.is_some_and(|l| evaluated >= l) {
            break;
        }
        let Some(rec) = item else {
            report.skipped += 1;
            continue;
        };
        if !in_library.contains(&rec.file) {
            report.skipped += 1;
            continue;
        }
        let (a, b) = rec.pages;
        let answer_chapters = lib.chapters_of_pages(&rec.file, a, b)?;
        let short: Vec<&String> = rec
            .answers
            .iter()
            .filter(|x| {
                let w = x.split_whitespace().count();
                w > 0 && w <= super::MAX_EXPECTED_WORDS
            })
            .collect();
        evaluated += 1;
        let mut question = rec.question.clone();
        if with_options && !rec.options.is_empty() {
            question.push('\n');
            question.push_str(&rec.options.join("\n"));
        }
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
            s.times.push(t.elapsed().as_secs_f64() * 1e3);
            s.n += 1;
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
                if first.file_name == rec.file && first.pdf_page <= b && last.pdf_page >= a {
                    s.hits += 1;
                    s.rr += 1.0 / (i + 1) as f64;
                    break;
                }
            }
            if let Some(chapters) = &r.route.chapters {
                s.router_total += 1;
                s.kept_share += r.route.kept as f64 / r.route.considered.max(1) as f64;
                if !answer_chapters.is_empty() && answer_chapters.is_disjoint(chapters) {
                    s.router_miss += 1;
                }
            } else if r.route.considered > 0 {
                s.router_total += 1;
                s.kept_share += 1.0;
            }
            if cfg.gate.is_some() {
                s.gated_runs += 1;
                s.gate_pass += r.gate.pass as usize;
            }
            if cfg.budget.is_some() && r.gate.pass {
                s.budget.push(r.budget.tokens_in as f64);
                s.pruned.push(r.context_tokens as f64);
                // The base: what whole chunks within the budget would hold (the best chunks,
                // while they fit, at least the first), as a context without the pruner would.
                let counter = engine.retriever().counter();
                let budget = cfg.budget.unwrap_or(usize::MAX);
                let mut used = 0;
                let before: String = r
                    .budgeted
                    .iter()
                    .take_while(|c| {
                        let first = used == 0;
                        used += counter.count(&c.text);
                        first || used <= budget
                    })
                    .map(|c| c.text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                let after: String = r
                    .passages
                    .iter()
                    .map(|p| p.text())
                    .collect::<Vec<_>>()
                    .join(" ");
                if short.iter().any(|x| contains_phrase(&before, x)) {
                    s.retention_base += 1;
                    s.retained += short.iter().any(|x| contains_phrase(&after, x)) as usize;
                }
            }
            if gate_cfg.as_ref().is_some_and(|g| g.name == c.name) {
                gate_signals.push((r.gate_input, true));
                gate_default.push((r.gate.pass, true));
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
                Ok(r) => {
                    gate_signals.push((r.gate_input, false));
                    gate_default.push((r.gate.pass, false));
                }
                Err(VidyaError::EmptyQuestion) => continue,
                Err(e) => return Err(e),
            }
        }
    }
    if gate_cfg.is_some() && !gate_default.is_empty() {
        let answerable = gate_default.iter().filter(|(_, a)| *a).count();
        let unanswerable = gate_default.len() - answerable;
        let right = gate_default.iter().filter(|(p, a)| p == a).count();
        let signal = |f: &dyn Fn(&GateInput) -> Option<f32>| {
            let v: Vec<(f32, bool)> = gate_signals
                .iter()
                .filter_map(|(g, a)| f(g).map(|s| (s, *a)))
                .collect();
            calibrate(&v)
        };
        report.gate = Some(GateReport {
            answerable,
            unanswerable,
            accuracy: right as f64 / gate_default.len() as f64,
            pass_answerable: gate_default.iter().filter(|(p, a)| *p && *a).count() as f64
                / answerable.max(1) as f64,
            gate_unanswerable: gate_default.iter().filter(|(p, a)| !*p && !*a).count() as f64
                / unanswerable.max(1) as f64,
            best_dense: signal(&|g| g.dense),
            best_coverage: signal(&|g| Some(g.coverage)),
            best_rerank: signal(&|g| g.rerank),
            best_dense_or_coverage: best_pair(&gate_signals),
        });
    }
    let share = |x: usize, n: usize| x as f64 / n.max(1) as f64;
    report.configs = configs
        .iter()
        .zip(acc)
        .map(|(c, s)| ConfigReport {
            name: c.name.clone(),
            evaluated: s.n,
            recall: share(s.hits, s.n),
            mrr: s.rr / s.n.max(1) as f64,
            median_ms: quantile(&s.times, 0.5),
            p95_ms: quantile(&s.times, 0.95),
            router_miss: (s.router_total > 0).then(|| share(s.router_miss, s.router_total)),
            router_kept_share: (s.router_total > 0).then(|| s.kept_share / s.router_total as f64),
            budget_tokens_median: (!s.budget.is_empty()).then(|| quantile(&s.budget, 0.5)),
            budget_tokens_p95: (!s.budget.is_empty()).then(|| quantile(&s.budget, 0.95)),
            pruned_tokens_median: (!s.pruned.is_empty()).then(|| quantile(&s.pruned, 0.5)),
            pruned_tokens_p95: (!s.pruned.is_empty()).then(|| quantile(&s.pruned, 0.95)),
            retention: (s.retention_base > 0).then(|| share(s.retained, s.retention_base)),
            retention_base: (!s.budget.is_empty()).then_some(s.retention_base),
            gate_pass_answerable: (s.gated_runs > 0).then(|| share(s.gate_pass, s.gated_runs)),
        })
        .collect();
    Ok(report)
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
