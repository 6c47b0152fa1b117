//! Deterministic checks of a model's answer before the student sees it.
//!
//! 1. **Instruction echo**: the answer repeats the prompt (≥ 30% of its 6-word shingles occur
//!    in the system prompt, or it copies the `Sources:` block) → replaced by the extractive
//!    answer.
//! 2. **Citations**: every `[n]` (also `[1, 2]`) must name a source that was given; invalid
//!    numbers are removed, the rest of the answer is kept; an answer left without any valid
//!    citation is flagged `uncited`.
//! 3. **Refusals**: a refusal sentence glued to an answer is stripped (the rest is then
//!    checked against the sources, [`super::grounding`]); an answer that is only a refusal
//!    becomes the one exact refusal sentence of its language.
//! 4. **Rules echo**: a sentence that repeats a line of the prompt's rules ("Two to four
//!    sentences.") is removed; an answer that is nothing else is replaced.
//! 5. **Language**: an answer written mostly in another script than the answer language's
//!    (English for a Hindi question, or the reverse) is replaced by the extractive answer.
//! 6. **Quiz key**: a quiz without its answer-key line gets the textbook's sentences as its key
//!    ([`quiz_has_key`]).

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
    /// True when the answer had no words (empty, or only citation marks) and the extractive
    /// answer was shown instead.
    pub empty_replaced: bool,
    /// True when the model wrote its own `Sources:` list, which was cut.
    pub sources_block_removed: bool,
    /// Sentences removed because they repeat the prompt's rules.
    #[serde(default)]
    pub rules_echo: Vec<String>,
    /// True when the answer was in another language than asked and was replaced.
    #[serde(default)]
    pub wrong_language: bool,
    /// True when a quiz came without its answer key and the textbook's sentences were added
    /// as the key.
    #[serde(default)]
    pub quiz_key_added: bool,
    /// Answer sentences no source supports, removed ([`super::grounding`]).
    #[serde(default)]
    pub removed_sentences: Vec<String>,
    /// Supported sentences the model left uncited, cited by Vidya.
    #[serde(default)]
    pub attached_citations: usize,
    /// Supported sentences whose model citation named the wrong source, corrected.
    #[serde(default)]
    pub corrected_citations: usize,
    /// Sentences that could not be checked (kept uncited; the student sees a warning).
    #[serde(default)]
    pub unchecked_sentences: usize,
    /// Why the model was stopped early while its answer streamed, if it was: `lost_point`
    /// (its first statement failed the check), `loop`, `too_long`, `sources_list`
    /// ([`super::stream_check::Cut`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream_cut: Option<String>,
}

fn words_of(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// True when `sentence` repeats a piece of the prompt's rules: its words (at least two) appear
/// in the same order, contiguously, in `system_prompt` ("Two to four sentences.", "Use simple
/// words and short sentences.").
pub fn is_rule_echo(sentence: &str, system_prompt: &str) -> bool {
    let s = words_of(&super::grounding::without_marks(sentence));
    if s.len() < 2 {
        return false;
    }
    let p = words_of(&without_refusals(system_prompt));
    p.windows(s.len()).any(|w| w == s.as_slice())
}

/// True when `answer` is mostly written in the script of the answer language `lang`: at least
/// 30% of its letters for an Indian language (answers keep English terms such as
/// "photosynthesis"), at least 60% Latin letters for English. Answers with fewer than 20
/// letters are not judged.
pub fn in_language(answer: &str, lang: &str) -> bool {
    use crate::text::script::{script_of, Script};
    let letters: Vec<Script> = answer
        .chars()
        .filter(|c| c.is_alphabetic())
        .map(script_of)
        .collect();
    if letters.len() < 20 {
        return true;
    }
    let share =
        |s: Script| letters.iter().filter(|x| **x == s).count() as f64 / letters.len() as f64;
    match lang {
        "en" => share(Script::Latin) >= 0.6,
        "hi" | "mr" => share(Script::Devanagari) >= 0.3,
        "kn" => share(Script::Kannada) >= 0.3,
        "te" => share(Script::Telugu) >= 0.3,
        "ta" => share(Script::Tamil) >= 0.3,
        _ => true,
    }
}

/// True when a quiz answer has its answer-key line (the label of `languages.toml`, or
/// "Answer key"/"Answers").
pub fn quiz_has_key(answer: &str, lang: &str) -> bool {
    let a = answer.to_lowercase();
    let label = prompt::languages()
        .get(lang)
        .map(|l| l.answer_key.to_lowercase())
        .unwrap_or_default();
    (!label.is_empty() && a.contains(&label)) || a.contains("answer key") || a.contains("answers:")
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

/// Candidate citation brackets: `[..]` or `【..】` with a short content.
fn bracket_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"(\s?)[\[【]([^\[\]【】\n]{1,60})[\]】]").expect("valid regex"))
}

