//! Citations attached by Vidya, not by trust: every sentence of the model's answer is matched
//! to the source sentences that support it.
//!
//! Small models (0.5B–3B) drop `[n]` markers, cite the wrong source, and fill gaps from their
//! own memory. [`ground`] checks each answer sentence against the sentences of the sources the
//! model was given:
//! - **lexical support**: the share of the sentence's content terms (the BM25 tokenizer's
//!   stemmed terms, stop words left out) found in one source;
//! - **embedding support**: the best cosine between the sentence and one source sentence, both
//!   embedded as `passage: ` with the bundled multilingual-e5-small, which also compares a
//!   Hindi answer with English sources;
//! - **numbers and named terms must match**: a number in the sentence ("46 chromosomes",
//!   "3 × 10^8") must appear in the source, and so must a capitalised name the sources use
//!   nowhere ("Einstein" in an answer about Newton's laws).
//!
//! A sentence with support keeps the model's `[n]` when that source supports it about as well
//! as the best source does, and otherwise gets the `[n]` of its best source. A sentence without support in any source is removed and
//! listed in the trace ([`Grounding::removed`]). Questions (a Socratic answer's guiding
//! questions, a quiz's questions) and short labels ("Answer key:") are not statements of fact
//! and are kept as written. A sentence that cannot be checked (another script than the
//! sources and no embedder) is kept uncited and counted, and only then does the student see
//! the "check it against the pages" warning.
//!
//! Thresholds were chosen on real answers of Qwen2.5-0.5B-Instruct over the dev split of
//! `tests/eval` (`vidya eval --answers`): supported sentences copy or paraphrase a source
//! sentence (lexical ≥ 0.6, or e5 cosine ≥ 0.88 with lexical ≥ 0.25); invented ones rarely
//! reach either.

use super::verify::{self, Finding};
use super::Citation;
use crate::embed::{cosine, Embedder};
use crate::error::Result;
use crate::text::script::{script_of, Script};
use crate::text::{split_sentences, Tokenizer};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::OnceLock;

/// Lexical support at or above which a same-script sentence is supported on its words alone.
pub const LEXICAL_SUPPORT: f32 = 0.6;
/// Embedding support at or above which a sentence sharing at least [`MIN_LEXICAL`] of its
/// terms with the source is supported.
pub const DENSE_SUPPORT: f32 = 0.88;
/// The least lexical support that the embedding can complete.
pub const MIN_LEXICAL: f32 = 0.25;
/// Share of a sentence's content words found in its aligned source sentence(s), through
/// synonyms and derivations, at or above which a sentence the meaning check finds nothing
/// against is supported even with fewer shared words than [`LEXICAL_SUPPORT`] (a paraphrase).
pub const VERIFIED_COVERAGE: f32 = 0.6;
/// Embedding support for a sentence in another script than its sources (a Hindi answer from
/// English sources), where words cannot be compared.
pub const CROSS_SCRIPT_SUPPORT: f32 = 0.86;

/// What the check decided about one answer sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Supported by a source; cited with it.
    Supported,
    /// Not supported by any source: removed.
    Removed,
    /// A question or a label, not a statement of fact: kept as written.
    NotAFact,
    /// Could not be checked (no embedder for another script): kept, uncited.
    Unchecked,
}

/// One sentence of the model's answer with its check.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CheckedSentence {
    /// The sentence without citation marks.
    pub text: String,
    /// Sources the model cited for it.
    pub cited_by_model: Vec<usize>,
    /// Sources cited after the check.
    pub cited: Vec<usize>,
    /// The verdict.
    pub verdict: Verdict,
    /// Best lexical support (0..=1).
    pub lexical: f32,
    /// Best embedding support, when embedded.
    pub dense: Option<f32>,
    /// Numbers or names in the sentence that no source has.
    pub missing: Vec<String>,
    /// True when the sentence starts a new line in the answer.
    pub new_line: bool,
    /// What the meaning check found against its source ([`super::verify`]); a sentence with
    /// findings is removed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<Finding>,
}

