//! What every extractor returns, and the dispatch from a file's type to its extractor.

use crate::error::{Result, VidyaError};
use std::path::{Path, PathBuf};

/// One page of extracted text.
#[derive(Debug, Clone)]
pub struct ExtractedPage {
    /// 1-based page number inside the file (for TXT/MD/DOCX: the section number).
    pub pdf_page: u32,
    /// Printed page label (see [`super::page_labels`]).
    pub label: String,
    /// Normalised text with line breaks kept.
    pub text: String,
    /// What OCR read on this page, with the words' boxes; `None` for a page with a usable
    /// text layer (and for TXT/MD/DOCX).
    pub ocr: Option<super::ocr::PageOcr>,
}

/// A top-level outline (bookmark) entry or heading: a chapter candidate.
#[derive(Debug, Clone)]
pub struct OutlineEntry {
    /// Title.
    pub title: String,
    /// 0-based page index it points at.
    pub page: usize,
}

/// Everything extracted from one file.
#[derive(Debug, Clone)]
pub struct ExtractedFile {
    /// The file.
    pub path: PathBuf,
    /// Document title from metadata (PDF `/Title`, DOCX core properties, first Markdown `#`).
    pub title: Option<String>,
    /// The running header removed from its pages, if any.
    pub running_header: Option<String>,
    /// Pages in order.
    pub pages: Vec<ExtractedPage>,
    /// Top-level outline entries (PDF bookmarks, Markdown/DOCX headings of the top level).
    pub outline: Vec<OutlineEntry>,
    /// Pages (1-based) whose text layer was in a legacy Devanagari font, with that font:
    /// Kruti Dev pages were converted to Unicode, others are left as extracted.
    pub legacy_pages: Vec<(u32, crate::text::legacy_font::LegacyFont)>,
    /// The pages that needed OCR and what it read (see [`super::ocr`]).
    pub ocr_pages: Vec<super::ocr::OcrNote>,
    /// Why pages that needed OCR were not read by it (no engine, OCR turned off), if so.
    pub ocr_unavailable: Option<String>,
}

/// How a file is read.
#[derive(Debug, Clone, Default)]
pub struct ReadOptions {
    /// Never OCR (pages without a usable text layer stay empty).
    pub no_ocr: bool,
    /// Set to true to stop; reading then returns [`VidyaError::Cancelled`].
    pub cancel: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The book's language (ISO 639-1, "hi") when the teacher gave it: OCR tries its model
    /// first.
    pub language: Option<String>,
}

/// Progress of reading one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadEvent {
    /// `done` of the file's `total` pages have been opened and their text layers read.
    Page {
        /// Pages read.
        done: usize,
        /// Pages in the file.
        total: usize,
    },
    /// `done` of the `total` pages that need OCR have been read by it.
    Ocr {
        /// Pages OCR'd.
        done: usize,
        /// Pages to OCR in this file.
        total: usize,
    },
}

/// File kinds Vidya reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// PDF.
    Pdf,
    /// Plain text.
    Text,
    /// Markdown.
    Markdown,
    /// Word (Office Open XML).
    Docx,
}

/// The kind of `path` from its extension (case-insensitive); `None` when unsupported.
pub fn kind_of(path: &Path) -> Option<FileKind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "pdf" => Some(FileKind::Pdf),
        "txt" | "text" => Some(FileKind::Text),
        "md" | "markdown" => Some(FileKind::Markdown),
        "docx" => Some(FileKind::Docx),
        _ => None,
    }
}

/// True for an older word-processor file (`.doc`, `.rtf`, `.odt`, any case): Vidya cannot
/// read it, but the teacher can open it in Word or LibreOffice and save it as `.docx`.
pub fn is_old_word_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| matches!(e.to_ascii_lowercase().as_str(), "doc" | "rtf" | "odt"))
}

/// Extracts `path` with the extractor for its type; `on_event` reports progress.
///
/// Errors: [`VidyaError::Unsupported`] for other types, and each extractor's own errors.
pub fn extract_file(
    path: &Path,
    opts: &ReadOptions,
    on_event: &mut dyn FnMut(ReadEvent),
) -> Result<ExtractedFile> {
    check_content(path)?;
    let on_page = &mut |done, total| on_event(ReadEvent::Page { done, total });
    match kind_of(path) {
        Some(FileKind::Pdf) => super::pdf::extract(path, opts, on_event),
        Some(FileKind::Text) => super::plaintext::extract(path, false, on_page),
        Some(FileKind::Markdown) => super::plaintext::extract(path, true, on_page),
        Some(FileKind::Docx) => super::docx::extract(path, on_page),
        None => Err(VidyaError::Unsupported {
            path: path.to_path_buf(),
        }),
    }
}

