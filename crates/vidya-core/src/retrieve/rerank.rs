//! Stage 2 of retrieval: re-scoring candidate passages with a cross-encoder.
//!
//! A cross-encoder reads the question and one passage together and gives one relevance logit
//! for the pair (Nogueira & Cho, "Passage Re-ranking with BERT", arXiv:1901.04085, 2019). Vidya
//! runs one exported to ONNX in the sentence-transformers `CrossEncoder` convention, as the
//! model card of `cross-encoder/ms-marco-MiniLM-L-6-v2` describes it:
//!
//! * the pair is encoded with the tokenizer's pair template, `[CLS] query [SEP] passage [SEP]`,
//!   token type 0 for the query part and 1 for the passage part;
//! * pairs longer than the model's maximum length (512 tokens unless the folder's
//!   `vidya-reranker.toml` says `max_length = N`) lose the end of the passage, never the query
//!   (`only_second` truncation). A question so long that it would leave the passage less than
//!   half of the length is itself cut to that half first (a student's question never is);
//! * inputs `input_ids`, `attention_mask`, `token_type_ids` (int64, `[batch, seq]`; a graph
//!   without `token_type_ids`, as some exports are, is accepted) → output `logits` (float32,
//!   `[batch, 1]`): the raw logit, higher = more relevant. It is not a probability (apply a
//!   sigmoid for that) and it is not comparable across models.
//!
//! The model folder (`resources/models/cross-encoder/`, see [`RERANKER_DIR`]) holds
//! `model.onnx`, `tokenizer.json` and optionally `vidya-reranker.toml`. No package registry
//! carries cross-encoder weights, so nothing provisions it automatically: a user exports one
//! and installs it with `cargo xtask setup --reranker-from <folder>`. Without it, retrieval
//! runs without this stage ([`CrossEncoder::load`] gives `Ok(None)`).

use crate::error::{Result, VidyaError};
use ort::session::Session;
use ort::value::{Tensor, TensorElementType, ValueType};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Folder of the reranker under `resources/models/` (looked up with
/// [`crate::onnx::model_dirs`]).
pub const RERANKER_DIR: &str = "cross-encoder";
/// Pairs per ONNX Runtime run (larger batches pad more and use more memory on small laptops).
pub const BATCH: usize = 16;
/// Longest pair (tokens, special tokens included) when `vidya-reranker.toml` does not say: the
/// 512 positions of BERT-family cross-encoders such as ms-marco-MiniLM-L-6-v2.
pub const DEFAULT_MAX_LENGTH: usize = 512;
/// Environment variable naming a reranker folder, looked at before [`crate::onnx::model_dirs`].
pub const ENV_DIR: &str = "VIDYA_RERANKER_DIR";

/// The model file of a reranker folder.
const MODEL_FILE: &str = "model.onnx";
/// The tokenizer file of a reranker folder (Hugging Face `tokenizers` JSON).
const TOKENIZER_FILE: &str = "tokenizer.json";
/// The optional settings file of a reranker folder.
const CONFIG_FILE: &str = "vidya-reranker.toml";
/// Shortest `max_length` accepted from `vidya-reranker.toml` (tokens).
const MIN_MAX_LENGTH: usize = 16;
/// Longest `max_length` accepted from `vidya-reranker.toml` (tokens).
const MAX_MAX_LENGTH: usize = 8192;

/// `vidya-reranker.toml`.
#[derive(Deserialize)]
struct Config {
    /// Longest pair in tokens, special tokens included.
    max_length: Option<usize>,
}

/// A cross-encoder reranker: scores (question, passage) pairs with one ONNX model.
///
/// Thread-safe: runs are serialised on one ONNX Runtime session.
pub struct CrossEncoder {
    session: Mutex<Session>,
    /// Pair encoding with `only_second` truncation at `max_length`, no padding.
    pair_tokenizer: tokenizers::Tokenizer,
    /// Same tokenizer without truncation, to measure and cut over-long questions.
    plain_tokenizer: tokenizers::Tokenizer,
    dir: PathBuf,
    max_length: usize,
    /// Special tokens the pair template adds (3 for BERT).
    added_tokens: usize,
    pad_id: i64,
    /// Whether the graph takes `token_type_ids`.
    token_types: bool,
}

impl std::fmt::Debug for CrossEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CrossEncoder")
            .field("dir", &self.dir)
            .field("max_length", &self.max_length)
            .finish_non_exhaustive()
    }
}

