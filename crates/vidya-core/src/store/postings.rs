//! The BM25 word index on disk: postings per (term, book) in SQLite, written in the book's own
//! transaction ([`super::Library::insert_book`]) and read per query term by
//! [`crate::search::Bm25Index`], so nothing is rebuilt at start and nothing but the query's
//! terms is read.
//!
//! Tables (schema v6):
//! - `bm25_postings(term, book_id, df, postings)`: for each folded term
//!   ([`crate::text::tokenize::fold_variants`]) and book, `df` chunks of the book hold it and
//!   `postings` lists them, by ascending chunk id, as three unsigned LEB128 varints each: the
//!   chunk id's difference to the previous one (the first: to 0), the term's count in the chunk
//!   (tf), and the chunk's length in terms (dl, for BM25's length normalisation).
//! - `bm25_books(book_id, chunks, terms)`: the chunks and terms indexed for each book. A book
//!   whose row is missing or disagrees with its stored chunks (a library from before v6, or a
//!   damaged index) is indexed again from the stored terms by [`repair`].
//!
//! Deleting or re-indexing a book removes its rows by `ON DELETE CASCADE`, in the same
//! transaction as its chunks, so a crash leaves the index and the chunks consistent.

use rusqlite::{params, Connection};
use std::collections::BTreeMap;

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
    /// The encoded postings ([`decode`]).
    pub postings: Vec<u8>,
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
        "INSERT INTO bm25_postings (term, book_id, df, postings) VALUES (?1, ?2, ?3, ?4)",
    )?;
    for (term, mut postings) in by_term {
        postings.sort_unstable_by_key(|p| p.chunk_id);
        st.execute(params![
            term,
            book_id,
            postings.len() as i64,
            encode(&postings)
        ])?;
    }
    conn.execute(
        "INSERT INTO bm25_books (book_id, chunks, terms) VALUES (?1, ?2, ?3)",
        params![book_id, n, total],
    )?;
    Ok(())
}

/// The rows of `term` (already folded), one per book holding it.
pub fn term_rows(conn: &Connection, term: &str) -> rusqlite::Result<Vec<TermRow>> {
    let mut st =
        conn.prepare_cached("SELECT book_id, df, postings FROM bm25_postings WHERE term = ?1")?;
    let rows = st.query_map([term], |r| {
        Ok(TermRow {
            book_id: r.get(0)?,
            df: r.get::<_, i64>(1)?.clamp(0, i64::from(u32::MAX)) as u32,
            postings: r.get(2)?,
        })
    })?;
    rows.collect()
}

/// Chunks holding `term` (already folded) in the whole library.
pub fn doc_freq(conn: &Connection, term: &str) -> rusqlite::Result<u64> {
    conn.prepare_cached("SELECT COALESCE(SUM(df), 0) FROM bm25_postings WHERE term = ?1")?
        .query_row([term], |r| r.get::<_, i64>(0))
        .map(|v| v.max(0) as u64)
}

/// Chunks and terms indexed in the whole library: `(N, Σ dl)`.
pub fn totals(conn: &Connection) -> rusqlite::Result<(u64, u64)> {
    conn.query_row(
        "SELECT COALESCE(SUM(chunks), 0), COALESCE(SUM(terms), 0) FROM bm25_books",
        [],
        |r| {
            Ok((
                r.get::<_, i64>(0)?.max(0) as u64,
                r.get::<_, i64>(1)?.max(0) as u64,
            ))
        },
    )
}

/// Marks book `book_id`'s index as damaged: [`repair`] indexes it again at the next load.
pub fn mark_damaged(conn: &Connection, book_id: i64) -> rusqlite::Result<()> {
    conn.execute("DELETE FROM bm25_books WHERE book_id = ?1", [book_id])
        .map(|_| ())
}

/// Indexes again every book whose index is missing or disagrees with its stored chunks (a
/// library from before the on-disk index, a damaged or interrupted index), each in its own
/// transaction, from the terms stored with its chunks. Returns the titles of the books
/// indexed again.
pub fn repair(conn: &Connection) -> rusqlite::Result<Vec<String>> {
    let stale: Vec<(i64, String)> = {
        let mut st = conn.prepare(
            "SELECT b.id, b.title
             FROM books b
             LEFT JOIN (SELECT book_id, COUNT(*) AS n FROM chunks GROUP BY book_id) c ON c.book_id = b.id
             LEFT JOIN bm25_books x ON x.book_id = b.id
             WHERE COALESCE(c.n, 0) > 0 AND (x.chunks IS NULL OR x.chunks != c.n)
             ORDER BY b.id",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    let mut done = Vec::with_capacity(stale.len());
    for (book_id, title) in stale {
        let tx = conn.unchecked_transaction()?;
        tx.execute("DELETE FROM bm25_postings WHERE book_id = ?1", [book_id])?;
        tx.execute("DELETE FROM bm25_books WHERE book_id = ?1", [book_id])?;
        let chunks: Vec<(i64, String)> = {
            let mut st =
                tx.prepare("SELECT id, terms FROM chunks WHERE book_id = ?1 ORDER BY id")?;
            let rows = st.query_map([book_id], |r| Ok((r.get(0)?, r.get(1)?)))?;
            rows.collect::<rusqlite::Result<_>>()?
        };
        write_book(&tx, book_id, chunks.iter().map(|(id, t)| (*id, t.as_str())))?;
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
