//! Hindi answers over English sources: the answer read as the English words it stands for, so
//! that the same checks apply. Glossary terms (`data/glossary_hi_en.tsv`, NCERT terminology)
//! become their English terms (longest phrase first), English terms written in Devanagari
//! ("क्लोरोफिल") become the source word with the same sound ([`devanagari_key`] against
//! [`latin_key`]), and the cue words become their English cues: negators "not", quantifiers
//! "all"/"some"/"only", direction and degree words ([`cues::HI_DIRECTION`]), numbers as
//! numerals. Words none of these know are left out and counted: the check then knows how much
//! of the answer it could read ([`EnglishView::known_share`]).

use super::cues;
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
        let direction: HashMap<String, &'static str> = cues::HI_DIRECTION
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
        // The other forms of each listed verb ("बढ़ाते", "घटाते" from "बढ़ाता", "घटाता").
        let mut direction = direction;
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
/// it ends in one of [`VERB_ENDINGS`] but "कर" after a stem of two letters or more; empty for any other word
/// (an adjective such as "धीमा" has no verb ending). Hindi verb morphology as in
/// McGregor, *Outline of Hindi Grammar* (1995), ch. 6 and 9.
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
        // "की तुलना में" (compared with): "than", not the glossary's "compare comparison".
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
            if let Some(en) = gloss.get(&phrase) {
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
            if let Some(w) = devanagari_key(t).and_then(|k| by_sound.get(&k)) {
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
    let read = |from: usize, to: usize| -> Vec<Word> {
        english_view(&tokens[from..to].join(" "), sources)
            .sentence
            .words
            .into_iter()
            .filter(|w| w.role == Role::Content)
            .collect()
    };
    Some((read(start, marker), read(marker + 1, into)))
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
