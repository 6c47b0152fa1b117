//! A sentence read for the check: its words in order (lower case, with their clause), the
//! numbers with their units, and which words are content, cues or function words.

use super::cues::{self, FUNCTION_WORDS, NUMBER_WORDS, UNITS};
use crate::text::script::{script_of, Script};
use std::collections::HashMap;
use std::sync::OnceLock;
use unicode_segmentation::UnicodeSegmentation;

/// What a word is to the check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// A content word: it must be accounted for by the source.
    Content,
    /// A function word: ignored.
    Function,
    /// A negator ([`cues::NEGATORS`]).
    Negator,
    /// A number (digits or a number word).
    Number,
    /// A quantifier, hedge, modal, relation-reversing or direction word: read by the checks,
    /// not content of its own.
    Cue,
}

/// One word of a sentence.
#[derive(Debug, Clone)]
pub struct Word {
    /// Lower case, typographic apostrophes as `'`.
    pub lower: String,
    /// The Snowball English stem (Latin words), else the word.
    pub stem: String,
    /// Index of the clause it is in (clauses split at `,;:` and clause conjunctions; a
    /// bracketed aside stays in its clause: "human body (somatic) cells have 46").
    pub clause: usize,
    /// Its role.
    pub role: Role,
    /// The value of a number word or numeral.
    pub value: Option<f64>,
    /// The unit that follows a number (a [`cues::UNITS`] name).
    pub unit: Option<&'static str>,
}

/// A sentence's words.
#[derive(Debug, Clone, Default)]
pub struct Sentence {
    /// Its words in order.
    pub words: Vec<Word>,
    /// The script most of its letters are in.
    pub script: Option<Script>,
}

fn stemmer() -> &'static rust_stemmers::Stemmer {
    static S: OnceLock<rust_stemmers::Stemmer> = OnceLock::new();
    S.get_or_init(|| rust_stemmers::Stemmer::create(rust_stemmers::Algorithm::English))
}

fn units() -> &'static HashMap<&'static str, &'static str> {
    static U: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    U.get_or_init(|| UNITS.iter().copied().collect())
}

/// The unit `word` names ([`cues::UNITS`]: "days" → "day", "महीने" → "month"), if it is one.
pub fn unit_of(word: &str) -> Option<&'static str> {
    units().get(word).copied()
}

fn number_words() -> &'static HashMap<&'static str, f64> {
    static N: OnceLock<HashMap<&'static str, f64>> = OnceLock::new();
    N.get_or_init(|| {
        NUMBER_WORDS
            .iter()
            .chain(cues::HI_NUMBER_WORDS)
            .copied()
            .collect()
    })
}

/// Words that start a new clause.
const CLAUSE_WORDS: &[&str] = &[
    "but",
    "while",
    "whereas",
    "although",
    "though",
    "which",
    "because",
    "since",
    "so",
    "however",
    "unless",
    "whereby",
    "where",
    "when",
    "if",
    "लेकिन",
    "परंतु",
    "परन्तु",
    "जबकि",
    "क्योंकि",
    "इसलिए",
    "जो",
    "जिससे",
];

/// The value of a numeral: digits in ASCII or an Indian script, with `.` decimals and `,`
/// thousands separators ("3,000" is 3000, "2.5" is 2.5).
pub fn numeral(word: &str) -> Option<f64> {
    let ascii: String = word
        .chars()
        .map(|c| match c {
            '\u{0966}'..='\u{096F}' => char::from(b'0' + (c as u32 - 0x0966) as u8),
            '\u{0CE6}'..='\u{0CEF}' => char::from(b'0' + (c as u32 - 0x0CE6) as u8),
            '\u{0C66}'..='\u{0C6F}' => char::from(b'0' + (c as u32 - 0x0C66) as u8),
            '\u{0BE6}'..='\u{0BEF}' => char::from(b'0' + (c as u32 - 0x0BE6) as u8),
            _ => c,
        })
        .collect();
    if !ascii.chars().next().is_some_and(|c| c.is_ascii_digit()) {
        return None;
    }
    let clean: String = ascii.chars().filter(|c| *c != ',').collect();
    clean.parse().ok()
}

