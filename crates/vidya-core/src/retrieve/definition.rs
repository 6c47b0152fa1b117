//! Definition questions, the commonest kind students ask ("wat is apomixis", "define
//! momemtum", "osmosis meaning", "inertia kya hota hai", "गुप्त ऊष्मा किसे कहते हैं"): the term
//! asked about ([`asked_term`]) and whether a book sentence defines it ([`defines`]), so that
//! the rescoring stage can put the passage that defines the term above passages that only use
//! it.
//!
//! The method is the cue-pattern matching of definitional question answering (Blair-Goldensohn,
//! McKeown and Schlaikjer, "A hybrid approach for QA track definitional questions", TREC 2003;
//! Hearst 1992 for "called"/"known as" patterns): a sentence defines a term when the term is its
//! subject followed by a copula or a defining verb ("Osmosis is …", "Homeostasis (literally,
//! 'steady state') refers to …", "Natural selection, or 'survival of the fittest,' is …"), or
//! when the term follows a naming cue ("… is called deceleration", "… is known as absolute
//! zero"). Textbooks of every board write their definitions this way.

use super::query::NormalizedQuery;
use crate::text::script::{script_of, Script};
use rust_stemmers::{Algorithm, Stemmer};

/// Most words in a term asked about ("law of universal gravitation" is four).
pub const MAX_TERM_WORDS: usize = 4;

/// How far into a sentence (in words) a term may start and still be its subject ("The Doppler
/// effect is", "Its wavelength is", "In everyday language, this is called").
const SUBJECT_WITHIN: usize = 3;

/// English words that open a definition question, after SMS spellings are written out
/// ("wat" → "what"); the longest match is removed.
const OPENERS: &[&[&str]] = &[
    &["what", "do", "you", "mean", "by"],
    &["what", "is", "meant", "by"],
    &["what", "is", "mean", "by"],
    &["what", "are", "meant", "by"],
    &["what", "is", "the", "meaning", "of"],
    &["what", "is", "the", "definition", "of"],
    &["give", "the", "definition", "of"],
    &["definition", "of"],
    &["meaning", "of"],
    &["what", "is"],
    &["what", "are"],
    &["what", "s"],
    &["whats"],
    &["what's"],
    &["what’s"],
    &["what", "does"],
    &["what", "do"],
    &["define"],
    &["state"],
];

/// English words that close a definition question ("osmosis meaning", "what does inertia
/// mean").
const CLOSERS: &[&str] = &["meaning", "definition", "defination", "mean", "means"];

/// Words that make a "what is …" question ask something other than a definition ("what is the
/// difference between …", "what is the formula for …", "what are the uses of …").
const ASKS_OTHER: &[&str] = &[
    "difference",
    "between",
    "function",
    "functions",
    "role",
    "use",
    "uses",
    "value",
    "formula",
    "unit",
    "example",
    "examples",
    "types",
    "why",
    "how",
    "when",
    "where",
    "which",
    "who",
    "what",
];

/// Romanised Hindi that asks what something is: "X kya hai / hota hai", "X kise kehte hai",
/// "X ka matlab", "X ka arth". Each pair is (word, word after it or "" for any).
const HINGLISH_ASKS: &[(&str, &str)] = &[
    ("kya", "hai"),
    ("kya", "h"),
    ("kya", "he"),
    ("kya", "hain"),
    ("kya", "hota"),
    ("kya", "hoti"),
    ("kya", "hote"),
    ("kise", "kehte"),
    ("kise", "kahte"),
    ("kisko", "kehte"),
    ("kisse", "kehte"),
    ("ka", "matlab"),
    ("ka", "arth"),
    ("ki", "paribhasha"),
    ("ka", "meaning"),
];

/// Romanised Hindi words that join the term asked about to its context: "enzyme ka active
/// site" (the active site of an enzyme), "standing wave me node" (a node in a standing wave).
const HINGLISH_JOINERS: &[&str] = &["ka", "ki", "ke", "me", "mein", "main", "mai", "mei"];

