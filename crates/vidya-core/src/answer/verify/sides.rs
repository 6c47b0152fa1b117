//! The two sides of a relation exchanged: "human body cells outnumber prokaryotic cells"
//! where the source says "prokaryotic cells outnumber human body cells". The terms of each
//! side may share words ("cells"), so word-by-word positions cannot tell the swap
//! ([`super::roles::roles`] reads each answer word at its first place in the source);
//! the phrases on each side of the one relation word can.
//!
//! The "roles swapped" edit of natural-logic inference (MacCartney and Manning 2007): an
//! asymmetric relation with its arguments exchanged.

use super::align::same_word;
use super::lexicon::Lexicon;
use super::words::{Role, Sentence, Word};

/// Relations that hold both ways ("A binds B" is "B binds A"): exchanging their sides says
/// the same.
const SYMMETRIC: &[&str] = &[
    "equal",
    "equals",
    "resemble",
    "resembles",
    "meet",
    "meets",
    "touch",
    "touches",
    "contact",
    "contacts",
    "interact",
    "interacts",
    "bind",
    "binds",
    "join",
    "joins",
    "connect",
    "connects",
    "match",
    "matches",
    "collide",
    "collides",
    "attract",
    "attracts",
    "repel",
    "repels",
    "exchange",
    "exchanges",
];

/// Words that open a noun phrase and are no part of its meaning here.
const DETERMINERS: &[&str] = &["the", "a", "an"];

/// The content words of the phrase just before (`before`) or just after word `k` of `x`, in
/// `k`'s clause: a run of content words (after the relation, articles first are skipped),
/// ending at the first other word.
fn side(x: &Sentence, k: usize, before: bool) -> Vec<&Word> {
    let clause = x.words[k].clause;
    let in_phrase = |w: &&Word| w.clause == clause && w.role == Role::Content;
    if before {
        let mut out: Vec<&Word> = x.words[..k].iter().rev().take_while(in_phrase).collect();
        out.reverse();
        out
    } else {
        x.words[k + 1..]
            .iter()
            .skip_while(|w| DETERMINERS.contains(&w.lower.as_str()))
            .take_while(in_phrase)
            .collect()
    }
}

/// Auxiliaries skipped before a relation verb ("the generative cell **is** contained
/// within …").
const AUXILIARIES: &[&str] = &[
    "is", "are", "was", "were", "be", "been", "being", "can", "may",
];

/// Prepositions skipped after a relation verb ("contained **within** the larger …", "found
/// **in**"); not "by" (a passive's agent is read by its own rule), nor "of" or "to".
const PREPOSITIONS: &[&str] = &[
    "in", "into", "within", "inside", "on", "onto", "at", "from", "through", "around",
];

/// [`side`] past the relation's auxiliaries (before it) or its prepositions and articles
/// (after it): "the generative cell" and "the larger pollen tube cell" of "the generative cell
/// is contained within the larger pollen tube cell".
fn side_past(x: &Sentence, k: usize, before: bool) -> Vec<&Word> {
    let clause = x.words[k].clause;
    let skip = |w: &Word| {
        w.clause == clause
            && if before {
                AUXILIARIES.contains(&w.lower.as_str())
            } else {
                PREPOSITIONS.contains(&w.lower.as_str()) || DETERMINERS.contains(&w.lower.as_str())
            }
    };
    let mut at = k;
    if before {
        while at > 0 && skip(&x.words[at - 1]) {
            at -= 1;
        }
    } else {
        while at + 1 < x.words.len() && skip(&x.words[at + 1]) {
            at += 1;
        }
    }
    side(x, at, before)
}

/// True when a word of `al` that `ar` lacks stands in `sr` and not in `sl`, and a word of
/// `ar` that `al` lacks stands in `sl` and not in `sr`: a term of each side crossed to the
/// other, while words that stay on their side ("larger") tell nothing.
fn crossed(al: &[&Word], ar: &[&Word], sl: &[&Word], sr: &[&Word]) -> bool {
    let has = |p: &[&Word], w: &Word| p.iter().any(|x| same_word(w, x));
    let goes = |from: &[&Word], other: &[&Word], to: &[&Word], away: &[&Word]| {
        from.iter()
            .any(|w| !has(other, w) && has(to, w) && !has(away, w))
    };
    goes(al, ar, sr, sl) && goes(ar, al, sl, sr)
}

