//! `vidya eval`: stage configurations side by side on a textbook QA set or a BEIR folder, and
//! the tutor's answers with a real model.

use crate::cli::ModelArgs;
use crate::output;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vidya_core::answer::{Tutor, TutorOptions};
use vidya_core::eval::corpus;
use vidya_core::eval::{self, beir, book};
use vidya_core::ingest::{IngestOptions, Progress};
use vidya_core::{Engine, Library, VidyaError};

/// `vidya eval` arguments.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// QA JSONL file whose records have source.pdf_file and source.pdf_pages (page-level
    /// eval of the library's books).
    #[arg(long, required_unless_present_any = ["beir", "extraction", "students"], conflicts_with_all = ["beir", "students"])]
    pub qa: Option<PathBuf>,
    /// The realistic student question set (tests/eval/students.jsonl): exact-page hit@1 and
    /// hit@3 of the citations `vidya ask` shows, false stops, per language and question kind.
    #[arg(long, conflicts_with = "beir")]
    pub students: Option<PathBuf>,
    /// With --students: follow-up pairs (tests/eval/followups.jsonl), asked as two-turn
    /// conversations.
    #[arg(long, requires = "students")]
    pub followups: Option<PathBuf>,
    /// With --students: dev, test or all (tune on dev, report on test).
    #[arg(long, default_value = "test", value_parser = ["dev", "test", "all"], requires = "students")]
    pub split: String,
    /// With --students: write what the gate saw for every question, one JSON line each
    /// (`{"answerable", "input"}`), to fit the gate (tests/eval/fit_gate.py).
    #[arg(long, requires = "students")]
    pub gate_features: Option<PathBuf>,
    /// With --gate-features: add the questions of this gate training set (JSONL with
    /// "question" and "answerable"; tests/eval/gate_train.jsonl) to the samples.
    #[arg(long, requires = "gate_features")]
    pub gate_train: Option<PathBuf>,
    /// With --students: list every question missed (not on the page within 3 citations, or
    /// not stopped).
    #[arg(long, requires = "students")]
    pub misses: bool,
    /// A BEIR folder (corpus.jsonl, queries.jsonl, qrels/test.tsv): its corpus is stored in
    /// the --library as one book (embedded once) and nDCG@10 is measured.
    #[arg(long)]
    pub beir: Option<PathBuf>,
    /// A folder of PDFs with NAME.groundtruth*.txt beside them: print each PDF's character
    /// error rate (CER) before and after Vidya's Indic repairs and legacy-font conversion.
    /// Needs no library.
    #[arg(long, conflicts_with_all = ["qa", "beir", "students"])]
    pub extraction: Option<PathBuf>,
    /// With --beir: another queries.jsonl (e.g. English questions over a Hindi corpus).
    #[arg(long, requires = "beir")]
    pub queries: Option<PathBuf>,
    /// With --beir: the judgements to score against, `qrels/<SPLIT>.tsv` (tune on train,
    /// report on test).
    #[arg(long, requires = "beir", default_value = "test", value_parser = ["test", "train", "dev"])]
    pub beir_split: String,
    /// Questions the library cannot answer (JSONL with "question"), for the gate
    /// (tests/eval/off_topic.jsonl with --students).
    #[arg(long)]
    pub unanswerable: Option<PathBuf>,
    /// Configurations to compare, comma-separated (default: all of bm25, dense, hybrid,
    /// hybrid-weighted, hybrid+router, hybrid+router+rerank, full; with --students: full).
    #[arg(long)]
    pub configs: Option<String>,
    /// k of recall@k (1-100).
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u16).range(1..=100))]
    pub k: u16,
    /// Use the question alone, without the MCQ options.
    #[arg(long)]
    pub no_options: bool,
    /// Evaluate only the first N questions.
    #[arg(long)]
    pub limit: Option<usize>,
    /// Judge the tutor's answers with a real model instead of retrieval (--qa or --students,
    /// with --unanswerable): answered / refused / extractive shares, answers whose every
    /// sentence is supported and cited, cited-page and must-mention rates, invented sentences
    /// removed, time to first token (needs Ollama or the test model server).
    #[arg(long)]
    pub answers: bool,
    /// With --answers: also run the extractive answer (no model) on the same questions.
    #[arg(long, requires = "answers")]
    pub baseline: bool,
    /// With --answers: also ask each question with the whole pages of its passages (up to
    /// 2,000 tokens) instead of the pruned sentences, right after the pruned one: time to
    /// first token and prompt tokens side by side (the pruning measurement).
    #[arg(long, requires = "answers")]
    pub whole_pages: bool,
    /// With --answers: the prompt's form (standard, example, short, question-first).
    #[arg(long, requires = "answers", value_parser = ["standard", "example", "short", "question-first"])]
    pub prompt_form: Option<String>,
    /// With --answers: ask the model even when the relevance gate would stop the question
    /// (measures what the answer checks do alone).
    #[arg(long, requires = "answers")]
    pub no_gate: bool,
    #[command(flatten)]
    pub tune: Tune,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