/// What a candidate folder holds.
enum Found {
    /// Neither model file (absent or empty folder): no reranker here.
    Nothing,
    /// `model.onnx` and/or `tokenizer.json`: a reranker, complete or not.
    Reranker,
}

fn look(dir: &Path) -> Found {
    if dir.join(MODEL_FILE).exists() || dir.join(TOKENIZER_FILE).exists() {
        Found::Reranker
    } else {
        Found::Nothing
    }
}

/// A [`VidyaError::RerankerBroken`] for a reranker folder that is there but cannot be used.
fn unusable(dir: &Path, why: impl std::fmt::Display) -> VidyaError {
    VidyaError::RerankerBroken {
        detail: format!(
        "the reranker at {} is damaged or incomplete: {why}. Reinstall it with `cargo xtask setup --reranker-from <folder>` (a folder with model.onnx, tokenizer.json and optionally vidya-reranker.toml), or remove the folder to run without it",
        dir.display()
    ),
    }
}

impl CrossEncoder {
    /// Loads the installed reranker, if any.
    ///
    /// Looks at `$VIDYA_RERANKER_DIR` first (when set and non-empty), then at each folder of
    /// [`crate::onnx::model_dirs`]`(`[`RERANKER_DIR`]`)`. A folder holding neither `model.onnx`
    /// nor `tokenizer.json` (or missing) is skipped; the first that holds either is loaded with
    /// [`CrossEncoder::load_from`].
    ///
    /// Returns `Ok(None)` when no reranker is installed (retrieval then runs without this
    /// stage). Errors: [`VidyaError::ModelMissing`] when one is installed but incomplete or
    /// damaged, or ONNX Runtime is missing; the message says which file and what to do.
    pub fn load() -> Result<Option<Self>> {
        let mut candidates = Vec::new();
        if let Some(d) = std::env::var_os(ENV_DIR).filter(|d| !d.is_empty()) {
            let d = PathBuf::from(d);
            if !d.is_dir() {
                tracing::warn!(
                    "{ENV_DIR}={} is not a folder; looking for a reranker elsewhere",
                    d.display()
                );
            }
            candidates.push(d);
        }
        candidates.extend(crate::onnx::model_dirs(RERANKER_DIR));
        for dir in candidates {
            if let Found::Reranker = look(&dir) {
                return Self::load_from(&dir).map(Some);
            }
        }
        tracing::debug!("no cross-encoder reranker installed");
        Ok(None)
    }

    /// Loads the reranker in `dir`: `model.onnx` (the ONNX graph), `tokenizer.json` (its
    /// Hugging Face tokenizer) and, when present, `vidya-reranker.toml` (`max_length = N`,
    /// tokens per pair including special tokens, 16–8192; default [`DEFAULT_MAX_LENGTH`]).
    ///
    /// The graph's interface is checked: int64 inputs `input_ids` and `attention_mask` (and
    /// `token_type_ids` when it has one), nothing else required, and a float32 output `logits`
    /// with one value per pair. Whatever truncation or padding `tokenizer.json` carries is
    /// replaced (MiniLM's, for one, cuts at 128 tokens).
    ///
    /// Errors: [`VidyaError::ModelMissing`] naming the missing file, the damaged file, or what
    /// is wrong with the graph's interface, with what to do; also when ONNX Runtime itself is
    /// missing (that message names the runtime).
    pub fn load_from(dir: &Path) -> Result<Self> {
        for file in [MODEL_FILE, TOKENIZER_FILE] {
            if !dir.join(file).is_file() {
                return Err(unusable(dir, format!("it has no {file}")));
            }
        }
        let max_length = read_config(dir)?;
        // A missing runtime is reported as such, not as a damaged reranker.
        crate::onnx::environment()?;
        let model = dir.join(MODEL_FILE);
        let session = crate::onnx::session(&model).map_err(|e| match e {
            VidyaError::ModelMissing { detail } => unusable(dir, detail),
            other => other,
        })?;
        let token_types = check_interface(&session).map_err(|why| {
            unusable(
                dir,
                format!(
                    "{MODEL_FILE} is not a cross-encoder: {why}; a cross-encoder takes int64 input_ids, attention_mask and token_type_ids [batch, seq] and gives float32 logits [batch, 1]"
                ),
            )
        })?;

        let tokenizer_path = dir.join(TOKENIZER_FILE);
        let mut plain_tokenizer = tokenizers::Tokenizer::from_file(&tokenizer_path)
            .map_err(|e| unusable(dir, format!("{TOKENIZER_FILE} is damaged ({e})")))?;
        plain_tokenizer.with_padding(None);
        plain_tokenizer
            .with_truncation(None)
            .map_err(|e| unusable(dir, format!("{TOKENIZER_FILE} settings ({e})")))?;
        let mut pair_tokenizer = plain_tokenizer.clone();
        pair_tokenizer
            .with_truncation(Some(tokenizers::TruncationParams {
                max_length,
                strategy: tokenizers::TruncationStrategy::OnlySecond,
                stride: 0,
                direction: tokenizers::TruncationDirection::Right,
            }))
            .map_err(|e| unusable(dir, format!("{TOKENIZER_FILE} settings ({e})")))?;
        let added_tokens = pair_tokenizer
            .get_post_processor()
            .map(|p| tokenizers::PostProcessor::added_tokens(p, true))
            .unwrap_or(3);
        let pad_id = ["[PAD]", "<pad>"]
            .iter()
            .find_map(|t| plain_tokenizer.token_to_id(t))
            .unwrap_or(0);
        tracing::info!(
            "cross-encoder reranker loaded from {} (max_length {max_length})",
            dir.display()
        );
        Ok(Self {
            session: Mutex::new(session),
            pair_tokenizer,
            plain_tokenizer,
            dir: dir.to_path_buf(),
            max_length,
            added_tokens,
            pad_id: i64::from(pad_id),
            token_types,
        })
    }

