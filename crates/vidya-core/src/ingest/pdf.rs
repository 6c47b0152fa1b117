//! PDF text extraction with pdfium (through `pdfium-render`), page by page.

use super::ocr::{self, OcrNote, OcrReason, PageOcr};
use super::page_labels;
use super::quality;
use super::source::{ExtractedFile, ExtractedPage, OutlineEntry, ReadEvent, ReadOptions};
use crate::error::{Result, VidyaError};
use crate::native;
use crate::text::legacy_font::{
    krutidev_to_unicode, legacy_font_of, looks_like_krutidev, LegacyFont,
};
use crate::text::repair::repair_indic;
use pdfium_render::prelude::*;
use std::path::Path;
use std::sync::OnceLock;

/// PDFs larger than this are refused (bytes): 512 MiB.
pub const MAX_PDF_BYTES: u64 = 512 * 1024 * 1024;

static PDFIUM: OnceLock<std::result::Result<Pdfium, String>> = OnceLock::new();

/// The process-wide pdfium instance, bound on first use to the library found by
/// [`native::locate`]. Errors: [`VidyaError::PdfiumMissing`] naming the paths tried.
pub fn pdfium() -> Result<&'static Pdfium> {
    PDFIUM
        .get_or_init(|| {
            let located = native::locate("pdfium").ok_or_else(|| {
                "resources/manifest.toml has no pdfium for this platform".to_string()
            })?;
            let path = located.path.clone().ok_or_else(|| {
                format!(
                    "{} not found (looked in {})",
                    located.entry.wheel.file,
                    located
                        .tried
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            let bindings = Pdfium::bind_to_library(&path)
                .map_err(|e| format!("{} could not be loaded: {e:?}", path.display()))?;
            tracing::debug!(path = %path.display(), verified = located.verify(), "pdfium bound");
            Ok(Pdfium::new(bindings))
        })
        .as_ref()
        .map_err(|detail| VidyaError::PdfiumMissing {
            detail: detail.clone(),
        })
}

fn map_load_error(path: &Path, e: PdfiumError) -> VidyaError {
    match e {
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::PasswordError)
        | PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::SecurityError) => {
            VidyaError::Encrypted {
                path: path.to_path_buf(),
            }
        }
        PdfiumError::IoError(source) => VidyaError::io(path, source),
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FormatError) => {
            VidyaError::Corrupt {
                path: path.to_path_buf(),
                detail: "its structure is broken, or the file is cut short".into(),
            }
        }
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FileError) => {
            VidyaError::Corrupt {
                path: path.to_path_buf(),
                detail: "the file could not be read".into(),
            }
        }
        other => VidyaError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("the PDF reader reported {other:?}"),
        },
    }
}

/// Extracts every page of the PDF at `path`: normalised text, printed page labels (see
/// [`page_labels`]), the document title and the outline. Pages without a usable text layer
/// ([`quality::ocr_reason`]) are read by OCR unless `opts.no_ocr` ([`ocr`]). `on_event`
/// is called after each page is opened, then after each page is OCR'd.
///
/// Errors: [`VidyaError::Encrypted`], [`VidyaError::Corrupt`] (unreadable, truncated beyond
/// repair, zero pages), [`VidyaError::TooLarge`], [`VidyaError::PdfiumMissing`],
/// [`VidyaError::Cancelled`]. Pages OCR could not read are returned empty, with why in
/// [`ExtractedFile::ocr_unavailable`] or their [`OcrNote`]; the caller decides (see
/// [`super::quality::check_text_layer`]).
pub fn extract(
    path: &Path,
    opts: &ReadOptions,
    on_event: &mut dyn FnMut(ReadEvent),
) -> Result<ExtractedFile> {
    super::source::check_size(path, MAX_PDF_BYTES)?;
    let pdfium = pdfium()?;
    // pdfium-render can panic on documents that violate its assumptions; a damaged PDF must
    // produce an error, never bring the app down.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        extract_with(pdfium, path, opts, on_event)
    }));
    match result {
        Ok(r) => r,
        Err(_) => Err(VidyaError::Corrupt {
            path: path.to_path_buf(),
            detail: "the PDF reader stopped on a damaged structure".into(),
        }),
    }
}

