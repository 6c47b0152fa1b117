//! Ingestion: files or folders → pages with printed labels → chapters → chunks → one SQLite
//! transaction per book.
//!
//! [`book`] runs one book's steps; the other modules are the steps' parts.
//!
//! A folder of PDFs (or of TXT/MD/DOCX files when it has no PDF) is one book whose chapters are
//! its files in natural name order ("ch2" before "ch10"); a folder without readable files of its
//! own contributes each sub-folder as a book.

pub mod blocks;
pub mod book;
pub mod chapters;
pub mod chunk;
pub mod docx;
pub mod ocr;
pub mod page_labels;
pub mod pdf;
pub mod plaintext;
pub mod quality;
pub mod reindex;
pub mod source;

pub use book::ingest_book;

use crate::error::{Result, VidyaError};
use serde::Serialize;
use source::{kind_of, FileKind};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Environment variable (milliseconds) that pauses an ingest inside its transaction, right
/// before the commit, after printing `vidya: ingest transaction open` to stderr. It exists for
/// the crash-safety test, which kills the process at that moment.
pub const FAULT_PAUSE_ENV: &str = "VIDYA_FAULT_PAUSE_BEFORE_COMMIT_MS";

/// One book to ingest: a single file, or a folder of chapter files.
#[derive(Debug, Clone)]
pub struct BookSource {
    /// The file or folder given.
    pub path: PathBuf,
    /// Its files in book order.
    pub files: Vec<PathBuf>,
    /// True for a folder book.
    pub is_folder: bool,
}

/// Options for [`ingest_book`].
#[derive(Debug, Clone, Default)]
pub struct IngestOptions {
    /// Book title; detected when `None`.
    pub title: Option<String>,
    /// Set to true to stop; the ingest then returns [`VidyaError::Cancelled`] and stores nothing.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Embeds every chunk for dense retrieval inside the same transaction; `None` stores the
    /// book for BM25 only (`vidya reindex` adds the vectors later).
    pub embedder: Option<Arc<crate::embed::Embedder>>,
    /// Re-index this stored book: read the source again and replace the book in one
    /// transaction (the same content is not reported as already present).
    pub replaces: Option<i64>,
    /// Never read pages by OCR: pages without a usable text layer stay empty (`--no-ocr`).
    pub no_ocr: bool,
}

/// Progress of one book's ingest.
#[derive(Debug, Clone)]
pub enum Progress {
    /// Reading pages of one of the book's files.
    Reading {
        /// File being read.
        file: String,
        /// Its index among the book's files (0-based).
        file_index: usize,
        /// Number of files in the book.
        files: usize,
        /// Pages of this file read so far.
        page: usize,
        /// Pages in this file.
        pages: usize,
        /// Pages read so far in the whole book.
        done: usize,
    },
    /// Reading pages without a usable text layer by OCR (after the file's pages were opened).
    Ocr {
        /// File being read.
        file: String,
        /// Pages of this file OCR'd so far.
        done: usize,
        /// Pages of this file that need OCR.
        total: usize,
        /// Estimated time left for this file's OCR (seconds) from the pages done so far;
        /// `None` before the first page.
        seconds_left: Option<f64>,
    },
    /// Chunking and tokenising.
    Indexing,
    /// Embedding chunks and their sentences for dense retrieval and pruning.
    Embedding {
        /// Texts (chunks and sentences) embedded so far.
        done: usize,
        /// Texts to embed in the book.
        total: usize,
    },
    /// Writing the transaction.
    Writing,
}

/// What an ingest did.
#[derive(Debug, Clone, Serialize)]
pub struct IngestReport {
    /// Book id.
    pub book_id: i64,
    /// Title.
    pub title: String,
    /// Detected language.
    pub language: String,
    /// Pages stored.
    pub pages: usize,
    /// Chapters stored.
    pub chapters: usize,
    /// Chunks stored.
    pub chunks: usize,
    /// Wall time (seconds).
    pub seconds: f64,
    /// True when the same content was already in the library (nothing was written).
    pub already_present: bool,
    /// Warnings for the teacher (skipped files, pages without text).
    pub warnings: Vec<String>,
}

