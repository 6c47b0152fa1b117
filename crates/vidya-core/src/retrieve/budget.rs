//! Stage 4, the token budget: a hard limit on the answer-model tokens of the context.
//!
//! [`fit`] works on the pruner's sentences (the pipeline's order): while the kept sentences of
//! all passages are over the budget, the lowest-scoring sentence goes (never the best one), so
//! the budget is spent on the sentences that match best, from as many passages as fit. Budgeting
//! whole chunks before pruning kept one 300-token chunk of five for the demo question; budgeting
//! the pruned sentences keeps several sources. [`enforce`] is the chunk-level budget, for
//! configurations without the pruner: it keeps the reranked chunks, best first, while they fit.
//!
//! Tokens are counted with the answer model's own tokenizer (`tokenizers`, the Llama 3.2
//! `tokenizer.json`, the family of the default model `llama3.2:3b`; provisioned by
//! `cargo xtask setup --models` into `resources/models/llama-3.2-tokenizer/`). When that file
//! is missing the count falls back to [`crate::text::estimate_tokens`] and says so.
//!
//! The first chunk is always kept: when it alone is over the budget it is cut after its last
//! whole sentence that fits.

use super::prune::PrunedPassage;
use crate::error::Result;
use crate::onnx::missing;
use crate::store::ChunkRecord;
use crate::text::{estimate_tokens, split_sentences};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Default budget (answer-model tokens): a school laptop reads a prompt at 18–30 tokens/s, so
/// 512 tokens of context cost 17–28 s before the first word.
pub const DEFAULT_BUDGET: usize = 512;
/// Folder of the answer model's tokenizer under `resources/models/`.
pub const TOKENIZER_DIR: &str = "llama-3.2-tokenizer";

/// Fewest vocabulary pieces an answer model's tokenizer can have: a byte-level BPE has one per
/// byte value (256) before any merge; Llama 3.2 has 128,256.
const MIN_VOCAB: usize = 256;
/// A sentence a real tokenizer splits into several different tokens.
const PROBE: &str = "Plants make sugar from light.";

/// Counts answer-model tokens.
pub struct TokenCounter {
    tokenizer: Option<tokenizers::Tokenizer>,
}

impl std::fmt::Debug for TokenCounter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokenCounter")
            .field("exact", &self.is_exact())
            .finish()
    }
}

impl TokenCounter {
    /// Loads the tokenizer from the first of [`crate::onnx::model_dirs`]`(TOKENIZER_DIR)` that
    /// has a `tokenizer.json`; without one, counts are estimates.
    ///
    /// Errors: [`crate::VidyaError::ModelMissing`] when the file is there but damaged.
    pub fn load() -> Result<Self> {
        match crate::onnx::model_dirs(TOKENIZER_DIR)
            .into_iter()
            .map(|d| d.join("tokenizer.json"))
            .find(|p| p.is_file())
        {
            Some(p) => Self::load_from(&p),
            None => Ok(Self::estimate()),
        }
    }

    /// Loads `tokenizer.json` at `path`: a BPE tokenizer whose merges are pairs (Llama 3's)
    /// through [`bpe_from_json`], any other through `tokenizers`' own loader. Errors:
    /// [`crate::VidyaError::ModelMissing`] when the file is unreadable or not a tokenizer.
    pub fn load_from(path: &Path) -> Result<Self> {
        let damaged =
            |e: &dyn std::fmt::Display| missing(format!("{} is damaged ({e})", path.display()));
        let bytes = std::fs::read(path).map_err(|e| damaged(&e))?;
        let tokenizer = match bpe_from_json(&bytes) {
            Some(t) => t,
            None => tokenizers::Tokenizer::from_bytes(&bytes).map_err(|e| damaged(&e))?,
        };
        // A file that parses but cannot be the answer model's tokenizer (an empty or tiny
        // vocabulary counted every context as 0 tokens, so the budget never cut): damaged.
        let probe = tokenizer
            .encode_fast(PROBE, false)
            .map(|e| {
                e.get_ids()
                    .iter()
                    .collect::<std::collections::HashSet<_>>()
                    .len()
            })
            .unwrap_or(0);
        if tokenizer.get_vocab_size(true) < MIN_VOCAB || probe < 2 {
            return Err(damaged(&format_args!(
                "a vocabulary of {} pieces, {probe} distinct ids for a test sentence",
                tokenizer.get_vocab_size(true)
            )));
        }
        Ok(Self {
            tokenizer: Some(tokenizer),
        })
    }

    /// A counter that estimates (no tokenizer file).
    pub fn estimate() -> Self {
        Self { tokenizer: None }
    }

