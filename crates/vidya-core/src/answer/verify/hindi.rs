//! Hindi answers over English sources: the answer read as the English words it stands for, so
//! that the same checks apply. Glossary terms (`data/glossary_hi_en.tsv`, NCERT terminology)
//! become their English terms (longest phrase first), English terms written in Devanagari
//! ("क्लोरोफिल") become the source word with the same sound ([`devanagari_key`] against
//! [`latin_key`]), and the cue words become their English cues: negators "not", quantifiers
//! "all"/"some"/"only", direction and degree words ([`cues::HI_DIRECTION`]), numbers as
//! numerals. Words none of these know are left out and counted: the check then knows how much
//! of the answer it could read ([`EnglishView::known_share`]).

use super::align::{same_term, same_word};
use super::cues;
use super::lexicon::Lexicon;
use super::opposites::opposite;
use super::words::{self, numeral, Role, Sentence, Word};
use crate::retrieve::query::{devanagari_key, fold, latin_key, table, GLOSSARY};
use crate::text::script::{script_of, Script};
use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// A Hindi answer sentence read in English.
#[derive(Debug, Clone)]
pub struct EnglishView {
    /// The English reading, as a sentence.
    pub sentence: Sentence,
    /// Share (0..=1) of the answer's Hindi content words that were read.
    pub known_share: f32,
}

fn glossary() -> &'static (HashMap<String, String>, usize) {
    static G: OnceLock<(HashMap<String, String>, usize)> = OnceLock::new();
    G.get_or_init(|| {
        let map: HashMap<String, String> = table(GLOSSARY).collect();
        let longest = map
            .keys()
            .map(|k| k.split_whitespace().count())
            .max()
            .unwrap_or(1);
        (map, longest)
    })
}

/// The Hindi cue words, folded as the answer's tokens are ([`fold`]: the lists are written as
/// Hindi is typed, "बढ़ता", "तेज़", and folding drops the nukta), read once per process.
struct Cues {
    /// [`cues::HI_DIRECTION`]: the English direction or degree word.
    direction: HashMap<String, &'static str>,
    /// Every cue word with its English: negators "not", quantifiers "all"/"some"/"only",
    /// direction and degree words, number words as numerals; the first list that has a word
    /// decides, in that order.
    english: HashMap<String, String>,
    /// [`HI_GO`], folded.
    go: Vec<String>,
    /// [`HI_CONVERTS`], folded.
    converts: Vec<String>,
}

fn hindi_cues() -> &'static Cues {
    static C: OnceLock<Cues> = OnceLock::new();
    C.get_or_init(|| {
        let mut direction: HashMap<String, &'static str> = cues::HI_DIRECTION
            .iter()
            .map(|(h, en)| (fold(h), *en))
            .collect();
        let mut english: HashMap<String, String> = HashMap::new();
        for (list, en) in [
            (cues::HI_NEGATORS, "not"),
            (cues::HI_UNIVERSAL, "all"),
            (cues::HI_PARTIAL, "some"),
            (cues::HI_ONLY, "only"),
        ] {
            for w in list {
                english.entry(fold(w)).or_insert_with(|| en.to_string());
            }
        }
        for (h, en) in cues::HI_DIRECTION {
            english.entry(fold(h)).or_insert_with(|| en.to_string());
        }
        // The other forms of each listed verb ("बढ़ाते", "घटाते" from "बढ़ाता", "घटाता"), after
        // every listed form, so that a listed form keeps its own English.
        for (h, en) in cues::HI_DIRECTION {
            for form in verb_forms(&fold(h)) {
                direction.entry(form.clone()).or_insert(en);
                english.entry(form).or_insert_with(|| en.to_string());
            }
        }
        for (h, v) in cues::HI_NUMBER_WORDS {
            english.entry(fold(h)).or_insert_with(|| format!("{v}"));
        }
        let folded = |list: &[&str]| list.iter().map(|w| fold(w)).collect();
        Cues {
            direction,
            english,
            go: folded(HI_GO),
            converts: folded(HI_CONVERTS),
        }
    })
}

/// The answer's tokens as the Hindi reading compares them: word-bound pieces that are not
/// blank, folded ([`fold`]).
fn tokens(answer: &str) -> Vec<String> {
    answer
        .split_word_bounds()
        .filter(|t| !t.trim().is_empty())
        .map(fold)
        .collect()
}

/// Endings of a Hindi verb's forms on its stem: present participles (masculine, feminine,
/// plural, feminine plural), the infinitive and its oblique and feminine forms, and the
/// conjunctive "-कर" ("बढ़ता", "बढ़ती", "बढ़ते", "बढ़तीं", "बढ़ना", "बढ़ने", "बढ़नी", "बढ़कर").
const VERB_ENDINGS: &[&str] = &["ता", "ती", "ते", "तीं", "ना", "ने", "नी", "कर"];