/// What the first bytes of a file say it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sniffed {
    Pdf,
    Zip,
    Other,
}

fn sniff(head: &[u8]) -> Sniffed {
    if head.windows(5).any(|w| w == b"%PDF-") {
        Sniffed::Pdf
    } else if head.starts_with(b"PK\x03\x04") {
        Sniffed::Zip
    } else {
        Sniffed::Other
    }
}

/// Refuses what cannot be a book before any parser sees it: not a regular file, an empty file,
/// or content that contradicts the file's name (a PDF named `.txt`, a Word file named `.pdf`).
fn check_content(path: &Path) -> Result<()> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(|e| VidyaError::io(path, e))?;
    if !meta.is_file() {
        return Err(VidyaError::Empty {
            path: path.to_path_buf(),
            why: "it is not a regular file (a folder, device or pipe)".into(),
        });
    }
    if meta.len() == 0 {
        return Err(VidyaError::Empty {
            path: path.to_path_buf(),
            why: "the file is empty (0 bytes); copy it again from its source".into(),
        });
    }
    let mut head = vec![0u8; 1024];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .map_err(|e| VidyaError::io(path, e))?;
    head.truncate(n);
    let found = sniff(&head);
    let wrong = |expected: &'static str, found: &'static str, fix: &'static str| {
        Err(VidyaError::WrongType {
            path: path.to_path_buf(),
            expected,
            found,
            fix,
        })
    };
    match (kind_of(path), found) {
        (Some(FileKind::Pdf), Sniffed::Zip) => wrong("PDF", "a Word or zip file", "If it is a Word document, rename it to end in .docx; otherwise export it as PDF and add it again"),
        (Some(FileKind::Pdf), Sniffed::Other) if !head.contains(&b'%') => wrong("PDF", "plain text or other data", "Export or save the book as PDF and add it again"),
        (Some(FileKind::Text | FileKind::Markdown), Sniffed::Pdf) => wrong("text", "a PDF", "Rename it to end in .pdf and add it again"),
        (Some(FileKind::Text | FileKind::Markdown), Sniffed::Zip) => wrong("text", "a Word or zip file", "If it is a Word document, rename it to end in .docx"),
        (Some(FileKind::Docx), Sniffed::Pdf) => wrong("Word (.docx)", "a PDF", "Rename it to end in .pdf and add it again"),
        (Some(FileKind::Docx), Sniffed::Other) => wrong("Word (.docx)", "plain text or an old .doc file", "Open it in Word or LibreOffice, save it as .docx, and add it again"),
        _ => Ok(()),
    }
}

/// Refuses a file larger than `limit` bytes. Errors: [`VidyaError::TooLarge`], or
/// [`VidyaError::Io`] when its size cannot be read.
pub fn check_size(path: &Path, limit: u64) -> Result<()> {
    let size = std::fs::metadata(path)
        .map_err(|e| VidyaError::io(path, e))?
        .len();
    if size > limit {
        return Err(VidyaError::TooLarge {
            path: path.to_path_buf(),
            size_mb: size / (1024 * 1024),
            limit_mb: limit / (1024 * 1024),
        });
    }
    Ok(())
}

/// A file made of `pages` (page labels 1, 2, …), for tests of the stages after extraction.
#[cfg(test)]
pub(crate) fn test_file(name: &str, title: Option<&str>, pages: &[&str]) -> ExtractedFile {
    ExtractedFile {
        path: name.into(),
        title: title.map(String::from),
        running_header: None,
        outline: vec![],
        legacy_pages: vec![],
        ocr_pages: vec![],
        ocr_unavailable: None,
        pages: pages
            .iter()
            .enumerate()
            .map(|(i, t)| ExtractedPage {
                pdf_page: i as u32 + 1,
                label: (i + 1).to_string(),
                text: t.to_string(),
                ocr: None,
            })
            .collect(),
    }
}