/// The checked answer.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Grounding {
    /// The answer's sentences in order.
    pub sentences: Vec<CheckedSentence>,
}

impl Grounding {
    /// The answer the student sees: kept sentences with their citations, removed ones left out.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for s in self
            .sentences
            .iter()
            .filter(|s| s.verdict != Verdict::Removed)
        {
            if !out.is_empty() {
                out.push(if s.new_line { '\n' } else { ' ' });
            }
            out.push_str(&s.text);
            if !s.cited.is_empty() {
                let list: Vec<String> = s.cited.iter().map(|n| n.to_string()).collect();
                let at = out.trim_end_matches(['.', '।', '!']).len();
                let tail = out[at..].to_string();
                out.truncate(at);
                out.push_str(&format!(" [{}]{tail}", list.join(", ")));
            }
        }
        out.trim().to_string()
    }

    /// The removed sentences (facts no source supports).
    pub fn removed(&self) -> Vec<String> {
        self.sentences
            .iter()
            .filter(|s| s.verdict == Verdict::Removed)
            .map(|s| s.text.clone())
            .collect()
    }

    /// Supported sentences.
    pub fn supported(&self) -> usize {
        self.count(Verdict::Supported)
    }

    /// Sentences that could not be checked.
    pub fn unchecked(&self) -> usize {
        self.count(Verdict::Unchecked)
    }

    /// Supported sentences whose citation Vidya added (the model gave none).
    pub fn attached(&self) -> usize {
        self.sentences
            .iter()
            .filter(|s| s.verdict == Verdict::Supported && s.cited_by_model.is_empty())
            .count()
    }

    /// Supported sentences whose model citation was replaced by a supporting source.
    pub fn corrected(&self) -> usize {
        self.sentences
            .iter()
            .filter(|s| {
                s.verdict == Verdict::Supported
                    && !s.cited_by_model.is_empty()
                    && !s.cited.iter().all(|n| s.cited_by_model.contains(n))
            })
            .count()
    }

    fn count(&self, v: Verdict) -> usize {
        self.sentences.iter().filter(|s| s.verdict == v).count()
    }
}

fn marks_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\s*\[([0-9][0-9,\s\-–]*)\]").expect("valid regex"))
}

fn numbers_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\d+(?:[.,]\d+)?").expect("valid regex"))
}

/// `text` without `[n]` marks.
pub fn without_marks(text: &str) -> String {
    strip_marks(text).0
}

/// The sentence without `[n]` marks, and the numbers it cited.
fn strip_marks(s: &str) -> (String, Vec<usize>) {
    let mut cited = Vec::new();
    for c in marks_re().captures_iter(s) {
        for part in c[1].split([',', ' ']) {
            let part = part.trim();
            if let Some((a, b)) = part.split_once(['-', '–']) {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<usize>(), b.trim().parse::<usize>()) {
                    if b >= a && b - a <= 10 {
                        cited.extend(a..=b);
                    }
                }
            } else if let Ok(n) = part.parse::<usize>() {
                cited.push(n);
            }
        }
    }
    cited.sort_unstable();
    cited.dedup();
    let text = marks_re().replace_all(s, "").trim().to_string();
    // "… light [1]." leaves "… light ." : close the gap before the stop.
    let text = text.replace(" .", ".").replace(" ।", "।");
    (text, cited)
}

fn main_script(s: &str) -> Option<Script> {
    let mut counts: std::collections::HashMap<Script, usize> = Default::default();
    for c in s.chars().filter(|c| c.is_alphabetic()) {
        *counts.entry(script_of(c)).or_default() += 1;
    }
    counts
        .into_iter()
        .filter(|(s, _)| *s != Script::Other)
        .max_by_key(|(_, n)| *n)
        .map(|(s, _)| s)
}

