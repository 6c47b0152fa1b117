//! Answers built from the textbook's quotes without a model, for when the model fails a mode
//! or a language: a quiz of fill-in-the-blank (cloze) questions on the cited sentences' key
//! terms with its answer key, Socratic hints that ask the student to find a key term in a
//! cited sentence, and, for a Hindi or Hinglish question over English quotes, the glossary's
//! Hindi terms for the quotes' key words.
//!
//! Cloze questions are the classic way to turn a text into recall practice (Taylor 1953,
//! "Cloze procedure"); the key term blanked is the quote's most specific content word that
//! the question does not already name: a word WordNet does not know (a technical term) first,
//! then a noun, then the longest; never a function word or a cue.

use super::prompt;
use super::verify::lexicon::Lexicon;
use super::verify::words::{self, Role};
use super::Citation;
use crate::retrieve::query::{is_hinglish_function_word, table, GLOSSARY};
use crate::text::split_sentences;
use crate::text::tokenize::is_stop_word;
use std::collections::{BTreeMap, HashSet};
use std::sync::OnceLock;

/// Shortest English term shown with its Hindi term when the question does not name it
/// (letters): shorter words are often of many senses.
pub const MIN_TERM_LETTERS: usize = 9;

/// Most questions in a quiz or hints built from the quotes.
pub const MAX_ITEMS: usize = 3;

/// The label set of `lang` (English when unknown).
fn labels(lang: &str) -> &'static prompt::Language {
    let langs = prompt::languages();
    langs
        .get(lang)
        .or_else(|| langs.get("en"))
        .expect("languages.toml has en")
}

/// A cited sentence with its key term: (citation number, sentence, term).
fn cloze_items(citations: &[Citation], question: &str) -> Vec<(usize, String, String)> {
    let asked: HashSet<String> = words::read(question)
        .words
        .iter()
        .map(|w| w.stem.clone())
        .collect();
    let lex = Lexicon::get();
    let mut out: Vec<(usize, String, String)> = Vec::new();
    let mut used: HashSet<String> = HashSet::new();
    for c in citations {
        for span in split_sentences(&c.text) {
            let sentence = span.slice(&c.text).trim().trim_start_matches('…').trim();
            let read = words::read(sentence);
            if read.words.len() < 6 || sentence.ends_with('?') {
                continue;
            }
            let term = read
                .words
                .iter()
                .filter(|w| w.role == Role::Content && w.lower.chars().count() >= 4)
                .filter(|w| w.lower.chars().all(|ch| ch.is_alphabetic() || ch == '-'))
                .filter(|w| !asked.contains(&w.stem) && !used.contains(&w.stem))
                .max_by_key(|w| {
                    // A technical term WordNet does not know, else a noun, else the longest.
                    let rare = lex.is_none_or(|l| !l.knows(&w.lower)) as usize;
                    let noun = lex.is_some_and(|l| l.is_noun(&w.lower)) as usize;
                    (rare, noun, w.lower.chars().count())
                });
            let Some(term) = term else { continue };
            // The word as written in the sentence (its case kept).
            let Some(at) = find_word(sentence, &term.lower) else {
                continue;
            };
            let written = &sentence[at..at + term.lower.len()];
            used.insert(term.stem.clone());
            out.push((
                c.n,
                format!("{}____{}", &sentence[..at], &sentence[at + written.len()..]),
                written.to_string(),
            ));
            break;
        }
        if out.len() >= MAX_ITEMS {
            break;
        }
    }
    out
}

/// Byte offset of `word` (lower case) in `text` as a whole word, case-insensitively.
fn find_word(text: &str, word: &str) -> Option<usize> {
    let lower = text.to_lowercase();
    if lower.len() != text.len() {
        return None;
    }
    let mut from = 0;
    while let Some(i) = lower[from..].find(word) {
        let at = from + i;
        let before = lower[..at].chars().next_back();
        let after = lower[at + word.len()..].chars().next();
        if !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric) {
            return Some(at);
        }
        from = at + word.len();
    }
    None
}

