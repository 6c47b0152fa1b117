//! Aligning an answer sentence to the source sentence(s) it restates, and accounting for its
//! words: each content word of the answer is the source's word (same word or stem), a synonym
//! or derivation of one, or a more general word for one ([`super::lexicon`]); what is left is
//! new, or another word in the source's place.

use super::lexicon::Lexicon;
use super::words::{unit_of, Role, Sentence, Word};

/// How an answer word relates to a source sentence's words.
#[derive(Debug, Clone, PartialEq)]
pub enum Match {
    /// The same word or stem, at this word index of the source sentence.
    Same(usize),
    /// A synonym, derivation or more general word of the source word at this index.
    Related(usize),
    /// Not in the source sentence.
    None,
}

/// True when `w` and `x` are the same word (or the same stem of three letters or more), or a
/// unit's name and its symbol ("metres" and "m", "kilogram" and "kg": [`super::cues::UNITS`]).
pub fn same_word(w: &Word, x: &Word) -> bool {
    x.lower == w.lower
        || (x.stem == w.stem && x.stem.chars().count() >= 3)
        || same_unit(&w.lower, &x.lower)
        || same_substance(&w.lower, &x.lower)
}

/// Molecules a textbook writes by formula as often as by name, with one-word names
/// (IUPAC formulas; subscripts as digits or as Unicode subscripts).
const FORMULAS: &[(&str, &str)] = &[
    ("o2", "oxygen"),
    ("o₂", "oxygen"),
    ("h2", "hydrogen"),
    ("h₂", "hydrogen"),
    ("n2", "nitrogen"),
    ("n₂", "nitrogen"),
    ("cl2", "chlorine"),
    ("cl₂", "chlorine"),
    ("h2o", "water"),
    ("h₂o", "water"),
    ("o3", "ozone"),
    ("o₃", "ozone"),
    ("ch4", "methane"),
    ("ch₄", "methane"),
    ("nh3", "ammonia"),
    ("nh₃", "ammonia"),
    ("c6h12o6", "glucose"),
    ("c₆h₁₂o₆", "glucose"),
];

/// A molecule's formula and its name ("O2" and "oxygen": [`FORMULAS`]), either way round.
fn same_substance(w: &str, x: &str) -> bool {
    FORMULAS
        .iter()
        .any(|(f, name)| (w == *f && x == *name) || (x == *f && w == *name))
}

/// A unit's name and its symbol: one word of at most three letters (not the article "a"),
/// the other longer, both naming one unit.
fn same_unit(w: &str, x: &str) -> bool {
    let (short, long) = if w.len() <= x.len() { (w, x) } else { (x, w) };
    short.len() <= 3
        && long.len() > 3
        && short != "a"
        && unit_of(short).is_some_and(|u| unit_of(long) == Some(u))
}

/// True when `w` and `x` are the same word ([`same_word`]) or two numbers of one value.
pub fn same_term(w: &Word, x: &Word) -> bool {
    same_word(w, x) || (w.role == Role::Number && x.role == Role::Number && w.value == x.value)
}

/// True when one of `sentences` has `w` ([`same_word`]).
pub fn in_any(w: &Word, sentences: &[Sentence]) -> bool {
    sentences
        .iter()
        .any(|t| t.words.iter().any(|x| same_word(w, x)))
}

/// Finds `w` among `s`'s words.
pub fn find(w: &Word, s: &Sentence, lex: Option<&Lexicon>) -> Match {
    find_unused(w, s, lex, &[])
}

