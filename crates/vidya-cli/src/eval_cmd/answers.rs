//! `vidya eval --answers`: the tutor's answers with a real model.

use super::EvalArgs;
use anyhow::Result;
use std::process::ExitCode;
use vidya_core::answer::{Tutor, TutorOptions};
use vidya_core::eval;

/// `vidya eval --answers`.
pub(super) fn answers(tutor: &Tutor, args: &EvalArgs, opts: &TutorOptions) -> Result<ExitCode> {
    use vidya_core::eval::answers::AnswerFigures;
    let (qa, split) = match (&args.qa, &args.students) {
        (Some(qa), _) => (qa, None),
        (None, Some(s)) => (s, (args.split != "all").then_some(args.split.as_str())),
        (None, None) => unreachable!("checked by the caller"),
    };
    let mut grading = eval::answers::Grading {
        out: args.grading_out.as_ref().map(|_| Vec::new()),
        grades: args
            .grades
            .as_deref()
            .map(eval::answers::read_grades)
            .transpose()?,
        ungraded: 0,
    };
    let r = eval::answer_quality(
        tutor,
        eval::answers::QuestionSet {
            qa,
            unanswerable: args.unanswerable.as_deref(),
            split,
            limit: args.limit,
        },
        opts,
        eval::answers::Compare {
            extractive: args.baseline,
            whole_pages: args.whole_pages,
        },
        &mut grading,
    )?;
    if let (Some(path), Some(items)) = (&args.grading_out, &grading.out) {
        let lines: Vec<String> = items
            .iter()
            .map(serde_json::to_string)
            .collect::<Result<_, _>>()?;
        std::fs::write(path, lines.join("\n") + "\n")
            .map_err(|e| vidya_core::VidyaError::io(path, e))?;
        crate::output::err_line(format!(
            "{} answers to grade written to {}",
            items.len(),
            path.display()
        ));
    }
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
    out!("\nwhat the student sees ({}):", opts.layout_name());
    out!(
        "{:<20} {:>13} {:>13} {:>7} {:>8} {:>8} {:>6} {:>6} {:>16}",
        "",
        "first word p50",
        "first word p95",
        "graded",
        "correct",
        "partial",
        "off",
        "wrong",
        "wrong-but-cited"
    );
    let graded = |name: &str, f: &AnswerFigures| {
        let share = |x: f64| {
            if f.graded == 0 {
                "-".to_string()
            } else {
                format!("{x:.3}")
            }
        };
        format!(
            "{:<20} {:>13} {:>13} {:>7} {:>8} {:>8} {:>6} {:>6} {:>16}",
            name,
            ms(f.first_shown_p50_ms),
            ms(f.first_shown_p95_ms),
            f.graded,
            share(f.correct),
            share(f.partial),
            share(f.off),
            share(f.wrong),
            share(f.wrong_but_cited)
        )
    };
    out!("{}", graded("all", &r.overall));
    if let Some(b) = &r.extractive_baseline {
        out!("{}", graded("extractive baseline", b));
    }
    out!(
        "the tutor's words (model answers): median {} words; stopped in a loop {}, at the length cap {}",
        r.overall
            .tutor_words_p50
            .map(|x| format!("{x:.0}"))
            .unwrap_or_else(|| "-".into()),
        r.overall.loops_cut,
        r.overall.too_long_cut
    );
    if grading.grades.is_some() && grading.ungraded > 0 {
        out!(
            "{} answers have no grade in {} (grade them: --grading-out)",
            grading.ungraded,
            args.grades
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        );
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
    out!("supported = share of the model's answers whose every statement is supported by a cited source (re-checked); unsupp.shown = statements shown without support (must be 0); cited pg = a cited page holds the answer; mention = a must-mention phrase appears; removed = invented or unsupported sentences removed; cites fix = citations Vidya attached or corrected; ttft and first word (the first word the student sees) in ms");
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
