//! Whether the reason the tutor's first statement gives for a "why" (or the means it gives
//! for a "how") is one the book gives.
//!
//! A small model answers "why are the four cells made in meiosis genetically different" with
//! "Because they have half the number of chromosomes as the parent cell": every word is the
//! book's, and the sentence check finds nothing against it, but the book never gives that as
//! the reason (it gives crossover and the random alignment of homologs). The same with a
//! means: "the first land plants brought down carbon dioxide … through photosynthesis" where
//! the book says their roots broke into rock. What the student reads as the answer is then a
//! link the book does not make. The book makes it where one of its sentences (or two in a
//! row, the second carrying the first on: "This is why …") holds the reason, says it is one (a causal word: "because", "so", "therefore",
//! "allows", "which is why", …; for a means, holding it is enough) and is about what is
//! explained.

use super::align::{in_any, same_word};
use super::words::{self, Role, Sentence, Word};
use super::{quote_sentences, FRAGMENT_QUESTION_SHARE};
use crate::text::script::Script;

/// Words that ask for a reason: "why", its SMS spelling "y", Hinglish "kyu"/"kyon"/"kyun"/
/// "kyo" (and "how come", read as two words). Only Latin-script questions are judged.
const WHY: &[&str] = &["why", "y", "kyu", "kyon", "kyun", "kyo"];

/// Words of a book sentence that say it gives a reason.
const CAUSAL: &[&str] = &[
    "because",
    "since",
    "due",
    "so",
    "therefore",
    "thus",
    "hence",
    "result",
    "results",
    "resulting",
    "cause",
    "causes",
    "caused",
    "causing",
    "lead",
    "leads",
    "led",
    "reason",
    "why",
    "allow",
    "allows",
    "allowed",
    "allowing",
    "enable",
    "enables",
    "enabled",
    "explains",
    "explained",
    "responsible",
    "consequently",
];

/// First words of a sentence that carries on the one before it as its cause or effect.
const GOES_ON: &[&str] = &[
    "this",
    "that",
    "these",
    "therefore",
    "thus",
    "hence",
    "so",
    "consequently",
    "because",
    "as",
];

/// Least share of the reason's words that a book sentence (or two in a row) must hold to be
/// the one that gives it, and of the explained thing's words to be about it: the same three
/// of four as [`FRAGMENT_QUESTION_SHARE`] (not fitted).
const REASON_SHARE: f32 = FRAGMENT_QUESTION_SHARE;
/// See [`REASON_SHARE`].
const EXPLAINED_SHARE: f32 = FRAGMENT_QUESTION_SHARE;

/// True when `statement` (the tutor's first statement, without its `[n]` marks) answers a
/// why-question with a reason ("because …", "since …", "due to …"), or a how-question with a
/// means ("through …", "by …-ing"), that no sentence of `sources` (or two in a row of one
/// source, the second opening with a word that carries the first on: [`GOES_ON`]) gives as
/// a reason: such a window holds at least [`REASON_SHARE`] of the
/// reason's content words ([`same_word`]), for a why-question a causal word ([`CAUSAL`]; a
/// book gives a means in many ways: "As the roots … infiltrate rock, carbon dioxide was drawn
/// out"), and at least [`EXPLAINED_SHARE`] of the explained thing's content words (the
/// statement's words before its connective; for "Because A, B" the words of B, or the
/// question's that the sources have when there is no B). Statements and questions in another
/// script than Latin, and statements with no connective, are not judged (false).
pub fn gives_a_reason_the_book_does_not(question: &str, statement: &str, sources: &[&str]) -> bool {
    let q = words::read(question);
    let a = words::read(statement);
    if q.script != Some(Script::Latin) || a.script != Some(Script::Latin) {
        return false;
    }
    let lower: Vec<&str> = q.words.iter().map(|w| w.lower.as_str()).collect();
    let why =
        lower.iter().any(|w| WHY.contains(w)) || lower.windows(2).any(|p| p == ["how", "come"]);
    let how = !why && lower.contains(&"how");
    if !why && !how {
        return false;
    }
    let Some(at) = connective(&a, why) else {
        return false;
    };
    let meaning = |w: &&Word| matches!(w.role, Role::Content | Role::Number);
    // "B because A": A is the reason, B what it explains. "Because A, B": the reason is A's
    // clause, and B (or, when there is none, the question) what it explains.
    let after = &a.words[at + 1..];
    let (reason, mut explained): (Vec<&Word>, Vec<&Word>) = if at == 0 {
        let clause = after.first().map(|w| w.clause);
        (
            after
                .iter()
                .filter(|w| Some(w.clause) == clause)
                .filter(meaning)
                .collect(),
            after
                .iter()
                .filter(|w| Some(w.clause) != clause)
                .filter(meaning)
                .collect(),
        )
    } else {
        (
            after.iter().filter(meaning).collect(),
            a.words[..at].iter().filter(meaning).collect(),
        )
    };
    if reason.is_empty() {
        return false;
    }
    let book: Vec<Sentence> = sources.iter().map(|p| words::read(p)).collect();
    if explained.is_empty() {
        // The question's words the book has (not its SMS spellings and typos).
        explained = q
            .words
            .iter()
            .filter(meaning)
            .filter(|w| in_any(w, &book))
            .collect();
    }
    let passages: Vec<Vec<Sentence>> = sources
        .iter()
        .map(|p| quote_sentences(p).map(words::read).collect())
        .collect();
    // Each sentence, and each sentence with the next where the next goes on from it ("…
    // trapped in the rock. This reduced the levels of carbon dioxide"; "Therefore …"): a
    // reason told over two sentences. Two neighbours that only sit side by side are not one
    // reason.
    let goes_on = |s: &Sentence| {
        s.words
            .first()
            .is_some_and(|w| GOES_ON.contains(&w.lower.as_str()))
    };
    let windows: Vec<&[Sentence]> = passages
        .iter()
        .flat_map(|sentences| {
            (0..sentences.len()).flat_map(move |i| {
                let pair = sentences.get(i + 1).is_some_and(goes_on);
                std::iter::once(&sentences[i..=i]).chain(pair.then(|| &sentences[i..i + 2]))
            })
        })
        .collect();
    let share = |ws: &[&Word], window: &[Sentence]| {
        let held = ws
            .iter()
            .filter(|w| {
                window
                    .iter()
                    .any(|s| s.words.iter().any(|x| same_word(w, x)))
            })
            .count();
        held as f32 / ws.len().max(1) as f32
    };
    !windows.iter().any(|window| {
        share(&reason, window) >= REASON_SHARE
            && (explained.is_empty() || share(&explained, window) >= EXPLAINED_SHARE)
            && (how
                || window
                    .iter()
                    .any(|s| s.words.iter().any(|x| CAUSAL.contains(&x.lower.as_str()))))
    })
}