/// True for a word of no content ([`cues::FUNCTION_WORDS`], the English stop words that are
/// not cues, and Hindi postpositions and auxiliaries).
pub fn is_function(lower: &str) -> bool {
    static SET: OnceLock<std::collections::HashSet<&'static str>> = OnceLock::new();
    let set = SET.get_or_init(|| FUNCTION_WORDS.iter().chain(HI_FUNCTION).copied().collect());
    set.contains(lower)
}

/// Irregular English forms and their lemma (the irregular entries of WordNet's exception
/// lists, `morph(7WN)`, that school science uses), so that "eaten" meets "eat" and
/// "mitochondria" meets "mitochondrion" without the lexicon file.
const IRREGULAR: &[(&str, &str)] = &[
    ("eaten", "eat"),
    ("ate", "eat"),
    ("taken", "take"),
    ("took", "take"),
    ("given", "give"),
    ("gave", "give"),
    ("broken", "break"),
    ("broke", "break"),
    ("chosen", "choose"),
    ("chose", "choose"),
    ("driven", "drive"),
    ("drove", "drive"),
    ("written", "write"),
    ("wrote", "write"),
    ("spoken", "speak"),
    ("spoke", "speak"),
    ("hidden", "hide"),
    ("hid", "hide"),
    ("shown", "show"),
    ("known", "know"),
    ("knew", "know"),
    ("grown", "grow"),
    ("grew", "grow"),
    ("thrown", "throw"),
    ("threw", "throw"),
    ("drawn", "draw"),
    ("drew", "draw"),
    ("blown", "blow"),
    ("blew", "blow"),
    ("flown", "fly"),
    ("flew", "fly"),
    ("worn", "wear"),
    ("wore", "wear"),
    ("torn", "tear"),
    ("tore", "tear"),
    ("born", "bear"),
    ("borne", "bear"),
    ("bore", "bear"),
    ("done", "do"),
    ("did", "do"),
    ("gone", "go"),
    ("went", "go"),
    ("seen", "see"),
    ("saw", "see"),
    ("bitten", "bite"),
    ("bit", "bite"),
    ("fallen", "fall"),
    ("fell", "fall"),
    ("risen", "rise"),
    ("rose", "rise"),
    ("frozen", "freeze"),
    ("froze", "freeze"),
    ("shaken", "shake"),
    ("shook", "shake"),
    ("began", "begin"),
    ("begun", "begin"),
    ("ran", "run"),
    ("came", "come"),
    ("became", "become"),
    ("bought", "buy"),
    ("brought", "bring"),
    ("caught", "catch"),
    ("fought", "fight"),
    ("sought", "seek"),
    ("taught", "teach"),
    ("thought", "think"),
    ("built", "build"),
    ("sent", "send"),
    ("spent", "spend"),
    ("bent", "bend"),
    ("felt", "feel"),
    ("kept", "keep"),
    ("left", "leave"),
    ("lost", "lose"),
    ("meant", "mean"),
    ("met", "meet"),
    ("slept", "sleep"),
    ("held", "hold"),
    ("led", "lead"),
    ("fed", "feed"),
    ("bred", "breed"),
    ("sped", "speed"),
    ("said", "say"),
    ("paid", "pay"),
    ("laid", "lay"),
    ("made", "make"),
    ("had", "have"),
    ("heard", "hear"),
    ("found", "find"),
    ("bound", "bind"),
    ("stood", "stand"),
    ("understood", "understand"),
    ("told", "tell"),
    ("sold", "sell"),
    ("struck", "strike"),
    ("stuck", "stick"),
    ("hung", "hang"),
    ("spun", "spin"),
    ("won", "win"),
    ("dug", "dig"),
    ("sung", "sing"),
    ("sang", "sing"),
    ("sunk", "sink"),
    ("sank", "sink"),
    ("shrunk", "shrink"),
    ("shrank", "shrink"),
    ("drunk", "drink"),
    ("drank", "drink"),
    ("swum", "swim"),
    ("swam", "swim"),
    ("lit", "light"),
    ("shot", "shoot"),
    ("children", "child"),
    ("men", "man"),
    ("women", "woman"),
    ("feet", "foot"),
    ("teeth", "tooth"),
    ("mice", "mouse"),
    ("geese", "goose"),
    ("people", "person"),
    ("data", "datum"),
    ("criteria", "criterion"),
    ("phenomena", "phenomenon"),
    ("nuclei", "nucleus"),
    ("fungi", "fungus"),
    ("bacteria", "bacterium"),
    ("algae", "alga"),
    ("larvae", "larva"),
    ("mitochondria", "mitochondrion"),
    ("stomata", "stoma"),
    ("leaves", "leaf"),
    ("halves", "half"),
    ("lives", "life"),
    ("knives", "knife"),
    ("analyses", "analysis"),
    ("hypotheses", "hypothesis"),
    ("axes", "axis"),
    ("indices", "index"),
    ("matrices", "matrix"),
    ("vertices", "vertex"),
    ("spectra", "spectrum"),
    ("media", "medium"),
    ("strata", "stratum"),
    ("ova", "ovum"),
    ("foci", "focus"),
    ("radii", "radius"),
    ("stimuli", "stimulus"),
    ("cilia", "cilium"),
    ("flagella", "flagellum"),
    ("villi", "villus"),
    ("alveoli", "alveolus"),
    ("better", "good"),
    ("best", "good"),
    ("worse", "bad"),
    ("worst", "bad"),
];

