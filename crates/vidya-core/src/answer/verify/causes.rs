//! Cause and effect reversed across whole clauses: "neutrinos interact weakly because they
//! leave the Sun in two seconds" where the book says "neutrinos carry their energy out of the
//! Sun in two seconds, because they interact so weakly". Each sentence is cut at its one
//! causal connective (or the two halves of a correlative comparison, "the more A, the B")
//! into a cause side and an effect side; the answer is rejected when what it
//! gives as the effect is on the book's cause side (a reversal, or one of the book's
//! conditions made the cause of another).
//!
//! [`super::roles::roles`] reads a relation between two nearby terms; this reads the
//! clauses, so that long causes and effects are compared too.

use super::align::{account, same_word, Match};
use super::lexicon::Lexicon;
use super::swaps::{is_comparative, COMPARING};
use super::words::{Role, Sentence, Word};

/// Connectives with the effect before them ("B because A", "B, since A", "B due to A"); at
/// the start of a sentence the cause comes first ("Because A, B").
pub const EFFECT_FIRST: &[&str] = &["because", "since", "due"];
/// Connectives with the effect before them that only this module reads, in their phrase:
/// "B as a result of A" ("result in" puts the cause first, so the word alone says nothing).
/// "B by doing A" ("by reducing protein synthesis, a cell becomes resistant"): "by" before a
/// verb in "-ing" gives the means, the cause.
const EFFECT_FIRST_PHRASES: &[&str] = &["result", "by"];
/// Connectives with the cause before them ("A, so B", "A; therefore B", "A leads to B", "A
/// makes B congested", "A limits B", "A is the reason B").
const CAUSE_FIRST: &[&str] = &[
    "so",
    "therefore",
    "thus",
    "hence",
    "consequently",
    "causes",
    "cause",
    "caused",
    "responsible",
    "leads",
    "lead",
    "results",
    "makes",
    "make",
    "limits",
    "limit",
    "reason",
    "why",
];
/// Conditions, read only where a sentence has no connective above: "B if A", "B when A",
/// "If A, B".
pub const CONDITIONS: &[&str] = &["if", "when", "whenever"];

/// True when "so" at word `k` of `w` joins two clauses ("…; so, when light enters", "…, and
/// so B"): after a punctuation mark (two clause breaks, as "so" opens a clause of its own) or
/// "and", and not "so that"; not the "so" of degree ("so weakly", "is so much more massive").
pub(super) fn so_joins(w: &[Word], k: usize) -> bool {
    k > 0
        && (w[k].clause >= w[k - 1].clause + 2 || w[k - 1].lower == "and")
        && w.get(k + 1).is_none_or(|n| n.lower != "that")
}

