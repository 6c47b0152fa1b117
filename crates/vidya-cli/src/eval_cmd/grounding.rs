//! `vidya eval --grounding FILE`: the answer check on labelled (sources, answer) pairs.

use super::EvalArgs;
use crate::output;
use anyhow::Result;
use std::process::ExitCode;
use vidya_core::eval::pairs;

/// Checks every pair of `--grounding FILE` (the `--split` given; records without a split
/// always) with the bundled embedder when it is installed; prints one JSON line per record
/// with `--json`, else a table per label, kind and language.
pub(super) fn grounding(args: &EvalArgs) -> Result<ExitCode> {
    let path = args.grounding.as_ref().expect("called with --grounding");
    let split = (args.split != "all").then_some(args.split.as_str());
    let (records, skipped) = pairs::read_pairs(path, split)?;
    let embedder = match vidya_core::embed::Embedder::load() {
        Ok(e) => Some(e),
        Err(e) => {
            output::err_line(format!("note: checking without the embedder ({e}); answers in another script than their sources stay unchecked"));
            None
        }
    };
    let tokenizer = vidya_core::text::Tokenizer::new();
    let mut results = Vec::with_capacity(records.len());
    for r in records.iter().take(args.limit.unwrap_or(usize::MAX)) {
        let res = pairs::check_pair(r, embedder.as_ref(), &tokenizer, args.words_only)?;
        if args.json {
            out!("{}", serde_json::to_string(&res)?);
        }
        results.push(res);
    }
    if args.json {
        return Ok(ExitCode::SUCCESS);
    }
    let report = pairs::report(&records[..results.len()], &results, skipped);
    out!(
        "answer check{} on {} pairs ({}; split {})",
        if args.words_only {
            " (words and embeddings only)"
        } else {
            ""
        },
        results.len(),
        path.display(),
        args.split
    );
    out!("{:<34} {:>5} {:>9} {:>7}", "", "n", "rejected", "kept");
    let row = |name: &str, f: &pairs::PairFigures| -> std::io::Result<()> {
        output::line(format!(
            "{:<34} {:>5} {:>9.3} {:>7.3}",
            name,
            f.n,
            f.rejected_share(),
            1.0 - f.rejected_share()
        ))
    };
    for (k, f) in &report.by_label {
        row(&format!("label {k}"), f)?;
    }
    for (k, f) in &report.by_kind {
        row(&format!("  kind {k}"), f)?;
    }
    for (k, f) in &report.by_language {
        row(&format!("  language {k}"), f)?;
    }
    out!(
        "time per pair: p50 {:.1} ms, p95 {:.1} ms{}",
        report.ms_p50,
        report.ms_p95,
        if skipped > 0 {
            format!("; {skipped} lines skipped (not a pair record)")
        } else {
            String::new()
        }
    );
    out!("targets: contradicted rejected >= 0.95, unsupported rejected >= 0.90, supported kept >= 0.90");
    Ok(ExitCode::SUCCESS)
}