/// British spellings in American form ("colour" → "color", "centre" → "center",
/// "organise" → "organize", "analyse" → "analyze"), so that a textbook of one and an answer
/// of the other meet. WordNet lists American spellings.
pub fn american(lower: &str) -> String {
    const OUR: &[&str] = &[
        "colour",
        "behaviour",
        "favour",
        "neighbour",
        "labour",
        "humour",
        "vapour",
        "odour",
        "tumour",
        "flavour",
        "harbour",
        "rumour",
        "armour",
        "honour",
        "vigour",
        "savour",
    ];
    const RE: &[&str] = &[
        "centre", "metre", "litre", "fibre", "theatre", "calibre", "lustre", "spectre",
    ];
    const ISE: &[&str] = &[
        "organis",
        "recognis",
        "realis",
        "specialis",
        "minimis",
        "maximis",
        "summaris",
        "categoris",
        "utilis",
        "neutralis",
        "ionis",
        "polaris",
        "synthesis",
        "metabolis",
        "crystallis",
        "standardis",
        "visualis",
        "emphasis",
        "fertilis",
        "sterilis",
        "stabilis",
        "immunis",
        "characteris",
        "hybridis",
        "memoris",
        "localis",
        "normalis",
        "optimis",
        "magnetis",
        "oxidis",
        "vaporis",
        "pasteuris",
        "colonis",
        "mobilis",
        "hypothesis",
        "polymeris",
        "digitis",
    ];
    for stem in OUR {
        if let Some(rest) = lower.strip_prefix(stem) {
            return format!("{}or{rest}", &stem[..stem.len() - 3]);
        }
    }
    for stem in RE {
        if let Some(rest) = lower.strip_prefix(stem) {
            return format!("{}er{rest}", &stem[..stem.len() - 2]);
        }
    }
    for stem in ISE {
        // "organise", "organised", "organisation" but never "synthesis" or "hypothesis".
        if let Some(rest) = lower.strip_prefix(stem) {
            if rest.starts_with('e') || rest.starts_with("ing") || rest.starts_with("ation") {
                return format!("{}iz{rest}", &stem[..stem.len() - 2]);
            }
        }
    }
    for (british, american) in [
        ("analys", "analyz"),
        ("catalys", "catalyz"),
        ("hydrolys", "hydrolyz"),
        ("paralys", "paralyz"),
        ("electrolys", "electrolyz"),
    ] {
        if let Some(rest) = lower.strip_prefix(british) {
            if rest.starts_with('e') || rest.starts_with("ing") {
                return format!("{american}{rest}");
            }
        }
    }
    lower.to_string()
}

/// The lemma of an irregular form ([`IRREGULAR`]), else the word.
pub fn lemma_of(lower: &str) -> &str {
    static MAP: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    MAP.get_or_init(|| IRREGULAR.iter().copied().collect())
        .get(lower)
        .copied()
        .unwrap_or(lower)
}

/// Direction prepositions: read by the opposite check only.
const DIRECTION_WORDS: &[&str] = &[
    "into", "out", "up", "down", "over", "under", "before", "after", "toward", "towards", "away",
];

