//! The tutor's answers with a real model: keyword match plus a cited page in the span.

use super::read_qa;
use crate::error::{Result, VidyaError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// Figures of an answer-quality run ([`answer_quality`]).
#[derive(Debug, Clone, Serialize, Default)]
pub struct AnswerReport {
    /// Questions asked.
    pub evaluated: usize,
    /// Records skipped: unreadable, no page source, a long expected answer (keyword matching
    /// cannot judge it), or a file not in the library.
    pub skipped: usize,
    /// Answers that contain an expected phrase and cite a page inside the expected span.
    pub passed: usize,
    /// Share passed.
    pub pass_rate: f64,
    /// Answers containing an expected phrase (cited or not).
    pub contains_expected: usize,
    /// Answers citing a page inside the expected span.
    pub cites_expected_pages: usize,
    /// How the answers were made (`answered`, `extractive`, `gated`, …) and how often.
    pub statuses: BTreeMap<String, usize>,
    /// Median time to first token (ms) over answers the model wrote.
    pub median_ttft_ms: Option<f64>,
    /// Median total time per question (ms).
    pub median_total_ms: f64,
}

/// Longest expected answer (in words) that keyword matching can judge.
pub const MAX_EXPECTED_WORDS: usize = 6;

/// Keyword-based answer quality: each question of the QA JSONL whose expected answer is short
/// (≤ [`MAX_EXPECTED_WORDS`] words, e.g. the MCQs) is asked through the tutor (no cache, not
/// remembered); an answer passes when it contains one of the expected phrases
/// (case-insensitive) and one of its valid `[n]` citations names a page inside
/// `source.pdf_pages` of `source.pdf_file`. MCQ options are appended to the question.
pub fn answer_quality(
    tutor: &crate::answer::Tutor,
    qa_path: &Path,
    opts: &crate::answer::TutorOptions,
    limit: Option<usize>,
) -> Result<AnswerReport> {
    let in_library = tutor.engine().library().file_names()?;
    let mut report = AnswerReport::default();
    let (mut ttfts, mut totals) = (Vec::new(), Vec::new());
    if !opts.use_llm {
        return Err(VidyaError::BadOption(
            "answer eval measures the model's answers: run it without --no-llm".into(),
        ));
    }
    if let Err(e) = tutor.check_model() {
        return Err(VidyaError::BadOption(format!(
            "answer eval needs a running model: {e}"
        )));
    }
    let opts = crate::answer::TutorOptions {
        use_cache: false,
        remember: false,
        conversation: None,
        ..opts.clone()
    };
    for item in read_qa(qa_path)? {
        if limit.is_some_and(|l| report.evaluated >= l) {
            break;
        }
        let Some(rec) = item else {
            report.skipped += 1;
            continue;
        };
        let (want_name, (a, b)) = (rec.file.clone(), rec.pages);
        let expected: Vec<String> = rec
            .answers
            .iter()
            .map(|x| x.trim().to_lowercase())
            .filter(|x| !x.is_empty() && x.split_whitespace().count() <= MAX_EXPECTED_WORDS)
            .collect();
        if expected.is_empty() || !in_library.contains(&want_name) {
            report.skipped += 1;
            continue;
        }
        let mut question = rec.question.clone();
        if !rec.options.is_empty() {
            question.push_str("\nOptions: ");
            question.push_str(&rec.options.join("; "));
        }
        let ans = match tutor.ask(&question, &opts, &mut |_| {}, None) {
            Ok(a) => a,
            Err(VidyaError::EmptyQuestion) => {
                report.skipped += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        report.evaluated += 1;
        *report.statuses.entry(ans.status.clone()).or_default() += 1;
        if let Some(t) = ans.base.timings_ms.get("ttft") {
            ttfts.push(*t);
        }
        totals.push(ans.base.timings_ms.get("total").copied().unwrap_or(0.0));
        let text = ans.base.answer.to_lowercase();
        // Whole words only: "ATP" must not match "ATPase", "a" must not match every answer.
        let has_phrase = expected.iter().any(|x| {
            regex::Regex::new(&format!(r"(^|\W){}($|\W)", regex::escape(x)))
                .map(|re| re.is_match(&text))
                .unwrap_or(false)
        });
        let cited = crate::answer::postcheck::cited(&ans.base.answer, ans.base.citations.len());
        let cites_span = ans
            .base
            .citations
            .iter()
            .filter(|c| cited.contains(&c.n))
            .any(|c| c.file == want_name && (a..=b).contains(&c.pdf_page));
        report.contains_expected += has_phrase as usize;
        report.cites_expected_pages += cites_span as usize;
        report.passed += (has_phrase && cites_span) as usize;
    }
    if report.evaluated == 0 {
        return Err(VidyaError::BadOption(format!(
            "no usable questions in {}: answer eval needs records with short expected answers about files in the library",
            qa_path.display()
        )));
    }
    report.pass_rate = report.passed as f64 / report.evaluated as f64;
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v.get(v.len() / 2).copied()
    };
    report.median_ttft_ms = median(&mut ttfts);
    report.median_total_ms = median(&mut totals).unwrap_or(0.0);
    Ok(report)
}