/// True when each word of `p` is in `q` and each of `q` in `p` ([`same_word`]).
fn same_phrase(p: &[&Word], q: &[&Word]) -> bool {
    p.iter().all(|w| q.iter().any(|x| same_word(w, x)))
        && q.iter().all(|x| p.iter().any(|w| same_word(w, x)))
}

/// True when a verb that the answer and the aligned source sentence `s` each have once, in
/// the same form, has the phrase before it in the answer where the source has the phrase after
/// it, and the other way round, and the two phrases differ. Not for relations that hold both
/// ways ([`SYMMETRIC`]) or a passive in one only ("is outnumbered by" reads the sides the
/// other way: the forms then differ, or "by" follows in one). Where a side is no phrase
/// right beside the verb, it is read past the verb's auxiliaries and prepositions
/// ([`side_past`]), and a term of each side must have crossed to the other ([`crossed`]):
/// "the pollen tube cell is contained within the larger generative cell" where the book
/// says "the generative cell is contained within the larger pollen tube cell" (stop 59).
pub fn exchanged(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    let once = |x: &Sentence, w: &Word| x.words.iter().filter(|y| y.lower == w.lower).count() == 1;
    let by_after = |x: &Sentence, k: usize| {
        x.words[k + 1..]
            .iter()
            .take(4)
            .any(|w| w.lower == "by" && w.clause == x.words[k].clause)
    };
    for (k, r) in a.words.iter().enumerate() {
        if r.role != Role::Content
            || SYMMETRIC.contains(&r.lower.as_str())
            || !lex.is_some_and(|l| l.is_verb(&r.lower))
            || !once(a, r)
        {
            continue;
        }
        let Some(j) = s.words.iter().position(|x| x.lower == r.lower) else {
            continue;
        };
        if !once(s, r) || by_after(a, k) != by_after(s, j) {
            continue;
        }
        let (al, ar) = (side(a, k, true), side(a, k, false));
        let (sl, sr) = (side(s, j, true), side(s, j, false));
        if [&al, &ar, &sl, &sr].iter().all(|p| !p.is_empty()) {
            if same_phrase(&al, &sr) && same_phrase(&ar, &sl) && !same_phrase(&al, &ar) {
                return true;
            }
            continue;
        }
        // A relation with its auxiliaries and prepositions ("is contained within"): the
        // phrases past them, a term of each crossed to the other side.
        let (al, ar) = (side_past(a, k, true), side_past(a, k, false));
        let (sl, sr) = (side_past(s, j, true), side_past(s, j, false));
        if [&al, &ar, &sl, &sr].iter().all(|p| !p.is_empty()) && crossed(&al, &ar, &sl, &sr) {
            return true;
        }
    }
    false
}

/// English verbs of conversion whose object turns "into" something ("converts mechanical
/// energy into electrical energy", "is changed into", "is converted to"), as word beginnings.
const CONVERTS: &[&str] = &["convert", "chang", "transform", "turn"];

/// The two sides of a conversion in `x`: what is converted and what it becomes, as content
/// words. Active ("converts A into B": A between the verb and "into") or passive ("A is
/// converted into B": A before the verb). `None` when `x` converts nothing.
pub fn conversion(x: &Sentence) -> Option<(Vec<Word>, Vec<Word>)> {
    let is_verb = |w: &Word| CONVERTS.iter().any(|p| w.lower.starts_with(p));
    for (k, into) in x.words.iter().enumerate() {
        // "into", or "to" right after the verb ("is converted to mechanical work").
        let to_after_verb = into.lower == "to"
            && k > 0
            && is_verb(&x.words[k - 1])
            && x.words[k - 1].clause == into.clause;
        if into.lower != "into" && !to_after_verb {
            continue;
        }
        let clause = into.clause;
        let Some(q) = (0..k)
            .rev()
            .take_while(|p| x.words[*p].clause == clause)
            .find(|p| is_verb(&x.words[*p]))
        else {
            continue;
        };
        let between: Vec<&Word> = x.words[q + 1..k]
            .iter()
            .filter(|w| w.role == Role::Content)
            .collect();
        let from = if between.is_empty() {
            // Passive: the phrase before the verb and its auxiliaries ("is", "are being").
            let end = (0..q)
                .rev()
                .take_while(|p| x.words[*p].clause == clause)
                .find(|p| x.words[*p].role == Role::Content)?;
            side(x, end + 1, true)
        } else {
            between
        };
        let to = side(x, k, false);
        if !from.is_empty() && !to.is_empty() {
            let owned = |p: Vec<&Word>| p.into_iter().cloned().collect();
            return Some((owned(from), owned(to)));
        }
    }
    None
}

