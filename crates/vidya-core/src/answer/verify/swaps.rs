//! Term swaps that word-by-word accounting cannot see, because the answer's term is in the
//! source too, only in another place or another sentence:
//! - **a copied run with another term before or after it**: "Glucose is a polymeric form of
//!   glucose and is stored in the liver" from "Glycogen is a polymeric form of glucose and is
//!   stored in the liver" (the answer's "glucose" is in the source, as the object);
//! - **a superlative given to another term**: "The weakest of the fundamental forces is
//!   electromagnetism" where the passage says "gravity … is the weakest of all of the
//!   fundamental forces" and names electromagnetism only in a list;
//! - **a one-letter symbol for another**: "r-selected species" where the aligned sentence says
//!   "K-selected species", or "T cells mature in the bone marrow" where the clause it restates
//!   says "B cell maturation occurs in the bone marrow" (the sentence's other clause has "T
//!   cells");
//! - **a comparison given to the other side**: "Kinetic friction is bigger" where the source
//!   says "static friction is greater than the kinetic friction";
//! - **a definition given to its sibling**: "accuracy refers to the ability of a measurement to
//!   generate the same or similar results" where the book says it of precision, and names the
//!   two together elsewhere ("its accuracy and its precision");
//! - **a term joined to itself**: "Meiosis and meiosis share obvious cellular processes" where
//!   the aligned sentence says "Meiosis and mitosis".
//!
//! All are the "swapped term" edit of natural-logic inference (MacCartney and Manning 2007):
//! an exclusion between two terms of the same kind. Seen in answers of Qwen2.5-Coder-0.5B
//! graded wrong by a person (`tests/eval/results/answers-graded-test.txt`).

use super::align::{in_any, same_term as same, same_word};
use super::lexicon::Lexicon;
use super::words::{Role, Sentence, Word};
use super::Finding;

/// Least length, in content words, of a run copied from the source for the word beside it to
/// be read as a substitution: a shorter run is a rewording's chance overlap.
pub const MIN_RUN: usize = 3;

/// Most words between a run and the term beside it (function words: "is a", "refers to how
/// well").
pub const MAX_REACH: usize = 5;

/// A content word that names a thing: a noun, or a word WordNet does not know (a technical
/// term).
pub fn is_term(w: &Word, lex: Option<&Lexicon>) -> bool {
    w.role == Role::Content && lex.is_none_or(|l| l.is_noun(&w.lower) || !l.knows(&w.lower))
}

/// A name of a thing and nothing else: a noun that is no verb ("glycogen", "precision"; not
/// "covers", "drugs", "bud"), or a word WordNet does not know, of three letters or more.
fn is_name(w: &Word, lex: Option<&Lexicon>) -> bool {
    w.role == Role::Content
        && w.lower.chars().count() >= 3
        && w.lower.chars().all(char::is_alphabetic)
        && lex.is_none_or(|l| !l.knows(&w.lower) || (l.is_noun(&w.lower) && !l.is_verb(&w.lower)))
}

/// The words between a term and the run beside it, as they link the two: articles dropped, and
/// the verbs of a definition read as "is" ("refers to", "states", "means", "describes").
fn link(x: &Sentence, from: usize, to: usize) -> Vec<&str> {
    let words: Vec<&str> = x.words[from..to].iter().map(|w| w.lower.as_str()).collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "a" | "an" | "the" => {}
            "refers" | "refer" if words.get(i + 1) == Some(&"to") => {
                out.push("is");
                i += 1;
            }
            "states" | "means" | "describes" | "are" | "was" | "were" => out.push("is"),
            w => out.push(w),
        }
        i += 1;
    }
    out
}

/// True when one of two terms may stand for the other: the same word, or synonyms. A more
/// general name does not count ("accuracy" for "precision": WordNet puts precision under
/// accuracy, and the book defines the two apart).
pub(super) fn exchangeable(w: &Word, x: &Word, lex: Option<&Lexicon>) -> bool {
    same_word(w, x) || lex.is_some_and(|l| l.same_meaning(&w.lower, &x.lower))
}

