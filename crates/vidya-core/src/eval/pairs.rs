//! The answer check on labelled pairs (`vidya eval --grounding FILE`): each record's answer is
//! checked against its sources exactly as the tutor checks a model's answer
//! ([`crate::answer::grounding::ground`], with the meaning check of
//! [`crate::answer::verify`]), the sources numbered `[1]`, `[2]`, … in order.
//!
//! Records are JSONL: `{"id", "sources": [..], "answer"}`; `label` (`supported`,
//! `contradicted`, `unsupported`), `kind`, `language` and `split` are read when present and
//! other fields ignored. A pair is **rejected** when any of its answer's statements is removed
//! or cannot be checked, and **kept** when every statement is supported. The figures: the share
//! of contradicted and unsupported pairs rejected and of supported pairs kept, per label, kind
//! and language.

use crate::answer::grounding::{self, Verdict};
use crate::answer::Citation;
use crate::embed::Embedder;
use crate::error::{Result, VidyaError};
use crate::text::Tokenizer;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// One record of a pair file.
#[derive(Debug, Clone, Deserialize)]
pub struct PairRecord {
    /// The record's id.
    pub id: serde_json::Value,
    /// The source passages, in the order the model was given them.
    pub sources: Vec<String>,
    /// The answer (one sentence or more).
    pub answer: String,
    /// `supported`, `contradicted` or `unsupported`, when labelled.
    #[serde(default)]
    pub label: Option<String>,
    /// The kind of change (`paraphrase`, `negation`, …), when given.
    #[serde(default)]
    pub kind: Option<String>,
    /// The answer's language, when given.
    #[serde(default)]
    pub language: Option<String>,
    /// `dev` or `test`, when given.
    #[serde(default)]
    pub split: Option<String>,
}

/// One answer sentence and what the check decided.
#[derive(Debug, Clone, Serialize)]
pub struct SentenceResult {
    /// The sentence.
    pub text: String,
    /// `supported`, `removed`, `not_a_fact` or `unchecked`.
    pub verdict: Verdict,
    /// Why it was removed (the meaning check's findings, or "no source supports it").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
}

/// One record checked.
#[derive(Debug, Clone, Serialize)]
pub struct PairResult {
    /// The record's id.
    pub id: serde_json::Value,
    /// Its sentences.
    pub sentences: Vec<SentenceResult>,
    /// True when a statement was removed or could not be checked.
    #[serde(skip)]
    pub rejected: bool,
    /// Time the check took (ms).
    #[serde(skip)]
    pub ms: f64,
}

/// Shares of one group of pairs.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PairFigures {
    /// Pairs.
    pub n: usize,
    /// Pairs rejected.
    pub rejected: usize,
}

impl PairFigures {
    /// Share rejected (0..=1).
    pub fn rejected_share(&self) -> f64 {
        self.rejected as f64 / self.n.max(1) as f64
    }
}

/// The figures of a pair file.
#[derive(Debug, Clone, Default, Serialize)]
pub struct PairReport {
    /// Per label (`supported`, `contradicted`, `unsupported`, `-` when unlabelled).
    pub by_label: BTreeMap<String, PairFigures>,
    /// Per label and kind (`label/kind`).
    pub by_kind: BTreeMap<String, PairFigures>,
    /// Per label and language (`label/language`).
    pub by_language: BTreeMap<String, PairFigures>,
    /// Median and 95th percentile time per pair (ms).
    pub ms_p50: f64,
    /// 95th percentile time per pair (ms).
    pub ms_p95: f64,
    /// Records skipped (not parseable).
    pub skipped: usize,
}

/// Reads a pair file; `split` keeps records of that split (and those without one).
/// Errors: the file cannot be read; no record parses.
pub fn read_pairs(path: &Path, split: Option<&str>) -> Result<(Vec<PairRecord>, usize)> {
    let text = std::fs::read_to_string(path).map_err(|e| VidyaError::io(path, e))?;
    let mut skipped = 0;
    let mut out = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<PairRecord>(line) {
            Ok(r) if split.is_none_or(|s| r.split.as_deref().is_none_or(|x| x == s)) => out.push(r),
            Ok(_) => {}
            Err(_) => skipped += 1,
        }
    }
    if out.is_empty() {
        return Err(VidyaError::BadOption(format!(
            "no pairs in {}: each line must be a JSON object with \"id\", \"sources\" (a list of texts) and \"answer\"",
            path.display()
        )));
    }
    Ok((out, skipped))
}

/// The sources as the tutor's citations `[1]`, `[2]`, ….
fn citations(sources: &[String]) -> Vec<Citation> {
    sources
        .iter()
        .enumerate()
        .map(|(i, text)| Citation {
            n: i + 1,
            book: String::new(),
            chapter: String::new(),
            file: String::new(),
            pdf_page: 0,
            page_label: String::new(),
            text: text.clone(),
            book_id: 0,
            page: 0,
        })
        .collect()
}

/// Checks one record (`words_only`: without the meaning check, as before it). Errors: the
/// embedder failed.
pub fn check_pair(
    rec: &PairRecord,
    embedder: Option<&Embedder>,
    tokenizer: &Tokenizer,
    words_only: bool,
) -> Result<PairResult> {
    let t = Instant::now();
    let sources = citations(&rec.sources);
    let mut grounder = grounding::Grounder::new(&sources, embedder, tokenizer)?;
    if words_only {
        grounder = grounder.words_only();
    }
    let g = grounder.check(&rec.answer)?;
    let sentences: Vec<SentenceResult> = g
        .sentences
        .iter()
        .map(|s| SentenceResult {
            text: s.text.clone(),
            verdict: s.verdict,
            reasons: if s.verdict == Verdict::Removed {
                if s.findings.is_empty() {
                    vec!["no source supports it".into()]
                } else {
                    s.findings.iter().map(|f| f.describe()).collect()
                }
            } else {
                Vec::new()
            },
        })
        .collect();
    let rejected = sentences
        .iter()
        .any(|s| matches!(s.verdict, Verdict::Removed | Verdict::Unchecked))
        || !sentences.iter().any(|s| s.verdict == Verdict::Supported);
    Ok(PairResult {
        id: rec.id.clone(),
        sentences,
        rejected,
        ms: t.elapsed().as_secs_f64() * 1e3,
    })
}

/// The report over `records` and their `results` (in the same order).
pub fn report(records: &[PairRecord], results: &[PairResult], skipped: usize) -> PairReport {
    let mut r = PairReport {
        skipped,
        ..Default::default()
    };
    let mut times: Vec<f64> = Vec::new();
    for (rec, res) in records.iter().zip(results) {
        let label = rec.label.clone().unwrap_or_else(|| "-".into());
        let kind = rec.kind.clone().unwrap_or_else(|| "-".into());
        let lang = rec.language.clone().unwrap_or_else(|| "-".into());
        for (map, key) in [
            (&mut r.by_label, label.clone()),
            (&mut r.by_kind, format!("{label}/{kind}")),
            (&mut r.by_language, format!("{label}/{lang}")),
        ] {
            let f = map.entry(key).or_default();
            f.n += 1;
            f.rejected += res.rejected as usize;
        }
        times.push(res.ms);
    }
    if !times.is_empty() {
        r.ms_p50 = super::quantile(&times, 0.5);
        r.ms_p95 = super::quantile(&times, 0.95);
    }
    r
}