/// Each answer word's match in `s`, one to one: the same words first, then synonyms and more
/// general words among the source words no answer word has taken (so that "weather" cannot
/// take "conditions" where the answer also says "conditions"). A word said twice takes the
/// source's occurrences in order ("the light-independent reactions use light": the second
/// "light" is the source's second, the one "do not use" negates); once they run out, the
/// first again.
pub fn account(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Vec<Match> {
    let mut used = vec![false; s.words.len()];
    let mut out: Vec<Match> = Vec::with_capacity(a.words.len());
    for w in &a.words {
        let unused = s
            .words
            .iter()
            .enumerate()
            .position(|(i, x)| !used[i] && same_word(w, x));
        out.push(
            match unused.or_else(|| s.words.iter().position(|x| same_word(w, x))) {
                Some(i) => {
                    used[i] = true;
                    Match::Same(i)
                }
                None => Match::None,
            },
        );
    }
    for (k, w) in a.words.iter().enumerate() {
        if out[k] == Match::None && w.role == Role::Content {
            out[k] = find_unused(w, s, lex, &used);
            if out[k] == Match::None {
                if let Some(lex) = lex {
                    out[k] = find_phrasal(a, k, s, lex, &used);
                }
            }
            if let Match::Related(i) = out[k] {
                used[i] = true;
            }
        }
    }
    out
}

/// The unused source content word that the phrasal verb of answer word `k` means
/// ([`phrasal_verb`]: "soak up" for "absorb"), as [`Match::Related`]; [`Match::None`] when `k`
/// is in no phrasal verb the lexicon knows, or no such word is left.
fn find_phrasal(a: &Sentence, k: usize, s: &Sentence, lex: &Lexicon, used: &[bool]) -> Match {
    let Some(phrase) = phrasal_verb(a, k, lex) else {
        return Match::None;
    };
    s.words
        .iter()
        .enumerate()
        .find(|(i, x)| x.role == Role::Content && !used[*i] && lex.same_meaning(&phrase, &x.lower))
        .map_or(Match::None, |(i, _)| Match::Related(i))
}

/// Particles of English phrasal verbs ("soak up", "give off", "get rid of").
const PARTICLES: &[&str] = &[
    "up", "down", "off", "out", "in", "away", "of", "on", "through", "over", "back",
];

/// The phrasal verb that answer word `k` is part of, as WordNet lists it ("soak up" in "soak
/// up extra energy", "get rid of" in "get rid of it"): two or three words around `k`, the
/// first one as written or as its base form and the rest as written, ending in a particle
/// ([`PARTICLES`]), that the lexicon knows as a verb. Small models reword with them: "soak up" for "absorb".
fn phrasal_verb(a: &Sentence, k: usize, lex: &Lexicon) -> Option<String> {
    let mut spans = vec![(k, k + 1), (k, k + 2)];
    if k > 0 {
        spans.extend([(k - 1, k + 1), (k - 1, k)]);
    }
    for (from, to) in spans {
        if to >= a.words.len() {
            continue;
        }
        let words = &a.words[from..=to];
        if !PARTICLES.contains(&words[words.len() - 1].lower.as_str())
            || words
                .iter()
                .any(|w| !w.lower.chars().all(char::is_alphabetic))
        {
            continue;
        }
        let rest: Vec<&str> = words[1..].iter().map(|w| w.lower.as_str()).collect();
        let firsts = std::iter::once(words[0].lower.clone()).chain(lex.base_forms(&words[0].lower));
        for first in firsts {
            let phrase = format!("{first} {}", rest.join(" "));
            if lex.is_verb(&phrase) {
                return Some(phrase);
            }
        }
    }
    None
}

/// Finds `w` among `s`'s words that are not `used` (by index; shorter slices mean unused).
fn find_unused(w: &Word, s: &Sentence, lex: Option<&Lexicon>, used: &[bool]) -> Match {
    if let Some(i) = s.words.iter().position(|x| same_word(w, x)) {
        return Match::Same(i);
    }
    let free = |i: usize| !used.get(i).copied().unwrap_or(false);
    // A two-word source term written as one ("cell division" as "celldivision") is rare;
    // compounds with a hyphen are split by the word reader already.
    if let Some(lex) = lex {
        for (i, x) in s.words.iter().enumerate() {
            if x.role != Role::Content || x.lower.chars().count() < 3 || !free(i) {
                continue;
            }
            if lex.same_meaning(&w.lower, &x.lower) || lex.generalizes(&w.lower, &x.lower) {
                return Match::Related(i);
            }
        }
        // Two-word lemmas of the source ("carbon dioxide", "cell division") for an answer
        // word that means or generalises them.
        for (i, pair) in s.words.windows(2).enumerate() {
            if !free(i) || !free(i + 1) {
                continue;
            }
            let phrase = format!("{} {}", pair[0].lower, pair[1].lower);
            if lex.knows(&phrase)
                && (lex.same_meaning(&w.lower, &phrase) || lex.generalizes(&w.lower, &phrase))
            {
                return Match::Related(i);
            }
        }
    }
    Match::None
}

/// The share (0..=1) of `a`'s content words found in `s` ([`find`]), and numbers found as a
/// bonus (numbers are strong evidence of which sentence is restated).
pub fn coverage(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> f32 {
    let content: Vec<&Word> = a.content().collect();
    let numbers = a.numbers();
    let total = content.len() + numbers.len();
    if total == 0 {
        return 0.0;
    }
    // A synonym or more general word counts a little less than the word itself, so that the
    // sentence the answer copies wins over one it only resembles.
    let found: f32 = a
        .words
        .iter()
        .zip(account(a, s, lex))
        .filter(|(w, _)| w.role == Role::Content)
        .map(|(_, m)| match m {
            Match::Same(_) => 1.0,
            Match::Related(_) => RELATED_WEIGHT,
            Match::None => 0.0,
        })
        .sum();
    let s_numbers = s.numbers();
    let nums = numbers
        .iter()
        .filter(|(v, _)| s_numbers.iter().any(|(x, _)| same_number(*v, *x)))
        .count();
    (found + nums as f32) / total as f32
}

/// What a synonym, derivation or more general word counts for in [`coverage`] (the word
/// itself counts 1).
pub const RELATED_WEIGHT: f32 = 0.85;

/// True when two numbers are equal (to a millionth of the larger).
pub fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-6 * a.abs().max(b.abs()).max(1.0)
}

/// Least share of each sentence's words that the longest run of words the two have in the
/// same order (their longest common subsequence) must hold for [`copies`].
pub const COPY_SHARE: f32 = 0.9;

/// True when answer `a` copies source sentence `s`: their longest common subsequence of words
/// (each word matched as [`same_word`]) holds at least [`COPY_SHARE`] of the words of each, so
/// only punctuation, a word or two, or an inflection differ ("An object's mass m does not
/// change, but its weight mg can." for "An object’s mass m does not change but its weight mg
/// can."). Longest common subsequence by dynamic programming, O(|a|·|s|) word comparisons.
pub fn copies(a: &Sentence, s: &Sentence) -> bool {
    let (n, m) = (a.words.len(), s.words.len());
    if n == 0 || m == 0 {
        return false;
    }
    let mut row = vec![0usize; m + 1];
    for w in &a.words {
        let mut diagonal = 0;
        for (j, x) in s.words.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = if same_word(w, x) {
                diagonal + 1
            } else {
                above.max(row[j])
            };
            diagonal = above;
        }
    }
    let common = row[m] as f32;
    common >= COPY_SHARE * n as f32 && common >= COPY_SHARE * m as f32
}

