//! What the student sees: exact-page hits of the citations `vidya ask` returns, and the
//! relevance gate's stops, on a realistic question set (`tests/eval/`).
//!
//! Every answerable record names one page (`source.pdf_pages: [p, p]` of `source.pdf_file` in
//! the book `source.book`). A question is asked as `vidya ask --no-llm` asks it
//! ([`Engine::ask`]: router, BM25 + dense, fusion, rescoring, gate, budget, pruner, extractive
//! answer) and scored on its citations, in the order the student sees them:
//! - hit@1 / hit@3: the first / one of the first three citations is on that page;
//! - stopped: the gate answered "not in your textbooks" (a false stop for these questions);
//! - span recall@5: one of the first five ranked chunks covers the page (the earlier,
//!   chunk-level figure, reported next to the citation figures).
//!
//! Unanswerable records (questions from other school subjects, chit-chat) count as right when
//! the gate stops them. Follow-up pairs are asked as a two-turn conversation through the tutor
//! ([`Tutor::ask`], remembered in a conversation that is deleted afterwards); the second
//! turn's citations are scored like an answerable question's.
//!
//! Figures are given overall and per language (`en`, `hi`, `hinglish`) and question kind
//! (`why`, `how`, `fact`, `definition`, `compare`, `number`, `formula`); `split` selects the
//! dev or test half of the set (tune on dev, report on test).

use super::quantile;
use crate::answer::{Citation, Tutor, TutorOptions};
use crate::engine::{AskOptions, Engine};
use crate::error::{Result, VidyaError};
use crate::retrieve::PipelineConfig;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Where a record's answer is: the book's title, the file name and the 1-based page in it.
#[derive(Debug, Clone, Deserialize)]
pub struct PageSource {
    /// Book title as the record gives it (matched to the library's titles case-insensitively).
    pub book: String,
    /// File path as in the shared data (`pdf/ch08.pdf`); only the file name is compared.
    pub pdf_file: String,
    /// `[p, p]`: the page (1-based in the file).
    pub pdf_pages: (u32, u32),
}

/// One answerable question of the set (`tests/eval/students.jsonl`, or a follow-up turn).
#[derive(Debug, Clone, Deserialize)]
pub struct StudentQuestion {
    /// Record id.
    #[serde(default)]
    pub id: String,
    /// The question as typed.
    pub question: String,
    /// `en`, `hi` or `hinglish`.
    #[serde(default)]
    pub language: String,
    /// Question kind (`why`, `how`, `fact`, `definition`, `compare`, `number`, `formula`).
    #[serde(default)]
    pub kind: String,
    /// Must-mention terms of a correct answer.
    #[serde(default)]
    pub answers: Vec<String>,
    /// The sentence on the page that answers it.
    #[serde(default)]
    pub evidence: String,
    /// The page.
    pub source: PageSource,
    /// `dev` or `test`.
    #[serde(default)]
    pub split: String,
}

/// One unanswerable question (`tests/eval/off_topic.jsonl`).
#[derive(Debug, Clone, Deserialize)]
pub struct OffTopicQuestion {
    /// Record id.
    #[serde(default)]
    pub id: String,
    /// The question.
    pub question: String,
    /// Language.
    #[serde(default)]
    pub language: String,
    /// School subject (history, civics, …, chit-chat).
    #[serde(default)]
    pub subject: String,
    /// `dev` or `test`.
    #[serde(default)]
    pub split: String,
}

/// A follow-up pair (`tests/eval/followups.jsonl`).
#[derive(Debug, Clone, Deserialize)]
pub struct FollowupPair {
    /// Record id.
    #[serde(default)]
    pub id: String,
    /// Language of both turns.
    #[serde(default)]
    pub language: String,
    /// `dev` or `test`.
    #[serde(default)]
    pub split: String,
    /// The two turns (the second is scored).
    pub turns: Vec<StudentQuestion>,
}

/// The split of the set to evaluate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Split {
    /// Records with `"split": "dev"` (tuning).
    Dev,
    /// Records with `"split": "test"` (reporting).
    Test,
    /// Every record.
    All,
}

impl Split {
    /// Parses `dev`, `test` or `all`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "dev" => Some(Self::Dev),
            "test" => Some(Self::Test),
            "all" => Some(Self::All),
            _ => None,
        }
    }

    fn takes(self, split: &str) -> bool {
        match self {
            Self::Dev => split == "dev",
            Self::Test => split == "test",
            Self::All => true,
        }
    }
}

/// Figures of a group of answerable questions.
#[derive(Debug, Clone, Default, Serialize)]
pub struct HitFigures {
    /// Questions.
    pub n: usize,
    /// Share whose first citation is on the answer's page.
    pub hit1: f64,
    /// Share with a citation on the answer's page among the first three.
    pub hit3: f64,
    /// Share stopped by the gate (false stops).
    pub stopped: f64,
    /// Share whose answer page is covered by one of the first five ranked chunks.
    pub span_recall5: f64,
    /// Mean number of citations shown (answered questions).
    pub citations: f64,
}