/// True when the term `word` (lower case) occurs in `text` as a whole word, a plural
/// ("bases") counting as the term, and, with `as_noun`, for a one-word term at least once not
/// followed by another content word: in "SI base units" "base" names a kind of unit, not the
/// chemical base the glossary translates.
fn has_term(text: &str, word: &str, as_noun: bool) -> bool {
    let lower = text.to_lowercase();
    let any = !as_noun || word.contains(' ');
    [word.to_string(), format!("{word}s"), format!("{word}es")]
        .iter()
        .any(|w| stands_alone_as(&lower, w, any))
}

/// [`has_term`] for one spelling, `word`, in lower-case `lower`; `any`: every whole-word
/// occurrence counts, compound or not.
fn stands_alone_as(lower: &str, word: &str, any: bool) -> bool {
    let mut from = 0;
    while let Some(i) = find_word(&lower[from..], word) {
        let end = from + i + word.len();
        let rest = &lower[end..];
        let next: String = rest
            .strip_prefix(' ')
            .unwrap_or("")
            .chars()
            .take_while(|c| c.is_alphabetic())
            .collect();
        if any || next.is_empty() || is_stop_word(&next) || is_hinglish_function_word(&next) {
            return true;
        }
        from = end;
    }
    false
}

/// A quiz of up to [`MAX_ITEMS`] fill-in-the-blank questions on the quotes, with the answer
/// key, in the labels of `lang`; `None` when no quote has a sentence to blank.
pub fn quiz(citations: &[Citation], question: &str, lang: &str) -> Option<String> {
    let items = cloze_items(citations, question);
    if items.is_empty() {
        return None;
    }
    let l = labels(lang);
    let mut out = format!("{}:\n", l.quiz_title);
    for (i, (n, sentence, _)) in items.iter().enumerate() {
        out.push_str(&format!("\n{}. {} [{n}]", i + 1, sentence));
    }
    out.push_str(&format!("\n\n{}:", l.answer_key));
    for (i, (n, _, term)) in items.iter().enumerate() {
        out.push_str(&format!("\n{}. {term} [{n}]", i + 1));
    }
    Some(out)
}

/// Socratic hints: for each of up to [`MAX_ITEMS`] quotes, the sentence with its key term
/// blanked and a question that asks the student to find it on the cited page; the answers
/// are not given. `None` when no quote has a sentence to blank.
pub fn socratic(citations: &[Citation], question: &str, lang: &str) -> Option<String> {
    let items = cloze_items(citations, question);
    if items.is_empty() {
        return None;
    }
    let l = labels(lang);
    let mut out = format!("{}:\n", l.hints_title);
    for (i, (n, sentence, _)) in items.iter().enumerate() {
        let page = citations
            .iter()
            .find(|c| c.n == *n)
            .map(|c| format!(" ({}, p. {})", c.book, c.page_label))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n{}. “{}” [{n}]{page}\n   {}",
            i + 1,
            sentence,
            l.cloze_prompt
        ));
    }
    Some(out)
}

/// English term → Hindi term, from the glossary's Devanagari entries (the first Hindi term
/// listed for each English one).
fn english_to_hindi() -> &'static BTreeMap<String, String> {
    static MAP: OnceLock<BTreeMap<String, String>> = OnceLock::new();
    MAP.get_or_init(|| {
        let mut m = BTreeMap::new();
        for (hi, en) in table(GLOSSARY) {
            if hi.chars().any(|c| ('\u{0900}'..='\u{097F}').contains(&c)) {
                m.entry(en).or_insert(hi);
            }
        }
        m
    })
}