/// True for a word the checks read as a cue ([`Role::Cue`]).
fn is_cue(lower: &str) -> bool {
    [
        cues::UNIVERSAL,
        cues::PARTIAL,
        cues::ONLY,
        cues::HEDGES,
        cues::MODAL_HEDGES,
        cues::REVERSERS,
        cues::HI_UNIVERSAL,
        cues::HI_PARTIAL,
        cues::HI_ONLY,
        DIRECTION_WORDS,
    ]
    .iter()
    .any(|list| list.contains(&lower))
}

/// Hindi postpositions, auxiliaries, pronouns and conjunctions.
const HI_FUNCTION: &[&str] = &[
    "है",
    "हैं",
    "था",
    "थे",
    "थी",
    "हो",
    "होता",
    "होती",
    "होते",
    "होना",
    "हुआ",
    "हुई",
    "हुए",
    "का",
    "की",
    "के",
    "को",
    "में",
    "से",
    "पर",
    "ने",
    "और",
    "या",
    "तथा",
    "एवं",
    "यह",
    "ये",
    "वह",
    "वे",
    "इस",
    "उस",
    "इन",
    "उन",
    "इसे",
    "उसे",
    "इसका",
    "उसका",
    "इसकी",
    "उसकी",
    "इसके",
    "उसके",
    "जो",
    "जिसे",
    "जिससे",
    "जिसमें",
    "जब",
    "तब",
    "भी",
    "ही",
    "तो",
    "कि",
    "एक",
    "लिए",
    "द्वारा",
    "करता",
    "करती",
    "करते",
    "करना",
    "करके",
    "कर",
    "किया",
    "किए",
    "गया",
    "गई",
    "गए",
    "जाता",
    "जाती",
    "जाते",
    "रहा",
    "रही",
    "रहे",
    "सकता",
    "सकती",
    "सकते",
    "अपना",
    "अपनी",
    "अपने",
    "कहते",
    "कहा",
    "कहलाता",
    "कहलाती",
    "कहलाते",
    "जैसे",
    "वाले",
    "वाला",
    "वाली",
    "प्रक्रिया",
    "क्या",
    "क्यों",
    "कैसे",
    "कौन",
    "कहाँ",
    "लेकिन",
    "परंतु",
    "क्योंकि",
    "इसलिए",
    "जबकि",
    "अतः",
    "साथ",
    "होने",
    "होकर",
    "होगा",
    "होगी",
    "होंगे",
    "जाने",
    "जाना",
    "करने",
    "किसी",
    "आप",
    "बल्कि",
    "जिसके",
    "जिसकी",
    "जिसका",
    "जिनमें",
    "जिनके",
    "उनके",
    "उनकी",
    "उनका",
    "इनके",
    "इनकी",
    "इनका",
    "यदि",
    "अगर",
    "फिर",
    "यानी",
    "अर्थात",
    "रूप",
    "तक",
    "ओर",
    "बीच",
    "अनुसार",
    "व",
    "लगभग",
    "उनमें",
    "इनमें",
    "जहां",
    "जहाँ",
    "रहता",
    "रहती",
    "रहते",
    "जा",
    "ले",
    "देता",
    "देती",
    "देते",
    "पडता",
    "पडती",
    "सके",
    "सकें",
    "बहुत",
    "ताकि",
];

/// A superscript digit as its plain digit (Unicode "Superscripts and Subscripts" block and
/// Latin-1's ¹ ² ³); any other character as it is.
fn plain_digit(c: char) -> char {
    match c {
        '¹' => '1',
        '²' => '2',
        '³' => '3',
        '⁰' => '0',
        '⁴'..='⁹' => char::from_u32(c as u32 - '⁴' as u32 + '4' as u32).unwrap_or(c),
        _ => c,
    }
}

