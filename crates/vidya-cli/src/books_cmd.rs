//! `vidya books` and `vidya remove`: the books in the library, and deleting one.

use crate::output::plural;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::{Library, VidyaError};

pub(crate) fn run(library: &Path, json: bool) -> Result<ExitCode> {
    let books = match Library::open_existing(library) {
        Ok(lib) => lib.books()?,
        Err(VidyaError::NoLibrary { .. }) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    if json {
        out!("{}", serde_json::to_string_pretty(&books)?);
    } else if books.is_empty() {
        out!(
            "No books yet in {}. Add one with: vidya ingest <pdf or folder>",
            library.display()
        );
    } else {
        for b in books {
            let ocr = if b.ocr_page_count > 0 {
                format!(" ({} read by OCR)", b.ocr_page_count)
            } else {
                String::new()
            };
            out!(
                "{:>3}  {}  [{}]  {}{ocr}, {}, {}  (added {} UTC)",
                b.id,
                b.title,
                b.language,
                plural(b.page_count, "page"),
                plural(b.chapter_count, "chapter"),
                plural(b.chunk_count, "chunk"),
                b.added_at
            );
            for w in &b.warnings {
                out!("       note: {w}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `vidya remove ID`: deletes a book (its chunks, vectors and index rows in one transaction).
/// Errors: no library, no such book.
pub(crate) fn remove(library: &Path, id: i64) -> Result<ExitCode> {
    let mut lib = Library::open_existing(library)?;
    let book = lib.book(id)?;
    lib.delete_book(id)?;
    out!("Removed book {id}: {}", book.title);
    Ok(ExitCode::SUCCESS)
}
