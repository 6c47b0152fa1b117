//! The models the pipeline can use ([`Models`]), each optional: the embedder, the
//! cross-encoder and the answer model's token counter. A stage whose model is missing is
//! skipped with a note.

use super::budget::{self, TokenCounter};
use super::rerank::CrossEncoder;
use crate::embed::Embedder;
use std::sync::Arc;

/// The models the pipeline can use; each is optional.
#[derive(Clone, Default)]
pub struct Models {
    /// multilingual-e5-small.
    pub embedder: Option<Arc<Embedder>>,
    /// A cross-encoder.
    pub reranker: Option<Arc<CrossEncoder>>,
    /// The answer model's tokenizer.
    pub counter: Option<Arc<TokenCounter>>,
    /// Why a model is not available.
    pub notes: Vec<String>,
}

impl std::fmt::Debug for Models {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Models")
            .field("embedder", &self.embedder.is_some())
            .field("reranker", &self.reranker.is_some())
            .field("notes", &self.notes)
            .finish()
    }
}

impl Models {
    /// Loads every installed model. A model that is missing or damaged is left out with a note
    /// naming the setup command; the pipeline then skips its stage.
    pub fn load() -> Self {
        let mut notes = Vec::new();
        // The answer model's tokenizer before the embedder: its JSON is parsed through a few
        // hundred MB that are freed again (and returned to the system), so the embedder's load
        // does not add to that peak.
        let counter = TokenCounter::load();
        crate::memory::release_free_memory();
        let embedder = match Embedder::load() {
            Ok(e) => Some(Arc::new(e)),
            Err(e) => {
                notes.push(format!("dense retrieval and pruning are off: {e}"));
                None
            }
        };
        let reranker = match CrossEncoder::load() {
            Ok(r) => r.map(Arc::new),
            Err(e) => {
                notes.push(format!("reranking is off: {e}"));
                None
            }
        };
        let counter = match counter {
            Ok(c) => Some(Arc::new(c)),
            Err(e) => {
                notes.push(format!("token counts are estimates: {e}"));
                None
            }
        };
        if counter.as_ref().is_some_and(|c| !c.is_exact()) {
            notes.push(format!(
                "token counts are estimates: the answer model's tokenizer ({}) is not installed. Run `cargo xtask setup --models`",
                budget::TOKENIZER_DIR
            ));
        }
        Self {
            embedder,
            reranker,
            counter,
            notes,
        }
    }

    /// No models: BM25 and lexical pruning only.
    pub fn none() -> Self {
        Self::default()
    }
}