/// The content words (and numbers) of `x`: their word indexes.
fn content_at(x: &Sentence) -> Vec<usize> {
    (0..x.words.len())
        .filter(|&i| matches!(x.words[i].role, Role::Content | Role::Number))
        .collect()
}

/// A run of at least [`MIN_RUN`] content words that the answer copies from the aligned source
/// sentence `s` in order, with a different term just before (or just after) it in each: the
/// answer's term is one the sources have (taken from elsewhere, not a rewording) and the
/// source's term is not in the answer near the run. `sources`: every sentence the model was
/// given.
pub fn replaced_beside_run(
    a: &Sentence,
    s: &Sentence,
    sources: &[Sentence],
    lex: Option<&Lexicon>,
) -> Option<Finding> {
    let (ac, sc) = (content_at(a), content_at(s));
    for k in 0..ac.len() {
        for m in 0..sc.len() {
            // A maximal run starting here.
            if k > 0 && m > 0 && same(&a.words[ac[k - 1]], &s.words[sc[m - 1]]) {
                continue;
            }
            let len = (0..)
                .take_while(|d| {
                    k + d < ac.len()
                        && m + d < sc.len()
                        && same(&a.words[ac[k + d]], &s.words[sc[m + d]])
                })
                .count();
            if len < MIN_RUN {
                continue;
            }
            let run = (ac[k], ac[k + len - 1]);
            // The term before the run, then the one after it.
            let sides = [
                (k.checked_sub(1), m.checked_sub(1), true),
                (
                    Some(k + len).filter(|i| *i < ac.len()),
                    Some(m + len).filter(|j| *j < sc.len()),
                    false,
                ),
            ];
            for (ka, ms, before) in sides {
                let (Some(ka), Some(ms)) = (ka, ms) else {
                    continue;
                };
                let (ia, js) = (ac[ka], sc[ms]);
                let (w, x) = (&a.words[ia], &s.words[js]);
                let near = |i: usize, edge: usize| i.abs_diff(edge) <= MAX_REACH + 1;
                let (a_edge, s_edge) = if before {
                    (run.0, sc[m])
                } else {
                    (run.1, sc[m + len - 1])
                };
                if !near(ia, a_edge)
                    || !near(js, s_edge)
                    // As many clause breaks between the term and the run in both ("base
                    // quantities, which form" / "base units, which form"; not "Micrographia,
                    // Robert Hooke coined" for "scientist Robert Hooke coined").
                    || w.clause.abs_diff(a.words[a_edge].clause)
                        != x.clause.abs_diff(s.words[s_edge].clause)
                    || !is_name(w, lex)
                    || !is_name(x, lex)
                    || exchangeable(w, x, lex)
                    || !in_any(w, sources)
                {
                    continue;
                }
                // Linked to the run the same way in both ("Glucose is a polymeric …" for
                // "Glycogen is a polymeric …"): a different link is a rewording.
                let (a_link, s_link) = if before {
                    (link(a, ia + 1, a_edge), link(s, js + 1, s_edge))
                } else {
                    (link(a, a_edge + 1, ia), link(s, s_edge + 1, js))
                };
                if a_link != s_link {
                    continue;
                }
                // The answer's term beside the source's in the source: a modifier dropped
                // ("the chromosome" for "the length of the chromosome"), not a swap.
                if s.words
                    .iter()
                    .enumerate()
                    .any(|(j, y)| j.abs_diff(js) <= 3 && same_word(y, w))
                {
                    continue;
                }
                // The source's term elsewhere around the run in the answer ("glycogen and
                // starch are polymeric forms …": an addition, not a swap).
                // (The run itself may hold it: "seven base units, which form the
                // International System of Quantities" for "seven base quantities, which form
                // …".)
                let (lo, hi) = if before {
                    (ia.saturating_sub(2), ia)
                } else {
                    (ia, (ia + 2).min(a.words.len() - 1))
                };
                if a.words[lo..=hi].iter().any(|y| same_word(y, x)) {
                    continue;
                }
                return Some(Finding::SwappedTerm {
                    answer: w.lower.clone(),
                    source: x.lower.clone(),
                });
            }
        }
    }
    None
}

