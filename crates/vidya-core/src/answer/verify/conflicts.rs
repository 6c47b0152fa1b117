//! What an answer sentence says that its aligned source sentence does not: a negation added
//! or dropped, an opposite word (direction, comparative), another term of the same kind, a
//! number or unit, a quantifier, a hedge dropped, a relation's two terms swapped, or content
//! the sources do not have.

use super::align::{account, find, same_number, same_word, Match};
use super::causes;
use super::cues::{HEDGES, MODAL_HEDGES, ONLY, OPPOSITES, PARTIAL, REVERSERS, UNIVERSAL};
use super::lexicon::Lexicon;
use super::words::{self, Role, Sentence, Word};
use super::Finding;
use std::collections::HashSet;

/// Prefixes that negate the word they are on ("insoluble", "nonpolar", "unable").
const NEGATING_PREFIXES: &[&str] = &["un", "in", "im", "il", "ir", "non", "non-", "dis", "a"];

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
        NEGATING_PREFIXES.iter().any(|p| {
            x.strip_prefix(p).is_some_and(|rest| {
                rest.len() >= 4 && (rest == y || rest.trim_start_matches('-') == y)
            })
        })
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
    lex.is_some_and(|l| l.antonyms(&a.lower, &b.lower) || l.antonym_of_synonym(&a.lower, &b.lower))
}

/// Words of time order: `Some(true)` for "before" and its kind, `Some(false)` for "after".
fn order_class(w: &Word) -> Option<bool> {
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
    if BEFORE.contains(&w.lower.as_str()) {
        Some(true)
    } else if AFTER.contains(&w.lower.as_str()) {
        Some(false)
    } else {
        None
    }
}

