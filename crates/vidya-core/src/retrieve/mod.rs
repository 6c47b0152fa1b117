//! The retrieval pipeline, one module per stage, in order: [`query`] (the question as the
//! retrievers read it), [`router`] (stage 0, chapters), BM25 and dense candidates
//! ([`crate::search`]) fused by [`fusion`] (stage 1), [`rerank`] (stage 2, cross-encoder) or
//! [`rescore`] without one (with [`definition`] for questions asking what a term is), [`gate`] (relevance gate, with [`subjects`] for off-topic
//! questions), [`prune`] (stage 3, sentences), [`budget`] (stage 4, token budget).
//! [`pipeline`] runs them in order with the [`config`] and [`models`] it is given and reports
//! per-stage figures in a [`result`].

pub mod budget;
pub mod config;
pub mod definition;
pub mod fusion;
pub mod gate;
pub mod models;
pub mod pipeline;
pub mod prune;
pub mod query;
pub mod rerank;
pub mod rescore;
pub mod result;
pub mod router;
pub mod subjects;

/// A name from a fixed list (a stage, a gate signal), read back from JSON as the list's own
/// `&'static str`. An alias, so serde's derive reads it with the field's `deserialize_with`
/// instead of borrowing it from the input.
pub type StaticName = &'static str;

pub use config::PipelineConfig;
pub use models::Models;
pub use pipeline::Retriever;
pub use result::{Candidate, PipelineResult, StageReport};
