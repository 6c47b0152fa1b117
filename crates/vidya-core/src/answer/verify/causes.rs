//! Cause and effect reversed across whole clauses: "neutrinos interact weakly because they
//! leave the Sun in two seconds" where the book says "neutrinos carry their energy out of the
//! Sun in two seconds, because they interact so weakly". Each sentence is cut at its one
//! causal connective into a cause side and an effect side; the answer is rejected when what it
//! gives as the effect is on the book's cause side (a reversal, or one of the book's
//! conditions made the cause of another).
//!
//! [`super::conflicts::roles`] reads a relation between two nearby terms; this reads the
//! clauses, so that long causes and effects are compared too.

use super::align::{account, same_word, Match};
use super::words::{Role, Sentence};

/// Connectives with the effect before them ("B because A", "B, since A", "B due to A"); at
/// the start of a sentence the cause comes first ("Because A, B").
pub const EFFECT_FIRST: &[&str] = &["because", "since", "due"];
/// Connectives with the cause before them ("A, so B", "A; therefore B", "A leads to B").
const CAUSE_FIRST: &[&str] = &[
    "so",
    "therefore",
    "thus",
    "hence",
    "consequently",
    "causes",
    "cause",
    "leads",
    "lead",
    "results",
];
/// Conditions, read only where a sentence has no connective above: "B if A", "B when A",
/// "If A, B".
pub const CONDITIONS: &[&str] = &["if", "when", "whenever"];

/// Which side of a sentence's causal connective each word is on: `Some(true)` cause,
/// `Some(false)` effect, `None` the connective itself. `None` overall when the sentence has
/// no causal connective or more than one (which cause goes with which effect is then
/// unclear).
fn sides(x: &Sentence) -> Option<Vec<Option<bool>>> {
    let w = &x.words;
    let is_connective = |k: usize, list: &[&str]| {
        let word = w[k].lower.as_str();
        if !list.contains(&word) {
            return false;
        }
        match word {
            // "so" joins clauses after a punctuation mark ("…; so, when light enters": two
            // clause breaks, as "so" opens a clause of its own) or "and", not as "so weakly"
            // or "so that"; "due" only as "due to".
            "so" => {
                k > 0
                    && (w[k].clause >= w[k - 1].clause + 2 || w[k - 1].lower == "and")
                    && w.get(k + 1).is_none_or(|n| n.lower != "that")
            }
            "due" => w.get(k + 1).is_some_and(|n| n.lower == "to"),
            "results" => w.get(k + 1).is_some_and(|n| n.lower == "in"),
            "leads" | "lead" => w.get(k + 1).is_some_and(|n| n.lower == "to"),
            "cause" => k > 0 && w[k - 1].role == Role::Content,
            _ => true,
        }
    };
    let find = |list: &[&str]| -> Vec<usize> {
        (0..w.len()).filter(|&k| is_connective(k, list)).collect()
    };
    let strong: Vec<usize> = find(EFFECT_FIRST)
        .into_iter()
        .chain(find(CAUSE_FIRST))
        .collect();
    let (c, effect_first) = match strong.as_slice() {
        [c] => (*c, EFFECT_FIRST.contains(&w[*c].lower.as_str())),
        [] => match find(CONDITIONS).as_slice() {
            [c] => (*c, true),
            _ => return None,
        },
        _ => return None,
    };
    let opening = !w[..c]
        .iter()
        .any(|x| matches!(x.role, Role::Content | Role::Number));
    let mut out: Vec<Option<bool>> = vec![None; w.len()];
    if opening {
        // "Because A, B": A is the connective's own clause, B the rest.
        if !effect_first {
            return None;
        }
        let cause_clause = w.get(c + 1).map(|n| n.clause)?;
        for (k, x) in w.iter().enumerate().skip(c + 1) {
            out[k] = Some(x.clause == cause_clause);
        }
    } else {
        // A condition ("B if A, C") holds its own clause only: what follows it is neither
        // side.
        let condition_clause = (!strong.contains(&c))
            .then(|| w.get(c + 1).map(|n| n.clause))
            .flatten();
        for (k, o) in out.iter_mut().enumerate() {
            let past = k > c && condition_clause.is_some_and(|cc| w[k].clause != cc);
            if k != c && !past {
                o.replace((k < c) != effect_first);
            }
        }
    }
    Some(out)
}

/// True when the answer sentence `a` gives as its effect what source sentence `s` gives as a
/// cause: more of the content words on the answer's effect side are found (the same word, a
/// synonym or a derivation) on the source's cause side than on its effect side, at least one,
/// and the answer's cause side has a word placed in the source too. Words found on both
/// sides of the source say nothing and are skipped. `false` when either sentence has no
/// single causal connective.
pub fn reversed(a: &Sentence, s: &Sentence, lex: Option<&super::lexicon::Lexicon>) -> bool {
    let (Some(a_sides), Some(s_sides)) = (sides(a), sides(s)) else {
        return false;
    };
    let matches = account(a, s, lex);
    // Per answer side (cause, effect): words on the same side of the source, on the other.
    let mut votes = [[0usize; 2]; 2];
    for (i, w) in a.words.iter().enumerate() {
        let Some(side) = a_sides[i] else { continue };
        if w.role != Role::Content {
            continue;
        }
        let j = match matches[i] {
            Match::Same(j) | Match::Related(j) => j,
            Match::None => continue,
        };
        let Some(src_side) = s_sides[j] else { continue };
        // A word the source has on both sides places nothing.
        let both = s.words.iter().zip(&s_sides).any(|(x, sd)| {
            sd.is_some_and(|sd| sd != src_side) && (same_word(w, x) || x.lower == s.words[j].lower)
        });
        if both {
            continue;
        }
        let row = usize::from(!side);
        votes[row][usize::from(side != src_side)] += 1;
    }
    super::conflicts::debug_roles(format_args!(
        "causes: answer (cause, effect) × source (same side, other side) {votes:?}"
    ));
    let [cause, effect] = votes;
    // The answer's effect is the source's cause: a reversal, or one of the source's
    // conditions made the cause of another ("the eyeball becomes elongated because the focus
    // falls in front of the retina" where both are conditions of myopia).
    effect[1] >= 1 && effect[1] > effect[0] && cause[0] + cause[1] >= 1
}