    /// True when counts come from the answer model's tokenizer.
    pub fn is_exact(&self) -> bool {
        self.tokenizer.is_some()
    }

    /// Tokens of `text` (without special tokens).
    pub fn count(&self, text: &str) -> usize {
        match &self.tokenizer {
            Some(t) => t
                .encode_fast(text, false)
                .map(|e| e.len())
                .unwrap_or_else(|_| estimate_tokens(text)),
            None => estimate_tokens(text),
        }
    }
}

/// A `tokenizer.json` whose model is BPE with its merges as pairs, in types that serde reads
/// straight from the text. `tokenizers`' own loader reads the model through an untagged enum,
/// which first copies all of it (Llama 3's 128,000 pieces and 280,147 merges) into a generic
/// tree: most of `vidya ask`'s start-up on a laptop, and a peak of memory freed again.
#[derive(serde::Deserialize)]
struct BpeFile {
    #[serde(default)]
    added_tokens: Vec<AddedTokenJson>,
    normalizer: Option<tokenizers::NormalizerWrapper>,
    pre_tokenizer: Option<tokenizers::PreTokenizerWrapper>,
    post_processor: Option<tokenizers::PostProcessorWrapper>,
    decoder: Option<tokenizers::DecoderWrapper>,
    model: BpeModel,
}

/// An added token as `tokenizer.json` lists it (its id, then the token's fields).
#[derive(serde::Deserialize)]
struct AddedTokenJson {
    #[serde(flatten)]
    token: tokenizers::AddedToken,
}

/// The BPE model's fields in `tokenizer.json` (`tokenizers`' `BPE` serialization).
#[derive(serde::Deserialize)]
struct BpeModel {
    #[serde(rename = "type")]
    kind: String,
    dropout: Option<f32>,
    unk_token: Option<String>,
    continuing_subword_prefix: Option<String>,
    end_of_word_suffix: Option<String>,
    #[serde(default)]
    fuse_unk: bool,
    #[serde(default)]
    byte_fallback: bool,
    #[serde(default)]
    ignore_merges: bool,
    vocab: tokenizers::models::bpe::Vocab,
    merges: tokenizers::models::bpe::Merges,
}

/// The tokenizer in `json` when it is a BPE tokenizer with pair merges, built from typed
/// fields (the same model, normalizer, pre-tokenizer, post-processor, decoder and added
/// tokens as `tokenizers::Tokenizer::from_bytes`; a test compares their counts); `None` for
/// any other file, which the caller hands to `tokenizers` itself.
fn bpe_from_json(json: &[u8]) -> Option<tokenizers::Tokenizer> {
    let f: BpeFile = serde_json::from_slice(json).ok()?;
    let m = f.model;
    if m.kind != "BPE" {
        return None;
    }
    let mut b = tokenizers::models::bpe::BPE::builder()
        .vocab_and_merges(m.vocab, m.merges)
        .fuse_unk(m.fuse_unk)
        .byte_fallback(m.byte_fallback)
        .ignore_merges(m.ignore_merges);
    if let Some(d) = m.dropout {
        b = b.dropout(d);
    }
    if let Some(u) = m.unk_token {
        b = b.unk_token(u);
    }
    if let Some(p) = m.continuing_subword_prefix {
        b = b.continuing_subword_prefix(p);
    }
    if let Some(x) = m.end_of_word_suffix {
        b = b.end_of_word_suffix(x);
    }
    let mut t = tokenizers::Tokenizer::new(b.build().ok()?);
    t.with_normalizer(f.normalizer).ok()?;
    t.with_pre_tokenizer(f.pre_tokenizer);
    t.with_post_processor(f.post_processor);
    t.with_decoder(f.decoder);
    t.add_tokens(f.added_tokens.into_iter().map(|a| a.token))
        .ok()?;
    Some(t)
}

/// What the budget did.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct BudgetReport {
    /// Tokens of all chunks given.
    pub tokens_in: usize,
    /// Tokens of the chunks kept.
    pub tokens_out: usize,
    /// Chunks kept.
    pub kept: usize,
    /// True when the first chunk was cut to fit.
    pub cut_first: bool,
    /// True when counted with the answer model's tokenizer.
    pub exact: bool,
}

impl BudgetReport {
    /// The report of a context that was not budgeted: `tokens` in and out, `kept` items.
    pub fn unbudgeted(tokens: usize, kept: usize, counter: &TokenCounter) -> Self {
        Self {
            tokens_in: tokens,
            tokens_out: tokens,
            kept,
            cut_first: false,
            exact: counter.is_exact(),
        }
    }
}

