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

/// Extracts `path` with the extractor for its type. `on_page(done, total)` reports progress.
///
/// Errors: [`VidyaError::Unsupported`] for other types, and each extractor's own errors.
pub fn extract_file(path: &Path, on_page: &mut dyn FnMut(usize, usize)) -> Result<ExtractedFile> {
    match kind_of(path) {
        Some(FileKind::Pdf) => super::pdf::extract(path, on_page),
        Some(FileKind::Text) => super::plaintext::extract(path, false, on_page),
        Some(FileKind::Markdown) => super::plaintext::extract(path, true, on_page),
        Some(FileKind::Docx) => super::docx::extract(path, on_page),
        None => Err(VidyaError::Unsupported {
            path: path.to_path_buf(),
        }),
    }
}
