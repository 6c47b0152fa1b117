//! Retrieval stages. For now: BM25 over chunks ([`bm25`]).

pub mod bm25;

pub use self::bm25::{Bm25Index, Hit};