/// True when WordNet knows `w` as an inflection of another word ("weakest" of "weak",
/// "bigger" of "big"), not as a word of its own ("forest", "water").
fn inflected(w: &Word, lex: Option<&Lexicon>) -> bool {
    lex.is_some_and(|l| l.base_forms(&w.lower).iter().any(|b| *b != w.lower))
}

/// True for a superlative adjective ("weakest", "largest", "smallest"): an `-est` word whose
/// base form WordNet knows as another word.
pub(super) fn is_superlative(w: &Word, lex: Option<&Lexicon>) -> bool {
    w.role == Role::Content && w.lower.len() >= 6 && w.lower.ends_with("est") && inflected(w, lex)
}

/// A superlative the aligned sentence does not have, which another source sentence gives to
/// another term of the same kind: the answer's term is not in that sentence, the sentence
/// names a term the answer does not, and the two are siblings (WordNet, or listed together in
/// one source sentence: "gravity, electromagnetism, weak nuclear force …"). A superlative
/// picks out one thing; two cannot both be "the weakest".
pub fn superlative_elsewhere(
    a: &Sentence,
    s: &Sentence,
    sources: &[Sentence],
    lex: Option<&Lexicon>,
) -> Option<Finding> {
    let sup = a.words.iter().find(|w| is_superlative(w, lex))?;
    if s.words.iter().any(|x| same_word(sup, x)) {
        return None;
    }
    let holders: Vec<&Sentence> = sources
        .iter()
        .filter(|t| t.words.iter().any(|x| same_word(sup, x)))
        .collect();
    let answer_terms: Vec<&Word> = a
        .words
        .iter()
        .filter(|w| is_term(w, lex) && !same_word(w, sup))
        .collect();
    let has = |t: &Sentence, w: &Word| t.words.iter().any(|x| same_word(w, x));
    // A sentence that gives the superlative to the answer's own terms supports it.
    if holders
        .iter()
        .any(|t| answer_terms.iter().all(|w| has(t, w)))
    {
        return None;
    }
    let listed_together = |w: &Word, x: &Word| {
        sources
            .iter()
            .any(|t| has(t, w) && has(t, x) && t.clauses().len() >= 3)
    };
    for t in holders {
        // The sentence is about the same things: it shares a term beside the superlative.
        if !answer_terms.iter().any(|w| has(t, w)) {
            continue;
        }
        for w in answer_terms
            .iter()
            .filter(|w| !has(t, w) && in_any(w, sources))
        {
            let other = t.words.iter().find(|x| {
                is_term(x, lex)
                    && !a.words.iter().any(|y| same_word(y, x))
                    && !exchangeable(w, x, lex)
                    && (lex.is_some_and(|l| l.same_kind(&w.lower, &x.lower))
                        || listed_together(w, x))
            });
            if let Some(x) = other {
                return Some(Finding::SwappedTerm {
                    answer: w.lower.clone(),
                    source: x.lower.clone(),
                });
            }
        }
    }
    None
}

/// A one-letter symbol ("T" of "T cells", "K" of "K-selected"): one letter, not the words
/// "a" and "I".
pub fn is_letter(w: &Word) -> bool {
    w.lower.chars().count() == 1
        && w.lower.chars().all(char::is_alphabetic)
        && !matches!(w.lower.as_str(), "a" | "i")
}

