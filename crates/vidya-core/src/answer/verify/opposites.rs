//! Opposite words: an answer word whose opposite stands in the source clause it restates
//! ("slows" for "speeds up", "hypotonic" for "hypertonic"), a Hindi answer's final verb of
//! direction against the book's, a comparative of speed or duration read as "faster" or
//! "slower", and two opposites given in the other order than the source's.

use super::align::{clause_pairs, same_word};
use super::cues::OPPOSITES;
use super::lexicon::Lexicon;
use super::negation::likened;
use super::words::{self, Role, Sentence, Word};
use super::Finding;

/// Prefixes that negate the word they are on ("insoluble", "nonpolar", "unable").
pub(super) const NEGATING_PREFIXES: &[&str] =
    &["un", "in", "im", "il", "ir", "non", "non-", "dis", "a"];

/// What `word` is with a negating prefix taken off ("frequently" from "infrequently"): one
/// rest of four bytes or more for each of [`NEGATING_PREFIXES`] it begins with.
pub(super) fn negated_bases(word: &str) -> impl Iterator<Item = &str> {
    NEGATING_PREFIXES
        .iter()
        .filter_map(move |p| word.strip_prefix(p))
        .filter(|rest| rest.len() >= 4)
}

/// True when `a` and `b` mean opposite things: a pair of [`OPPOSITES`], WordNet antonyms, or
/// one is the other with a negating prefix.
pub fn opposite(a: &Word, b: &Word, lex: Option<&Lexicon>) -> bool {
    if a.lower == b.lower || a.stem == b.stem {
        return false;
    }
    // Two units are other units, not opposites ("second" and "m", which WordNet links through
    // "minute"); a changed unit is a number's finding ([`numbers`]).
    if words::unit_of(&a.lower).is_some() && words::unit_of(&b.lower).is_some() {
        return false;
    }
    let pair = |x: &str, y: &str| {
        OPPOSITES
            .iter()
            .any(|(p, q)| (*p == x && *q == y) || (*p == y && *q == x))
    };
    if pair(&a.lower, &b.lower) || pair(&a.stem, &b.stem) {
        return true;
    }
    let prefixed = |x: &str, y: &str| {
        negated_bases(x).any(|rest| rest == y || rest.trim_start_matches('-') == y)
    };
    if prefixed(&a.lower, &b.lower) || prefixed(&b.lower, &a.lower) {
        return true;
    }
    if order_class(a)
        .zip(order_class(b))
        .is_some_and(|(x, y)| x != y)
    {
        return true;
    }
    if degree_class(a)
        .zip(degree_class(b))
        .is_some_and(|(x, y)| x != y)
    {
        return true;
    }
    lex.is_some_and(|l| l.antonyms(&a.lower, &b.lower) || l.antonym_of_synonym(&a.lower, &b.lower))
}

/// Words that make the number after them an estimate ("about 10 percent"). WordNet gives them
/// senses of quantity with opposites of their own ("about" is a synonym of "most", whose
/// antonym is "least"), which they do not have before a number.
const APPROXIMATORS: &[&str] = &[
    "about",
    "around",
    "approximately",
    "roughly",
    "nearly",
    "almost",
];

/// Comparatives of amount: `Some(true)` for "more" and its kind, `Some(false)` for "less".
/// Any word of one kind is the opposite of any of the other ("a lower affinity" for "a
/// greater affinity", "larger" for "fewer"), where [`OPPOSITES`] lists pairs.
fn degree_class(w: &Word) -> Option<bool> {
    const MORE: &[&str] = &["more", "greater", "higher", "larger", "bigger"];
    const LESS: &[&str] = &["less", "lesser", "lower", "smaller", "fewer"];
    class_of(w, MORE, LESS)
}

/// `Some(true)` when `w` is one of `first`, `Some(false)` when one of `second`, else `None`.
fn class_of(w: &Word, first: &[&str], second: &[&str]) -> Option<bool> {
    if first.contains(&w.lower.as_str()) {
        Some(true)
    } else if second.contains(&w.lower.as_str()) {
        Some(false)
    } else {
        None
    }
}