/// Capitalised words not at the start of the sentence (names, named terms), lower-cased, cut
/// at apostrophes and hyphens as the sources' words are ("Newton's" is "newton", whichever
/// apostrophe the book prints).
fn names(s: &str) -> Vec<String> {
    s.split_whitespace()
        .skip(1)
        .filter_map(|w| {
            w.split(|c: char| !c.is_alphanumeric())
                .find(|p| !p.is_empty())
        })
        .filter(|w| {
            w.len() > 2
                && w.chars().next().is_some_and(|c| c.is_ascii_uppercase())
                && w.chars().skip(1).any(|c| c.is_ascii_lowercase())
        })
        .map(str::to_lowercase)
        .collect()
}

/// One source the model was given, read once for every answer sentence.
struct Source {
    n: usize,
    terms: HashSet<String>,
    lower: String,
    numbers: HashSet<String>,
    sentences: Vec<String>,
    script: Option<Script>,
}

impl Source {
    fn new(c: &Citation, tokenizer: &Tokenizer) -> Self {
        Self {
            n: c.n,
            terms: tokenizer.terms(&c.text).into_iter().collect(),
            lower: c.text.to_lowercase(),
            numbers: numbers(&c.text).into_iter().collect(),
            sentences: split_sentences(&c.text)
                .iter()
                .map(|s| s.slice(&c.text).trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            script: main_script(&c.text),
        }
    }
}

/// The numbers written in `text` ("3,000" read as "3000").
fn numbers(text: &str) -> Vec<String> {
    numbers_re()
        .find_iter(text)
        .map(|m| m.as_str().replace(',', ""))
        .collect()
}

/// Checks `answer` (already cleaned by the post-checks) against the `sources` the model was
/// given. `embedder`: the bundled e5 embedder, when installed (without it only lexical
/// support is measured and sentences in another script than the sources stay unchecked).
///
/// Errors: the embedder failed.
pub fn ground(
    answer: &str,
    sources: &[Citation],
    embedder: Option<&Embedder>,
    tokenizer: &Tokenizer,
) -> Result<Grounding> {
    Grounder::new(sources, embedder, tokenizer)?.check(answer)
}

/// The sources of one answer read once (their terms, numbers and sentence vectors), to check
/// the answer sentence by sentence as the model writes it ([`Grounder::check`]) and whole at
/// the end with the same verdicts.
pub struct Grounder<'a> {
    srcs: Vec<Source>,
    source_texts: Vec<&'a str>,
    source_vectors: Option<Vec<Vec<Vec<f32>>>>,
    all_names: HashSet<String>,
    embedder: Option<&'a Embedder>,
    tokenizer: &'a Tokenizer,
    meaning: bool,
}