/// A one-letter symbol put in the place of another before the same word ("r-selected species
/// are … selected by stable environments" where the aligned sentence says "K-selected"; the
/// "x-axis" for the "y-axis"): the letters name two different things. Nothing when the aligned
/// sentence has the answer's letter before that word too, unless the clause the answer's
/// clause restates ([`restated_clause`]) has another letter there and not the answer's: "T
/// cells mature in the bone marrow" from "B cell maturation occurs in the bone marrow,
/// whereas naïve T cells transit … to the thymus" (the sentence has "T cells", but not where
/// the bone marrow is).
pub fn letter_swapped(a: &Sentence, s: &Sentence) -> Option<Finding> {
    let before = |x: &Sentence, j: usize, next: &Word| {
        x.words.get(j + 1).is_some_and(|y| same_word(y, next))
    };
    let swap = |w: &Word, j: usize| Finding::SwappedTerm {
        answer: w.lower.clone(),
        source: s.words[j].lower.clone(),
    };
    for i in 0..a.words.len().saturating_sub(1) {
        let (w, next) = (&a.words[i], &a.words[i + 1]);
        if !is_letter(w) || next.role != Role::Content {
            continue;
        }
        let own_in = |clause: Option<usize>| {
            (0..s.words.len()).any(|j| {
                clause.is_none_or(|c| s.words[j].clause == c)
                    && s.words[j].lower == w.lower
                    && before(s, j, next)
            })
        };
        let other_in = |clause: Option<usize>| {
            (0..s.words.len()).find(|&j| {
                clause.is_none_or(|c| s.words[j].clause == c)
                    && is_letter(&s.words[j])
                    && s.words[j].lower != w.lower
                    && before(s, j, next)
            })
        };
        if let Some(c) = restated_clause(a, w.clause, s) {
            if !own_in(Some(c)) {
                if let Some(j) = other_in(Some(c)) {
                    return Some(swap(w, j));
                }
            }
        }
        if own_in(None) {
            continue;
        }
        if let Some(j) = other_in(None) {
            return Some(swap(w, j));
        }
    }
    None
}

/// The clause of `s` that the answer's clause `clause` restates: the one whose terms
/// (content words and numbers, [`same`]) overlap the answer clause's most, as a share of the
/// two together (Jaccard), sharing at least two. `None` when the source has one clause, or
/// when two clauses overlap it equally (no clause is the one restated).
fn restated_clause(a: &Sentence, clause: usize, s: &Sentence) -> Option<usize> {
    let term = |x: &Word| matches!(x.role, Role::Content | Role::Number);
    let mine: Vec<&Word> = a
        .words
        .iter()
        .filter(|x| x.clause == clause && term(x))
        .collect();
    let mut clauses: Vec<usize> = s.words.iter().map(|x| x.clause).collect();
    clauses.dedup();
    if clauses.len() < 2 {
        return None;
    }
    let mut scored: Vec<(usize, f32)> = clauses
        .into_iter()
        .filter_map(|c| {
            let theirs: Vec<&Word> = s
                .words
                .iter()
                .filter(|x| x.clause == c && term(x))
                .collect();
            let shared = mine
                .iter()
                .filter(|m| theirs.iter().any(|t| same(m, t)))
                .count();
            (shared >= 2).then(|| {
                let union = (mine.len() + theirs.len()).saturating_sub(shared).max(1);
                (c, shared as f32 / union as f32)
            })
        })
        .collect();
    scored.sort_by(|x, y| y.1.total_cmp(&x.1));
    match scored.as_slice() {
        [best] => Some(best.0),
        [best, next, ..] if best.1 > next.1 => Some(best.0),
        _ => None,
    }
}

/// Words that make a comparison of the word after them ("more massive", "less dense").
pub(super) const COMPARING: &[&str] = &["more", "less", "fewer"];

/// A comparative: "more"/"less"/"fewer", or an adjective or adverb in "-er" whose base form
/// WordNet knows ("bigger" → "big", "greater" → "great"; not "water", "layer").
pub(super) fn is_comparative(w: &Word, lex: Option<&Lexicon>) -> bool {
    COMPARING.contains(&w.lower.as_str())
        || (w.lower.ends_with("er")
            && lex.is_some_and(|l| l.is_adjective(&w.lower))
            && inflected(w, lex))
}

