//! The library's SQLite schema and its migrations (`PRAGMA user_version` holds the version).

/// The word index's tables as of v7 (`store::postings`), each created only if missing: the
/// last migration, and the repair of a library whose index tables were dropped.
/// `check` comes before the postings blob so that reading it never reads the blob.
macro_rules! bm25_tables {
    () => {
        r#"
    CREATE TABLE IF NOT EXISTS bm25_postings (
        term      TEXT NOT NULL,
        book_id   INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        df        INTEGER NOT NULL,
        "check"   INTEGER NOT NULL,
        postings  BLOB NOT NULL,
        PRIMARY KEY (term, book_id)
    ) WITHOUT ROWID;
    CREATE INDEX IF NOT EXISTS bm25_postings_book ON bm25_postings(book_id);
    CREATE TABLE IF NOT EXISTS bm25_books (
        book_id  INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
        chunks   INTEGER NOT NULL,
        terms    INTEGER NOT NULL,
        rows     INTEGER NOT NULL,
        "check"  INTEGER NOT NULL
    );
    "#
    };
}

/// Migrations in order; migration `i` (0-based) brings the schema from version `i` to `i + 1`.
pub const MIGRATIONS: &[&str] = &[
    // v1: books, their files, chapters, pages and chunks.
    r#"
    CREATE TABLE books (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        title        TEXT NOT NULL,
        language     TEXT NOT NULL,
        sha256       TEXT NOT NULL UNIQUE,
        source_path  TEXT NOT NULL,
        page_count   INTEGER NOT NULL,
        chunk_count  INTEGER NOT NULL,
        status       TEXT NOT NULL,
        warnings     TEXT NOT NULL DEFAULT '[]',
        added_at     TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE files (
        id          INTEGER PRIMARY KEY,
        book_id     INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        ordinal     INTEGER NOT NULL,
        path        TEXT NOT NULL,
        name        TEXT NOT NULL,
        sha256      TEXT NOT NULL,
        page_count  INTEGER NOT NULL
    );
    CREATE INDEX files_book ON files(book_id);
    CREATE TABLE chapters (
        id           INTEGER PRIMARY KEY,
        book_id      INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        ordinal      INTEGER NOT NULL,
        title        TEXT NOT NULL,
        first_page   INTEGER NOT NULL,
        last_page    INTEGER NOT NULL
    );
    CREATE INDEX chapters_book ON chapters(book_id);
    CREATE TABLE pages (
        book_id     INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        ordinal     INTEGER NOT NULL,
        file_id     INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
        chapter_id  INTEGER NOT NULL REFERENCES chapters(id) ON DELETE CASCADE,
        pdf_page    INTEGER NOT NULL,
        label       TEXT NOT NULL,
        text        TEXT NOT NULL,
        PRIMARY KEY (book_id, ordinal)
    ) WITHOUT ROWID;
    CREATE TABLE chunks (
        id           INTEGER PRIMARY KEY,
        book_id      INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        chapter_id   INTEGER NOT NULL REFERENCES chapters(id) ON DELETE CASCADE,
        ordinal      INTEGER NOT NULL,
        first_page   INTEGER NOT NULL,
        last_page    INTEGER NOT NULL,
        text         TEXT NOT NULL,
        page_starts  TEXT NOT NULL,
        terms        TEXT NOT NULL,
        term_count   INTEGER NOT NULL,
        token_count  INTEGER NOT NULL
    );
    CREATE INDEX chunks_book ON chunks(book_id);
    "#,
    // v2: conversation memory, the answer cache and usage counters.
    r#"
    CREATE TABLE conversations (
        id          INTEGER PRIMARY KEY AUTOINCREMENT,
        title       TEXT NOT NULL,
        created_at  TEXT NOT NULL DEFAULT (datetime('now')),
        updated_at  TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE turns (
        id               INTEGER PRIMARY KEY,
        conversation_id  INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
        ordinal          INTEGER NOT NULL,
        question         TEXT NOT NULL,
        query            TEXT NOT NULL,
        answer           TEXT NOT NULL,
        citations        TEXT NOT NULL,
        mode             TEXT NOT NULL,
        language         TEXT NOT NULL,
        model            TEXT,
        status           TEXT NOT NULL,
        timings          TEXT NOT NULL,
        created_at       TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE INDEX turns_conversation ON turns(conversation_id, ordinal);
    CREATE TABLE answer_cache (
        key         TEXT PRIMARY KEY,
        response    TEXT NOT NULL,
        hits        INTEGER NOT NULL DEFAULT 0,
        created_at  TEXT NOT NULL DEFAULT (datetime('now'))
    );
    CREATE TABLE counters (
        name   TEXT PRIMARY KEY,
        value  INTEGER NOT NULL
    );
    "#,
    // v3: dense vectors (multilingual-e5-small) per chunk and per chapter (centroids), and
    // library-wide settings. Vectors are little-endian f32 blobs; `model` names the embedder
    // that wrote them, so vectors from another model are detected as stale.
    r#"
    CREATE TABLE chunk_vectors (
        chunk_id  INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        model     TEXT NOT NULL,
        vector    BLOB NOT NULL
    );
    CREATE TABLE chapter_vectors (
        chapter_id  INTEGER PRIMARY KEY REFERENCES chapters(id) ON DELETE CASCADE,
        model       TEXT NOT NULL,
        vector      BLOB NOT NULL
    );
    CREATE INDEX chunks_chapter ON chunks(chapter_id);
    "#,
    // v4: per-turn token figures for the dashboard (context sent vs the full-page baseline).
    r#"
    ALTER TABLE turns ADD COLUMN context_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE turns ADD COLUMN page_tokens INTEGER NOT NULL DEFAULT 0;
    "#,
    // v5: what kind of text a chunk holds (`body`, or boilerplate such as `objectives`,
    // `figure`, `summary`: see `ingest::blocks`) and the section it is in; per-sentence vectors
    // of each chunk for the sentence pruner and the rescoring stage (`store::sentences`); each
    // book's words with their counts, for correcting misspelt questions (`retrieve::query`).
    // Chunks stored before v5 read as body text without a section until re-indexed.
    r#"
    ALTER TABLE chunks ADD COLUMN kind TEXT NOT NULL DEFAULT 'body';
    ALTER TABLE chunks ADD COLUMN context TEXT NOT NULL DEFAULT '';
    CREATE TABLE sentence_vectors (
        chunk_id  INTEGER PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
        model     TEXT NOT NULL,
        vectors   BLOB NOT NULL
    );
    CREATE TABLE vocabulary (
        book_id  INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        word     TEXT NOT NULL,
        count    INTEGER NOT NULL,
        PRIMARY KEY (book_id, word)
    ) WITHOUT ROWID;
    "#,
    // v6: the BM25 word index on disk (`store::postings`): postings per term and book, and
    // what was indexed per book. Libraries from before v6 are indexed from their stored terms
    // at the next load.
    r#"
    CREATE TABLE bm25_postings (
        term      TEXT NOT NULL,
        book_id   INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        df        INTEGER NOT NULL,
        postings  BLOB NOT NULL,
        PRIMARY KEY (term, book_id)
    ) WITHOUT ROWID;
    CREATE INDEX bm25_postings_book ON bm25_postings(book_id);
    CREATE TABLE bm25_books (
        book_id  INTEGER PRIMARY KEY REFERENCES books(id) ON DELETE CASCADE,
        chunks   INTEGER NOT NULL,
        terms    INTEGER NOT NULL
    );
    "#,
    // v7: checksums in the word index (a row's own, and a book's over its rows), so damage
    // is found; the index is built again from the stored terms at the next load.
    concat!(
        "DROP TABLE IF EXISTS bm25_postings; DROP TABLE IF EXISTS bm25_books;",
        bm25_tables!()
    ),
    // v8: who asked each question in classroom mode (`store::class_report`): the name the
    // student typed when joining, the device (its network address), when (Unix seconds), and
    // the start of the class session; gone with its turn (a deleted conversation).
    r#"
    CREATE TABLE class_questions (
        turn_id        INTEGER PRIMARY KEY REFERENCES turns(id) ON DELETE CASCADE,
        student        TEXT NOT NULL,
        device         TEXT NOT NULL,
        asked_at       INTEGER NOT NULL,
        class_started  INTEGER
    );
    CREATE INDEX class_questions_time ON class_questions(asked_at);
    "#,
    // v9: pages read by OCR (`ingest::ocr`): the language model that read each, its mean word
    // confidence (0–100), and its words with their boxes (JSON `[[text, left, top, right,
    // bottom], …]`, fractions of the page in thousandths) for highlighting quotes on the scan;
    // gone with its book.
    r#"
    CREATE TABLE ocr_pages (
        book_id     INTEGER NOT NULL REFERENCES books(id) ON DELETE CASCADE,
        ordinal     INTEGER NOT NULL,
        language    TEXT NOT NULL,
        confidence  REAL NOT NULL,
        words       TEXT NOT NULL,
        PRIMARY KEY (book_id, ordinal)
    ) WITHOUT ROWID;
    "#,
];

/// [`bm25_tables`] as one statement batch.
pub const BM25_TABLES: &str = bm25_tables!();

/// The columns of `bm25_postings` as [`BM25_TABLES`] creates them, in order.
pub const BM25_POSTINGS_COLUMNS: &str = "term,book_id,df,check,postings";

/// The columns of `bm25_books` as [`BM25_TABLES`] creates them, in order.
pub const BM25_BOOKS_COLUMNS: &str = "book_id,chunks,terms,rows,check";

/// The objects [`BM25_TABLES`] creates: a library missing one of them gets them again.
pub const BM25_OBJECTS: [&str; 3] = ["bm25_postings", "bm25_postings_book", "bm25_books"];

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;