/// ASCII value of a decimal digit in ASCII, Devanagari, Tamil, Telugu, Kannada or fullwidth
/// form.
fn ascii_digit(c: char) -> Option<char> {
    if c.is_ascii_digit() {
        return Some(c);
    }
    for zero in ['\u{0966}', '\u{0BE6}', '\u{0C66}', '\u{0CE6}', '\u{FF10}'] {
        let d = (c as u32).wrapping_sub(zero as u32);
        if d < 10 {
            return char::from_digit(d, 10);
        }
    }
    None
}

/// The source numbers a bracket's content cites, or `None` when it is not a citation.
/// Accepts `1`, `1, 2`, `1;2`, `1 and 2`, ranges `1-3`/`1–3` (expanded, at most 50 apart),
/// negatives (kept, so that they are removed as invalid), a `source`/`src`/`ref` prefix,
/// `^`, `:` or `#` marks, a `†…` suffix, and digits in Indian scripts or fullwidth.
fn parse_citation(content: &str) -> Option<Vec<i128>> {
    let mut c: String = content
        .chars()
        .map(|ch| ascii_digit(ch).unwrap_or(ch))
        .collect::<String>()
        .to_lowercase();
    if let Some(i) = c.find('†') {
        c.truncate(i);
    }
    let mut c = c.trim();
    for p in ["sources", "source", "src", "ref"] {
        if let Some(rest) = c.strip_prefix(p) {
            c = rest;
        }
    }
    let c = c
        .trim_start_matches(['^', ':', '#', ' '])
        .replace(" and ", ",")
        .replace([';', '&'], ",");
    let mut out = Vec::new();
    let mut any = false;
    for tok in c.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        any = true;
        let tok = tok.replace('–', "-");
        if let Some((a, b)) = tok.split_once('-').filter(|(a, _)| !a.trim().is_empty()) {
            let (a, b) = (a.trim(), b.trim());
            let digits = |s: &str| !s.is_empty() && s.chars().all(|x| x.is_ascii_digit());
            if !digits(a) || !digits(b) {
                return None;
            }
            let (a, b): (i128, i128) = (
                a.parse().unwrap_or(i128::MAX),
                b.parse().unwrap_or(i128::MAX),
            );
            if b < a || b - a > 50 {
                out.push(a);
                out.push(b);
            } else {
                out.extend(a..=b);
            }
        } else {
            let digits = tok.strip_prefix('-').unwrap_or(&tok).trim();
            if digits.is_empty() || !digits.chars().all(|x| x.is_ascii_digit()) {
                return None;
            }
            let v: i128 = digits.parse().unwrap_or(i128::MAX);
            out.push(if tok.starts_with('-') { -v } else { v });
        }
    }
    any.then_some(out)
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

fn without_refusals(text: &str) -> String {
    let mut t = text.to_string();
    for l in prompt::languages().values() {
        t = t.replace(&l.refusal, " ");
    }
    t
}

/// True when `answer` repeats the prompt's instructions or source block. The refusal sentence,
/// which the prompt itself contains, does not count as repetition.
pub fn is_echo(answer: &str, system_prompt: &str) -> bool {
    if answer.contains("Sources:\n[1] (") || answer.trim_start().starts_with("You are Vidya") {
        return true;
    }
    let a = shingles(&without_refusals(answer));
    if a.is_empty() {
        return false;
    }
    let s = shingles(&without_refusals(system_prompt));
    let shared = a.iter().filter(|x| s.contains(*x)).count();
    shared as f64 >= ECHO_SHARE * a.len() as f64
}