/// The glossary's Hindi terms for the key words of the quotes (terms the question names
/// first), at most `max`: `(english, hindi)` pairs.
pub fn hindi_terms(citations: &[Citation], question: &str, max: usize) -> Vec<(String, String)> {
    let map = english_to_hindi();
    let text: String = citations
        .iter()
        .map(|c| c.text.to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let q = question.to_lowercase();
    // A word of many senses ("base", "strain") may be glossed in another sense than the
    // quote's: only terms the question names as a noun (not "SI base units"), and long
    // technical terms, are shown.
    let mut found: Vec<(bool, usize, String, String)> = map
        .iter()
        .filter(|(en, _)| has_term(&text, en, false))
        .map(|(en, hi)| {
            let asked = has_term(&q, en, true) || q.contains(hi.as_str());
            (asked, en.len(), en.clone(), hi.clone())
        })
        .filter(|(asked, len, en, _)| *asked || *len >= MIN_TERM_LETTERS || en.contains(' '))
        .collect();
    found.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
    found
        .into_iter()
        .take(max)
        .map(|(_, _, en, hi)| (en, hi))
        .collect()
}

/// The line of glossary terms shown under English quotes for a Hindi or Hinglish question
/// (`None` when no key word of the quotes is in the glossary).
pub fn terms_line(citations: &[Citation], question: &str, lang: &str) -> Option<String> {
    let terms = hindi_terms(citations, question, 6);
    if terms.is_empty() {
        return None;
    }
    let label = &labels(if lang == "en" { "hi" } else { lang }).terms_label;
    let list: Vec<String> = terms
        .iter()
        .map(|(en, hi)| format!("{en} = {hi}"))
        .collect();
    Some(format!("{label}: {}", list.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cite(n: usize, text: &str) -> Citation {
        Citation {
            n,
            book: "Biology 2e".into(),
            chapter: "Chapter 5".into(),
            file: "ch05.pdf".into(),
            pdf_page: 3,
            page_label: "126".into(),
            text: text.into(),
            book_id: 1,
            page: 2,
        }
    }

    #[test]
    fn a_quiz_blanks_a_key_term_of_each_quote_and_keeps_the_key() {
        let c = [
            cite(1, "Osmosis is the movement of water through a semipermeable membrane according to the concentration gradient of water across the membrane."),
            cite(2, "Tonicity describes how an extracellular solution can change the volume of a cell by affecting osmosis."),
        ];
        let q = quiz(&c, "what is osmosis", "en").unwrap();
        assert!(q.starts_with("Quiz from your textbook"), "{q}");
        assert!(q.contains("____") && q.contains("Answer key:"), "{q}");
        let key = &q[q.find("Answer key:").expect("a key")..].to_lowercase();
        assert!(
            !key.contains("osmosis"),
            "the asked term is not the blank: {q}"
        );
        assert_eq!(
            q.matches('[').count(),
            4,
            "every item and key line cites its source: {q}"
        );
        let h = socratic(&c, "what is osmosis", "hi").unwrap();
        assert!(h.starts_with("अपनी पाठ्यपुस्तक के साथ सोचिए"), "{h}");
        assert!(
            h.contains("रिक्त स्थान में कौन-सा शब्द आएगा?") && !h.contains("उत्तर कुंजी"),
            "{h}"
        );
    }

    #[test]
    fn hindi_terms_for_the_quotes_key_words() {
        let c = [cite(
            1,
            "Photosynthesis takes place in the chloroplast of the plant cell.",
        )];
        let line = terms_line(&c, "प्रकाश संश्लेषण क्या है", "hi").unwrap();
        assert!(line.starts_with("हिंदी में शब्द: "), "{line}");
        assert!(line.contains("chloroplast = हरितलवक"), "{line}");
        // A short word of many senses ("cell", "plant") is left out unless the question names
        // it (MIN_TERM_LETTERS).
        assert!(!line.contains("cell = "), "{line}");
    }

    #[test]
    fn a_term_used_as_the_first_word_of_a_compound_is_not_glossed() {
        // Physics: "SI base units" is not the chemical base (क्षारक) the glossary means.
        let c = [cite(
            1,
            "The SI base units are the metre, the kilogram and the second.",
        )];
        let terms = hindi_terms(&c, "SI base units kya hain", 6);
        assert!(!terms.iter().any(|(en, _)| en == "base"), "{terms:?}");
        // The same word as a noun is glossed; "bases" counts as "base".
        let c = [cite(1, "Bases turn red litmus blue.")];
        let terms = hindi_terms(&c, "base kya hota hai", 6);
        assert!(
            terms.iter().any(|(en, hi)| en == "base" && hi == "क्षारक"),
            "{terms:?}"
        );
    }
}