/// A term joined to itself ("Meiosis and meiosis share obvious cellular processes") where the
/// aligned sentence joins it to another term ("Meiosis and mitosis share …"): the other term
/// was swapped for a copy of the first. Nothing when the aligned sentence has the term joined
/// to itself too.
pub fn self_coordinated(a: &Sentence, s: &Sentence) -> Option<Finding> {
    let joined = |x: &Sentence, k: usize| -> Option<(usize, usize)> {
        let (w, n) = (x.words.get(k)?, x.words.get(k + 2)?);
        (w.role == Role::Content
            && n.role == Role::Content
            && matches!(x.words[k + 1].lower.as_str(), "and" | "or"))
        .then_some((k, k + 2))
    };
    for i in 0..a.words.len() {
        let Some((p, q)) = joined(a, i) else { continue };
        if !same_word(&a.words[p], &a.words[q]) {
            continue;
        }
        let term = &a.words[p];
        let mut other = None;
        for j in 0..s.words.len() {
            let Some((x, y)) = joined(s, j) else { continue };
            let (sx, sy) = (&s.words[x], &s.words[y]);
            if same_word(sx, term) && same_word(sy, term) {
                return None;
            }
            if same_word(sx, term) != same_word(sy, term) && other.is_none() {
                other = Some(if same_word(sx, term) { sy } else { sx });
            }
        }
        if let Some(o) = other {
            return Some(Finding::SwappedTerm {
                answer: term.lower.clone(),
                source: o.lower.clone(),
            });
        }
    }
    None
}

/// A term given as its own cause ("Hot flashes are caused by hot flashes in menopause", a
/// real answer of Qwen2.5-Coder-0.5B): the first content word of a clause, a causal verb or
/// phrase at most three words after it ("caused by", "due to", "because of", "results from",
/// "leads to", "causes"), and the same word at most five words after that, where the aligned
/// sentence says no such thing. It explains nothing and is no sentence of the book: a
/// [`Finding::Roles`] (cause and effect). Not "because" alone, which opens a clause with a
/// subject of its own ("looks green because green is reflected").
pub fn circular_cause(a: &Sentence, s: &Sentence) -> Option<Finding> {
    let causal_at = |x: &Sentence, k: usize| {
        let next = x.words.get(k + 1).map(|n| n.lower.as_str());
        match x.words[k].lower.as_str() {
            "causes" | "cause" | "produces" => true,
            "caused" | "produced" => next == Some("by"),
            "due" | "leads" | "lead" => next == Some("to"),
            "because" => next == Some("of"),
            "results" | "result" => next == Some("from"),
            _ => false,
        }
    };
    let circular = |x: &Sentence| {
        x.words.iter().enumerate().any(|(p, w)| {
            let opens_clause = !x.words[..p]
                .iter()
                .any(|y| y.clause == w.clause && y.role == Role::Content);
            w.role == Role::Content
                && opens_clause
                && (p + 1..x.words.len()).take(3).any(|k| {
                    causal_at(x, k)
                        && x.words[k + 1..]
                            .iter()
                            .take(5)
                            .any(|y| y.role == Role::Content && same_word(w, y))
                })
        })
    };
    (circular(a) && !circular(s)).then_some(Finding::Roles)
}

/// A comparison said of the side the source compares against: the answer says "X is
/// bigger" (no "than") where the aligned sentence says "Y is greater than X". The answer's
/// clause names a word that the source has only after "than", and none that it has only
/// before its comparative. A Roles finding.
pub fn comparison_reversed(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    let same_comparative = |x: &Word, y: &Word| {
        same_word(x, y)
            || (!COMPARING.contains(&x.lower.as_str())
                && !COMPARING.contains(&y.lower.as_str())
                && lex.is_some_and(|l| l.same_meaning(&x.lower, &y.lower)))
    };
    for (k, c) in a.words.iter().enumerate() {
        if !is_comparative(c, lex) {
            continue;
        }
        if a.words
            .iter()
            .any(|w| w.clause == c.clause && w.lower == "than")
        {
            continue;
        }
        let clause: Vec<&Word> = a
            .words
            .iter()
            .enumerate()
            .filter(|(i, w)| *i != k && w.clause == c.clause && w.role == Role::Content)
            .map(|(_, w)| w)
            .collect();
        for (j, x) in s.words.iter().enumerate() {
            if !same_comparative(c, x) {
                continue;
            }
            // "than" right after the comparative (or after the word it compares).
            let Some(t) = (j + 1..(j + 3).min(s.words.len())).find(|&t| s.words[t].lower == "than")
            else {
                continue;
            };
            let side = |from: usize, to: usize| -> Vec<&Word> {
                s.words[from..to]
                    .iter()
                    .filter(|w| w.clause == x.clause && w.role == Role::Content)
                    .collect()
            };
            let (before, after) = (side(0, j), side(t + 1, s.words.len()));
            let only = |w: &Word, here: &[&Word], there: &[&Word]| {
                here.iter().any(|y| same(w, y)) && !there.iter().any(|y| same(w, y))
            };
            if clause.iter().any(|w| only(w, &after, &before))
                && !clause.iter().any(|w| only(w, &before, &after))
            {
                return true;
            }
        }
    }
    false
}