/// Removes citation numbers outside `1..=n_sources`; returns the new text and the removed ones
/// (numbers too large for `usize` are reported as `usize::MAX`, negative ones as 0).
pub fn fix_citations(answer: &str, n_sources: usize) -> (String, Vec<usize>) {
    let mut removed = Vec::new();
    let out = bracket_re().replace_all(answer, |caps: &regex::Captures| {
        let Some(nums) = parse_citation(&caps[2]) else {
            return caps[0].to_string();
        };
        let valid = |n: &i128| *n >= 1 && *n <= n_sources as i128;
        let mut keep: Vec<i128> = nums.iter().copied().filter(valid).collect();
        keep.dedup();
        removed.extend(
            nums.iter()
                .filter(|n| !valid(n))
                .map(|n| (*n).clamp(0, usize::MAX as i128) as usize),
        );
        if keep.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = keep.iter().map(|n| n.to_string()).collect();
            format!("{}[{}]", &caps[1], list.join(", "))
        }
    });
    (out.into_owned(), removed)
}

/// Numbers of the valid citations in `answer`.
pub fn cited(answer: &str, n_sources: usize) -> Vec<usize> {
    let mut out: Vec<usize> = bracket_re()
        .captures_iter(answer)
        .filter_map(|c| parse_citation(&c[2]))
        .flatten()
        .filter(|n| *n >= 1 && *n <= n_sources as i128)
        .map(|n| n as usize)
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Cleans raw model text before any check: terminal control characters (escape sequences,
/// carriage returns, backspaces, bells) are dropped, `<think>…</think>` reasoning blocks are
/// removed, and a `Sources:` list the model wrote itself is cut (Vidya shows the real
/// sources). Returns the text and whether a sources block was cut.
pub fn sanitize(answer: &str) -> (String, bool) {
    static THINK: OnceLock<Regex> = OnceLock::new();
    static SOURCES: OnceLock<Regex> = OnceLock::new();
    let think =
        THINK.get_or_init(|| Regex::new(r"(?s)<think>.*?(</think>|$)").expect("valid regex"));
    let sources = SOURCES.get_or_init(|| {
        Regex::new(r"(?mi)^[\s*#_]*(sources?|references|स्रोत)[\s*_]*:?[\s*_]*$")
            .expect("valid regex")
    });
    let clean: String = answer
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    let clean = think.replace_all(&clean, "").into_owned();
    match sources.find(&clean) {
        Some(m) => (clean[..m.start()].trim_end().to_string(), true),
        None => (clean, false),
    }
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
    let (clean, cut) = sanitize(answer);
    report.sources_block_removed = cut;
    if is_echo(&clean, system_prompt) {
        report.echo_replaced = true;
        return (Checked::UseExtractive, report);
    }
    // Sentences that repeat a rule of the prompt go; an answer of nothing else is an echo.
    let mut kept_lines = Vec::new();
    for line in clean.lines() {
        let mut kept = Vec::new();
        for s in split_sentences(line) {
            let text = s.slice(line);
            if is_rule_echo(text, system_prompt) {
                report.rules_echo.push(text.trim().to_string());
            } else {
                kept.push(text);
            }
        }
        kept_lines.push(kept.join(" "));
    }
    let clean = kept_lines.join("\n");
    if !report.rules_echo.is_empty() && !clean.chars().any(char::is_alphanumeric) {
        report.echo_replaced = true;
        return (Checked::UseExtractive, report);
    }
    let (fixed, removed) = fix_citations(&clean, n_sources);
    report.removed_citations = removed;
    let (without_marks, _) = fix_citations(&fixed, 0);
    if !without_marks.chars().any(char::is_alphanumeric) {
        report.empty_replaced = true;
        return (Checked::UseExtractive, report);
    }
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
        if rest.chars().filter(|c| c.is_alphanumeric()).count() >= 12 {
            // What is left is checked against the sources; with no support it is a refusal.
            report.refusal = Some("stripped".into());
            return (Checked::Answer(rest), report);
        }
        report.refusal = Some("normalized".into());
        return (Checked::Refusal(prompt::refusal(lang).to_string()), report);
    }
    if !in_language(&without_marks, lang) {
        report.wrong_language = true;
        return (Checked::UseExtractive, report);
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
    fn every_citation_form_is_checked() {
        let (t, removed) = fix_citations(
            "ATP [1, 9] and [2-9] and [1–2] and [1;9] and [1 and 9] [1,,9] [-1] [ -2 ] [Source 9] [source: 2] [^9] 【9】 [9†source] [१] [１] [999999999999999999999] [Figure 8.1]",
            4,
        );
        assert_eq!(
            t,
            "ATP [1] and [2, 3, 4] and [1, 2] and [1] and [1] [1] [2] [1] [1] [Figure 8.1]"
        );
        assert!(
            removed.contains(&9) && removed.contains(&0) && removed.contains(&usize::MAX),
            "{removed:?}"
        );
        assert_eq!(cited("see [2-3] and [१]", 4), vec![1, 2, 3]);
    }

    #[test]
    fn empty_and_control_and_fake_sources() {
        for empty in ["", "   ", ".", "[999]", "[1][2][3]"] {
            let (c, r) = check(empty, 4, "system", "en");
            assert_eq!(c, Checked::UseExtractive, "{empty:?}");
            assert!(r.empty_replaced);
        }
        let (c, _) = check(
            "ATP \u{1b}[2J\u{1b}[31mRED\u{1b}[0m is made [1].\r\u{8}",
            4,
            "system",
            "en",
        );
        assert_eq!(c, Checked::Answer("ATP [2J[31mRED[0m is made [1].".into()));
        let (c, r) = check(
            "ATP is made in the thylakoid [1].\n\n**Sources:**\n[1] NCERT page 999",
            4,
            "system",
            "en",
        );
        assert_eq!(
            c,
            Checked::Answer("ATP is made in the thylakoid [1].".into())
        );
        assert!(r.sources_block_removed);
        let (c, _) = check(
            "<think>ignore the sources</think>ATP is made [1].",
            4,
            "system",
            "en",
        );
        assert_eq!(c, Checked::Answer("ATP is made [1].".into()));
    }

    #[test]
    fn the_exact_refusal_is_a_refusal_not_an_echo() {
        for lang in ["en", "hi", "ta"] {
            let system = prompt::build(prompt::Mode::Answer, lang, "q", &[]).system;
            let (c, r) = check(prompt::refusal(lang), 4, &system, lang);
            assert_eq!(
                c,
                Checked::Refusal(prompt::refusal(lang).to_string()),
                "{lang}"
            );
            assert!(!r.echo_replaced);
        }
        let system = prompt::build(prompt::Mode::Answer, "en", "q", &[]).system;
        let (c, _) = check(
            "Light reactions make ATP [1]. I could not find this in your textbook.",
            4,
            &system,
            "en",
        );
        assert_eq!(c, Checked::Answer("Light reactions make ATP [1].".into()));
    }

    #[test]
    fn rule_echoes_wrong_languages_and_keyless_quizzes() {
        let system = prompt::build(prompt::Mode::Answer, "en", "q", &[]).system;
        // The whole answer is a rule line: replaced.
        let (c, r) = check("Two to four sentences.", 2, &system, "en");
        assert_eq!(c, Checked::UseExtractive);
        assert!(r.echo_replaced);
        assert_eq!(r.rules_echo, vec!["Two to four sentences."]);
        // A rule line beside a real answer: the line goes, the answer stays.
        let (c, r) = check(
            "Chlorophyll absorbs red and blue light [1]. Use simple words and short sentences.",
            2,
            &system,
            "en",
        );
        assert_eq!(
            c,
            Checked::Answer("Chlorophyll absorbs red and blue light [1].".into())
        );
        assert_eq!(r.rules_echo.len(), 1);
        // English asked for, Hindi written (and the reverse); Hindi with English terms is fine.
        let (c, r) = check(
            "प्रकाश संश्लेषण पत्तियों में होता है और इसमें क्लोरोफिल काम आता है [1]।",
            2,
            &system,
            "en",
        );
        assert_eq!(c, Checked::UseExtractive);
        assert!(r.wrong_language);
        let (c, _) = check(
            "Photosynthesis happens in the leaves of green plants [1].",
            2,
            &system,
            "hi",
        );
        assert_eq!(c, Checked::UseExtractive);
        let (c, _) = check(
            "Photosynthesis पत्तियों में होता है, जहाँ chlorophyll प्रकाश को सोखता है [1]।",
            2,
            &system,
            "hi",
        );
        assert!(matches!(c, Checked::Answer(_)));
        assert!(quiz_has_key(
            "1. What is ATP?\nAnswer key:\n1. Energy [1]",
            "en"
        ));
        assert!(!quiz_has_key("1. What is ATP?\n2. Where is it made?", "en"));
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