/// Reads `text` into words, clauses, numbers and units.
pub fn read(text: &str) -> Sentence {
    let mut words = Vec::new();
    let mut clause = 0;
    let mut counts: HashMap<Script, usize> = HashMap::new();
    // Superscript digits read as the digits a PDF's text layer gives for them ("m/s²" as the
    // book's "m/s2").
    let text: String = text.chars().map(plain_digit).collect();
    // Word-bound pieces keep punctuation as pieces of their own: clause breaks.
    let pieces: Vec<&str> = text.split_word_bounds().collect();
    let mut i = 0;
    while i < pieces.len() {
        let p = pieces[i];
        i += 1;
        if p.chars().all(char::is_whitespace) {
            continue;
        }
        // Dashes and brackets enclose an aside more often than they end a clause: not a break.
        if p.chars().all(|c| matches!(c, ',' | ';' | ':')) {
            if !words.is_empty() {
                clause += 1;
            }
            continue;
        }
        if !p.chars().any(char::is_alphanumeric) {
            // "%" and "°" belong to the number before them.
            if let Some(last) = words.last_mut() {
                let last: &mut Word = last;
                if last.role == Role::Number && last.unit.is_none() {
                    last.unit = match p {
                        "%" => Some("percent"),
                        "°" | "º" => Some("degree"),
                        _ => None,
                    };
                }
            }
            continue;
        }
        for c in p.chars().filter(|c| c.is_alphabetic()) {
            *counts.entry(script_of(c)).or_default() += 1;
        }
        let lower = american(without_possessive(&p.to_lowercase().replace('’', "'")));
        if CLAUSE_WORDS.contains(&lower.as_str()) && !words.is_empty() {
            clause += 1;
        }
        // "3x10^8", "5km", "37°C": digits, then a unit glued on.
        let (num_part, glued_unit) = split_glued_unit(&lower);
        let value = numeral(num_part).or_else(|| number_words().get(lower.as_str()).copied());
        let role = if value.is_some() {
            Role::Number
        } else if cues::is_in(cues::NEGATORS, &lower) || cues::is_in(cues::HI_NEGATORS, &lower) {
            Role::Negator
        } else if is_cue(&lower) {
            Role::Cue
        } else if is_function(&lower) || (lower.chars().count() < 2 && lower.is_ascii()) {
            Role::Function
        } else {
            Role::Content
        };
        let stem = if lower.chars().any(|c| script_of(c) == Script::Latin) {
            stemmer().stem(lemma_of(&lower)).into_owned()
        } else {
            lower.clone()
        };
        words.push(Word {
            lower,
            stem,
            clause,
            role,
            value,
            unit: glued_unit,
        });
    }
    attach_units(&mut words);
    read_ordinals(&mut words);
    split_parallel_clauses(&mut words);
    read_compound_prepositions(&mut words);
    let script = counts
        .into_iter()
        .filter(|(s, _)| *s != Script::Other)
        .max_by_key(|(_, n)| *n)
        .map(|(s, _)| s);
    Sentence { words, script }
}

/// Openers that announce a rewording and say nothing of the book's content ("In other words,
/// …", "Simply put, …", "दूसरे शब्दों में, …"): read only where a comma follows them.
const OPENERS: &[&str] = &[
    "in other words",
    "simply put",
    "put simply",
    "to put it simply",
    "in simple terms",
    "in simpler terms",
    "in simple words",
    "in short",
    "in fact",
    "that is",
    "basically",
    "दूसरे शब्दों में",
    "सरल शब्दों में",
    "आसान शब्दों में",
];

/// Openers that announce a restatement of the sentence before and need no comma ("This means
/// that the cell …").
const RESTATING_OPENERS: &[&str] = &["this means that", "this means", "that means"];

/// `sentence` without an opener that only announces a rewording ([`OPENERS`] followed by a
/// comma, or [`RESTATING_OPENERS`]), matched without regard to case; the sentence as it is
/// when it has none.
pub fn without_opener(sentence: &str) -> &str {
    let t = sentence.trim_start();
    let head = |o: &str| {
        t.get(..o.len())
            .filter(|h| h.eq_ignore_ascii_case(o))
            .map(|_| &t[o.len()..])
    };
    for o in OPENERS {
        if let Some(rest) = head(o).and_then(|r| r.trim_start().strip_prefix(',')) {
            return rest.trim_start();
        }
    }
    for o in RESTATING_OPENERS {
        if let Some(rest) = head(o).filter(|r| r.starts_with(' ')) {
            return rest.trim_start();
        }
    }
    sentence
}

/// A word without its possessive ending: "object's" → "object", "cells'" → "cells". A word
/// of one or two letters keeps its "'s" ("it's", "he's"); a longer contraction loses only a
/// grammar word ("that's" → "that"); "n't" is untouched.
fn without_possessive(lower: &str) -> &str {
    lower
        .strip_suffix("'s")
        .or_else(|| lower.strip_suffix('\'').filter(|w| w.ends_with('s')))
        .filter(|w| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic))
        .unwrap_or(lower)
}

