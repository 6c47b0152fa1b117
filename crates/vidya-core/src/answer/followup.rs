//! Follow-up questions: "and where does it happen?" is turned into a standalone query.
//!
//! The model rewrites the question from the conversation (`prompts/rewrite.j2`); a guard keeps
//! the rewrite only when it is short and adds no topic the conversation never mentioned.
//! Otherwise (or with no model) the query is the student's own words: the previous question
//! followed by this one.

use super::prompt::HistoryTurn;
use crate::text::Tokenizer;
use std::collections::HashSet;

/// Words that point back into the conversation (English, Hindi, Marathi, Kannada, Telugu,
/// Tamil pronouns and connectives).
const ANAPHORA: &[&str] = &[
    "it",
    "its",
    "they",
    "them",
    "their",
    "this",
    "that",
    "these",
    "those",
    "he",
    "she",
    "his",
    "her",
    "other",
    "same",
    "there",
    "also",
    "and",
    "why",
    "how",
    "यह",
    "वह",
    "इसका",
    "उसका",
    "इसके",
    "उसके",
    "इसमें",
    "उसमें",
    "ये",
    "वे",
    "इन",
    "उन",
    "दूसरा",
    "दूसरे",
    "और",
    "हे",
    "ते",
    "याचा",
    "त्याचा",
    "त्याची",
    "याची",
    "आणि",
    "ಇದು",
    "ಅದು",
    "ಅವು",
    "ఇది",
    "అది",
    "అవి",
    "இது",
    "அது",
    "அவை",
];

/// Rewrites longer than this many words (or than twice the question plus 12) are refused.
pub const MAX_REWRITE_WORDS: usize = 40;

/// True when `question`, asked after `history_len` turns, probably depends on them: it has
/// a pointing word or fewer than 3 searchable terms.
pub fn needs_rewrite(question: &str, history_len: usize, tokenizer: &Tokenizer) -> bool {
    if history_len == 0 {
        return false;
    }
    let lower = question.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric() && !('\u{0900}'..='\u{0DFF}').contains(&c))
        .filter(|w| !w.is_empty())
        .collect();
    words.iter().any(|w| ANAPHORA.contains(w)) || tokenizer.terms(question).len() < 3
}

/// True when the model's `rewrite` may replace `question`: one line, not long, and every
/// searchable term already in the question or the conversation.
pub fn accept(
    rewrite: &str,
    question: &str,
    history: &[HistoryTurn],
    tokenizer: &Tokenizer,
) -> bool {
    let r = rewrite.trim();
    // A rewrite is one question: not several lines, not an answer with citation marks.
    if r.is_empty() || r.lines().count() > 1 || !super::postcheck::cited(r, usize::MAX).is_empty() {
        return false;
    }
    let words = r.split_whitespace().count();
    let q_words = question.split_whitespace().count();
    if words > MAX_REWRITE_WORDS || words > 2 * q_words + 12 {
        return false;
    }
    let mut known: HashSet<String> = tokenizer.terms(question).into_iter().collect();
    for t in history {
        known.extend(tokenizer.terms(&t.question));
        known.extend(tokenizer.terms(&t.answer));
    }
    tokenizer.terms(r).iter().all(|t| known.contains(t))
}

/// The student's own words: what was searched for the last turn (its question, or that
/// question's accepted rewrite, so the topic carries over several follow-ups), then this
/// question.
pub fn fallback(question: &str, history: &[HistoryTurn]) -> String {
    match history.last() {
        Some(t) => {
            let previous = if t.query.trim().is_empty() {
                &t.question
            } else {
                &t.query
            };
            format!("{} {}", previous.trim(), question.trim())
        }
        None => question.trim().to_string(),
    }
}

/// Cleans a model's rewrite: first line, quotes and a "Rewritten question:" label removed.
pub fn clean(rewrite: &str) -> String {
    let line = rewrite.trim().lines().next().unwrap_or("").trim();
    let line = line
        .split_once(':')
        .filter(|(label, _)| {
            label.to_lowercase().contains("question") && label.split_whitespace().count() <= 3
        })
        .map(|(_, rest)| rest)
        .unwrap_or(line);
    line.trim()
        .trim_matches(['"', '“', '”', '\''])
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist() -> Vec<HistoryTurn> {
        vec![HistoryTurn {
            question: "What happens in glycolysis?".into(),
            query: "What happens in glycolysis?".into(),
            answer: "Glycolysis splits glucose into two pyruvate molecules in the cytoplasm [1]."
                .into(),
        }]
    }

    #[test]
    fn detects_follow_ups() {
        let t = Tokenizer::new();
        assert!(needs_rewrite("Where does it take place?", 1, &t));
        assert!(needs_rewrite("और इसका कारण?", 1, &t));
        assert!(!needs_rewrite("Where does it take place?", 0, &t));
        assert!(!needs_rewrite(
            "Describe photosynthesis in chloroplast membranes",
            1,
            &t
        ));
    }

    #[test]
    fn guard() {
        let t = Tokenizer::new();
        let h = hist();
        assert!(accept(
            "Where does glycolysis take place?",
            "Where does it take place?",
            &h,
            &t
        ));
        assert!(!accept(
            "Where does glycolysis take place in quantum physics?",
            "Where does it take place?",
            &h,
            &t
        ));
        assert!(!accept(
            &"glycolysis ".repeat(50),
            "Where does it take place?",
            &h,
            &t
        ));
        assert!(!accept(
            "Glycolysis splits glucose [1].",
            "Where does it take place?",
            &h,
            &t
        ));
        assert!(!accept(
            "Where?\nAnd why?",
            "Where does it take place?",
            &h,
            &t
        ));
        assert_eq!(
            fallback("Where does it take place?", &h),
            "What happens in glycolysis? Where does it take place?"
        );
        assert_eq!(
            clean("Rewritten question: \"Where does glycolysis happen?\"\nextra"),
            "Where does glycolysis happen?"
        );
    }
}
