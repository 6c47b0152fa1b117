//! Checks that an extracted text layer is usable: not missing (scanned pages) and not garbage
//! (fonts without a Unicode map).

use super::ocr::{OcrReason, LOW_CONFIDENCE};
use super::source::ExtractedFile;
use crate::error::{Result, VidyaError};
use crate::text::legacy_font::LegacyFont;

/// A page with fewer letters and digits than this counts as having no text layer.
pub const MIN_PAGE_ALNUM: usize = 8;

/// Share of readable characters below which a text layer counts as garbage.
pub const MIN_READABLE_SHARE: f64 = 0.6;

fn readable(c: char) -> bool {
    c.is_alphanumeric()
        || c.is_whitespace()
        || matches!(
            c,
            '.' | ','
                | ';'
                | ':'
                | '!'
                | '?'
                | '\''
                | '"'
                | '('
                | ')'
                | '-'
                | '–'
                | '—'
                | '’'
                | '‘'
                | '“'
                | '”'
                | '।'
                | '॥'
                | '%'
                | '/'
                | '['
                | ']'
                | '&'
                | '+'
                | '='
                | '°'
        )
}

fn is_letter_or_mark(c: char) -> bool {
    // Indic vowel signs are marks, not alphanumerics, but they are real text.
    c.is_alphanumeric() || ('\u{0900}'..='\u{0DFF}').contains(&c)
}

/// Letters and Indic signs in `text`.
pub(crate) fn letters(text: &str) -> usize {
    text.chars().filter(|c| is_letter_or_mark(*c)).count()
}

/// Non-space characters in `text`, and how many of them are readable (letters, Indic signs,
/// common punctuation).
fn readable_counts(text: &str) -> (usize, usize) {
    text.chars()
        .filter(|c| !c.is_whitespace())
        .fold((0, 0), |(total, good), c| {
            (
                total + 1,
                good + usize::from(readable(c) || is_letter_or_mark(c)),
            )
        })
}

/// A page whose text layer has at least this many non-space characters and a readable share
/// below [`MIN_PAGE_READABLE_SHARE`] is read by OCR instead.
pub const MIN_GARBLED_PAGE_CHARS: usize = 30;

/// Readable share below which one page's text layer counts as garbage (stricter than the
/// file's [`MIN_READABLE_SHARE`]: a page of formulas must not be OCR'd).
pub const MIN_PAGE_READABLE_SHARE: f64 = 0.5;

/// Why a page with this text layer must be read by OCR, `None` when its text is usable:
/// fewer than [`MIN_PAGE_ALNUM`] letters (no text layer), mostly symbols (a font without a
/// Unicode map), or typed in a legacy font other than Kruti Dev (which is converted).
pub fn ocr_reason(text: &str, legacy: Option<LegacyFont>) -> Option<OcrReason> {
    if letters(text) < MIN_PAGE_ALNUM {
        return Some(OcrReason::NoTextLayer);
    }
    let (total, good) = readable_counts(text);
    if total >= MIN_GARBLED_PAGE_CHARS && (good as f64) < MIN_PAGE_READABLE_SHARE * total as f64 {
        return Some(OcrReason::GarbledText);
    }
    match legacy {
        Some(f) if f != LegacyFont::KrutiDev => Some(OcrReason::LegacyFont),
        _ => None,
    }
}

/// Returns the warnings to keep for a usable file, or the error for an unusable one:
/// [`VidyaError::Scanned`] when no page has a text layer, [`VidyaError::GarbledText`] when the
/// text is mostly symbols. Pages without text in an otherwise good file produce a warning.
pub fn check_text_layer(file: &ExtractedFile) -> Result<Vec<String>> {
    let is_pdf = super::source::kind_of(&file.path) == Some(super::source::FileKind::Pdf);
    if !is_pdf && file.pages.iter().all(|p| letters(&p.text) == 0) {
        return Err(VidyaError::Empty {
            path: file.path.clone(),
            why: "it contains no text".into(),
        });
    }
    let mut empty_pages = Vec::new();
    let (mut total, mut good) = (0usize, 0usize);
    for p in &file.pages {
        if letters(&p.text) < MIN_PAGE_ALNUM {
            empty_pages.push(p.pdf_page);
        }
        let (t, g) = readable_counts(&p.text);
        total += t;
        good += g;
    }
    if empty_pages.len() == file.pages.len() {
        // A few stray characters on a page that is otherwise an image is still "scanned".
        if total > 0 && (good as f64) < MIN_READABLE_SHARE * total as f64 {
            return Err(VidyaError::GarbledText {
                path: file.path.clone(),
                ocr: why_ocr_failed(file),
            });
        }
        return Err(VidyaError::Scanned {
            path: file.path.clone(),
            pages: file.pages.len(),
            ocr: why_ocr_failed(file),
        });
    }
    if (good as f64) < MIN_READABLE_SHARE * total as f64 {
        return Err(VidyaError::GarbledText {
            path: file.path.clone(),
            ocr: why_ocr_failed(file),
        });
    }
    let name = file
        .path
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_default();
    let unconverted: Vec<(u32, LegacyFont)> = file
        .legacy_pages
        .iter()
        .copied()
        .filter(|(_, f)| *f != LegacyFont::KrutiDev)
        .collect();
    let text_pages = file.pages.len() - empty_pages.len();
    if let Some((_, font)) = unconverted.first() {
        if unconverted.len() >= text_pages {
            return Err(VidyaError::LegacyFont {
                path: file.path.clone(),
                font: font.name().into(),
                ocr: why_ocr_failed(file),
            });
        }
    }
    let mut warnings = Vec::new();
    let converted: Vec<u32> = file
        .legacy_pages
        .iter()
        .filter(|(_, f)| *f == LegacyFont::KrutiDev)
        .map(|(p, _)| *p)
        .collect();
    if !converted.is_empty() {
        warnings.push(format!(
            "{name}: converted from the old Kruti Dev font to Unicode Hindi ({} of {} pages: {}). \
             Read one quoted page to check it; if words look wrong, use a Unicode edition.",
            converted.len(),
            file.pages.len(),
            compact_ranges(&converted)
        ));
    }
    if let Some((_, font)) = unconverted.first() {
        let pages: Vec<u32> = unconverted.iter().map(|(p, _)| *p).collect();
        warnings.push(format!(
            "{name}: pages {} are typed in the old {} font, which Vidya cannot convert yet; their words cannot be searched.",
            compact_ranges(&pages),
            font.name()
        ));
    }
    warnings.extend(ocr_warnings(file, &name));
    if !empty_pages.is_empty() {
        let why = match &file.ocr_unavailable {
            Some(why) => format!(" (OCR could not run: {why})"),
            None => String::new(),
        };
        warnings.push(format!(
            "{name}: {} of {} pages have no text that could be read (pictures, or scans OCR could not read) and cannot be searched: pages {}{why}",
            empty_pages.len(),
            file.pages.len(),
            compact_ranges(&empty_pages)
        ));
    }
    Ok(warnings)
}