/// Past-tense endings of a causative stem, one ending in "ा" ("बढ़ाया", "बढ़ाई", "बढ़ाए").
const CAUSATIVE_PAST: &[&str] = &["या", "ई", "ए", "यी", "ये"];

/// The forms of the verb that `word` (folded) is a form of (its bare stem among them), when
/// it ends in one of [`VERB_ENDINGS`] but "कर" after a stem of two letters or more; empty for
/// any other word (an adjective such as "धीमा" has no verb ending). Hindi verb morphology as
/// in McGregor, *Outline of Hindi Grammar* (1995), ch. 6 and 9.
fn verb_forms(word: &str) -> Vec<String> {
    let Some(stem) = VERB_ENDINGS
        .iter()
        .filter(|e| **e != "कर")
        .find_map(|e| word.strip_suffix(e))
        .filter(|s| s.chars().count() >= 2)
    else {
        return Vec::new();
    };
    // The bare stem too, before a light verb ("सिकुड़ जाता", shrinks; "घट गया", fell).
    let mut out: Vec<String> = std::iter::once(stem.to_string())
        .chain(VERB_ENDINGS.iter().map(|e| format!("{stem}{e}")))
        .collect();
    if stem.ends_with('ा') {
        out.extend(CAUSATIVE_PAST.iter().map(|e| format!("{stem}{e}")));
    }
    out
}

/// "X की ओर" (towards X) with a place word X: the English direction adverb.
const TOWARDS: &[(&str, &str)] = &[
    ("अंदर", "inward"),
    ("भीतर", "inward"),
    ("बाहर", "outward"),
    ("ऊपर", "upward"),
    ("नीचे", "downward"),
];

/// Words of degree between a comparison's "से" and its degree word ("बहुत तेज़", much
/// faster; "कहीं अधिक", far more), folded.
const INTENSIFIERS: &[&str] = &["बहुत", "कहीं", "काफी", "थोडा", "थोडी"];

/// The degree words of [`cues::HI_DIRECTION`] (in English) that have a superlative.
const GRADABLE: &[&str] = &[
    "more", "less", "large", "small", "high", "low", "hot", "cold", "long", "short", "heavy",
    "light", "strong", "weak", "fast", "slow",
];

/// The English superlative of a one-word adjective ("long" → "longest", "heavy" →
/// "heaviest", "large" → "largest", "hot" → "hottest"); "more"/"less" give "most"/"least".
fn superlative(adjective: &str) -> String {
    match adjective {
        "more" => return "most".into(),
        "less" => return "least".into(),
        "good" => return "best".into(),
        "bad" => return "worst".into(),
        _ => {}
    }
    let chars: Vec<char> = adjective.chars().collect();
    let vowel = |c: char| "aeiou".contains(c);
    match chars.as_slice() {
        [.., 'y'] => format!("{}iest", &adjective[..adjective.len() - 1]),
        [.., 'e'] => format!("{adjective}st"),
        // One vowel between two consonants at the end doubles the last ("hot" → "hottest").
        [.., a, b, c]
            if !vowel(*a) && vowel(*b) && !vowel(*c) && !"wxy".contains(*c) && chars.len() <= 4 =>
        {
            format!("{adjective}{c}est")
        }
        _ => format!("{adjective}est"),
    }
}

/// `statement` as the checks read it in English: itself when in Latin script; a Devanagari
/// statement (a Hindi answer the student chose) as the English words the glossary reads it
/// as ([`english_view`]), when at least [`super::MIN_KNOWN_SHARE`] of it is read; `None`
/// otherwise (too little read, or another script), and then the caller does not judge it.
pub fn read_in_english(statement: &str, sources: &[&str]) -> Option<Sentence> {
    match super::words::read(statement) {
        a if a.script == Some(Script::Latin) => Some(a),
        a if a.script == Some(Script::Devanagari) => {
            let view = english_view(statement, sources);
            (view.known_share >= super::MIN_KNOWN_SHARE).then_some(view.sentence)
        }
        _ => None,
    }
}