#[derive(Default)]
struct HitAcc {
    n: usize,
    hit1: usize,
    hit3: usize,
    stopped: usize,
    span: usize,
    citations: usize,
    answered: usize,
}

impl HitAcc {
    fn add(&mut self, o: &Outcome) {
        self.n += 1;
        self.hit1 += o.hit1 as usize;
        self.hit3 += o.hit3 as usize;
        self.stopped += o.stopped as usize;
        self.span += o.span as usize;
        if !o.stopped {
            self.answered += 1;
            self.citations += o.cited.len();
        }
    }

    fn figures(&self) -> HitFigures {
        let share = |x: usize| x as f64 / self.n.max(1) as f64;
        HitFigures {
            n: self.n,
            hit1: share(self.hit1),
            hit3: share(self.hit3),
            stopped: share(self.stopped),
            span_recall5: share(self.span),
            citations: self.citations as f64 / self.answered.max(1) as f64,
        }
    }
}

/// Figures of a group of unanswerable questions.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StopFigures {
    /// Questions.
    pub n: usize,
    /// Share stopped by the gate (right).
    pub stopped: f64,
}

/// One question the eval got wrong (for reading the failures).
#[derive(Debug, Clone, Serialize)]
pub struct Miss {
    /// Record id.
    pub id: String,
    /// The question.
    pub question: String,
    /// The expected page, `file p.N`.
    pub expected: String,
    /// The citations shown, `file p.N`, in order (empty when stopped).
    pub cited: Vec<String>,
}

/// The report of one configuration.
#[derive(Debug, Clone, Default, Serialize)]
pub struct StudentReport {
    /// Configuration name.
    pub config: String,
    /// All answerable questions.
    pub overall: HitFigures,
    /// Per language.
    pub by_language: BTreeMap<String, HitFigures>,
    /// Per question kind.
    pub by_kind: BTreeMap<String, HitFigures>,
    /// Unanswerable questions, all.
    pub off_topic: StopFigures,
    /// Unanswerable questions per subject.
    pub off_topic_by_subject: BTreeMap<String, StopFigures>,
    /// Unanswerable questions per language.
    pub off_topic_by_language: BTreeMap<String, StopFigures>,
    /// Second turns of the follow-up pairs.
    pub followups: HitFigures,
    /// Median / 95th-percentile time per answerable question (ms).
    pub median_ms: f64,
    /// 95th percentile (ms).
    pub p95_ms: f64,
    /// Records skipped (their book or file is not in the library).
    pub skipped: usize,
    /// Answerable questions missed at 3 and unanswerable questions not stopped.
    pub misses: Vec<Miss>,
    /// What the gate saw for each question, with `true` for an answerable one (for fitting the
    /// gate, `tests/eval/fit_gate.py`).
    #[serde(skip)]
    pub gate_samples: Vec<(crate::retrieve::gate::GateInput, bool)>,
}

/// A named configuration of the retrieval pipeline.
pub type Config<'a> = (&'a str, &'a PipelineConfig);

struct Outcome {
    hit1: bool,
    hit3: bool,
    stopped: bool,
    span: bool,
    cited: Vec<String>,
}

fn read_jsonl<T: for<'de> Deserialize<'de>>(path: &Path) -> Result<Vec<T>> {
    let text = std::fs::read_to_string(path).map_err(|e| VidyaError::io(path, e))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).map_err(|e| {
                VidyaError::BadOption(format!(
                    "{} line {}: not a record of the eval set ({e})",
                    path.display(),
                    i + 1
                ))
            })
        })
        .collect()
}

fn file_name(p: &str) -> String {
    Path::new(p)
        .file_name()
        .map(|n| n.to_string_lossy().to_string())
        .unwrap_or_else(|| p.to_string())
}

/// Maps a record's book title to the library's book id: the book whose title equals it
/// (ignoring case), else the one whose title contains it.
fn book_ids(engine: &Engine) -> Result<Vec<(i64, String)>> {
    Ok(engine
        .library()
        .books()?
        .into_iter()
        .map(|b| (b.id, b.title.to_lowercase()))
        .collect())
}

fn find_book(books: &[(i64, String)], title: &str) -> Option<i64> {
    let t = title.to_lowercase();
    books
        .iter()
        .find(|(_, b)| *b == t)
        .or_else(|| books.iter().find(|(_, b)| b.contains(&t)))
        .map(|(id, _)| *id)
}

fn located(c: &Citation) -> String {
    format!("{} p.{}", c.file, c.pdf_page)
}

