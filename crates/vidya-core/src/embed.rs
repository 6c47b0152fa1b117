//! Sentence embeddings with multilingual-e5-small (int8 ONNX, through `ort` with ONNX Runtime
//! loaded dynamically from the pinned library, and `tokenizers`).
//!
//! Conventions from the model card (intfloat/multilingual-e5-small; Wang et al., "Multilingual
//! E5 Text Embeddings: A Technical Report", arXiv:2402.05672): every input starts with
//! `query: ` (questions) or `passage: ` (textbook text); the embedding is the attention-masked
//! mean of the last hidden states, L2-normalised (the ONNX graph computes it as
//! `sentence_embedding`, 384 floats); token type ids are all 0; at most 512 tokens.
//!
//! The model files come from `cargo xtask setup --models` (see `resources/manifest.toml`):
//! `model_int8.onnx` (the graph), `model_int8.onnx.data` (the weights, ONNX external data that
//! ONNX Runtime memory-maps, so only the embedding rows of the pieces a text uses are read) and
//! `tokenizer.json` (XLM-R's unigram vocabulary trimmed to ASCII, Greek, the Indic scripts and
//! common symbols: 134,043 of 250,002 pieces, the same pieces for words in those characters; see
//! `xtask/models/e5_small_onnx.py`). Measured on this machine, the tokenizer and session take
//! 218 MiB at their peak while answering a question, against 530 MiB for the untrimmed model
//! loaded whole.

use crate::error::Result;
use crate::onnx::missing;
use ort::session::Session;
use ort::value::Tensor;
use std::path::Path;
use std::sync::Mutex;

/// Embedding width (floats).
pub const DIM: usize = 384;
/// Longest input the model accepts (tokens); longer texts are truncated.
pub const MAX_TOKENS: usize = 512;
/// Folder of the model under `resources/models/`.
pub const MODEL_DIR: &str = "multilingual-e5-small";
/// The model's graph, in [`MODEL_DIR`].
pub const MODEL_FILE: &str = "model_int8.onnx";
/// The model's weights (ONNX external data beside [`MODEL_FILE`]).
pub const WEIGHTS_FILE: &str = "model_int8.onnx.data";

/// Passages per ONNX run when indexing (16 was fastest on a 2-core machine: 6.0 chunks/s
/// against 3.3 at 8 and 5.4 at 32, for 220-word chunks).
pub const INDEX_BATCH: usize = 16;
/// Most padded tokens per ONNX run when indexing (bounds the memory of long batches).
pub const BATCH_TOKENS: usize = 4096;

/// See [`Embedder::model_id`]: from the sha256 the manifest pins for [`WEIGHTS_FILE`]. The
/// compiled-in manifest is read once per process (the pipeline asks for the id per question).
pub fn model_id() -> String {
    static ID: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    ID.get_or_init(|| {
        let sha = vidya_manifest::Manifest::bundled()
            .ok()
            .and_then(|m| {
                m.model_output_sha256(MODEL_DIR, WEIGHTS_FILE)
                    .map(str::to_string)
            })
            .unwrap_or_default();
        format!("{MODEL_DIR}:{}", &sha[..sha.len().min(12)])
    })
    .clone()
}

/// The multilingual-e5-small embedder.
pub struct Embedder {
    session: Mutex<Session>,
    tokenizer: tokenizers::Tokenizer,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder").finish_non_exhaustive()
    }
}

impl Embedder {
    /// Loads the embedder from the first folder of [`crate::onnx::model_dirs`] holding
    /// [`MODEL_FILE`] and `tokenizer.json`, with the ONNX Runtime library found by
    /// [`crate::native::locate`].
    ///
    /// Errors: [`crate::VidyaError::ModelMissing`] naming what is missing or damaged and the setup
    /// command.
    pub fn load() -> Result<Self> {
        let dir = crate::onnx::model_dirs(MODEL_DIR)
            .into_iter()
            .find(|d| d.join(MODEL_FILE).is_file() && d.join("tokenizer.json").is_file())
            .ok_or_else(|| missing(format!("the {MODEL_DIR} model files are not installed")))?;
        Self::load_from(&dir)
    }

