//! The dense index: an HNSW graph (Malkov & Yashunin, "Efficient and robust approximate nearest
//! neighbor search using Hierarchical Navigable Small World graphs", 2018) over chunk vectors,
//! kept by `usearch` in `<library>/vectors.usearch`.
//!
//! The index is a cache of the `chunk_vectors` rows of the library database (see
//! [`crate::store::vectors`]): its side file `vectors.json` records the embedder id, the width
//! and the [`Fingerprint`] of the rows it holds. When they no longer match the database (a book
//! was added or removed, a crash came between the database commit and the index save, the file
//! is missing or damaged) the index is brought up to date from the stored vectors: new chunks
//! only are added when every earlier chunk is still present, else it is rebuilt. No model runs
//! for that; chunks that have no vector at all need `vidya reindex`.
//!
//! Settings: cosine metric, vectors stored as f16 (half the memory of f32; recall against exact
//! search is measured by `vidya eval`), connectivity 16, expansion 128 at build and 64 at
//! search (usearch's defaults).

use crate::error::{Result, VidyaError};
use crate::store::vectors::Fingerprint;
use crate::store::Library;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

/// Index file name inside the library folder.
pub const INDEX_FILE: &str = "vectors.usearch";
/// Side file recording what the index holds.
pub const META_FILE: &str = "vectors.json";

/// What `vectors.json` records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// Embedder id ([`crate::embed::Embedder::model_id`]).
    pub model: String,
    /// Vector width (floats).
    pub dim: usize,
    /// `(count, max id, sum of ids)` of the chunk vectors it holds.
    pub fingerprint: Fingerprint,
}

/// A nearest-neighbour hit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DenseHit {
    /// Chunk id.
    pub chunk_id: i64,
    /// Cosine similarity to the query (−1..=1).
    pub cosine: f32,
}

/// How [`DenseIndex::open`] got its index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IndexSource {
    /// Loaded from the file unchanged.
    Loaded,
    /// Loaded and brought up to date with chunks added since.
    Extended,
    /// Rebuilt from the stored vectors.
    Rebuilt,
}

/// The HNSW index of a library's chunk vectors.
pub struct DenseIndex {
    index: Index,
    meta: IndexMeta,
    source: IndexSource,
}

impl std::fmt::Debug for DenseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseIndex")
            .field("meta", &self.meta)
            .field("size", &self.index.size())
            .finish()
    }
}

fn index_error(what: &str, e: impl std::fmt::Display) -> VidyaError {
    VidyaError::Internal(format!(
        "the vector index failed while {what} ({e}); `vidya reindex` rebuilds it"
    ))
}

fn options(dim: usize) -> IndexOptions {
    IndexOptions {
        dimensions: dim,
        metric: MetricKind::Cos,
        quantization: ScalarKind::F16,
        connectivity: 16,
        expansion_add: 128,
        expansion_search: 64,
        multi: false,
    }
}

/// Paths of the index and side file for the library in `dir`.
pub fn paths(dir: &Path) -> (PathBuf, PathBuf) {
    (dir.join(INDEX_FILE), dir.join(META_FILE))
}

