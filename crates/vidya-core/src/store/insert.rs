//! Writing one book: every row (book, files, chapters, pages, chunks, word postings, vectors,
//! vocabulary) in one SQLite transaction, so a failure or a crash leaves the library as it
//! was ([`Library::insert_book`]).

use super::{postings, sentences, vectors, Library};
use crate::error::{Result, VidyaError};
use rusqlite::{params, Transaction};

/// A file of a book, to be stored.
#[derive(Debug, Clone)]
pub struct NewFile {
    /// Absolute path it was read from.
    pub path: String,
    /// File name shown in citations.
    pub name: String,
    /// sha256 (hex).
    pub sha256: String,
    /// Pages in the file.
    pub page_count: usize,
}

/// A chapter, to be stored; pages are book-level ordinals (0-based, inclusive).
#[derive(Debug, Clone)]
pub struct NewChapter {
    /// Title.
    pub title: String,
    /// First page ordinal.
    pub first_page: usize,
    /// Last page ordinal.
    pub last_page: usize,
}

/// A page, to be stored.
#[derive(Debug, Clone)]
pub struct NewPage {
    /// Index into [`NewBook::files`].
    pub file: usize,
    /// Index into [`NewBook::chapters`].
    pub chapter: usize,
    /// 1-based page number inside its file.
    pub pdf_page: u32,
    /// Printed page label ("154", "xii"), or the page number when none is printed.
    pub label: String,
    /// Normalised page text.
    pub text: String,
    /// What OCR read on this page (with the words' boxes), for a page read by OCR.
    pub ocr: Option<crate::ingest::ocr::PageOcr>,
}

/// A chunk, to be stored.
#[derive(Debug, Clone)]
pub struct NewChunk {
    /// Index into [`NewBook::chapters`].
    pub chapter: usize,
    /// First page ordinal it covers.
    pub first_page: usize,
    /// Last page ordinal it covers.
    pub last_page: usize,
    /// Text.
    pub text: String,
    /// `(byte offset in text, page ordinal)` for every place the page changes; the first entry is
    /// at offset 0.
    pub page_starts: Vec<(usize, usize)>,
    /// BM25 terms from [`crate::text::Tokenizer::terms`].
    pub terms: Vec<String>,
    /// Estimated tokens ([`crate::text::estimate_tokens`]).
    pub token_count: usize,
    /// Dense vector from [`NewBook::embedding_model`] (unit length), when one was computed.
    pub vector: Option<Vec<f32>>,
    /// What kind of text it holds.
    pub kind: crate::ingest::blocks::BlockKind,
    /// The section it is in (empty when unknown).
    pub context: String,
    /// Unit vectors of its sentences ([`crate::retrieve::prune::chunk_sentences`] order) from
    /// [`NewBook::embedding_model`], when computed.
    pub sentence_vectors: Option<Vec<Vec<f32>>>,
}

/// Everything about one book, ready to be written in one transaction.
#[derive(Debug, Clone)]
pub struct NewBook {
    /// Title.
    pub title: String,
    /// ISO 639-1 code.
    pub language: String,
    /// sha256 identifying the book's content.
    pub sha256: String,
    /// The file or folder it came from.
    pub source_path: String,
    /// Files.
    pub files: Vec<NewFile>,
    /// Chapters.
    pub chapters: Vec<NewChapter>,
    /// Pages in book order.
    pub pages: Vec<NewPage>,
    /// Chunks in book order.
    pub chunks: Vec<NewChunk>,
    /// Warnings for the teacher.
    pub warnings: Vec<String>,
    /// The embedder that computed the chunks' vectors ([`crate::embed::Embedder::model_id`]).
    pub embedding_model: Option<String>,
    /// A stored book this one replaces (re-indexing): it is deleted in the same transaction
    /// (so a failure or crash keeps the old one) and the new one takes its id.
    pub replaces: Option<i64>,
}

