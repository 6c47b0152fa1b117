//! The BM25 tokenizer: Unicode word boundaries that keep Indic words whole.
//!
//! Words come from UAX #29 word segmentation (`unicode-segmentation`). Under UAX #29 the Indic
//! vowel signs (matras), virama, nukta, anusvara and ZWJ/ZWNJ are `Extend`/`Format` characters
//! and stay attached to the letter before them, so "प्रकाश" stays one word (unlike the `bm25`
//! crate's default tokenizer, which ASCII-folds Devanagari, or SQLite FTS5's `unicode61`,
//! which splits at vowel signs). Each word is then NFC-normalised and lowercased; ZWJ/ZWNJ are
//! dropped from the term so both spellings match; nukta and candrabindu variants are folded
//! ([`fold_variants`]); stop words (NLTK English, stopwords-iso
//! Hindi/Marathi, NLTK Tamil) are removed; Latin-script words are stemmed with the Snowball
//! English stemmer (Porter 2, via `rust-stemmers`).

use crate::text::script::{script_of, Script};
use rust_stemmers::{Algorithm, Stemmer};
use std::collections::HashSet;
use std::sync::OnceLock;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// The Indic-aware tokenizer used for BM25 (documents and queries alike).
pub struct Tokenizer {
    stemmer: Stemmer,
    stop: &'static HashSet<String>,
}

impl std::fmt::Debug for Tokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokenizer").finish_non_exhaustive()
    }
}

impl Default for Tokenizer {
    fn default() -> Self {
        Self::new()
    }
}

fn stop_words() -> &'static HashSet<String> {
    static STOP: OnceLock<HashSet<String>> = OnceLock::new();
    STOP.get_or_init(|| {
        ["en", "hi", "mr", "ta", "te", "kn"]
            .iter()
            .filter_map(|l| stop_words::lookup(l))
            .flat_map(|ws| ws.iter())
            .map(|w| w.nfc().collect::<String>().to_lowercase())
            .collect()
    })
}

impl Tokenizer {
    /// Creates the tokenizer (the stop-word set is built once per process).
    pub fn new() -> Self {
        Self {
            stemmer: Stemmer::create(Algorithm::English),
            stop: stop_words(),
        }
    }

    /// Splits `text` into BM25 terms, in order (duplicates kept: BM25 needs term frequencies).
    pub fn terms(&self, text: &str) -> Vec<String> {
        let nfc: String = text.nfc().collect();
        let mut out = Vec::new();
        for word in nfc.unicode_words() {
            let lower = word.to_lowercase();
            let term: String = fold_variants(
                &lower
                    .chars()
                    .filter(|c| !matches!(c, '\u{200C}' | '\u{200D}'))
                    .collect::<String>(),
            )
            .into_owned();
            if term.is_empty() || self.stop.contains(&term) {
                continue;
            }
            if term.chars().any(|c| script_of(c) == Script::Latin) {
                // Single Latin letters ("a", "b" in option lists) carry no meaning.
                if term.chars().count() < 2 {
                    continue;
                }
                // The stemmer knows the ASCII apostrophe of "Newton's", not the typeset ’.
                let term = term.replace('’', "'");
                out.push(self.stemmer.stem(&term).into_owned());
            } else {
                out.push(term);
            }
        }
        out
    }

    /// True when `text` has at least one searchable term.
    pub fn has_terms(&self, text: &str) -> bool {
        !self.terms(text).is_empty()
    }
}

/// True when `word` (lower case, NFC) is one of the tokenizer's stop words.
pub fn is_stop_word(word: &str) -> bool {
    stop_words().contains(word)
}

/// Folds Devanagari spelling variants that books and students use interchangeably: the nukta
/// (U+093C) is dropped ("ज़रूरी" and "जरूरी", "फ़ोटो" and "फोटो" match) and candrabindu
/// (U+0901) becomes anusvara (U+0902) ("पाँच" and "पांच" match), as in the Hindi
/// normalisation of the Indic NLP Library (Kunchukuttan 2020). Terms without either come back
/// borrowed. Used on document and query terms alike, and on terms stored before this folding
/// existed (when the BM25 index is loaded). A possessive `’s`/`'s` left on a stored term is
/// dropped too ("newton’s" → "newton").
pub fn fold_variants(term: &str) -> std::borrow::Cow<'_, str> {
    // A possessive stored before the tokenizer read typeset apostrophes ("newton’s").
    if let Some(stem) = term.strip_suffix("’s").or_else(|| term.strip_suffix("'s")) {
        if !stem.is_empty() {
            return std::borrow::Cow::Owned(stem.to_string());
        }
    }
    if !term.contains(['\u{093C}', '\u{0901}']) {
        return std::borrow::Cow::Borrowed(term);
    }
    std::borrow::Cow::Owned(
        term.chars()
            .filter(|c| *c != '\u{093C}')
            .map(|c| if c == '\u{0901}' { '\u{0902}' } else { c })
            .collect(),
    )
}

