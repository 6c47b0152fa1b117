//! Sentence embeddings with multilingual-e5-small (int8 ONNX, through `ort` with ONNX Runtime
//! loaded dynamically from the pinned library, and `tokenizers`).
//!
//! Conventions from the model card (intfloat/multilingual-e5-small; Wang et al., "Multilingual
//! E5 Text Embeddings: A Technical Report", arXiv:2402.05672): every input starts with
//! `query: ` (questions) or `passage: ` (textbook text); the embedding is the attention-masked
//! mean of the last hidden states, L2-normalised (the ONNX graph computes it as
//! `sentence_embedding`, 384 floats); token type ids are all 0; at most 512 tokens.
//!
//! The model files come from `cargo xtask setup --models` (see `resources/manifest.toml`).

use crate::error::{Result, VidyaError};
use ort::session::Session;
use ort::value::Tensor;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

/// Embedding width (floats).
pub const DIM: usize = 384;
/// Longest input the model accepts (tokens); longer texts are truncated.
pub const MAX_TOKENS: usize = 512;
/// Folder of the model under `resources/models/`.
pub const MODEL_DIR: &str = "multilingual-e5-small";

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

/// Where the model folder is looked for: `$VIDYA_MODELS_DIR/<model>`, next to the executable
/// (`resources/models/<model>`, `../lib/vidya/models/<model>`), and the source checkout's
/// `resources/models/<model>`.
pub fn model_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("VIDYA_MODELS_DIR").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d).join(MODEL_DIR));
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf))
    {
        dirs.push(exe_dir.join("resources/models").join(MODEL_DIR));
        dirs.push(exe_dir.join("../lib/vidya/models").join(MODEL_DIR));
    }
    dirs.push(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../resources/models")
            .join(MODEL_DIR),
    );
    dirs
}

fn missing(what: impl Into<String>) -> VidyaError {
    VidyaError::ModelMissing {
        detail: what.into(),
    }
}

/// ONNX Runtime allows one environment per process: it is created on first use from the
/// library at `lib` and shared by every session.
fn environment(lib: &Path) -> Result<&'static ort::environment::Environment> {
    static ENV: OnceLock<std::result::Result<ort::environment::Environment, String>> =
        OnceLock::new();
    ENV.get_or_init(|| {
        ort::init_from(lib)
            .map_err(|e| format!("{} could not be loaded ({e})", lib.display()))?
            .with_name("vidya")
            .build()
            .map_err(|e| format!("ONNX Runtime did not start ({e})"))
    })
    .as_ref()
    .map_err(|e| missing(e.clone()))
}

impl Embedder {
    /// Loads the embedder from the first folder of [`model_dirs`] holding `model_int8.onnx`
    /// and `tokenizer.json`, with the ONNX Runtime library found by [`crate::native::locate`].
    ///
    /// Errors: [`VidyaError::ModelMissing`] naming what is missing or damaged and the setup
    /// command.
    pub fn load() -> Result<Self> {
        let dir = model_dirs()
            .into_iter()
            .find(|d| d.join("model_int8.onnx").is_file() && d.join("tokenizer.json").is_file())
            .ok_or_else(|| missing(format!("the {MODEL_DIR} model files are not installed")))?;
        Self::load_from(&dir)
    }

    /// Loads the embedder from `dir` (`model_int8.onnx`, `tokenizer.json`).
    pub fn load_from(dir: &Path) -> Result<Self> {
        let located = crate::native::locate("onnxruntime").ok_or_else(|| {
            missing("resources/manifest.toml has no ONNX Runtime for this platform")
        })?;
        let lib = located
            .path
            .ok_or_else(|| missing(format!("{} is not installed", located.entry.file)))?;
        let env = environment(&lib)?;
        let model = dir.join("model_int8.onnx");
        let session = Session::builder(env)
            .and_then(|b| b.with_intra_threads(2).map_err(Into::into))
            .and_then(|mut b| b.commit_from_file(&model))
            .map_err(|e| missing(format!("{} is damaged ({e})", model.display())))?;
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
