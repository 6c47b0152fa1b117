//! Retrieval quality on a QA set whose answers point at pages (the JSONL format of
//! `shared/data/README.md`: `{id, question, options?, source: {pdf_file, pdf_pages: [a, b]}}`).
//!
//! A question counts as found at k when one of the top-k retrieved chunks comes from the file
//! named by `source.pdf_file` (compared by file name) and its page span overlaps
//! `source.pdf_pages` (1-based PDF pages, inclusive): page-level recall@k. MRR@k is the mean of
//! 1/rank of the first such chunk (0 when none is in the top k).

use crate::ask::Engine;
use crate::error::{Result, VidyaError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::BufRead;
use std::path::Path;

#[derive(Debug, Deserialize)]
struct QaSource {
    pdf_file: Option<String>,
    pdf_pages: Option<(u32, u32)>,
}

#[derive(Debug, Deserialize)]
struct QaRecord {
    question: String,
    #[serde(default)]
    options: Vec<String>,
    #[serde(default)]
    answers: Vec<String>,
    #[serde(default)]
    qtype: Option<String>,
    source: Option<QaSource>,
}

/// A QA record whose answer is located: its file name and page span (ascending).
#[derive(Debug)]
struct QaItem {
    question: String,
    options: Vec<String>,
    answers: Vec<String>,
    qtype: Option<String>,
    file: String,
    pages: (u32, u32),
}

/// Reads a QA JSONL file: one entry per non-blank line, `None` for a line that is not UTF-8,
/// not a record, or has no `source.pdf_file`/`pdf_pages`.
fn read_qa(qa_path: &Path) -> Result<Vec<Option<QaItem>>> {
    let file = std::fs::File::open(qa_path).map_err(|e| VidyaError::io(qa_path, e))?;
    let mut out = Vec::new();
    for line in std::io::BufReader::new(file).split(b'\n') {
        let line = line.map_err(|e| VidyaError::io(qa_path, e))?;
        let line = String::from_utf8(line).unwrap_or_else(|_| "not utf-8".into());
        if line.trim().is_empty() {
            continue;
        }
        let item = serde_json::from_str::<QaRecord>(&line)
            .ok()
            .and_then(|rec| {
                let source = rec.source?;
                let (a, b) = source.pdf_pages?;
                let want = source.pdf_file?;
                let file = Path::new(&want)
                    .file_name()
                    .map(|n| n.to_string_lossy().to_string())
                    .unwrap_or(want);
                Some(QaItem {
                    question: rec.question,
                    options: rec.options,
                    answers: rec.answers,
                    qtype: rec.qtype,
                    file,
                    pages: (a.min(b), a.max(b)),
                })
            });
        out.push(item);
    }
    Ok(out)
}

/// Figures of one eval run.
#[derive(Debug, Clone, Serialize, Default)]
pub struct RetrievalReport {
    /// k of recall@k and MRR@k.
    pub k: usize,
    /// Questions with a page source that were evaluated.
    pub evaluated: usize,
    /// Records skipped (malformed, or no `source.pdf_file`/`pdf_pages`).
    pub skipped: usize,
    /// Records about a file that is not in the library (not evaluated).
    pub not_in_library: usize,
    /// Page-level recall@k.
    pub recall: f64,
    /// Page-level MRR@k.
    pub mrr: f64,
    /// recall@k per `qtype`.
    pub recall_by_qtype: BTreeMap<String, f64>,
    /// Median retrieval time per question (ms).
    pub median_ms: f64,
}

/// Runs page-level retrieval eval of `engine` over the QA JSONL at `qa_path`.
/// `with_options`: append MCQ options to the question (as a student pasting the whole question
/// would). `limit`: evaluate at most this many records (all when `None`).
pub fn retrieval_recall(
    engine: &Engine,
    qa_path: &Path,
    k: usize,
    with_options: bool,
    limit: Option<usize>,
) -> Result<RetrievalReport> {
    let mut report = RetrievalReport {
        k,
        ..Default::default()
    };
    let mut by_type: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut rr_sum = 0.0;
    let mut hits_total = 0usize;
    let mut times = Vec::new();
    let in_library = engine.library().file_names()?;
    for item in read_qa(qa_path)? {
        if limit.is_some_and(|l| report.evaluated >= l) {
            break;
        }
        let Some(rec) = item else {
            report.skipped += 1;
            continue;
        };
        let (want_name, (a, b)) = (rec.file.clone(), rec.pages);
        if !in_library.contains(&want_name) {
            report.not_in_library += 1;
            continue;
        }
        let mut question = rec.question.clone();
        if with_options && !rec.options.is_empty() {
            question.push('\n');
            question.push_str(&rec.options.join("\n"));
        }
        let t = std::time::Instant::now();
        let hits = match engine.retrieve(&question, k, None) {
            Ok(h) => h,
            Err(VidyaError::EmptyQuestion) => Vec::new(),
            Err(e) => return Err(e),
        };
        times.push(t.elapsed().as_secs_f64() * 1e3);
        let mut rank = None;
        for (i, (_, chunk)) in hits.iter().enumerate() {
            let lib = engine.library();
            let (Some(first), Some(last)) = (
                lib.page(chunk.book_id, chunk.first_page)?,
                lib.page(chunk.book_id, chunk.last_page)?,
            ) else {
                continue;
            };
            if first.file_name == want_name && first.pdf_page <= b && last.pdf_page >= a {
                rank = Some(i + 1);
                break;
            }
        }
        report.evaluated += 1;
        let entry = by_type
            .entry(rec.qtype.unwrap_or_else(|| "all".into()))
            .or_default();
        entry.1 += 1;
        if let Some(r) = rank {
            hits_total += 1;
            entry.0 += 1;
            rr_sum += 1.0 / r as f64;
        }
    }
    if report.evaluated == 0 {
        return Err(VidyaError::BadOption(format!(
            "no usable questions in {}: {} records were unreadable or had no source.pdf_file/pdf_pages, {} were about files not in the library",
            qa_path.display(),
            report.skipped,
            report.not_in_library
        )));
    }
    {
        report.recall = hits_total as f64 / report.evaluated as f64;
        report.mrr = rr_sum / report.evaluated as f64;
    }
    report.recall_by_qtype = by_type
        .into_iter()
        .map(|(t, (h, n))| (t, h as f64 / n.max(1) as f64))
        .collect();
    times.sort_by(f64::total_cmp);
    report.median_ms = times.get(times.len() / 2).copied().unwrap_or(0.0);
    Ok(report)
}

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
