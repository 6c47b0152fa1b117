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
//! `tokenizer.json` (XLM-R's unigram vocabulary trimmed to ASCII, Greek, the scripts of Vidya's
//! languages and common symbols: 119,206 of 250,002 pieces, the same pieces for words in those
//! characters; see `xtask/models/e5_small_onnx.py`). Measured on this machine, the tokenizer and
//! session took 218 MiB at their peak while answering a question with 134,043 pieces (the other
//! Indic scripts kept too), against 530 MiB for the untrimmed model loaded whole; the narrower
//! trim takes about 30 MiB less.

use crate::error::{Result, VidyaError};
use crate::onnx::missing;
use ort::session::Session;
use ort::value::Tensor;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// Version of how chunk and sentence vectors are made, part of [`model_id`]: `s1` is one ONNX
/// run per text (never batched with other texts) and a chunk's vector pooled from its
/// sentences' and its section's ([`crate::ingest::reindex::ChunkEmbedder`]). Vectors stored
/// under another version are stale and made again by `vidya reindex`.
pub const VECTOR_SCHEME: &str = "s1";

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
        format!("{MODEL_DIR}:{}:{VECTOR_SCHEME}", &sha[..sha.len().min(12)])
    })
    .clone()
}

/// Prefix of every question's input (the model card's convention, above).
pub const QUERY_PREFIX: &str = "query: ";
/// Prefix of every textbook passage's input (the model card's convention, above).
pub const PASSAGE_PREFIX: &str = "passage: ";

/// Most worker sessions an [`EmbedPool`] opens. Each holds its own packed copy of the weights
/// and its activations (about 50 MiB more at ingest's peak per worker, measured with two on
/// this machine: 299 → 400 MiB for Physics), so a many-core machine does not pay for more
/// than a laptop's cores use.
pub const MAX_WORKERS: usize = 4;

/// The multilingual-e5-small embedder.
pub struct Embedder {
    session: Mutex<Session>,
    tokenizer: tokenizers::Tokenizer,
    /// The graph file, opened again by [`Embedder::pool`].
    model_file: PathBuf,
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
        Ok(Self {
            session: Mutex::new(session),
            tokenizer,
            model_file: dir.join(MODEL_FILE),
        })
    }

    /// Worker sessions for embedding many passages at once (ingest, `reindex`): one per core
    /// ([`std::thread::available_parallelism`], at most [`MAX_WORKERS`]), each running its texts
    /// on one thread, beside this embedder's own session (kept for questions). Texts run in
    /// parallel rather than each text's operators: for sentence-length inputs ONNX Runtime's
    /// threads spend much of a run waiting for each other. On this 2-core machine, 2,036
    /// Physics sentences: two one-thread sessions embed 6,205 tokens/s together against 3,927
    /// for one two-thread session, with bit-identical vectors. Dropping the pool frees its
    /// sessions.
    ///
    /// Errors: [`crate::VidyaError::ModelMissing`] when the model file can no longer be opened.
    pub fn pool(&self) -> Result<EmbedPool<'_>> {
        let workers = std::thread::available_parallelism()
            .map(std::num::NonZeroUsize::get)
            .unwrap_or(1)
            .clamp(1, MAX_WORKERS);
        let sessions = (0..workers)
            .map(|_| crate::onnx::session_with_threads(&self.model_file, 1))
            .collect::<Result<_>>()?;
        Ok(EmbedPool {
            tokenizer: &self.tokenizer,
            sessions,
        })
    }

    /// Embeds questions (`query: ` prefix). Returns one unit vector of [`DIM`] floats per text.
    pub fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts, QUERY_PREFIX)
    }

    /// The id stored with every vector this embedder writes: the model folder name and the
    /// first 12 hex digits of the pinned model file's sha256 (`resources/manifest.toml`) and
    /// [`VECTOR_SCHEME`], e.g. `multilingual-e5-small:9546e309300f:s1`. Vectors stored under
    /// another id are stale.
    pub fn model_id(&self) -> String {
        model_id()
    }

    /// Embeds textbook passages (`passage: ` prefix), one ONNX run per text.
    pub fn embed_passages(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts, PASSAGE_PREFIX)
    }

    /// Embeds each text alone (one ONNX run per text): the int8 model quantises its activations
    /// with one scale per run (`DynamicQuantizeLinear`), so a text batched with others would get
    /// a vector that depends on them. On this 2-core machine a run per text was also faster
    /// than length-sorted batches of 16 (4,165 against 2,713 tokens/s for 200 Physics chunks,
    /// peak memory 302 against 648 MiB).
    fn embed(&self, texts: &[&str], prefix: &str) -> Result<Vec<Vec<f32>>> {
        texts
            .iter()
            .map(|t| self.run_one(&format!("{prefix}{t}")))
            .collect()
    }

    /// Runs the model on one input (prefix included): its unit vector.
    fn run_one(&self, input: &str) -> Result<Vec<f32>> {
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        run(&mut session, &self.tokenizer, input)
    }
}

