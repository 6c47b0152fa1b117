//! The tutor's answers with a real model: how often it answers, whether every sentence the
//! student sees is supported by a cited source, whether a cited page holds the answer, whether
//! the answer mentions what it must, how many invented sentences were removed, and the time
//! to first token.
//!
//! It reads both QA formats: the shared data's (`source.pdf_file` and a page span
//! `source.pdf_pages`, `answers` of which the short ones (≤ [`MAX_EXPECTED_WORDS`] words) are
//! must-mention phrases) and the realistic set of `tests/eval` (one page, `answers` are the
//! must-mention terms, `kind`, `language`, `split`). Unanswerable questions
//! (`--unanswerable`) count as right when the answer is stopped or refused and shows no text
//! of the model's own.
//!
//! Every answer is re-checked here, independently of the tutor's own post-checks: its
//! sentences are grounded again ([`crate::answer::grounding::ground`]) against the citations
//! the student sees; an answer is "fully supported" when none of its statements is
//! unsupported or uncited.

use super::quantile;
use crate::answer::grounding::{self, Verdict};
use crate::answer::status::AnswerStatus;
use crate::answer::{Tutor, TutorAnswer, TutorOptions};
use crate::error::{Result, VidyaError};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Longest expected answer (in words) that keyword matching can judge.
pub const MAX_EXPECTED_WORDS: usize = 6;

/// One question to answer.
#[derive(Debug, Clone)]
pub struct AnswerItem {
    /// The record's id (its line number when it has none).
    pub id: String,
    /// The textbook sentence that answers it, when the record gives one (for grading).
    pub evidence: Option<String>,
    /// The question.
    pub question: String,
    /// Language (`en` when the record has none).
    pub language: String,
    /// Question kind (`-` when the record has none).
    pub kind: String,
    /// Phrases a correct answer mentions.
    pub must_mention: Vec<String>,
    /// Book title, when the record names one.
    pub book: Option<String>,
    /// File name of the answer's pages.
    pub file: String,
    /// Page span (1-based, inclusive) in that file.
    pub pages: (u32, u32),
}

#[derive(Deserialize)]
struct Source {
    book: Option<String>,
    pdf_file: Option<String>,
    pdf_pages: Option<(u32, u32)>,
}

#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    id: Option<serde_json::Value>,
    #[serde(default)]
    evidence: Option<String>,
    question: String,
    #[serde(default)]
    answers: Vec<String>,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    qtype: Option<String>,
    #[serde(default)]
    split: Option<String>,
    source: Option<Source>,
}

/// Reads answerable questions from a QA JSONL file of either format; `split` keeps records of
/// that split only (records without one are kept).
///
/// Errors: the file cannot be read.
pub fn read_items(path: &Path, split: Option<&str>) -> Result<Vec<AnswerItem>> {
    let text = std::fs::read_to_string(path).map_err(|e| VidyaError::io(path, e))?;
    Ok(text
        .lines()
        .enumerate()
        .filter_map(|(i, l)| serde_json::from_str::<Record>(l).ok().map(|r| (i, r)))
        .filter(|(_, r)| split.is_none_or(|s| r.split.as_deref().is_none_or(|x| x == s)))
        .filter_map(|(line, r)| {
            let id = match &r.id {
                Some(serde_json::Value::String(s)) => s.clone(),
                Some(v) => v.to_string(),
                None => format!("line-{}", line + 1),
            };
            let src = r.source?;
            let (a, b) = src.pdf_pages?;
            let file = src.pdf_file?;
            let file = Path::new(&file)
                .file_name()
                .map(|n| n.to_string_lossy().to_string())
                .unwrap_or(file);
            Some(AnswerItem {
                id,
                evidence: r.evidence,
                question: r.question,
                language: r.language.unwrap_or_else(|| "en".into()),
                kind: r.kind.or(r.qtype).unwrap_or_else(|| "-".into()),
                must_mention: r
                    .answers
                    .into_iter()
                    .map(|x| x.trim().to_lowercase())
                    .filter(|x| !x.is_empty() && x.split_whitespace().count() <= MAX_EXPECTED_WORDS)
                    .collect(),
                book: src.book,
                file,
                pages: (a.min(b), a.max(b)),
            })
        })
        .collect())
}