fn score(
    engine: &Engine,
    q: &StudentQuestion,
    book: i64,
    citations: &[Citation],
    gated: bool,
    ranked: &[i64],
) -> Result<Outcome> {
    let (file, page) = (file_name(&q.source.pdf_file), q.source.pdf_pages.0);
    let on_page = |c: &Citation| c.book_id == book && c.file == file && c.pdf_page == page;
    let lib = engine.library();
    let mut span = false;
    for id in ranked.iter().take(5) {
        let Some(chunk) = lib.chunk(*id)? else {
            continue;
        };
        if chunk.book_id != book {
            continue;
        }
        for ordinal in chunk.first_page..=chunk.last_page {
            if let Some(p) = lib.page(book, ordinal)? {
                if p.file_name == file && p.pdf_page == page {
                    span = true;
                }
            }
        }
    }
    Ok(Outcome {
        hit1: citations.first().is_some_and(on_page),
        hit3: citations.iter().take(3).any(on_page),
        stopped: gated,
        span,
        cited: citations.iter().map(located).collect(),
    })
}

/// A question of the gate's training set (`tests/eval/gate_train.jsonl`): answerable or not.
#[derive(Debug, Clone, Deserialize)]
pub struct GateTrainQuestion {
    /// The question.
    pub question: String,
    /// True when the books answer it.
    pub answerable: bool,
}

/// What the gate sees for each question of `path` (a [`GateTrainQuestion`] JSONL), with its
/// label, for fitting the gate (`tests/eval/fit_gate.py`).
///
/// Errors: unreadable or malformed file, database or model errors.
pub fn gate_samples(
    engine: &Engine,
    path: &Path,
    cfg: &PipelineConfig,
) -> Result<Vec<(crate::retrieve::gate::GateInput, bool)>> {
    let opts = AskOptions {
        pipeline: cfg.clone(),
        ..AskOptions::default()
    };
    let mut out = Vec::new();
    for q in read_jsonl::<GateTrainQuestion>(path)? {
        let r = engine.ask(&q.question, &opts)?;
        out.push((r.retrieval.gate_input, q.answerable));
    }
    Ok(out)
}

