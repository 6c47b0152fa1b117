//! The BM25 word index on disk: postings per (term, book) in SQLite, written in the book's own
//! transaction ([`super::Library::insert_book`]) and read per query term by
//! [`crate::search::Bm25Index`], so nothing is rebuilt at start and nothing but the query's
//! terms is read.
//!
//! Tables (schema v7, [`super::schema::BM25_TABLES`]):
//! - `bm25_postings(term, book_id, df, check, postings)`: for each folded term
//!   ([`crate::text::tokenize::fold_variants`]) and book, `df` chunks of the book hold it and
//!   `postings` lists them, by ascending chunk id, as three unsigned LEB128 varints each: the
//!   chunk id's difference to the previous one (the first: to 0), the term's count in the chunk
//!   (tf), and the chunk's length in terms (dl, for BM25's length normalisation). `check` is
//!   the row's [`row_check`], tested whenever the row is read ([`TermRow::intact`]).
//! - `bm25_books(book_id, chunks, terms, rows, check)`: the chunks, terms and rows indexed for
//!   each book, and [`book_check`] over them and the rows' checks.
//!
//! Damage is found three ways: a book with chunks but no `bm25_books` row (a library from
//! before v7, an interrupted repair) is indexed again when the index is opened ([`repair`]); a
//! row whose check or encoding is wrong is found when a question reads it; a book whose rows,
//! counts or totals disagree with its `bm25_books` row (a row deleted or changed, chunks added
//! behind the index's back) is found by [`verify`], which runs beside the questions after
//! every load. Either of the last two indexes the book again beside the questions
//! ([`rebuild`]), never on a question's path. Tables dropped by hand are created again when
//! the library is opened ([`super::Library::open`]).
//!
//! Deleting or re-indexing a book removes its rows by `ON DELETE CASCADE`, in the same
//! transaction as its chunks, so a crash leaves the index and the chunks consistent.

use rusqlite::{params, Connection, OptionalExtension};
use std::collections::{BTreeMap, HashMap};

/// One chunk's entry in a term's postings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Posting {
    /// Chunk id.
    pub chunk_id: i64,
    /// Times the term occurs in the chunk.
    pub tf: u32,
    /// The chunk's length (terms).
    pub dl: u32,
}

/// The postings of one term in one book, as stored.
#[derive(Debug, Clone)]
pub struct TermRow {
    /// Book id.
    pub book_id: i64,
    /// Chunks of the book holding the term.
    pub df: u32,
    /// The row's stored [`row_check`].
    pub check: i64,
    /// The encoded postings ([`decode`]).
    pub postings: Vec<u8>,
}

impl TermRow {
    /// The row's postings when the row is intact (its check matches, its bytes decode to `df`
    /// postings); `None` when it is damaged.
    pub fn intact(&self, term: &str) -> Option<Vec<Posting>> {
        if row_check(term, self.book_id, self.df, &self.postings) != self.check {
            return None;
        }
        decode(&self.postings).filter(|p| p.len() == self.df as usize)
    }
}

/// FNV-1a, 64-bit (Fowler, Noll, Vo: <http://www.isthe.com/chongo/tech/comp/fnv/>), over
/// `bytes`, continuing from `h`.
fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// FNV-1a's offset basis.
const FNV_BASIS: u64 = 0xcbf2_9ce4_8422_2325;

/// The check of one `bm25_postings` row: FNV-1a over the term, the book id, `df` and the
/// postings bytes (a guard against damage, not against tampering).
pub fn row_check(term: &str, book_id: i64, df: u32, postings: &[u8]) -> i64 {
    let mut h = fnv1a(FNV_BASIS, term.as_bytes());
    h = fnv1a(h, &[0xff]);
    h = fnv1a(h, &book_id.to_le_bytes());
    h = fnv1a(h, &df.to_le_bytes());
    fnv1a(h, postings) as i64
}

/// The check of a book's `bm25_books` row: FNV-1a over its chunks, terms and rows and the
/// wrapping sum of its rows' checks (so it does not depend on the rows' order).
pub fn book_check(chunks: i64, terms: i64, rows: i64, row_checks: i64) -> i64 {
    let mut h = FNV_BASIS;
    for v in [chunks, terms, rows, row_checks] {
        h = fnv1a(h, &v.to_le_bytes());
    }
    h as i64
}

fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn read_varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = *bytes.get(*at)?;
        *at += 1;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some(v);
        }
    }
    None
}

/// Encodes postings sorted by ascending chunk id.
pub fn encode(postings: &[Posting]) -> Vec<u8> {
    let mut out = Vec::with_capacity(postings.len() * 4);
    let mut last = 0i64;
    for p in postings {
        push_varint(&mut out, (p.chunk_id - last).max(0) as u64);
        push_varint(&mut out, u64::from(p.tf));
        push_varint(&mut out, u64::from(p.dl));
        last = p.chunk_id;
    }
    out
}

/// Decodes what [`encode`] wrote. `None` when the bytes are damaged (truncated, a varint too
/// long, a count that does not fit).
pub fn decode(bytes: &[u8]) -> Option<Vec<Posting>> {
    let mut out = Vec::with_capacity(bytes.len() / 4);
    let (mut at, mut last) = (0usize, 0i64);
    while at < bytes.len() {
        let delta = read_varint(bytes, &mut at)?;
        let tf = u32::try_from(read_varint(bytes, &mut at)?).ok()?;
        let dl = u32::try_from(read_varint(bytes, &mut at)?).ok()?;
        last = last.checked_add(i64::try_from(delta).ok()?)?;
        out.push(Posting {
            chunk_id: last,
            tf,
            dl,
        });
    }
    Some(out)
}

