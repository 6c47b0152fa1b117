//! The dense index: an HNSW graph (Malkov & Yashunin, "Efficient and robust approximate nearest
//! neighbor search using Hierarchical Navigable Small World graphs", 2018) over chunk vectors,
//! kept by `usearch` in a file `<library>/vectors-<generation>.usearch` named by the side file.
//!
//! The index is a cache of the `chunk_vectors` rows of the library database (see
//! [`crate::store::vectors`]): its side file `vectors.json` records the embedder id, the width
//! and the [`Fingerprint`] of the rows it holds. When they no longer match the database (a book
//! was added or removed, a crash came between the database commit and the index save, the file
//! is missing or damaged) the index is brought up to date from the stored vectors: new chunks
//! only are added when every earlier chunk is still present, else it is rebuilt. No model runs
//! for that; chunks that have no vector at all need `vidya reindex`.
//!
//! An index that is up to date is opened as a read-only memory-mapped view (`usearch`'s
//! `view`): nothing is read into memory at start, the operating system pages in the graph
//! nodes a search visits and may drop them again. It is loaded fully only to be written (new
//! chunks added, or rebuilt); the result is saved under a new file name, the side file is
//! switched to it (written to a temporary file and renamed, so a crash leaves the old pair or
//! the new one), the index is viewed again from the new file, and older files are deleted. A
//! file is never written over while another process may map it (Windows refuses to replace or
//! delete a mapped file; one still mapped is deleted by a later save).
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

/// The index file of libraries from before index files had generations (the side file names
/// it when it names no other).
pub const LEGACY_INDEX_FILE: &str = "vectors.usearch";
/// Side file recording what the index holds and which file holds it.
pub const META_FILE: &str = "vectors.json";
/// Index files are `vectors-<generation>.usearch` ([`INDEX_PREFIX`] + generation +
/// [`INDEX_SUFFIX`]); the generation is the writer's process id and the time in ns.
pub const INDEX_PREFIX: &str = "vectors-";
/// See [`INDEX_PREFIX`].
pub const INDEX_SUFFIX: &str = ".usearch";

fn legacy_file() -> String {
    LEGACY_INDEX_FILE.to_string()
}

/// What `vectors.json` records.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// Embedder id ([`crate::embed::Embedder::model_id`]).
    pub model: String,
    /// Vector width (floats).
    pub dim: usize,
    /// `(count, max id, sum of ids)` of the chunk vectors it holds.
    pub fingerprint: Fingerprint,
    /// The index file's name in the library folder ([`LEGACY_INDEX_FILE`] in side files
    /// from before generations).
    #[serde(default = "legacy_file")]
    pub file: String,
    /// The index file's length in bytes when it was written; 0 when not recorded. A file of
    /// another length is damaged (cut short by a full disk, say) and is not opened.
    #[serde(default)]
    pub bytes: u64,
    /// The index file's sha256 (hex) when it was written; empty in side files from before.
    /// A file whose contents no longer match is not opened: usearch trusts the neighbour ids
    /// it reads, and a graph damaged inside (same length, sound header) crashed the process.
    #[serde(default)]
    pub sha256: String,
}

impl IndexMeta {
    /// The index file this side file names, inside `dir`; `None` when the name is not a
    /// plain file name of Vidya's (a side file edited by hand must not point elsewhere).
    fn index_path(&self, dir: &Path) -> Option<PathBuf> {
        let plain = self.file == LEGACY_INDEX_FILE
            || (self.file.starts_with(INDEX_PREFIX)
                && self.file.ends_with(INDEX_SUFFIX)
                && self
                    .file
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c)));
        plain.then(|| dir.join(&self.file))
    }
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
    /// True when `index` is a memory-mapped view of its file, false when it is in memory.
    mapped: bool,
}

impl std::fmt::Debug for DenseIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseIndex")
            .field("meta", &self.meta)
            .field("size", &self.index.size())
            .field("mapped", &self.mapped)
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

