//! PDF text extraction with pdfium (through `pdfium-render`), page by page.

use super::page_labels;
use super::source::{ExtractedFile, ExtractedPage, OutlineEntry};
use crate::error::{Result, VidyaError};
use crate::native;
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
            let path = located.path.ok_or_else(|| {
                format!(
                    "{} not found (looked in {})",
                    located.entry.file,
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
            tracing::debug!(path = %path.display(), verified = located.verified, "pdfium bound");
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
/// [`page_labels`]), the document title and the outline. `on_page(done, total)` is called
/// after each page.
///
/// Errors: [`VidyaError::Encrypted`], [`VidyaError::Corrupt`] (unreadable, truncated beyond
/// repair, zero pages), [`VidyaError::TooLarge`], [`VidyaError::PdfiumMissing`]. A PDF with
/// no text layer is returned with empty pages; the caller decides (see
/// [`super::quality::check_text_layer`]).
pub fn extract(path: &Path, on_page: &mut dyn FnMut(usize, usize)) -> Result<ExtractedFile> {
    super::source::check_size(path, MAX_PDF_BYTES)?;
    let pdfium = pdfium()?;
    // pdfium-render can panic on documents that violate its assumptions; a damaged PDF must
    // produce an error, never bring the app down.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        extract_with(pdfium, path, on_page)
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
    on_page: &mut dyn FnMut(usize, usize),
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
    for (i, page) in pages.iter().enumerate() {
        let text = page.text().map(|t| t.all()).unwrap_or_default();
        raw.push(crate::text::normalize(&text));
        pdf_labels.push(
            page.label()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(String::from),
        );
        on_page(i + 1, total);
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
        .enumerate()
        .map(|(i, (text, label))| ExtractedPage {
            pdf_page: (i + 1) as u32,
            label,
            text,
        })
        .collect();
    Ok(ExtractedFile {
        path: path.to_path_buf(),
        title,
        running_header: cleaned.header,
        pages,
        outline,
    })
}