/// Stage settings to try instead of the defaults (for tuning).
#[derive(clap::Args, Default)]
pub struct Tune {
    /// Try this pruning threshold (cosine) instead of the default.
    #[arg(long)]
    pub prune_threshold: Option<f32>,
    /// Try this router margin instead of the default.
    #[arg(long)]
    pub router_margin: Option<f32>,
    /// Try this decision threshold (0..1) on the gate model's probability (for English and
    /// other questions alike; 0 turns the gate off).
    #[arg(long)]
    pub gate_threshold: Option<f32>,
    /// Try this gate threshold on BM25 coverage.
    #[arg(long)]
    pub gate_coverage: Option<f32>,
    /// Try this weight (0..1) of the sentence cosine in the rescoring stage.
    #[arg(long)]
    pub rescore_weight: Option<f32>,
    /// Try this bonus in the rescoring stage for a passage that defines the term a
    /// definition question asks about (0 turns it off).
    #[arg(long)]
    pub definition_weight: Option<f32>,
    /// Try this factor on the fused score of boilerplate chunks (1: rank them like body text).
    #[arg(long)]
    pub boilerplate_weight: Option<f32>,
    /// Try this weight (0..1) of the dense list in weighted fusion (the configurations that
    /// use weighted fusion).
    #[arg(long)]
    pub dense_weight: Option<f32>,
    /// Search with the question as typed (no SMS, typo, Hinglish or Hindi normalisation).
    #[arg(long)]
    pub no_normalize: bool,
    /// Try this many fused candidates in the sentence rescoring (stage 2 without a
    /// cross-encoder) instead of the default.
    #[arg(long)]
    pub rescore_top: Option<usize>,
    /// Try this many candidates from each of BM25 and dense retrieval instead of the default.
    #[arg(long)]
    pub candidates: Option<usize>,
}

impl Tune {
    fn apply(&self, configs: &mut [eval::NamedConfig]) {
        for c in configs {
            let p = &mut c.config;
            if let Some(t) = self.prune_threshold {
                p.prune_threshold = t;
            }
            if let (Some(m), Some(r)) = (self.router_margin, p.router.as_mut()) {
                r.margin = m;
            }
            if let (Some(t), Some(g)) = (self.gate_threshold, p.gate.as_mut()) {
                g.model.threshold = t;
                g.model.threshold_indic = t;
            }
            if let (Some(x), Some(g)) = (self.gate_coverage, p.gate.as_mut()) {
                g.coverage = x;
            }
            if let Some(w) = self.rescore_weight {
                p.rescore_weight = w;
            }
            if let Some(w) = self.definition_weight {
                p.definition_weight = w;
            }
            if let Some(w) = self.boilerplate_weight {
                p.boilerplate_weight = w;
            }
            if let (Some(w), vidya_core::retrieve::fusion::Fusion::Weighted { dense }) =
                (self.dense_weight, &mut p.fusion)
            {
                *dense = w;
            }
            if self.no_normalize {
                p.normalize = false;
            }
            if let Some(n) = self.rescore_top {
                p.rescore_top = n;
            }
            if let Some(n) = self.candidates {
                p.candidates = n;
            }
        }
    }
}

