//! Stage 0, the question as the retrievers read it: student English made plain, misspelt words
//! corrected against the library's own vocabulary, Hinglish function words dropped and Hindi
//! science words given their English textbook terms.
//!
//! Students type "wat is photosyntesis", "y do plants look green", "diff b/w mitosis n
//! meiosis", "mitochondria ko powerhouse kyu kehte hai" or "न्यूटन का पहला नियम क्या है".
//! [`Normalizer::normalize`] turns such a question into:
//! - [`NormalizedQuery::text`], for the embedder and BM25: SMS spellings written out
//!   (`data/sms_spellings.tsv`); Latin-script words the books never use corrected to the
//!   closest word they do use (optimal string alignment distance 1, or 2 for words of nine
//!   letters or more; the most frequent such word wins; Indic words are never rewritten, nor
//!   the short romanised Hindi words of a Hinglish question, nor a word whose Snowball stem
//!   the books use ("harming" beside "harm"), nor mixed-case names and short acronyms as
//!   typed ("tTregs", "PTEN"));
//!   in a Hinglish question, its Hindi function words dropped (`data/stopwords_hinglish.txt`)
//!   and its Hindi words with a glossary entry (`data/glossary_hi_en.tsv`: NCERT terminology,
//!   Devanagari and common romanised spellings) replaced by the English terms;
//! - for a question with Devanagari words in the glossary, the English terms appended after
//!   the original words, so a Hindi book still matches the Hindi words and an English book the
//!   English ones; a Devanagari word without a glossary entry that is an English term written
//!   in Devanagari ("स्टोमेटा", "माइटोकॉन्ड्रिया") is matched to the library's English word
//!   with the same phonetic key ([`latin_key`], [`devanagari_key`]: consonants mapped to one
//!   letter per sound, each vowel run one mark, in the manner of Soundex), and that word is
//!   appended too.
//!
//! The question shown to the student, remembered and given to the model is never changed:
//! this is what the retrievers search with. [`NormalizedQuery::unknown`] counts the content
//! words the library does not know before correction (a signal of an off-topic question for
//! the relevance gate).

use crate::text::script::{script_of, Script};
use crate::text::tokenize::is_stop_word;
use std::collections::{HashMap, HashSet};
use unicode_normalization::UnicodeNormalization;

const SMS: &str = include_str!("../../data/sms_spellings.tsv");
pub(crate) const GLOSSARY: &str = include_str!("../../data/glossary_hi_en.tsv");
const HINGLISH_STOP: &str = include_str!("../../data/stopwords_hinglish.txt");

/// Romanised Hindi words that mark a question as Hinglish (their presence turns on the
/// Hinglish rules: function words dropped, glossary words translated).
const HINGLISH_MARKERS: &[&str] = &[
    "hai", "hain", "kya", "kyu", "kyun", "kyon", "kaise", "hota", "hoti", "hote", "aur", "mein",
    "ka", "ki", "ke", "ko", "se", "batao", "kitne", "kitna", "kitni", "kaha", "kahan", "kab",
    "kaun", "kehte", "kahte", "hoga", "hua", "matlab",
];

/// The romanised Hindi function words of `data/stopwords_hinglish.txt` ("hai", "aur", "ke"),
/// lower case.
pub fn hinglish_stop_words() -> &'static HashSet<String> {
    static SET: std::sync::OnceLock<HashSet<String>> = std::sync::OnceLock::new();
    SET.get_or_init(|| {
        HINGLISH_STOP
            .lines()
            .map(|l| l.trim().to_lowercase())
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .collect()
    })
}

/// True for a romanised Hindi function or question word (lower case): one of
/// [`hinglish_stop_words`] or [`HINGLISH_MARKERS`] ("kya", "hota").
pub fn is_hinglish_function_word(word: &str) -> bool {
    hinglish_stop_words().contains(word) || HINGLISH_MARKERS.contains(&word)
}