/// For each clause of the answer, the clause of `s` that restates it: the one holding most of
/// its content words and numbers (any occurrence), ties going to the clause that has the
/// answer clause's first content word (its subject, usually), then to the earliest. Where a
/// negation or quantifier of the source applies to what the answer says.
fn matched_clauses(a: &Sentence, s: &Sentence, _lex: Option<&Lexicon>) -> Vec<usize> {
    let s_clauses = s.clauses();
    let mut out = Vec::new();
    for ac in a.clauses() {
        let words: Vec<&Word> = a
            .words
            .iter()
            .filter(|w| w.clause == ac && matches!(w.role, Role::Content | Role::Number))
            .collect();
        let Some(first) = words.iter().find(|w| w.role == Role::Content) else {
            continue;
        };
        let in_clause = |w: &Word, c: usize| {
            s.words.iter().any(|x| {
                x.clause == c && (x.lower == w.lower || (x.stem == w.stem && x.stem.len() >= 3))
            })
        };
        let best = s_clauses.iter().copied().max_by_key(|c| {
            let n = words.iter().filter(|w| in_clause(w, *c)).count();
            // Earlier clauses win ties: a larger key for a smaller index.
            (n, in_clause(first, *c), std::cmp::Reverse(*c))
        });
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
        let clauses = matched_clauses(a, s, lex);
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
    let clauses = matched_clauses(a, s, lex);
    let unmatched_negated = (0..a.words.len()).any(|k| {
        a.words[k].role == Role::Content
            && matches[k] == Match::None
            && negated(a, k)
            && scope_of_negator(a, k)
    });
    if unmatched_negated && s.negations(Some(&clauses)) == 0 {
        return Some(Finding::Negation);
    }
    None
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
fn likened(x: &Sentence, k: usize) -> Option<bool> {
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

/// Quantifiers: "all" where the source says "some" (or says neither), "some" where it says
/// "all", "only" where it does not.
pub fn quantifier(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Option<Finding> {
    let clauses = matched_clauses(a, s, lex);
    let in_s = |list: &[&str]| s.has_any(list, Some(&clauses));
    let first = |list: &[&str]| {
        a.words
            .iter()
            .find(|w| list.contains(&w.lower.as_str()))
            .map(|w| w.lower.clone())
    };
    let strong_universal: Vec<&str> = UNIVERSAL
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "any" | "each"))
        .collect();
    if let Some(q) = first(&strong_universal) {
        if !in_s(UNIVERSAL) || limited_in_source(a, s, &q) {
            let source = s
                .words
                .iter()
                .find(|w| clauses.contains(&w.clause) && PARTIAL.contains(&w.lower.as_str()))
                .map(|w| w.lower.clone());
            return Some(Finding::Quantifier { answer: q, source });
        }
    }
    // A proportion the source does not give: "most", "few", "rarely" are claims of their own.
    const PROPORTION: &[&str] = &[
        "most", "mostly", "majority", "minority", "few", "rarely", "seldom",
    ];
    if let Some(q) =
        first(PROPORTION).filter(|q| !s.has_any(&[q.as_str()], None) && !in_s(PROPORTION))
    {
        return Some(Finding::Quantifier {
            answer: q,
            source: None,
        });
    }
    if let Some(q) = first(PARTIAL).filter(|_| in_s(&strong_universal) && !in_s(PARTIAL)) {
        return Some(Finding::Quantifier {
            answer: q,
            source: Some("all".into()),
        });
    }
    // "Some viruses are up to 1000 nm" told as "viruses are 1000 nm": what the book says of
    // some, said of all.
    let any_quantifier = |x: &Sentence| {
        x.has_any(UNIVERSAL, None) || x.has_any(PARTIAL, None) || x.has_any(ONLY, None)
    };
    if !any_quantifier(a) {
        let limited = s.words.iter().find(|w| {
            clauses.contains(&w.clause)
                && matches!(
                    w.lower.as_str(),
                    "some" | "few" | "several" | "certain" | "most" | "many"
                )
        });
        if let Some(w) = limited {
            return Some(Finding::Quantifier {
                answer: "(all)".into(),
                source: Some(w.lower.clone()),
            });
        }
    }
    if let Some(q) = first(ONLY) {
        if !in_s(ONLY) && !s.has_any(ONLY, None) {
            return Some(Finding::Quantifier {
                answer: q,
                source: None,
            });
        }
    }
    None
}

/// True when the term the answer quantifies with `q` ("all wavelengths") is limited in the
/// source ("only specific wavelengths", "certain wavelengths"): the source's own universal
/// word is on another term ("each absorbs only specific wavelengths").
fn limited_in_source(a: &Sentence, s: &Sentence, q: &str) -> bool {
    const LIMITING: &[&str] = &[
        "specific",
        "certain",
        "particular",
        "some",
        "few",
        "several",
    ];
    let Some(at) = a.words.iter().position(|w| w.lower == q) else {
        return false;
    };
    let Some(term) = a.words[at + 1..].iter().find(|w| w.role == Role::Content) else {
        return false;
    };
    s.words.iter().enumerate().any(|(j, x)| {
        same_word(term, x)
            && s.words[j.saturating_sub(2)..j]
                .iter()
                .any(|y| LIMITING.contains(&y.lower.as_str()) || ONLY.contains(&y.lower.as_str()))
    })
}

/// A source that calls the claim disputed, proposed or uncertain, restated as plain fact.
pub fn hedge(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Option<Finding> {
    let clauses = matched_clauses(a, s, lex);
    let h = s
        .words
        .iter()
        .find(|w| clauses.contains(&w.clause) && HEDGES.contains(&w.lower.as_str()))?;
    let hedged = a.has_any(HEDGES, None) || a.has_any(MODAL_HEDGES, None);
    (!hedged).then(|| Finding::Hedge {
        source: h.lower.clone(),
    })
}

/// Numbers: every number of the answer must be in the aligned source sentence with the same
/// unit, or at least in its passage. A number word ("one of") counts only where the source
/// gives a number too.
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
            }
        }
    }
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