/// Verbs that say what a term is ("X is …", "X refers to …").
pub(super) const DEFINING: &[&str] = &[
    "is",
    "are",
    "refers",
    "refer",
    "means",
    "mean",
    "describes",
    "describe",
    "states",
    "state",
    "represents",
    "represent",
    "defines",
];

/// Least number of the predicate's content words that one source sentence must hold for the
/// predicate to be read as copied from it.
pub(super) const MIN_PREDICATE: usize = 3;
/// Least share of the predicate's content words that sentence must hold.
pub(super) const PREDICATE_SHARE: f32 = 0.7;

/// The sentence of `sources` that a predicate (an answer's content words after "is", "refers
/// to") is copied from: the one holding most of its words ([`same_word`]; of equals, the
/// last), when it holds at least [`MIN_PREDICATE`] of them and [`PREDICATE_SHARE`]; with
/// the index of its first copied word.
pub(super) fn predicate_source<'s>(
    predicate: &[&Word],
    sources: &'s [Sentence],
) -> Option<(&'s Sentence, usize)> {
    if predicate.len() < MIN_PREDICATE {
        return None;
    }
    let held = |x: &Sentence| {
        predicate
            .iter()
            .filter(|w| x.words.iter().any(|y| same_word(w, y)))
            .count()
    };
    let (s, n) = sources
        .iter()
        .map(|x| (x, held(x)))
        .max_by_key(|(_, n)| *n)?;
    if n < MIN_PREDICATE || (n as f32) < PREDICATE_SHARE * predicate.len() as f32 {
        return None;
    }
    let first = s
        .words
        .iter()
        .position(|y| predicate.iter().any(|w| same_word(w, y)))?;
    Some((s, first))
}

/// A definition given to a sibling term: in an answer clause "A is / refers to P", the
/// predicate P is copied from a source sentence (at least [`MIN_PREDICATE`] of its content
/// words and [`PREDICATE_SHARE`] of them) that does not name A, while that sentence names,
/// before the copied words, a term T that some source sentence names together with A (the
/// two are listed or compared as siblings: "its accuracy and its precision"). A and T are no
/// synonyms. Returns the swap (A for T).
pub fn definition_given_to_sibling(
    a: &Sentence,
    sources: &[Sentence],
    lex: Option<&Lexicon>,
) -> Option<Finding> {
    for (v, verb) in a.words.iter().enumerate() {
        if !DEFINING.contains(&verb.lower.as_str()) {
            continue;
        }
        // The defined term: the last term before the verb, in its clause.
        let Some(subject) = a.words[..v]
            .iter()
            .rev()
            .take_while(|w| w.clause == verb.clause)
            .find(|w| is_term(w, lex))
        else {
            continue;
        };
        let predicate: Vec<&Word> = a.words[v + 1..]
            .iter()
            .take_while(|w| w.clause == verb.clause)
            .filter(|w| w.role == Role::Content && !same_word(w, subject))
            .collect();
        let Some((s, first)) = predicate_source(&predicate, sources) else {
            continue;
        };
        if s.words.iter().any(|y| exchangeable(subject, y, lex)) {
            continue;
        }
        // The source's own term: before the first copied word.
        let together = |t: &Word| {
            sources.iter().any(|x| {
                x.words.iter().any(|y| same_word(y, subject))
                    && x.words.iter().any(|y| same_word(y, t))
            })
        };
        if let Some(t) = s.words[..first]
            .iter()
            .rev()
            .filter(|t| is_term(t, lex) && !exchangeable(subject, t, lex))
            .find(|t| together(t))
        {
            return Some(Finding::SwappedTerm {
                answer: subject.lower.clone(),
                source: t.lower.clone(),
            });
        }
    }
    None
}