/// Verbs that are function words, yet can be the verb a parallel clause repeats ("electrons
/// have …, and protons have …").
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "has", "have", "had", "can", "do", "does", "will", "may", "must",
];

/// Determiners skipped before a parallel clause's subject.
const DETERMINERS: &[&str] = &["the", "a", "an", "its", "their", "each", "every"];

/// "Electrons have a negative charge and protons have a positive charge": an "and" followed
/// by a subject of one to three words and then the verb that the clause before it has right
/// after its own subject starts a new clause (a parallel clause, which needs no comma), so
/// that each subject is read with its own predicate.
fn split_parallel_clauses(words: &mut [Word]) {
    for k in 1..words.len().saturating_sub(2) {
        if words[k].lower != "and" || words[k - 1].clause != words[k].clause {
            continue;
        }
        let clause = words[k].clause;
        let start = words[..k]
            .iter()
            .rposition(|w| w.clause != clause)
            .map_or(0, |p| p + 1);
        let mut j = k + 1;
        while j < words.len() && DETERMINERS.contains(&words[j].lower.as_str()) {
            j += 1;
        }
        let subject = words[j..]
            .iter()
            .take(3)
            .take_while(|w| matches!(w.role, Role::Content | Role::Number))
            .count();
        let verb = j + subject;
        // The clause before: its verb within its first five words, after a subject of its own.
        let parallel = subject > 0
            && words.get(verb).is_some_and(|v| {
                (v.role == Role::Content || AUXILIARIES.contains(&v.lower.as_str()))
                    && words[start..k]
                        .iter()
                        .take(5)
                        .enumerate()
                        .any(|(p, w)| p > 0 && w.lower == v.lower)
            });
        if parallel {
            for w in &mut words[k..] {
                w.clause += 1;
            }
        }
    }
}

/// `"5km"` → `("5", Some("kilometre"))`; anything else comes back whole.
fn split_glued_unit(lower: &str) -> (&str, Option<&'static str>) {
    let digits = lower
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == ','))
        .map(|(i, _)| i)
        .unwrap_or(lower.len());
    if digits == 0 || digits == lower.len() {
        return (lower, None);
    }
    match units().get(&lower[digits..]) {
        Some(u) => (&lower[..digits], Some(*u)),
        None => (lower, None),
    }
}

/// Ordinals that name which one of a series ("the first law", "the third stage"): a number
/// when a content word follows, so that "first law" against "third law" is a changed number.
const ORDINALS: &[(&str, f64)] = &[
    ("first", 1.0),
    ("second", 2.0),
    ("third", 3.0),
    ("fourth", 4.0),
    ("fifth", 5.0),
    ("sixth", 6.0),
    ("seventh", 7.0),
    ("eighth", 8.0),
    ("ninth", 9.0),
    ("tenth", 10.0),
];

fn read_ordinals(words: &mut [Word]) {
    for i in 0..words.len().saturating_sub(1) {
        let Some((_, v)) = ORDINALS.iter().find(|(o, _)| *o == words[i].lower) else {
            continue;
        };
        // After an auxiliary the ordinal says when ("was first determined"), not which one.
        let adverb = i > 0
            && matches!(
                words[i - 1].lower.as_str(),
                "is" | "are" | "was" | "were" | "be" | "been" | "has" | "have" | "had"
            );
        if words[i + 1].role == Role::Content && !adverb {
            words[i].role = Role::Number;
            words[i].value = Some(*v);
            words[i].unit = Some("ordinal");
        }
    }
}

/// Prepositions of more than one word whose noun says nothing of its own: "with respect to",
/// "relative to", "with regard to", "in terms of", "in addition to". Their noun is a function
/// word there, so "relative to the points" restates "with respect to the points".
fn read_compound_prepositions(words: &mut [Word]) {
    fn at(words: &[Word], i: usize) -> Option<&str> {
        words.get(i).map(|w| w.lower.as_str())
    }
    for i in 0..words.len() {
        let after = at(words, i + 1);
        let before = i.checked_sub(1).and_then(|p| at(words, p));
        let compound = match words[i].lower.as_str() {
            "relative" => after == Some("to"),
            "respect" | "regard" => before == Some("with") && after == Some("to"),
            "terms" => before == Some("in") && after == Some("of"),
            "addition" => before == Some("in") && after == Some("to"),
            _ => false,
        };
        if compound {
            words[i].role = Role::Function;
        }
    }
}