/// Reads `answer` (mostly Devanagari) as English, matching transliterated terms against the
/// words of `sources` (their text).
pub fn english_view(answer: &str, sources: &[&str]) -> EnglishView {
    let (gloss, longest) = glossary();
    let by_sound: HashMap<String, String> = sources
        .iter()
        .flat_map(|s| s.unicode_words())
        .filter(|w| w.len() >= 5 && w.is_ascii())
        .map(|w| (latin_key(w), w.to_lowercase()))
        .collect();
    // The same with the vowels left out, for a long term whose vowels the Hindi spelling
    // writes otherwise ("नॉनडिसजंक्शन", nondisjunction).
    let by_skeleton: HashMap<String, String> = by_sound
        .iter()
        .map(|(k, w)| (skeleton(k), w.clone()))
        .filter(|(k, _)| k.chars().count() >= MIN_SKELETON)
        .collect();
    let in_sources: HashSet<String> = sources
        .iter()
        .flat_map(|s| s.unicode_words())
        .map(str::to_lowercase)
        .collect();
    let tokens = tokens(answer);
    let Cues {
        direction, english, ..
    } = hindi_cues();
    let mut out: Vec<String> = Vec::new();
    let (mut content, mut known) = (0usize, 0usize);
    let mut i = 0;
    while i < tokens.len() {
        // "सबसे लंबी" (the longest): the superlative of the degree word ("सबसे पहले", first of
        // all, is no superlative of "before").
        if tokens[i] == "सबसे" {
            if let Some(en) = tokens
                .get(i + 1)
                .and_then(|t| direction.get(t.as_str()))
                .filter(|en| GRADABLE.contains(en))
            {
                out.push(superlative(en));
                content += 1;
                known += 1;
                i += 2;
                continue;
            }
        }
        // "कम हो जाता है", "कम होता जाता है" (becomes less, keeps becoming less): a change,
        // "decrease"; "अधिक हो गया" (became more): "increase". "कम होता है" alone may say
        // "is less" and stays "less".
        if let Some(change) = becoming(&tokens[i..]) {
            out.push(change.to_string());
            content += 1;
            known += 1;
            i += 1;
            continue;
        }
        // "अंदर की ओर" (towards the inside): inward, outward, upward, downward.
        if tokens.get(i + 1).map(String::as_str) == Some("की")
            && tokens.get(i + 2).map(String::as_str) == Some("ओर")
        {
            if let Some(en) = TOWARDS.iter().find(|(h, _)| *h == tokens[i]) {
                out.push(en.1.to_string());
                i += 3;
                continue;
            }
        }
        // "A B से तेज़" / "A B की तुलना में तेज़" (A faster than B): read in English order,
        // "A fast than B", so that the sides of the comparison can be compared with the
        // book's ([`comparison_sides`]). B is the term just before the marker.
        let marker = match tokens[i].as_str() {
            "से" => Some(1),
            "तुलना" if tokens.get(i + 1).map(String::as_str) == Some("में") => {
                Some(2)
            }
            _ => None,
        };
        if let Some(n) = marker {
            let at = i + n;
            let at = at
                + usize::from(
                    tokens
                        .get(at)
                        .is_some_and(|t| INTENSIFIERS.contains(&t.as_str())),
                );
            let cue = tokens
                .get(at)
                .and_then(|t| direction.get(t.as_str()))
                .filter(|en| GRADABLE.contains(en));
            let term = out
                .last()
                .filter(|w| w.chars().next().is_some_and(char::is_alphabetic))
                .cloned();
            // Not where a path's end follows ("क्षेत्र से कम सांद्रता वाले क्षेत्र की ओर",
            // from the area towards the area of low concentration: [`path`]).
            let path_end = tokens[at..]
                .iter()
                .take_while(|t| !matches!(t.as_str(), "," | ";" | "।"))
                .any(|t| t == "ओर" || t == "तक");
            if let (Some(en), Some(b), false) = (cue, term, path_end) {
                out.pop();
                out.push(degree_as_sources_say(en, &in_sources).to_string());
                out.push("than".into());
                out.push(b);
                // The comparison ends the clause: the verb after it is read in the next.
                out.push(",".into());
                content += 1;
                known += 1;
                i = at + 1;
                continue;
            }
        }
        // Causal connectives, as English ones, so that cause and effect can be compared with
        // the book's ([`super::causes`]): Hindi puts the two clauses in English order, "A,
        // इसलिए B" (A, therefore B), "B क्योंकि A" (B because A).
        if let Some((n, en)) = causal(&tokens[i..]) {
            out.push(en.into());
            i += n;
            continue;
        }
        // "की तुलना में" (compared with) without a degree word after it: "than", not the
        // glossary's "compare comparison".
        if tokens[i] == "तुलना" && tokens.get(i + 1).map(String::as_str) == Some("में")
        {
            out.push("than".into());
            i += 2;
            continue;
        }
        // The longest glossary phrase starting here (words joined by single spaces).
        let mut matched = false;
        for n in (1..=(*longest).min(tokens.len() - i)).rev() {
            let phrase = tokens[i..i + n].join(" ");
            // The phrase as written, or with its last word in the direct case ("लक्ष्य
            // कोशिकाओं" → "लक्ष्य कोशिका": the glossary lists nouns in it); of several direct
            // forms, one whose English the sources have.
            let found = gloss.get(&phrase).or_else(|| {
                let head = tokens[i..i + n - 1].join(" ");
                let found: Vec<&String> = oblique_bases(&tokens[i + n - 1])
                    .into_iter()
                    .filter_map(|b| {
                        let p = if head.is_empty() {
                            b
                        } else {
                            format!("{head} {b}")
                        };
                        gloss.get(&p)
                    })
                    .collect();
                found
                    .iter()
                    .find(|en| en.split_whitespace().any(|w| in_sources.contains(w)))
                    .or(found.first())
                    .copied()
            });
            if let Some(en) = found {
                let en = source_words(en, &in_sources);
                out.push(degree_as_sources_say(&en, &in_sources).to_string());
                content += n;
                known += n;
                i += n;
                matched = true;
                break;
            }
        }
        if matched {
            continue;
        }
        let t = tokens[i].as_str();
        i += 1;
        if !t.chars().any(char::is_alphanumeric) {
            if matches!(t, "," | ";" | ":" | "।") {
                out.push(",".into());
            }
            continue;
        }
        if let Some(v) = numeral(t) {
            out.push(format!("{v}"));
            continue;
        }
        if let Some(e) = english.get(t) {
            out.push(degree_as_sources_say(e, &in_sources).to_string());
            continue;
        }
        // A unit after a number ("14 महीने"): its English unit, so that "months" for the
        // source's "days" is a changed unit.
        if let Some(u) = out
            .last()
            .and_then(|prev| numeral(prev))
            .and_then(|_| words::unit_of(t))
        {
            out.push(u.to_string());
            continue;
        }
        if words::is_function(t) {
            continue;
        }
        if t.chars().all(|c| c.is_ascii_alphanumeric() || c == '-') {
            // An English term inside the Hindi answer.
            out.push(t.to_string());
            content += 1;
            known += 1;
            continue;
        }
        if t.chars().any(|c| script_of(c) == Script::Devanagari) {
            content += 1;
            let key = devanagari_key(t);
            if let Some(w) = key.as_ref().and_then(|k| by_sound.get(k)) {
                out.push(w.clone());
                known += 1;
            } else if let Some(w) = key
                .as_deref()
                .map(skeleton)
                .filter(|k| k.chars().count() >= MIN_SKELETON)
                .and_then(|k| by_skeleton.get(&k))
            {
                out.push(w.clone());
                known += 1;
            } else if super::debugging() {
                eprintln!("  unread Hindi word: {t}");
            }
        }
    }
    EnglishView {
        sentence: words::read(&out.join(" ")),
        known_share: if content == 0 {
            0.0
        } else {
            known as f32 / content as f32
        },
    }
}

