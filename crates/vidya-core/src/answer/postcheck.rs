//! Deterministic checks of a model's answer before the student sees it.
//!
//! 1. **Instruction echo**: the answer repeats the prompt (≥ 30% of its 6-word shingles occur
//!    in the system prompt, or it copies the `Sources:` block) → replaced by the extractive
//!    answer.
//! 2. **Citations**: every `[n]` (also `[1, 2]`) must name a source that was given; invalid
//!    numbers are removed, the rest of the answer is kept; an answer left without any valid
//!    citation is flagged `uncited`.
//! 3. **Refusals**: a refusal sentence glued to a cited answer is stripped; an answer that is
//!    only a refusal becomes the one exact refusal sentence of its language.

use super::prompt;
use crate::text::split_sentences;
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use std::sync::OnceLock;

/// Share of an answer's 6-word shingles found in the system prompt above which it is an echo.
pub const ECHO_SHARE: f64 = 0.3;
const SHINGLE: usize = 6;

/// What the checks decided (reported in `vidya ask --json` as `postcheck` and in the trace).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct PostCheck {
    /// Citation numbers removed because no such source was given.
    pub removed_citations: Vec<usize>,
    /// True when no valid citation is left (the answer is shown with a warning).
    pub uncited: bool,
    /// True when the answer echoed the prompt and was replaced by the extractive answer.
    pub echo_replaced: bool,
    /// `stripped` (refusal removed from a real answer) or `normalized` (answer was a refusal).
    pub refusal: Option<String>,
}

/// The checked answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    /// Show this text.
    Answer(String),
    /// The answer is the refusal sentence.
    Refusal(String),
    /// Show the extractive answer instead.
    UseExtractive,
}

fn citation_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\s?\[(\d+(?:\s*[,;]\s*\d+)*)\]").expect("valid regex"))
}

fn shingles(text: &str) -> HashSet<String> {
    let words: Vec<String> = text
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.windows(SHINGLE).map(|w| w.join(" ")).collect()
}

/// True when `answer` repeats the prompt's instructions or source block.
pub fn is_echo(answer: &str, system_prompt: &str) -> bool {
    if answer.contains("Sources:\n[1] (") || answer.trim_start().starts_with("You are Vidya") {
        return true;
    }
    let a = shingles(answer);
    if a.is_empty() {
        return false;
    }
    let s = shingles(system_prompt);
    let shared = a.iter().filter(|x| s.contains(*x)).count();
    shared as f64 >= ECHO_SHARE * a.len() as f64
}

/// Removes citation numbers outside `1..=n_sources`; returns the new text and the removed ones.
pub fn fix_citations(answer: &str, n_sources: usize) -> (String, Vec<usize>) {
    let mut removed = Vec::new();
    let out = citation_re().replace_all(answer, |caps: &regex::Captures| {
        let lead = if caps[0].starts_with(char::is_whitespace) {
            &caps[0][..1]
        } else {
            ""
        };
        let nums: Vec<usize> = caps[1]
            .split([',', ';'])
            .filter_map(|n| n.trim().parse().ok())
            .collect();
        let keep: Vec<String> = nums
            .iter()
            .filter(|n| (1..=n_sources).contains(*n))
            .map(|n| n.to_string())
            .collect();
        removed.extend(nums.iter().filter(|n| !(1..=n_sources).contains(*n)));
        if keep.is_empty() {
            String::new()
        } else {
            format!("{lead}[{}]", keep.join(", "))
        }
    });
    (out.into_owned(), removed)
}