/// Runs the set for each configuration of `configs` (the first is what `vidya ask` uses when
/// it is [`PipelineConfig::default`]). `students`: answerable questions; `off_topic`:
/// unanswerable ones; `followups`: pairs (asked through `tutor` without a model, with the
/// default configuration only, since a conversation runs the tutor's own pipeline).
///
/// Errors: unreadable or malformed files, an empty selection, database or model errors.
pub fn student_eval(
    tutor: &Tutor,
    students: &Path,
    off_topic: Option<&Path>,
    followups: Option<&Path>,
    split: Split,
    configs: &[Config<'_>],
    limit: Option<usize>,
) -> Result<Vec<StudentReport>> {
    let engine = tutor.engine();
    let books = book_ids(engine)?;
    let take = limit.unwrap_or(usize::MAX);
    let questions: Vec<StudentQuestion> = read_jsonl(students)?
        .into_iter()
        .filter(|q: &StudentQuestion| split.takes(&q.split))
        .take(take)
        .collect();
    if questions.is_empty() {
        return Err(VidyaError::BadOption(format!(
            "{} has no questions in the {split:?} split",
            students.display()
        )));
    }
    let off: Vec<OffTopicQuestion> = match off_topic {
        Some(p) => read_jsonl(p)?
            .into_iter()
            .filter(|q: &OffTopicQuestion| split.takes(&q.split))
            .take(take)
            .collect(),
        None => Vec::new(),
    };
    let pairs: Vec<FollowupPair> = match followups {
        Some(p) => read_jsonl(p)?
            .into_iter()
            .filter(|q: &FollowupPair| split.takes(&q.split))
            .collect(),
        None => Vec::new(),
    };
    let mut reports = Vec::new();
    for (name, cfg) in configs {
        let mut report = StudentReport {
            config: name.to_string(),
            ..Default::default()
        };
        let opts = AskOptions {
            pipeline: (*cfg).clone(),
            ..AskOptions::default()
        };
        answerable_figures(engine, &books, &questions, &opts, &mut report)?;
        off_topic_figures(engine, &off, &opts, &mut report)?;
        reports.push(report);
    }
    // Follow-ups: through the tutor (its own pipeline), once.
    if !pairs.is_empty() {
        let (figures, misses) = followup_figures(tutor, &books, &pairs)?;
        if let Some(first) = reports.first_mut() {
            first.followups = figures;
            first.misses.extend(misses);
        }
    }
    Ok(reports)
}

/// Hit@1/hit@3, page span and stop rates of the answerable `questions`, overall, by language
/// and by kind, with the retrieval times and a miss for each question not found in the top 3.
fn answerable_figures(
    engine: &Engine,
    books: &[(i64, String)],
    questions: &[StudentQuestion],
    opts: &AskOptions,
    report: &mut StudentReport,
) -> Result<()> {
    let (mut all, mut langs, mut kinds) = (
        HitAcc::default(),
        BTreeMap::<String, HitAcc>::new(),
        BTreeMap::<String, HitAcc>::new(),
    );
    let mut times = Vec::new();
    for q in questions {
        let Some(book) = find_book(books, &q.source.book) else {
            report.skipped += 1;
            continue;
        };
        let t = std::time::Instant::now();
        let r = engine.ask(&q.question, opts)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        report.gate_samples.push((r.retrieval.gate_input, true));
        let ranked: Vec<i64> = r.retrieval.ranked.iter().map(|c| c.chunk_id).collect();
        let o = score(engine, q, book, &r.citations, r.gated, &ranked)?;
        all.add(&o);
        langs.entry(q.language.clone()).or_default().add(&o);
        kinds.entry(q.kind.clone()).or_default().add(&o);
        if !o.hit3 {
            report.misses.push(Miss {
                id: q.id.clone(),
                question: q.question.clone(),
                expected: format!(
                    "{} p.{}",
                    file_name(&q.source.pdf_file),
                    q.source.pdf_pages.0
                ),
                cited: o.cited,
            });
        }
    }
    report.overall = all.figures();
    report.by_language = langs.into_iter().map(|(k, v)| (k, v.figures())).collect();
    report.by_kind = kinds.into_iter().map(|(k, v)| (k, v.figures())).collect();
    report.median_ms = quantile(&times, 0.5);
    report.p95_ms = quantile(&times, 0.95);
    Ok(())
}

/// The share of the `off`-topic questions the gate stopped, overall, by subject and by
/// language, with a miss for each one answered.
fn off_topic_figures(
    engine: &Engine,
    off: &[OffTopicQuestion],
    opts: &AskOptions,
    report: &mut StudentReport,
) -> Result<()> {
    let mut stop_all = (0usize, 0usize);
    let mut subjects: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut off_langs: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for q in off {
        let r = engine.ask(&q.question, opts)?;
        report.gate_samples.push((r.retrieval.gate_input, false));
        let stopped = r.gated as usize;
        for acc in [
            &mut stop_all,
            subjects.entry(q.subject.clone()).or_default(),
            off_langs.entry(q.language.clone()).or_default(),
        ] {
            acc.0 += 1;
            acc.1 += stopped;
        }
        if !r.gated {
            report.misses.push(Miss {
                id: q.id.clone(),
                question: q.question.clone(),
                expected: "stopped".into(),
                cited: r.citations.iter().map(located).collect(),
            });
        }
    }
    let stop = |(n, s): (usize, usize)| StopFigures {
        n,
        stopped: s as f64 / n.max(1) as f64,
    };
    report.off_topic = stop(stop_all);
    report.off_topic_by_subject = subjects.into_iter().map(|(k, v)| (k, stop(v))).collect();
    report.off_topic_by_language = off_langs.into_iter().map(|(k, v)| (k, stop(v))).collect();
    Ok(())
}

/// Each follow-up pair asked as a conversation through `tutor` (no model, no cache; the
/// conversation deleted after): the second turn's figures, and a miss for each not found in
/// the top 3.
fn followup_figures(
    tutor: &Tutor,
    books: &[(i64, String)],
    pairs: &[FollowupPair],
) -> Result<(HitFigures, Vec<Miss>)> {
    let engine = tutor.engine();
    let mut acc = HitAcc::default();
    let mut misses = Vec::new();
    for pair in pairs {
        let [first, second] = pair.turns.as_slice() else {
            continue;
        };
        let Some(book) = find_book(books, &second.source.book) else {
            continue;
        };
        let opts = TutorOptions {
            use_llm: false,
            use_cache: false,
            ..TutorOptions::default()
        };
        let a = tutor.ask(&first.question, &opts, &mut |_| {}, None)?;
        let conversation = a.conversation_id;
        let b = tutor.ask(
            &second.question,
            &TutorOptions {
                conversation,
                ..opts
            },
            &mut |_| {},
            None,
        )?;
        if let Some(id) = conversation {
            engine.library().delete_conversation(id)?;
        }
        let o = score(engine, second, book, &b.base.citations, b.base.gated, &[])?;
        if !o.hit3 {
            misses.push(Miss {
                id: pair.id.clone(),
                question: format!(
                    "{} → {} (searched: {})",
                    first.question, second.question, b.query
                ),
                expected: format!(
                    "{} p.{}",
                    file_name(&second.source.pdf_file),
                    second.source.pdf_pages.0
                ),
                cited: o.cited.clone(),
            });
        }
        acc.add(&o);
    }
    Ok((acc.figures(), misses))
}