impl std::fmt::Debug for Grounder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Grounder")
            .field("sources", &self.srcs.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Grounder<'a> {
    /// The sources' texts, in citation order.
    pub fn source_texts(&self) -> &[&'a str] {
        &self.source_texts
    }

    /// Reads `sources` (and embeds their sentences with `embedder`, one batch). Errors: the
    /// embedder failed.
    pub fn new(
        sources: &'a [Citation],
        embedder: Option<&'a Embedder>,
        tokenizer: &'a Tokenizer,
    ) -> Result<Self> {
        let srcs: Vec<Source> = sources.iter().map(|c| Source::new(c, tokenizer)).collect();
        let source_vectors = match embedder {
            Some(e) => {
                let texts: Vec<&str> = srcs
                    .iter()
                    .flat_map(|s| s.sentences.iter().map(String::as_str))
                    .collect();
                let mut vectors = if texts.is_empty() {
                    Vec::new().into_iter()
                } else {
                    e.embed_passages(&texts)?.into_iter()
                };
                Some(
                    srcs.iter()
                        .map(|s| vectors.by_ref().take(s.sentences.len()).collect())
                        .collect(),
                )
            }
            None => None,
        };
        let all_names = srcs
            .iter()
            .flat_map(|s| {
                s.lower
                    .split(|c: char| !c.is_alphanumeric())
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        Ok(Self {
            srcs,
            source_texts: sources.iter().map(|c| c.text.as_str()).collect(),
            source_vectors,
            all_names,
            embedder,
            tokenizer,
            meaning: true,
        })
    }

    /// The check as it was before the meaning check ([`super::verify`]): shared words and
    /// embeddings only. For measuring what the meaning check adds (`vidya eval --grounding
    /// --words-only`).
    pub fn words_only(mut self) -> Self {
        self.meaning = false;
        self
    }

    /// Checks `answer` (one sentence or many): each statement supported and cited, removed
    /// (with the meaning check's findings) or unchecked; questions and labels kept as written.
    /// Errors: the embedder failed.
    pub fn check(&self, answer: &str) -> Result<Grounding> {
        let mut sentences = answer_sentences(answer);
        let facts: Vec<usize> = (0..sentences.len())
            .filter(|i| is_fact(&sentences[*i]))
            .collect();
        let fact_texts: Vec<&str> = facts.iter().map(|i| sentences[*i].text.as_str()).collect();
        let fact_vectors = match (self.embedder, fact_texts.is_empty()) {
            (Some(e), false) => Some(e.embed_passages(&fact_texts)?),
            _ => None,
        };
        let check = Check {
            all_names: &self.all_names,
            srcs: &self.srcs,
            source_texts: &self.source_texts,
            meaning: self.meaning,
            source_vectors: self
                .source_vectors
                .as_deref()
                .filter(|_| fact_vectors.is_some()),
            tokenizer: self.tokenizer,
        };
        for (k, &i) in facts.iter().enumerate() {
            let vector = fact_vectors.as_ref().map(|v| v[k].as_slice());
            check.fact(&mut sentences[i], vector);
        }
        for s in sentences.iter_mut().filter(|s| !is_fact(s)) {
            s.verdict = Verdict::NotAFact;
            s.cited = s
                .cited_by_model
                .iter()
                .copied()
                .filter(|n| self.srcs.iter().any(|src| src.n == *n))
                .collect();
        }
        drop_dangling_lead_ins(&mut sentences);
        Ok(Grounding { sentences })
    }
}

/// The answer's sentences, line by line, with the `[n]` marks the model gave each (a fragment
/// of marks only belongs to the sentence before); every verdict still [`Verdict::Removed`].
fn answer_sentences(answer: &str) -> Vec<CheckedSentence> {
    let mut sentences: Vec<CheckedSentence> = Vec::new();
    for line in answer.lines() {
        let mut first = true;
        for span in split_sentences(line) {
            let (text, cited) = strip_marks(span.slice(line));
            if !text.chars().any(char::is_alphanumeric) {
                if let Some(prev) = sentences.last_mut() {
                    prev.cited_by_model.extend(cited);
                }
                continue;
            }
            sentences.push(CheckedSentence {
                text,
                cited_by_model: cited,
                cited: Vec::new(),
                verdict: Verdict::Removed,
                lexical: 0.0,
                dense: None,
                missing: Vec::new(),
                new_line: first && !sentences.is_empty(),
                findings: Vec::new(),
            });
            first = false;
        }
    }
    sentences
}

/// A statement of fact to check: not a question, not a lead-in ending in `:`, at least three
/// words.
fn is_fact(s: &CheckedSentence) -> bool {
    let t = s.text.trim();
    !(t.ends_with('?') || t.ends_with(':') || t.split_whitespace().count() < 3)
}

/// How well one source supports one answer sentence.
struct Support {
    /// Index of the source.
    source: usize,
    /// Share of the sentence's terms in the source (0..=1).
    lexical: f32,
    /// Best cosine with one of the source's sentences, when embedded.
    dense: Option<f32>,
    /// Every number of the sentence is in the source.
    numbers_ok: bool,
}

impl Support {
    /// Supported: numbers match and, in the same script, enough words (or words and meaning);
    /// across scripts, meaning alone.
    fn supports(&self, same_script: bool) -> bool {
        self.numbers_ok
            && if same_script {
                self.lexical >= LEXICAL_SUPPORT
                    || self
                        .dense
                        .is_some_and(|d| d >= DENSE_SUPPORT && self.lexical >= MIN_LEXICAL)
            } else {
                self.dense.is_some_and(|d| d >= CROSS_SCRIPT_SUPPORT)
            }
    }

    fn strength(&self) -> f32 {
        self.lexical + self.dense.unwrap_or(0.0)
    }
}

/// What every fact is checked against.
struct Check<'a> {
    srcs: &'a [Source],
    /// The sources' texts, for the meaning check.
    source_texts: &'a [&'a str],
    /// Whether the meaning check runs ([`Grounder::words_only`] turns it off).
    meaning: bool,
    /// Each source's sentence vectors, when embedded.
    source_vectors: Option<&'a [Vec<Vec<f32>>]>,
    /// Every word of every source, lower case (for names the answer must not invent).
    all_names: &'a HashSet<String>,
    tokenizer: &'a Tokenizer,
}