/// Indexes of `sources` other than `aligned` that restate the answer nearly as well: coverage
/// at least [`RIVAL_COVERAGE`] and within [`RIVAL_MARGIN`] of the aligned sentence's.
pub fn rivals(
    a: &Sentence,
    sources: &[Sentence],
    aligned: &[usize],
    coverage: f32,
    lex: Option<&Lexicon>,
) -> Vec<usize> {
    (0..sources.len())
        .filter(|j| !aligned.contains(j))
        .filter(|j| {
            let c = self::coverage(a, &sources[*j], lex);
            c >= RIVAL_COVERAGE && c >= coverage - RIVAL_MARGIN
        })
        .collect()
}

/// Least coverage of a rival sentence ([`rivals`]).
pub const RIVAL_COVERAGE: f32 = 0.6;
/// How far below the aligned sentence's coverage a rival may be.
pub const RIVAL_MARGIN: f32 = 0.4;

/// The sentence or two the answer restates: indexes into `sources` (the best one, and a second
/// when it adds at least a fifth of the answer's words), with the coverage reached.
pub fn align(a: &Sentence, sources: &[Sentence], lex: Option<&Lexicon>) -> (Vec<usize>, f32) {
    let scores: Vec<f32> = sources.iter().map(|s| coverage(a, s, lex)).collect();
    // Of equal coverage, the sentence sharing more of the answer's other words too (cues,
    // function words: "toward", "located"), then the first.
    let shared = |s: &Sentence| {
        a.words
            .iter()
            .filter(|w| s.words.iter().any(|x| same_word(w, x)))
            .count()
    };
    let ties: Vec<usize> = (0..sources.len()).map(|j| shared(&sources[j])).collect();
    let Some(best) = (0..sources.len()).rev().max_by(|x, y| {
        scores[*x]
            .total_cmp(&scores[*y])
            .then(ties[*x].cmp(&ties[*y]))
    }) else {
        return (Vec::new(), 0.0);
    };
    let mut aligned = vec![best];
    let mut cov = scores[best];
    // A second sentence when the answer joins two facts.
    let mut best_pair: Option<(usize, f32)> = None;
    for j in (0..sources.len()).filter(|j| *j != best && scores[*j] >= 0.3) {
        let joined = join(&sources[best], &sources[j]);
        let c = coverage(a, &joined, lex);
        if c >= cov + 0.2 && best_pair.is_none_or(|(_, b)| c > b) {
            best_pair = Some((j, c));
        }
    }
    if let Some((j, c)) = best_pair {
        aligned.push(j);
        cov = c;
    }
    (aligned, cov)
}

