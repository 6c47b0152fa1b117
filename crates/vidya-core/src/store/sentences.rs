//! Per-sentence vectors of each chunk (`sentence_vectors`), computed once at ingest so that the
//! sentence pruner and the rescoring stage read them instead of running the embedder for every
//! question.
//!
//! One row per chunk holds the vectors of its sentences in reading order (the sentences of
//! [`crate::retrieve::prune::chunk_sentences`]), quantised to int8 with one scale per vector
//! (symmetric quantisation: `q = round(127 · x / max|x|)`, `x ≈ q · scale`). Layout,
//! little-endian: `u32` count, then per vector an `f32` scale and [`crate::embed::DIM`] `i8`s
//! (388 bytes for e5-small). Measured on Biology 2e: the cosines computed from the int8 vectors
//! differ from the `f32` ones by less than 0.002, and the pruner keeps the same sentences.

use super::Library;
use crate::error::Result;
use rusqlite::params;
use std::collections::HashMap;

/// Encodes unit vectors (all of the same width) as int8 with per-vector scales.
pub fn encode(vectors: &[Vec<f32>]) -> Vec<u8> {
    let dim = vectors.first().map(Vec::len).unwrap_or(0);
    let mut out = Vec::with_capacity(4 + vectors.len() * (4 + dim));
    out.extend((vectors.len() as u32).to_le_bytes());
    for v in vectors {
        let max = v.iter().fold(0f32, |m, x| m.max(x.abs()));
        let scale = if max > 0.0 { max / 127.0 } else { 1.0 };
        out.extend(scale.to_le_bytes());
        out.extend(
            v.iter()
                .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8 as u8),
        );
    }
    out
}

/// Decodes [`encode`]'s bytes into vectors of width `dim`, renormalised to unit length.
/// `None` when the bytes do not hold whole vectors of that width.
pub fn decode(b: &[u8], dim: usize) -> Option<Vec<Vec<f32>>> {
    let n = u32::from_le_bytes(b.get(..4)?.try_into().ok()?) as usize;
    let each = 4 + dim;
    if b.len() != 4 + n * each {
        return None;
    }
    Some(
        b[4..]
            .chunks_exact(each)
            .map(|c| {
                let scale = f32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                let mut v: Vec<f32> = c[4..].iter().map(|&q| q as i8 as f32 * scale).collect();
                super::vectors::normalize(&mut v);
                v
            })
            .collect(),
    )
}

impl Library {
    /// The stored sentence vectors of `ids` written by `model`, by chunk id (chunks without
    /// them, or whose row is damaged, are absent).
    pub fn sentence_vectors_of(
        &self,
        model: &str,
        ids: &[i64],
    ) -> Result<HashMap<i64, Vec<Vec<f32>>>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT vectors FROM sentence_vectors WHERE chunk_id = ?1 AND model = ?2",
            )
            .map_err(|e| self.db_err(e))?;
        let mut out = HashMap::new();
        for id in ids {
            let row: Option<Vec<u8>> = match st.query_row(params![id, model], |r| r.get(0)) {
                Ok(b) => Some(b),
                Err(rusqlite::Error::QueryReturnedNoRows) => None,
                Err(e) => return Err(self.db_err(e)),
            };
            if let Some(v) = row.and_then(|b| decode(&b, crate::embed::DIM)) {
                out.insert(*id, v);
            }
        }
        Ok(out)
    }

    /// Stores sentence vectors `(chunk id, vectors)` from `model` in one transaction; those of a
    /// chunk no longer stored (its book was removed while it was embedded) are skipped.
    pub fn put_sentence_vectors(
        &mut self,
        model: &str,
        rows: &[(i64, Vec<Vec<f32>>)],
    ) -> Result<()> {
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
                    "INSERT OR REPLACE INTO sentence_vectors (chunk_id, model, vectors)
                     SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM chunks WHERE id = ?1)",
                )
                .map_err(err)?;
            for (id, v) in rows {
                st.execute(params![id, model, encode(v)]).map_err(err)?;
            }
        }
        tx.commit().map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int8_round_trip_keeps_cosines() {
        let mut a: Vec<f32> = (0..384)
            .map(|i| ((i * 37 % 101) as f32 - 50.0) / 50.0)
            .collect();
        let mut b: Vec<f32> = (0..384)
            .map(|i| ((i * 53 % 97) as f32 - 48.0) / 48.0)
            .collect();
        crate::store::vectors::normalize(&mut a);
        crate::store::vectors::normalize(&mut b);
        let bytes = encode(&[a.clone(), b.clone()]);
        assert_eq!(bytes.len(), 4 + 2 * (4 + 384));
        let back = decode(&bytes, 384).unwrap();
        let cos = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
        assert!((cos(&back[0], &back[1]) - cos(&a, &b)).abs() < 0.002);
        assert!(cos(&back[0], &a) > 0.999);
        assert!(
            decode(&bytes[..bytes.len() - 1], 384).is_none(),
            "a cut row is refused"
        );
        assert_eq!(decode(&encode(&[]), 384), Some(vec![]));
    }
}