    /// Loads the embedder from `dir` ([`MODEL_FILE`] with [`WEIGHTS_FILE`] beside it,
    /// `tokenizer.json`).
    pub fn load_from(dir: &Path) -> Result<Self> {
        if !dir.join(WEIGHTS_FILE).is_file() {
            return Err(missing(format!(
                "{} is missing",
                dir.join(WEIGHTS_FILE).display()
            )));
        }
        let session = crate::onnx::session(&dir.join(MODEL_FILE))?;
        let mut tokenizer =
            tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| {
                missing(format!(
                    "{} is damaged ({e})",
                    dir.join("tokenizer.json").display()
                ))
            })?;
        tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length: MAX_TOKENS,
                ..Default::default()
            }))
            .map_err(|e| missing(format!("tokenizer settings ({e})")))?;
        tokenizer.with_padding(Some(tokenizers::PaddingParams {
            pad_id: 1,
            ..Default::default()
        }));
        Ok(Self {
            session: Mutex::new(session),
            tokenizer,
        })
    }

    /// Embeds questions (`query: ` prefix). Returns one unit vector of [`DIM`] floats per text.
    pub fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts, "query: ")
    }

    /// The id stored with every vector this embedder writes: the model folder name and the
    /// first 12 hex digits of the pinned model file's sha256 (`resources/manifest.toml`), e.g.
    /// `multilingual-e5-small:9546e309300f`. Vectors stored under another id are stale.
    pub fn model_id(&self) -> String {
        model_id()
    }

    /// Embeds many passages for indexing: sorted by length and run [`INDEX_BATCH`] at a time
    /// (similar lengths waste less padding), returned in the input order. `on_batch(done,
    /// total)` is called after each batch; returning `false` from `keep_going` stops early with
    /// [`crate::VidyaError::Cancelled`].
    pub fn embed_passages_batched(
        &self,
        texts: &[&str],
        on_batch: &mut dyn FnMut(usize, usize),
        keep_going: &dyn Fn() -> bool,
    ) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        // Batches of up to INDEX_BATCH texts and about BATCH_TOKENS padded tokens (estimated
        // at 3 characters per token, at most MAX_TOKENS): attention memory grows with
        // batch × length², and ONNX Runtime keeps its peak allocation.
        let mut batches: Vec<Vec<usize>> = Vec::new();
        let mut current: Vec<usize> = Vec::new();
        for i in order {
            let est = (texts[i].len() / 3 + 8).min(MAX_TOKENS);
            if !current.is_empty()
                && (current.len() >= INDEX_BATCH || (current.len() + 1) * est > BATCH_TOKENS)
            {
                batches.push(std::mem::take(&mut current));
            }
            current.push(i);
        }
        if !current.is_empty() {
            batches.push(current);
        }
        let mut out = vec![Vec::new(); texts.len()];
        let mut done = 0;
        for batch in &batches {
            if !keep_going() {
                return Err(crate::VidyaError::Cancelled);
            }
            let part: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            for (&i, v) in batch.iter().zip(self.embed_passages(&part)?) {
                out[i] = v;
            }
            done += batch.len();
            on_batch(done, texts.len());
        }
        Ok(out)
    }

    /// Embeds textbook passages (`passage: ` prefix).
    pub fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts, "passage: ")
    }

    fn embed(&self, texts: &[&str], prefix: &str) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let inputs: Vec<String> = texts.iter().map(|t| format!("{prefix}{t}")).collect();
        let enc = self
            .tokenizer
            .encode_batch(inputs, true)
            .map_err(|e| missing(format!("tokenizing failed ({e})")))?;
        let batch = enc.len();
        let seq = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(batch * seq);
        let mut mask = Vec::with_capacity(batch * seq);
        for e in &enc {
            ids.extend(e.get_ids().iter().map(|&x| x as i64));
            mask.extend(e.get_attention_mask().iter().map(|&x| x as i64));
        }
        let types = vec![0i64; batch * seq];
        let tensor = |v: Vec<i64>| {
            Tensor::from_array(([batch, seq], v))
                .map_err(|e| missing(format!("input tensor ({e})")))
        };
        let (ids, mask, types) = (tensor(ids)?, tensor(mask)?, tensor(types)?);
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        let outputs = session
            .run(ort::inputs![
                "input_ids" => ids,
                "attention_mask" => mask,
                "token_type_ids" => types
            ])
            .map_err(|e| missing(format!("the embedding model failed ({e})")))?;
        let (_, data) = outputs["sentence_embedding"]
            .try_extract_tensor::<f32>()
            .map_err(|e| missing(format!("unexpected model output ({e})")))?;
        Ok(data.chunks(DIM).map(<[f32]>::to_vec).collect())
    }
}

/// Cosine similarity of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
