//! Negation, by scope: a word negated in the answer and not in the source (or the reverse),
//! and a predicate that another source sentence negates.

use super::align::{account, matched_clauses, same_word, Match};
use super::lexicon::Lexicon;
use super::words::{Role, Sentence, Word};
use super::Finding;

/// Negation, by scope: a negator ("not", "no", "never", "without", "lack") negates the first
/// content word after it ("do not shorten", "no cell wall"); the answer contradicts the
/// source when a word negated in one is found unnegated in the other ("rather than" and
/// "instead of" negate too). For an answer read from Hindi (whose negator follows the verb),
/// the parity of negators in the clauses the answer restates is compared instead.
pub fn negation(
    a: &Sentence,
    s: &Sentence,
    lex: Option<&Lexicon>,
    translated: bool,
) -> Option<Finding> {
    if translated {
        let clauses = matched_clauses(a, s);
        let (na, ns) = (a.negations(None), s.negations(Some(&clauses)));
        return (na % 2 != ns % 2).then_some(Finding::Negation);
    }
    let matches = account(a, s, lex);
    // Answer word k ↔ source word j.
    let pairs: Vec<(usize, usize)> = matches
        .iter()
        .enumerate()
        .filter_map(|(k, m)| match m {
            Match::Same(j) | Match::Related(j) => Some((k, *j)),
            Match::None => None,
        })
        .filter(|(k, _)| a.words[*k].role == Role::Content)
        .collect();
    // Each side's one negator in the clauses a word stands in, where both negate another
    // word of the pair: the negator moved, its sense kept ("no NAD+ available" for "NAD+ is
    // not available").
    let one_negator = |x: &Sentence, c: usize| {
        x.words
            .iter()
            .enumerate()
            .filter(|(p, w)| w.clause == c && is_negator(x, *p, w))
            .count()
            == 1
    };
    let moved = |k: usize, j: usize| {
        let (ac, sc) = (a.words[k].clause, s.words[j].clause);
        one_negator(a, ac)
            && one_negator(s, sc)
            && pairs.iter().any(|&(k2, j2)| {
                k2 != k
                    && a.words[k2].clause == ac
                    && s.words[j2].clause == sc
                    && negated(a, k2)
                    && negated(s, j2)
            })
    };
    for &(k, j) in &pairs {
        // "as in most animals" where the book says "unlike most animals".
        if let (Some(x), Some(y)) = (likened(a, k), likened(s, j)) {
            if x != y {
                return Some(Finding::Negation);
            }
        }
        let (in_a, in_s) = (negated(a, k), negated(s, j));
        if in_a != in_s && (scope_of_negator(a, k) || scope_of_negator(s, j)) && !moved(k, j) {
            return Some(Finding::Negation);
        }
    }
    // The answer negates a word the source does not have ("does not depend on" where the
    // source says "is proportional to"), and the source clauses it restates negate nothing.
    let clauses = matched_clauses(a, s);
    let unmatched_negated = (0..a.words.len()).any(|k| {
        a.words[k].role == Role::Content
            && matches[k] == Match::None
            && negated(a, k)
            && scope_of_negator(a, k)
    });
    if unmatched_negated && s.negations(Some(&clauses)) == 0 {
        return Some(Finding::Negation);
    }
    elided_denied(a, s, lex).then_some(Finding::Negation)
}

/// Auxiliaries that can end a clause whose verb is left out after "not" ("colors do not").
const ELIDING: &[&str] = &[
    "do", "does", "did", "can", "could", "will", "would", "is", "are", "was", "were", "has",
    "have", "may", "must", "should",
];

/// A predicate the source denies by ellipsis, said in the answer: a source clause that ends
/// in an auxiliary and "not" ("Although wavelengths change …, colors do not") denies its
/// subject the verb of a clause before it; the answer says that verb of that subject and has
/// no negation at all ("its color changes along with its wavelength"). `lex` tells verbs; with
/// none, nothing is found.
fn elided_denied(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    for (p, w) in s.words.iter().enumerate() {
        let c = w.clause;
        let ends = s.words[p + 1..].iter().all(|x| x.clause != c);
        if !is_negator(s, p, w)
            || !ends
            || p == 0
            || !ELIDING.contains(&s.words[p - 1].lower.as_str())
        {
            continue;
        }
        let subjects: Vec<&Word> = s.words[..p]
            .iter()
            .filter(|x| x.clause == c && x.role == Role::Content)
            .collect();
        let verbs: Vec<&Word> = s.words[..p]
            .iter()
            .filter(|x| x.clause < c && x.role == Role::Content)
            .filter(|x| lex.is_some_and(|l| l.is_verb(&x.lower)))
            .collect();
        for (k, v) in a.words.iter().enumerate() {
            if !verbs.iter().any(|x| same_word(v, x)) || negated(a, k) {
                continue;
            }
            let said_of = a
                .words
                .iter()
                .any(|y| y.clause == v.clause && subjects.iter().any(|x| same_word(y, x)));
            if said_of && a.negations(None) == 0 {
                return true;
            }
        }
    }
    false
}

