//! The library: one SQLite database (bundled SQLite, WAL journal) holding books, their files,
//! chapters, pages with printed page labels, and chunks with their BM25 terms.
//!
//! A book is written in exactly one transaction ([`Library::insert_book`]): a crash or kill at any
//! moment leaves the library as it was before that book.

pub mod class_report;
pub mod conversations;
pub mod drive;
pub mod insert;
pub mod postings;
pub mod schema;
pub mod sentences;
pub mod stats;
pub mod vectors;

pub use conversations::{Conversation, Turn};
pub use insert::{NewBook, NewChapter, NewChunk, NewFile, NewPage};

use crate::error::{Result, VidyaError};
use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// File name of the database inside the library folder.
pub const DB_FILE: &str = "library.sqlite3";

/// An open library.
#[derive(Debug)]
pub struct Library {
    pub(crate) conn: Connection,
    dir: PathBuf,
    db_path: PathBuf,
}

/// A book as listed by [`Library::books`].
#[derive(Debug, Clone, Serialize)]
pub struct BookInfo {
    /// Database id.
    pub id: i64,
    /// Title.
    pub title: String,
    /// ISO 639-1 language code (`en`, `hi`, `mr`, `kn`, `te`, `ta`, or `und`).
    pub language: String,
    /// sha256 of the file, or of the list of file hashes for a folder book (hex).
    pub sha256: String,
    /// The file or folder it was ingested from.
    pub source_path: String,
    /// Number of files (1 for a single PDF; chapter PDFs for a folder).
    pub file_count: i64,
    /// Number of chapters.
    pub chapter_count: i64,
    /// Number of pages.
    pub page_count: i64,
    /// Pages read by OCR (scanned, or in a font that could not be read).
    pub ocr_page_count: i64,
    /// Number of chunks.
    pub chunk_count: i64,
    /// `ready` once stored.
    pub status: String,
    /// Things the teacher should know (pages without text, skipped files).
    pub warnings: Vec<String>,
    /// When it was added (UTC, SQLite `datetime('now')` format).
    pub added_at: String,
}

/// A stored chunk with what a citation needs.
#[derive(Debug, Clone)]
pub struct ChunkRecord {
    /// Chunk id.
    pub id: i64,
    /// Book id.
    pub book_id: i64,
    /// Book title.
    pub book_title: String,
    /// Chapter title.
    pub chapter_title: String,
    /// Text.
    pub text: String,
    /// `(byte offset, page ordinal)` page changes inside the text.
    pub page_starts: Vec<(usize, usize)>,
    /// First page ordinal.
    pub first_page: usize,
    /// Last page ordinal.
    pub last_page: usize,
    /// What kind of text it holds.
    pub kind: crate::ingest::blocks::BlockKind,
    /// The section it is in (empty when unknown).
    pub context: String,
}

/// A stored page's location.
#[derive(Debug, Clone, Serialize)]
pub struct PageRecord {
    /// 1-based page number inside its file.
    pub pdf_page: u32,
    /// Printed page label.
    pub label: String,
    /// File name.
    pub file_name: String,
    /// File path.
    pub file_path: String,
    /// sha256 of the file as it was added (hex).
    pub file_sha256: String,
}

/// One chunk's stored BM25 terms, for building the in-memory index.
#[derive(Debug, Clone)]
pub struct TermsRow {
    /// Chunk id.
    pub chunk_id: i64,
    /// Book id.
    pub book_id: i64,
    /// Space-separated terms.
    pub terms: String,
    /// Number of terms.
    pub term_count: usize,
}

/// How long a library waits for another process that holds its lock (SQLite's busy timeout,
/// also the budget for switching the journal mode): 10 s, longer than one book's write
/// transaction on the slow laptops Vidya is for.
pub const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether `e` is SQLite's "database is locked" / "table is locked" (SQLITE_BUSY or
/// SQLITE_LOCKED, extended codes included).
fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
}

