//! # vidya-core
//!
//! The engine of Vidya, an offline textbook tutor: it reads textbooks (PDF, TXT, Markdown,
//! DOCX) into a local SQLite library with printed page labels and chapters, retrieves passages
//! for a student's question with BM25 over an Indic-aware tokenizer, and answers with the
//! textbook's own sentences, each cited by book and printed page.
//!
//! Modules follow the pipeline: [`ingest`] (files → pages → chapters → chunks → vectors),
//! [`store`] (the library database), [`text`] (normalisation, tokenizer, sentences), [`embed`]
//! (multilingual-e5-small sentence embeddings) on [`onnx`] (ONNX Runtime), [`search`] (the BM25
//! and HNSW indexes), [`retrieve`] (the staged pipeline: router, fusion, reranker, gate, token
//! budget, sentence pruner), [`engine`] (question → pipeline → extractive answer), [`answer`] (the
//! tutor with a local model), [`eval`] and [`bench`] (measurements), [`native`] (pinned native
//! libraries), [`trace`] (per-turn trace log), [`app`] (what the desktop window and the HTTP
//! server offer: one service both wrap).
#![warn(missing_docs)]

pub mod answer;
pub mod app;
pub mod bench;
pub mod embed;
pub mod engine;
pub mod error;
pub mod eval;
pub mod ingest;
pub mod memory;
pub mod native;
pub mod onnx;
pub mod paths;
pub mod retrieve;
pub mod search;
pub mod setup;
pub mod store;
pub mod text;
pub mod trace;

pub use engine::{AskOptions, AskResponse, Engine};
pub use error::{Result, VidyaError};
pub use store::Library;