/// Cuts the pruned `passages` (best first) to `budget` tokens by dropping their lowest-scoring
/// sentences first (never the best one, which is cut at a sentence or word boundary if it
/// alone is over the budget). Passages left without a sentence are dropped. Token counts are of
/// each passage's joined text ([`PrunedPassage::text`]), as the model receives it.
pub fn fit(
    mut passages: Vec<PrunedPassage>,
    budget: usize,
    counter: &TokenCounter,
) -> (Vec<PrunedPassage>, BudgetReport) {
    let count = |p: &PrunedPassage| counter.count(&p.text());
    let mut tokens: Vec<usize> = passages.iter().map(count).collect();
    let mut report = BudgetReport {
        tokens_in: tokens.iter().sum(),
        exact: counter.is_exact(),
        ..Default::default()
    };
    // (passage, sentence) of the overall best sentence: it is never dropped.
    let best = passages
        .iter()
        .enumerate()
        .flat_map(|(p, x)| {
            x.sentences
                .iter()
                .enumerate()
                .map(move |(s, k)| (p, s, k.score))
        })
        .max_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)))
        .map(|(p, s, _)| (p, passages[p].sentences[s].order));
    while tokens.iter().sum::<usize>() > budget {
        // The lowest-scoring sentence that is not the best; later passages lose ties.
        let worst = passages
            .iter()
            .enumerate()
            .flat_map(|(p, x)| x.sentences.iter().map(move |k| (p, k.order, k.score)))
            .filter(|(p, order, _)| Some((*p, *order)) != best)
            .min_by(|a, b| a.2.total_cmp(&b.2).then(b.0.cmp(&a.0)));
        let Some((p, order, _)) = worst else {
            // Only the best sentence is left and it is over the budget: cut it.
            if let Some((p, _)) = best {
                if let Some(s) = passages[p].sentences.first_mut() {
                    let cut = cut_to_fit(&s.text, budget, counter);
                    s.text.truncate(cut);
                    report.cut_first = true;
                }
                tokens[p] = count(&passages[p]);
            }
            break;
        };
        passages[p].sentences.retain(|s| s.order != order);
        tokens[p] = count(&passages[p]);
        if passages[p].sentences.is_empty() {
            tokens[p] = 0;
        }
    }
    passages.retain(|p| !p.sentences.is_empty());
    report.tokens_out = passages.iter().map(count).sum();
    report.kept = passages.len();
    (passages, report)
}

/// Keeps `chunks` (best first) while they fit `budget` tokens.
pub fn enforce(
    chunks: Vec<ChunkRecord>,
    budget: usize,
    counter: &TokenCounter,
) -> (Vec<ChunkRecord>, BudgetReport) {
    let counts: Vec<usize> = chunks.iter().map(|c| counter.count(&c.text)).collect();
    let mut report = BudgetReport {
        tokens_in: counts.iter().sum(),
        exact: counter.is_exact(),
        ..Default::default()
    };
    let mut kept = Vec::new();
    for (i, (mut chunk, n)) in chunks.into_iter().zip(counts).enumerate() {
        if report.tokens_out + n <= budget {
            report.tokens_out += n;
            kept.push(chunk);
            continue;
        }
        if i == 0 {
            let cut = cut_to_fit(&chunk.text, budget, counter);
            chunk.text.truncate(cut);
            chunk.page_starts.retain(|(o, _)| *o < cut.max(1));
            report.tokens_out = counter.count(&chunk.text);
            report.cut_first = true;
            kept.push(chunk);
        }
        break;
    }
    report.kept = kept.len();
    (kept, report)
}