/// Figures of a group of answered questions.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AnswerFigures {
    /// Questions.
    pub n: usize,
    /// Share answered by the model (`answered`, `incomplete`).
    pub answered: f64,
    /// Share refused by the model.
    pub refused: f64,
    /// Share given the extractive answer (model failed, or nothing it wrote was supported).
    pub extractive: f64,
    /// Share stopped by the relevance gate.
    pub gated: f64,
    /// Of the model's answers: share whose every statement is supported and cited.
    pub fully_supported: f64,
    /// Statements that reached the student without support (must be 0).
    pub unsupported_shown: usize,
    /// Share with a cited page inside the answer's pages.
    pub cited_page: f64,
    /// Share that mention one of the must-mention phrases (questions that have some).
    pub must_mention: f64,
    /// Sentences the grounding removed (invented or unsupported facts), in all.
    pub removed_sentences: usize,
    /// Share of the model's answers that had at least one sentence removed.
    pub with_removals: f64,
    /// Sentences whose citation Vidya attached or corrected.
    pub citations_fixed: usize,
    /// Median time to first token (ms) of the model's answers.
    pub ttft_p50_ms: Option<f64>,
    /// 95th percentile time to first token (ms).
    pub ttft_p95_ms: Option<f64>,
    /// Median total time per question (ms).
    pub total_p50_ms: f64,
    /// 95th percentile total time per question (ms).
    pub total_p95_ms: f64,
    /// Median tokens of the prompt sent to the model ([`TutorAnswer::prompt_tokens`]).
    pub prompt_tokens_p50: Option<f64>,
    /// Median time from the question to the first word the student sees (ms): the quotes
    /// with the quotes-first layout, else the first checked sentence of the model (or the
    /// whole answer when nothing streamed).
    pub first_shown_p50_ms: Option<f64>,
    /// 95th percentile of the same (ms).
    pub first_shown_p95_ms: Option<f64>,
    /// Of the model's answers: stopped in a loop (a repeated sentence, a repeated word).
    pub loops_cut: usize,
    /// Of the model's answers: cut at the length cap.
    pub too_long_cut: usize,
    /// Median words of the tutor's words shown (model answers).
    pub tutor_words_p50: Option<f64>,
    /// Answers with a grade (`--grades`).
    pub graded: usize,
    /// Of the graded answers: share graded correct.
    pub correct: f64,
    /// Share graded partial.
    pub partial: f64,
    /// Share graded off: nothing false, but it does not answer the question.
    pub off: f64,
    /// Share graded wrong.
    pub wrong: f64,
    /// Share graded wrong that carry a citation `[n]`: a false or off-question answer the
    /// student would take for the book's (of the graded answers).
    pub wrong_but_cited: f64,
}

/// A person's judgement of one shown answer against the question's evidence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Grade {
    /// Answers the question and says nothing false.
    Correct,
    /// True but incomplete, or answers part of the question.
    Partial,
    /// Says nothing false but does not answer the question (quotes on something else).
    Off,
    /// States something false (a wrong fact, a flipped meaning, a wrong term or number), or
    /// answers another question as if it answered this one.
    Wrong,
}

/// One answer written for grading (`--grading-out`): what the grader sees, and the key its
/// grade is filed under (the question and the shown answer hashed, so that the same text
/// always meets the same grade and the configuration that made it stays hidden).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GradingItem {
    /// sha256 of the question and the answer (hex, 16 characters).
    pub key: String,
    /// The question's record id.
    pub id: String,
    /// The question.
    pub question: String,
    /// The textbook's sentence that answers it.
    pub evidence: Option<String>,
    /// Phrases a correct answer mentions.
    pub must_mention: Vec<String>,
    /// The answer as the student sees it.
    pub answer: String,
}