/// For tests: a book of one file and one chapter whose chunk i lies on page i (printed label
/// i + 1), stored under `title` and content hash `sha256`.
#[cfg(test)]
pub(crate) fn test_book(
    title: &str,
    sha256: &str,
    chunks: Vec<NewChunk>,
    embedding_model: Option<String>,
    replaces: Option<i64>,
) -> NewBook {
    let n = chunks.len();
    NewBook {
        title: title.into(),
        language: "en".into(),
        sha256: sha256.into(),
        source_path: "test".into(),
        files: vec![NewFile {
            path: "test".into(),
            name: format!("{title}.txt"),
            sha256: sha256.into(),
            page_count: n,
        }],
        chapters: vec![NewChapter {
            title: "Chapter 1".into(),
            first_page: 0,
            last_page: n - 1,
        }],
        pages: (0..n)
            .map(|i| NewPage {
                file: 0,
                chapter: 0,
                pdf_page: i as u32 + 1,
                label: (i + 1).to_string(),
                text: String::new(),
                ocr: None,
            })
            .collect(),
        chunks,
        warnings: Vec::new(),
        embedding_model,
        replaces,
    }
}

impl Library {
    /// Writes a whole book in one transaction and returns its id. A book that
    /// [`NewBook::replaces`] another is deleted and written again under the old id, so stored
    /// citations (book id + page) still work. Answers cached before are dropped (they may now
    /// be incomplete).
    ///
    /// `before_commit` runs inside the transaction after every row is written and before the
    /// commit (ingest uses it for progress and tests use it to kill the process at that point).
    ///
    /// Errors: [`VidyaError::NoSuchBook`] when the replaced book is gone; database errors (then
    /// nothing was written).
    pub fn insert_book(&mut self, book: &NewBook, before_commit: impl FnOnce()) -> Result<i64> {
        let db_path = self.db_path.clone();
        let err = |source| VidyaError::Database {
            path: db_path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        if let Some(old) = book.replaces {
            keep_chunk_id_high_water(&tx).map_err(err)?;
            if tx
                .execute("DELETE FROM books WHERE id = ?1", [old])
                .map_err(err)?
                == 0
            {
                return Err(VidyaError::NoSuchBook(old));
            }
        }
        let book_id = write_rows(&tx, book).map_err(err)?;
        before_commit();
        tx.commit().map_err(err)?;
        Ok(book_id)
    }
}

/// Every row of `book`, in `tx`: its id.
fn write_rows(tx: &Transaction, book: &NewBook) -> rusqlite::Result<i64> {
    let book_id = insert_book_row(tx, book)?;
    let file_ids = insert_files(tx, book_id, &book.files)?;
    let chapter_ids = insert_chapters(tx, book_id, &book.chapters)?;
    insert_pages(tx, book_id, &book.pages, &file_ids, &chapter_ids)?;
    let chunk_ids = insert_chunks(tx, book_id, &book.chunks, &chapter_ids)?;
    let terms: Vec<String> = book.chunks.iter().map(|c| c.terms.join(" ")).collect();
    postings::write_book(
        tx,
        book_id,
        chunk_ids
            .iter()
            .copied()
            .zip(terms.iter().map(String::as_str)),
    )?;
    if let Some(model) = &book.embedding_model {
        insert_vectors(tx, model, &chunk_ids, &book.chunks)?;
        vectors::write_centroids(tx, model, &chapter_ids)?;
    }
    insert_vocabulary(tx, book_id, &book.chunks)?;
    tx.execute("DELETE FROM answer_cache", [])?;
    Ok(book_id)
}

/// The `books` row (with the replaced book's id, when re-indexing): its id.
fn insert_book_row(tx: &Transaction, book: &NewBook) -> rusqlite::Result<i64> {
    tx.execute(
        "INSERT INTO books (id, title, language, sha256, source_path, page_count, chunk_count, status, warnings)
         VALUES (?8, ?1, ?2, ?3, ?4, ?5, ?6, 'ready', ?7)",
        params![
            book.title,
            book.language,
            book.sha256,
            book.source_path,
            book.pages.len() as i64,
            book.chunks.len() as i64,
            serde_json::to_string(&book.warnings).unwrap_or_else(|_| "[]".into()),
            book.replaces,
        ],
    )?;
    Ok(tx.last_insert_rowid())
}

/// The `files` rows: their ids, in order.
fn insert_files(tx: &Transaction, book_id: i64, files: &[NewFile]) -> rusqlite::Result<Vec<i64>> {
    let mut st = tx.prepare(
        "INSERT INTO files (book_id, ordinal, path, name, sha256, page_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut ids = Vec::with_capacity(files.len());
    for (i, f) in files.iter().enumerate() {
        st.execute(params![
            book_id,
            i as i64,
            f.path,
            f.name,
            f.sha256,
            f.page_count as i64
        ])?;
        ids.push(tx.last_insert_rowid());
    }
    Ok(ids)
}

/// The `chapters` rows: their ids, in order.
fn insert_chapters(
    tx: &Transaction,
    book_id: i64,
    chapters: &[NewChapter],
) -> rusqlite::Result<Vec<i64>> {
    let mut st = tx.prepare(
        "INSERT INTO chapters (book_id, ordinal, title, first_page, last_page) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut ids = Vec::with_capacity(chapters.len());
    for (i, c) in chapters.iter().enumerate() {
        st.execute(params![
            book_id,
            i as i64,
            c.title,
            c.first_page as i64,
            c.last_page as i64
        ])?;
        ids.push(tx.last_insert_rowid());
    }
    Ok(ids)
}

/// The `pages` rows, each pointing at its file's and chapter's row.
fn insert_pages(
    tx: &Transaction,
    book_id: i64,
    pages: &[NewPage],
    file_ids: &[i64],
    chapter_ids: &[i64],
) -> rusqlite::Result<()> {
    let mut st = tx.prepare(
        "INSERT INTO pages (book_id, ordinal, file_id, chapter_id, pdf_page, label, text) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for (i, p) in pages.iter().enumerate() {
        st.execute(params![
            book_id,
            i as i64,
            file_ids[p.file],
            chapter_ids[p.chapter],
            p.pdf_page,
            p.label,
            p.text
        ])?;
    }
    let mut st = tx.prepare(
        "INSERT INTO ocr_pages (book_id, ordinal, language, confidence, words) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (i, p) in pages.iter().enumerate() {
        if let Some(ocr) = &p.ocr {
            st.execute(params![
                book_id,
                i as i64,
                ocr.language,
                ocr.confidence as f64,
                crate::ingest::ocr::boxes::encode(&ocr.words)
            ])?;
        }
    }
    Ok(())
}

/// The `counters` row holding the highest chunk id ever given out (see [`insert_chunks`]).
pub const CHUNK_ID_HIGH_WATER: &str = "chunk_id_high_water";

/// Records the highest chunk id stored so far in [`CHUNK_ID_HIGH_WATER`] before chunks are
/// removed, so their ids are not given out again even in a library written before the mark
/// existed ([`insert_chunks`]).
pub(crate) fn keep_chunk_id_high_water(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute(
        "INSERT INTO counters (name, value) SELECT ?1, COALESCE(MAX(id), 0) FROM chunks WHERE true
         ON CONFLICT(name) DO UPDATE SET value = MAX(value, excluded.value)",
        [CHUNK_ID_HIGH_WATER],
    )?;
    Ok(())
}

/// The `chunks` rows: their ids, in order.
///
/// Ids are never given out twice, even after the newest book was removed (SQLite alone would
/// reuse its ids: `chunks.id` is a plain `INTEGER PRIMARY KEY`). The HNSW index file
/// ([`crate::search::dense`]) tells whether it still matches the database by the count, the
/// highest and the sum of the chunk ids it holds; a reused id would let it keep a removed
/// chunk's vector for the new chunk with that id. The highest id given out is kept in
/// [`CHUNK_ID_HIGH_WATER`], in the same transaction.
fn insert_chunks(
    tx: &Transaction,
    book_id: i64,
    chunks: &[NewChunk],
    chapter_ids: &[i64],
) -> rusqlite::Result<Vec<i64>> {
    let first: i64 = tx.query_row(
        "SELECT MAX(COALESCE((SELECT MAX(id) FROM chunks), 0),
                    COALESCE((SELECT value FROM counters WHERE name = ?1), 0)) + 1",
        [CHUNK_ID_HIGH_WATER],
        |r| r.get(0),
    )?;
    let mut st = tx.prepare(
        "INSERT INTO chunks (book_id, chapter_id, ordinal, first_page, last_page, text, page_starts, terms, term_count, token_count, kind, context, id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
    )?;
    let mut ids = Vec::with_capacity(chunks.len());
    for (i, c) in chunks.iter().enumerate() {
        let id = first + i as i64;
        st.execute(params![
            book_id,
            chapter_ids[c.chapter],
            i as i64,
            c.first_page as i64,
            c.last_page as i64,
            c.text,
            serde_json::to_string(&c.page_starts).unwrap_or_else(|_| "[]".into()),
            c.terms.join(" "),
            c.terms.len() as i64,
            c.token_count as i64,
            c.kind.as_str(),
            c.context,
            id
        ])?;
        ids.push(id);
    }
    if let Some(last) = ids.last() {
        tx.execute(
            "INSERT INTO counters (name, value) VALUES (?1, ?2)
             ON CONFLICT(name) DO UPDATE SET value = MAX(value, excluded.value)",
            params![CHUNK_ID_HIGH_WATER, last],
        )?;
    }
    Ok(ids)
}

/// The chunks' vectors and sentence vectors from `model`, for the chunks that have them.
fn insert_vectors(
    tx: &Transaction,
    model: &str,
    chunk_ids: &[i64],
    chunks: &[NewChunk],
) -> rusqlite::Result<()> {
    let mut st =
        tx.prepare("INSERT INTO chunk_vectors (chunk_id, model, vector) VALUES (?1, ?2, ?3)")?;
    for (id, c) in chunk_ids.iter().zip(chunks) {
        if let Some(v) = &c.vector {
            st.execute(params![id, model, vectors::encode(v)])?;
        }
    }
    let mut st =
        tx.prepare("INSERT INTO sentence_vectors (chunk_id, model, vectors) VALUES (?1, ?2, ?3)")?;
    for (id, c) in chunk_ids.iter().zip(chunks) {
        if let Some(v) = &c.sentence_vectors {
            st.execute(params![id, model, sentences::encode(v)])?;
        }
    }
    Ok(())
}

/// The book's word counts, for the question normaliser's typo correction.
fn insert_vocabulary(tx: &Transaction, book_id: i64, chunks: &[NewChunk]) -> rusqlite::Result<()> {
    let mut st = tx.prepare("INSERT INTO vocabulary (book_id, word, count) VALUES (?1, ?2, ?3)")?;
    let counts = crate::text::vocabulary::word_counts(chunks.iter().map(|c| c.text.as_str()));
    for (word, count) in counts {
        st.execute(params![book_id, word, count])?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::blocks::BlockKind;

    fn book(sha: &str, text: &str) -> NewBook {
        NewBook {
            title: "Science".into(),
            language: "en".into(),
            sha256: sha.into(),
            source_path: "/books/science".into(),
            files: vec![NewFile {
                path: "/books/science/ch1.txt".into(),
                name: "ch1.txt".into(),
                sha256: sha.into(),
                page_count: 2,
            }],
            chapters: vec![NewChapter {
                title: "Light".into(),
                first_page: 0,
                last_page: 1,
            }],
            pages: (0..2)
                .map(|i| NewPage {
                    file: 0,
                    chapter: 0,
                    pdf_page: i + 1,
                    label: format!("{}", 150 + i),
                    text: text.into(),
                    ocr: None,
                })
                .collect(),
            chunks: vec![NewChunk {
                chapter: 0,
                first_page: 0,
                last_page: 1,
                text: text.into(),
                page_starts: vec![(0, 0), (10, 1)],
                terms: vec!["light".into(), "travel".into()],
                token_count: 12,
                vector: None,
                kind: BlockKind::Body,
                context: "Light".into(),
                sentence_vectors: None,
            }],
            warnings: vec!["page 2 has little text".into()],
            embedding_model: None,
            replaces: None,
        }
    }

    #[test]
    fn a_book_is_written_whole_and_replaced_under_its_id() {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        let id = lib
            .insert_book(&book("a1", "Light travels in straight lines."), || {})
            .unwrap();
        let info = lib.book(id).unwrap();
        assert_eq!((info.page_count, info.chunk_count), (2, 1));
        assert_eq!(info.warnings, ["page 2 has little text"]);
        assert_eq!(lib.page(id, 1).unwrap().unwrap().label, "151");
        let chunk_id = lib.all_terms().unwrap()[0].chunk_id;
        let chunk = lib.chunk(chunk_id).unwrap().unwrap();
        assert_eq!(chunk.page_starts, [(0, 0), (10, 1)]);
        assert_eq!(
            lib.books_with_file("a1").unwrap(),
            [(id, "Science".to_string())]
        );
        // Re-indexing keeps the id and replaces every row.
        let again = NewBook {
            replaces: Some(id),
            ..book("a2", "Light bends when it enters water.")
        };
        assert_eq!(lib.insert_book(&again, || {}).unwrap(), id);
        assert_eq!(lib.books().unwrap().len(), 1);
        assert!(lib.page_text(id, 0).unwrap().unwrap().contains("bends"));
        assert!(lib.books_with_file("a1").unwrap().is_empty());
    }

    /// A book removed while its chunks were being embedded (`vidya serve` making vectors
    /// again at start-up while a teacher deletes the book): the vectors that arrive for its
    /// chunks are skipped, and the others are stored.
    #[test]
    fn vectors_of_a_removed_book_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        let gone = lib.insert_book(&book("c1", "Heat flows."), || {}).unwrap();
        let gone_chunk = lib.all_terms().unwrap()[0].chunk_id;
        lib.insert_book(&book("c2", "Light travels."), || {})
            .unwrap();
        lib.delete_book(gone).unwrap();
        let kept = lib.all_terms().unwrap()[0].chunk_id;
        assert_ne!(kept, gone_chunk);
        assert_eq!(lib.chunks_to_embed_count("m").unwrap(), 1);
        let v = vec![0.6f32, 0.8];
        lib.put_chunk_vectors("m", &[(gone_chunk, v.clone()), (kept, v.clone())])
            .unwrap();
        let stored: Vec<i64> = lib
            .chunk_vectors_after("m", 0)
            .unwrap()
            .into_iter()
            .map(|(id, _)| id)
            .collect();
        assert_eq!(stored, [kept]);
        assert_eq!(lib.missing_vector_count("m").unwrap(), 0);
        // The chunk still lacks its sentence vectors until they are stored too.
        assert_eq!(lib.chunks_to_embed_count("m").unwrap(), 1);
        lib.put_sentence_vectors("m", &[(gone_chunk, vec![v.clone()]), (kept, vec![v])])
            .unwrap();
        assert_eq!(lib.chunks_to_embed_count("m").unwrap(), 0);
    }

    /// The newest book removed and another added: its chunks get new ids, so the HNSW index
    /// file cannot take the removed chunks' vectors for theirs; the same when a book that
    /// was added last is read again.
    #[test]
    fn chunk_ids_are_never_given_out_twice() {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        lib.insert_book(&book("d1", "Heat flows."), || {}).unwrap();
        let newest = lib
            .insert_book(&book("d2", "Light travels."), || {})
            .unwrap();
        let ids = |lib: &Library| -> Vec<i64> {
            let mut ids: Vec<i64> = lib
                .all_terms()
                .unwrap()
                .iter()
                .map(|t| t.chunk_id)
                .collect();
            ids.sort();
            ids.dedup();
            ids
        };
        let removed = *ids(&lib).last().unwrap();
        lib.delete_book(newest).unwrap();
        let again = lib
            .insert_book(&book("d3", "Sound echoes."), || {})
            .unwrap();
        let added = *ids(&lib).last().unwrap();
        assert!(added > removed, "{added} reuses {removed}");
        // Read again under its id: new chunk ids too.
        let reread = NewBook {
            replaces: Some(again),
            ..book("d4", "Sound echoes off walls.")
        };
        lib.insert_book(&reread, || {}).unwrap();
        let reread_id = *ids(&lib).last().unwrap();
        assert!(reread_id > added);
        assert_eq!(lib.counter(CHUNK_ID_HIGH_WATER).unwrap(), reread_id);
        // A library from before the mark: the removal records it.
        let newest = lib
            .insert_book(&book("d5", "Magnets attract."), || {})
            .unwrap();
        let magnet = *ids(&lib).last().unwrap();
        lib.conn
            .execute(
                "DELETE FROM counters WHERE name = ?1",
                [CHUNK_ID_HIGH_WATER],
            )
            .unwrap();
        lib.delete_book(newest).unwrap();
        lib.insert_book(&book("d6", "Ice melts."), || {}).unwrap();
        assert!(*ids(&lib).last().unwrap() > magnet);
    }

    #[test]
    fn a_failed_write_leaves_the_library_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        // The book to replace is gone.
        let gone = NewBook {
            replaces: Some(42),
            ..book("b1", "Sound is a vibration.")
        };
        assert!(matches!(
            lib.insert_book(&gone, || {}),
            Err(VidyaError::NoSuchBook(42))
        ));
        // A second book with the same content: the unique hash stops it, nothing half-written.
        lib.insert_book(&book("b1", "Sound is a vibration."), || {})
            .unwrap();
        let e = lib
            .insert_book(&book("b1", "Sound is a vibration."), || {})
            .unwrap_err();
        assert!(matches!(e, VidyaError::Database { .. }), "{e}");
        assert_eq!(lib.counts().unwrap().0, 1);
        assert_eq!(lib.all_terms().unwrap().len(), 1);
    }
}