fn extract_with(
    pdfium: &Pdfium,
    path: &Path,
    opts: &ReadOptions,
    on_event: &mut dyn FnMut(ReadEvent),
) -> Result<ExtractedFile> {
    let doc = pdfium
        .load_pdf_from_file(path, None)
        .map_err(|e| map_load_error(path, e))?;
    let pages = doc.pages();
    let total = pages.len() as usize;
    if total == 0 {
        return Err(VidyaError::Corrupt {
            path: path.to_path_buf(),
            detail: "it has no pages".into(),
        });
    }
    let title = doc
        .metadata()
        .get(PdfDocumentMetadataTagType::Title)
        .map(|t| crate::text::normalize::collapse_whitespace(t.value()))
        .filter(|t| !t.is_empty());

    let mut raw = Vec::with_capacity(total);
    let mut pdf_labels = Vec::with_capacity(total);
    let mut legacy_pages = Vec::new();
    for (i, page) in pages.iter().enumerate() {
        let (text, legacy) = page_text(&page);
        if let Some(font) = legacy {
            legacy_pages.push(((i + 1) as u32, font));
        }
        raw.push(repair_indic(&crate::text::normalize(&text)));
        pdf_labels.push(
            page.label()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
        on_event(ReadEvent::Page { done: i + 1, total });
    }
    let legacy_of = |page: u32| {
        legacy_pages
            .iter()
            .find(|(p, _)| *p == page)
            .map(|(_, f)| *f)
    };
    let needs: Vec<(usize, OcrReason)> = raw
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((i, quality::ocr_reason(t, legacy_of(i as u32 + 1))?)))
        .collect();
    let (mut read, ocr_unavailable) = if needs.is_empty() {
        (Vec::new(), None)
    } else {
        read_by_ocr(&doc, &raw, &needs, opts, on_event)?
    };
    let mut ocr_pages = Vec::new();
    let mut page_ocr: Vec<Option<PageOcr>> = vec![None; total];
    for ((i, reason), result) in needs.iter().zip(read.drain(..)) {
        let page = (*i + 1) as u32;
        let read = result.map(|r| {
            raw[*i] = repair_indic(&crate::text::normalize(&r.text));
            legacy_pages.retain(|(p, _)| *p != page);
            let summary = ocr::OcrRead {
                language: r.language.clone(),
                confidence: r.confidence,
                letters: quality::letters(&r.text),
            };
            page_ocr[*i] = Some(r);
            summary
        });
        ocr_pages.push(OcrNote {
            pdf_page: page,
            reason: *reason,
            read,
        });
    }

    let outline = doc
        .bookmarks()
        .root()
        .map(|root| {
            root.iter_siblings()
                .filter_map(|b| {
                    let title = crate::text::normalize::collapse_whitespace(&b.title()?);
                    let page = match b.destination() {
                        Some(d) => d.page_index().ok(),
                        None => b.action().and_then(|a| {
                            a.as_local_destination_action()
                                .and_then(|l| l.destination().ok())
                                .and_then(|d| d.page_index().ok())
                        }),
                    }? as usize;
                    (!title.is_empty() && page < total).then_some(OutlineEntry { title, page })
                })
                .collect::<Vec<_>>()
        })
        .unwrap_or_default();

    let labels = page_labels::assign(&raw, &pdf_labels);
    let cleaned = page_labels::strip_running_lines(&raw);
    let pages = cleaned
        .pages
        .into_iter()
        .zip(labels)
        .zip(page_ocr)
        .enumerate()
        .map(|(i, ((text, label), ocr))| ExtractedPage {
            pdf_page: (i + 1) as u32,
            label,
            text,
            ocr,
        })
        .collect();
    Ok(ExtractedFile {
        path: path.to_path_buf(),
        title,
        running_header: cleaned.header,
        pages,
        outline,
        legacy_pages,
        ocr_pages,
        ocr_unavailable,
    })
}