/// Least number of consonant sounds for a transliterated term to be matched by its
/// consonants alone ([`skeleton`]): shorter skeletons are shared by unrelated words.
pub const MIN_SKELETON: usize = 6;

/// A phonetic key ([`latin_key`], [`devanagari_key`]) without its vowels: the consonants a
/// transliteration keeps however it writes the vowels ("nondisjunction" and
/// "नॉनडिसजंक्शन" both "nndsjnksn").
fn skeleton(key: &str) -> String {
    key.chars().filter(|c| *c != 'V').collect()
}

/// Oblique plural endings of Hindi nouns and what the direct singular ends in instead
/// ("कोशिकाओं" → "कोशिका", "हॉर्मोनों" → "हॉर्मोन", "ध्वनियों" → "ध्वनि", "पत्तियों" →
/// "पत्ती"; McGregor, *Outline of Hindi Grammar*, ch. 1), folded.
const OBLIQUE_PLURAL: &[(&str, &str)] =
    &[("ियों", "ि"), ("ियों", "ी"), ("ओं", ""), ("ों", ""), ("ों", "ा")];

/// The direct singular forms that `token` (folded) may be the oblique plural of, by
/// [`OBLIQUE_PLURAL`]: none when it has no such ending or too short a stem.
fn oblique_bases(token: &str) -> Vec<String> {
    OBLIQUE_PLURAL
        .iter()
        .filter_map(|(end, base)| {
            token
                .strip_suffix(fold(end).as_str())
                .filter(|stem| stem.chars().count() >= 2)
                .map(|stem| format!("{stem}{}", fold(base)))
        })
        .collect()
}

/// Hindi causal connectives and the English connective each stands for, as folded token
/// runs: cause first ("इसलिए", therefore; "इसी कारण", for this reason; "जिससे", so that) or
/// effect first ("क्योंकि", because).
const HI_CAUSAL: &[(&[&str], &str)] = &[
    (&["इसलिए"], "therefore"),
    (&["अतः"], "therefore"),
    (&["इसी", "कारण"], "therefore"),
    (&["इस", "कारण"], "therefore"),
    (&["इसी", "वजह", "से"], "therefore"),
    (&["जिससे"], "so"),
    (&["क्योंकि"], "because"),
    (&["चूंकि"], "because"),
];