impl DenseIndex {
    /// Opens the library's index for vectors of `model` (`dim` wide), bringing it up to date
    /// from the database when needed and saving it when the folder is writable.
    ///
    /// Errors: database errors; usearch failures (with the `vidya reindex` hint).
    pub fn open(lib: &Library, model: &str, dim: usize) -> Result<Self> {
        let want = lib.vector_fingerprint(model)?;
        let (index_path, meta_path) = paths(lib.dir());
        let stored: Option<IndexMeta> = std::fs::read(&meta_path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .filter(|m: &IndexMeta| m.model == model && m.dim == dim);
        let loaded = stored.and_then(|m| {
            let index = Index::new(&options(dim)).ok()?;
            index.load(&index_path.to_string_lossy()).ok()?;
            (index.size() as i64 == m.fingerprint.0).then_some((index, m))
        });
        let (index, source, have) = match loaded {
            Some((index, m)) if m.fingerprint == want => (index, IndexSource::Loaded, m),
            Some((index, m)) if extends(lib, model, m.fingerprint)? => {
                add_rows(&index, &lib.chunk_vectors_after(model, m.fingerprint.1)?)?;
                (index, IndexSource::Extended, m)
            }
            _ => {
                let index = Index::new(&options(dim)).map_err(|e| index_error("starting", e))?;
                add_rows(&index, &lib.chunk_vectors_after(model, 0)?)?;
                let m = IndexMeta {
                    model: model.to_string(),
                    dim,
                    fingerprint: (0, 0, 0),
                };
                (index, IndexSource::Rebuilt, m)
            }
        };
        let meta = IndexMeta {
            fingerprint: want,
            ..have
        };
        let dense = Self {
            index,
            meta,
            source,
        };
        if source != IndexSource::Loaded {
            if let Err(e) = dense.save(lib.dir()) {
                tracing::info!(error = %e, "vector index not saved (read-only library?)");
            }
        }
        Ok(dense)
    }

    /// Writes the index and its side file (index first, through a temporary file and a rename,
    /// so a crash leaves either the old pair or a side file that no longer matches).
    pub fn save(&self, dir: &Path) -> Result<()> {
        let (index_path, meta_path) = paths(dir);
        let tmp = dir.join(format!("{INDEX_FILE}.tmp"));
        let _ = std::fs::remove_file(&meta_path);
        self.index
            .save(&tmp.to_string_lossy())
            .map_err(|e| index_error("saving", e))?;
        std::fs::rename(&tmp, &index_path).map_err(|e| VidyaError::io(&index_path, e))?;
        let json = serde_json::to_vec_pretty(&self.meta).unwrap_or_default();
        std::fs::write(&meta_path, json).map_err(|e| VidyaError::io(&meta_path, e))
    }

    /// Deletes the index files of the library in `dir` (they are rebuilt on next use).
    pub fn remove_files(dir: &Path) {
        let (a, b) = paths(dir);
        let _ = std::fs::remove_file(b);
        let _ = std::fs::remove_file(a);
    }

    /// Vectors in the index.
    pub fn len(&self) -> usize {
        self.index.size()
    }

    /// True when the index holds no vector.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How this index was obtained.
    pub fn source(&self) -> IndexSource {
        self.source
    }

    /// What the index holds.
    pub fn meta(&self) -> &IndexMeta {
        &self.meta
    }

    /// Approximate top `k` chunks by cosine similarity to the unit vector `query`, keeping only
    /// chunks for which `allow(chunk id)` is true. Best first.
    pub fn search(&self, query: &[f32], k: usize, allow: &dyn Fn(i64) -> bool) -> Vec<DenseHit> {
        if k == 0 || self.is_empty() || query.len() != self.meta.dim {
            return Vec::new();
        }
        let found = self
            .index
            .filtered_search(query, k, |key| allow(key as i64));
        to_hits(found)
    }

    /// Exact (brute-force) top `k`, for measuring the HNSW recall.
    pub fn exact_search(&self, query: &[f32], k: usize) -> Vec<DenseHit> {
        if k == 0 || self.is_empty() || query.len() != self.meta.dim {
            return Vec::new();
        }
        to_hits(self.index.exact_search(query, k))
    }

    /// Bytes the index uses in memory (usearch's own count).
    pub fn memory_bytes(&self) -> usize {
        self.index.memory_usage()
    }
}

fn to_hits<E: std::fmt::Display>(
    found: std::result::Result<usearch::ffi::Matches, E>,
) -> Vec<DenseHit> {
    match found {
        Ok(m) => m
            .keys
            .iter()
            .zip(&m.distances)
            .map(|(&k, &d)| DenseHit {
                chunk_id: k as i64,
                cosine: 1.0 - d,
            })
            .collect(),
        Err(e) => {
            tracing::warn!(error = %e, "dense search failed");
            Vec::new()
        }
    }
}

/// True when the rows the index holds (`have`) are exactly the stored rows with id ≤ its max id
/// (only newer chunks were added since).
fn extends(lib: &Library, model: &str, have: Fingerprint) -> Result<bool> {
    let now = lib.vector_fingerprint(model)?;
    if now.1 < have.1 {
        return Ok(false);
    }
    let newer = lib.chunk_vectors_after(model, have.1)?;
    let count = newer.len() as i64;
    let sum: i64 = newer.iter().map(|(id, _)| id).sum();
    Ok(now.0 - count == have.0 && now.2 - sum == have.2)
}

fn add_rows(index: &Index, rows: &[(i64, Vec<f32>)]) -> Result<()> {
    index
        .reserve(index.size() + rows.len())
        .map_err(|e| index_error("growing", e))?;
    for (id, v) in rows {
        if v.len() != index.dimensions() {
            continue;
        }
        index
            .add(*id as u64, v)
            .map_err(|e| index_error("adding a vector", e))?;
    }
    Ok(())
}
