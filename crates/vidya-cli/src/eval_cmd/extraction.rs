//! `vidya eval --extraction DIR`: text extraction's character error rate.

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::eval;

/// `vidya eval --extraction DIR`: CER per PDF, before and after Vidya's repairs.
pub(super) fn extraction(dir: &Path, json: bool) -> Result<ExitCode> {
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