/// The causal connective [`HI_CAUSAL`] at the start of `tokens` (folded): how many tokens it
/// takes and its English.
fn causal(tokens: &[String]) -> Option<(usize, &'static str)> {
    HI_CAUSAL.iter().find_map(|(run, en)| {
        (tokens.len() >= run.len() && run.iter().zip(tokens).all(|(r, t)| fold(r) == *t))
            .then_some((run.len(), *en))
    })
}

/// The glossary's English for a Hindi term as the sources word it: a value of several words
/// ("matter substance", alternatives for the retriever; "cell membrane", one term) keeps the
/// words the sources have (a plural "-s"/"-es" aside), and all of them when the sources have
/// none. `in_sources`: the sources' words, lower case.
fn source_words(value: &str, in_sources: &HashSet<String>) -> String {
    let found = |w: &str| {
        in_sources.contains(w)
            || ["s", "es"]
                .iter()
                .any(|e| in_sources.contains(&format!("{w}{e}")))
            || ["s", "es"]
                .iter()
                .any(|e| w.strip_suffix(e).is_some_and(|x| in_sources.contains(x)))
    };
    let kept: Vec<&str> = value.split_whitespace().filter(|w| found(w)).collect();
    if kept.is_empty() {
        value.to_string()
    } else {
        kept.join(" ")
    }
}

/// English words that Hindi's "कम" (less) and "अधिक"/"ज़्यादा" (more) also stand for:
/// "कम विलेय सांद्रता" is "low solute concentration", "अधिक ताप पर" "at a high temperature".
const DEGREE_ALTERNATES: &[(&str, &[&str])] = &[
    ("less", &["low", "lower", "fewer", "little"]),
    ("more", &["high", "higher", "greater", "many", "much"]),
];

/// `english` (a cue word's English) as the sources word it: "less" is read "low" when the
/// sources say "low" (or another of [`DEGREE_ALTERNATES`]) and not "less"; any other word
/// as it is. `in_sources`: the sources' words, lower case.
fn degree_as_sources_say<'a>(english: &'a str, in_sources: &HashSet<String>) -> &'a str {
    if in_sources.contains(english) {
        return english;
    }
    DEGREE_ALTERNATES
        .iter()
        .find(|(w, _)| *w == english)
        .and_then(|(_, alts)| alts.iter().copied().find(|x| in_sources.contains(*x)))
        .unwrap_or(english)
}

/// The content words of a run of the answer's tokens, read in English ([`english_view`]).
fn content_words(tokens: &[String], sources: &[&str]) -> Vec<Word> {
    english_view(&tokens.join(" "), sources)
        .sentence
        .words
        .into_iter()
        .filter(|w| w.role == Role::Content)
        .collect()
}

/// The two ends of a Hindi movement, "A से B की ओर" or "A से B तक" (from A towards / as far
/// as B), each read in English ([`english_view`]) as content words. A is the run of words
/// before "से" back to a comma, "में" or "को" (or the sentence's start), B the words
/// between "से" and "की ओर"/"तक", with no comma between. Not a way through ("से होकर").
/// `None` when the answer has no such movement.
pub fn path(answer: &str, sources: &[&str]) -> Option<(Vec<Word>, Vec<Word>)> {
    let tokens = tokens(answer);
    let is_stop = |t: &str| matches!(t, "," | ";" | "।" | "में" | "को");
    let end = (1..tokens.len())
        .find(|&q| (tokens[q] == "ओर" && tokens[q - 1] == "की") || tokens[q] == "तक")?;
    let to_end = if tokens[end] == "ओर" {
        end - 1
    } else {
        end
    };
    let from_end = (0..to_end)
        .rev()
        .take_while(|&p| !is_stop(&tokens[p]))
        .find(|&p| tokens[p] == "से" && tokens.get(p + 1).is_some_and(|n| n != "होकर"))?;
    let start = (0..from_end)
        .rev()
        .find(|&p| is_stop(&tokens[p]))
        .map_or(0, |p| p + 1);
    let (a, b) = (
        content_words(&tokens[start..from_end], sources),
        content_words(&tokens[from_end + 1..to_end], sources),
    );
    (!a.is_empty() && !b.is_empty()).then_some((a, b))
}

/// How a Hindi answer's comparison ("A fast than B", as [`english_view`] reads "A B से
/// तेज़") stands to the aligned source sentence's ("B is slower than A").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compared {
    /// The sides exchanged under a degree word of the same direction: "light slow than
    /// sound" against "sound is slower than light". A roles finding.
    Reversed,
    /// The sides exchanged under the opposite degree word: "light fast than sound" against
    /// "sound is slower than light", the same claim. The opposite at this answer word index is
    /// no finding.
    Restated(usize),
}