/// Which side of a sentence's causal connective each word is on: `Some(true)` cause,
/// `Some(false)` effect, `None` the connective itself. `None` overall when the sentence has
/// no causal connective or more than one (which cause goes with which effect is then
/// unclear); a sentence with no connective and no condition is read as a correlative
/// comparison ([`correlative`]) if it is one. `lex` tells comparatives ("slower") from other
/// "-er" words.
fn sides(x: &Sentence, lex: Option<&Lexicon>) -> Option<Vec<Option<bool>>> {
    let w = &x.words;
    let is_connective = |k: usize, list: &[&str]| {
        let word = w[k].lower.as_str();
        if !list.contains(&word) {
            return false;
        }
        match word {
            // "so" where it joins clauses ([`so_joins`]); "due" only as "due to".
            "so" => so_joins(w, k),
            "due" => w.get(k + 1).is_some_and(|n| n.lower == "to"),
            // "B as a result of A"; "As a result, B" leaves its cause in another sentence.
            "result" => {
                k >= 2
                    && w[k - 1].lower == "a"
                    && w[k - 2].lower == "as"
                    && w.get(k + 1).is_some_and(|n| n.lower == "of")
            }
            "results" => w.get(k + 1).is_some_and(|n| n.lower == "in"),
            // "by reducing …": the means; not the passive's "by" ("is detected by the eye").
            "by" => w.get(k + 1).is_some_and(|n| {
                n.role == Role::Content && n.lower.len() > 5 && n.lower.ends_with("ing")
            }),
            // "A is responsible for B".
            "responsible" => w.get(k + 1).is_some_and(|n| n.lower == "for"),
            // "A (has) caused B", not the passive "B is caused by A".
            "caused" => {
                w.get(k + 1).is_none_or(|n| n.lower != "by")
                    && (k == 0
                        || !matches!(
                            w[k - 1].lower.as_str(),
                            "is" | "are" | "was" | "were" | "be" | "been" | "being"
                        ))
            }
            // Opening the sentence, these join it to the sentence before ("Thus, by reducing
            // …"), not two of its own clauses.
            "thus" | "therefore" | "hence" | "consequently" => k > 0,
            "leads" | "lead" => w.get(k + 1).is_some_and(|n| n.lower == "to"),
            "cause" => k > 0 && w[k - 1].role == Role::Content,
            // The verb after its subject ("A makes B"), not "makes up" or "make sure".
            "makes" | "make" => {
                k > 0
                    && (w[k - 1].role == Role::Content
                        || matches!(w[k - 1].lower.as_str(), "what" | "that" | "which"))
                    && w.get(k + 1)
                        .is_some_and(|n| n.lower != "up" && n.lower != "sure")
            }
            // The verb ("A limits B", "the factor that limits B"), not the noun ("the limits
            // of").
            "limits" | "limit" => {
                k > 0
                    && (w[k - 1].role == Role::Content
                        || matches!(w[k - 1].lower.as_str(), "that" | "which"))
                    && w.get(k + 1).is_some_and(|n| n.lower != "of")
            }
            // "A, which is why B"; not "why B happens".
            "why" => k > 0 && matches!(w[k - 1].lower.as_str(), "is" | "was"),
            // "A is the (main) reason (for) B"; not "the reason B happens is A".
            "reason" => w[..k]
                .iter()
                .rev()
                .take(3)
                .any(|x| matches!(x.lower.as_str(), "is" | "are" | "was" | "were")),
            _ => true,
        }
    };
    let find = |list: &[&str]| -> Vec<usize> {
        (0..w.len()).filter(|&k| is_connective(k, list)).collect()
    };
    let strong: Vec<usize> = find(EFFECT_FIRST)
        .into_iter()
        .chain(find(EFFECT_FIRST_PHRASES))
        .chain(find(CAUSE_FIRST))
        .collect();
    let (c, effect_first) = match strong.as_slice() {
        [c] => {
            let word = w[*c].lower.as_str();
            (
                *c,
                EFFECT_FIRST.contains(&word) || EFFECT_FIRST_PHRASES.contains(&word),
            )
        }
        [] => match find(CONDITIONS).as_slice() {
            [c] => (*c, true),
            [] => return correlative(x, lex),
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

/// The sides of a correlative comparison, "the more massive the merry-go-round is, the slower
/// it accelerates": the clause that opens with "the" and a comparative is the cause, the next
/// such clause (and what follows it) the effect. `None` without two such clauses.
fn correlative(x: &Sentence, lex: Option<&Lexicon>) -> Option<Vec<Option<bool>>> {
    let w = &x.words;
    let opens = |k: usize| {
        w[k].lower == "the"
            && (k == 0 || w[k - 1].clause != w[k].clause)
            && w.get(k + 1).is_some_and(|n| is_comparative(n, lex))
    };
    let mut at = (0..w.len()).filter(|&k| opens(k));
    let (first, second) = (at.next()?, at.next()?);
    let (cause, effect) = (w[first].clause, w[second].clause);
    // Where the effect clause speaks of the cause clause's subject by a pronoun ("the more
    // massive the merry-go-round is, the slower it accelerates"), that subject belongs to
    // both sides: only the comparison ("more massive") is the cause.
    let shared = w
        .iter()
        .any(|y| y.clause == effect && matches!(y.lower.as_str(), "it" | "they"));
    let comparison_end = if COMPARING.contains(&w[first + 1].lower.as_str()) {
        first + 2
    } else {
        first + 1
    };
    Some(
        w.iter()
            .enumerate()
            .map(|(k, y)| {
                if y.clause == cause && (!shared || k <= comparison_end) {
                    Some(true)
                } else if y.clause >= effect {
                    Some(false)
                } else {
                    None
                }
            })
            .collect(),
    )
}

/// True when the answer sentence `a` gives as its effect what source sentence `s` gives as a
/// cause: more of the content words on the answer's effect side are found (the same word, a
/// synonym or a derivation) on the source's cause side than on its effect side, at least one,
/// and the answer's cause side has a word placed in the source too. Words found on both
/// sides of the source say nothing and are skipped. `false` when either sentence has no
/// single causal connective.
pub fn reversed(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    let (Some(a_sides), Some(s_sides)) = (sides(a, lex), sides(s, lex)) else {
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
    super::roles::debug_roles(format_args!(
        "causes: answer (cause, effect) × source (same side, other side) {votes:?}"
    ));
    let [cause, effect] = votes;
    // The answer's effect is the source's cause: a reversal, or one of the source's
    // conditions made the cause of another ("the eyeball becomes elongated because the focus
    // falls in front of the retina" where both are conditions of myopia).
    effect[1] >= 1 && effect[1] > effect[0] && cause[0] + cause[1] >= 1
}

#[cfg(test)]
mod tests {
    use super::super::words::read;
    use super::sides;

    /// The cause and effect words of a sentence, as `sides` places them.
    fn placed(text: &str) -> (Vec<String>, Vec<String>) {
        let x = read(text);
        let sides = sides(&x, None).expect("one causal connective");
        let (mut cause, mut effect) = (Vec::new(), Vec::new());
        for (w, side) in x.words.iter().zip(sides) {
            match side {
                Some(true) => cause.push(w.lower.clone()),
                Some(false) => effect.push(w.lower.clone()),
                None => {}
            }
        }
        (cause, effect)
    }

    #[test]
    fn makes_puts_the_cause_first_but_makes_up_is_no_connective() {
        let (cause, effect) = placed("Congested nasal passages make flavor weaker.");
        assert_eq!(cause, ["congested", "nasal", "passages"]);
        assert_eq!(effect, ["flavor", "weaker"]);
        assert!(sides(&read("Water makes up most of the cell."), None).is_none());
        // "is what makes": the cause before it, as "which is why".
        let (cause, effect) = placed("The charge is what makes the groups repel.");
        assert_eq!(cause, ["the", "charge", "is", "what"]);
        assert_eq!(effect, ["the", "groups", "repel"]);
        let (cause, effect) = placed("The wire gains energy, which is why wires get hot.");
        assert_eq!(cause, ["the", "wire", "gains", "energy", "which", "is"]);
        assert_eq!(effect, ["wires", "get", "hot"]);
    }

    #[test]
    fn as_a_result_of_puts_the_effect_first_but_result_in_is_no_connective() {
        let (cause, effect) =
            placed("The heart muscle is asymmetrical as a result of the distance blood travels.");
        assert_eq!(
            effect,
            ["the", "heart", "muscle", "is", "asymmetrical", "as", "a"]
        );
        assert_eq!(cause, ["of", "the", "distance", "blood", "travels"]);
        assert!(sides(&read("The discovery would result in a new physics."), None).is_none());
    }
}
