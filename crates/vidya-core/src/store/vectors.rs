//! Dense vectors in the library database: one per chunk (`chunk_vectors`) and one per chapter
//! (`chapter_vectors`, the normalised mean of its chunks' vectors, for the curriculum router).
//!
//! Vectors are stored as little-endian `f32` blobs together with the id of the model that
//! wrote them ([`crate::embed::Embedder::model_id`]). The HNSW index
//! ([`crate::search::DenseIndex`]) is a cache rebuilt from these rows, so a crash between the
//! database commit and the index save never loses anything.

use super::Library;
use crate::error::Result;
use rusqlite::{params, OptionalExtension};

/// Encodes a vector as little-endian `f32` bytes (4 bytes per dimension).
pub fn encode(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// Decodes [`encode`]'s bytes; trailing bytes that do not make a whole `f32` are ignored.
pub fn decode(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// L2-normalises `v` in place (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n > 0.0 {
        v.iter_mut().for_each(|x| *x /= n);
    }
}

/// The normalised mean of `vectors` (all of the same width), or `None` for none.
pub fn centroid<'a>(vectors: impl IntoIterator<Item = &'a [f32]>) -> Option<Vec<f32>> {
    let mut sum: Option<Vec<f32>> = None;
    for v in vectors {
        let s = sum.get_or_insert_with(|| vec![0.0; v.len()]);
        s.iter_mut().zip(v).for_each(|(a, b)| *a += b);
    }
    sum.map(|mut s| {
        normalize(&mut s);
        s
    })
}

/// A stored chunk that lacks vectors from a model ([`Library::chunks_to_embed`]).
#[derive(Debug, Clone)]
pub struct ChunkToEmbed {
    /// Chunk id.
    pub id: i64,
    /// Its text.
    pub text: String,
    /// Its section (empty when unknown).
    pub context: String,
    /// It has no chunk vector from the model.
    pub lacks_vector: bool,
    /// It has no sentence vectors from the model.
    pub lacks_sentences: bool,
}

/// Where a chunk sits: its book and chapter, and what kind of text it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkLocation {
    /// Chunk id.
    pub chunk_id: i64,
    /// Book id.
    pub book_id: i64,
    /// Chapter id.
    pub chapter_id: i64,
    /// Body text or a kind of boilerplate.
    pub kind: crate::ingest::blocks::BlockKind,
}

/// A chapter with its centroid vector.
#[derive(Debug, Clone)]
pub struct ChapterVector {
    /// Chapter id.
    pub chapter_id: i64,
    /// Book id.
    pub book_id: i64,
    /// Chapter title.
    pub title: String,
    /// Unit vector.
    pub vector: Vec<f32>,
}

/// Identifies the set of chunk ids holding vectors of one model: `(count, max id, sum of ids)`.
/// The HNSW index stores the fingerprint it was built from; a different one means stale.
pub type Fingerprint = (i64, i64, i64);