/// Reads the pages `needs` by OCR. Returns one result per page (`None`: OCR failed on it) and,
/// when OCR could not run at all, why (every result is then `None`). The language tried first
/// is the teacher's, else the one the file's own text layer is in.
///
/// Errors: [`VidyaError::Cancelled`].
fn read_by_ocr(
    doc: &PdfDocument,
    raw: &[String],
    needs: &[(usize, OcrReason)],
    opts: &ReadOptions,
    on_event: &mut dyn FnMut(ReadEvent),
) -> Result<(Vec<Option<PageOcr>>, Option<String>)> {
    let none = || needs.iter().map(|_| None).collect::<Vec<_>>();
    if opts.no_ocr {
        return Ok((none(), Some("OCR is turned off".into())));
    }
    let engine = match ocr::engine() {
        Ok(e) => e,
        Err(why) => return Ok((none(), Some(why))),
    };
    let text_layer: String = raw
        .iter()
        .enumerate()
        .filter(|(i, _)| !needs.iter().any(|(n, _)| n == i))
        .map(|(_, t)| t.as_str())
        .take(20)
        .collect::<Vec<_>>()
        .join("\n");
    let language = opts
        .language
        .as_deref()
        .and_then(ocr::script::language_of_code)
        .or_else(|| ocr::script::language_of_text(&text_layer));
    let indices: Vec<usize> = needs.iter().map(|(i, _)| *i).collect();
    let results = ocr::pages::read_pages(
        engine,
        doc,
        &indices,
        language,
        opts.cancel.as_deref(),
        &mut |done, total| on_event(ReadEvent::Ocr { done, total }),
    )?;
    let mut out = Vec::with_capacity(results.len());
    for ((i, _), r) in needs.iter().zip(results) {
        match r {
            Ok(page) => out.push(Some(page)),
            Err(VidyaError::Cancelled) => return Err(VidyaError::Cancelled),
            Err(e) => {
                tracing::warn!(page = i + 1, error = %e, "OCR failed on a page");
                out.push(None);
            }
        }
    }
    Ok((out, None))
}

/// pdfium's text of every page, NFC-normalised, without Vidya's repairs or legacy-font
/// conversion: the "before" of `vidya eval --extraction`. Errors as [`extract`].
pub fn raw_page_texts(path: &Path) -> Result<Vec<String>> {
    super::source::check_size(path, MAX_PDF_BYTES)?;
    let pdfium = pdfium()?;
    let doc = pdfium
        .load_pdf_from_file(path, None)
        .map_err(|e| map_load_error(path, e))?;
    let texts = doc
        .pages()
        .iter()
        .map(|p| crate::text::normalize(&p.text().map(|t| t.all()).unwrap_or_default()))
        .collect();
    Ok(texts)
}

/// The text of one page, with a text layer in a legacy Devanagari font converted to Unicode,
/// and that font (`None` for a Unicode text layer).
///
/// The font is recognised by the names of the page's text-object fonts
/// ([`legacy_font_of`]), or, when the names say nothing, by the text's statistics
/// ([`looks_like_krutidev`]). On a page that mixes a Kruti Dev font with other fonts only the
/// characters drawn in the Kruti Dev font are converted. Chanakya text is returned as is.
fn page_text(page: &PdfPage) -> (String, Option<LegacyFont>) {
    let Ok(text) = page.text() else {
        return (String::new(), None);
    };
    let mut all = text.all();
    if all.chars().any(crate::text::script::is_indic) {
        all = respace(&text).unwrap_or(all);
    }
    let mut legacy = None;
    let mut other_fonts = false;
    for object in page.objects().iter() {
        if let Some(t) = object.as_text_object() {
            match legacy_font_of(&t.font().name()) {
                Some(f) => legacy = legacy.or(Some(f)),
                None => other_fonts = true,
            }
        }
    }
    match legacy {
        Some(LegacyFont::KrutiDev) if other_fonts => {
            (convert_kruti_runs(&text), Some(LegacyFont::KrutiDev))
        }
        Some(LegacyFont::KrutiDev) => (krutidev_to_unicode(&all), Some(LegacyFont::KrutiDev)),
        Some(font) => (all, Some(font)),
        None if looks_like_krutidev(&all) => {
            (krutidev_to_unicode(&all), Some(LegacyFont::KrutiDev))
        }
        None => (all, None),
    }
}

/// A gap between two glyphs on one line wider than this share of the font size is a word
/// break, even when the PDF has no space glyph there.
pub const WORD_GAP_EM: f32 = 0.25;