impl Check<'_> {
    /// Decides one fact (its e5 `vector` when embedded): supported with its citations (the
    /// model's when that source supports it nearly as well as the best one), removed with what
    /// it names that no source has, or unchecked (another script and no embedder).
    fn fact(&self, s: &mut CheckedSentence, vector: Option<&[f32]>) {
        let terms: HashSet<String> = self.tokenizer.terms(&s.text).into_iter().collect();
        let script = main_script(&s.text);
        let numbers = numbers(&s.text);
        let scored: Vec<Support> = self
            .srcs
            .iter()
            .enumerate()
            .map(|(j, src)| Support {
                source: j,
                lexical: if terms.is_empty() {
                    0.0
                } else {
                    terms.iter().filter(|t| src.terms.contains(*t)).count() as f32
                        / terms.len() as f32
                },
                dense: vector
                    .zip(self.source_vectors)
                    .map(|(v, sv)| sv[j].iter().map(|x| cosine(v, x)).fold(f32::MIN, f32::max)),
                numbers_ok: numbers.iter().all(|n| src.numbers.contains(n)),
            })
            .collect();
        let supports =
            |x: &Support| x.supports(script.is_none() || self.srcs[x.source].script == script);
        s.lexical = scored.iter().map(|x| x.lexical).fold(0.0, f32::max);
        s.dense = scored.iter().filter_map(|x| x.dense).reduce(f32::max);
        let missing_names: Vec<String> = if script == Some(Script::Latin) {
            names(&s.text)
                .into_iter()
                .filter(|n| !self.all_names.contains(n))
                .collect()
        } else {
            Vec::new()
        };
        // What the sentence says, against the sentence(s) it restates: a negation, an
        // opposite, a swapped term, a number, a quantifier or new content rejects it however
        // many words it shares with its source.
        let meaning = if self.meaning {
            verify::verify(&s.text, self.source_texts)
        } else {
            verify::Verification::default()
        };
        let best = scored
            .iter()
            .filter(|x| {
                supports(x)
                    || (meaning.agrees()
                        && meaning.coverage >= VERIFIED_COVERAGE
                        && meaning.aligned.first().is_some_and(|(p, _)| *p == x.source))
            })
            .max_by(|a, b| a.strength().total_cmp(&b.strength()));
        if meaning.checked && !meaning.findings.is_empty() {
            s.verdict = Verdict::Removed;
            s.findings = meaning.findings;
            return;
        }
        match best {
            Some(b) if missing_names.is_empty() => {
                s.verdict = Verdict::Supported;
                let model_ok: Vec<usize> = s
                    .cited_by_model
                    .iter()
                    .copied()
                    .filter(|n| {
                        scored.iter().any(|x| {
                            self.srcs[x.source].n == *n
                                && supports(x)
                                && x.strength() >= b.strength() - 0.25
                        })
                    })
                    .collect();
                s.cited = if model_ok.is_empty() {
                    vec![self.srcs[b.source].n]
                } else {
                    model_ok
                };
            }
            _ => {
                let cross = self
                    .srcs
                    .iter()
                    .all(|src| script.is_some() && src.script != script);
                if cross && self.source_vectors.is_none() {
                    s.verdict = Verdict::Unchecked;
                } else {
                    s.verdict = Verdict::Removed;
                    s.missing = missing_names;
                    s.missing.extend(
                        numbers
                            .iter()
                            .filter(|n| !self.srcs.iter().any(|src| src.numbers.contains(*n)))
                            .cloned(),
                    );
                }
            }
        }
    }
}