/// Devanagari that asks what something is: "क्या है", "क्या होता है", "किसे कहते हैं", "का अर्थ",
/// "का मतलब", "यानी", "से क्या तात्पर्य".
const HINDI_ASKS: &[&str] = &[
    "क्या है",
    "क्या होता",
    "क्या होती",
    "क्या होते",
    "क्या हैं",
    "किसे कहते",
    "किसको कहते",
    "का अर्थ",
    "का मतलब",
    "की परिभाषा",
    "यानी",
    "तात्पर्य",
];

/// Verbs after the term that make it the subject of a definition on their own ("X refers to
/// …", "X means …").
const DEFINING_VERBS: &[&str] = &[
    "refers",
    "refer",
    "means",
    "describes",
    "describe",
    "represents",
    "states",
    "literally",
];

/// Copulas after the term ("X is …"); they define only when followed by one of
/// [`DEFINITION_AFTER_COPULA`] ("Osmosis is the diffusion …", "Power is calculated by …"), or,
/// for a plural subject, by a plural noun that is not one of [`NOT_A_DEFINITION_AFTER_ARE`]
/// ("Estuaries are biomes …"; not "Natural selection is likely to favour …", "Work and energy
/// are closely related").
const COPULAS: &[&str] = &["is", "are", "was", "were"];

/// Words after a copula that make the sentence a definition.
const DEFINITION_AFTER_COPULA: &[&str] = &[
    "a",
    "an",
    "the",
    "any",
    "defined",
    "called",
    "known",
    "termed",
    "calculated",
    "given",
    "measured",
    "described",
    "when",
    "how",
    "what",
    "where",
];

/// Words after "are" that describe rather than define ("are likely", "are found in").
const NOT_A_DEFINITION_AFTER_ARE: &[&str] = &[
    "not",
    "also",
    "likely",
    "able",
    "often",
    "usually",
    "very",
    "more",
    "less",
    "most",
    "found",
    "present",
    "important",
    "responsible",
    "common",
    "rare",
    "similar",
    "different",
    "used",
    "made",
    "formed",
    "produced",
    "all",
    "only",
    "still",
    "then",
    "in",
    "on",
    "at",
    "by",
    "of",
    "for",
    "to",
    "from",
    "with",
    "there",
    "too",
    "so",
    "being",
    "always",
    "thus",
    "across",
    "perhaps",
    "sometimes",
    "as",
    "its",
    "this",
    "these",
    "those",
];

/// Words before the term that name it ("… is called X", "termed X").
const NAMING_CUES: &[&str] = &["called", "termed", "named"];

/// Words before "as" that name the term after it ("known as X", "referred to as X"); a bare
/// "as" ("such as X", "as well as X", "just as X is") names nothing.
const NAMING_BEFORE_AS: &[&str] = &["known", "referred", "defined", "described", "called"];

/// Words before the term that define it when "as" follows ("We define energy as …").
const DEFINING_BEFORE: &[&str] = &["define", "defines", "defined"];

