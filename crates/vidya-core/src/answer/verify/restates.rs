//! Whether a tutor's sentence restates one sentence of the book, in answer mode.
//!
//! The meaning check ([`super::verify`]) aligns an answer sentence to the one or two source
//! sentences it restates and lets a paraphrase through when enough of its words are the
//! source's. Over the stop-57 student sets, most false tutor sentences that passed it were
//! built from two book sentences ("the value of g on Mars is 9.80 m/s²": "Mars" from one,
//! "9.80 m/s²" from another; "the cells of leaf epidermis contain chloroplasts": the book
//! says only the guard cells do) or carried a word of the question or of no sentence at all
//! ("plants go deep in the soil", where the book says permafrost makes that impossible). A
//! student cannot tell such a sentence from the book's, shown under the book's quotes.
//!
//! So in answer mode the tutor's words are held to more than the check: each statement
//! shown must restate **one** sentence of the passages — every content word and number of
//! it in that one sentence, as the same word or stem, a synonym, derivation or more general
//! word ([`super::align::account`], [`super::lexicon`]). What it may do is reword and shorten
//! one sentence of the book; what it may not do is join two, or add. The quotes above it
//! give the rest. Socratic hints and quizzes are not held to it (a guiding question need not
//! restate the book).
//!
//! Measured on the graded answers of the eight earlier student sets (docs/evaluation.md, "The tutor
//! restates one sentence"): the rule takes the tutor's words off most false ones and off
//! some true ones, and the quotes answer those questions at least as often correctly.

use super::align::{account, same_term, Match};
use super::lexicon::Lexicon;
use super::quote_sentences;
use super::words::{self, Role, Sentence};

/// Longest source sentence a statement may restate (words).
pub const MAX_SOURCE_WORDS: usize = 60;

/// Longest run of text without a full stop at its end that is still read as a sentence
/// (words).
pub const MAX_UNENDED_WORDS: usize = 25;

/// True when `piece` (one sentence of a quote, as `quote_sentences` splits it) is a sentence a statement
/// may restate: at most [`MAX_SOURCE_WORDS`] words, and at most [`MAX_UNENDED_WORDS`] unless
/// it ends in a full stop, "!", "?" or "।". A longer piece is a chapter's key-terms list or
/// another run of text without full stops ("stroma … where the light-independent reactions
/// of photosynthesis take place thylakoid … membrane-bound structure … where the
/// light-dependent reactions … take place"), where a mix of its terms finds all its words.
/// Not fitted: the longest running-text sentences of the two OpenStax books are about 60
/// words, and a key-terms entry with the next one runs past 25.
pub fn reads_as_a_sentence(piece: &str) -> bool {
    let n = piece.split_whitespace().count();
    let ended = piece
        .trim_end()
        .trim_end_matches(['"', '”', '’', ')'])
        .ends_with(['.', '!', '?', '।']);
    n <= MAX_SOURCE_WORDS && (ended || n <= MAX_UNENDED_WORDS)
}

/// The words of `statement` (one sentence, without its `[n]` marks) that keep it from
/// restating a single sentence of `sources` (the passages the model was given), from the
/// sentence that accounts for most of its words; `None` when one sentence accounts for all
/// of its content words and numbers, or the statement is not judged: a Devanagari statement
/// (a Hindi answer the student chose) is judged as the English words the glossary reads it
/// as ([`super::hindi::english_view`]) when at least [`super::MIN_KNOWN_SHARE`] of it is
/// read, and not judged otherwise (the embedding check alone holds it, as in
/// [`super::verify`]); statements in other scripts, and those with no content word or number,
/// are not judged. Cost: one word alignment ([`account`]) per source sentence, for each
/// statement, while the model writes the next one (not timed on its own; the first word shown
/// is timed by `vidya eval --answers`).
pub fn beyond_one_sentence(statement: &str, sources: &[&str]) -> Option<Vec<String>> {
    beyond_one_sentence_with(statement, sources, Lexicon::get())
}

/// [`beyond_one_sentence`] with the lexicon given (`None`: the same word or stem only).
pub fn beyond_one_sentence_with(
    statement: &str,
    sources: &[&str],
    lex: Option<&Lexicon>,
) -> Option<Vec<String>> {
    // A Hindi answer (the student chose Hindi) is judged as the English words the glossary
    // reads it as, when enough of it is read.
    let a = super::hindi::read_in_english(statement, sources)?;
    let judged: Vec<usize> = (0..a.words.len())
        .filter(|k| matches!(a.words[*k].role, Role::Content | Role::Number))
        .collect();
    if judged.is_empty() {
        return None;
    }
    let mut fewest: Option<Vec<String>> = None;
    for p in sources {
        for s in quote_sentences(p)
            .filter(|s| reads_as_a_sentence(s))
            .map(words::read)
        {
            let left = unaccounted(&a, &judged, &s, lex);
            if left.is_empty() {
                return None;
            }
            if fewest.as_ref().is_none_or(|f| left.len() < f.len()) {
                fewest = Some(left);
            }
        }
    }
    Some(fewest.unwrap_or_else(|| judged.iter().map(|k| a.words[*k].lower.clone()).collect()))
}

