//! `vidya eval --students FILE`: the realistic student question set.

use super::EvalArgs;
use crate::output;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::answer::Tutor;
use vidya_core::eval;
use vidya_core::{Engine, Library, VidyaError};

/// `vidya eval --students FILE`: what the student sees, per configuration (default `full`, the
/// pipeline `vidya ask` runs).
pub(super) fn students_cmd(library: &Path, students: &Path, args: &EvalArgs) -> Result<ExitCode> {
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