/// True when `question` has a romanised Hindi word of [`HINGLISH_MARKERS`] ("kya", "hai",
/// "kaise"): Hindi written in Latin letters.
pub fn has_hinglish_marker(question: &str) -> bool {
    question
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| HINGLISH_MARKERS.contains(&w.to_lowercase().as_str()))
}

/// Fewest consonants in a phonetic key matched between scripts (shorter ones collide too
/// often).
pub const MIN_KEY: usize = 3;
/// Shortest library word a Devanagari word is matched to by sound.
pub const MIN_PHONETIC_LETTERS: usize = 6;

/// The phonetic key of a Latin-script word, comparable with [`devanagari_key`]: consonants one
/// letter per sound (`ph` f, `ch` k as in the Greek-derived science words, `th` t, `sh` s,
/// `ck` k, `qu` kv, `x` ks, `c` s before e/i/y and k otherwise, `g` j before e/i/y, `z` j,
/// `h` dropped), each run of vowels one `V` (`y` and a `w` after a vowel count as vowels), a
/// final silent `e` dropped and a final `le` read "-əl", `tion`/`ssion` as "shun". "mitochondria" → "mVtVkVndrV",
/// "greenhouse" → "grVnVs".
pub fn latin_key(word: &str) -> String {
    let mut w = word.to_ascii_lowercase();
    if w.len() > 3 && w.ends_with("le") && !w.ends_with("ele") {
        // "sickle", "particle": a vowel before the l.
        w.truncate(w.len() - 2);
        w.push_str("Vl");
    } else if w.len() > 3 && w.ends_with('e') && !w.ends_with("ee") {
        w.pop();
    }
    let w = w
        .replace("ssion", "sVn")
        .replace("tion", "sVn")
        .replace("ph", "f")
        .replace("ch", "k")
        .replace("ck", "k")
        .replace("th", "t")
        .replace("sh", "s")
        .replace("qu", "kv")
        .replace('h', "");
    let chars: Vec<char> = w.chars().collect();
    let mut out = String::new();
    let push = |out: &mut String, k: char| {
        if !out.ends_with(k) {
            out.push(k);
        }
    };
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied().unwrap_or(' ');
        let soft = matches!(next, 'e' | 'i' | 'y');
        let k = match c {
            'a' | 'e' | 'i' | 'o' | 'u' | 'y' | 'V' => 'V',
            'w' if i == 0 => 'v',
            'w' => 'V',
            'c' if soft => 's',
            'c' | 'q' | 'k' => 'k',
            'g' if soft => 'j',
            'z' => 'j',
            'x' => {
                push(&mut out, 'k');
                's'
            }
            c if c.is_ascii_lowercase() => c,
            _ => continue,
        };
        push(&mut out, k);
    }
    out
}

/// The phonetic key of a Devanagari word, comparable with [`latin_key`]: each consonant one
/// letter (aspirates as their plain consonant, श/ष/स s, फ f, व v, anusvara n, ह dropped), each
/// run of vowels, vowel signs and य one `V`, the inherent vowel of a consonant without a vowel
/// sign or virama a `V` too except at the end of the word (Hindi drops it there). `None` when
/// the word has a letter outside Devanagari. Call it on a word whose nukta is folded
/// ([`crate::text::tokenize::fold_variants`]).
pub fn devanagari_key(word: &str) -> Option<String> {
    let chars: Vec<char> = word.chars().collect();
    let mut out = String::new();
    let push = |out: &mut String, k: char| {
        if !out.ends_with(k) {
            out.push(k);
        }
    };
    let is_sign = |c: char| matches!(c, '\u{093A}'..='\u{094F}' | '\u{0955}'..='\u{0957}' | '\u{0962}' | '\u{0963}');
    for (i, &c) in chars.iter().enumerate() {
        let consonant = match c {
            'क' | 'ख' => Some('k'),
            'ग' | 'घ' => Some('g'),
            'च' | 'छ' => Some('c'),
            'ज' | 'झ' => Some('j'),
            'ट' | 'ठ' | 'त' | 'थ' => Some('t'),
            'ड' | 'ढ' | 'द' | 'ध' => Some('d'),
            'ङ' | 'ञ' | 'ण' | 'न' => Some('n'),
            'प' => Some('p'),
            'फ' => Some('f'),
            'ब' | 'भ' => Some('b'),
            'म' => Some('m'),
            'र' => Some('r'),
            'ल' | 'ळ' => Some('l'),
            'व' => Some('v'),
            'श' | 'ष' | 'स' => Some('s'),
            'ह' => Some('h'),
            _ => None,
        };
        match consonant {
            Some(k) => {
                if k != 'h' {
                    push(&mut out, k);
                }
                let next = chars.get(i + 1).copied();
                let bare = next.is_some_and(|n| !is_sign(n) && n != '\u{094D}' && n != '\u{093C}');
                if bare {
                    push(&mut out, 'V');
                }
            }
            None => match c {
                'य' | 'ऋ' | '\u{0904}'..='\u{0914}' => push(&mut out, 'V'),
                'ं' | 'ँ' => push(&mut out, 'n'),
                '\u{094D}' | '\u{093C}' | 'ः' => {}
                c if is_sign(c) => push(&mut out, 'V'),
                '\u{0900}'..='\u{097F}' => {}
                _ => return None,
            },
        }
    }
    Some(out)
}