/// Path of the side file for the library in `dir`.
pub fn meta_path(dir: &Path) -> PathBuf {
    dir.join(META_FILE)
}

/// The side file in `dir` when it is readable and describes vectors of `model`, `dim` wide.
fn read_meta(dir: &Path, model: &str, dim: usize) -> Option<IndexMeta> {
    std::fs::read(meta_path(dir))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .filter(|m: &IndexMeta| m.model == model && m.dim == dim)
}

/// The index file `meta` names, when it is there with the length and sha256 recorded (side
/// files from before record neither); `None`, with a warning, otherwise.
fn checked_path(dir: &Path, meta: &IndexMeta) -> Option<PathBuf> {
    let path = meta.index_path(dir)?;
    let bytes = std::fs::metadata(&path).ok()?.len();
    if meta.bytes != 0 && bytes != meta.bytes {
        tracing::warn!(file = %path.display(), bytes, expected = meta.bytes, "vector index file has the wrong length: rebuilt from the stored vectors");
        return None;
    }
    if !meta.sha256.is_empty() {
        // Read (not mapped) and hashed: about 1 ms per MiB here (5 ms for both shared books'
        // 4.5 MiB, 90 ms at 100k chunks), and no page of it stays in the process's memory.
        match crate::native::sha256_file(&path) {
            Ok(h) if h == meta.sha256 => {}
            _ => {
                tracing::warn!(file = %path.display(), "vector index file is damaged (its sha256 changed): rebuilt from the stored vectors");
                return None;
            }
        }
    }
    Some(path)
}

/// The index file at `path` (already checked, or just written), opened as a memory-mapped
/// view (`map`) or read into memory; `None` when it is not an index or does not hold as many
/// vectors of the width `meta` says.
fn open_index(path: &Path, meta: &IndexMeta, map: bool) -> Option<Index> {
    let index = Index::new(&options(meta.dim)).ok()?;
    let path = path.to_string_lossy();
    let opened = if map {
        index.view(&path)
    } else {
        index.load(&path)
    };
    if let Err(e) = opened {
        tracing::warn!(file = %path, error = %e, "vector index file not opened");
        return None;
    }
    (index.size() as i64 == meta.fingerprint.0 && index.dimensions() == meta.dim).then_some(index)
}

/// A new index file name: [`INDEX_PREFIX`], this process's id and the time in ns, [`INDEX_SUFFIX`].
fn new_file_name() -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    format!("{INDEX_PREFIX}{}-{nanos}{INDEX_SUFFIX}", std::process::id())
}

/// True for the name of an index file of any generation (the legacy one included).
fn is_index_file(name: &str) -> bool {
    name == LEGACY_INDEX_FILE || (name.starts_with(INDEX_PREFIX) && name.ends_with(INDEX_SUFFIX))
}

/// Deletes the index files in `dir` other than `keep`. A file another process still maps
/// cannot be deleted on Windows: it stays until a later save.
fn remove_other_files(dir: &Path, keep: Option<&str>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if is_index_file(&name) && Some(name.as_str()) != keep {
            if let Err(err) = std::fs::remove_file(e.path()) {
                tracing::debug!(file = name, error = %err, "old vector index file kept for now");
            }
        }
    }
}

