//! `vidya eval --qa FILE` and `--beir DIR`: stage configurations side by side.

use super::{opt, EvalArgs};
use crate::output;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::process::ExitCode;
use vidya_core::eval::corpus;
use vidya_core::eval::{self, beir, book};
use vidya_core::ingest::{IngestOptions, Progress};
use vidya_core::{Engine, Library, VidyaError};

/// Retrieval eval: `--qa` over the library's books, or `--beir`.
pub(super) fn retrieval(library: &Path, args: &EvalArgs) -> Result<ExitCode> {
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