impl Library {
    /// The default library folder: `$VIDYA_LIBRARY` when set, else the per-user data folder
    /// (`~/.local/share/vidya/library` on Linux, `%APPDATA%\Vidya\Vidya\data\library` on Windows).
    pub fn default_dir() -> PathBuf {
        if let Some(p) =
            std::env::var_os("VIDYA_LIBRARY").filter(|p| !p.to_string_lossy().trim().is_empty())
        {
            return PathBuf::from(p);
        }
        crate::paths::data_dir().join("library")
    }

    /// Opens (creating if needed) the library in `dir`, applying pending schema migrations.
    ///
    /// Errors: the folder cannot be created, the database cannot be opened, or it was written by a
    /// newer schema ([`VidyaError::SchemaTooNew`]).
    pub fn open(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref().to_path_buf();
        if dir.is_file() {
            return Err(VidyaError::BadOption(format!(
                "the library path {} is a file, not a folder: choose a folder with --library",
                dir.display()
            )));
        }
        std::fs::create_dir_all(&dir).map_err(|e| VidyaError::io(&dir, e))?;
        let db_path = dir.join(DB_FILE);
        let conn = Connection::open(&db_path).map_err(|source| VidyaError::Database {
            path: db_path.clone(),
            source,
        })?;
        let mut lib = Self { conn, dir, db_path };
        lib.configure()?;
        lib.migrate()?;
        Ok(lib)
    }

    /// Opens the library in `dir` only if it exists (for commands that read: a mistyped path
    /// must not silently create an empty library). Errors: [`VidyaError::NoLibrary`].
    pub fn open_existing(dir: impl AsRef<Path>) -> Result<Self> {
        let dir = dir.as_ref();
        if dir.is_file() {
            return Self::open(dir); // names the problem: a file, not a folder
        }
        if !dir.join(DB_FILE).is_file() {
            return Err(VidyaError::NoLibrary {
                path: dir.to_path_buf(),
            });
        }
        Self::open(dir)
    }

    pub(crate) fn db_err(&self, source: rusqlite::Error) -> VidyaError {
        VidyaError::Database {
            path: self.db_path.clone(),
            source,
        }
    }

    fn configure(&mut self) -> Result<()> {
        // busy_timeout first: several Vidya processes may open a new library at once.
        self.conn
            .busy_timeout(BUSY_WAIT)
            .map_err(|e| self.db_err(e))?;
        let drive = drive::drive_kind(&self.dir);
        self.set_journal_mode(drive.journal_mode())?;
        self.conn
            .execute_batch(&format!(
                "{} PRAGMA foreign_keys = ON;",
                drive.sync_pragma()
            ))
            .map_err(|e| self.db_err(e))
    }