/// The grading key of an answer to a question.
pub fn grading_key(question: &str, answer: &str) -> String {
    use sha2::{Digest, Sha256};
    let d = Sha256::digest(format!("{question}\n{}", answer.trim()).as_bytes());
    hex::encode(&d[..8])
}

/// Reads grades: JSONL records `{"key", "grade": "correct" | "partial" | "off" | "wrong"}`.
/// Errors: the file cannot be read.
pub fn read_grades(path: &Path) -> Result<std::collections::HashMap<String, Grade>> {
    #[derive(Deserialize)]
    struct Line {
        key: String,
        grade: Grade,
    }
    let text = std::fs::read_to_string(path).map_err(|e| VidyaError::io(path, e))?;
    Ok(text
        .lines()
        .filter_map(|l| serde_json::from_str::<Line>(l).ok())
        .map(|l| (l.key, l.grade))
        .collect())
}

#[derive(Default)]
struct Acc {
    n: usize,
    statuses: BTreeMap<AnswerStatus, usize>,
    model_answers: usize,
    fully: usize,
    unsupported: usize,
    cited_page: usize,
    mention_base: usize,
    mention: usize,
    removed: usize,
    with_removals: usize,
    fixed: usize,
    ttft: Vec<f64>,
    total: Vec<f64>,
    prompt: Vec<f64>,
    first_shown: Vec<f64>,
    grades: Vec<(Grade, bool)>,
    loops: usize,
    too_long: usize,
    tutor_words: Vec<f64>,
}

impl Acc {
    /// Adds `other`'s counts and samples to these.
    fn merge(&mut self, other: &Acc) {
        self.n += other.n;
        for (k, v) in &other.statuses {
            *self.statuses.entry(*k).or_default() += v;
        }
        self.model_answers += other.model_answers;
        self.fully += other.fully;
        self.unsupported += other.unsupported;
        self.cited_page += other.cited_page;
        self.mention_base += other.mention_base;
        self.mention += other.mention;
        self.removed += other.removed;
        self.with_removals += other.with_removals;
        self.fixed += other.fixed;
        self.ttft.extend(&other.ttft);
        self.total.extend(&other.total);
        self.prompt.extend(&other.prompt);
        self.first_shown.extend(&other.first_shown);
        self.grades.extend(&other.grades);
        self.loops += other.loops;
        self.too_long += other.too_long;
        self.tutor_words.extend(&other.tutor_words);
    }

    fn figures(&self) -> AnswerFigures {
        let share = |x: usize, n: usize| x as f64 / n.max(1) as f64;
        let st = |which: fn(AnswerStatus) -> bool| {
            self.statuses
                .iter()
                .filter(|(s, _)| which(**s))
                .map(|(_, n)| n)
                .sum::<usize>()
        };
        AnswerFigures {
            n: self.n,
            answered: share(st(AnswerStatus::is_model_text), self.n),
            refused: share(st(|s| s == AnswerStatus::Refused), self.n),
            extractive: share(st(|s| s == AnswerStatus::Extractive), self.n),
            gated: share(st(|s| s == AnswerStatus::Gated), self.n),
            fully_supported: share(self.fully, self.model_answers),
            unsupported_shown: self.unsupported,
            cited_page: share(self.cited_page, self.n),
            must_mention: share(self.mention, self.mention_base),
            removed_sentences: self.removed,
            with_removals: share(self.with_removals, self.model_answers),
            citations_fixed: self.fixed,
            ttft_p50_ms: (!self.ttft.is_empty()).then(|| quantile(&self.ttft, 0.5)),
            ttft_p95_ms: (!self.ttft.is_empty()).then(|| quantile(&self.ttft, 0.95)),
            total_p50_ms: quantile(&self.total, 0.5),
            total_p95_ms: quantile(&self.total, 0.95),
            prompt_tokens_p50: (!self.prompt.is_empty()).then(|| quantile(&self.prompt, 0.5)),
            first_shown_p50_ms: (!self.first_shown.is_empty())
                .then(|| quantile(&self.first_shown, 0.5)),
            first_shown_p95_ms: (!self.first_shown.is_empty())
                .then(|| quantile(&self.first_shown, 0.95)),
            loops_cut: self.loops,
            too_long_cut: self.too_long,
            tutor_words_p50: (!self.tutor_words.is_empty())
                .then(|| quantile(&self.tutor_words, 0.5)),
            graded: self.grades.len(),
            correct: share(
                self.grades.iter().filter(|g| g.0 == Grade::Correct).count(),
                self.grades.len(),
            ),
            partial: share(
                self.grades.iter().filter(|g| g.0 == Grade::Partial).count(),
                self.grades.len(),
            ),
            off: share(
                self.grades.iter().filter(|g| g.0 == Grade::Off).count(),
                self.grades.len(),
            ),
            wrong: share(
                self.grades.iter().filter(|g| g.0 == Grade::Wrong).count(),
                self.grades.len(),
            ),
            wrong_but_cited: share(
                self.grades
                    .iter()
                    .filter(|g| g.0 == Grade::Wrong && g.1)
                    .count(),
                self.grades.len(),
            ),
        }
    }
}