/// Words that end a path's "from" side: "from A to B", "from A toward B", "from A into B".
const PATH_TO: &[&str] = &["to", "toward", "towards", "into"];

/// Most words a path's "to" side is read over, after its "to".
const PATH_REACH: usize = 8;

/// The two ends of a movement in `x`, "from A to B": the content words between "from" and the
/// first "to" ([`PATH_TO`]) after it in its clause, and those after that "to" in the clause
/// (at most [`PATH_REACH`] words). `None` when no clause has both.
pub fn path(x: &Sentence) -> Option<(Vec<Word>, Vec<Word>)> {
    let w = &x.words;
    for f in (0..w.len()).filter(|&f| w[f].lower == "from") {
        let clause = w[f].clause;
        let Some(g) = (f + 1..w.len())
            .take_while(|&g| w[g].clause == clause)
            .find(|&g| PATH_TO.contains(&w[g].lower.as_str()))
        else {
            continue;
        };
        let content = |r: &[Word]| -> Vec<Word> {
            r.iter()
                .filter(|x| x.clause == clause && x.role == Role::Content)
                .cloned()
                .collect()
        };
        let (from, to) = (
            content(&w[f + 1..g]),
            content(&w[g + 1..(g + 1 + PATH_REACH).min(w.len())]),
        );
        if !from.is_empty() && !to.is_empty() {
            return Some((from, to));
        }
    }
    None
}

/// True when the answer converts the other way round from the source (or, given the ends of
/// a path, [`path`], moves the other way): the words that set
/// apart what the answer converts ("electrical" of "electrical energy") are those that set
/// apart what the source's conversion gives, and the other way round ("converts electrical
/// energy into mechanical energy" where the source converts mechanical into electrical).
/// Shared words ("energy") tell nothing. Each pair is (from, into) content words.
pub fn conversion_reversed(answer: (&[Word], &[Word]), source: (&[Word], &[Word])) -> bool {
    let own = |p: &[Word], q: &[Word]| -> Vec<Word> {
        p.iter()
            .filter(|w| !q.iter().any(|x| same_word(w, x)))
            .cloned()
            .collect()
    };
    let meets = |p: &[Word], q: &[Word]| p.iter().any(|w| q.iter().any(|x| same_word(w, x)));
    let (af, ai) = (own(answer.0, answer.1), own(answer.1, answer.0));
    let (sf, si) = (own(source.0, source.1), own(source.1, source.0));
    if [&af, &ai, &sf, &si].iter().any(|p| p.is_empty()) {
        return false;
    }
    meets(&af, &si) && meets(&ai, &sf) && !meets(&af, &sf) && !meets(&ai, &si)
}

/// Words that make a frame hold both ways or list its terms ("A and B", "between A and B",
/// "as fast as", "similar to").
const BOTH_WAYS: &[&str] = &[
    "and",
    "or",
    "nor",
    "between",
    "both",
    "either",
    "neither",
    "with",
    "like",
    "unlike",
    "as",
    "same",
    "similar",
    "different",
    "differ",
    "differs",
    "versus",
    "vs",
];