/// Writes the index rows of book `book_id` from its chunks' terms (`(chunk id, terms)`, terms
/// as stored: space-separated). Call inside the transaction that writes the chunks.
pub fn write_book<'a>(
    conn: &Connection,
    book_id: i64,
    chunks: impl Iterator<Item = (i64, &'a str)>,
) -> rusqlite::Result<()> {
    let mut by_term: BTreeMap<String, Vec<Posting>> = BTreeMap::new();
    let (mut n, mut total) = (0i64, 0i64);
    for (chunk_id, terms) in chunks {
        let folded: Vec<std::borrow::Cow<str>> = terms
            .split(' ')
            .filter(|t| !t.is_empty())
            .map(crate::text::tokenize::fold_variants)
            .collect();
        let dl = folded.len() as u32;
        let mut tf: BTreeMap<&str, u32> = BTreeMap::new();
        for t in &folded {
            *tf.entry(t.as_ref()).or_default() += 1;
        }
        for (t, count) in tf {
            by_term.entry(t.to_string()).or_default().push(Posting {
                chunk_id,
                tf: count,
                dl,
            });
        }
        n += 1;
        total += i64::from(dl);
    }
    let mut st = conn.prepare_cached(
        "INSERT INTO bm25_postings (term, book_id, df, \"check\", postings) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let (mut rows, mut checks) = (0i64, 0i64);
    for (term, mut postings) in by_term {
        postings.sort_unstable_by_key(|p| p.chunk_id);
        let df = postings.len() as u32;
        let bytes = encode(&postings);
        let check = row_check(&term, book_id, df, &bytes);
        st.execute(params![term, book_id, i64::from(df), check, bytes])?;
        rows += 1;
        checks = checks.wrapping_add(check);
    }
    conn.execute(
        "INSERT INTO bm25_books (book_id, chunks, terms, rows, \"check\") VALUES (?1, ?2, ?3, ?4, ?5)",
        params![book_id, n, total, rows, book_check(n, total, rows, checks)],
    )?;
    Ok(())
}

/// The rows of `term` (already folded), one per book holding it.
pub fn term_rows(conn: &Connection, term: &str) -> rusqlite::Result<Vec<TermRow>> {
    // Only rows of books in the library; a value of the wrong type reads as damage (the
    // row's check fails), not as an error that would drop the term for every book.
    let mut st = conn.prepare_cached(
        "SELECT p.book_id, p.df, p.\"check\", p.postings FROM bm25_postings p
         WHERE p.term = ?1 AND typeof(p.book_id) = 'integer'
           AND EXISTS (SELECT 1 FROM books b WHERE b.id = p.book_id)",
    )?;
    let rows = st.query_map([term], |r| {
        use rusqlite::types::Value;
        let int = |i: usize| match r.get::<_, Value>(i) {
            Ok(Value::Integer(v)) => Some(v),
            _ => None,
        };
        let (df, check) = (int(1), int(2));
        let postings = match r.get::<_, Value>(3)? {
            Value::Blob(b) => Some(b),
            _ => None,
        };
        let intact = df.is_some() && check.is_some() && postings.is_some();
        Ok(TermRow {
            book_id: r.get(0)?,
            df: df.unwrap_or(0).clamp(0, i64::from(u32::MAX)) as u32,
            // A row with a value of the wrong type can never pass its check.
            check: if intact { check.unwrap_or(0) } else { i64::MIN },
            postings: postings.unwrap_or_default(),
        })
    })?;
    rows.collect()
}

/// Chunks holding `term` (already folded) in the whole library.
pub fn doc_freq(conn: &Connection, term: &str) -> rusqlite::Result<u64> {
    conn.prepare_cached(
        "SELECT COALESCE(SUM(CASE WHEN typeof(p.df) = 'integer' THEN p.df END), 0)
         FROM bm25_postings p
         WHERE p.term = ?1 AND EXISTS (SELECT 1 FROM books b WHERE b.id = p.book_id)",
    )?
    .query_row([term], |r| r.get::<_, i64>(0))
    .map(|v| v.max(0) as u64)
}

/// Chunks and terms indexed in the whole library: `(N, Σ dl)`.
pub fn totals(conn: &Connection) -> rusqlite::Result<(u64, u64)> {
    conn.query_row(
        "SELECT COALESCE(SUM(x.chunks), 0), COALESCE(SUM(x.terms), 0) FROM bm25_books x
         WHERE typeof(x.chunks) = 'integer' AND typeof(x.terms) = 'integer'
           AND EXISTS (SELECT 1 FROM books b WHERE b.id = x.book_id)",
        [],
        |r| {
            Ok((
                r.get::<_, i64>(0)?.max(0) as u64,
                r.get::<_, i64>(1)?.max(0) as u64,
            ))
        },
    )
}

/// Indexes again every book that has chunks but no `bm25_books` row (a library from before
/// v7, a repair that was interrupted), each in its own transaction, from the terms stored with
/// its chunks. Returns the titles of the books indexed again. Reads only the books and
/// `bm25_books` tables when nothing is missing.
pub fn repair(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let missing: Vec<i64> = {
        let mut st = conn.prepare(
            "SELECT b.id FROM books b
             WHERE NOT EXISTS (SELECT 1 FROM bm25_books x WHERE x.book_id = b.id
                   AND typeof(x.chunks) = 'integer' AND typeof(x.terms) = 'integer'
                   AND typeof(x.rows) = 'integer' AND typeof(x.\"check\") = 'integer')
               AND EXISTS (SELECT 1 FROM chunks c WHERE c.book_id = b.id)
             ORDER BY b.id",
        )?;
        let rows = st.query_map([], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    rebuild(conn, &missing)
}

/// The books whose index disagrees with what it says of itself or with the stored chunks:
/// rows missing, added or changed since the book was indexed (their count or the sum of
/// their checks), the `bm25_books` row altered (its [`book_check`]), a value of the wrong
/// type, or a number of chunks that is not the book's. Rows whose book id is not a number
/// are removed here (no book can be indexed again for them). Reads every row's check (not the postings), so it takes about a
/// second on a school's shelf: it runs beside the questions ([`crate::search::Bm25Index`]).
pub fn verify(conn: &Connection) -> rusqlite::Result<Vec<i64>> {
    use rusqlite::types::Value;
    let int = |v: Value| match v {
        Value::Integer(i) => Some(i),
        _ => None,
    };
    // (book id, [chunks, terms, rows, check] when all are integers, chunks stored).
    type BookRow = (i64, Option<[i64; 4]>, i64);
    let books: Vec<BookRow> = {
        let mut st = conn.prepare(
            "SELECT x.book_id, x.chunks, x.terms, x.rows, x.\"check\",
                    (SELECT COUNT(*) FROM chunks c WHERE c.book_id = x.book_id)
             FROM bm25_books x ORDER BY x.book_id",
        )?;
        let rows = st.query_map([], |r| {
            let v = [r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?].map(int);
            let all = match v {
                [Some(a), Some(b), Some(c), Some(d)] => Some([a, b, c, d]),
                _ => None,
            };
            Ok((r.get(0)?, all, r.get(5)?))
        })?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    // One pass over the table in its own order (a scan reads each page once; a lookup per
    // book through the book_id index would read them in random order). A row whose check is
    // not an integer marks its book; one whose book id is not an integer is removed.
    let mut found: HashMap<i64, (i64, i64)> = HashMap::new();
    let mut bad_type: Vec<i64> = Vec::new();
    let mut stray = false;
    {
        let mut st = conn.prepare(
            "SELECT book_id, \"check\", typeof(df) = 'integer' AND typeof(postings) = 'blob'
             FROM bm25_postings",
        )?;
        let mut q = st.query([])?;
        while let Some(r) = q.next()? {
            let Some(book) = int(r.get(0)?) else {
                stray = true;
                continue;
            };
            let e = found.entry(book).or_default();
            e.0 += 1;
            match (int(r.get(1)?), r.get::<_, bool>(2)?) {
                (Some(check), true) => e.1 = e.1.wrapping_add(check),
                _ => bad_type.push(book),
            }
        }
    }
    if stray {
        conn.execute(
            "DELETE FROM bm25_postings WHERE typeof(book_id) != 'integer'",
            [],
        )?;
    }
    let mut damaged = bad_type;
    for (book_id, stored, stored_chunks) in books {
        let (n, sum) = found.remove(&book_id).unwrap_or_default();
        let intact = stored.is_some_and(|[chunks, terms, rows, check]| {
            chunks == stored_chunks && n == rows && book_check(chunks, terms, rows, sum) == check
        });
        if !intact {
            damaged.push(book_id);
        }
    }
    // Rows of a book the index does not list (its bm25_books row was lost, or rows of a
    // book that is gone): indexed again, or removed.
    damaged.extend(found.into_keys());
    damaged.sort_unstable();
    damaged.dedup();
    Ok(damaged)
}

/// Indexes books `ids` again from the terms stored with their chunks, each in its own
/// transaction (the rows of an id that is no book are removed). Returns their titles.
pub fn rebuild(conn: &Connection, ids: &[i64]) -> rusqlite::Result<Vec<String>> {
    let mut done = Vec::with_capacity(ids.len());
    for &book_id in ids {
        // IMMEDIATE: two processes mending at once wait for each other instead of failing.
        let tx =
            rusqlite::Transaction::new_unchecked(conn, rusqlite::TransactionBehavior::Immediate)?;
        let title: Option<String> = tx
            .query_row("SELECT title FROM books WHERE id = ?1", [book_id], |r| {
                r.get(0)
            })
            .optional()?;
        tx.execute("DELETE FROM bm25_postings WHERE book_id = ?1", [book_id])?;
        tx.execute("DELETE FROM bm25_books WHERE book_id = ?1", [book_id])?;
        let Some(title) = title else {
            // Rows of a book that is gone: removed.
            tx.commit()?;
            continue;
        };
        let chunks: Vec<(i64, String)> = {
            let mut st =
                tx.prepare("SELECT id, terms FROM chunks WHERE book_id = ?1 ORDER BY id")?;
            let rows = st.query_map([book_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        if !chunks.is_empty() {
            write_book(&tx, book_id, chunks.iter().map(|(id, t)| (*id, t.as_str())))?;
        }
        tx.commit()?;
        done.push(title);
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_round_trip_and_damage_is_detected() {
        let p = vec![
            Posting {
                chunk_id: 3,
                tf: 1,
                dl: 120,
            },
            Posting {
                chunk_id: 300,
                tf: 7,
                dl: 5000,
            },
            Posting {
                chunk_id: 1 << 40,
                tf: 2,
                dl: 1,
            },
        ];
        let bytes = encode(&p);
        assert_eq!(decode(&bytes).unwrap(), p);
        assert_eq!(decode(&[]).unwrap(), Vec::new());
        // Cut in the middle of an entry, or a varint that never ends.
        assert!(decode(&bytes[..bytes.len() - 1]).is_none());
        assert!(decode(&[0xff; 12]).is_none());
    }
}
