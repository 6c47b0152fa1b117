//! Numbers and units: every number of the answer in the aligned source sentence with the
//! same unit (or in its passage), counting the same kind of thing, and, where the answer was
//! aligned to several sentences, taken from the one about what it is about ([`spliced`]).

use super::align::{same_number, same_word};
use super::words::{Role, Sentence, Word};
use super::Finding;
use std::collections::HashSet;

/// Numbers: every number of the answer must be in the aligned source sentence with the same
/// unit, or at least in its passage; a unit the source gives only to another of its numbers
/// makes the answer's number a changed one ("46 pairs" where the book's pairs number 23). A
/// number word ("one of") counts only where the source gives a number too.
pub fn numbers(a: &Sentence, s: &Sentence, passage: &[Sentence], findings: &mut Vec<Finding>) {
    let s_numbers = s.numbers();
    let digits = |w: &Word| {
        w.lower
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || !c.is_ascii())
    };
    // The number the aligned sentence puts right before a word ("three turns").
    let counts = |noun: &Word| -> Vec<f64> {
        (0..s.words.len())
            .filter(|&j| s.words[j].role == Role::Number)
            .filter(|&j| counted(s, j).first().is_some_and(|w| same_word(w, noun)))
            .filter_map(|j| s.words[j].value)
            .collect()
    };
    for (i, w) in a.words.iter().enumerate() {
        if w.role != Role::Number {
            continue;
        }
        let Some(v) = w.value else { continue };
        let same: Vec<&(f64, Option<&str>)> = s_numbers
            .iter()
            .filter(|(x, _)| same_number(v, *x))
            .collect();
        // "six turns" where the aligned sentence counts "three turns": another count of the
        // same thing, though "six" is written elsewhere in the passage.
        let recounted = a
            .words
            .get(i + 1)
            .filter(|n| n.role == Role::Content)
            .map(counts)
            .is_some_and(|c| !c.is_empty() && !c.iter().any(|x| same_number(v, *x)));
        if let Some(f) = std::iter::once(s)
            .chain(passage)
            .find_map(|x| recounted_kind(a, i, x, v))
        {
            findings.push(f);
            continue;
        }
        if same.is_empty() || recounted {
            let elsewhere = !recounted
                && passage
                    .iter()
                    .any(|p| p.numbers().iter().any(|(x, _)| same_number(v, *x)));
            if !elsewhere && (digits(w) || !s_numbers.is_empty()) {
                findings.push(Finding::Number {
                    answer: w.lower.clone(),
                });
            }
            continue;
        }
        if let Some(u) = w.unit {
            let units: HashSet<&str> = same.iter().filter_map(|(_, u)| *u).collect();
            if !units.is_empty() && !units.contains(u) {
                findings.push(Finding::Unit {
                    answer: u.to_string(),
                    source: units.into_iter().next().unwrap_or_default().to_string(),
                });
            } else if units.is_empty()
                && s_numbers
                    .iter()
                    .any(|(x, xu)| *xu == Some(u) && !same_number(v, *x))
            {
                // "46 pairs of chromosomes" where the book says "23 pairs of chromosomes,
                // 46 in all": the book's 46 counts no pairs, its pairs number 23.
                findings.push(Finding::Number {
                    answer: w.lower.clone(),
                });
            }
        }
    }
}

/// Bounds a source puts before a number ("more than 90 percent", "up to 10 m"), as word pairs
/// and single words. Approximations ("about", "approximately") are not bounds: a number said
/// without its "about" still says what the book says.
pub const BOUNDS: &[&str] = &[
    "more than",
    "less than",
    "fewer than",
    "greater than",
    "at least",
    "at most",
    "up to",
    "over",
    "under",
    "nearly",
    "almost",
    "exceeds",
    "exceeding",
];

/// The bound the sentence puts right before its word `j`, if any ([`BOUNDS`]).
fn bound_before(s: &Sentence, j: usize) -> Option<&'static str> {
    let one = j.checked_sub(1).map(|k| s.words[k].lower.as_str());
    let two = j
        .checked_sub(2)
        .map(|k| format!("{} {}", s.words[k].lower, s.words[k + 1].lower));
    BOUNDS
        .iter()
        .find(|b| Some(**b) == one || two.as_deref() == Some(**b))
        .copied()
}

/// A bound the source puts on a number, dropped: "a good mirror reflects 90% of the light"
/// where the book says "more than 90 percent" (the eighth set of student questions, stop 58;
/// graded wrong). The answer's number, with no bound or approximation word before it, is one
/// the aligned sentence `s` bounds ([`BOUNDS`]) and gives nowhere unbounded. Returns a
/// quantifier finding (the answer's number, the source's bound).
pub fn bound_dropped(a: &Sentence, s: &Sentence) -> Option<Finding> {
    (0..a.words.len())
        .filter(|&i| a.words[i].role == Role::Number)
        .find_map(|i| {
            let v = a.words[i].value?;
            if bound_before(a, i).is_some()
                || i.checked_sub(1)
                    .is_some_and(|k| APPROXIMATE.contains(&a.words[k].lower.as_str()))
            {
                return None;
            }
            let at: Vec<usize> = (0..s.words.len())
                .filter(|&j| s.words[j].value.is_some_and(|x| same_number(v, x)))
                .collect();
            let bounds: Vec<Option<&str>> = at.iter().map(|&j| bound_before(s, j)).collect();
            match bounds.as_slice() {
                [] => None,
                b if b.iter().all(Option::is_some) => Some(Finding::Quantifier {
                    answer: a.words[i].lower.clone(),
                    source: b[0].map(str::to_string),
                }),
                _ => None,
            }
        })
}