fn natural_key(name: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut num = String::new();
    for c in name.to_lowercase().chars() {
        if c.is_ascii_digit() {
            num.push(c);
        } else {
            if !num.is_empty() {
                out.push((std::mem::take(&mut text), num.parse().unwrap_or(u64::MAX)));
                num.clear();
            }
            text.push(c);
        }
    }
    out.push((text, num.parse().unwrap_or(0)));
    out
}

fn readable_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| VidyaError::io(dir, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && kind_of(p).is_some())
        .collect();
    let has_pdf = files.iter().any(|p| kind_of(p) == Some(FileKind::Pdf));
    if has_pdf {
        files.retain(|p| kind_of(p) == Some(FileKind::Pdf));
    }
    files.sort_by_key(|p| natural_key(&p.file_name().unwrap_or_default().to_string_lossy()));
    Ok(files)
}

/// Expands a path given by the user into books.
///
/// Errors: the path does not exist ([`VidyaError::Io`]), a file of an unsupported type
/// ([`VidyaError::Unsupported`]), a folder with nothing readable ([`VidyaError::Empty`]).
pub fn plan(path: &Path) -> Result<Vec<BookSource>> {
    let meta = std::fs::metadata(path).map_err(|e| VidyaError::io(path, e))?;
    if meta.is_file() {
        if kind_of(path).is_none() {
            return Err(VidyaError::Unsupported {
                path: path.to_path_buf(),
            });
        }
        return Ok(vec![BookSource {
            path: path.to_path_buf(),
            files: vec![path.to_path_buf()],
            is_folder: false,
        }]);
    }
    if !meta.is_dir() {
        return Err(VidyaError::Empty {
            path: path.to_path_buf(),
            why: "it is not a regular file or folder (a device or pipe)".into(),
        });
    }
    let files = readable_files(path)?;
    if !files.is_empty() {
        return Ok(vec![BookSource {
            path: path.to_path_buf(),
            files,
            is_folder: true,
        }]);
    }
    let mut subdirs: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| VidyaError::io(path, e))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    subdirs.sort_by_key(|p| natural_key(&p.file_name().unwrap_or_default().to_string_lossy()));
    let mut books = Vec::new();
    for d in subdirs {
        let files = readable_files(&d)?;
        if !files.is_empty() {
            books.push(BookSource {
                path: d,
                files,
                is_folder: true,
            });
        }
    }
    if books.is_empty() {
        let why = if holds_old_word_files(path) {
            "the folder has no PDF, TXT, Markdown or DOCX files, and its older Word files cannot be \
             read: open each in Word or LibreOffice, save it as .docx and add the folder again"
        } else {
            "the folder has no PDF, TXT, Markdown or DOCX files"
        };
        return Err(VidyaError::Empty {
            path: path.to_path_buf(),
            why: why.into(),
        });
    }
    Ok(books)
}

/// True when `folder` holds an older word-processor file (`.doc`, `.rtf`, `.odt`) Vidya
/// cannot read but the teacher can save as `.docx`.
fn holds_old_word_files(folder: &Path) -> bool {
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| source::is_old_word_file(&e.path()))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_of_old_word_files_says_how_to_save_them() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("chapter 1.doc"), b"\xd0\xcf\x11\xe0").unwrap();
        let e = plan(dir.path()).unwrap_err().to_string();
        assert!(e.contains("save it as .docx"), "{e}");
        let empty = tempfile::tempdir().unwrap();
        let e = plan(empty.path()).unwrap_err().to_string();
        assert!(!e.contains(".docx and"), "{e}");
    }

    #[test]
    fn natural_order() {
        let mut v = vec!["ch10.pdf", "ch2.pdf", "ch1.pdf"];
        v.sort_by_key(|n| natural_key(n));
        assert_eq!(v, vec!["ch1.pdf", "ch2.pdf", "ch10.pdf"]);
    }

    #[test]
    fn plan_rejects_unsupported_and_missing() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("setup.exe");
        std::fs::write(&exe, b"MZ").unwrap();
        assert_eq!(plan(&exe).unwrap_err().kind(), "unsupported");
        assert_eq!(plan(&dir.path().join("nope.pdf")).unwrap_err().kind(), "io");
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).unwrap();
        assert_eq!(plan(&empty).unwrap_err().kind(), "empty");
    }
}