/// Why OCR did not give a refused file its text, for the error message.
fn why_ocr_failed(file: &ExtractedFile) -> String {
    if let Some(why) = &file.ocr_unavailable {
        return why.clone();
    }
    let tried = file.ocr_pages.len();
    let read = file.ocr_pages.iter().filter(|n| n.read.is_some()).count();
    if tried == 0 {
        "no page needed it".into()
    } else if read == 0 {
        format!("OCR failed on all {tried} pages it tried")
    } else {
        format!("OCR found almost no text on the {read} pages it read (pictures only, or a scan too faint or blurred)")
    }
}

/// The teacher's notes on a file's OCR'd pages: how many and in which language, and the
/// pages read with a confidence below [`LOW_CONFIDENCE`].
fn ocr_warnings(file: &ExtractedFile, name: &str) -> Vec<String> {
    let read: Vec<_> = file
        .ocr_pages
        .iter()
        .filter_map(|n| Some((n.pdf_page, n.reason, n.read.as_ref()?)))
        .filter(|(_, _, r)| r.letters >= MIN_PAGE_ALNUM)
        .collect();
    if read.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let pages: Vec<u32> = read.iter().map(|(p, _, _)| *p).collect();
    let mut languages: Vec<&str> = read
        .iter()
        .map(|(_, _, r)| language_name(&r.language))
        .collect();
    languages.sort_unstable();
    languages.dedup();
    let why = if read.iter().all(|(_, r, _)| *r == OcrReason::NoTextLayer) {
        "scanned pages"
    } else {
        "scanned pages or text in a font that cannot be read"
    };
    out.push(format!(
        "{name}: {} of {} pages were read by OCR ({why}; {}): pages {}",
        read.len(),
        file.pages.len(),
        languages.join(", "),
        compact_ranges(&pages)
    ));
    let low: Vec<(u32, f32)> = read
        .iter()
        .filter(|(_, _, r)| r.confidence < LOW_CONFIDENCE)
        .map(|(p, _, r)| (*p, r.confidence))
        .collect();
    if !low.is_empty() {
        let mean = low.iter().map(|(_, c)| c).sum::<f32>() / low.len() as f32;
        out.push(format!(
            "{name}: pages {} were hard to read (OCR confidence about {:.0}%): answers quoting them may have wrong letters. Check one against the printed page; a straight, sharp scan at 300 dpi reads better",
            compact_ranges(&low.iter().map(|(p, _)| *p).collect::<Vec<_>>()),
            mean
        ));
    }
    out
}

/// The language a Tesseract model reads, in English.
fn language_name(lang: &str) -> &'static str {
    match lang {
        "hin" => "Hindi",
        "mar" => "Marathi",
        "tel" => "Telugu",
        "tam" => "Tamil",
        "kan" => "Kannada",
        _ => "English",
    }
}

fn compact_ranges(pages: &[u32]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < pages.len() {
        let start = pages[i];
        let mut end = start;
        while i + 1 < pages.len() && pages[i + 1] == end + 1 {
            i += 1;
            end = pages[i];
        }
        out.push(if start == end {
            start.to_string()
        } else {
            format!("{start}–{end}")
        });
        i += 1;
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(texts: &[&str]) -> ExtractedFile {
        crate::ingest::source::test_file("x.pdf", None, texts)
    }

    #[test]
    fn scanned_garbled_partial() {
        assert_eq!(
            check_text_layer(&file(&["", " 1 "])).unwrap_err().kind(),
            "scanned"
        );
        assert_eq!(
            check_text_layer(&file(&[
                "\u{E000}\u{E001}\u{E002}\u{E003}\u{E004}\u{E005}\u{E006}\u{E007}\u{E008}x"
            ]))
            .unwrap_err()
            .kind(),
            "garbled_text"
        );
        let w = check_text_layer(&file(&[
            "Plants make food from light.",
            "",
            "",
            "Water moves up the stem.",
        ]))
        .unwrap();
        assert_eq!(w.len(), 1);
        assert!(w[0].contains("pages 2–3"), "{w:?}");
        assert!(check_text_layer(&file(&["पौधे भोजन बनाते हैं।"]))
            .unwrap()
            .is_empty());
    }
}