/// Estimates the number of LLM tokens in `text`, for budgets and reports.
///
/// Rule of thumb for English subword tokenizers (≈ 0.75 words per token, as published by
/// OpenAI and similar for Llama/Qwen BPEs): tokens ≈ words × 4/3. Indic scripts fragment
/// into more tokens per word in these vocabularies, so the estimate never goes below one token
/// per 3 characters of non-Latin letters. Returns 0 for empty text.
pub fn estimate_tokens(text: &str) -> usize {
    let words = text.unicode_words().count();
    let indic_chars = text
        .chars()
        .filter(|c| {
            matches!(
                script_of(*c),
                Script::Devanagari | Script::Kannada | Script::Telugu | Script::Tamil
            )
        })
        .count();
    let by_words = (words * 4).div_ceil(3);
    by_words.max(indic_chars.div_ceil(3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn english_stems_and_drops_stopwords() {
        let t = Tokenizer::new();
        assert_eq!(
            t.terms("What happens in the light-dependent reactions?"),
            vec!["happen", "light", "depend", "reaction"]
        );
    }

    #[test]
    fn typeset_possessives_stem_like_typed_ones() {
        let t = Tokenizer::new();
        assert_eq!(t.terms("Newton’s first law"), t.terms("newtons first law"));
        assert_eq!(t.terms("Newton's"), vec!["newton"]);
        assert_eq!(
            fold_variants("newton’s"),
            "newton",
            "a term stored before the fix"
        );
    }

    #[test]
    fn devanagari_words_stay_whole() {
        let t = Tokenizer::new();
        // matras, virama (्), nukta (़) and anusvara (ं) stay inside the word
        let terms = t.terms("प्रकाश संश्लेषण में ज़मीन और पौधों की भूमिका।");
        assert!(terms.contains(&"प्रकाश".to_string()), "{terms:?}");
        assert!(terms.contains(&"संश्लेषण".to_string()), "{terms:?}");
        assert!(terms.contains(&"पौधों".to_string()), "{terms:?}");
        // ज़ + मीन stays one word (not split at the nukta); the nukta itself is folded away.
        assert!(terms.contains(&"जमीन".to_string()), "{terms:?}");
        assert!(!terms.iter().any(|w| w == "।"));
    }

    #[test]
    fn other_indic_scripts_stay_whole() {
        let t = Tokenizer::new();
        for (text, word) in [
            ("ಕರ್ನಾಟಕದ ರಾಜಧಾನಿ ಬೆಂಗಳೂರು", "ಕರ್ನಾಟಕದ"),
            ("తెలంగాణ రాష్ట్ర రాజధాని", "రాష్ట్ర"),
            ("தமிழ்நாட்டின் தலைநகரம் சென்னை", "தமிழ்நாட்டின்"),
        ] {
            let terms = t.terms(text);
            assert!(terms.contains(&word.to_string()), "{word} not in {terms:?}");
        }
    }

    #[test]
    fn zwnj_does_not_split() {
        let t = Tokenizer::new();
        let with = t.terms("क्\u{200C}ष");
        assert_eq!(with.len(), 1, "{with:?}");
        assert_eq!(with, t.terms("क्ष"));
    }

    #[test]
    fn nukta_and_candrabindu_spellings_match() {
        let t = Tokenizer::new();
        assert_eq!(t.terms("ज़रूरी फ़ोटो पाँच"), t.terms("जरूरी फोटो पांच"));
        // Precomposed nukta letters (U+095B) decompose under NFC and fold the same way.
        assert_eq!(t.terms("\u{095B}रूरी"), t.terms("जरूरी"));
        assert_eq!(fold_variants("प्रकाश"), "प्रकाश");
    }

    #[test]
    fn token_estimate() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("one two three"), 4);
        assert!(estimate_tokens("प्रकाश संश्लेषण") >= 4);
    }
}