/// Consonants in a phonetic key.
fn consonants(key: &str) -> usize {
    key.chars().filter(|c| *c != 'V').count()
}

/// A correction of one question word.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Correction {
    /// The word as typed (lower case).
    pub from: String,
    /// What the retrievers search instead.
    pub to: String,
}

/// The question as the retrievers read it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NormalizedQuery {
    /// The text to embed and tokenize.
    pub text: String,
    /// Words changed (SMS spellings, typos, translations, dropped Hinglish words).
    pub corrections: Vec<Correction>,
    /// Content words (Latin script, not stop words, not SMS spellings) the library's
    /// vocabulary does not hold and no library word is close to (what correction left
    /// unknown: "mughal", not "photosyntesis").
    pub unknown: usize,
    /// Content words in all (the denominator of `unknown`).
    pub content: usize,
    /// True when the question reads as Hinglish (Hindi in Latin letters).
    pub hinglish: bool,
    /// The English topic terms found for the question's Devanagari words (glossary and
    /// phonetic matches; question words such as "क्या" left out), when there are any.
    pub english: Option<String>,
    /// Share (0..=1) of the question's Devanagari content words (not stop words, not question
    /// and function words) that [`english`](Self::english) translates: how much of the
    /// question the English terms stand for.
    pub english_share: f32,
}

/// Normalises questions against one library's vocabulary.
pub struct Normalizer {
    vocabulary: HashMap<String, u32>,
    by_key: HashMap<String, (String, u32)>,
    by_length: HashMap<usize, Vec<(String, u32)>>,
    sms: HashMap<String, String>,
    glossary: HashMap<String, String>,
    /// Glossary keys that are question or function words ("क्या" what, "अंतर" difference):
    /// translated, but not topic terms.
    function_words: HashSet<String>,
    longest_phrase: usize,
    /// Snowball English stems of the vocabulary's Latin-script words: a question word with one
    /// of these stems is an inflection the books use ("harming" where they say "harm"), not a
    /// typo, and BM25 matches it already.
    stems: HashSet<String>,
    stemmer: rust_stemmers::Stemmer,
}

impl std::fmt::Debug for Normalizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Normalizer")
            .field("vocabulary", &self.vocabulary.len())
            .finish_non_exhaustive()
    }
}

pub(crate) fn table(text: &str) -> impl Iterator<Item = (String, String)> + '_ {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let (a, b) = l.split_once('\t')?;
            let a = fold(a.trim());
            (!a.is_empty()).then(|| (a, b.trim().to_lowercase()))
        })
}

/// NFC, lower case, Devanagari nukta and candrabindu folded (as the BM25 tokenizer folds them).
pub(crate) fn fold(w: &str) -> String {
    crate::text::tokenize::fold_variants(&w.nfc().collect::<String>().to_lowercase()).into_owned()
}

