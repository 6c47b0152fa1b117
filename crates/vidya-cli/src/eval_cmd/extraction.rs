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
    let ocr: Vec<&eval::extraction::ExtractionRow> =
        rows.iter().filter(|r| r.ocr_pages > 0).collect();
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
        if r.ocr_pages > 0 {
            notes.push(format!(
                "{} of {} pages by OCR, {:.1} s ({:.1} pages/min)",
                r.ocr_pages,
                r.pages,
                r.seconds,
                r.ocr_pages as f64 * 60.0 / r.seconds.max(0.001)
            ));
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
    if !ocr.is_empty() {
        let pages: usize = ocr.iter().map(|r| r.ocr_pages).sum();
        let seconds: f64 = ocr.iter().map(|r| r.seconds).sum();
        out!(
            "OCR: {pages} pages in {seconds:.1} s, {:.1} pages/min with {} Tesseract processes at once",
            pages as f64 * 60.0 / seconds.max(0.001),
            vidya_core::ingest::ocr::pages::workers()
        );
    }
    Ok(ExitCode::SUCCESS)
}
