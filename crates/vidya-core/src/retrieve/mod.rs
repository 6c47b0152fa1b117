//! The retrieval pipeline, one module per stage, in order: [`router`] (stage 0, chapters),
//! BM25 and dense candidates ([`crate::search`]) fused by [`fusion`] (stage 1), [`rerank`]
//! (stage 2, cross-encoder), [`gate`] (relevance gate), [`budget`] (stage 3, token budget),
//! [`prune`] (stage 4, sentences). [`pipeline`] runs them and reports per-stage figures.

pub mod budget;
pub mod fusion;
pub mod gate;
pub mod pipeline;
pub mod prune;
pub mod query;
pub mod rerank;
pub mod router;
pub mod subjects;

pub use pipeline::{Models, PipelineConfig, PipelineResult, Retriever};