/// Where the statement's reason begins: "because", "since" or "due to" for a why-question;
/// also "through", "via" or "by" before a word in "-ing" for a how-question (its means). The
/// first such word after the statement's first word, or its first word ("Because they …").
fn connective(a: &Sentence, why: bool) -> Option<usize> {
    let w = &a.words;
    (0..w.len()).find(|&k| {
        let next = w.get(k + 1);
        match w[k].lower.as_str() {
            "because" => true,
            "since" => k > 0 || why,
            "due" => next.is_some_and(|n| n.lower == "to"),
            "through" | "via" => !why,
            "by" => !why && next.is_some_and(|n| n.lower.ends_with("ing")),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Biology 2e p. 209, 211 and 213 (OpenStax, CC BY 4.0); the 0.5B model's answer to a
    /// new student question at stop 56 (graded wrong).
    const MEIOSIS: &str = "In meiosis, there are two rounds of nuclear division resulting in four nuclei and usually four daughter cells, each with half the number of chromosomes as the parent cell. Meiosis generates variation in the daughter nuclei during crossover in prophase I as well as during the random alignment of tetrads at metaphase I. The cells that are produced by meiosis are genetically unique. The process of meiosis produces unique reproductive cells called gametes, which have half the number of chromosomes as the parent cell.";

    #[test]
    fn a_reason_the_book_gives_for_something_else_is_caught() {
        let q = "why r the 4 cells made in meiosis all genetically difrent";
        assert!(gives_a_reason_the_book_does_not(
            q,
            "Because they have half the number of chromosomes as the parent cell.",
            &[MEIOSIS]
        ));
        // The book's reason, with its causal word in the same sentence.
        let book = "The cells produced are genetically unique because of the random assortment of paternal and maternal homologs and because of the recombination that occurs during crossover.";
        assert!(!gives_a_reason_the_book_does_not(
            q,
            "They are genetically different because of the random assortment of homologs and the recombination during crossover.",
            &[book]
        ));
        // Not a why- or how-question: not judged.
        assert!(!gives_a_reason_the_book_does_not(
            "what is meiosis",
            "Meiosis gives cells with half the number of chromosomes.",
            &[MEIOSIS]
        ));
    }

    /// Biology 2e p. 606 and p. 162; stop 56's third set of new questions (graded wrong).
    #[test]
    fn a_means_taken_from_another_passage_is_caught() {
        let sources = [
            "During the early Paleozoic, the amount of carbon dioxide in the atmosphere was much greater than it is today. As the roots of land plants began to infiltrate rock and soil began to form, carbon dioxide was drawn out of the atmosphere and became trapped in the rock.",
            "Because stomata must open to allow for the uptake of CO2, water escapes from the leaf during active photosynthesis.",
        ];
        let q = "how did the first land plants bring down co2 in the air in paleozoic times";
        assert!(gives_a_reason_the_book_does_not(
            q,
            "The first land plants brought down carbon dioxide in the air in paleozoic times through photosynthesis.",
            &sources
        ));
        assert!(!gives_a_reason_the_book_does_not(
            q,
            "The first land plants drew carbon dioxide out of the atmosphere by infiltrating rock with their roots, so that it became trapped in the rock.",
            &sources
        ));
    }

    /// Biology 2e p. 550: a reason the book gives with "because" is kept.
    #[test]
    fn a_reason_the_book_gives_is_kept() {
        let src = "Ferns are popular house plants because they thrive in low light.";
        assert!(!gives_a_reason_the_book_does_not(
            "why r ferns good for keeping inside the house",
            "Because they thrive in low light, ferns are well suited as house plants.",
            &[src]
        ));
    }
}