/// The comparison of answer `a` (a Hindi answer read by [`english_view`]) against the aligned
/// source sentence `s`: each one's degree word before "than" (the source's one or two words
/// before its first "than"), the content words before it in its clause and those after
/// "than". `None` when either has no comparison, the two sides are not exchanged (a word of
/// the answer's "than" side only on the source's other side, and one of its other side only
/// on the source's "than" side), or the degree words are neither the same nor opposites.
pub fn comparison_sides(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Option<Compared> {
    let than = |x: &Sentence, from: usize, reach: usize| {
        (from + 1..(from + 1 + reach).min(x.words.len())).find(|&t| x.words[t].lower == "than")
    };
    let (k, ta) = (0..a.words.len()).find_map(|k| than(a, k, 1).map(|t| (k, t)))?;
    let t = (1..s.words.len()).find(|&t| s.words[t].lower == "than")?;
    let sides = |x: &Sentence, cue: usize, t: usize| -> (Vec<Word>, Vec<Word>) {
        let clause = x.words[cue].clause;
        let pick = |r: std::ops::Range<usize>| -> Vec<Word> {
            x.words[r]
                .iter()
                .filter(|w| w.clause == clause && w.role == Role::Content)
                .cloned()
                .collect()
        };
        (pick(0..cue), pick(t + 1..x.words.len()))
    };
    let (a_before, a_after) = sides(a, k, ta);
    let (s_before, s_after) = sides(s, t - 1, t);
    let only = |w: &Word, here: &[Word], there: &[Word]| {
        here.iter().any(|y| same_term(w, y)) && !there.iter().any(|y| same_term(w, y))
    };
    let exchanged = a_after.iter().any(|w| only(w, &s_before, &s_after))
        && a_before.iter().any(|w| only(w, &s_after, &s_before));
    if !exchanged {
        return None;
    }
    let cue = &a.words[k];
    // The source's degree word: the word before "than" ("slower than"), or the one before
    // that ("more massive than"), read as its base too ("slower" → "slow").
    [t - 1, t.saturating_sub(2)]
        .into_iter()
        .filter(|&j| j < t && matches!(s.words[j].role, Role::Content | Role::Cue))
        .find_map(|j| {
            let source = s.words[j].lower.as_str();
            // Its base: WordNet's, or the word less "-er" or "-r" ("slower", "larger").
            let mut bases: Vec<String> = lex.map(|l| l.base_forms(source)).unwrap_or_default();
            bases.push(source.to_string());
            bases.extend(
                ["er", "r"]
                    .iter()
                    .filter_map(|e| source.strip_suffix(e))
                    .map(str::to_string),
            );
            let bases: Vec<Word> = bases
                .iter()
                .filter_map(|b| words::read(b).words.into_iter().next())
                .collect();
            if bases.iter().any(|b| same_word(cue, b)) {
                Some(Compared::Reversed)
            } else if bases.iter().any(|b| opposite(cue, b, lex)) {
                Some(Compared::Restated(k))
            } else {
                None
            }
        })
}

/// Forms of "होना" (to be, to become) that a change of degree takes before "जाना".
const HI_BECOME: &[&str] = &["हो", "होता", "होती", "होते"];
/// Forms of "जाना" that make "होना" a change ("हो जाता", "होता जाता", "हो गया").
const HI_GO: &[&str] = &[
    "जाता",
    "जाती",
    "जाते",
    "जाएगा",
    "जाएगी",
    "जाएँगे",
    "जायेगा",
    "गया",
    "गई",
    "गए",
    "जा",
];

/// "decrease" for "कम" and "increase" for "अधिक"/"ज़्यादा" when the next two words make a
/// change of them ([`HI_BECOME`] then [`HI_GO`]); `None` otherwise. `tokens` are folded and
/// start at the degree word.
fn becoming(tokens: &[String]) -> Option<&'static str> {
    let change = match tokens.first()?.as_str() {
        "कम" => "decrease",
        "अधिक" | "ज्यादा" => "increase",
        _ => return None,
    };
    (HI_BECOME.contains(&tokens.get(1)?.as_str()) && hindi_cues().go.contains(tokens.get(2)?))
        .then_some(change)
}

/// Hindi verbs of conversion, as folded word beginnings ("बदलता", "परिवर्तित करता").
const HI_CONVERTS: &[&str] = &["बदल", "परिवर्तित"];