/// Byte length of the longest prefix of whole sentences of `text` within `budget` tokens (at
/// least the first sentence, itself cut at a character boundary when needed).
fn cut_to_fit(text: &str, budget: usize, counter: &TokenCounter) -> usize {
    let mut end = 0;
    for s in split_sentences(text) {
        if counter.count(&text[..s.end]) > budget {
            break;
        }
        end = s.end;
    }
    if end == 0 {
        // One sentence longer than the budget: keep as many characters as fit.
        let mut lo = 0;
        for (i, _) in text.char_indices() {
            if counter.count(&text[..i]) > budget {
                break;
            }
            lo = i;
        }
        end = lo;
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(id: i64, text: &str) -> ChunkRecord {
        ChunkRecord {
            id,
            book_id: 1,
            book_title: "B".into(),
            chapter_title: "C".into(),
            text: text.into(),
            page_starts: vec![(0, 0)],
            first_page: 0,
            last_page: 0,
            kind: crate::ingest::blocks::BlockKind::Body,
            context: String::new(),
        }
    }

    /// The typed loader gives the same tokens as `tokenizers`' own, on the installed Llama 3.2
    /// tokenizer (skipped, saying so, where `cargo xtask setup --models` has not run), and a
    /// tokenizer it does not read (not BPE with pair merges) still loads through `tokenizers`.
    #[test]
    fn the_typed_loader_counts_as_the_tokenizers_crate_does() {
        let Some(path) = crate::onnx::model_dirs(TOKENIZER_DIR)
            .into_iter()
            .map(|d| d.join("tokenizer.json"))
            .find(|p| p.is_file())
        else {
            eprintln!("skipped: the answer model's tokenizer is not installed (cargo xtask setup --models)");
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        let fast = bpe_from_json(&bytes).expect("Llama 3.2's tokenizer is BPE with pair merges");
        let reference = tokenizers::Tokenizer::from_bytes(&bytes).unwrap();
        let texts = [
            "Photosynthesis makes sugar from light, water and carbon dioxide.",
            "  Newton's 2nd law: F = ma (force = mass × acceleration) ... 9.8 m/s²\n\nNext line",
            "प्रकाश संश्लेषण क्या है? पौधे हरे क्यों दिखते हैं",
            "ಸಸ್ಯಗಳು ಹಸಿರು ಏಕೆ? தாவரங்கள் ஏன் பச்சை? మొక్కలు ఆకుపచ్చ ఎందుకు?",
            "wat is osmosis ?? plz explain fast!!! 😀 <|begin_of_text|> <|eot_id|>",
            "I'll, you've, they'd; ABC123456789 don't   spaces\ttabs",
        ];
        for t in texts {
            for special in [false, true] {
                let a = fast.encode(t, special).unwrap();
                let b = reference.encode(t, special).unwrap();
                assert_eq!(
                    a.get_ids(),
                    b.get_ids(),
                    "{t:?} (special tokens: {special})"
                );
            }
        }
        let counter = TokenCounter::load_from(&path).unwrap();
        assert!(counter.is_exact());
        assert_eq!(
            counter.count(texts[0]),
            reference.encode_fast(texts[0], false).unwrap().len()
        );

        // A WordPiece tokenizer is not BPE: `tokenizers` reads it.
        let dir = tempfile::tempdir().unwrap();
        let wp = dir.path().join("tokenizer.json");
        let mut vocab = serde_json::json!({"[UNK]": 0, "light": 1, "plant": 2, "##s": 3, "make": 4, "sugar": 5, "from": 6, "Plants": 7, ".": 8});
        for i in 9..300 {
            vocab[format!("w{i}")] = i.into();
        }
        let wordpiece = serde_json::json!({
            "version": "1.0", "truncation": null, "padding": null, "added_tokens": [],
            "normalizer": null, "pre_tokenizer": {"type": "Whitespace"},
            "post_processor": null, "decoder": null,
            "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                      "max_input_chars_per_word": 100, "vocab": vocab}
        });
        std::fs::write(&wp, wordpiece.to_string()).unwrap();
        assert!(bpe_from_json(&std::fs::read(&wp).unwrap()).is_none());
        let c = TokenCounter::load_from(&wp).unwrap();
        assert_eq!(c.count("plants light"), 3);
        // A BPE with an empty vocabulary parses, but would count every text as 0 tokens.
        std::fs::write(
            &wp,
            br#"{"model": {"type": "BPE", "vocab": {}, "merges": []}}"#,
        )
        .unwrap();
        let e = TokenCounter::load_from(&wp).unwrap_err().to_string();
        assert!(
            e.contains("damaged") && e.contains("vocabulary of 0"),
            "{e}"
        );
        // Not a tokenizer at all: named as damaged.
        std::fs::write(&wp, b"{\"model\": 5}").unwrap();
        let e = TokenCounter::load_from(&wp).unwrap_err().to_string();
        assert!(e.contains("damaged"), "{e}");
    }

    #[test]
    fn keeps_chunks_in_order_while_they_fit_and_cuts_an_oversized_first() {
        let counter = TokenCounter::estimate();
        let s = "Photosynthesis makes sugar from light. ";
        let a = chunk(1, &s.repeat(5));
        let b = chunk(2, &s.repeat(5));
        let per = counter.count(&a.text);
        let (kept, r) = enforce(vec![a.clone(), b.clone()], per * 2, &counter);
        assert_eq!(kept.len(), 2);
        let (kept, r2) = enforce(vec![a.clone(), b], per + 3, &counter);
        assert_eq!(kept.len(), 1);
        assert!(r2.tokens_out <= per + 3 && r.tokens_in == per * 2);
        let (kept, r3) = enforce(vec![a], per / 2, &counter);
        assert!(r3.cut_first && r3.tokens_out <= per / 2);
        assert!(kept[0].text.trim_end().ends_with('.'), "{}", kept[0].text);
    }
}
