//! Errors the engine reports to people: every message says what happened and what to do next.

use std::path::PathBuf;

/// Result alias for the engine.
pub type Result<T, E = VidyaError> = std::result::Result<T, E>;

/// Everything that can go wrong in the engine, worded for a teacher rather than a developer.
///
/// The `Display` text of each variant is the message shown to the user; `kind()` gives a stable
/// machine-readable name (used by `--json` output and tests).
#[derive(Debug, thiserror::Error)]
pub enum VidyaError {
    /// The PDF needs a password to open.
    #[error("this PDF is password-protected: {path}. Remove the password (for example, print it to a new PDF) and add it again")]
    Encrypted {
        /// The file.
        path: PathBuf,
    },
    /// The file is damaged, truncated, or not really of its type.
    #[error("this file is damaged or incomplete and cannot be read: {path} ({detail}). Copy the file again from its source, or download it again")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What pdfium reported.
        detail: String,
    },
    /// No page of the PDF has a text layer.
    #[error("this PDF looks scanned: {path} has {pages} page(s) but no text layer, and reading them by OCR did not work: {ocr}. Use a PDF with selectable text (NCERT and state-board PDFs usually have one), or a clearer scan")]
    Scanned {
        /// The file.
        path: PathBuf,
        /// Page count.
        pages: usize,
        /// Why OCR could not read its pages (the engine is missing, or read nothing).
        ocr: String,
    },
    /// The text layer exists but is unreadable (a font without a Unicode map).
    #[error("the text in this PDF cannot be read: {path} uses fonts without a Unicode mapping, so its words come out as symbols, and reading its pages by OCR did not work: {ocr}. Use another copy of the book, or a PDF exported with standard fonts")]
    GarbledText {
        /// The file.
        path: PathBuf,
        /// Why OCR could not read its pages.
        ocr: String,
    },
    /// Every page with text is typed in a legacy (non-Unicode) font Vidya cannot convert.
    #[error("this PDF is typed in the old {font} font, which Vidya cannot convert to Unicode yet: {path}. Its words would come out as Latin letters and could not be searched, and reading its pages by OCR did not work: {ocr}. Use a Unicode edition of the book (NCERT publishes Unicode PDFs), or a copy typed in Kruti Dev, which Vidya converts")]
    LegacyFont {
        /// The file.
        path: PathBuf,
        /// The font family ("Chanakya").
        font: String,
        /// Why OCR could not read its pages.
        ocr: String,
    },
    /// A file type Vidya cannot read.
    #[error("unsupported file type: {path}. Vidya reads PDF, TXT, Markdown (.md) and Word (.docx) files: save or export the book as PDF{}", old_word_advice(path))]
    Unsupported {
        /// The file.
        path: PathBuf,
    },
    /// A cited page cannot be drawn: the book has no such page, the book came from a text
    /// file, or its PDF was moved, changed or replaced since it was added.
    #[error("{why} ({path})")]
    NoPageImage {
        /// The book's file.
        path: PathBuf,
        /// Why, with what to do.
        why: String,
        /// What a student's device is told instead (classroom mode): no path, no fix that
        /// only the teacher can make.
        student: String,
    },
    /// A file or folder with nothing readable in it.
    #[error("nothing to read in {path}: {why}")]
    Empty {
        /// The file or folder.
        path: PathBuf,
        /// Why it is empty.
        why: String,
    },
    /// The file is larger than Vidya accepts.
    #[error("{path} is too large ({size_mb} MB; the limit is {limit_mb} MB). Split the book into chapter files and add the folder")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size in MB.
        size_mb: u64,
        /// The limit in MB.
        limit_mb: u64,
    },
    /// The path does not exist or cannot be read. The message says why in plain words and
    /// what to do ([`io_reason`]), never the system's "(os error 2)".
    #[error("cannot read {path}: {}", io_reason(source))]
    Io {
        /// The file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// The pdfium native library was not found or could not be loaded.
    #[error("the PDF reader library (pdfium) is missing or broken: {detail}. Run `cargo xtask setup` in the source folder, or reinstall Vidya")]
    PdfiumMissing {
        /// What was tried.
        detail: String,
    },
    /// A neural model file or its runtime is missing or damaged.
    #[error("the retrieval model is not ready: {detail}. Run `cargo xtask setup --models` in the source folder, or reinstall Vidya")]
    ModelMissing {
        /// What is missing or damaged.
        detail: String,
    },
    /// An installed cross-encoder reranker cannot be used.
    #[error("the reranker cannot be used: {detail}")]
    RerankerBroken {
        /// What is wrong and how to fix it.
        detail: String,
    },
    /// The question is empty or has no searchable words.
    #[error("the question is empty: type a question with at least one word")]
    EmptyQuestion,
    /// The library has no books yet.
    #[error("the library has no books yet: add a textbook first (`vidya ingest <pdf or folder>`)")]
    EmptyLibrary,
    /// A book id that does not exist.
    #[error("there is no book with id {0}: `vidya books` lists the books")]
    NoSuchBook(i64),
    /// The library database failed.
    #[error("the library database at {path} failed: {source}. {}", db_hint(.source, .path))]
    Database {
        /// The database file.
        path: PathBuf,
        /// SQLite's error.
        source: rusqlite::Error,
    },
    /// There is no library at the path given.
    #[error("there is no library at {path} yet. Add a book first (`vidya ingest <pdf or folder>`), or check the --library path")]
    NoLibrary {
        /// The folder.
        path: PathBuf,
    },
    /// A file whose content does not match its name.
    #[error(
        "{path} is not a {expected} file, although its name says so (it looks like {found}). {fix}"
    )]
    WrongType {
        /// The file.
        path: PathBuf,
        /// What the name promises.
        expected: &'static str,
        /// What the content is.
        found: &'static str,
        /// What to do.
        fix: &'static str,
    },
    /// The library was written by a newer Vidya.
    #[error("the library at {path} was created by a newer version of Vidya (schema {found}, this version knows {known}). Update Vidya")]
    SchemaTooNew {
        /// The database file.
        path: PathBuf,
        /// Schema version found.
        found: i64,
        /// Newest schema this build knows.
        known: i64,
    },
    /// A setting or option has a value Vidya does not know (the user's input: HTTP 400).
    #[error("{0}")]
    BadOption(String),
    /// A fault inside Vidya, not in what the user gave it: a worker thread that panicked, a
    /// vector index that failed, no randomness from the system (HTTP 500).
    #[error(
        "something went wrong inside Vidya: {0}. Try again; if it happens again, restart Vidya"
    )]
    Internal(String),
    /// The conversation does not exist.
    #[error("there is no conversation with id {0}: `vidya conversations` lists them")]
    NoSuchConversation(i64),
    /// OCR failed on a page (Tesseract missing a language, crashed, or ran too long).
    #[error("OCR could not read the page: {detail}")]
    Ocr {
        /// What went wrong.
        detail: String,
    },
    /// The ingest, or a question waiting for the model, was cancelled.
    #[error("cancelled")]
    Cancelled,
    /// Too many questions wait for the model already (the message says when to ask again).
    #[error("{0}")]
    Busy(String),
}