/// The two sides of a Hindi conversion, "A को B में बदलता है" (converts A into B), each read
/// in English ([`english_view`]). A is the run of words before "को" up to a function word or
/// punctuation; B the words between "को" and "में", which stands at most three words before
/// the verb. Returns (A, B) as their English content words; `None` when the answer converts
/// nothing.
pub fn conversion(answer: &str, sources: &[&str]) -> Option<(Vec<Word>, Vec<Word>)> {
    let tokens = tokens(answer);
    let verbs = &hindi_cues().converts;
    let v = tokens
        .iter()
        .position(|t| verbs.iter().any(|p| t.starts_with(p.as_str())))?;
    let into = (0..v).rev().take(3).find(|i| tokens[*i] == "में")?;
    let marker = (0..into).rev().find(|i| tokens[*i] == "को")?;
    let start = (0..marker)
        .rev()
        .take_while(|i| {
            let t = tokens[*i].as_str();
            t.chars().any(char::is_alphanumeric) && !words::is_function(t)
        })
        .last()?;
    Some((
        content_words(&tokens[start..marker], sources),
        content_words(&tokens[marker + 1..into], sources),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superlatives_and_towards_read_as_english_words() {
        assert_eq!(superlative("long"), "longest");
        assert_eq!(superlative("heavy"), "heaviest");
        assert_eq!(superlative("large"), "largest");
        assert_eq!(superlative("hot"), "hottest");
        assert_eq!(superlative("strong"), "strongest");
        let v = english_view(
            "फीमर शरीर की सबसे लंबी, सबसे भारी और सबसे मज़बूत हड्डी है। दर्पण अंदर की ओर मुड़ा हो",
            &["The femur is the longest bone."],
        );
        let words: Vec<&str> = v.sentence.words.iter().map(|w| w.lower.as_str()).collect();
        for w in ["longest", "heaviest", "strongest", "inward"] {
            assert!(words.contains(&w), "{w}: {words:?}");
        }
        assert!(!words.contains(&"most"), "{words:?}");
        // "सबसे पहले" (first of all) keeps its words.
        let v = english_view("सबसे पहले पानी गर्म होता है", &["Water is heated first."]);
        let words: Vec<&str> = v.sentence.words.iter().map(|w| w.lower.as_str()).collect();
        assert!(words.contains(&"before"), "{words:?}");
    }

    fn read(hi: &str, source: &str) -> Vec<String> {
        english_view(hi, &[source])
            .sentence
            .words
            .iter()
            .map(|w| w.lower.clone())
            .collect()
    }

    #[test]
    fn every_form_of_a_listed_verb_is_read() {
        // Listed as "बढ़ाता" and "सिकुड़ता"; written "बढ़ाते", "सिकुड़ जाता", "फैलकर".
        let words = read(
            "एंजाइम सक्रियण ऊर्जा को बढ़ाते हैं",
            "Enzymes lower the activation energy.",
        );
        assert!(words.contains(&"increase".to_string()), "{words:?}");
        let words = read("गुब्बारा सिकुड़ जाता है", "The balloon expands.");
        assert!(words.contains(&"contract".to_string()), "{words:?}");
        let words = read("गुब्बारा फैलकर बड़ा होता है", "The balloon expands.");
        assert!(words.contains(&"expand".to_string()), "{words:?}");
        // An adjective has no verb forms.
        assert!(verb_forms("धीमा").is_empty());
    }

    #[test]
    fn a_comparison_is_read_in_english_order() {
        let sound = "Sound travels much slower than light.";
        assert_eq!(
            read("प्रकाश ध्वनि से बहुत धीमा चलता है", sound)[..4],
            ["light", "slow", "than", "sound"]
        );
        assert_eq!(
            read("ध्वनि प्रकाश की तुलना में धीमी चलती है", sound)[..4],
            ["sound", "slow", "than", "light"]
        );
        // "से" that compares nothing ("हृदय से दूर", away from the heart) is left as it was.
        let words = read("रक्त हृदय से दूर जाता है", "Blood flows away from the heart.");
        assert!(!words.contains(&"than".to_string()), "{words:?}");
    }

    #[test]
    fn a_movement_reads_its_two_ends() {
        let osmosis = "Water moves from an area of low solute concentration to an area of high solute concentration.";
        let (from, to) = path(
            "परासरण में पानी कम विलेय सांद्रता वाले क्षेत्र से अधिक विलेय सांद्रता वाले क्षेत्र की ओर जाता है",
            &[osmosis],
        )
        .unwrap();
        let lower = |p: &[Word]| p.iter().map(|w| w.lower.clone()).collect::<Vec<_>>();
        assert!(lower(&from).contains(&"low".to_string()), "{from:?}");
        assert!(lower(&to).contains(&"high".to_string()), "{to:?}");
        // A way through is no movement's start.
        assert!(path("पानी झिल्ली से होकर जाता है", &[osmosis]).is_none());
        // Nor is a comparison read inside a movement.
        let words = read(
            "पानी उच्च सांद्रता वाले क्षेत्र से कम सांद्रता वाले क्षेत्र की ओर जाता है",
            osmosis,
        );
        assert!(!words.contains(&"than".to_string()), "{words:?}");
    }

    #[test]
    fn causal_connectives_and_oblique_plurals_are_read() {
        let words = read(
            "हवा ऊपर उठती है, इसलिए वह कम सघन होती है",
            "Hot air rises because it is less dense.",
        );
        assert!(words.contains(&"therefore".to_string()), "{words:?}");
        let words = read("इसी कारण केंद्रक नहीं होता", "Prokaryotes have no nucleus.");
        assert_eq!(words[0], "therefore");
        // "कोशिकाओं" (cells, oblique plural) is the glossary's "कोशिका".
        let words = read("लक्ष्य कोशिकाओं की सतह", "on the surface of the target cells");
        assert!(words.iter().any(|w| w.starts_with("cell")), "{words:?}");
        assert_eq!(oblique_bases("कोशिकाओं"), ["कोशिका"]);
        assert!(oblique_bases("पानी").is_empty());
    }

    #[test]
    fn a_transliterated_term_is_read_by_its_consonants() {
        let source = "Nondisjunction occurs when homologous chromosomes fail to separate.";
        let words = read("नॉनडिसजंक्शन तब होता है", source);
        assert!(words.contains(&"nondisjunction".to_string()), "{words:?}");
        // A short word is not matched by its consonants alone.
        assert!(skeleton("kVt").chars().count() < MIN_SKELETON);
    }

    #[test]
    fn a_glossary_term_and_a_degree_word_are_read_as_the_sources_word_them() {
        // The glossary's "matter substance" lists alternatives: the book says "matter".
        let words = read(
            "द्रव्यमान किसी वस्तु में पदार्थ की मात्रा होती है",
            "Mass is the amount of matter in an object.",
        );
        assert!(words.contains(&"matter".to_string()), "{words:?}");
        assert!(!words.contains(&"substance".to_string()), "{words:?}");
        // "कम"/"अधिक" are "low"/"high" where the book says so, and "less"/"more" elsewhere.
        let osmosis = "Osmosis is the movement of water from an area of low solute concentration to an area of high solute concentration.";
        let words = read("कम विलेय सांद्रता से अधिक विलेय सांद्रता की ओर", osmosis);
        assert!(words.contains(&"low".to_string()), "{words:?}");
        assert!(words.contains(&"high".to_string()), "{words:?}");
        let words = read("कम ऊर्जा", "It takes less energy.");
        assert_eq!(words, ["less", "energy"]);
        // "की तुलना में" (compared with) is "than".
        let words = read(
            "ध्वनि प्रकाश की तुलना में धीमी चलती है",
            "Sound travels slower than light.",
        );
        assert!(words.contains(&"than".to_string()), "{words:?}");
        assert!(!words.iter().any(|w| w.starts_with("compar")), "{words:?}");
    }

    #[test]
    fn a_change_of_degree_reads_as_increase_or_decrease() {
        let read = |hi: &str| -> Vec<String> {
            english_view(hi, &["Risk rises."])
                .sentence
                .words
                .iter()
                .map(|w| w.lower.clone())
                .collect()
        };
        assert!(read("खतरा कम होता जाता है").contains(&"decrease".to_string()));
        assert!(read("खतरा अधिक हो गया").contains(&"increase".to_string()));
        // A state, not a change.
        let w = read("खतरा कम होता है");
        assert!(w.contains(&"less".to_string()), "{w:?}");
        assert!(!w.contains(&"decrease".to_string()), "{w:?}");
    }

    #[test]
    fn verb_forms_of_increase_and_decrease_are_read() {
        for (hi, en) in [
            ("उम्र बढ़ने के साथ", "increase"),
            ("तापमान घटने पर", "decrease"),
            ("दाब बढ़ाने से", "increase"),
        ] {
            let v = english_view(hi, &["The pressure rises."]);
            let words: Vec<&str> = v.sentence.words.iter().map(|w| w.lower.as_str()).collect();
            assert!(words.contains(&en), "{hi}: {words:?}");
        }
    }

    #[test]
    fn cue_words_typed_with_a_nukta_are_read() {
        // "बढ़ती" (increases) and "बड़े" (large) are typed with a nukta; the answer's tokens
        // are folded without it.
        let v = english_view(
            "बड़े अणुओं की गति बढ़ती है।",
            &["The speed of large molecules increases."],
        );
        let words: Vec<&str> = v.sentence.words.iter().map(|w| w.lower.as_str()).collect();
        assert!(words.contains(&"increase"), "{words:?}");
        assert!(words.contains(&"large"), "{words:?}");
    }

    #[test]
    fn glossary_terms_cues_and_sounds_are_read_in_english() {
        let v = english_view(
            "क्लोरोफिल हरा प्रकाश परावर्तित नहीं करता।",
            &["Chlorophyll reflects green light."],
        );
        let words: Vec<&str> = v.sentence.words.iter().map(|w| w.lower.as_str()).collect();
        assert!(words.contains(&"chlorophyll"), "{words:?}");
        assert!(words.contains(&"not"), "{words:?}");
        assert!(words.contains(&"reflect"), "{words:?}");
        assert!(v.known_share > 0.5);
    }
}