/// A number's unit is the word after it when that word is a unit ("46 chromosomes",
/// "3 metres", "37 degrees celsius"); the unit word is then not content of its own.
fn attach_units(words: &mut [Word]) {
    for i in 0..words.len() {
        if words[i].role != Role::Number {
            continue;
        }
        if words[i].unit == Some("degree") {
            // "100 °C", "98.6 °F".
            let scale = match words.get(i + 1).map(|w| w.lower.as_str()) {
                Some("c" | "celsius") => Some("celsius"),
                Some("f" | "fahrenheit") => Some("fahrenheit"),
                _ => None,
            };
            if scale.is_some() {
                words[i].unit = scale;
                words[i + 1].role = Role::Function;
            }
            continue;
        }
        if words[i].unit.is_some() {
            continue;
        }
        let mut j = i + 1;
        if words
            .get(j)
            .is_some_and(|w| w.lower == "degrees" || w.lower == "degree")
        {
            j += 1;
        }
        if let Some(u) = words.get(j).and_then(|w| units().get(w.lower.as_str())) {
            words[i].unit = Some(u);
            words[j].role = Role::Function;
            if j > i + 1 {
                words[i + 1].role = Role::Function;
            }
        } else if j > i + 1 {
            words[i].unit = Some("degree");
            words[i + 1].role = Role::Function;
        }
    }
}

impl Sentence {
    /// The content words.
    pub fn content(&self) -> impl Iterator<Item = &Word> {
        self.words.iter().filter(|w| w.role == Role::Content)
    }

    /// Negators in clause `clause` (all clauses when `None`).
    pub fn negations(&self, clauses: Option<&[usize]>) -> usize {
        self.words
            .iter()
            .filter(|w| clauses.is_none_or(|c| c.contains(&w.clause)))
            .filter(|w| w.role == Role::Negator)
            .filter(|w| !self.is_not_only(w))
            .count()
    }

    /// "not only … but also" is not a negation.
    fn is_not_only(&self, w: &Word) -> bool {
        if w.lower != "not" {
            return false;
        }
        let i = self
            .words
            .iter()
            .position(|x| std::ptr::eq(x, w))
            .unwrap_or(0);
        self.words.get(i + 1).is_some_and(|n| n.lower == "only")
    }

    /// True when the sentence has a word of `list` (lower case).
    pub fn has_any(&self, list: &[&str], clauses: Option<&[usize]>) -> bool {
        self.words
            .iter()
            .filter(|w| clauses.is_none_or(|c| c.contains(&w.clause)))
            .any(|w| list.contains(&w.lower.as_str()))
    }

    /// The numbers with their units, in order.
    pub fn numbers(&self) -> Vec<(f64, Option<&'static str>)> {
        self.words
            .iter()
            .filter(|w| w.role == Role::Number)
            .filter_map(|w| w.value.map(|v| (v, w.unit)))
            .collect()
    }

    /// Clause indexes present.
    pub fn clauses(&self) -> Vec<usize> {
        let mut c: Vec<usize> = self.words.iter().map(|w| w.clause).collect();
        c.dedup();
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_numbers_units_and_clauses() {
        let s =
            read("Humans have 23 pairs of chromosomes, 46 in all; light travels at 3,000 km/s.");
        let nums = s.numbers();
        assert_eq!(nums[0], (23.0, Some("pair")));
        assert_eq!(nums[1].0, 46.0);
        assert_eq!(nums[2].0, 3000.0);
        assert!(s.words.last().unwrap().clause >= 2);
        let s = read("Water boils at 100 °C but ice melts at zero degrees.");
        assert_eq!(s.numbers()[0], (100.0, Some("celsius")));
        assert_eq!(s.numbers()[1].0, 0.0);
        let s = read("Plant cells do not lack a cell wall.");
        assert_eq!(s.negations(None), 2);
        let s = read("It is not only fast but also cheap.");
        assert_eq!(s.negations(None), 0);
        let s = read("पौधे ५ दिन में नहीं बढ़ते।");
        assert_eq!(s.numbers()[0], (5.0, Some("day")));
        assert_eq!(s.negations(None), 1);
        assert_eq!(s.script, Some(Script::Devanagari));
    }
}
