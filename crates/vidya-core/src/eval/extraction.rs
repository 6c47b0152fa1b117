//! Text-extraction quality: the character error rate (CER) of each PDF's extracted text
//! against its ground truth, before and after Vidya's repairs.
//!
//! A folder holds `NAME.pdf` files and, for each, a ground truth `NAME.groundtruth*.txt`
//! (the layout of `shared/data/indic_pdfs`). "Before" is pdfium's text with NFC only
//! ([`crate::ingest::pdf::raw_page_texts`]); "after" is what ingestion stores
//! ([`crate::ingest::pdf::extract`]: Indic repairs, legacy-font conversion, OCR of pages
//! without a usable text layer, running headers removed). A scanned PDF's "before" is empty
//! (CER 1).
//!
//! CER = Levenshtein distance (insertions, deletions, substitutions of Unicode scalar values) /
//! characters of the reference, the standard OCR measure (e.g. Morris et al. 2004, "From WER and
//! RIL to MER and WIL"). Both texts are NFC-normalised and every run of whitespace becomes one
//! space first, so line breaks and page breaks do not count. A PDF may carry lines that its
//! ground truth leaves out at the very end (a colophon: "Text: … Typeset with …"); up to
//! [`MAX_TRAILING_LINES`] trailing lines are left out of the comparison when that lowers the
//! distance, and the row says how many were.

use crate::error::{Result, VidyaError};
use crate::ingest::pdf;
use serde::Serialize;
use std::path::{Path, PathBuf};
use unicode_normalization::UnicodeNormalization;

/// Most trailing lines of a PDF's text that may be left out as a colophon.
pub const MAX_TRAILING_LINES: usize = 3;

/// One PDF's extraction quality.
#[derive(Debug, Clone, Serialize)]
pub struct ExtractionRow {
    /// PDF file name.
    pub file: String,
    /// Language detected from the ground truth (ISO 639-1).
    pub language: String,
    /// Characters in the ground truth (after NFC and whitespace folding).
    pub reference_chars: usize,
    /// CER of pdfium's own text (0–1, can exceed 1 for garbage); `None` when skipped.
    pub cer_before: Option<f64>,
    /// CER of the text Vidya stores; `None` when skipped.
    pub cer_after: Option<f64>,
    /// Trailing lines left out of the "after" comparison (a colophon the ground truth lacks).
    pub trailing_lines_left_out: usize,
    /// The legacy font the text layer was converted from ("Kruti Dev"), if any.
    pub converted_from: Option<String>,
    /// Pages read by OCR (no text layer, garbage, or an unconvertible font).
    pub ocr_pages: usize,
    /// Pages in the PDF.
    pub pages: usize,
    /// Wall time of the extraction, OCR included (seconds).
    pub seconds: f64,
    /// Why this PDF was not measured (unreadable or empty ground truth, a PDF Vidya refuses).
    pub skipped: Option<String>,
}

/// A ground truth more than this many times longer than the PDF's text is refused (the
/// distance computation grows with the product of both lengths).
pub const MAX_REFERENCE_RATIO: usize = 20;

/// NFC, whitespace folded to single spaces, trimmed.
fn fold(text: &str) -> Vec<char> {
    let nfc: String = text.nfc().collect();
    let mut out = Vec::with_capacity(nfc.len());
    for word in nfc.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(word.chars());
    }
    out
}

/// Character error rate of `hypothesis` against `reference` (see the module docs): edits
/// divided by the reference's characters (by 1 when the reference is empty).
pub fn cer(hypothesis: &str, reference: &str) -> f64 {
    let (h, r) = (fold(hypothesis), fold(reference));
    let d = rapidfuzz::distance::levenshtein::distance(h.iter().copied(), r.iter().copied());
    d as f64 / r.len().max(1) as f64
}

/// CER with up to [`MAX_TRAILING_LINES`] trailing lines of `hypothesis` left out when that
/// lowers it; returns (CER, lines left out).
pub fn cer_allowing_colophon(hypothesis: &str, reference: &str) -> (f64, usize) {
    let lines: Vec<&str> = hypothesis.trim_end().lines().collect();
    (0..=MAX_TRAILING_LINES.min(lines.len().saturating_sub(1)))
        .map(|k| (cer(&lines[..lines.len() - k].join("\n"), reference), k))
        .fold(
            (f64::INFINITY, 0),
            |best, x| if x.0 < best.0 { x } else { best },
        )
}