    /// Puts the database file in journal mode `want` ("wal" or "delete") unless it already is.
    ///
    /// Changing the mode needs the file to itself, and SQLite does not run the busy handler
    /// for `PRAGMA journal_mode` (it answers SQLITE_BUSY at once while another connection
    /// reads or writes: six `vidya ingest` processes creating one new library failed this way
    /// on CI). So the mode is read first (a persistent property of the file: after the first
    /// open nothing is changed and no lock is taken), and a refused change is tried again with
    /// a growing pause (5 → 100 ms) for up to [`BUSY_WAIT`]; another process finishing the
    /// change meanwhile counts as done. When the file is still in the other mode after that,
    /// the library works on in it and a warning says so.
    ///
    /// Errors: a database error other than "busy"; "database is locked" after [`BUSY_WAIT`].
    fn set_journal_mode(&self, want: &str) -> Result<()> {
        let deadline = std::time::Instant::now() + BUSY_WAIT;
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            let attempt = self.journal_mode().and_then(|now| {
                if now.eq_ignore_ascii_case(want) {
                    return Ok(now);
                }
                self.conn
                    .query_row(&format!("PRAGMA journal_mode = {want}"), [], |r| {
                        r.get::<_, String>(0)
                    })
            });
            let last = match attempt {
                Ok(mode) if mode.eq_ignore_ascii_case(want) => return Ok(()),
                Ok(mode) => Ok(mode),
                Err(e) if is_busy(&e) => Err(e),
                Err(e) => return Err(self.db_err(e)),
            };
            if std::time::Instant::now() >= deadline {
                return match last {
                    Ok(mode) => {
                        tracing::warn!(
                            "the library stays in journal mode {mode} (wanted {want}): another program kept it open"
                        );
                        Ok(())
                    }
                    Err(e) => Err(self.db_err(e)),
                };
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(100));
        }
    }

    fn migrate(&mut self) -> Result<()> {
        let version = self.schema_version()?;
        if version > schema::SCHEMA_VERSION {
            return Err(VidyaError::SchemaTooNew {
                path: self.db_path.clone(),
                found: version,
                known: schema::SCHEMA_VERSION,
            });
        }
        if version == schema::SCHEMA_VERSION {
            return self.ensure_word_index();
        }
        // One writer at a time: take the write lock first, then re-read the version, so that a
        // second process opening the same new library waits and then finds it migrated.
        let db_path = self.db_path.clone();
        let err = |source| VidyaError::Database {
            path: db_path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        let current: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(err)?;
        for (i, sql) in schema::MIGRATIONS
            .iter()
            .enumerate()
            .skip(current.max(0) as usize)
        {
            tx.execute_batch(sql).map_err(err)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)
                .map_err(err)?;
        }
        tx.commit().map_err(err)?;
        Ok(())
    }

    /// Creates the word index's tables again when one was dropped (by hand, or by a tool):
    /// without them no question could be answered and no book added. The books lose nothing:
    /// [`postings::repair`] indexes them again from their stored terms when the index is
    /// opened. One read of the schema when nothing is missing.
    fn ensure_word_index(&self) -> Result<()> {
        // The table's columns in order ("" when it does not exist): a table of that name
        // with other columns is no word index.
        let columns = |table: &str| -> Result<String> {
            self.conn
                .query_row(
                    "SELECT COALESCE(group_concat(name, ','), '') FROM pragma_table_info(?1)",
                    [table],
                    |r| r.get(0),
                )
                .map_err(|e| self.db_err(e))
        };
        let [postings, index, books] = schema::BM25_OBJECTS;
        let (p, b) = (columns(postings)?, columns(books)?);
        let has_index: bool = self
            .conn
            .query_row(
                "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?1)",
                [index],
                |r| r.get(0),
            )
            .map_err(|e| self.db_err(e))?;
        let (p_ok, b_ok) = (
            p == schema::BM25_POSTINGS_COLUMNS,
            b == schema::BM25_BOOKS_COLUMNS,
        );
        if p_ok && b_ok && has_index {
            return Ok(());
        }
        let mut sql = String::from("BEGIN IMMEDIATE;");
        if !p_ok || !b_ok {
            tracing::warn!("the word index's tables were missing or not Vidya's: created again; the books are indexed again from their stored text");
            // A table without its partner, or of another shape, holds nothing trustworthy:
            // both start again and every book is indexed again when the index opens.
            sql.push_str("DROP TABLE IF EXISTS bm25_postings; DROP TABLE IF EXISTS bm25_books;");
        } else {
            tracing::warn!("the word index's lookup by book was missing: created again");
        }
        sql.push_str(schema::BM25_TABLES);
        sql.push_str("COMMIT;");
        self.conn.execute_batch(&sql).map_err(|e| self.db_err(e))
    }

    /// The database file's journal mode as SQLite names it ("wal", "delete", …).
    fn journal_mode(&self) -> rusqlite::Result<String> {
        self.conn.query_row("PRAGMA journal_mode", [], |r| r.get(0))
    }

    /// The schema version stored in the database (`PRAGMA user_version`).
    pub fn schema_version(&self) -> Result<i64> {
        self.conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.db_err(e))
    }

    /// The library folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The database file.
    pub fn db_path(&self) -> &Path {
        &self.db_path
    }

    /// The id of the book with this content hash, if stored.
    pub fn book_by_sha(&self, sha256: &str) -> Result<Option<i64>> {
        self.conn
            .query_row("SELECT id FROM books WHERE sha256 = ?1", [sha256], |r| {
                r.get(0)
            })
            .optional()
            .map_err(|e| self.db_err(e))
    }

    /// All books, oldest first.
    pub fn books(&self) -> Result<Vec<BookInfo>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT b.id, b.title, b.language, b.sha256, b.source_path, b.page_count, b.chunk_count,
                        b.status, b.warnings, b.added_at,
                        (SELECT COUNT(*) FROM files f WHERE f.book_id = b.id),
                        (SELECT COUNT(*) FROM chapters c WHERE c.book_id = b.id),
                        (SELECT COUNT(*) FROM ocr_pages o WHERE o.book_id = b.id)
                 FROM books b ORDER BY b.id",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([], |r| {
                let warnings: String = r.get(8)?;
                Ok(BookInfo {
                    id: r.get(0)?,
                    title: r.get(1)?,
                    language: r.get(2)?,
                    sha256: r.get(3)?,
                    source_path: r.get(4)?,
                    page_count: r.get(5)?,
                    chunk_count: r.get(6)?,
                    status: r.get(7)?,
                    warnings: serde_json::from_str(&warnings).unwrap_or_default(),
                    added_at: r.get(9)?,
                    file_count: r.get(10)?,
                    chapter_count: r.get(11)?,
                    ocr_page_count: r.get(12)?,
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// One book by id ([`VidyaError::NoSuchBook`] when absent).
    pub fn book(&self, id: i64) -> Result<BookInfo> {
        self.books()?
            .into_iter()
            .find(|b| b.id == id)
            .ok_or(VidyaError::NoSuchBook(id))
    }

    /// Deletes a book and everything stored for it, in one transaction.
    pub fn delete_book(&mut self, id: i64) -> Result<()> {
        insert::keep_chunk_id_high_water(&self.conn).map_err(|e| self.db_err(e))?;
        let n = self
            .conn
            .execute("DELETE FROM books WHERE id = ?1", [id])
            .map_err(|e| self.db_err(e))?;
        if n == 0 {
            return Err(VidyaError::NoSuchBook(id));
        }
        self.conn
            .execute("DELETE FROM answer_cache", [])
            .map_err(|e| self.db_err(e))?;
        Ok(())
    }

    /// Counts of (books, pages, chunks) in the library.
    pub fn counts(&self) -> Result<(i64, i64, i64)> {
        self.conn
            .query_row(
                "SELECT (SELECT COUNT(*) FROM books), (SELECT COUNT(*) FROM pages), (SELECT COUNT(*) FROM chunks)",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| self.db_err(e))
    }

    /// Every chunk's stored BM25 terms (for [`crate::search::Bm25Index::load`]).
    pub fn all_terms(&self) -> Result<Vec<TermsRow>> {
        let mut st = self
            .conn
            .prepare("SELECT id, book_id, terms, term_count FROM chunks ORDER BY id")
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(TermsRow {
                    chunk_id: r.get(0)?,
                    book_id: r.get(1)?,
                    terms: r.get(2)?,
                    term_count: r.get::<_, i64>(3)? as usize,
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// A chunk with its book and chapter titles.
    pub fn chunk(&self, id: i64) -> Result<Option<ChunkRecord>> {
        self.conn
            .query_row(
                "SELECT c.id, c.book_id, b.title, ch.title, c.text, c.page_starts, c.first_page, c.last_page,
                        c.kind, c.context
                 FROM chunks c JOIN books b ON b.id = c.book_id JOIN chapters ch ON ch.id = c.chapter_id
                 WHERE c.id = ?1",
                [id],
                |r| {
                    let starts: String = r.get(5)?;
                    Ok(ChunkRecord {
                        id: r.get(0)?,
                        book_id: r.get(1)?,
                        book_title: r.get(2)?,
                        chapter_title: r.get(3)?,
                        text: r.get(4)?,
                        page_starts: serde_json::from_str(&starts).unwrap_or_default(),
                        first_page: r.get::<_, i64>(6)? as usize,
                        last_page: r.get::<_, i64>(7)? as usize,
                        kind: crate::ingest::blocks::BlockKind::parse(&r.get::<_, String>(8)?),
                        context: r.get(9)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.db_err(e))
    }

    /// A page's location and printed label.
    pub fn page(&self, book_id: i64, ordinal: usize) -> Result<Option<PageRecord>> {
        self.conn
            .query_row(
                "SELECT p.pdf_page, p.label, f.name, f.path, f.sha256 FROM pages p JOIN files f ON f.id = p.file_id
                 WHERE p.book_id = ?1 AND p.ordinal = ?2",
                params![book_id, ordinal as i64],
                |r| {
                    Ok(PageRecord {
                        pdf_page: r.get(0)?,
                        label: r.get(1)?,
                        file_name: r.get(2)?,
                        file_path: r.get(3)?,
                        file_sha256: r.get(4)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.db_err(e))
    }

    /// The words OCR read on page `ordinal` of book `book_id`, with their boxes (see
    /// [`crate::ingest::ocr::boxes`]); empty for a page with its own text layer.
    pub fn ocr_words(
        &self,
        book_id: i64,
        ordinal: usize,
    ) -> Result<Vec<crate::ingest::ocr::OcrWord>> {
        let json: Option<String> = self
            .conn
            .query_row(
                "SELECT words FROM ocr_pages WHERE book_id = ?1 AND ordinal = ?2",
                params![book_id, ordinal as i64],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.db_err(e))?;
        Ok(json
            .map(|j| crate::ingest::ocr::boxes::decode(&j))
            .unwrap_or_default())
    }

    /// Books (id, title) that already hold a file with this sha256.
    pub fn books_with_file(&self, sha256: &str) -> Result<Vec<(i64, String)>> {
        let mut st = self
            .conn
            .prepare("SELECT DISTINCT b.id, b.title FROM files f JOIN books b ON b.id = f.book_id WHERE f.sha256 = ?1")
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([sha256], |r| Ok((r.get(0)?, r.get(1)?)))
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// File names (not paths) of every stored book file.
    pub fn file_names(&self) -> Result<std::collections::HashSet<String>> {
        let mut st = self
            .conn
            .prepare("SELECT DISTINCT name FROM files")
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// SQLite's `PRAGMA integrity_check` result: `"ok"` for a healthy database.
    pub fn integrity_check(&self) -> Result<String> {
        self.conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .map_err(|e| self.db_err(e))
    }

    /// A page's stored text.
    pub fn page_text(&self, book_id: i64, ordinal: usize) -> Result<Option<String>> {
        self.conn
            .query_row(
                "SELECT text FROM pages WHERE book_id = ?1 AND ordinal = ?2",
                params![book_id, ordinal as i64],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.db_err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Many connections opening one new library at once all succeed and leave it in WAL: the
    /// journal-mode switch is the one step SQLite's busy handler does not cover (CI once failed
    /// "database is locked" with six `vidya ingest` processes on a new library).
    #[test]
    fn many_processes_opening_a_new_library_at_once_all_get_it() {
        for _ in 0..8 {
            let dir = tempfile::tempdir().unwrap();
            let start = std::sync::Arc::new(std::sync::Barrier::new(12));
            let threads: Vec<_> = (0..12)
                .map(|_| {
                    let (dir, start) = (dir.path().to_path_buf(), start.clone());
                    std::thread::spawn(move || {
                        start.wait();
                        Library::open(&dir).map(|lib| lib.schema_version().unwrap())
                    })
                })
                .collect();
            for t in threads {
                let version = t.join().unwrap().unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(version, schema::SCHEMA_VERSION);
            }
            let lib = Library::open(dir.path()).unwrap();
            assert_eq!(lib.journal_mode().unwrap(), "wal");
        }
    }

    /// A file left in the rollback journal (an older Vidya, or a copy from a network share) is
    /// switched to WAL on a local disk when opened.
    #[test]
    fn a_library_in_the_rollback_journal_is_switched_to_wal() {
        let dir = tempfile::tempdir().unwrap();
        drop(Library::open(dir.path()).unwrap());
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        let mode: String = conn
            .query_row("PRAGMA journal_mode = delete", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "delete");
        drop(conn);
        let lib = Library::open(dir.path()).unwrap();
        assert_eq!(lib.journal_mode().unwrap(), "wal");
    }
}