impl Library {
    /// Every chunk's book and chapter, by chunk id.
    pub fn chunk_locations(&self) -> Result<Vec<ChunkLocation>> {
        let mut st = self
            .conn
            .prepare("SELECT id, book_id, chapter_id, kind FROM chunks ORDER BY id")
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(ChunkLocation {
                    chunk_id: r.get(0)?,
                    book_id: r.get(1)?,
                    chapter_id: r.get(2)?,
                    kind: crate::ingest::blocks::BlockKind::parse(&r.get::<_, String>(3)?),
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// Chunks lacking their vector or their sentence vectors from `model`, in id order.
    pub fn chunks_to_embed(&self, model: &str) -> Result<Vec<ChunkToEmbed>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT c.id, c.text, c.context, v.chunk_id IS NULL, s.chunk_id IS NULL FROM chunks c
                 LEFT JOIN chunk_vectors v ON v.chunk_id = c.id AND v.model = ?1
                 LEFT JOIN sentence_vectors s ON s.chunk_id = c.id AND s.model = ?1
                 WHERE v.chunk_id IS NULL OR s.chunk_id IS NULL ORDER BY c.id",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([model], |r| {
                Ok(ChunkToEmbed {
                    id: r.get(0)?,
                    text: r.get(1)?,
                    context: r.get(2)?,
                    lacks_vector: r.get(3)?,
                    lacks_sentences: r.get(4)?,
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// Number of chunks that lack their vector or their sentence vectors from `model` (those
    /// [`Library::chunks_to_embed`] lists).
    pub fn chunks_to_embed_count(&self, model: &str) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM chunks c
                 LEFT JOIN chunk_vectors v ON v.chunk_id = c.id AND v.model = ?1
                 LEFT JOIN sentence_vectors s ON s.chunk_id = c.id AND s.model = ?1
                 WHERE v.chunk_id IS NULL OR s.chunk_id IS NULL",
                [model],
                |r| r.get(0),
            )
            .map_err(|e| self.db_err(e))
    }

    /// Number of chunks without a vector from `model`.
    pub fn missing_vector_count(&self, model: &str) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM chunks c
                 LEFT JOIN chunk_vectors v ON v.chunk_id = c.id AND v.model = ?1
                 WHERE v.chunk_id IS NULL",
                [model],
                |r| r.get(0),
            )
            .map_err(|e| self.db_err(e))
    }

    /// See [`Fingerprint`].
    pub fn vector_fingerprint(&self, model: &str) -> Result<Fingerprint> {
        self.conn
            .query_row(
                "SELECT COUNT(*), COALESCE(MAX(chunk_id), 0), COALESCE(SUM(chunk_id), 0)
                 FROM chunk_vectors WHERE model = ?1",
                [model],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .map_err(|e| self.db_err(e))
    }

    /// Vectors of `model` for the chunks `ids` that have one, by chunk id.
    pub fn chunk_vectors_of(
        &self,
        model: &str,
        ids: &[i64],
    ) -> Result<std::collections::HashMap<i64, Vec<f32>>> {
        let mut st = self
            .conn
            .prepare_cached("SELECT vector FROM chunk_vectors WHERE model = ?1 AND chunk_id = ?2")
            .map_err(|e| self.db_err(e))?;
        let mut out = std::collections::HashMap::with_capacity(ids.len());
        for &id in ids {
            let v: Option<Vec<u8>> = st
                .query_row(params![model, id], |r| r.get(0))
                .optional()
                .map_err(|e| self.db_err(e))?;
            if let Some(bytes) = v {
                out.insert(id, decode(&bytes));
            }
        }
        Ok(out)
    }

    /// Vectors of `model` for chunks with id > `after`, as `(chunk id, vector)` in id order.
    pub fn chunk_vectors_after(&self, model: &str, after: i64) -> Result<Vec<(i64, Vec<f32>)>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT chunk_id, vector FROM chunk_vectors WHERE model = ?1 AND chunk_id > ?2
                 ORDER BY chunk_id",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map(params![model, after], |r| {
                Ok((r.get(0)?, decode(&r.get::<_, Vec<u8>>(1)?)))
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// Stores chunk vectors of `model` (replacing older ones) and recomputes the centroids of
    /// every chapter they belong to, in one transaction. The vector of a chunk that is no longer
    /// stored (its book was removed while it was embedded) is skipped.
    pub fn put_chunk_vectors(&mut self, model: &str, vectors: &[(i64, Vec<f32>)]) -> Result<()> {
        let db_path = self.db_path.clone();
        let err = |source| crate::error::VidyaError::Database {
            path: db_path.clone(),
            source,
        };
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(err)?;
        {
            let mut st = tx
                .prepare(
                    "INSERT OR REPLACE INTO chunk_vectors (chunk_id, model, vector)
                     SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?1)",
                )
                .map_err(err)?;
            for (id, v) in vectors {
                st.execute(params![id, model, encode(v)]).map_err(err)?;
            }
        }
        let chapters: Vec<i64> = {
            let mut st = tx
                .prepare("SELECT DISTINCT chapter_id FROM chunks WHERE id = ?1")
                .map_err(err)?;
            let mut out = std::collections::BTreeSet::new();
            for (id, _) in vectors {
                let c: Option<i64> = st
                    .query_row([id], |r| r.get(0))
                    .map(Some)
                    .or_else(|e| match e {
                        rusqlite::Error::QueryReturnedNoRows => Ok(None),
                        e => Err(e),
                    })
                    .map_err(err)?;
                out.extend(c);
            }
            out.into_iter().collect()
        };
        write_centroids(&tx, model, &chapters).map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(())
    }

    /// Ids of the chapters holding PDF pages `a..=b` of the file named `file_name`.
    pub fn chapters_of_pages(
        &self,
        file_name: &str,
        a: u32,
        b: u32,
    ) -> Result<std::collections::HashSet<i64>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT DISTINCT p.chapter_id FROM pages p JOIN files f ON f.id = p.file_id
                 WHERE f.name = ?1 AND p.pdf_page BETWEEN ?2 AND ?3",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map(params![file_name, a, b], |r| r.get(0))
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<_, _>>()
            .map_err(|e| self.db_err(e))
    }