/// The PDFs of `dir` that have a ground truth, with it: `(pdf, ground truth)`, sorted by name.
pub fn pairs(dir: &Path) -> Result<Vec<(PathBuf, PathBuf)>> {
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| VidyaError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut out = Vec::new();
    for pdf in entries
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pdf")))
    {
        let stem = pdf.file_stem().unwrap_or_default().to_string_lossy();
        let prefix = format!("{stem}.groundtruth");
        let mut truths: Vec<&PathBuf> = entries
            .iter()
            .filter(|p| {
                let n = p.file_name().unwrap_or_default().to_string_lossy();
                n.starts_with(&prefix) && n.ends_with(".txt")
            })
            .collect();
        truths.sort();
        if let Some(t) = truths.first() {
            out.push((pdf.clone(), (*t).clone()));
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(VidyaError::Empty {
            path: dir.to_path_buf(),
            why: "it has no PDF with a NAME.groundtruth*.txt beside it".into(),
        });
    }
    Ok(out)
}

/// Measures every PDF of `dir` that has a ground truth (see [`pairs`]). Errors: the folder
/// cannot be read or has no pairs. A PDF that cannot be measured (Vidya refuses it: encrypted,
/// scanned, damaged; its ground truth is empty, not UTF-8 or far too long) gets a row with
/// `skipped` saying why, and the others are still measured.
pub fn evaluate_folder(dir: &Path) -> Result<Vec<ExtractionRow>> {
    let mut rows = Vec::new();
    for (pdf_path, truth_path) in pairs(dir)? {
        let file: String = pdf_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into();
        rows.push(
            measure(&pdf_path, &truth_path).unwrap_or_else(|why| ExtractionRow {
                file,
                language: "und".into(),
                reference_chars: 0,
                cer_before: None,
                cer_after: None,
                trailing_lines_left_out: 0,
                converted_from: None,
                ocr_pages: 0,
                pages: 0,
                seconds: 0.0,
                skipped: Some(why),
            }),
        );
    }
    Ok(rows)
}

/// One PDF's row, or why it cannot be measured.
fn measure(pdf_path: &Path, truth_path: &Path) -> std::result::Result<ExtractionRow, String> {
    let truth_name = truth_path
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let bytes = std::fs::read(truth_path).map_err(|e| format!("cannot read {truth_name}: {e}"))?;
    let reference = String::from_utf8(bytes).map_err(|_| {
        format!("{truth_name} is not UTF-8 text: save it as UTF-8 (in Notepad: Save as → Encoding: UTF-8)")
    })?;
    let reference = reference.trim_start_matches('\u{FEFF}');
    let reference_chars = fold(reference).len();
    if reference_chars == 0 {
        return Err(format!("{truth_name} is empty"));
    }
    let before = pdf::raw_page_texts(pdf_path)
        .map_err(|e| e.to_string())?
        .join("\n");
    let started = std::time::Instant::now();
    let extracted = pdf::extract(
        pdf_path,
        &crate::ingest::source::ReadOptions::default(),
        &mut |_| {},
    )
    .map_err(|e| e.to_string())?;
    let seconds = started.elapsed().as_secs_f64();
    let after = extracted
        .pages
        .iter()
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    let longest = fold(&before).len().max(fold(&after).len()).max(1_000);
    if reference_chars > MAX_REFERENCE_RATIO * longest {
        return Err(format!(
            "{truth_name} has {reference_chars} characters, far more than the PDF's text ({longest}): is it the ground truth of another file?"
        ));
    }
    if after.trim().is_empty() {
        return Err(match &extracted.ocr_unavailable {
            Some(why) => format!("the PDF has no text layer and OCR could not run: {why}"),
            None => "the PDF has no text layer and OCR read no text from it".into(),
        });
    }
    let (cer_after, left_out) = cer_allowing_colophon(&after, reference);
    let (cer_before, _) = cer_allowing_colophon(&before, reference);
    Ok(ExtractionRow {
        file: pdf_path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into(),
        language: crate::text::script::detect_language(reference).into(),
        reference_chars,
        cer_before: Some(cer_before),
        cer_after: Some(cer_after),
        trailing_lines_left_out: left_out,
        converted_from: extracted
            .legacy_pages
            .first()
            .map(|(_, f)| f.name().to_string()),
        ocr_pages: extracted
            .ocr_pages
            .iter()
            .filter(|n| n.read.is_some())
            .count(),
        pages: extracted.pages.len(),
        seconds,
        skipped: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cer_counts_edits_per_reference_character() {
        assert_eq!(cer("abc", "abc"), 0.0);
        assert_eq!(cer("abxc", "abc"), 1.0 / 3.0);
        assert_eq!(cer("a  b\n\nc", "a b c"), 0.0); // whitespace folded
        assert_eq!(cer("", "abcd"), 1.0);
        // NFC: a decomposed and a precomposed é are the same character.
        assert_eq!(cer("e\u{0301}", "\u{00E9}"), 0.0);
        // Devanagari counts code points: "कि" is two.
        assert_eq!(cer("क", "कि"), 0.5);
    }

    #[test]
    fn unusable_ground_truths_skip_their_pdf_and_the_others_still_count() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["a", "b", "c"] {
            std::fs::write(dir.path().join(format!("{name}.pdf")), b"%PDF-1.4").unwrap();
        }
        std::fs::write(dir.path().join("a.groundtruth.txt"), " \n\n").unwrap();
        std::fs::write(
            dir.path().join("b.groundtruth.txt"),
            [0xff, 0xfe, 0x41, 0x00],
        )
        .unwrap();
        let rows = evaluate_folder(dir.path()).unwrap();
        assert_eq!(rows.len(), 2, "c.pdf has no ground truth: {rows:?}");
        assert!(rows[0].skipped.as_deref().unwrap().contains("is empty"));
        assert!(rows[1].skipped.as_deref().unwrap().contains("not UTF-8"));
        assert!(rows.iter().all(|r| r.cer_after.is_none()));
    }

    #[test]
    fn a_trailing_colophon_is_left_out_but_real_text_is_not() {
        let reference = "first line\nsecond line";
        let with_colophon = "first line\nsecond line\nTypeset with fpdf2";
        assert_eq!(cer_allowing_colophon(with_colophon, reference), (0.0, 1));
        // Leaving out a real line would raise the distance: nothing is left out.
        let (c, k) = cer_allowing_colophon("first line\nsecond lime", reference);
        assert_eq!(k, 0);
        assert!(c > 0.0);
    }
}
