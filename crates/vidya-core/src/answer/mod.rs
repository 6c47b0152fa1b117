//! Answers. For now: the extractive answer ([`extractive`]), which quotes the best textbook
//! sentences with citations and is what Vidya shows whenever no language model can answer.

pub mod extractive;

pub use extractive::{Citation, ExtractiveAnswer};