    /// Deletes every stored vector (chunks and chapters), for a full reindex.
    pub fn delete_vectors(&mut self) -> Result<()> {
        self.conn
            .execute_batch(
                "DELETE FROM chunk_vectors; DELETE FROM chapter_vectors; DELETE FROM sentence_vectors;",
            )
            .map_err(|e| self.db_err(e))
    }

    /// Chapter centroids of `model` with their book and title.
    pub fn chapter_vectors(&self, model: &str) -> Result<Vec<ChapterVector>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT ch.id, ch.book_id, ch.title, v.vector FROM chapter_vectors v
                 JOIN chapters ch ON ch.id = v.chapter_id WHERE v.model = ?1 ORDER BY ch.id",
            )
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([model], |r| {
                Ok(ChapterVector {
                    chapter_id: r.get(0)?,
                    book_id: r.get(1)?,
                    title: r.get(2)?,
                    vector: decode(&r.get::<_, Vec<u8>>(3)?),
                })
            })
            .map_err(|e| self.db_err(e))?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| self.db_err(e))
    }
}

/// Recomputes the centroid of each chapter in `chapters` from its chunks' vectors of `model`.
pub(crate) fn write_centroids(
    tx: &rusqlite::Transaction<'_>,
    model: &str,
    chapters: &[i64],
) -> rusqlite::Result<()> {
    let mut read = tx.prepare(
        "SELECT v.vector FROM chunk_vectors v JOIN chunks c ON c.id = v.chunk_id
         WHERE c.chapter_id = ?1 AND v.model = ?2",
    )?;
    let mut write = tx.prepare(
        "INSERT OR REPLACE INTO chapter_vectors (chapter_id, model, vector) VALUES (?1, ?2, ?3)",
    )?;
    for &ch in chapters {
        let vs: Vec<Vec<f32>> = read
            .query_map(params![ch, model], |r| Ok(decode(&r.get::<_, Vec<u8>>(0)?)))?
            .collect::<rusqlite::Result<_>>()?;
        if let Some(c) = centroid(vs.iter().map(Vec::as_slice)) {
            write.execute(params![ch, model, encode(&c)])?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_round_trip_and_centroids_are_unit() {
        let v = vec![0.5f32, -1.25, 3.0];
        assert_eq!(decode(&encode(&v)), v);
        let c = centroid([&[1.0f32, 0.0][..], &[0.0, 1.0][..]]).unwrap();
        assert!((c[0] - std::f32::consts::FRAC_1_SQRT_2).abs() < 1e-6);
        assert!(centroid(std::iter::empty::<&[f32]>()).is_none());
    }
}