/// Runs `vidya eval` in the mode its arguments choose.
pub fn run(library: &Path, args: &EvalArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.extraction {
        return extraction(dir, args.json);
    }
    if args.answers {
        if args.qa.is_none() && args.students.is_none() {
            return Err(VidyaError::BadOption(
                "--answers needs the questions: --qa FILE or --students FILE".into(),
            )
            .into());
        }
        let engine = Engine::from_library(Library::open_existing(library)?)?;
        let tutor = Tutor::new(engine, crate::ask_cmd::llm_config(&args.model));
        let opts = vidya_core::answer::TutorOptions {
            gate: !args.no_gate,
            prompt_form: args
                .prompt_form
                .as_deref()
                .and_then(vidya_core::answer::prompt::PromptForm::parse)
                .unwrap_or_default(),
            ..crate::ask_cmd::tutor_options(&args.model, None, false)?
        };
        return answers(&tutor, args, &opts);
    }
    if let Some(students) = &args.students {
        return students_cmd(library, students, args);
    }
    retrieval(library, args)
}

fn opt(v: Option<f64>, digits: usize) -> String {
    v.map(|x| format!("{x:.digits$}"))
        .unwrap_or_else(|| "-".into())
}

/// Retrieval eval: `--qa` over the library's books, or `--beir`.
pub fn retrieval(library: &Path, args: &EvalArgs) -> Result<ExitCode> {
    if args.limit == Some(0) {
        return Err(VidyaError::BadOption("--limit must be at least 1".into()).into());
    }
    if let Some(dir) = &args.beir {
        return beir_cmd(library, dir, args);
    }
    let qa = args.qa.as_ref().expect("clap requires --qa or --beir");
    let engine = Engine::from_library(Library::open_existing(library)?)?;
    if engine.index().is_empty() {
        return Err(VidyaError::EmptyLibrary.into());
    }
    let mut configs =
        eval::select_configs(args.configs.as_deref(), engine.retriever().has_reranker())?;
    args.tune.apply(&mut configs);
    let r = book::book_eval(
        &engine,
        qa,
        args.unanswerable.as_deref(),
        &configs,
        args.k as usize,
        !args.no_options,
        args.limit,
    )?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(ExitCode::SUCCESS);
    }
    for n in &r.notes {
        output::err_line(format!("note: {n}"));
    }
    if args.configs.is_none() && !engine.retriever().has_reranker() {
        output::err_line("note: hybrid+router+rerank is left out: no cross-encoder is installed (`cargo xtask setup --reranker-from <folder>`)");
    }
    let n = r.configs.first().map(|c| c.evaluated).unwrap_or(0);
    out!("questions: {n} (skipped {})", r.skipped);
    out!(
        "{:<22} {:>9} {:>7} {:>8} {:>8} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}",
        "configuration",
        format!("recall@{}", r.k),
        format!("MRR@{}", r.k),
        "p50 ms",
        "p95 ms",
        "router",
        "kept",
        "budget50",
        "pruned50",
        "pruned95",
        "retention",
        "gate pass"
    );
    for c in &r.configs {
        out!(
            "{:<22} {:>9.3} {:>7.3} {:>8.1} {:>8.1} {:>8} {:>7} {:>9} {:>9} {:>9} {:>9} {:>9}",
            c.name,
            c.recall,
            c.mrr,
            c.median_ms,
            c.p95_ms,
            opt(c.router_miss.map(|m| m * 100.0), 1)
                + if c.router_miss.is_some() { "%" } else { "" },
            opt(c.router_kept_share.map(|m| m * 100.0), 0)
                + if c.router_kept_share.is_some() {
                    "%"
                } else {
                    ""
                },
            opt(c.budget_tokens_median, 0),
            opt(c.pruned_tokens_median, 0),
            opt(c.pruned_tokens_p95, 0),
            opt(c.retention, 3),
            opt(c.gate_pass_answerable, 3),
        );
    }
    out!("router = share of questions whose answer chapter the router dropped; kept = mean share of chapters searched; budget50 = answer-model tokens entering the token budget (median), pruned50/pruned95 = tokens sent to the model (median, 95th percentile); retention = an answer that the best whole chunks within the budget hold is still in the pruned context");
    if let Some(g) = r.gate.as_ref().filter(|g| g.unanswerable > 0) {
        out!(
            "gate: accuracy {:.3} over {} answerable + {} unanswerable (passes {:.3} of answerable, stops {:.3} of unanswerable)",
            g.accuracy,
            g.answerable,
            g.unanswerable,
            g.pass_answerable,
            g.gate_unanswerable
        );
        for (name, best) in [
            ("dense cosine", g.best_dense),
            ("BM25 coverage", g.best_coverage),
            ("reranker logit", g.best_rerank),
        ] {
            if let Some((t, acc)) = best {
                out!("  best single threshold on {name}: {t:.3} (accuracy {acc:.3})");
            }
        }
        if let Some((d, c, acc)) = g.best_dense_or_coverage {
            out!("  best rule \"dense ≥ {d:.3} or coverage ≥ {c:.3}\": accuracy {acc:.3}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn beir_cmd(library: &Path, dir: &Path, args: &EvalArgs) -> Result<ExitCode> {
    let set = beir::read(dir, args.queries.as_deref(), &args.beir_split)?;
    let corpus_path = dir.join("corpus.jsonl");
    let sha = vidya_core::native::sha256_file(&corpus_path)
        .map_err(|e| VidyaError::io(&corpus_path, e))?;
    let mut lib = Library::open(library)?;
    let title = format!(
        "BEIR {}",
        dir.file_name().unwrap_or_default().to_string_lossy()
    );
    let bar = ProgressBar::new(set.corpus.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(format!("storing {title}"));
    let opts = IngestOptions {
        embedder: crate::index_cmd::embedder_for_ingest(),
        ..IngestOptions::default()
    };
    let book_id = corpus::ingest_documents(
        &mut lib,
        &title,
        &sha,
        &corpus_path,
        &set.corpus,
        &opts,
        &mut |p| {
            if let Progress::Embedding { done, .. } = p {
                bar.set_position(done as u64);
            }
        },
    )?;
    bar.finish_and_clear();
    if let Some(e) = &opts.embedder {
        crate::index_cmd::sync_dense(&lib, e);
    }
    let engine = Engine::from_library(lib)?;
    let mut configs =
        eval::select_configs(args.configs.as_deref(), engine.retriever().has_reranker())?;
    args.tune.apply(&mut configs);
    let rows = beir::beir_eval(&engine, book_id, &set, &configs, args.limit)?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    for n in engine.retriever().notes() {
        output::err_line(format!("note: {n}"));
    }
    out!(
        "{}: {} documents, {} judged queries",
        title,
        set.corpus.len(),
        rows.first().map(|r| r.queries).unwrap_or(0)
    );
    out!(
        "{:<22} {:>8} {:>7} {:>9} {:>9} {:>8} {:>8}",
        "configuration",
        "nDCG@10",
        "MRR@10",
        "recall@5",
        "recall@10",
        "p50 ms",
        "p95 ms"
    );
    for r in rows {
        out!(
            "{:<22} {:>8.3} {:>7.3} {:>9.3} {:>9.3} {:>8.1} {:>8.1}",
            r.name,
            r.ndcg10,
            r.mrr10,
            r.recall5,
            r.recall10,
            r.median_ms,
            r.p95_ms
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `vidya eval --answers`.
pub fn answers(tutor: &Tutor, args: &EvalArgs, opts: &TutorOptions) -> Result<ExitCode> {
    use vidya_core::eval::answers::AnswerFigures;
    let (qa, split) = match (&args.qa, &args.students) {
        (Some(qa), _) => (qa, None),
        (None, Some(s)) => (s, (args.split != "all").then_some(args.split.as_str())),
        (None, None) => unreachable!("checked by the caller"),
    };
    let r = eval::answer_quality(
        tutor,
        qa,
        args.unanswerable.as_deref(),
        split,
        opts,
        args.limit,
        eval::answers::Compare {
            extractive: args.baseline,
            whole_pages: args.whole_pages,
        },
    )?;
    if args.json {
        out!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(ExitCode::SUCCESS);
    }
    let ms = |v: Option<f64>| v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "-".into());
    let row = |name: &str, f: &AnswerFigures| {
        format!(
            "{:<20} {:>4} {:>8.2} {:>7.2} {:>10.2} {:>6.2} {:>9.2} {:>11} {:>9.2} {:>8.2} {:>7} {:>8} {:>8} {:>8}",
            name,
            f.n,
            f.answered,
            f.refused,
            f.extractive,
            f.gated,
            f.fully_supported,
            f.unsupported_shown,
            f.cited_page,
            f.must_mention,
            f.removed_sentences,
            f.citations_fixed,
            ms(f.ttft_p50_ms),
            ms(f.ttft_p95_ms)
        )
    };
    out!(
        "model: {} (skipped {} records: file not in the library)",
        r.model,
        r.skipped
    );
    out!(
        "{:<20} {:>4} {:>8} {:>7} {:>10} {:>6} {:>9} {:>11} {:>9} {:>8} {:>7} {:>8} {:>8} {:>8}",
        "",
        "n",
        "answered",
        "refused",
        "extractive",
        "gated",
        "supported",
        "unsupp.shown",
        "cited pg",
        "mention",
        "removed",
        "cites fix",
        "ttft p50",
        "ttft p95"
    );
    out!("{}", row("all", &r.overall));
    for (k, f) in &r.by_language {
        out!("{}", row(&format!("language {k}"), f));
    }
    for (k, f) in &r.by_kind {
        out!("{}", row(&format!("kind {k}"), f));
    }
    if let Some(b) = &r.extractive_baseline {
        out!("{}", row("extractive baseline", b));
    }
    if let Some(w) = &r.whole_pages {
        print_pruning(&r.overall, w)?;
    }
    if let Some(x) = r.off_topic_refused {
        out!(
            "off-topic: {} questions, stopped or refused {:.2}",
            r.off_topic,
            x
        );
        for a in &r.off_topic_answered {
            out!("  answered: {a}");
        }
    }
    out!("supported = share of the model's answers whose every statement is supported by a cited source (re-checked); unsupp.shown = statements shown without support (must be 0); cited pg = a cited page holds the answer; mention = a must-mention phrase appears; removed = invented or unsupported sentences removed; cites fix = citations Vidya attached or corrected; ttft in ms");
    Ok(ExitCode::SUCCESS)
}

/// `--whole-pages`: the same questions with the pruned sentences (`f`) and with whole pages
/// (`w`) as the model's context: prompt tokens, TTFT and total time (ms).
fn print_pruning(
    f: &vidya_core::eval::answers::AnswerFigures,
    w: &vidya_core::eval::answers::AnswerFigures,
) -> Result<()> {
    let ms = |v: Option<f64>| v.map(|x| format!("{x:.0}")).unwrap_or_else(|| "-".into());
    out!(
        "pruning, same questions one after the other ({} each):",
        f.n
    );
    out!(
        "{:<22} {:>14} {:>9} {:>9} {:>10} {:>10}",
        "context",
        "prompt tokens",
        "ttft p50",
        "ttft p95",
        "total p50",
        "total p95"
    );
    for (name, x) in [("pruned sentences", f), ("whole pages", w)] {
        out!(
            "{:<22} {:>14} {:>9} {:>9} {:>10.0} {:>10.0}",
            name,
            ms(x.prompt_tokens_p50),
            ms(x.ttft_p50_ms),
            ms(x.ttft_p95_ms),
            x.total_p50_ms,
            x.total_p95_ms
        );
    }
    if let (Some(a), Some(b)) = (f.ttft_p50_ms, w.ttft_p50_ms) {
        out!(
            "time to first token, pruned / whole pages: {:.2} (median)",
            a / b.max(1e-9)
        );
    }
    Ok(())
}

/// `vidya eval --extraction DIR`: CER per PDF, before and after Vidya's repairs.
pub fn extraction(dir: &Path, json: bool) -> Result<ExitCode> {
    let rows = eval::extraction::evaluate_folder(dir)?;
    if json {
        out!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(ExitCode::SUCCESS);
    }
    out!(
        "{:<40} {:<4} {:>7} {:>11} {:>10}  note",
        "PDF",
        "lang",
        "chars",
        "CER before",
        "CER after"
    );
    for r in &rows {
        let (Some(before), Some(after)) = (r.cer_before, r.cer_after) else {
            out!(
                "{:<40} {:<4} {:>7} {:>11} {:>10}  skipped: {}",
                r.file,
                "-",
                "-",
                "-",
                "-",
                r.skipped.as_deref().unwrap_or("")
            );
            continue;
        };
        let mut notes = Vec::new();
        if let Some(font) = &r.converted_from {
            notes.push(format!("converted from {font}"));
        }
        if r.trailing_lines_left_out > 0 {
            notes.push(format!(
                "{} trailing line(s) not in the ground truth left out",
                r.trailing_lines_left_out
            ));
        }
        out!(
            "{:<40} {:<4} {:>7} {:>10.2}% {:>9.2}%  {}",
            r.file,
            r.language,
            r.reference_chars,
            100.0 * before,
            100.0 * after,
            notes.join("; ")
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `vidya eval --students FILE`: what the student sees, per configuration (default `full`, the
/// pipeline `vidya ask` runs).
fn students_cmd(library: &Path, students: &Path, args: &EvalArgs) -> Result<ExitCode> {
    use vidya_core::eval::student::{self, HitFigures, Split};
    let engine = Engine::from_library(Library::open_existing(library)?)?;
    if engine.index().is_empty() {
        return Err(VidyaError::EmptyLibrary.into());
    }
    let mut configs = eval::select_configs(
        Some(args.configs.as_deref().unwrap_or("full")),
        engine.retriever().has_reranker(),
    )?;
    args.tune.apply(&mut configs);
    let split = Split::parse(&args.split).expect("clap checks --split");
    let tutor = Tutor::new(engine, crate::ask_cmd::llm_config(&args.model));
    let named: Vec<(&str, &vidya_core::retrieve::PipelineConfig)> = configs
        .iter()
        .map(|c| (c.name.as_str(), &c.config))
        .collect();
    let reports = student::student_eval(
        &tutor,
        students,
        args.unanswerable.as_deref(),
        args.followups.as_deref(),
        split,
        &named,
        args.limit,
    )?;
    if let (Some(path), Some(r)) = (&args.gate_features, reports.first()) {
        let mut samples = r.gate_samples.clone();
        if let Some(train) = &args.gate_train {
            samples.extend(student::gate_samples(tutor.engine(), train, named[0].1)?);
        }
        let lines: String = samples
            .iter()
            .map(|(input, answerable)| {
                serde_json::json!({"answerable": answerable, "input": input}).to_string() + "\n"
            })
            .collect();
        std::fs::write(path, lines).map_err(|e| VidyaError::io(path, e))?;
    }
    if args.json {
        out!("{}", serde_json::to_string_pretty(&reports)?);
        return Ok(ExitCode::SUCCESS);
    }
    for n in tutor.engine().retriever().notes() {
        output::err_line(format!("note: {n}"));
    }
    let row = |name: &str, f: &HitFigures| {
        format!(
            "{:<22} {:>4} {:>6.3} {:>6.3} {:>8.3} {:>8.3} {:>6.2}",
            name, f.n, f.hit1, f.hit3, f.stopped, f.span_recall5, f.citations
        )
    };
    let header = format!(
        "{:<22} {:>4} {:>6} {:>6} {:>8} {:>8} {:>6}",
        "", "n", "hit@1", "hit@3", "stopped", "span@5", "cited"
    );
    for r in &reports {
        out!(
            "== {} ({} split{})",
            r.config,
            args.split,
            if r.skipped > 0 {
                format!(", {} records skipped: book not in the library", r.skipped)
            } else {
                String::new()
            }
        );
        out!("{header}");
        out!("{}", row("all answerable", &r.overall));
        for (lang, f) in &r.by_language {
            out!("{}", row(&format!("language {lang}"), f));
        }
        for (kind, f) in &r.by_kind {
            out!("{}", row(&format!("kind {kind}"), f));
        }
        if r.followups.n > 0 {
            out!("{}", row("follow-up 2nd turns", &r.followups));
        }
        if r.off_topic.n > 0 {
            out!(
                "off-topic: {} questions, stopped {:.3}",
                r.off_topic.n,
                r.off_topic.stopped
            );
            let by = |m: &std::collections::BTreeMap<String, student::StopFigures>| {
                m.iter()
                    .map(|(k, f)| format!("{k} {:.2} ({})", f.stopped, f.n))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            out!("  by subject: {}", by(&r.off_topic_by_subject));
            out!("  by language: {}", by(&r.off_topic_by_language));
        }
        out!(
            "time per question: p50 {:.0} ms, p95 {:.0} ms",
            r.median_ms,
            r.p95_ms
        );
        if args.misses {
            for m in &r.misses {
                out!(
                    "  miss {}: {:?} expected {} cited [{}]",
                    m.id,
                    m.question,
                    m.expected,
                    m.cited.join(", ")
                );
            }
        }
    }
    out!("hit@k = a citation on the answer's page among the first k shown; stopped = gate said \"not in your textbooks\" (a false stop here); span@5 = the page is covered by one of the first 5 ranked chunks; cited = citations shown per answer");
    Ok(ExitCode::SUCCESS)
}