/// The words of `a` at `judged` that `s` does not account for: a content word with no match
/// ([`account`]), a number with no number of the same value.
fn unaccounted(a: &Sentence, judged: &[usize], s: &Sentence, lex: Option<&Lexicon>) -> Vec<String> {
    let matches = account(a, s, lex);
    judged
        .iter()
        .filter(|k| {
            let w = &a.words[**k];
            match w.role {
                Role::Number => !s.words.iter().any(|x| same_term(w, x)),
                _ => matches[**k] == Match::None,
            }
        })
        .map(|k| a.words[*k].lower.clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARS: &[&str] = &[
        "The acceleration due to gravity near Earth's surface is 9.80 m/s². On Mars, \
         objects fall more slowly because the planet has less mass.",
    ];

    #[test]
    fn a_reworded_sentence_of_the_book_restates_it() {
        let sources = &["Osmosis is the movement of water through a semipermeable membrane."];
        assert_eq!(
            beyond_one_sentence(
                "Osmosis is the movement of water through a semipermeable membrane.",
                sources
            ),
            None
        );
        // Shortened: a part of the sentence.
        assert_eq!(
            beyond_one_sentence("Osmosis is the movement of water.", sources),
            None
        );
    }

    #[test]
    fn a_sentence_joined_from_two_is_not_one() {
        // "Mars" from one sentence, "9.80 m/s²" from the other.
        let left = beyond_one_sentence(
            "The acceleration due to gravity on Mars is 9.80 m/s².",
            MARS,
        );
        assert!(left.is_some(), "joined from two sentences: {left:?}");
        // Each half alone restates one.
        assert_eq!(
            beyond_one_sentence(
                "Near Earth's surface the acceleration due to gravity is 9.80 m/s².",
                MARS
            ),
            None
        );
    }

    #[test]
    fn a_word_of_no_sentence_is_named() {
        let sources = &[
            "In the Arctic tundra, permafrost makes it impossible for plants \
                         to grow deep roots.",
        ];
        let left = beyond_one_sentence(
            "In the Arctic tundra, plants go deep in the soil through their root systems.",
            sources,
        )
        .expect("not a restatement");
        assert!(left.contains(&"soil".to_string()), "{left:?}");
    }

    #[test]
    fn a_number_must_be_the_sentences_own() {
        let sources = &[
            "The cell cycle of a typical human cell takes about 24 hours. \
                         Interphase takes up about 90 percent of the cell cycle.",
        ];
        assert!(beyond_one_sentence(
            "Interphase takes up about 24 percent of the cycle.",
            sources
        )
        .is_some());
        assert_eq!(
            beyond_one_sentence(
                "Interphase takes up about 90 percent of the cell cycle.",
                sources
            ),
            None
        );
    }

    /// Biology 2e (OpenStax), p. 154 and the key terms of chapter 8: the 0.5B model put the
    /// light-independent reactions in the thylakoid membrane; only the key-terms list, read as
    /// one sentence, holds all of its words.
    #[test]
    fn a_key_terms_list_is_not_a_sentence_to_restate() {
        let sources = &[
            "Light-dependent reactions, which take place in the thylakoid membrane, use light \
             energy to make ATP and NADPH.",
            "stroma fluid-filled space surrounding the grana inside a chloroplast where the \
             light-independent reactions of photosynthesis take place thylakoid disc-shaped, \
             membrane-bound structure inside a chloroplast where the light-dependent reactions \
             of photosynthesis take place; stacks of thylakoids are called grana thylakoid lumen \
             aqueous space bound by a thylakoid membrane where protons accumulate during \
             light-driven electron transport",
        ];
        let left = beyond_one_sentence(
            "The light-independent reactions take place in the thylakoid membrane.",
            sources,
        );
        assert_eq!(left, Some(vec!["independent".to_string()]));
    }

    /// Biology 2e (OpenStax), p. 35 and 872: the Hindi answer of the sixth student set took
    /// "8" from "eight percent of weight" for the pH inside cells (the book: 6.8); the setup
    /// wizard's Hindi answer restates one sentence of the sample chapter.
    #[test]
    fn a_hindi_answer_is_judged_as_its_english_reading() {
        let sources = &[
            "The pH inside cells (6.8) and the pH in the blood (7.4) are both very close to \
             neutral.",
            "Blood is 20 percent of a person’s extracellular fluid and eight percent of weight.",
        ];
        let left = beyond_one_sentence("Himāra खून का pH 7.4 होता है, और अंदर के 8% होता है।", sources);
        assert_eq!(left, Some(vec!["8".to_string()]));
        let sample = &[
            "In the light-dependent reactions, energy from sunlight is absorbed by \
                        chlorophyll and that energy is converted into stored chemical energy.",
        ];
        assert_eq!(
            beyond_one_sentence(
                "प्रकाश पर निर्भर अभिक्रियाओं में क्लोरोफिल सूर्य के प्रकाश की ऊर्जा सोखकर उसे रासायनिक ऊर्जा में बदलता है।",
                sample
            ),
            None
        );
    }

    #[test]
    fn unreadable_and_wordless_sentences_are_not_judged() {
        // Tamil: no reading of it.
        assert_eq!(
            beyond_one_sentence("ஒளிச்சேர்க்கை என்பது ஒரு செயல்முறை.", MARS),
            None
        );
        assert_eq!(beyond_one_sentence("It is so.", MARS), None);
    }
}