/// The term a definition question asks about, as lower-case English words (1 to
/// [`MAX_TERM_WORDS`]), or `None` when `typed` does not ask what something is.
///
/// `typed` is the question as the student typed it and `query` its normalised reading
/// ([`super::query::Normalizer::normalize`]), whose corrections give the words' spellings in
/// the books ("meosis" → "meiosis"). A qualifier after the term is left out ("what is time
/// period in shm" → "time period", "hypothesis in science" → "hypothesis"). A Devanagari
/// question gives the English words typed in it ("आनुवंशिक विचलन (genetic drift) क्या है"), or
/// else the English terms found for its words ([`NormalizedQuery::english`]).
pub fn asked_term(typed: &str, query: &NormalizedQuery) -> Option<Vec<String>> {
    let lower = typed.to_lowercase();
    let words: Vec<String> = lower
        .split(|c: char| !(c.is_alphanumeric() || is_mark(c) || c == '\''))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if words.is_empty() {
        return None;
    }
    let corrected = |w: &str| -> String {
        query
            .corrections
            .iter()
            .find(|c| c.from == w)
            .map(|c| c.to.to_lowercase())
            .unwrap_or_else(|| w.to_string())
    };
    let has_devanagari = words
        .iter()
        .any(|w| w.chars().any(|c| script_of(c) == Script::Devanagari));
    let term: Vec<String> = if has_devanagari {
        if !HINDI_ASKS.iter().any(|a| lower.contains(a)) {
            return None;
        }
        let latin: Vec<String> = words
            .iter()
            .filter(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
            .map(|w| corrected(w))
            .collect();
        if latin.is_empty() {
            query
                .english
                .as_deref()?
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect()
        } else {
            latin
        }
    } else if let Some(at) = hinglish_ask(&words) {
        // The words before the asking phrase, after the last joiner ("enzyme ka active site").
        let before = &words[..at];
        let start = before
            .iter()
            .rposition(|w| HINGLISH_JOINERS.contains(&w.as_str()))
            .map_or(0, |j| j + 1);
        let term: Vec<String> = before[start..]
            .iter()
            .flat_map(|w| {
                corrected(w)
                    .split_whitespace()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        // "mitochondria ka function kya hai" asks something else.
        if term.iter().any(|w| ASKS_OTHER.contains(&w.as_str())) {
            return None;
        }
        term
    } else {
        let mapped: Vec<String> = words
            .iter()
            .flat_map(|w| {
                corrected(w)
                    .split_whitespace()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        english_term(&mapped)?
    };
    let term: Vec<String> = term
        .into_iter()
        .filter(|w| !w.is_empty() && !matches!(w.as_str(), "a" | "an" | "the"))
        .collect();
    (!term.is_empty() && term.len() <= MAX_TERM_WORDS).then_some(term)
}

/// The term of an English definition question, its words already corrected.
fn english_term(words: &[String]) -> Option<Vec<String>> {
    let opener = OPENERS
        .iter()
        .filter(|o| o.len() < words.len() && words.iter().zip(o.iter()).all(|(w, o)| w == o))
        .map(|o| o.len())
        .max();
    let closer = words
        .last()
        .is_some_and(|w| CLOSERS.contains(&w.as_str()))
        .then_some(1);
    // "what does inertia mean" asks a definition; "what does the heart do" does not.
    let opener =
        opener.filter(|&n| !matches!(words[n - 1].as_str(), "does" | "do") || closer.is_some());
    let (start, mut end) = match (opener, closer) {
        (Some(n), _) => (n, words.len()),
        (None, Some(_)) => (0, words.len() - 1),
        (None, None) => return None,
    };
    // "what does inertia mean", "what is osmosis meaning": the closer goes too.
    if end > start && CLOSERS.contains(&words[end - 1].as_str()) {
        end -= 1;
    }
    // A qualifier: "… in physics", "… in shm".
    if let Some(q) = words[start..end].iter().position(|w| w == "in") {
        end = start + q;
    }
    let term: Vec<String> = words[start..end].to_vec();
    // "what is the difference between …", "what are the functions of …" ask something else.
    let asks_other = term.iter().any(|w| ASKS_OTHER.contains(&w.as_str()));
    (!term.is_empty() && !asks_other).then_some(term)
}

/// Where the Hinglish asking phrase starts in `words`, when there is one with a word before it.
fn hinglish_ask(words: &[String]) -> Option<usize> {
    (1..words.len()).find(|&i| {
        HINGLISH_ASKS.iter().any(|(a, b)| {
            words[i] == *a && (b.is_empty() || words.get(i + 1).is_some_and(|w| w == b))
        })
    })
}

/// True for a combining mark of an Indic script (vowel signs, virama, anusvara), which is not
/// alphanumeric but is part of a word.
fn is_mark(c: char) -> bool {
    matches!(c as u32, 0x0900..=0x0903 | 0x093A..=0x094F | 0x0951..=0x0957 | 0x0962..=0x0963)
}

/// Finds definitions of one term in sentences; built once per question.
pub struct DefinitionMatcher {
    stemmer: Stemmer,
    /// The term's words, stemmed.
    term: Vec<String>,
}

impl DefinitionMatcher {
    /// A matcher for `term` (from [`asked_term`]).
    pub fn new(term: &[String]) -> Self {
        let stemmer = Stemmer::create(Algorithm::English);
        let term = term.iter().map(|w| stem(&stemmer, w)).collect();
        Self { stemmer, term }
    }

    /// True when `sentence` defines the term: the term (stemmed words in order, possibly with
    /// an adjective before it, "Linear momentum") starts within the sentence's first
    /// [`SUBJECT_WITHIN`] words and is followed, past an apposition in commas or brackets
    /// ("Natural selection, or 'survival of the fittest,' is"), by a defining verb; or the
    /// term follows a naming cue ("is called deceleration", "known as absolute zero").
    pub fn defines(&self, sentence: &str) -> bool {
        let tokens = tokens(sentence);
        let stems: Vec<String> = tokens
            .iter()
            .map(|t| match t {
                Token::Word(w) => stem(&self.stemmer, w),
                Token::Open | Token::Close | Token::Comma => String::new(),
            })
            .collect();
        let n = self.term.len();
        if n == 0 || stems.len() < n {
            return false;
        }
        for i in 0..=stems.len() - n {
            if stems[i..i + n] != self.term[..] {
                continue;
            }
            let words_before = tokens[..i]
                .iter()
                .filter(|t| matches!(t, Token::Word(_)))
                .count();
            if words_before <= SUBJECT_WITHIN && defining_verb_after(&tokens[i + n..]) {
                return true;
            }
            let word = |j: Option<usize>| match j.and_then(|j| tokens.get(j)) {
                Some(Token::Word(w)) => Some(w.as_str()),
                _ => None,
            };
            let (prev, prev2, next) = (
                word(i.checked_sub(1)),
                word(i.checked_sub(2)),
                word(Some(i + n)),
            );
            let named = prev.is_some_and(|w| NAMING_CUES.contains(&w))
                || (prev == Some("as") && prev2.is_some_and(|w| NAMING_BEFORE_AS.contains(&w)))
                || (prev == Some("to") && prev2 == Some("referred"))
                || (prev.is_some_and(|w| DEFINING_BEFORE.contains(&w)) && next == Some("as"));
            if named {
                return true;
            }
        }
        false
    }
}

/// A sentence read for [`DefinitionMatcher::defines`]: lower-case words and the punctuation
/// that sets off an apposition.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Open,
    Close,
    Comma,
}

fn tokens(sentence: &str) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut Vec<Token>| {
        if !word.is_empty() {
            out.push(Token::Word(std::mem::take(word)));
        }
    };
    for c in sentence.chars() {
        if c.is_alphanumeric() || c == '\'' || c == '’' {
            word.extend(c.to_lowercase());
            continue;
        }
        flush(&mut word, &mut out);
        match c {
            '(' | '[' => out.push(Token::Open),
            ')' | ']' => out.push(Token::Close),
            ',' | '—' | '–' => out.push(Token::Comma),
            _ => {}
        }
    }
    flush(&mut word, &mut out);
    out
}

/// True when the tokens after a term start with a defining verb, directly or after one
/// apposition set off by commas or brackets (at most 12 words long).
fn defining_verb_after(rest: &[Token]) -> bool {
    let word = |i: usize| match rest.get(i) {
        Some(Token::Word(w)) => Some(w.as_str()),
        _ => None,
    };
    // The defining verb at `i`, a copula counting only with what follows it.
    let verb = |i: usize| match word(i) {
        Some(w) if DEFINING_VERBS.contains(&w) => true,
        Some(w) if COPULAS.contains(&w) => match word(i + 1) {
            Some(next) if DEFINITION_AFTER_COPULA.contains(&next) => true,
            // A plural subject defined by a plural noun: "Estuaries are biomes …".
            Some(next) => {
                w == "are" && next.ends_with('s') && !NOT_A_DEFINITION_AFTER_ARE.contains(&next)
            }
            None => false,
        },
        _ => false,
    };
    // "Energy can be defined as …".
    let can_be = word(0) == Some("can")
        && word(1) == Some("be")
        && word(2).is_some_and(|w| matches!(w, "defined" | "described" | "called"));
    if verb(0) || can_be {
        return true;
    }
    let close = match rest.first() {
        Some(Token::Open) => |t: &Token| matches!(t, Token::Close),
        Some(Token::Comma) => |t: &Token| matches!(t, Token::Comma),
        _ => return false,
    };
    rest.iter()
        .skip(1)
        .take(14)
        .position(close)
        .is_some_and(|p| verb(p + 2))
}

/// A word's Snowball English stem, with a possessive "'s" dropped first.
fn stem(stemmer: &Stemmer, word: &str) -> String {
    let w = word
        .strip_suffix("'s")
        .or_else(|| word.strip_suffix("’s"))
        .unwrap_or(word);
    stemmer.stem(w).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieve::query::Correction;

    fn term(typed: &str) -> Option<String> {
        asked_term(typed, &NormalizedQuery::default()).map(|t| t.join(" "))
    }

    fn corrected(typed: &str, fixes: &[(&str, &str)]) -> Option<String> {
        let q = NormalizedQuery {
            corrections: fixes
                .iter()
                .map(|(f, t)| Correction {
                    from: f.to_string(),
                    to: t.to_string(),
                })
                .collect(),
            ..Default::default()
        };
        asked_term(typed, &q).map(|t| t.join(" "))
    }

    #[test]
    fn english_definition_questions_give_their_term() {
        assert_eq!(term("what is an estuary").as_deref(), Some("estuary"));
        assert_eq!(term("define osmosis").as_deref(), Some("osmosis"));
        assert_eq!(term("karyotype meaning").as_deref(), Some("karyotype"));
        assert_eq!(
            term("What is meant by inertia?").as_deref(),
            Some("inertia")
        );
        assert_eq!(
            term("what is time period in shm").as_deref(),
            Some("time period")
        );
        assert_eq!(
            corrected("wat is apomixis", &[("wat", "what")]).as_deref(),
            Some("apomixis")
        );
        assert_eq!(
            corrected("define momemtum", &[("momemtum", "momentum")]).as_deref(),
            Some("momentum")
        );
        assert_eq!(
            corrected("osmosis defination", &[("defination", "definition")]).as_deref(),
            Some("osmosis")
        );
        assert_eq!(term("what does inertia mean").as_deref(), Some("inertia"));
        assert_eq!(term("what is mean by osmosis").as_deref(), Some("osmosis"));
        assert_eq!(term("what's osmosis").as_deref(), Some("osmosis"));
        assert_eq!(term("what does the heart do"), None);
    }

    #[test]
    fn other_questions_ask_no_term() {
        assert_eq!(term("why do plants look green"), None);
        assert_eq!(
            term("what is the difference between mitosis and meiosis"),
            None
        );
        assert_eq!(term("what is the formula for kinetic energy"), None);
        assert_eq!(term("what is"), None);
        assert_eq!(term("how does the heart pump blood"), None);
        assert_eq!(
            term("what is the name of the scientist who discovered the cell and studied cork"),
            None,
            "more than four words is not a term"
        );
    }

    #[test]
    fn hinglish_and_hindi_definition_questions_give_their_term() {
        for (question, asked) in [
            ("inertia kya hota hai", "inertia"),
            ("enzyme ka active site kya hota hai", "active site"),
            ("standing wave me node kya hota hai", "node"),
            ("homeostasis ka matlab kya hai", "homeostasis"),
            ("exotic species kise kehte hai", "exotic species"),
            ("आनुवंशिक विचलन (genetic drift) क्या है", "genetic drift"),
        ] {
            assert_eq!(term(question).as_deref(), Some(asked), "{question}");
        }
        let q = NormalizedQuery {
            english: Some("latent heat".into()),
            ..Default::default()
        };
        assert_eq!(
            asked_term("गुप्त ऊष्मा किसे कहते हैं", &q)
                .map(|t| t.join(" "))
                .as_deref(),
            Some("latent heat")
        );
        assert_eq!(term("पौधे हरे क्यों दिखते हैं"), None);
        assert_eq!(term("mitochondria ka function kya hai"), None);
        assert_eq!(term("momentum ka formula kya hai"), None);
        assert_eq!(term("plants green kyu dikhte hai"), None);
    }

    #[test]
    fn odd_questions_neither_panic_nor_ask_a_term() {
        for q in [
            "",
            "???",
            "define",
            "meaning",
            "what is",
            "kya hai",
            "क्या है",
            "🙂 meaning 🙂",
        ] {
            assert_eq!(term(q), None, "{q:?}");
        }
        assert_eq!(term("what is what is"), None);
        let long = format!("define {}", "cell ".repeat(500));
        assert_eq!(term(&long), None);
        let matcher = DefinitionMatcher::new(&["cell".to_string()]);
        assert!(!matcher.defines(&"cell, ".repeat(500)));
        assert!(!matcher.defines("("));
        assert!(matcher.defines("A cell (the unit of life) is the smallest living thing."));
    }

    fn defines(term: &str, sentence: &str) -> bool {
        let words: Vec<String> = term.split_whitespace().map(str::to_string).collect();
        DefinitionMatcher::new(&words).defines(sentence)
    }

    #[test]
    fn definitions_are_found_in_the_ways_books_write_them() {
        assert!(defines(
            "osmosis",
            "Osmosis is the diffusion of water across a membrane."
        ));
        assert!(defines(
            "momentum",
            "Linear momentum is the product of a system's mass and its velocity."
        ));
        assert!(defines(
            "natural selection",
            "Natural selection, or \"survival of the fittest,\" is the more prolific reproduction of individuals."
        ));
        assert!(defines(
            "homeostasis",
            "Homeostasis (literally, \"steady state\") refers to the relatively stable internal environment."
        ));
        assert!(defines(
            "estuary",
            "Estuaries are biomes that occur where fresh water meets the ocean."
        ));
        assert!(defines(
            "deceleration",
            "In everyday language, this is called deceleration."
        ));
        assert!(defines(
            "absolute zero",
            "Zero degrees on the Kelvin scale is known as absolute zero."
        ));
        assert!(defines(
            "doppler effect",
            "The Doppler effect is a change in the observed pitch of a sound."
        ));
        assert!(defines(
            "energy",
            "We define energy as the ability to do work."
        ));
        assert!(defines(
            "energy",
            "Energy can be defined as the capacity to do work."
        ));
        assert!(defines("estuary", "Such places are known as estuaries."));
    }

    #[test]
    fn using_a_term_is_not_defining_it() {
        assert!(!defines(
            "osmosis",
            "Water moves into the cell by osmosis when the solution is dilute."
        ));
        assert!(!defines(
            "osmosis",
            "Osmosis and diffusion move substances without energy."
        ));
        assert!(
            !defines(
                "momentum",
                "In the collision shown in the figure the total momentum is conserved."
            ),
            "the term is not the subject"
        );
        assert!(!defines("momentum", ""));
        assert!(
            !defines(
                "natural selection",
                "Natural selection is likely to favour mice that blend with the forest floor."
            ),
            "a copula that describes"
        );
        assert!(!defines(
            "enzymes",
            "Enzymes are found in every living cell."
        ));
        assert!(!defines(
            "light",
            "The lamp's energy ends up traveling as light toward the woman."
        ));
        assert!(!defines(
            "carbon dioxide",
            "As carbon dioxide rises, the leaf closes its stomata."
        ));
        assert!(!defines("energy", "Work and energy are closely related."));
        assert!(!defines("energy", "Plants such as energy crops grow fast."));
        assert!(!defines(
            "momentum",
            "Momentum is one of the most important ideas in physics."
        ));
    }
}