/// Two sentences read as one (the second's clauses numbered after the first's).
pub fn join(a: &Sentence, b: &Sentence) -> Sentence {
    let offset = a.words.last().map(|w| w.clause + 1).unwrap_or(0);
    let mut words = a.words.clone();
    words.extend(b.words.iter().cloned().map(|mut w| {
        w.clause += offset;
        w
    }));
    Sentence {
        words,
        script: a.script,
    }
}

/// An answer clause's content words and numbers, and the first content word among them (the
/// clause's subject, usually).
fn clause_words(a: &Sentence, clause: usize) -> (Vec<&Word>, Option<&Word>) {
    let words: Vec<&Word> = a
        .words
        .iter()
        .filter(|w| w.clause == clause && matches!(w.role, Role::Content | Role::Number))
        .collect();
    let first = words.iter().copied().find(|w| w.role == Role::Content);
    (words, first)
}

/// Of the clauses `candidates`, the one for which `holds(word, clause)` is true of most of
/// `words`; ties go to the clause that holds `first`, then to the earliest. `None` when there
/// is no candidate.
fn best_clause(
    words: &[&Word],
    first: Option<&Word>,
    candidates: &[usize],
    holds: impl Fn(&Word, usize) -> bool,
) -> Option<usize> {
    candidates.iter().copied().max_by_key(|c| {
        let n = words.iter().filter(|w| holds(w, *c)).count();
        // Earlier clauses win ties: a larger key for a smaller index.
        (
            n,
            first.is_some_and(|f| holds(f, *c)),
            std::cmp::Reverse(*c),
        )
    })
}

/// For each clause of the answer that has a content word, the clause of `s` that restates it
/// ([`best_clause`], by same word or stem of three bytes or more), each clause once, in the
/// answer's order; all of `s`'s clauses when none holds any of the answer's words. Where a
/// negation, quantifier or hedge of the source applies to what the answer says.
pub fn matched_clauses(a: &Sentence, s: &Sentence) -> Vec<usize> {
    let s_clauses = s.clauses();
    let in_clause = |w: &Word, c: usize| {
        s.words.iter().any(|x| {
            x.clause == c && (x.lower == w.lower || (x.stem == w.stem && x.stem.len() >= 3))
        })
    };
    let mut out = Vec::new();
    for ac in a.clauses() {
        let (words, first) = clause_words(a, ac);
        if first.is_none() {
            continue;
        }
        let best = best_clause(&words, first, &s_clauses, in_clause);
        if let Some(c) = best.filter(|c| words.iter().any(|w| in_clause(w, *c))) {
            if !out.contains(&c) {
                out.push(c);
            }
        }
    }
    if out.is_empty() {
        s_clauses
    } else {
        out
    }
}

/// Each answer clause with the source clause it restates ([`best_clause`], by [`same_word`]),
/// as (answer clause, source clause) pairs in the answer's order; empty when `s` has no
/// clause.
pub fn clause_pairs(a: &Sentence, s: &Sentence) -> Vec<(usize, usize)> {
    let s_clauses = s.clauses();
    let in_clause = |w: &Word, c: usize| s.words.iter().any(|x| x.clause == c && same_word(w, x));
    a.clauses()
        .into_iter()
        .filter_map(|ac| {
            let (words, first) = clause_words(a, ac);
            Some((ac, best_clause(&words, first, &s_clauses, in_clause)?))
        })
        .collect()
}