/// Opposite words: an answer word that the source clause it restates does not have (nor a
/// synonym of it), whose opposite that clause has and the answer clause does not: "slows"
/// against "speeds up", "hypotonic" against "hypertonic", "outside" against "interior".
/// Clause by clause, so that "the xylem is inside, the phloem outside" is read against each
/// half. Returns the pairs (answer word index, source word).
pub fn opposites(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Vec<(usize, String)> {
    let has = |sent: &Sentence, clause: usize, w: &Word| {
        sent.words.iter().filter(|x| x.clause == clause).any(|x| {
            same_word(w, x)
                || (w.role == Role::Content
                    && x.role == Role::Content
                    && lex.is_some_and(|l| l.same_meaning(&w.lower, &x.lower)))
        })
    };
    let pairs = clause_pairs(a, s);
    let mut out = Vec::new();
    for (i, w) in a.words.iter().enumerate() {
        if w.role == Role::Number {
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
        if has(s, sc, w) {
            continue;
        }
        if let Some(x) = s
            .words
            .iter()
            .filter(|x| x.clause == sc && x.role != Role::Number && !has(a, w.clause, x))
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
    if !ends_clause || s.words.iter().any(|x| same_word(w, x)) {
        return None;
    }
    s.words
        .iter()
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
fn said_twice(x: &Sentence, w: &Word) -> bool {
    x.words.iter().filter(|y| same_word(w, y)).count() > 1
}

/// Each answer clause with the source clause it restates (the one holding most of its words;
/// ties to the clause with its first content word, then the earliest).
pub fn clause_pairs(a: &Sentence, s: &Sentence) -> Vec<(usize, usize)> {
    let s_clauses = s.clauses();
    a.clauses()
        .into_iter()
        .filter_map(|ac| {
            let words: Vec<&Word> = a
                .words
                .iter()
                .filter(|w| w.clause == ac && matches!(w.role, Role::Content | Role::Number))
                .collect();
            let first = words.iter().find(|w| w.role == Role::Content);
            let in_clause =
                |w: &Word, c: usize| s.words.iter().any(|x| x.clause == c && same_word(w, x));
            let best = s_clauses.iter().copied().max_by_key(|c| {
                let n = words.iter().filter(|w| in_clause(w, *c)).count();
                (
                    n,
                    first.is_some_and(|f| in_clause(f, *c)),
                    std::cmp::Reverse(*c),
                )
            })?;
            Some((ac, best))
        })
        .collect()
}

/// Words that join a cause and its effect ("because", "so", "due to", "leads to"): a relation
/// of their own between two terms, as a verb is.
const CAUSAL: &[&str] = &[
    "because",
    "since",
    "so",
    "therefore",
    "thus",
    "hence",
    "due",
    "causes",
    "cause",
    "caused",
    "leads",
    "lead",
    "led",
    "results",
    "result",
    "resulting",
    "produces",
    "triggers",
    "triggered",
    "makes",
    "make",
    "if",
    "when",
    "whenever",
    "क्योंकि",
    "इसलिए",
    "कारण",
];

/// Causal words that put the effect first when they stand between two terms ("B because A",
/// "B if A", "B when A"); at the start of a sentence they put the cause first ("Because A,
/// B").
fn effect_first(w: &str) -> bool {
    causes::EFFECT_FIRST.contains(&w) || causes::CONDITIONS.contains(&w)
}

/// True for a past participle: "-ed" or "-en", or an irregular one ("lost", "made", "held").
fn is_participle(w: &Word) -> bool {
    let l = w.lower.as_str();
    (l.len() > 4 && (l.ends_with("ed") || l.ends_with("en"))) || super::words::lemma_of(l) != l
}

/// Words after which a word that is both a noun and a verb reads as a noun ("the tastes",
/// "have seeds", "from burning coal").
const NOUN_AFTER: &[&str] = &[
    "a", "an", "the", "its", "their", "his", "her", "our", "your", "my", "this", "these", "those",
    "some", "many", "few", "all", "each", "every", "no", "other", "such", "have", "has", "had",
    "of", "from", "with", "in", "on", "for", "at", "into", "through",
];

/// Relative pronouns: a clause they open says something of the term before them ("T cells,
/// which mature in the thymus").
const RELATIVES: &[&str] = &["that", "which", "who", "whom", "whose"];

/// Words besides the [`RELATIVES`] that open a clause with a subject of its own ("contracts
/// when myosin binds"; "tastes that humans detect" through "that").
const SUBORDINATORS: &[&str] = &["when", "where", "while", "whereas", "as", "if"];

/// True for a word that opens a clause with a subject of its own: a relative pronoun or a
/// subordinator.
fn opens_clause(w: &Word) -> bool {
    RELATIVES.contains(&w.lower.as_str()) || SUBORDINATORS.contains(&w.lower.as_str())
}

/// Whether answer word `k` can be the relation between two terms: a verb that does not read
/// as a noun here (after a determiner, a preposition, "have", an adjective, or a verb in "-ing"
/// whose object it is: "the primary tastes", "burning coal"), a word WordNet does not know, or
/// an adjective said of a term, not put before one ("larger than", not "a close
/// relationship").
fn reads_as_relation(a: &Sentence, k: usize, l: &Lexicon) -> bool {
    let w = a.words[k].lower.as_str();
    let before = k.checked_sub(1).map(|p| a.words[p].lower.as_str());
    if l.is_verb(w) {
        return !l.is_noun(w)
            || before.is_none_or(|p| {
                !NOUN_AFTER.contains(&p)
                    && (!l.is_adjective(p) || l.is_verb(p))
                    && (!p.ends_with("ing") || !l.is_verb(p))
            });
    }
    if !l.knows(w) {
        return true;
    }
    !l.is_noun(w) && a.words.get(k + 1).is_none_or(|n| n.role != Role::Content)
}

/// Most words between a relation's term and the relation word.
const RELATION_GAP: usize = 4;

/// A relation's two terms swapped, or a cause and its effect reversed: two answer terms found
/// in the source, each within [`RELATION_GAP`] words of a relation word that stands between
/// them in both sentences (the same verb or a synonym, a causal word, a comparative), read in
/// the other order with no word that reverses the reading (passive "by", "because", "from",
/// an opposite comparative). A verb counts as the relation only where it can be one
/// ([`reads_as_relation`]), in the terms' own clause, and not in a clause with a subject of
/// its own that opens after the first term ([`opens_clause`]). `opposed`: answer word indexes
/// of [`opposites`], which reverse the reading too. Returns whether a swap was found, and the
/// opposite words that a swap of the terms cancels ("Y is smaller than X" for "X is larger
/// than Y").
pub fn roles(
    a: &Sentence,
    s: &Sentence,
    lex: Option<&Lexicon>,
    opposed: &[usize],
) -> (bool, Vec<usize>) {
    // Answer content words with their position in the source.
    let key: Vec<(usize, usize)> = a
        .words
        .iter()
        .zip(account(a, s, lex))
        .enumerate()
        .filter(|(_, (w, _))| w.role == Role::Content)
        .filter_map(|(i, (_, m))| match m {
            Match::Same(j) | Match::Related(j) => Some((i, j)),
            Match::None => None,
        })
        .collect();
    // Words that reverse the reading between two terms: a passive ("by" after a participle:
    // "detected by"; or an auxiliary before the relation's own participle or its opposite:
    // "is eaten", "is lost from", "is slowed" for "speeds up"; not "are located in", where
    // the relation is another word) counts once, and each causal or source word ("because",
    // "due to", "from", "after").
    let reversers = |words: &[Word], relation: &Word| {
        let passive = words.iter().enumerate().any(|(k, w)| {
            is_participle(w)
                && (((same_word(w, relation) || opposite(w, relation, lex))
                    && words[..k].iter().rev().take(2).any(|x| {
                        matches!(
                            x.lower.as_str(),
                            "is" | "are"
                                | "was"
                                | "were"
                                | "be"
                                | "been"
                                | "being"
                                | "get"
                                | "gets"
                                | "got"
                        )
                    }))
                    || words[k + 1..].iter().take(2).any(|x| x.lower == "by"))
        });
        usize::from(passive)
            + words
                .iter()
                .filter(|w| w.lower != "by" && REVERSERS.contains(&w.lower.as_str()))
                .count()
    };
    let causal = |w: &Word| CAUSAL.contains(&w.lower.as_str()) || CAUSAL.contains(&w.stem.as_str());
    let mut cancelled = Vec::new();
    // The terms of a relation are nouns (or words the lexicon does not know: technical terms).
    let term = |w: &Word| super::swaps::is_term(w, lex);
    for (n, &(ia, ja)) in key.iter().enumerate() {
        for &(ib, jb) in &key[n + 1..] {
            // One word twice ("looks green because green is reflected") is no pair of terms.
            if same_word(&a.words[ia], &a.words[ib]) {
                continue;
            }
            if ja == jb
                || ib - ia < 2
                || ib - ia > 2 * RELATION_GAP + 2
                || !term(&a.words[ia])
                || !term(&a.words[ib])
            {
                continue;
            }
            // The relation in the answer: a word between the terms, near both.
            let (lo, hi) = (ja.min(jb), ja.max(jb));
            let relation = (ia + 1..ib).find(|&k| {
                if k - ia > RELATION_GAP + 1 || ib - k > RELATION_GAP + 1 {
                    return false;
                }
                let w = &a.words[k];
                // The same relation word in the source, between the two terms and near them.
                let in_source = |j: usize| {
                    lo < j && j < hi && j - lo <= RELATION_GAP + 2 && hi - j <= RELATION_GAP + 2
                };
                if causal(w) {
                    // Between the terms in the source, or opening the source sentence before
                    // the first term ("Because A, B").
                    return (lo + 1..hi).any(|j| causal(&s.words[j]) && in_source(j))
                        || (0..lo).any(|j| causal(&s.words[j]));
                }
                if order_class(w).is_some() {
                    return (lo + 1..hi)
                        .any(|j| order_class(&s.words[j]).is_some() && in_source(j));
                }
                // An opposite is a relation ("larger than", "slows"), except an adjective put
                // before a term ("endergonic reactions"): that says which one.
                if opposed.contains(&k) {
                    return !lex.is_some_and(|l| {
                        l.is_adjective(&w.lower)
                            && !l.is_verb(&w.lower)
                            && a.words.get(k + 1).is_some_and(|n| n.role == Role::Content)
                    });
                }
                // A relation is a verb (or an adjective of comparison), never a term, and the
                // same word in both ("eat"/"eaten", not "develop"/"derived"). It is the
                // relation of both terms' clause (or of a relative clause on the first term),
                // and not of a clause of its own that opens between the first term and it
                // ("tastes that humans detect": the humans detect).
                w.role == Role::Content
                    && lex.is_none_or(|l| reads_as_relation(a, k, l))
                    && a.words[ib].clause == w.clause
                    && (a.words[ia].clause == w.clause
                        || (ia + 1..k).any(|o| RELATIVES.contains(&a.words[o].lower.as_str())))
                    && !(ia + 1..k)
                        .any(|o| opens_clause(&a.words[o]) && (o + 1..k).any(|t| term(&a.words[t])))
                    && key
                        .iter()
                        .any(|(i, j)| *i == k && in_source(*j) && same_word(w, &s.words[*j]))
            });
            let Some(r) = relation else { continue };
            // "Because A, B" in the source (its cause clause opens the sentence) against "B
            // because A" or "A, so B" in the answer: which term is the cause is read from
            // the clauses, not from the words between the terms (the cause clause's own
            // passive, "green is reflected", says nothing of the order).
            if causal(&a.words[r]) && !(lo + 1..hi).any(|j| causal(&s.words[j])) {
                let Some(c0) = (0..lo).find(|&j| causal(&s.words[j])) else {
                    continue;
                };
                // A term the source says twice has no one place that puts it in or out of the
                // cause clause ("… make high-pitch sounds, while … make low-pitch sounds").
                if said_twice(s, &s.words[ja]) || said_twice(s, &s.words[jb]) {
                    continue;
                }
                let in_cause = |j: usize| s.words[j].clause == s.words[c0].clause;
                if in_cause(ja) == in_cause(jb) {
                    continue;
                }
                let source_cause = if in_cause(ja) { ia } else { ib };
                // "B because A": the term after the word is the cause; "A, so B": before.
                let answer_cause = if effect_first(&a.words[r].lower) {
                    ib
                } else {
                    ia
                };
                if source_cause != answer_cause {
                    debug_roles(format_args!(
                        "cause: {} / {} / {}",
                        a.words[ia].lower, a.words[r].lower, a.words[ib].lower
                    ));
                    return (true, cancelled);
                }
                continue;
            }
            // An order word of the other kind in the source ("before" for "precedes") reads
            // the terms the other way.
            let order_flip = order_class(&a.words[r]).is_some_and(|ac| {
                (lo + 1..hi).any(|j| order_class(&s.words[j]).is_some_and(|sc| sc != ac))
            });
            let effect_first_words = |words: &[Word]| {
                words
                    .iter()
                    .filter(|w| effect_first(&w.lower) && !REVERSERS.contains(&w.lower.as_str()))
                    .count()
            };
            let flips = usize::from(ja > jb)
                + reversers(&a.words[ia + 1..ib], &a.words[r])
                + effect_first_words(&a.words[ia + 1..ib])
                + reversers(&s.words[lo + 1..hi], &a.words[r])
                + effect_first_words(&s.words[lo + 1..hi])
                + usize::from(opposed.contains(&r) || order_flip);
            if flips % 2 == 1 {
                debug_roles(format_args!(
                    "order: {} / {} / {}",
                    a.words[ia].lower, a.words[r].lower, a.words[ib].lower
                ));
                return (true, cancelled);
            }
            // The terms in the other order excuse the opposite ("B is slower than A" for "A is
            // faster than B"), unless a term is a word the answer repeats: then its place in
            // the source is its first one's, which says nothing of the order ("the adaptive
            // immune response … faster than the innate response").
            if ja > jb
                && opposed.contains(&r)
                && !said_twice(a, &a.words[ia])
                && !said_twice(a, &a.words[ib])
            {
                debug_roles(format_args!(
                    "other order, opposite excused: {} / {} / {}",
                    a.words[ia].lower, a.words[r].lower, a.words[ib].lower
                ));
                cancelled.push(r);
            }
        }
    }
    (false, cancelled)
}

/// With `VIDYA_DEBUG_VERIFY` set: which rule read the answer's roles as swapped (on stderr).
pub(super) fn debug_roles(note: std::fmt::Arguments) {
    if super::debugging() {
        eprintln!("  roles ({note})");
    }
}

/// Two clauses' terms exchanged ("activators bind to the promoter, while repressors bind to
/// operators" against the reverse; "gametes have 46, body cells 23" against the reverse):
/// the answer's clauses are paired with distinct source clauses (the pairing that shares the
/// most words), and a word of one answer clause is found only in the source clause paired
/// with another answer clause, which in turn holds a word of that source clause.
pub fn crossed_clauses(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    let _ = lex;
    let same = super::align::same_term;
    // Terms: content words, numbers, and a one-letter name before a word ("T cells").
    fn terms_of(x: &Sentence) -> Vec<Vec<&Word>> {
        let is_term = |k: usize| {
            let w = &x.words[k];
            matches!(w.role, Role::Content | Role::Number)
                || (super::swaps::is_letter(w)
                    && x.words.get(k + 1).is_some_and(|n| n.role == Role::Content))
        };
        // A relative clause ("…, which is carried out by T cells") belongs to the clause
        // whose term it describes.
        let mut group = 0;
        let mut out: Vec<Vec<&Word>> = Vec::new();
        for (k, w) in x.words.iter().enumerate() {
            let opens = k > 0 && x.words[k - 1].clause != w.clause;
            if opens && !RELATIVES.contains(&w.lower.as_str()) {
                group += 1;
            }
            if is_term(k) {
                out.resize_with(group + 1, Vec::new);
                out[group].push(w);
            }
        }
        out.retain(|ws| !ws.is_empty());
        out
    }
    let a_clauses = terms_of(a);
    let s_clauses = terms_of(s);
    if a_clauses.len() < 2 || a_clauses.len() > 4 || s_clauses.len() < 2 {
        return false;
    }
    let shared =
        |ac: &[&Word], sc: &[&Word]| ac.iter().filter(|w| sc.iter().any(|x| same(w, x))).count();
    // Every pairing of answer clauses with distinct source clauses; the one sharing most.
    fn pairings(n: usize, m: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for j in 0..m {
            if !prefix.contains(&j) {
                prefix.push(j);
                pairings(n, m, prefix, out);
                prefix.pop();
            }
        }
    }
    let mut all = Vec::new();
    pairings(a_clauses.len(), s_clauses.len(), &mut Vec::new(), &mut all);
    // The pairing sharing most words; of equals, the one keeping the clauses' order.
    let Some(best) = all.into_iter().max_by_key(|p| {
        let total = p
            .iter()
            .enumerate()
            .map(|(i, j)| shared(&a_clauses[i], &s_clauses[*j]))
            .sum::<usize>();
        (total, p.windows(2).all(|w| w[0] < w[1]))
    }) else {
        return false;
    };
    // Where a word stands in its clause: first term (the subject, usually), last term, or a
    // number; a one-letter name stands in the place of the word it names ("B cells" last).
    // Two words exchange places only from the same place.
    let place = |ws: &[&Word], w: &Word| -> Option<u8> {
        let at = ws.iter().position(|x| std::ptr::eq(*x, w))?;
        let end = if super::swaps::is_letter(w) {
            at + 1
        } else {
            at
        };
        if w.role == Role::Number {
            Some(2)
        } else if at == 0 {
            Some(0)
        } else if end + 1 == ws.len() {
            Some(1)
        } else {
            None
        }
    };
    for (i, &si) in best.iter().enumerate() {
        for (k, &sk) in best.iter().enumerate() {
            if i == k {
                continue;
            }
            // A word of answer clause i found only in source clause sk, not in its own si …
            let out_of_place: Vec<u8> = a_clauses[i]
                .iter()
                .filter(|w| {
                    !s_clauses[si].iter().any(|x| same(w, x))
                        && s_clauses[sk].iter().any(|x| same(w, x))
                })
                .filter_map(|w| place(&a_clauses[i], w))
                .collect();
            // … while source clause si has, in the same place, a word that answer clause k
            // holds instead of i.
            let came_in = s_clauses[si].iter().any(|x| {
                !a_clauses[i].iter().any(|w| same(w, x))
                    && a_clauses[k].iter().any(|w| same(w, x))
                    && place(&s_clauses[si], x).is_some_and(|p| out_of_place.contains(&p))
            });
            if came_in {
                debug_roles(format_args!("crossed clauses: answer clause {i} / {k}"));
                return true;
            }
        }
    }
    false
}

/// The answer's content words that the aligned sentence (or its passage) does not account
/// for, each judged: another term of the same kind as a source word the answer dropped
/// ([`Finding::SwappedTerm`]) or new content ([`Finding::NewTerm`]). Words of an opposite
/// pair are reported by [`opposites`] instead (`skip`).
pub fn terms(
    a: &Sentence,
    s: &Sentence,
    passage: &[Sentence],
    lex: Option<&Lexicon>,
    skip: &[usize],
    findings: &mut Vec<Finding>,
) {
    let matches = account(a, s, lex);
    let taken: Vec<usize> = matches
        .iter()
        .filter_map(|m| match m {
            Match::Same(j) | Match::Related(j) => Some(*j),
            Match::None => None,
        })
        .collect();
    let dropped: Vec<(usize, &Word)> = s
        .words
        .iter()
        .enumerate()
        .filter(|(j, x)| x.role == Role::Content && !taken.contains(j))
        .filter(|(_, x)| !a.words.iter().any(|w| same_word(w, x)))
        .collect();
    for (i, w) in a.words.iter().enumerate() {
        if w.role != Role::Content || skip.contains(&i) || matches[i] != Match::None {
            continue;
        }
        if let Some((_, x)) = dropped
            .iter()
            .find(|(_, x)| same_kind(w, x, lex) && !narrows(&w.lower, &x.lower))
        {
            findings.push(Finding::SwappedTerm {
                answer: w.lower.clone(),
                source: x.lower.clone(),
            });
            continue;
        }
        // In the place of a dropped source word: its neighbour (the next content word before
        // or after it) is matched, and the source's neighbour on that side was dropped
        // ("parietal cells" for "chief cells", "the slope of the line" for "the area under
        // the line").
        // A word taken from elsewhere in the sources into the place of a dropped one; a word
        // the sources do not have at all is new content ([`Finding::NewTerm`]) instead.
        let in_sources = super::align::in_any(w, passage);
        // Not a word that means the same ("sunlight" for "solar radiation").
        if let Some(x) = substituted(a, s, i, &matches, &dropped)
            .filter(|_| in_sources)
            .filter(|x| !lex.is_some_and(|l| l.same_meaning(&w.lower, x)))
            .filter(|x| !narrows(&w.lower, x))
        {
            findings.push(Finding::SwappedTerm {
                answer: w.lower.clone(),
                source: x,
            });
            continue;
        }
        if passage.iter().any(|p| find(w, p, lex) != Match::None) {
            continue;
        }
        findings.push(Finding::NewTerm {
            term: w.lower.clone(),
        });
    }
}

/// The dropped source word in the place of answer word `i`, when a content neighbour of `i`
/// is matched in the source and the source word on the same side of that match is dropped.
fn substituted(
    a: &Sentence,
    s: &Sentence,
    i: usize,
    matches: &[Match],
    dropped: &[(usize, &Word)],
) -> Option<String> {
    let is_content = |w: &Word| w.role == Role::Content;
    let next_a = (i + 1..a.words.len()).find(|k| is_content(&a.words[*k]));
    let prev_a = (0..i).rev().find(|k| is_content(&a.words[*k]));
    let source_at = |k: usize| match matches[k] {
        Match::Same(j) => Some(j),
        _ => None,
    };
    let dropped_at = |j: usize| {
        dropped
            .iter()
            .find(|(d, _)| *d == j)
            .map(|(_, x)| x.lower.clone())
    };
    // The answer word comes before its matched neighbour: compare the source word before the
    // neighbour's match; and after.
    if let Some(j) = next_a.and_then(source_at) {
        if a.words[next_a?].clause == a.words[i].clause {
            if let Some(p) = (0..j).rev().find(|p| is_content(&s.words[*p])) {
                if s.words[p].clause == s.words[j].clause {
                    if let Some(x) = dropped_at(p) {
                        return Some(x);
                    }
                }
            }
        }
    }
    if let Some(j) = prev_a.and_then(source_at) {
        if a.words[prev_a?].clause == a.words[i].clause {
            if let Some(p) = (j + 1..s.words.len()).find(|p| is_content(&s.words[*p])) {
                if s.words[p].clause == s.words[j].clause {
                    if let Some(x) = dropped_at(p) {
                        return Some(x);
                    }
                }
            }
        }
    }
    None
}

/// Two terms of the same kind: WordNet co-hyponyms, or technical words that share a long
/// ending or beginning and differ in the rest ("prophase"/"metaphase",
/// "endothermic"/"exothermic", "hypertonic"/"hypotonic").
fn same_kind(a: &Word, b: &Word, lex: Option<&Lexicon>) -> bool {
    if lex.is_some_and(|l| l.same_kind(&a.lower, &b.lower)) {
        return true;
    }
    let (x, y) = (a.lower.as_str(), b.lower.as_str());
    if x.len() < 6 || y.len() < 6 || !x.is_ascii() || !y.is_ascii() {
        return false;
    }
    let common_suffix = x
        .bytes()
        .rev()
        .zip(y.bytes().rev())
        .take_while(|(p, q)| p == q)
        .count();
    let common_prefix = x.bytes().zip(y.bytes()).take_while(|(p, q)| p == q).count();
    let shorter = x.len().min(y.len());
    // A shared part of four letters or more, and a different part of two or more on each side;
    // or a shared beginning and ending around a different middle of two letters or more
    // ("conduction"/"convection", "reflection"/"refraction", "transcription"/"translation").
    let middle = |z: &str| z.len().saturating_sub(common_prefix + common_suffix);
    (common_suffix >= 4 && shorter - common_suffix >= 1 && common_prefix < 2)
        || (common_prefix >= 4 && shorter - common_prefix >= 3 && common_suffix < 3)
        || (common_prefix >= 3 && common_suffix >= 4 && middle(x) >= 2 && middle(y) >= 2)
}

/// True when answer word `a` is source word `b` with a head that narrows it
/// ("exoenzymes" for "enzymes", "phospholipids" for "lipids"): a more specific name for the
/// same thing, not another term of its kind. A negating head ("nonpolar", "antibodies")
/// makes another term.
fn narrows(a: &str, b: &str) -> bool {
    b.chars().count() >= 5
        && a.strip_suffix(b).is_some_and(|head| {
            head.chars().count() >= 2
                && !NEGATING_PREFIXES.contains(&head)
                && !["anti", "counter", "de"].contains(&head)
        })
}