    /// Longest (query, passage) pair in tokens, special tokens included: `max_length` from
    /// `vidya-reranker.toml`, else [`DEFAULT_MAX_LENGTH`].
    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// Scores each passage against `query`: one logit per passage, in the order of `passages`
    /// (raw model logits, unitless; higher = more relevant). Runs in batches of [`BATCH`] pairs
    /// of similar length; an empty `passages` gives an empty result without running the model.
    ///
    /// Errors: [`VidyaError::ModelMissing`] when tokenizing or the model run fails (with
    /// the reranker's folder and what to do).
    pub fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let query = self.fit_query(query)?;
        // Each whitespace-separated word gives at least one token (bar words of invisible
        // characters only), so a passage's first 4 × max_length words hold every token that
        // survives truncation: a whole chapter is not tokenized to keep 512 tokens of it.
        let words = 4 * self.max_length;
        let pairs: Vec<(&str, &str)> = passages
            .iter()
            .map(|p| (query, head_words(p, words)))
            .collect();
        let encodings = self
            .pair_tokenizer
            .encode_batch(pairs, true)
            .map_err(|e| self.failed(format!("tokenizing the passages failed ({e})")))?;
        // Batch pairs of similar length together: less padding, same scores.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| encodings[i].get_ids().len());
        let mut scores = vec![0f32; encodings.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&tokenizers::Encoding> = chunk.iter().map(|&i| &encodings[i]).collect();
            for (&i, s) in chunk.iter().zip(self.run(&batch)?) {
                scores[i] = s;
            }
        }
        Ok(scores)
    }

    /// Reranks `passages` for `query`: `(index into passages, logit)` pairs, highest logit
    /// first, equal logits in passage order (lower index first), NaN last, at most `keep` of
    /// them. Errors: as [`CrossEncoder::score`].
    pub fn rerank(&self, query: &str, passages: &[&str], keep: usize) -> Result<Vec<(usize, f32)>> {
        if keep == 0 {
            return Ok(Vec::new());
        }
        Ok(best_first(&self.score(query, passages)?, keep))
    }

    /// The question as it goes into every pair: whole, unless it would leave the passage less
    /// than half of `max_length`; then cut to that half (at a word start when possible).
    fn fit_query<'q>(&self, query: &'q str) -> Result<&'q str> {
        let budget = self.max_length.saturating_sub(self.added_tokens) / 2;
        let enc = self
            .plain_tokenizer
            .encode(query, false)
            .map_err(|e| self.failed(format!("tokenizing the question failed ({e})")))?;
        if enc.get_ids().len() <= budget {
            return Ok(query);
        }
        let words = enc.get_word_ids();
        let offsets = enc.get_offsets();
        // Back up to the first token of the word the budget ends in.
        let mut cut = budget;
        while cut > 0 && words[cut].is_some() && words[cut - 1] == words[cut] {
            cut -= 1;
        }
        if cut == 0 {
            cut = budget;
        }
        let at = offsets[cut].0;
        let fitted = query.get(..at).unwrap_or(query);
        tracing::debug!(
            "question of {} tokens cut to {budget} for the reranker",
            enc.get_ids().len()
        );
        Ok(fitted)
    }

    /// Runs the model on one batch of encoded pairs; one logit per pair.
    fn run(&self, batch: &[&tokenizers::Encoding]) -> Result<Vec<f32>> {
        let n = batch.len();
        let seq = batch.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        let mut ids = vec![self.pad_id; n * seq];
        let mut mask = vec![0i64; n * seq];
        let mut types = vec![0i64; n * seq];
        for (row, e) in batch.iter().enumerate() {
            let base = row * seq;
            for (k, ((&id, &m), &t)) in e
                .get_ids()
                .iter()
                .zip(e.get_attention_mask())
                .zip(e.get_type_ids())
                .enumerate()
            {
                ids[base + k] = i64::from(id);
                mask[base + k] = i64::from(m);
                types[base + k] = i64::from(t);
            }
        }
        let tensor = |v: Vec<i64>| {
            Tensor::from_array(([n, seq], v))
                .map_err(|e| self.failed(format!("building the input tensor failed ({e})")))
        };
        let mut inputs = ort::inputs![
            "input_ids" => tensor(ids)?,
            "attention_mask" => tensor(mask)?
        ];
        if self.token_types {
            inputs.push(("token_type_ids".into(), tensor(types)?.into()));
        }
        let mut session = self.session.lock().unwrap_or_else(|p| p.into_inner());
        let outputs = session.run(inputs).map_err(|e| {
            self.failed(format!(
                "the model failed on {n} pairs of up to {seq} tokens ({e}); if vidya-reranker.toml sets a max_length above what the model accepts, lower it"
            ))
        })?;
        let (_, data) = outputs["logits"]
            .try_extract_tensor::<f32>()
            .map_err(|e| self.failed(format!("its logits output is not float32 ({e})")))?;
        if data.len() != n {
            return Err(self.failed(format!(
                "it gave {} logits for {n} pairs (one per pair expected)",
                data.len()
            )));
        }
        Ok(data.to_vec())
    }

    fn failed(&self, why: String) -> VidyaError {
        unusable(&self.dir, why)
    }
}

