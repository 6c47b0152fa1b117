//! Text utilities shared by ingestion and retrieval: Unicode normalisation, the Indic-aware
//! BM25 tokenizer, the sentence splitter, token estimates and script detection.

pub mod legacy_font;
pub mod normalize;
pub mod repair;
pub mod script;
pub mod sentences;
pub mod tokenize;
pub mod vocabulary;

pub use normalize::normalize;
pub use sentences::split_sentences;
pub use tokenize::{estimate_tokens, Tokenizer};
