//! Indexes over the library's chunks: BM25 (sparse, [`bm25`]) and HNSW (dense, [`dense`]).

pub mod bm25;
pub mod dense;

pub use bm25::{Bm25Index, Hit};
pub use dense::{DenseHit, DenseIndex};