/// What one worker of an [`EmbedPool`] embedded: (index of the text, its vector) pairs.
type WorkerVectors = Vec<(usize, Vec<f32>)>;

/// Worker sessions of one [`Embedder`] ([`Embedder::pool`]) that embed a list of passages in
/// parallel, each text alone, so each gets the same vector as from
/// [`Embedder::embed_passages`].
pub struct EmbedPool<'a> {
    tokenizer: &'a tokenizers::Tokenizer,
    sessions: Vec<Session>,
}

impl std::fmt::Debug for EmbedPool<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbedPool")
            .field("workers", &self.sessions.len())
            .finish_non_exhaustive()
    }
}

impl EmbedPool<'_> {
    /// Number of worker sessions (threads while embedding).
    pub fn workers(&self) -> usize {
        self.sessions.len()
    }

    /// Embeds textbook passages (`passage: ` prefix), one ONNX run per text, the texts shared
    /// out among the workers as each finishes its last. Returns one unit vector of [`DIM`]
    /// floats per text, in order.
    ///
    /// Errors: the model failed on a text (the other workers stop after their current text).
    pub fn embed_passages(&mut self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let next = AtomicUsize::new(0);
        let tokenizer = self.tokenizer;
        let done: Vec<Result<WorkerVectors>> = std::thread::scope(|scope| {
            let workers: Vec<_> = self
                .sessions
                .iter_mut()
                .map(|session| {
                    let next = &next;
                    scope.spawn(move || {
                        let mut out = Vec::new();
                        loop {
                            let i = next.fetch_add(1, Ordering::SeqCst);
                            let Some(text) = texts.get(i) else {
                                return Ok(out);
                            };
                            match run(session, tokenizer, &format!("{PASSAGE_PREFIX}{text}")) {
                                Ok(v) => out.push((i, v)),
                                Err(e) => {
                                    next.store(texts.len(), Ordering::SeqCst);
                                    return Err(e);
                                }
                            }
                        }
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| {
                    w.join().unwrap_or_else(|_| {
                        Err(VidyaError::Internal(
                            "an embedding thread stopped unexpectedly".into(),
                        ))
                    })
                })
                .collect()
        });
        let mut vectors = vec![Vec::new(); texts.len()];
        for worker in done {
            for (i, v) in worker? {
                vectors[i] = v;
            }
        }
        Ok(vectors)
    }
}

/// Runs the model in `session` on one input (prefix included): its unit vector.
fn run(session: &mut Session, tokenizer: &tokenizers::Tokenizer, input: &str) -> Result<Vec<f32>> {
    let enc = tokenizer
        .encode(input, true)
        .map_err(|e| missing(format!("tokenizing failed ({e})")))?;
    let seq = enc.get_ids().len();
    let ids: Vec<i64> = enc.get_ids().iter().map(|&x| i64::from(x)).collect();
    let mask: Vec<i64> = enc
        .get_attention_mask()
        .iter()
        .map(|&x| i64::from(x))
        .collect();
    let types = vec![0i64; seq];
    let tensor = |v: Vec<i64>| {
        Tensor::from_array(([1, seq], v)).map_err(|e| missing(format!("input tensor ({e})")))
    };
    let (ids, mask, types) = (tensor(ids)?, tensor(mask)?, tensor(types)?);
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
    Ok(data.to_vec())
}

/// Cosine similarity of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}