/// Punctuation around a word (not `/`, which "b/w" needs; never a letter or an Indic vowel
/// sign).
fn is_punctuation(c: char) -> bool {
    (c.is_ascii_punctuation() && c != '/') || "।॥“”‘’…–—«»¿¡".contains(c)
}

fn is_latin_word(w: &str) -> bool {
    w.chars().all(|c| c.is_ascii_alphabetic())
}

/// True when `word` as typed reads as a name rather than a misspelling: mixed case with a
/// capital after the first letter ("tTregs", "ComYMV", "aPKCz"), or an acronym of at most
/// five capitals ("PTEN", "OPML").
fn is_name(word: &str) -> bool {
    let w = word.trim_matches(is_punctuation);
    let later_capital = w.chars().skip(1).any(|c| c.is_uppercase());
    let lower = w.chars().any(|c| c.is_lowercase());
    later_capital && (lower || w.chars().count() <= 5)
}

fn has_devanagari(w: &str) -> bool {
    w.chars().any(|c| script_of(c) == Script::Devanagari)
}

/// The question's words as typed (NFC) and as compared: lower case, folded, the punctuation
/// around them stripped ("b/w" and "w/o" keep their slash).
fn split_words(question: &str) -> (Vec<String>, Vec<String>) {
    let nfc: String = question.nfc().collect();
    let raw: Vec<String> = nfc.split_whitespace().map(str::to_string).collect();
    let words = raw
        .iter()
        .map(|w| fold(w.trim_matches(is_punctuation).trim_matches('/')))
        .map(|w| {
            if w.len() > 2 && w.ends_with('/') {
                w.trim_end_matches('/').to_string()
            } else {
                w
            }
        })
        .collect();
    (raw, words)
}

/// A question being read word by word ([`Normalizer::normalize`]).
#[derive(Default)]
struct Reading {
    /// The words the retrievers read.
    out: Vec<String>,
    /// English terms added in brackets after a Devanagari question.
    appended: Vec<String>,
    /// The topic terms among them (not question or function words).
    topic: Vec<String>,
    corrections: Vec<Correction>,
    unknown: usize,
    content: usize,
    /// Devanagari content words, and how many of them were translated.
    indic_content: usize,
    translated: usize,
}

impl Reading {
    fn correct(&mut self, from: String, to: String) {
        self.corrections.push(Correction { from, to });
    }

    fn finish(self, hinglish: bool) -> NormalizedQuery {
        let english = (!self.topic.is_empty()).then(|| self.topic.join(" "));
        let mut text = self.out.join(" ");
        if !self.appended.is_empty() {
            text.push_str(" (");
            text.push_str(&self.appended.join(" "));
            text.push(')');
        }
        NormalizedQuery {
            text,
            corrections: self.corrections,
            unknown: self.unknown,
            content: self.content,
            hinglish,
            english,
            english_share: self.translated as f32 / self.indic_content.max(1) as f32,
        }
    }
}