impl DenseIndex {
    /// Opens the library's index for vectors of `model` (`dim` wide). An index that holds
    /// exactly the stored vectors is memory-mapped; otherwise it is brought up to date from
    /// the database in memory, saved under a new file name when the folder is writable, and
    /// mapped from that file.
    ///
    /// Errors: database errors; usearch failures (with the `vidya reindex` hint).
    pub fn open(lib: &Library, model: &str, dim: usize) -> Result<Self> {
        let want = lib.vector_fingerprint(model)?;
        let dir = lib.dir();
        let stored = read_meta(dir, model, dim).and_then(|m| checked_path(dir, &m).map(|p| (m, p)));
        if let Some((m, path)) = stored.as_ref().filter(|(m, _)| m.fingerprint == want) {
            if let Some(index) = open_index(path, m, true) {
                return Ok(Self {
                    index,
                    meta: m.clone(),
                    source: IndexSource::Loaded,
                    mapped: true,
                });
            }
        }
        // Loaded fully: it is written to (or, where mapping failed, kept in memory).
        let loaded = stored.and_then(|(m, path)| open_index(&path, &m, false).map(|i| (i, m)));
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
                    file: String::new(),
                    bytes: 0,
                    sha256: String::new(),
                };
                (index, IndexSource::Rebuilt, m)
            }
        };
        let mut dense = Self {
            index,
            meta: IndexMeta {
                fingerprint: want,
                ..have
            },
            source,
            mapped: false,
        };
        if source != IndexSource::Loaded {
            match dense.save(dir) {
                Ok(()) => dense.map_saved(dir),
                Err(e) => tracing::info!(error = %e, "vector index not saved (read-only library?)"),
            }
        }
        Ok(dense)
    }

    /// Writes the index under a new file name, then its side file (to a temporary file,
    /// renamed over the old one) naming it, then deletes older index files. A crash leaves
    /// either the old pair or the new one, and at most a file no side file names (deleted by
    /// the next save). Errors: usearch or file-system failures (nothing named is changed).
    pub fn save(&mut self, dir: &Path) -> Result<()> {
        let name = new_file_name();
        let path = dir.join(&name);
        if let Err(e) = self.index.save(&path.to_string_lossy()) {
            let _ = std::fs::remove_file(&path);
            return Err(index_error("saving", e));
        }
        let bytes = std::fs::metadata(&path)
            .map_err(|e| VidyaError::io(&path, e))?
            .len();
        let sha256 = crate::native::sha256_file(&path).map_err(|e| VidyaError::io(&path, e))?;
        let meta = IndexMeta {
            file: name.clone(),
            bytes,
            sha256,
            ..self.meta.clone()
        };
        let (side, tmp) = (
            meta_path(dir),
            dir.join(format!("{META_FILE}.{}.tmp", std::process::id())),
        );
        let json = serde_json::to_vec_pretty(&meta).unwrap_or_default();
        let written = std::fs::write(&tmp, json)
            .map_err(|e| VidyaError::io(&tmp, e))
            .and_then(|()| std::fs::rename(&tmp, &side).map_err(|e| VidyaError::io(&side, e)));
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        self.meta = meta;
        remove_other_files(dir, Some(&name));
        Ok(())
    }

    /// After a save: the in-memory index is swapped for a view of the saved file, so that a
    /// long-running app does not keep the whole graph in memory after adding a book. Keeps
    /// the in-memory index when the file cannot be mapped.
    fn map_saved(&mut self, dir: &Path) {
        let view = self
            .meta
            .index_path(dir)
            .and_then(|p| open_index(&p, &self.meta, true));
        if let Some(view) = view {
            self.index = view;
            self.mapped = true;
        }
    }

    /// Deletes the index files of the library in `dir` (they are rebuilt on next use).
    pub fn remove_files(dir: &Path) {
        let _ = std::fs::remove_file(meta_path(dir));
        remove_other_files(dir, None);
    }

    /// True when the index is a memory-mapped view of its file (read-only), false when it
    /// is held in memory.
    pub fn is_mapped(&self) -> bool {
        self.mapped
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

    /// Bytes the index uses in memory (usearch's own count; for a view, its bookkeeping
    /// only: the mapped file's pages are the operating system's to keep or drop).
    pub fn memory_bytes(&self) -> usize {
        self.index.memory_usage()
    }

    /// Bytes of the index file on disk (0 when it was not saved).
    pub fn file_bytes(&self) -> u64 {
        self.meta.bytes
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{NewBook, NewChunk};

    const MODEL: &str = "test-embedder";
    const DIM: usize = 16;

    /// A unit vector drawn from `seed` (xorshift; no model needed).
    fn unit(seed: u64) -> Vec<f32> {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let v: Vec<f32> = (0..DIM)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x % 2001) as f32 / 1000.0 - 1.0
            })
            .collect();
        let n = v.iter().map(|a| a * a).sum::<f32>().sqrt();
        v.into_iter().map(|a| a / n).collect()
    }

    /// A book of `n` chunks, each with a vector, the `seed`-th book.
    fn book(n: usize, seed: u64) -> NewBook {
        let chunks = (0..n)
            .map(|i| NewChunk {
                chapter: 0,
                first_page: i,
                last_page: i,
                terms: vec!["word".into()],
                token_count: 1,
                page_starts: vec![(0, i)],
                text: format!("chunk {i} of book {seed}"),
                vector: Some(unit(seed * 10_000 + i as u64)),
                kind: crate::ingest::blocks::BlockKind::Body,
                context: String::new(),
                sentence_vectors: None,
            })
            .collect();
        crate::store::insert::test_book(
            &format!("Book {seed}"),
            &format!("sha-{seed}"),
            chunks,
            Some(MODEL.into()),
            None,
        )
    }

    fn library_with(books: &[(usize, u64)]) -> (tempfile::TempDir, Library) {
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        for &(n, seed) in books {
            lib.insert_book(&book(n, seed), || {}).unwrap();
        }
        (dir, lib)
    }

    fn index_files(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| is_index_file(n))
            .collect();
        names.sort();
        names
    }

    fn top(d: &DenseIndex, q: u64) -> Vec<i64> {
        d.search(&unit(q), 10, &|_| true)
            .into_iter()
            .map(|h| h.chunk_id)
            .collect()
    }

    #[test]
    fn an_up_to_date_index_is_mapped_and_answers_as_the_index_in_memory() {
        let (dir, lib) = library_with(&[(400, 1)]);
        let built = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((built.len(), built.source()), (400, IndexSource::Rebuilt));
        assert!(built.is_mapped(), "a saved index is used through its file");
        let in_memory: Vec<Vec<i64>> = (0..20).map(|q| top(&built, 90_000 + q)).collect();
        drop(built);

        let opened = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((opened.len(), opened.source()), (400, IndexSource::Loaded));
        assert!(opened.is_mapped());
        assert_eq!(index_files(dir.path()), vec![opened.meta().file.clone()]);
        let path = checked_path(dir.path(), opened.meta()).unwrap();
        let loaded = open_index(&path, opened.meta(), false).unwrap();
        for (q, want) in (0..20).zip(&in_memory) {
            assert_eq!(&top(&opened, 90_000 + q), want);
            let fully: Vec<i64> = to_hits(loaded.search(&unit(90_000 + q), 10))
                .into_iter()
                .map(|h| h.chunk_id)
                .collect();
            assert_eq!(&fully, want, "the view and the loaded file answer alike");
        }
        // Exact search agrees on the nearest chunk.
        assert_eq!(
            opened.exact_search(&unit(7), 1)[0].chunk_id,
            top(&opened, 7)[0]
        );
    }

    #[test]
    fn a_book_added_or_deleted_writes_a_new_file_and_deletes_the_old_one() {
        let (dir, mut lib) = library_with(&[(50, 1)]);
        let first = DenseIndex::open(&lib, MODEL, DIM)
            .unwrap()
            .meta()
            .file
            .clone();

        lib.insert_book(&book(30, 2), || {}).unwrap();
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (80, IndexSource::Extended));
        assert!(d.is_mapped());
        let second = d.meta().file.clone();
        assert_ne!(first, second);
        // Unlike Windows, Linux deletes a file that is still mapped (the view keeps it).
        assert_eq!(index_files(dir.path()), vec![second.clone()]);
        assert_eq!(
            d.file_bytes(),
            std::fs::metadata(dir.path().join(&second)).unwrap().len()
        );

        let first_book = lib.books().unwrap()[0].id;
        lib.delete_book(first_book).unwrap();
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (30, IndexSource::Rebuilt));
        assert_eq!(index_files(dir.path()), vec![d.meta().file.clone()]);
        assert!(top(&d, 3)
            .iter()
            .all(|&id| lib.chunk(id).unwrap().is_some()));
    }

    #[test]
    fn a_damaged_or_cut_short_index_file_is_rebuilt() {
        let (dir, lib) = library_with(&[(60, 1)]);
        let file = DenseIndex::open(&lib, MODEL, DIM)
            .unwrap()
            .meta()
            .file
            .clone();
        let path = dir.path().join(&file);
        let len = std::fs::metadata(&path).unwrap().len();

        // Cut short (a full disk): the recorded length no longer matches.
        std::fs::write(&path, vec![7u8; len as usize / 2]).unwrap();
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (60, IndexSource::Rebuilt));

        // Overwritten with zeros of the same length: no index in it.
        let path = dir.path().join(&d.meta().file);
        std::fs::write(&path, vec![0u8; d.file_bytes() as usize]).unwrap();
        drop(d);
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (60, IndexSource::Rebuilt));

        // Bytes changed inside the graph, same length: found by the sha256.
        let path = dir.path().join(&d.meta().file);
        let mut bytes = std::fs::read(&path).unwrap();
        let n = bytes.len();
        for b in &mut bytes[n - n / 4..n - n / 8] {
            *b = b.wrapping_mul(31).wrapping_add(7);
        }
        std::fs::write(&path, &bytes).unwrap();
        drop(d);
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (60, IndexSource::Rebuilt));
        assert_eq!(d.meta().sha256.len(), 64);

        // Missing.
        std::fs::remove_file(dir.path().join(&d.meta().file)).unwrap();
        drop(d);
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (60, IndexSource::Rebuilt));
        assert_eq!(index_files(dir.path()).len(), 1);
    }

    #[test]
    fn a_library_from_before_generations_is_mapped_then_moved_to_a_new_file() {
        let (dir, mut lib) = library_with(&[(40, 1)]);
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        // The pair an earlier version wrote: `vectors.usearch` and a side file without a name.
        std::fs::rename(
            dir.path().join(&d.meta().file),
            dir.path().join(LEGACY_INDEX_FILE),
        )
        .unwrap();
        let old =
            serde_json::json!({"model": MODEL, "dim": DIM, "fingerprint": d.meta().fingerprint});
        std::fs::write(meta_path(dir.path()), old.to_string()).unwrap();
        drop(d);

        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (40, IndexSource::Loaded));
        assert!(d.is_mapped());
        assert_eq!(d.meta().file, LEGACY_INDEX_FILE);
        drop(d);

        lib.insert_book(&book(5, 2), || {}).unwrap();
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        assert_eq!((d.len(), d.source()), (45, IndexSource::Extended));
        assert_eq!(index_files(dir.path()), vec![d.meta().file.clone()]);
        assert_ne!(d.meta().file, LEGACY_INDEX_FILE);
    }

    #[test]
    fn a_side_file_naming_a_file_elsewhere_is_not_followed() {
        let (dir, lib) = library_with(&[(20, 1)]);
        let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
        let outside = dir.path().join("elsewhere");
        std::fs::create_dir(&outside).unwrap();
        let target = outside.join("vectors-x.usearch");
        std::fs::copy(dir.path().join(&d.meta().file), &target).unwrap();
        let mut meta = d.meta().clone();
        drop(d);
        for name in [
            "elsewhere/vectors-x.usearch",
            "../vectors-x.usearch",
            "/tmp/vectors-x.usearch",
        ] {
            meta.file = name.into();
            std::fs::write(meta_path(dir.path()), serde_json::to_vec(&meta).unwrap()).unwrap();
            let d = DenseIndex::open(&lib, MODEL, DIM).unwrap();
            assert_eq!(d.source(), IndexSource::Rebuilt, "{name}");
        }
        assert!(target.is_file(), "nothing outside the library is deleted");
    }
}