/// The report of an answer eval.
#[derive(Debug, Clone, Default, Serialize)]
pub struct AnswerReport {
    /// The model.
    pub model: String,
    /// All answerable questions.
    pub overall: AnswerFigures,
    /// Per language.
    pub by_language: BTreeMap<String, AnswerFigures>,
    /// Per question kind.
    pub by_kind: BTreeMap<String, AnswerFigures>,
    /// The extractive answer (no model) on the same questions, for comparison.
    pub extractive_baseline: Option<AnswerFigures>,
    /// The same questions with whole pages (up to
    /// [`WHOLE_PAGES_TOKENS`](crate::answer::tutor::WHOLE_PAGES_TOKENS)) given to the model
    /// instead of the pruned sentences, asked right after each pruned one: the pruning
    /// measurement (compare `ttft_p50_ms` and `prompt_tokens_p50` with `overall`'s).
    pub whole_pages: Option<AnswerFigures>,
    /// Unanswerable questions: share stopped or refused with no model text shown.
    pub off_topic_refused: Option<f64>,
    /// Unanswerable questions asked.
    pub off_topic: usize,
    /// Off-topic questions whose answer showed the model's own text.
    pub off_topic_answered: Vec<String>,
    /// Records skipped (book or file not in the library).
    pub skipped: usize,
}

fn mentions(text: &str, phrase: &str) -> bool {
    super::contains_phrase(text, phrase)
}

/// The grading side of an answer eval: answers written out for a grader, and grades read in.
#[derive(Debug, Default)]
pub struct Grading {
    /// Answers to grade, collected when asked for (`--grading-out`).
    pub out: Option<Vec<GradingItem>>,
    /// Grades already given (`--grades`), by [`grading_key`].
    pub grades: Option<std::collections::HashMap<String, Grade>>,
    /// Answers that had no grade.
    pub ungraded: usize,
}