/// Numbers of the valid citations in `answer`.
pub fn cited(answer: &str, n_sources: usize) -> Vec<usize> {
    let mut out: Vec<usize> = citation_re()
        .captures_iter(answer)
        .flat_map(|c| {
            c[1].split([',', ';'])
                .filter_map(|n| n.trim().parse::<usize>().ok())
                .collect::<Vec<_>>()
        })
        .filter(|n| (1..=n_sources).contains(n))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// True when `sentence` says the sources do not answer (in any of Vidya's languages, or the
/// common English phrasings small models use).
pub fn is_refusal(sentence: &str) -> bool {
    let s = sentence.trim().to_lowercase();
    if prompt::languages().values().any(|l| {
        s.contains(
            &l.refusal
                .to_lowercase()
                .trim_end_matches(['.', '।'])
                .to_string(),
        )
    }) {
        return true;
    }
    [
        "could not find this",
        "couldn't find this",
        "cannot find this",
        "can't find this",
        "not in the sources",
        "not in your textbook",
        "the sources do not",
        "the sources don't",
        "sources do not contain",
        "sources do not mention",
        "i don't know",
        "i do not know",
        "i cannot answer",
        "i can't answer",
    ]
    .iter()
    .any(|p| s.contains(p))
}

/// Runs all checks on a model's `answer` given `n_sources` sources, the `system_prompt` it was
/// given and the answer language `lang`.
pub fn check(
    answer: &str,
    n_sources: usize,
    system_prompt: &str,
    lang: &str,
) -> (Checked, PostCheck) {
    let mut report = PostCheck::default();
    if is_echo(answer, system_prompt) {
        report.echo_replaced = true;
        return (Checked::UseExtractive, report);
    }
    let (fixed, removed) = fix_citations(answer, n_sources);
    report.removed_citations = removed;
    let spans = split_sentences(&fixed);
    let refusals: Vec<bool> = spans.iter().map(|s| is_refusal(s.slice(&fixed))).collect();
    if refusals.iter().any(|r| *r) {
        let kept: Vec<&str> = spans
            .iter()
            .zip(&refusals)
            .filter(|(_, r)| !**r)
            .map(|(s, _)| s.slice(&fixed))
            .collect();
        let rest = kept.join(" ");
        if !kept.is_empty() && !cited(&rest, n_sources).is_empty() {
            report.refusal = Some("stripped".into());
            return (Checked::Answer(rest), report);
        }
        report.refusal = Some("normalized".into());
        return (Checked::Refusal(prompt::refusal(lang).to_string()), report);
    }
    report.uncited = cited(&fixed, n_sources).is_empty();
    (Checked::Answer(fixed.trim().to_string()), report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invented_citation_is_removed_rest_kept() {
        let (c, r) = check(
            "Light energy is captured by chlorophyll [1]. ATP and NADPH are made [2][7]. Water is split [1, 7].",
            2,
            "system",
            "en",
        );
        assert_eq!(
            c,
            Checked::Answer("Light energy is captured by chlorophyll [1]. ATP and NADPH are made [2]. Water is split [1].".into())
        );
        assert_eq!(r.removed_citations, vec![7, 7]);
        assert!(!r.uncited);
    }

    #[test]
    fn only_invalid_citations_flags_uncited() {
        let (c, r) = check("Plants are green [9].", 3, "system", "en");
        assert_eq!(c, Checked::Answer("Plants are green.".into()));
        assert!(r.uncited);
        let (_, r) = check("Plants are green.", 3, "system", "en");
        assert!(r.uncited);
    }

    #[test]
    fn echoed_prompt_is_replaced() {
        let system = prompt::build(prompt::Mode::Answer, "en", "q", &[]).system;
        let echo = "Use only facts written in the sources. Never add facts from your own memory. Cite the source of every fact as [n], where n is the source's number.";
        let (c, r) = check(echo, 2, &system, "en");
        assert_eq!(c, Checked::UseExtractive);
        assert!(r.echo_replaced);
        let (c, _) = check(
            "Sources:\n[1] (Biology 2e, Chapter 8, page 154) Photosynthesis",
            2,
            &system,
            "en",
        );
        assert_eq!(c, Checked::UseExtractive);
        // A normal answer sharing a few words with the rules is not an echo.
        let (c, _) = check(
            "Chlorophyll absorbs light energy in the thylakoid membrane [1].",
            2,
            &system,
            "en",
        );
        assert!(matches!(c, Checked::Answer(_)));
    }

    #[test]
    fn refusal_glued_to_answer_is_stripped() {
        let (c, r) = check(
            "The light-dependent reactions make ATP and NADPH [1]. However, I could not find this in your textbook.",
            2,
            "system",
            "en",
        );
        assert_eq!(
            c,
            Checked::Answer("The light-dependent reactions make ATP and NADPH [1].".into())
        );
        assert_eq!(r.refusal.as_deref(), Some("stripped"));
    }

    #[test]
    fn genuine_refusal_becomes_the_one_sentence() {
        let (c, r) = check(
            "Sorry, the sources do not say who won the match. I don't know.",
            2,
            "system",
            "hi",
        );
        assert_eq!(
            c,
            Checked::Refusal("मुझे यह आपकी पाठ्यपुस्तक में नहीं मिला।".into())
        );
        assert_eq!(r.refusal.as_deref(), Some("normalized"));
        let (c, _) = check("मुझे यह आपकी पाठ्यपुस्तक में नहीं मिला।", 2, "system", "hi");
        assert!(matches!(c, Checked::Refusal(_)));
    }
}