/// The page's text rebuilt glyph by glyph, for pages with Indic text. Two things differ from
/// pdfium's own page text ([`PdfPageText::all`]):
/// - a space is put wherever two glyphs of one line stand further apart than [`WORD_GAP_EM`]
///   and the PDF has no space glyph: shaped Indic text often has none at a word break after a
///   conjunct (HarfBuzz-shaped PDFs fold it into the cluster), and pdfium then glues the words
///   ("कर्टकोलमैन");
/// - a line break that pdfium generated although the next glyph continues the same line is
///   dropped ("వర్ష\r\nపాతం").
///
/// The per-glyph stream also keeps signs that `all()` loses (an anusvara drawn inside a
/// conjunct: "मैनिंग", not "मैनिग"). `None` when pdfium cannot give the glyph boxes.
fn respace(text: &PdfPageText) -> Option<String> {
    let mut out = String::new();
    // Right edge of the glyphs since the last whitespace, and that run's baseline and size.
    let mut run: Option<(f32, f32, f32)> = None;
    // Whitespace pdfium generated, kept or dropped when the next glyph shows where it is.
    let mut pending: Option<String> = None;
    for ch in text.chars().iter() {
        let Some(s) = ch.unicode_string() else {
            continue;
        };
        if s.chars().all(char::is_whitespace) {
            if ch.is_generated().unwrap_or(false) {
                pending.get_or_insert_with(String::new).push_str(&s);
            } else {
                out.push_str(pending.take().as_deref().unwrap_or(""));
                out.push_str(&s);
                run = None;
            }
            continue;
        }
        let b = ch.loose_bounds().ok()?;
        let (left, right, bottom) = (b.left().value, b.right().value, b.bottom().value);
        let size = ch.unscaled_font_size().value.max(1.0);
        let same_line =
            |(r, bt, sz): (f32, f32, f32)| (bottom - bt).abs() < 0.5 * sz && left >= r - 0.5 * sz;
        // A vowel sign, virama or other mark belongs to the glyph before it, wherever the font
        // draws it (Telugu and Kannada draw below-base forms apart from their consonant).
        let attached = s
            .chars()
            .next()
            .is_some_and(unicode_normalization::char::is_combining_mark)
            || out.ends_with(['\u{094D}', '\u{0C4D}', '\u{0CCD}', '\u{0BCD}']);
        if let Some(ws) = pending.take() {
            if !run.is_some_and(same_line) {
                out.push_str(&ws);
                run = None;
            }
        }
        let gap = !attached
            && run.is_some_and(|(r, bt, sz)| {
                (bottom - bt).abs() < 0.5 * sz && left - r > WORD_GAP_EM * sz
            });
        if gap {
            out.push(' ');
        }
        run = Some(match (run, gap) {
            (Some((r, bt, sz)), false) => (r.max(right), bt, sz),
            _ => (right, bottom, size),
        });
        out.push_str(&s);
    }
    out.push_str(pending.as_deref().unwrap_or(""));
    Some(out)
}

/// Converts the runs of characters drawn in a Kruti Dev font; the rest stays as extracted.
/// Whitespace pdfium generated between words joins the run it sits in.
fn convert_kruti_runs(text: &PdfPageText) -> String {
    let mut out = String::new();
    let mut run = String::new();
    let mut run_is_kruti = false;
    for ch in text.chars().iter() {
        let Some(s) = ch.unicode_string() else {
            continue;
        };
        let is_kruti = if s.trim().is_empty() {
            run_is_kruti
        } else {
            legacy_font_of(&ch.font_name()) == Some(LegacyFont::KrutiDev)
        };
        if is_kruti != run_is_kruti && !run.is_empty() {
            flush_run(&mut out, &mut run, run_is_kruti);
        }
        run_is_kruti = is_kruti;
        run.push_str(&s);
    }
    flush_run(&mut out, &mut run, run_is_kruti);
    out
}

fn flush_run(out: &mut String, run: &mut String, kruti: bool) {
    if kruti {
        out.push_str(&krutidev_to_unicode(run));
    } else {
        out.push_str(run);
    }
    run.clear();
}