/// Words of time order: `Some(true)` for "before" and its kind, `Some(false)` for "after".
pub(super) fn order_class(w: &Word) -> Option<bool> {
    const BEFORE: &[&str] = &[
        "before",
        "precede",
        "precedes",
        "preceded",
        "preceding",
        "prior",
        "earlier",
    ];
    const AFTER: &[&str] = &[
        "after",
        "follow",
        "follows",
        "followed",
        "following",
        "later",
        "subsequent",
    ];
    class_of(w, BEFORE, AFTER)
}

/// Opposite words: an answer word that the source clause it restates does not have (nor a
/// synonym of it), whose opposite that clause has and the answer clause does not: "slows"
/// against "speeds up", "hypotonic" against "hypertonic", "outside" against "interior".
/// Clause by clause, so that "the xylem is inside, the phloem outside" is read against each
/// half. Returns the pairs (answer word index, source word).
pub fn opposites(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Vec<(usize, String)> {
    // A word that the other sentence has itself stands for itself, not for a synonym: the
    // answer's "light" in "the wavelengths that make up light are very long" is the book's
    // "light", not WordNet's "light" (scant) for the book's "short".
    let has = |sent: &Sentence, other: &Sentence, clause: usize, w: &Word| {
        sent.words.iter().filter(|x| x.clause == clause).any(|x| {
            same_word(w, x)
                || (w.role == Role::Content
                    && x.role == Role::Content
                    && !other.words.iter().any(|y| same_word(x, y))
                    && lex.is_some_and(|l| l.same_meaning(&w.lower, &x.lower)))
        })
    };
    let pairs = clause_pairs(a, s);
    let mut out = Vec::new();
    for (i, w) in a.words.iter().enumerate() {
        if w.role == Role::Number {
            continue;
        }
        if APPROXIMATORS.contains(&w.lower.as_str())
            && a.words.get(i + 1).is_some_and(|n| n.role == Role::Number)
        {
            continue;
        }
        let Some(&(_, sc)) = pairs.iter().find(|(ac, _)| *ac == w.clause) else {
            continue;
        };
        // "travels faster" where the source says "the speed … is less" (the source's
        // "speed" is no match for "faster" then).
        if let Some(sign) = speed_sign(a, i) {
            let signs: Vec<(usize, bool)> = (0..s.words.len())
                .filter(|&j| s.words[j].clause == sc)
                .filter_map(|j| speed_sign(s, j).map(|g| (j, g)))
                .collect();
            if let Some((j, _)) = signs.iter().find(|(j, g)| {
                *g != sign
                    && (speed_word(&w.lower).is_some() || speed_word(&s.words[*j].lower).is_some())
            }) {
                if signs.iter().all(|(_, g)| *g != sign) {
                    out.push((i, s.words[*j].lower.clone()));
                    continue;
                }
            }
        }
        if has(s, a, sc, w) {
            continue;
        }
        if let Some(x) = s
            .words
            .iter()
            .filter(|x| x.clause == sc && x.role != Role::Number && !has(a, s, w.clause, x))
            .find(|x| opposite(w, x, lex))
        {
            out.push((i, x.lower.clone()));
        }
    }
    out
}

/// For a Hindi answer read in English ([`super::hindi`]): its last direction word, where it
/// ends its clause, is the main verb (Hindi puts the verb last: "उम्र बढ़ने के साथ … खतरा कम
/// होता जाता है", with age increasing the risk decreases), and it is compared alone, so that
/// the "increase" of a phrase before it cannot cancel an opposite of the source's. Returns
/// (answer word index, source word) as [`opposites`] does.
pub fn final_direction(
    a: &Sentence,
    s: &Sentence,
    lex: Option<&Lexicon>,
) -> Option<(usize, String)> {
    let is_direction = |w: &Word| {
        w.role == Role::Content
            && super::cues::HI_DIRECTION
                .iter()
                .any(|(_, en)| *en == w.lower)
    };
    let k = a.words.iter().rposition(is_direction)?;
    let w = &a.words[k];
    let ends_clause = a.words[k + 1..]
        .iter()
        .all(|x| x.clause != w.clause || x.role != Role::Content);
    if !ends_clause {
        return None;
    }
    // Where the book says the same direction word of one term and its opposite of another
    // ("As frequency increases …, wavelength decreases"), the verb is compared with the
    // book's clause that has the verb's subject, the content word just before it
    // ("तरंगदैर्ध्य भी बढ़ती है", wavelength also increases).
    let mut clause: Option<usize> = None;
    if s.words.iter().any(|x| same_word(w, x)) {
        let subject = a.words[..k]
            .iter()
            .rev()
            .find(|x| x.role == Role::Content && !is_direction(x))?;
        let c = s.words.iter().find(|x| same_word(subject, x))?.clause;
        if s.words.iter().any(|x| x.clause == c && same_word(w, x)) {
            return None;
        }
        clause = Some(c);
    }
    s.words
        .iter()
        .filter(|x| clause.is_none_or(|c| x.clause == c))
        .find(|x| x.role == Role::Content && opposite(w, x, lex))
        .map(|x| (k, x.lower.clone()))
}

/// Comparatives that say speed themselves, with their sign (true: more speed).
const SPEED_WORDS: &[(&str, bool)] = &[("faster", true), ("quicker", true), ("slower", false)];

/// The sign of `w` when it is one of [`SPEED_WORDS`].
fn speed_word(w: &str) -> Option<bool> {
    SPEED_WORDS.iter().find(|(x, _)| *x == w).map(|(_, g)| *g)
}

/// Whether word `k` of `x` says more speed (`Some(true)`) or less (`Some(false)`): "faster",
/// "slower", or a comparative of size in the clause of a word for speed ("the speed of light
/// through matter is less", "a higher rate"; the word for speed at most six words before it
/// or two after), or a longer or shorter duration ("takes days or even weeks … much longer":
/// slower; a word for time at most eight words before it). The same comparison as
/// "faster"/"slower" (natural logic's monotone substitution: MacCartney and Manning 2007).
fn speed_sign(x: &Sentence, k: usize) -> Option<bool> {
    const MORE: &[&str] = &["more", "greater", "higher", "larger", "bigger"];
    const LESS: &[&str] = &["less", "lower", "smaller"];
    const SPEED: &[&str] = &["speed", "speeds", "velocity", "velocities", "rate", "rates"];
    // A duration compared: "takes … much longer" is slower, "takes less time" is not read.
    const DURATION: &[(&str, bool)] = &[("longer", false), ("shorter", true)];
    const TIME: &[&str] = &[
        "take", "takes", "took", "taking", "time", "seconds", "minutes", "hours", "days", "weeks",
        "months", "years",
    ];
    let w = &x.words[k];
    if let Some(sign) = speed_word(&w.lower) {
        return Some(sign);
    }
    if let Some((_, sign)) = DURATION.iter().find(|(d, _)| *d == w.lower) {
        let timed = x.words[k.saturating_sub(8)..k]
            .iter()
            .any(|y| y.clause == w.clause && TIME.contains(&y.lower.as_str()));
        return timed.then_some(*sign);
    }
    let sign = if MORE.contains(&w.lower.as_str()) {
        true
    } else if LESS.contains(&w.lower.as_str()) {
        false
    } else {
        return None;
    };
    let near = x.words[k.saturating_sub(6)..(k + 3).min(x.words.len())]
        .iter()
        .any(|y| y.clause == w.clause && SPEED.contains(&y.lower.as_str()));
    near.then_some(sign)
}

/// Two opposite words that the answer has in the other order than the source ("from the
/// anterior sacs … out of the posterior" for "from the posterior … out of the anterior").
pub fn swapped_opposites(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Option<Finding> {
    let pos = |x: &Sentence, w: &Word| x.words.iter().position(|y| same_word(w, y));
    // The content word right after word `k`: what an adjective there describes.
    fn next_term(x: &Sentence, k: usize) -> Option<&Word> {
        x.words.get(k + 1).filter(|n| n.role == Role::Content)
    }
    for (i, w) in a.words.iter().enumerate() {
        for (j, v) in a.words.iter().enumerate().skip(i + 1) {
            // Two words the answer says twice each have no one order to compare ("meiosis and
            // mitosis …, and meiosis evolved from mitosis": both orders are there).
            if !opposite(w, v, lex) || (said_twice(a, w) && said_twice(a, v)) {
                continue;
            }
            if let (Some(p), Some(q)) = (pos(s, w), pos(s, v)) {
                // "Unlike arteries, veins …" for "veins are different than arteries": each
                // term keeps its side of the comparison.
                let compared = || {
                    let sides = (likened(a, i), likened(a, j));
                    sides != (None, None) && sides == (likened(s, p), likened(s, q))
                };
                // "a long funnel shape and little smell" for "little smell and a long funnel
                // shape": each word moved with the term it describes, which keeps the sense
                // (not where both describe one word: "phloem conducting cells" for "xylem
                // conducting cells").
                let carried = |k: usize, o: usize| {
                    next_term(a, k)
                        .zip(next_term(s, o))
                        .is_some_and(|(x, y)| same_word(x, y))
                };
                let distinct = next_term(a, i)
                    .zip(next_term(a, j))
                    .is_some_and(|(x, y)| !same_word(x, y));
                let kept_their_sense = || {
                    compared()
                        || (distinct && carried(i, p) && carried(j, q))
                        || moved_with_their_clauses(a, s, (i, j), (p, q))
                };
                if p > q && !kept_their_sense() {
                    return Some(Finding::Direction {
                        answer: w.lower.clone(),
                        source: v.lower.clone(),
                    });
                }
            }
        }
    }
    None
}

/// Words that join two contrasted clauses of one sentence ("small instruments make high-pitch
/// sounds, while larger instruments make low-pitch sounds").
const CONTRASTS: &[&str] = &["while", "whereas", "but", "although", "though", "however"];

/// Which part of `x` each word stands in: parts are split at [`CONTRASTS`] (a contrast word
/// ends the part before it).
fn parts(x: &Sentence) -> Vec<usize> {
    let mut part = 0;
    x.words
        .iter()
        .map(|w| {
            let here = part;
            if CONTRASTS.contains(&w.lower.as_str()) {
                part += 1;
            }
            here
        })
        .collect()
}

/// True when two opposites (answer words `i` and `j`, source words `p` and `q`) each moved with
/// the contrasted clause they stand in: the answer puts them in different parts ([`parts`]),
/// as the source does, and each answer part has a content word found only in its own
/// opposite's part of the source and none found only in the other's ("Larger instruments like
/// the tuba make low-pitch sounds, whereas small ones like the piccolo make high-pitch sounds"
/// for "Small instruments, such as a piccolo, make high-pitch sounds, while larger
/// instruments, such as a tuba, make low-pitch sounds": the clauses changed places, each
/// keeping what it says).
fn moved_with_their_clauses(
    a: &Sentence,
    s: &Sentence,
    (i, j): (usize, usize),
    (p, q): (usize, usize),
) -> bool {
    let (a_parts, s_parts) = (parts(a), parts(s));
    let (ai, aj, sp, sq) = (a_parts[i], a_parts[j], s_parts[p], s_parts[q]);
    if ai == aj || sp == sq {
        return false;
    }
    // The content words of one part of `x`.
    let content = |x: &'_ Sentence, of: &[usize], part: usize| -> Vec<usize> {
        (0..x.words.len())
            .filter(|&k| x.words[k].role == Role::Content && of[k] == part)
            .collect()
    };
    let (in_p, in_q) = (content(s, &s_parts, sp), content(s, &s_parts, sq));
    let only_in = |own: &[usize], theirs: &[usize]| -> Vec<&Word> {
        own.iter()
            .filter(|&&k| !theirs.iter().any(|&o| same_word(&s.words[k], &s.words[o])))
            .map(|&k| &s.words[k])
            .collect()
    };
    let kept = |part: usize, own: &[&Word], other: &[&Word]| {
        let words = content(a, &a_parts, part);
        let has = |list: &[&Word]| {
            words
                .iter()
                .any(|&k| list.iter().any(|x| same_word(&a.words[k], x)))
        };
        has(own) && !has(other)
    };
    let (p_only, q_only) = (only_in(&in_p, &in_q), only_in(&in_q, &in_p));
    kept(ai, &p_only, &q_only) && kept(aj, &q_only, &p_only)
}

/// True when `x` has word `w` ([`same_word`]) more than once: its place in `x` is not one place.
pub(super) fn said_twice(x: &Sentence, w: &Word) -> bool {
    x.words.iter().filter(|y| same_word(w, y)).count() > 1
}