impl Normalizer {
    /// A normaliser over `vocabulary` (word → count, [`crate::store::Library::vocabulary`]).
    pub fn new(vocabulary: HashMap<String, u32>) -> Self {
        let mut by_length: HashMap<usize, Vec<(String, u32)>> = HashMap::new();
        let mut by_key: HashMap<String, (String, u32)> = HashMap::new();
        let stemmer = rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English);
        let mut stems = HashSet::new();
        for (w, c) in &vocabulary {
            if is_latin_word(w) {
                stems.insert(stemmer.stem(w).into_owned());
            }
            if is_latin_word(w) && w.len() >= 3 {
                by_length.entry(w.len()).or_default().push((w.clone(), *c));
                let key = latin_key(w);
                // Technical terms, not short everyday words ("model", "medal") that a Hindi
                // word's sound can land on by chance.
                if w.len() >= MIN_PHONETIC_LETTERS && consonants(&key) >= MIN_KEY && *c >= 2 {
                    let e = by_key.entry(key).or_insert_with(|| (w.clone(), 0));
                    if *c > e.1 || (*c == e.1 && w < &e.0) {
                        *e = (w.clone(), *c);
                    }
                }
            }
        }
        let glossary: HashMap<String, String> = table(GLOSSARY).collect();
        let function_words: HashSet<String> = GLOSSARY
            .split("# question and function words")
            .nth(1)
            .map(|rest| table(rest).map(|(k, _)| k).collect())
            .unwrap_or_default();
        let longest_phrase = glossary
            .keys()
            .map(|k| k.split_whitespace().count())
            .max()
            .unwrap_or(1);
        Self {
            vocabulary,
            by_key,
            by_length,
            sms: table(SMS).collect(),
            glossary,
            function_words,
            longest_phrase,
            stems,
            stemmer,
        }
    }

    /// True when the library uses `word` (lower case).
    pub fn knows(&self, word: &str) -> bool {
        self.vocabulary.contains_key(word)
    }

    /// True when the library uses a word with `word`'s Snowball English stem (lower case,
    /// Latin script): "harming" where the books say "harm" or "harmed".
    pub fn knows_stem(&self, word: &str) -> bool {
        is_latin_word(word) && self.stems.contains(self.stemmer.stem(word).as_ref())
    }

    /// The library word closest to `word` (a Latin-script word the library does not use), if
    /// one is close enough: optimal string alignment distance 1 (2 for words of nine letters
    /// or more), the most frequent at the smallest distance, used at least twice.
    pub fn correct(&self, word: &str) -> Option<String> {
        let n = word.len();
        if n < 4 || !is_latin_word(word) {
            return None;
        }
        let max = if n >= 9 { 2 } else { 1 };
        let mut best: Option<(usize, u32, &str)> = None;
        for len in n.saturating_sub(max)..=n + max {
            for (cand, count) in self.by_length.get(&len).into_iter().flatten() {
                if *count < 2 {
                    continue;
                }
                let d = rapidfuzz::distance::osa::distance(word.chars(), cand.chars());
                if d > max {
                    continue;
                }
                let better = match best {
                    None => true,
                    Some((bd, bc, bw)) => {
                        d < bd || (d == bd && (*count > bc || (*count == bc && cand.as_str() < bw)))
                    }
                };
                if better {
                    best = Some((d, *count, cand));
                }
            }
        }
        best.map(|(_, _, w)| w.to_string())
    }

    /// Normalises `question` (see the module docs): each word, or glossary phrase, read by
    /// the first step that takes it (glossary phrase, English term in Devanagari, SMS
    /// spelling, Hinglish function word, misspelt English word), else kept as typed.
    pub fn normalize(&self, question: &str) -> NormalizedQuery {
        let (raw, words) = split_words(question);
        let hinglish = words.iter().any(|w| HINGLISH_MARKERS.contains(&w.as_str()));
        let mut r = Reading::default();
        let mut i = 0;
        while i < words.len() {
            if let Some(len) = self.glossary_phrase(&words, &raw, i, hinglish, &mut r) {
                i += len;
                continue;
            }
            let (w, original) = (&words[i], raw[i].as_str());
            i += 1;
            let taken = self.devanagari_term(w, original, &mut r)
                || self.sms_word(w, &original.to_lowercase(), &mut r)
                || self.hinglish_function_word(w, hinglish, &mut r)
                || self.misspelt_word(w, original, hinglish, &mut r);
            if taken {
                continue;
            }
            if has_devanagari(w) && !is_stop_word(w) {
                r.indic_content += 1;
            }
            r.out.push(original.to_string());
        }
        r.finish(hinglish)
    }

    /// The longest glossary phrase starting at word `i` (Devanagari anywhere, romanised in a
    /// Hinglish question): a Devanagari phrase stays and its English is added; a romanised one
    /// is replaced. The number of words it took.
    fn glossary_phrase(
        &self,
        words: &[String],
        raw: &[String],
        i: usize,
        hinglish: bool,
        r: &mut Reading,
    ) -> Option<usize> {
        for len in (1..=self.longest_phrase.min(words.len() - i)).rev() {
            let phrase = words[i..i + len].join(" ");
            let Some(english) = self.glossary.get(&phrase) else {
                continue;
            };
            if has_devanagari(&phrase) {
                r.out.extend(raw[i..i + len].iter().cloned());
                r.appended.push(english.clone());
                if !self.function_words.contains(&phrase) {
                    r.topic.push(english.clone());
                    r.indic_content += len;
                    r.translated += len;
                }
            } else if hinglish && !self.knows(&phrase) {
                r.out.push(english.clone());
            } else {
                continue;
            }
            r.correct(phrase, english.clone());
            return Some(len);
        }
        None
    }

    /// An English term written in Devanagari: kept, and the library word with its consonant
    /// skeleton added.
    fn devanagari_term(&self, w: &str, original: &str, r: &mut Reading) -> bool {
        if !has_devanagari(w) || self.knows(w) || is_stop_word(w) {
            return false;
        }
        let Some((english, _)) = devanagari_key(w)
            .filter(|k| consonants(k) >= MIN_KEY)
            .and_then(|k| self.by_key.get(&k))
        else {
            return false;
        };
        r.correct(w.to_string(), english.clone());
        r.appended.push(english.clone());
        r.topic.push(english.clone());
        r.indic_content += 1;
        r.translated += 1;
        r.out.push(original.to_string());
        true
    }

    /// An SMS spelling ("wat", "b/w"), replaced; `lower`: the word as typed, lower case.
    fn sms_word(&self, w: &str, lower: &str, r: &mut Reading) -> bool {
        let Some(sms) = self.sms.get(w).or_else(|| self.sms.get(lower)) else {
            return false;
        };
        // A spelling the books themselves use ("Bt toxin") is a word, not SMS; single letters
        // ("u", "r", "y") are SMS in a question even where books use them as symbols.
        if w.chars().count() != 1 && self.knows(w) {
            return false;
        }
        r.correct(w.to_string(), sms.clone());
        r.out.push(sms.clone());
        true
    }

    /// A Hinglish function word ("kya", "hota") in a Hinglish question: dropped.
    fn hinglish_function_word(&self, w: &str, hinglish: bool, r: &mut Reading) -> bool {
        if !(hinglish && hinglish_stop_words().contains(w) && !self.knows_as_content(w)) {
            return false;
        }
        r.correct(w.to_string(), String::new());
        true
    }

    /// A Latin-script content word: counted, and when the library does not use it (nor its
    /// stem), replaced by the closest library word, or counted unknown when none is close.
    fn misspelt_word(&self, w: &str, original: &str, hinglish: bool, r: &mut Reading) -> bool {
        if !(is_latin_word(w) && w.len() >= 2 && !is_stop_word(w)) {
            return false;
        }
        r.content += 1;
        // An inflection of a library word is neither unknown nor a typo.
        if self.knows(w) || self.knows_stem(w) {
            return false;
        }
        // Romanised Hindi words ("chot", "karne") are not English typos: in a Hinglish
        // question only longer words are corrected. Nor are names in mixed case or short
        // acronyms ("tTregs", "ComYMV", "PTEN"), which are typed on purpose.
        let fixed = if (hinglish && w.len() < 6) || is_name(original) {
            None
        } else {
            self.correct(w)
        };
        let Some(fixed) = fixed else {
            // Counted unknown only when no library word is close to it.
            r.unknown += 1;
            return false;
        };
        r.correct(w.to_string(), fixed.clone());
        r.out.push(fixed);
        true
    }

    /// True when `w` is a word the books use often enough to be content rather than a
    /// Hinglish function word that happens to be spelt like one ("par" in a physics book is
    /// rare; "me" is an English stop word either way).
    fn knows_as_content(&self, w: &str) -> bool {
        w.len() > 3 && self.vocabulary.get(w).is_some_and(|c| *c >= 20)
    }
}

#[cfg(test)]
mod tests;