/// True when a negator stands before word `k` in its clause with fewer than
/// [`NEGATION_REACH`] words between them that are not function words or cues ("not due to a
/// close relationship" negates "close" and "relationship" as "rather than a close
/// relationship" does); an even number of them cancel ("cannot live without" is not negated).
fn negated(x: &Sentence, k: usize) -> bool {
    let clause = x.words[k].clause;
    let count = (0..k)
        .rev()
        .take_while(|p| x.words[*p].clause == clause)
        .filter(|p| {
            let between = &x.words[p + 1..k];
            between.len() < NEGATION_SPAN
                && between
                    .iter()
                    .filter(|w| !matches!(w.role, Role::Function | Role::Cue))
                    .count()
                    < NEGATION_REACH
        })
        .filter(|p| is_negator(x, *p, &x.words[*p]))
        .count();
    count % 2 == 1
}

/// True when word `k` is in a negator's scope: at most two content words after it, in its
/// clause ("do not shorten", "no significant digestion", "not a direction").
fn scope_of_negator(x: &Sentence, k: usize) -> bool {
    (0..k).rev().take(NEGATION_REACH).any(|p| {
        let between = &x.words[p + 1..k];
        is_negator(x, p, &x.words[p])
            && between.iter().all(|w| w.clause == x.words[k].clause)
            && between
                .iter()
                .filter(|w| matches!(w.role, Role::Content | Role::Number))
                .count()
                <= 2
    })
}

/// Negation of a predicate in another source sentence that restates the answer nearly as
/// well as the aligned one: a verb or adjective of the answer ("shorten", "homologous") that
/// such a sentence negates ("do not shorten") and the answer does not, or the reverse.
/// Nouns are left out ("animal cells do not have a cell wall" does not deny that plant cells
/// have one).
pub fn negated_predicate(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    let matches = account(a, s, lex);
    matches.iter().enumerate().any(|(k, m)| {
        let (Match::Same(j) | Match::Related(j)) = *m else {
            return false;
        };
        let w = &a.words[k];
        let predicate = w.role == Role::Content
            && lex.is_some_and(|l| l.is_verb(&w.lower) || !l.is_noun(&w.lower));
        // What the predicate is said of (the nearest content word before it in the answer)
        // must be in the same clause of the other sentence.
        let subject = (0..k)
            .rev()
            .find(|p| a.words[*p].role == Role::Content && a.words[*p].clause == w.clause);
        let about_it = subject.is_some_and(|p| {
            s.words
                .iter()
                .any(|x| x.clause == s.words[j].clause && same_word(&a.words[p], x))
        });
        predicate
            && about_it
            && negated(a, k) != negated(s, j)
            && (scope_of_negator(a, k) || scope_of_negator(s, j))
    })
}

/// How many words before a word its negator may stand ("does not always shorten").
const NEGATION_REACH: usize = 4;

/// The most words of any kind between a negator and the word it negates.
const NEGATION_SPAN: usize = 6;

/// True for a negator at `p`: a negating word ("not only" excepted), or "rather than" /
/// "instead of".
fn is_negator(x: &Sentence, p: usize, w: &Word) -> bool {
    let next = x.words.get(p + 1).map(|n| n.lower.as_str());
    match w.lower.as_str() {
        "not" => next != Some("only"),
        "rather" => next == Some("than"),
        "instead" => next == Some("of"),
        _ => w.role == Role::Negator,
    }
}

/// Words that liken a term to what the sentence says ("as in most animals", "like weight").
const LIKENS: &[&str] = &["like", "as", "similar", "same", "resembling"];

/// Which of likened (`Some(true)`) or set apart (`Some(false)`, [`compares`]) word `k` is: a
/// word of [`LIKENS`] or a comparison before it in its clause with no content word between.
pub(super) fn likened(x: &Sentence, k: usize) -> Option<bool> {
    let clause = x.words[k].clause;
    for p in (0..k).rev() {
        let w = &x.words[p];
        if w.clause != clause {
            break;
        }
        if compares(x, p) {
            return Some(false);
        }
        if LIKENS.contains(&w.lower.as_str()) {
            return Some(true);
        }
        // A content word between ends the search.
        if !matches!(w.role, Role::Function | Role::Cue) {
            break;
        }
    }
    None
}

/// True for "unlike" and the "than" / "from" of "different than / from" at `p`: they set
/// apart the term right after them, which contradicts a term likened ([`likened`]) and
/// nothing else ("unlike weight, which changes" does not negate "changes"; "unlike arteries,
/// veins have valves" says what "veins are different than arteries" does).
fn compares(x: &Sentence, p: usize) -> bool {
    match x.words[p].lower.as_str() {
        "unlike" => true,
        "than" | "from" => p > 0 && x.words[p - 1].lower == "different",
        _ => false,
    }
}
