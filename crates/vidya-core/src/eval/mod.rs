//! Measuring the pipeline: page-level retrieval, gate, context tokens and answer-sentence
//! retention on textbook QA sets ([`book`]), nDCG@10 on BEIR folders ([`beir`]), and the
//! tutor's answers with a real model ([`answers`]), and text extraction's character error rate
//! against ground truth ([`extraction`]).
//!
//! QA sets use the JSONL format of `shared/data/README.md`:
//! `{id, question, answers[], options?, source: {pdf_file, pdf_pages: [a, b]}}`.

use crate::error::{Result, VidyaError};
use serde::{Deserialize, Serialize};
use std::io::BufRead;
use std::path::Path;

#[derive(Debug, Deserialize)]
pub(crate) struct QaSource {
    pub(crate) pdf_file: Option<String>,
    pub(crate) pdf_pages: Option<(u32, u32)>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct QaRecord {
    pub(crate) question: String,
    #[serde(default)]
    pub(crate) options: Vec<String>,
    #[serde(default)]
    pub(crate) answers: Vec<String>,
    pub(crate) source: Option<QaSource>,
}

/// A QA record whose answer is located: its file name and page span (ascending).
#[derive(Debug)]
pub(crate) struct QaItem {
    pub(crate) question: String,
    pub(crate) options: Vec<String>,
    pub(crate) answers: Vec<String>,
    pub(crate) file: String,
    pub(crate) pages: (u32, u32),
}

/// Reads a QA JSONL file: one entry per non-blank line, `None` for a line that is not UTF-8,
/// not a record, or has no `source.pdf_file`/`pdf_pages`.
pub(crate) fn read_qa(qa_path: &Path) -> Result<Vec<Option<QaItem>>> {
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
                    file,
                    pages: (a.min(b), a.max(b)),
                })
            });
        out.push(item);
    }
    Ok(out)
}

pub mod answers;
pub mod beir;
pub mod book;
pub mod corpus;
pub mod extraction;
pub mod pairs;
pub mod student;

pub use answers::{answer_quality, AnswerReport, MAX_EXPECTED_WORDS};

/// Reads the `question` of every JSONL line of `path` (for unanswerable-question sets, which
/// need no source). Lines without a question are skipped.
pub(crate) fn read_questions(path: &Path) -> Result<Vec<String>> {
    let text = std::fs::read(path).map_err(|e| VidyaError::io(path, e))?;
    Ok(String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.get("question")?.as_str().map(str::to_string))
        .filter(|q| !q.trim().is_empty())
        .collect())
}

/// The value at quantile `q` (0..=1, nearest rank) of `values`; 0 for none.
pub fn quantile(values: &[f64], q: f64) -> f64 {
    if values.is_empty() {
        return 0.0;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let i = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len()) - 1;
    v[i]
}

/// True when `phrase` occurs in `text` as whole words (case-insensitive).
pub fn contains_phrase(text: &str, phrase: &str) -> bool {
    let p = phrase.trim().to_lowercase();
    if p.is_empty() {
        return false;
    }
    regex::Regex::new(&format!(r"(^|\W){}($|\W)", regex::escape(&p)))
        .map(|re| re.is_match(&text.to_lowercase()))
        .unwrap_or(false)
}

/// A named stage configuration compared by `vidya eval`.
#[derive(Debug, Clone, Serialize)]
pub struct NamedConfig {
    /// Short name (`bm25`, `dense`, `hybrid`, `hybrid+router`, `hybrid+rerank`, `full`).
    pub name: String,
    /// The stages.
    pub config: crate::retrieve::PipelineConfig,
}

/// The configurations `vidya eval` compares, in order: BM25 only, dense only, hybrid with RRF,
/// hybrid with weighted fusion (the default fusion), hybrid + router, hybrid + rerank (when a reranker is
/// installed), and the full pipeline (+ gate, budget, pruning).
pub fn standard_configs(has_reranker: bool) -> Vec<NamedConfig> {
    use crate::retrieve::fusion::Fusion;
    use crate::retrieve::PipelineConfig;
    let retrieval_only = PipelineConfig::retrieval_only();
    let mut out = vec![
        (
            "bm25",
            PipelineConfig {
                dense: false,
                ..retrieval_only.clone()
            },
        ),
        (
            "dense",
            PipelineConfig {
                bm25: false,
                ..retrieval_only.clone()
            },
        ),
        (
            "hybrid",
            PipelineConfig {
                fusion: Fusion::Rrf {
                    k: crate::retrieve::fusion::RRF_K,
                },
                ..retrieval_only.clone()
            },
        ),
        (
            "hybrid-weighted",
            PipelineConfig {
                fusion: Fusion::default(),
                ..retrieval_only.clone()
            },
        ),
        (
            "hybrid+rescore",
            PipelineConfig {
                fusion: Fusion::default(),
                rescore: true,
                ..retrieval_only.clone()
            },
        ),
        (
            "hybrid+router",
            PipelineConfig {
                router: PipelineConfig::default().router,
                ..retrieval_only.clone()
            },
        ),
    ];
    if has_reranker {
        out.push((
            "hybrid+router+rerank",
            PipelineConfig {
                router: PipelineConfig::default().router,
                rerank: true,
                ..retrieval_only.clone()
            },
        ));
    }
    out.push(("full", PipelineConfig::default()));
    out.into_iter()
        .map(|(n, c)| NamedConfig {
            name: n.to_string(),
            config: c,
        })
        .collect()
}

/// The configurations of [`standard_configs`] named in `names` (comma-separated), or all.
///
/// Errors: [`VidyaError::BadOption`] for an unknown name, listing the known ones.
pub fn select_configs(names: Option<&str>, has_reranker: bool) -> Result<Vec<NamedConfig>> {
    let all = standard_configs(has_reranker);
    let Some(names) = names else {
        return Ok(all);
    };
    let picked: Vec<&str> = names
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .collect();
    if picked.is_empty() {
        return Err(VidyaError::BadOption(format!(
            "--configs is empty: name one or more of {}",
            all.iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    picked
        .into_iter()
        .map(|n| {
            if n == "hybrid+router+rerank" && !has_reranker {
                return Err(VidyaError::BadOption(
                    "hybrid+router+rerank needs an installed cross-encoder: install one with `cargo xtask setup --reranker-from <folder>` (no registry carries reranker weights)".into(),
                ));
            }
            all.iter().find(|c| c.name == n).cloned().ok_or_else(|| {
                VidyaError::BadOption(format!(
                    "unknown configuration '{n}': use {}",
                    all.iter()
                        .map(|c| c.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })
        })
        .collect()
}