impl VidyaError {
    /// A stable, machine-readable name of the error (for JSON output and tests).
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Encrypted { .. } => "encrypted",
            Self::Corrupt { .. } => "corrupt",
            Self::Scanned { .. } => "scanned",
            Self::GarbledText { .. } => "garbled_text",
            Self::LegacyFont { .. } => "legacy_font",
            Self::Unsupported { .. } => "unsupported",
            Self::NoPageImage { .. } => "no_page_image",
            Self::Empty { .. } => "empty",
            Self::TooLarge { .. } => "too_large",
            Self::Io { .. } => "io",
            Self::PdfiumMissing { .. } => "pdfium_missing",
            Self::EmptyQuestion => "empty_question",
            Self::ModelMissing { .. } => "model_missing",
            Self::RerankerBroken { .. } => "reranker_broken",
            Self::NoLibrary { .. } => "no_library",
            Self::WrongType { .. } => "wrong_type",
            Self::EmptyLibrary => "empty_library",
            Self::NoSuchBook(_) => "no_such_book",
            Self::Database { .. } => "database",
            Self::SchemaTooNew { .. } => "schema_too_new",
            Self::BadOption(_) => "bad_option",
            Self::Internal(_) => "internal",
            Self::NoSuchConversation(_) => "no_such_conversation",
            Self::Ocr { .. } => "ocr",
            Self::Cancelled => "cancelled",
            Self::Busy(_) => "busy",
        }
    }

    /// Wraps an I/O error with the path it concerns.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}

/// For an old Word file (`.doc`, `.rtf`), how to make it readable: save it as `.docx`.
fn old_word_advice(path: &std::path::Path) -> &'static str {
    if crate::ingest::source::is_old_word_file(path) {
        ". An older Word file: open it in Word or LibreOffice, save it as .docx and add it again"
    } else {
        ""
    }
}

/// An I/O error in plain words with what to do: the common kinds named ("there is no such file
/// …"), any other as the system says it without its "(os error N)" code.
pub fn io_reason(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::NotFound => {
            "there is no file or folder by that name. Check the name and the folder it is in".into()
        }
        K::PermissionDenied => "you are not allowed to read it. Copy it into one of your own \
                                folders (for example Documents) and add it from there"
            .into(),
        _ => {
            let text = e.to_string();
            match text.find(" (os error") {
                Some(i) => text[..i].to_string(),
                None => text,
            }
        }
    }
}

/// What to do about a database error, from SQLite's error code.
fn db_hint(e: &rusqlite::Error, path: &std::path::Path) -> String {
    use rusqlite::ErrorCode as C;
    let code = match e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    };
    match code {
        Some(C::DatabaseBusy) | Some(C::DatabaseLocked) => {
            "Another Vidya window or command is changing the library right now: wait for it to finish and try again".into()
        }
        Some(C::DatabaseCorrupt) | Some(C::NotADatabase) => format!(
            "The library file is damaged. Rename the folder {} (to keep it for repair), then add your books again, or restore the folder from a backup",
            path.parent().map(|p| p.display().to_string()).unwrap_or_default()
        ),
        Some(C::ReadOnly) | Some(C::PermissionDenied) => {
            "The library cannot be written (read-only folder or disk). Use a library folder you can write to (--library), or ask for write permission".into()
        }
        Some(C::DiskFull) => "The disk is full: free some space and try again".into(),
        Some(C::CannotOpen) => "Check that the library folder exists, is a folder, and can be written".into(),
        _ => "If the disk is full, free some space and try again".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_file_is_named_in_plain_words() {
        let e = VidyaError::io(
            "/tmp/no-such-book.pdf",
            std::io::Error::from_raw_os_error(2),
        );
        let text = e.to_string();
        assert!(text.contains("no-such-book.pdf"), "{text}");
        assert!(text.contains("no file or folder by that name"), "{text}");
        assert!(!text.contains("os error"), "{text}");
        let doc = VidyaError::Unsupported {
            path: "notes.doc".into(),
        }
        .to_string();
        assert!(doc.contains("save it as .docx"), "{doc}");
        let other = io_reason(&std::io::Error::from_raw_os_error(5));
        assert!(!other.contains("os error") && !other.is_empty(), "{other}");
    }
}
