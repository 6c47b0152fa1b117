//! The two sides of a relation exchanged: "human body cells outnumber prokaryotic cells"
//! where the source says "prokaryotic cells outnumber human body cells". The terms of each
//! side may share words ("cells"), so word-by-word positions cannot tell the swap
//! ([`super::conflicts::roles`] reads each answer word at its first place in the source);
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

/// True when each word of `p` is in `q` and each of `q` in `p` ([`same_word`]).
fn same_phrase(p: &[&Word], q: &[&Word]) -> bool {
    p.iter().all(|w| q.iter().any(|x| same_word(w, x)))
        && q.iter().all(|x| p.iter().any(|w| same_word(w, x)))
}

/// True when a verb that the answer and the aligned source sentence `s` each have once, in
/// the same form, has the phrase before it in the answer where the source has the phrase after
/// it, and the other way round, and the two phrases differ. Not for relations that hold both
/// ways ([`SYMMETRIC`]) or a passive in one only ("is outnumbered by" reads the sides the
/// other way: the forms then differ, or "by" follows in one).
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
        if [&al, &ar, &sl, &sr].iter().any(|p| p.is_empty()) {
            continue;
        }
        if same_phrase(&al, &sr) && same_phrase(&ar, &sl) && !same_phrase(&al, &ar) {
            return true;
        }
    }
    false
}