fn score(
    tutor: &Tutor,
    item: &AnswerItem,
    a: &TutorAnswer,
    acc: &mut Acc,
    grading: &mut Grading,
) -> Result<()> {
    let shown_at = a
        .base
        .timings_ms
        .get("quotes_ready")
        .filter(|_| a.base.answer.starts_with("From your textbook"))
        .or_else(|| a.base.timings_ms.get("first_shown"))
        .or_else(|| a.base.timings_ms.get("total"))
        .copied();
    if let Some(t) = shown_at {
        acc.first_shown.push(t);
    }
    let key = grading_key(&item.question, &a.base.answer);
    let cited_any =
        !crate::answer::postcheck::cited(&a.base.answer, a.base.citations.len()).is_empty();
    match grading.grades.as_ref().map(|g| g.get(&key)) {
        Some(Some(g)) => acc.grades.push((*g, cited_any)),
        Some(None) if !matches!(a.status, AnswerStatus::Gated) => grading.ungraded += 1,
        _ => {}
    }
    if let Some(out) = grading.out.as_mut() {
        if !matches!(a.status, AnswerStatus::Gated) && !out.iter().any(|g| g.key == key) {
            out.push(GradingItem {
                key,
                id: item.id.clone(),
                question: item.question.clone(),
                evidence: item.evidence.clone(),
                must_mention: item.must_mention.clone(),
                answer: a.base.answer.clone(),
            });
        }
    }
    acc.n += 1;
    *acc.statuses.entry(a.status).or_default() += 1;
    acc.total
        .push(a.base.timings_ms.get("total").copied().unwrap_or(0.0));
    if let Some(t) = a.base.timings_ms.get("ttft") {
        acc.ttft.push(*t);
    }
    if let Some(t) = a.prompt_tokens {
        acc.prompt.push(t as f64);
    }
    let cited = crate::answer::postcheck::cited(&a.base.answer, a.base.citations.len());
    let book_ok = |title: &str| {
        item.book
            .as_ref()
            .is_none_or(|b| b.eq_ignore_ascii_case(title))
    };
    if a.base.citations.iter().any(|c| {
        (cited.contains(&c.n) || a.status == AnswerStatus::Extractive)
            && c.file == item.file
            && book_ok(&c.book)
            && (item.pages.0..=item.pages.1).contains(&c.pdf_page)
    }) {
        acc.cited_page += 1;
    }
    if !item.must_mention.is_empty() {
        acc.mention_base += 1;
        if item
            .must_mention
            .iter()
            .any(|m| mentions(&a.base.answer, m))
        {
            acc.mention += 1;
        }
    }
    if a.status.is_model_text() {
        acc.model_answers += 1;
        acc.removed += a.postcheck.removed_sentences.len();
        acc.with_removals += (!a.postcheck.removed_sentences.is_empty()) as usize;
        acc.fixed += a.postcheck.attached_citations + a.postcheck.corrected_citations;
        let shown = crate::answer::turn::tutor_words(&a.base.answer);
        acc.tutor_words
            .push(shown.split_whitespace().count() as f64);
        match a.postcheck.stream_cut.as_deref() {
            Some("loop") => acc.loops += 1,
            Some("too_long") => acc.too_long += 1,
            _ => {}
        }
        let g = grounding::ground(
            shown,
            &a.base.citations,
            tutor.engine().retriever().embedder(),
            &crate::text::Tokenizer::new(),
        )?;
        let bad = g
            .sentences
            .iter()
            .filter(|s| {
                s.verdict == Verdict::Removed
                    || (s.verdict == Verdict::Supported
                        && !s.cited.iter().all(|n| cited.contains(n)))
                    || s.verdict == Verdict::Unchecked
            })
            .count();
        acc.unsupported += bad;
        acc.fully += (bad == 0) as usize;
    }
    Ok(())
}

/// What [`answer_quality`] runs beside the model's answers on the same questions.
#[derive(Debug, Clone, Copy, Default)]
pub struct Compare {
    /// The extractive answer (no model): its must-mention and cited-page rates.
    pub extractive: bool,
    /// The model given whole pages instead of the pruned sentences, asked right after each
    /// pruned question so that both see the same load: time to first token and prompt tokens.
    pub whole_pages: bool,
}

/// Which questions [`answer_quality`] asks.
#[derive(Debug, Clone, Copy)]
pub struct QuestionSet<'a> {
    /// Answerable questions: a QA JSONL file (see [`read_items`]).
    pub qa: &'a Path,
    /// Questions the book does not answer (JSONL with `question`), if any.
    pub unanswerable: Option<&'a Path>,
    /// Keep records of this split only (records without one are kept).
    pub split: Option<&'a str>,
    /// Ask at most this many of each file.
    pub limit: Option<usize>,
}