/// Reads `max_length` from `dir/vidya-reranker.toml`, or [`DEFAULT_MAX_LENGTH`] without one.
fn read_config(dir: &Path) -> Result<usize> {
    let path = dir.join(CONFIG_FILE);
    if !path.exists() {
        return Ok(DEFAULT_MAX_LENGTH);
    }
    let text = std::fs::read_to_string(&path)
        .map_err(|e| unusable(dir, format!("{CONFIG_FILE} cannot be read ({e})")))?;
    parse_config(&text).map_err(|why| unusable(dir, format!("{CONFIG_FILE} is not valid ({why})")))
}

/// The `max_length` of a `vidya-reranker.toml` text.
fn parse_config(text: &str) -> std::result::Result<usize, String> {
    let config: Config = toml::from_str(text).map_err(|e| e.message().to_string())?;
    match config.max_length {
        None => Ok(DEFAULT_MAX_LENGTH),
        Some(n) if (MIN_MAX_LENGTH..=MAX_MAX_LENGTH).contains(&n) => Ok(n),
        Some(n) => Err(format!(
            "max_length = {n}; it must be between {MIN_MAX_LENGTH} and {MAX_MAX_LENGTH} tokens"
        )),
    }
}

/// Checks the graph's inputs and output; returns whether it takes `token_type_ids`.
fn check_interface(session: &Session) -> std::result::Result<bool, String> {
    let names = |outlets: &[ort::value::Outlet]| {
        outlets
            .iter()
            .map(|o| o.name().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut token_types = false;
    for required in ["input_ids", "attention_mask"] {
        if !session.inputs().iter().any(|i| i.name() == required) {
            return Err(format!(
                "it has no input `{required}` (its inputs: {})",
                names(session.inputs())
            ));
        }
    }
    for input in session.inputs() {
        match input.name() {
            "input_ids" | "attention_mask" => {}
            "token_type_ids" => token_types = true,
            other => {
                return Err(format!(
                    "it needs an input `{other}` that a cross-encoder does not have"
                ))
            }
        }
        if input.dtype().tensor_type() != Some(TensorElementType::Int64) {
            return Err(format!(
                "its input `{}` is {}, not an int64 tensor",
                input.name(),
                input.dtype()
            ));
        }
    }
    let Some(logits) = session.outputs().iter().find(|o| o.name() == "logits") else {
        return Err(format!(
            "it has no output `logits` (its outputs: {})",
            names(session.outputs())
        ));
    };
    match logits.dtype() {
        ValueType::Tensor {
            ty: TensorElementType::Float32,
            shape,
            ..
        } => match shape.len() {
            1 => Ok(token_types),
            2 if shape[1] == 1 || shape[1] < 0 => Ok(token_types),
            _ => Err(format!(
                "its output `logits` has shape {shape:?}, not [batch, 1] (one logit per pair)"
            )),
        },
        other => Err(format!(
            "its output `logits` is {other}, not a float32 tensor"
        )),
    }
}

/// The start of `text` up to its `n`th whitespace-separated word (all of it when shorter).
fn head_words(text: &str, n: usize) -> &str {
    let mut words = 0;
    let mut in_word = false;
    for (i, c) in text.char_indices() {
        if c.is_whitespace() {
            if in_word {
                words += 1;
                if words == n {
                    return &text[..i];
                }
            }
            in_word = false;
        } else {
            in_word = true;
        }
    }
    text
}

/// Indices of `scores`, highest first (ties: lower index first; NaN last), at most `keep`.
fn best_first(scores: &[f32], keep: usize) -> Vec<(usize, f32)> {
    let key = |s: f32| if s.is_nan() { f32::NEG_INFINITY } else { s };
    let mut ranked: Vec<(usize, f32)> = scores.iter().copied().enumerate().collect();
    ranked.sort_by(|a, b| {
        key(b.1)
            .total_cmp(&key(a.1))
            .then_with(|| a.1.is_nan().cmp(&b.1.is_nan()))
            .then(a.0.cmp(&b.0))
    });
    ranked.truncate(keep);
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn best_first_orders_by_logit_then_index() {
        let scores = [1.0, 3.0, f32::NAN, 3.0, -2.0, f32::NEG_INFINITY];
        let ranked = best_first(&scores, 10);
        let order: Vec<usize> = ranked.iter().map(|r| r.0).collect();
        assert_eq!(order, vec![1, 3, 0, 4, 5, 2]);
        assert_eq!(best_first(&scores, 2), vec![(1, 3.0), (3, 3.0)]);
        assert!(best_first(&scores, 0).is_empty());
        assert!(best_first(&[], 5).is_empty());
    }

    #[test]
    fn head_words_keeps_the_first_words() {
        assert_eq!(head_words("a bb  ccc d", 2), "a bb");
        assert_eq!(head_words("  a bb ccc", 3), "  a bb ccc");
        assert_eq!(head_words("प्रकाश संश्लेषण वह प्रक्रिया", 2), "प्रकाश संश्लेषण");
        assert_eq!(head_words("", 5), "");
        assert_eq!(head_words("one", 1), "one");
    }

    #[test]
    fn config_gives_max_length_or_the_default() {
        assert_eq!(parse_config(""), Ok(DEFAULT_MAX_LENGTH));
        assert_eq!(parse_config("max_length = 64\n"), Ok(64));
        assert_eq!(
            parse_config("# comment\nmax_length = 256\nname = \"x\""),
            Ok(256)
        );
        assert!(parse_config("max_length = 4")
            .unwrap_err()
            .contains("between"));
        assert!(parse_config("max_length = -1").is_err());
        assert!(parse_config("max_length = \"long\"").is_err());
        assert!(parse_config("max_length = ").is_err());
    }

    #[test]
    fn a_folder_without_model_files_is_no_reranker() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(look(dir.path()), Found::Nothing));
        assert!(matches!(look(&dir.path().join("absent")), Found::Nothing));
        std::fs::write(dir.path().join(TOKENIZER_FILE), "{}").unwrap();
        assert!(matches!(look(dir.path()), Found::Reranker));
    }

    #[test]
    fn load_from_names_the_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(TOKENIZER_FILE), "{}").unwrap();
        let e = CrossEncoder::load_from(dir.path()).unwrap_err();
        assert_eq!(e.kind(), "reranker_broken");
        assert!(e.to_string().contains("it has no model.onnx"), "{e}");
        assert!(e.to_string().contains("--reranker-from"), "{e}");
    }

    #[test]
    fn a_bad_config_is_reported_before_anything_is_loaded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(MODEL_FILE), b"not a model").unwrap();
        std::fs::write(dir.path().join(TOKENIZER_FILE), "{}").unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), "max_length = 3").unwrap();
        let e = CrossEncoder::load_from(dir.path()).unwrap_err();
        assert!(
            e.to_string().contains("vidya-reranker.toml is not valid"),
            "{e}"
        );
    }
}