/// True when two terms of the answer stand in the other order than in the aligned source
/// sentence `s`, around a frame the answer copies: every word between them in the answer is,
/// in order, a word between them in the source, which may have numbers and units more
/// ("(~667 nm)"), and the frame holds a content word that is no noun: the relation ("Pfr
/// absorbs red light and is immediately converted to Pr" where the book says "Pr absorbs red
/// light (~667 nm) and is immediately converted to Pfr"). The two terms are in one clause in each, the source says
/// each once, and the frame has no word of [`BOTH_WAYS`] or [`SYMMETRIC`]. A copied frame
/// keeps every word that could reverse the reading (a passive "by", "because"), so the
/// exchange is a swap of roles however far apart the terms are.
pub fn exchanged_around_frame(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    // The ends are names or their modifiers ("the graphical method"), not verbs.
    let term = |w: &Word| {
        w.role == Role::Content && lex.is_none_or(|l| l.is_noun(&w.lower) || !l.is_verb(&w.lower))
    };
    let position = |w: &Word| -> Option<usize> {
        let mut at = s.words.iter().enumerate().filter(|(_, x)| same_word(w, x));
        let (j, _) = at.next()?;
        at.next().is_none().then_some(j)
    };
    // "and" or "or" lists the terms only next to one of them ("Pr and Pfr"); farther in, it
    // joins two verbs of one term ("absorbs red light and is converted").
    let listed = |x: &Sentence, from: usize, to: usize| {
        let inner = &x.words[from + 1..to];
        let joins_term =
            |w: Option<&Word>| w.is_some_and(|w| matches!(w.lower.as_str(), "and" | "or" | "nor"));
        joins_term(inner.first())
            || joins_term(inner.last())
            || inner.iter().any(|w| {
                !matches!(w.lower.as_str(), "and" | "or" | "nor")
                    && (BOTH_WAYS.contains(&w.lower.as_str())
                        || SYMMETRIC.contains(&w.lower.as_str()))
            })
    };
    // Numbers and units ("~667 nm"): an auxiliary or "from" skipped would make a passive of
    // the frame ("heat is lost from the body" for "the body loses heat").
    let skippable = |x: &Word| x.role == Role::Number || super::words::unit_of(&x.lower).is_some();
    for ia in 0..a.words.len() {
        if !term(&a.words[ia]) {
            continue;
        }
        let Some(ja) = position(&a.words[ia]) else {
            continue;
        };
        for ib in ia + 2..a.words.len() {
            let (wa, wb) = (&a.words[ia], &a.words[ib]);
            if wb.clause != wa.clause {
                break;
            }
            if !term(wb) || same_word(wa, wb) {
                continue;
            }
            let Some(jb) = position(wb) else { continue };
            if jb >= ja || s.words[jb].clause != s.words[ja].clause {
                continue;
            }
            if listed(a, ia, ib) || listed(s, jb, ja) {
                continue;
            }
            // The answer's frame, word by word, in the source's frame in order.
            let frame = &a.words[ia + 1..ib];
            // The source's words that the frame skips are skippable ones only.
            let mut next = jb + 1;
            let copied =
                frame
                    .iter()
                    .all(|w| match (next..ja).find(|&j| same_word(w, &s.words[j])) {
                        Some(j) => {
                            let skipped = &s.words[next..j];
                            next = j + 1;
                            skipped.iter().all(skippable)
                        }
                        None => false,
                    })
                    && s.words[next..ja].iter().all(skippable);
            let relation = frame.iter().any(|w| {
                w.role == Role::Content
                    && lex.is_some_and(|l| l.knows(&w.lower) && !l.is_noun(&w.lower))
            });
            if copied && relation {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::verify::words::read;

    fn lower(p: &[Word]) -> Vec<&str> {
        p.iter().map(|w| w.lower.as_str()).collect()
    }

    #[test]
    fn conversions_read_active_and_passive() {
        let s = read("A generator converts mechanical energy into electrical energy.");
        let (from, into) = conversion(&s).unwrap();
        assert_eq!(lower(&from), ["mechanical", "energy"]);
        assert_eq!(lower(&into), ["electrical", "energy"]);
        let s = read("In the leaf, light energy is converted into chemical energy.");
        let (from, into) = conversion(&s).unwrap();
        assert_eq!(lower(&from), ["light", "energy"]);
        assert_eq!(lower(&into), ["chemical", "energy"]);
        assert!(conversion(&read("Water flows into the cell.")).is_none());
        let (sf, si) =
            conversion(&read("A motor converts electrical energy into motion.")).unwrap();
        let (af, ai) =
            conversion(&read("A motor converts motion into electrical energy.")).unwrap();
        assert!(conversion_reversed((&af, &ai), (&sf, &si)));
        assert!(!conversion_reversed((&sf, &si), (&sf, &si)));
    }

    #[test]
    fn a_path_reads_its_two_ends() {
        let s = read("Water moves from an area of high concentration to one of low concentration, by osmosis.");
        let (from, to) = path(&s).unwrap();
        assert_eq!(lower(&from), ["area", "high", "concentration"]);
        assert_eq!(lower(&to), ["low", "concentration"]);
        assert!(path(&read("Water is taken up from the soil.")).is_none());
    }
}