/// Words that make a number approximate ("about 90 percent"): a number with one of them is
/// no claim of an exact value ("nearly" and "almost" are [`BOUNDS`], read as such first).
const APPROXIMATE: &[&str] = &["about", "approximately", "around", "roughly", "some"];

/// A number spliced in from another of the aligned sentences: the answer sentence was aligned
/// to several source sentences (`parts`, joined for the other checks), its number with a unit
/// is in one of them, and another, which holds more of the answer's content words (the one
/// about what the answer is about), gives a different number in the same unit. "The value of
/// g on Mars is 9.80 m/s²", aligned to "The value of g on the planet Mars is 3.71 m/s2" and
/// to the sentence that works out 9.80 m/s² for Earth (the sixth set of student questions,
/// stop 57; graded wrong). Returns the number finding.
pub fn spliced(a: &Sentence, parts: &[&Sentence]) -> Option<Finding> {
    if parts.len() < 2 {
        return None;
    }
    let content: Vec<&Word> = a.content().collect();
    let share = |x: &Sentence| {
        content
            .iter()
            .filter(|w| x.words.iter().any(|y| same_word(w, y)))
            .count()
    };
    for w in a.words.iter().filter(|w| w.role == Role::Number) {
        let (Some(v), Some(u)) = (w.value, w.unit) else {
            continue;
        };
        let has = |x: &Sentence| x.numbers().iter().any(|(n, _)| same_number(v, *n));
        let Some(home) = parts.iter().filter(|x| has(x)).map(|x| share(x)).max() else {
            continue;
        };
        let other = parts.iter().any(|x| {
            !has(x)
                && share(x) > home
                && x.numbers()
                    .iter()
                    .any(|(n, nu)| *nu == Some(u) && !same_number(v, *n))
        });
        if other {
            return Some(Finding::Number {
                answer: w.lower.clone(),
            });
        }
    }
    None
}

/// The words a number counts, up to its noun: "20 essential amino acids" → essential, amino,
/// acids (at most 3). Content words, and the describing words the check otherwise passes over
/// ("essential", "common", "main": five letters or more, not a grammar word).
fn counted(x: &Sentence, at: usize) -> Vec<&Word> {
    const GRAMMAR: &[&str] = &[
        "there", "their", "these", "those", "which", "where", "while", "about", "above", "below",
        "under", "between", "through", "being", "other", "found", "called",
    ];
    x.words[at + 1..]
        .iter()
        .take(3)
        .take_while(|w| {
            w.role == Role::Content
                || (w.role == Role::Function
                    && w.lower.chars().count() >= 5
                    && w.lower.chars().all(char::is_alphabetic)
                    && !GRAMMAR.contains(&w.lower.as_str()))
        })
        .collect()
}

/// Words that name a sort of the noun after "of" and count it as it is ("20 kinds of amino
/// acids" are 20 amino acids).
const CLASSIFIERS: &[&str] = &["kinds", "types", "sorts", "varieties", "forms", "different"];

/// The same number counting another kind of the same thing: "20 essential amino acids" where
/// a source sentence (`s`: the aligned one or another of its passage) says "20 common amino
/// acids" (and, elsewhere, that nine are essential). The answer's words after the number end
/// in the source's noun, and a word before that noun is one the source's phrase does not
/// have, where the source has another; or the source's number counts groups of the answer's
/// noun ("sixteen blocks of codons" told as "sixteen stop codons").
fn recounted_kind(a: &Sentence, i: usize, s: &Sentence, v: f64) -> Option<Finding> {
    // "One" is an article as often as a count ("one glucose molecule", "one carbon").
    if v.abs() <= 1.0 {
        return None;
    }
    let ours = counted(a, i);
    let (noun, kinds) = ours.split_last()?;
    for (j, x) in s.words.iter().enumerate() {
        if x.role != Role::Number || !x.value.is_some_and(|y| same_number(v, y)) {
            continue;
        }
        let theirs = counted(s, j);
        let Some((their_noun, their_kinds)) = theirs.split_last() else {
            continue;
        };
        // "sixteen stop codons" where the source counts "sixteen blocks of codons": the
        // number counts the source's groups, not the answer's noun.
        if !same_word(noun, their_noun) && !CLASSIFIERS.contains(&their_noun.lower.as_str()) {
            let after = j + 1 + theirs.len();
            let of_noun = s.words.get(after).is_some_and(|w| w.lower == "of")
                && s.words[after + 1..]
                    .iter()
                    .find(|w| w.role == Role::Content)
                    .is_some_and(|w| same_word(noun, w));
            let grouped = !ours.iter().any(|w| same_word(w, their_noun));
            if of_noun && grouped {
                return Some(Finding::SwappedTerm {
                    answer: noun.lower.clone(),
                    source: their_noun.lower.clone(),
                });
            }
        }
        if !same_word(noun, their_noun) || their_kinds.is_empty() {
            continue;
        }
        let missing = kinds
            .iter()
            .find(|w| !theirs.iter().any(|y| same_word(w, y)));
        let replaced = their_kinds
            .iter()
            .find(|y| !ours.iter().any(|w| same_word(w, y)));
        if let (Some(m), Some(r)) = (missing, replaced) {
            return Some(Finding::SwappedTerm {
                answer: m.lower.clone(),
                source: r.lower.clone(),
            });
        }
    }
    None
}