/// A lead-in ("… is calculated as follows:") whose following sentence was removed would
/// introduce nothing: it goes with it. So does a list item's number or bullet ("3.", "b)")
/// whose text on its line was removed, which would show the student an empty item.
fn drop_dangling_lead_ins(sentences: &mut [CheckedSentence]) {
    for i in (0..sentences.len()).rev() {
        let text = sentences[i].text.trim_end();
        let next = sentences.get(i + 1);
        let lead_in = text.ends_with(':') && next.is_none_or(|n| n.verdict == Verdict::Removed);
        let empty_item = is_list_marker(text)
            && next.is_none_or(|n| n.new_line || n.verdict == Verdict::Removed);
        if sentences[i].verdict == Verdict::NotAFact && (lead_in || empty_item) {
            sentences[i].verdict = Verdict::Removed;
        }
    }
}

/// A list item's number or letter with its punctuation and nothing else: "3.", "12)", "b)",
/// "(iv)".
fn is_list_marker(text: &str) -> bool {
    let t = text.trim();
    let inner = t.trim_matches(|c: char| matches!(c, '.' | ')' | '(' | '-' | '*' | '•'));
    !t.is_empty()
        && inner.chars().count() <= 4
        && (inner.chars().all(|c| c.is_ascii_digit())
            || inner.chars().all(|c| c.is_ascii_lowercase()) && t != inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: usize, text: &str) -> Citation {
        Citation {
            n,
            book: "Biology 2e".into(),
            chapter: "Chapter 8".into(),
            file: "ch08.pdf".into(),
            pdf_page: 6,
            page_label: "157".into(),
            text: text.into(),
            book_id: 1,
            page: 5,
        }
    }

    #[test]
    fn uncited_supported_sentences_get_their_source_and_invented_ones_go() {
        let sources = [
            source(1, "Chlorophyll a absorbs wavelengths from either end of the visible spectrum (blue and red), but not green. Because green is reflected or transmitted, chlorophyll appears green."),
            source(2, "Carotenoids absorb in the short-wavelength blue region, and reflect the longer yellow, red, and orange wavelengths."),
        ];
        let tok = Tokenizer::new();
        let g = ground(
            "Chlorophyll looks green because green is reflected. Carotenoids reflect yellow, red and orange wavelengths [1]. Leaves were first studied by Aristotle in 350 BC.",
            &sources,
            None,
            &tok,
        )
        .unwrap();
        let v: Vec<Verdict> = g.sentences.iter().map(|s| s.verdict).collect();
        assert_eq!(
            v,
            vec![Verdict::Supported, Verdict::Supported, Verdict::Removed]
        );
        assert_eq!(g.sentences[0].cited, vec![1], "attached");
        assert_eq!(
            g.sentences[1].cited,
            vec![2],
            "the wrong [1] is corrected to [2]"
        );
        // The invented name and year are named as what the sources lack (by the meaning
        // check's findings, or the word check's `missing` when that removes it first).
        let said = format!("{:?} {:?}", g.sentences[2].missing, g.sentences[2].findings);
        assert!(said.contains("aristotle") && said.contains("350"), "{said}");
        assert_eq!((g.attached(), g.corrected(), g.removed().len()), (1, 1, 1));
        assert_eq!(
            g.text(),
            "Chlorophyll looks green because green is reflected [1]. Carotenoids reflect yellow, red and orange wavelengths [2]."
        );
    }

    #[test]
    fn a_name_with_another_apostrophe_than_the_book_is_the_same_name() {
        // OpenStax College Physics 4.2 prints "Newton’s" with a typographic apostrophe; a
        // model writes "Newton's".
        let sources = [source(
            1,
            "Recall that Newton’s first law tells us that objects move along a straight line at \
             constant speed unless a net external force acts on them.",
        )];
        let tok = Tokenizer::new();
        let g = ground(
            "According to Newton's first law, an object keeps moving in a straight line at a \
             constant speed unless a net external force acts on it [1].",
            &sources,
            None,
            &tok,
        )
        .unwrap();
        assert_eq!(
            g.sentences[0].verdict,
            Verdict::Supported,
            "{:?}",
            g.sentences[0]
        );
        // A name the book does not have is still missing.
        let g = ground(
            "According to Kepler's first law, an object keeps moving in a straight line [1].",
            &sources,
            None,
            &tok,
        )
        .unwrap();
        assert_eq!(g.sentences[0].verdict, Verdict::Removed);
        let said = format!("{:?} {:?}", g.sentences[0].missing, g.sentences[0].findings);
        assert!(said.contains("kepler"), "{said}");
    }

    #[test]
    fn numbers_must_match_and_questions_are_kept() {
        let sources = [source(
            1,
            "Humans have 23 pairs of chromosomes, 46 in all, in each body cell.",
        )];
        let tok = Tokenizer::new();
        let g = ground(
            "Each human body cell has 48 chromosomes.\nWhat do you think a pair means?\nEach human body cell has 46 chromosomes [1].",
            &sources,
            None,
            &tok,
        )
        .unwrap();
        let v: Vec<Verdict> = g.sentences.iter().map(|s| s.verdict).collect();
        assert_eq!(
            v,
            vec![Verdict::Removed, Verdict::NotAFact, Verdict::Supported]
        );
        assert_eq!(
            g.text(),
            "What do you think a pair means?\nEach human body cell has 46 chromosomes [1]."
        );
    }

    #[test]
    fn a_lead_in_goes_with_the_removed_sentence_it_introduces() {
        let sources = [source(
            1,
            "Humans have 23 pairs of chromosomes, 46 in all, in each body cell.",
        )];
        let tok = Tokenizer::new();
        let g = ground(
            "The number is found as follows:\nIt is 2 times 24, which is 48.\nThe count is this:\nEach human body cell has 46 chromosomes [1].",
            &sources,
            None,
            &tok,
        )
        .unwrap();
        let v: Vec<Verdict> = g.sentences.iter().map(|s| s.verdict).collect();
        assert_eq!(
            v,
            vec![
                Verdict::Removed,
                Verdict::Removed,
                Verdict::NotAFact,
                Verdict::Supported
            ]
        );
        assert_eq!(
            g.text(),
            "The count is this:\nEach human body cell has 46 chromosomes [1]."
        );
    }

    #[test]
    fn a_list_item_whose_text_was_removed_leaves_no_empty_number() {
        let sources = [source(
            1,
            "Humans have 23 pairs of chromosomes, 46 in all, in each body cell.",
        )];
        let tok = Tokenizer::new();
        let g = ground(
            "Here is how:\n1. Each human body cell has 46 chromosomes [1].\n2. The moon is made of green cheese and rock.\n3.\n4. Humans have 23 pairs of chromosomes [1].",
            &sources,
            None,
            &tok,
        )
        .unwrap();
        assert_eq!(
            g.text(),
            "Here is how:\n1. Each human body cell has 46 chromosomes [1].\n4. Humans have 23 pairs of chromosomes [1]."
        );
        for marker in ["3.", "12)", "b)", "(iv)", "-"] {
            assert!(is_list_marker(marker), "{marker}");
        }
        for text in ["3.5 m", "Yes.", "DNA.", "pH 7."] {
            assert!(!is_list_marker(text), "{text}");
        }
    }

    #[test]
    fn another_script_without_embedder_is_unchecked_not_removed() {
        let sources = [source(1, "Photosynthesis takes place in the chloroplast.")];
        let tok = Tokenizer::new();
        // Tamil: no glossary reads it into English (Hindi is read through the glossary).
        let g = ground(
            "ஒளிச்சேர்க்கை பசுங்கணிகத்தில் நடைபெறுகிறது.",
            &sources,
            None,
            &tok,
        )
        .unwrap();
        assert_eq!(g.sentences[0].verdict, Verdict::Unchecked);
        assert_eq!(g.unchecked(), 1);
        assert_eq!(g.text(), "ஒளிச்சேர்க்கை பசுங்கணிகத்தில் நடைபெறுகிறது.");
    }
}