/// Asks every question of `set.qa` (and of `set.unanswerable`) through `tutor` with `opts`
/// (no cache, not remembered) and reports the figures of [`AnswerReport`], with the
/// comparisons that `compare` asks for.
///
/// Errors: no model answering, unreadable files, no usable question.
pub fn answer_quality(
    tutor: &Tutor,
    set: QuestionSet<'_>,
    opts: &TutorOptions,
    compare: Compare,
    grading: &mut Grading,
) -> Result<AnswerReport> {
    let QuestionSet {
        qa,
        unanswerable,
        split,
        limit,
    } = set;
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
    let opts = TutorOptions {
        use_cache: false,
        remember: false,
        conversation: None,
        ..opts.clone()
    };
    let files = tutor.engine().library().file_names()?;
    let items: Vec<AnswerItem> = read_items(qa, split)?;
    let mut report = AnswerReport {
        model: tutor.llm_config().model.clone(),
        ..Default::default()
    };
    let (mut all, mut base, mut whole) = (Acc::default(), Acc::default(), Acc::default());
    let mut langs: BTreeMap<String, Acc> = BTreeMap::new();
    let mut kinds: BTreeMap<String, Acc> = BTreeMap::new();
    for item in items.iter().take(limit.unwrap_or(usize::MAX)) {
        if !files.contains(&item.file) {
            report.skipped += 1;
            continue;
        }
        let a = tutor.ask(&item.question, &opts, &mut |_| {}, None)?;
        // Scored once (the re-check embeds every sentence), then counted in each group.
        let mut one = Acc::default();
        score(tutor, item, &a, &mut one, grading)?;
        all.merge(&one);
        langs.entry(item.language.clone()).or_default().merge(&one);
        kinds.entry(item.kind.clone()).or_default().merge(&one);
        if compare.whole_pages {
            let w = tutor.ask(
                &item.question,
                &TutorOptions {
                    whole_pages: true,
                    ..opts.clone()
                },
                &mut |_| {},
                None,
            )?;
            score(tutor, item, &w, &mut whole, &mut Grading::default())?;
        }
        if compare.extractive {
            let e = tutor.ask(
                &item.question,
                &TutorOptions {
                    use_llm: false,
                    ..opts.clone()
                },
                &mut |_| {},
                None,
            )?;
            score(tutor, item, &e, &mut base, grading)?;
        }
    }
    if all.n == 0 {
        return Err(VidyaError::BadOption(format!(
            "no usable questions in {}: answer eval needs records with source.pdf_file and source.pdf_pages about files in the library",
            qa.display()
        )));
    }
    report.overall = all.figures();
    report.by_language = langs.into_iter().map(|(k, v)| (k, v.figures())).collect();
    report.by_kind = kinds.into_iter().map(|(k, v)| (k, v.figures())).collect();
    report.extractive_baseline = compare.extractive.then(|| base.figures());
    report.whole_pages = compare.whole_pages.then(|| whole.figures());
    if let Some(path) = unanswerable {
        let text = std::fs::read_to_string(path).map_err(|e| VidyaError::io(path, e))?;
        let questions: Vec<String> = text
            .lines()
            .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
            .filter(|v| split.is_none_or(|s| v["split"].as_str().is_none_or(|x| x == s)))
            .filter_map(|v| v["question"].as_str().map(str::to_string))
            .take(limit.unwrap_or(usize::MAX))
            .collect();
        let mut right = 0;
        for q in &questions {
            let a = tutor.ask(q, &opts, &mut |_| {}, None)?;
            // Stopped, refused, or the model refused and the student got the quotes: no text
            // of the model's own.
            let quotes_on_refusal = a.postcheck.refusal.as_deref() == Some("quotes");
            if matches!(a.status, AnswerStatus::Gated | AnswerStatus::Refused) || quotes_on_refusal
            {
                right += 1;
            } else {
                report.off_topic_answered.push(format!(
                    "{q} → {}: {}",
                    a.status,
                    a.base.answer.lines().next().unwrap_or_default()
                ));
            }
        }
        report.off_topic = questions.len();
        report.off_topic_refused = Some(right as f64 / questions.len().max(1) as f64);
    }
    Ok(report)
}
