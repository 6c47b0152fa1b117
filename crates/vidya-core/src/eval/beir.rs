//! BEIR-format retrieval eval (`corpus.jsonl`, `queries.jsonl`, `qrels/test.tsv`; Thakur et
//! al., "BEIR: A Heterogeneous Benchmark for Zero-shot Evaluation of Information Retrieval
//! Models", NeurIPS 2021).
//!
//! The corpus is stored as one book whose pages are the documents (page label = document id;
//! see [`crate::eval::corpus`]), so every pipeline stage runs as it does for a textbook.
//! Metrics per configuration over the queries that have test judgements: nDCG@10 (gain = the
//! judged relevance, discount log2(rank + 1), as `trec_eval`'s `ndcg_cut_10`), MRR@10 and
//! recall@5/10.

use super::{quantile, NamedConfig};
use crate::engine::Engine;
use crate::error::{Result, VidyaError};
use crate::eval::corpus::Document;
use crate::retrieve::PipelineConfig;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// A BEIR folder read into memory.
#[derive(Debug, Clone)]
pub struct BeirSet {
    /// Documents.
    pub corpus: Vec<Document>,
    /// `(query id, text)` of the judged queries.
    pub queries: Vec<(String, String)>,
    /// Judgements: query id → (document id → relevance).
    pub qrels: HashMap<String, HashMap<String, u32>>,
}

fn jsonl(path: &Path) -> Result<Vec<serde_json::Value>> {
    let text = std::fs::read(path).map_err(|e| VidyaError::io(path, e))?;
    Ok(String::from_utf8_lossy(&text)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect())
}

fn field(v: &serde_json::Value, k: &str) -> String {
    v.get(k)
        .and_then(|x| x.as_str())
        .unwrap_or_default()
        .to_string()
}

/// Reads the BEIR folder `dir` with the judgements of `split` (`qrels/<split>.tsv`: `test`,
/// or `train` to tune on); `queries` replaces `dir/queries.jsonl` (for cross-lingual runs:
/// Hindi queries over an English corpus, or the reverse).
///
/// Errors: missing or unreadable files, no judged query.
pub fn read(dir: &Path, queries: Option<&Path>, split: &str) -> Result<BeirSet> {
    let corpus = jsonl(&dir.join("corpus.jsonl"))?
        .into_iter()
        .map(|v| {
            let (title, text) = (field(&v, "title"), field(&v, "text"));
            Document {
                id: field(&v, "_id"),
                text: if title.is_empty() {
                    text
                } else {
                    format!("{title}\n{text}")
                },
            }
        })
        .filter(|d| !d.id.is_empty() && !d.text.trim().is_empty())
        .collect();
    let qrels_path = dir.join("qrels").join(format!("{split}.tsv"));
    let qrels_text =
        std::fs::read_to_string(&qrels_path).map_err(|e| VidyaError::io(&qrels_path, e))?;
    let mut qrels: HashMap<String, HashMap<String, u32>> = HashMap::new();
    for line in qrels_text.lines().skip(1) {
        let parts: Vec<&str> = line.split('\t').collect();
        if let [q, d, s] = parts[..] {
            if let Ok(s) = s.trim().parse::<u32>() {
                if s > 0 {
                    qrels.entry(q.into()).or_default().insert(d.into(), s);
                }
            }
        }
    }
    let qpath = queries
        .map(Path::to_path_buf)
        .unwrap_or_else(|| dir.join("queries.jsonl"));
    let queries: Vec<(String, String)> = jsonl(&qpath)?
        .into_iter()
        .map(|v| (field(&v, "_id"), field(&v, "text")))
        .filter(|(id, t)| qrels.contains_key(id) && !t.trim().is_empty())
        .collect();
    if queries.is_empty() {
        return Err(VidyaError::BadOption(format!(
            "no judged queries: {} has no query listed in {}",
            qpath.display(),
            qrels_path.display()
        )));
    }
    Ok(BeirSet {
        corpus,
        queries,
        qrels,
    })
}

/// Figures of one configuration.
#[derive(Debug, Clone, Serialize, Default)]
pub struct BeirConfigReport {
    /// Configuration name.
    pub name: String,
    /// Queries evaluated.
    pub queries: usize,
    /// nDCG@10.
    pub ndcg10: f64,
    /// MRR@10.
    pub mrr10: f64,
    /// recall@5.
    pub recall5: f64,
    /// recall@10.
    pub recall10: f64,
    /// Median retrieval time (ms).
    pub median_ms: f64,
    /// 95th-percentile retrieval time (ms).
    pub p95_ms: f64,
}

/// nDCG@10 of `ranked` document ids against `rel`.
pub fn ndcg10(ranked: &[String], rel: &HashMap<String, u32>) -> f64 {
    let dcg: f64 = ranked
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, d)| rel.get(d).copied().unwrap_or(0) as f64 / (i as f64 + 2.0).log2())
        .sum();
    let mut ideal: Vec<u32> = rel.values().copied().collect();
    ideal.sort_unstable_by(|a, b| b.cmp(a));
    let idcg: f64 = ideal
        .iter()
        .take(10)
        .enumerate()
        .map(|(i, r)| *r as f64 / (i as f64 + 2.0).log2())
        .sum();
    if idcg > 0.0 {
        dcg / idcg
    } else {
        0.0
    }
}

/// Runs `configs` over the judged queries of `set` against `engine`, whose library holds the
/// corpus as book `book_id`.
pub fn beir_eval(
    engine: &Engine,
    book_id: i64,
    set: &BeirSet,
    configs: &[NamedConfig],
    limit: Option<usize>,
) -> Result<Vec<BeirConfigReport>> {
    let lib = engine.library();
    let mut label_of: HashMap<i64, String> = HashMap::new();
    let mut rows: Vec<(BeirConfigReport, Vec<f64>)> = configs
        .iter()
        .map(|c| {
            (
                BeirConfigReport {
                    name: c.name.clone(),
                    ..Default::default()
                },
                Vec::new(),
            )
        })
        .collect();
    for (qid, text) in set.queries.iter().take(limit.unwrap_or(usize::MAX)) {
        let rel = &set.qrels[qid];
        for (c, (row, times)) in configs.iter().zip(rows.iter_mut()) {
            let cfg = PipelineConfig {
                keep: 10,
                gate: None,
                budget: None,
                prune: false,
                ..c.config.clone()
            };
            let t = std::time::Instant::now();
            let r = match engine.retrieve(text, Some(&[book_id]), &cfg) {
                Ok(r) => r,
                Err(VidyaError::EmptyQuestion) => continue,
                Err(e) => return Err(e),
            };
            times.push(t.elapsed().as_secs_f64() * 1e3);
            let mut ranked = Vec::new();
            for cand in &r.ranked {
                if let Some(l) = label_of.get(&cand.chunk_id) {
                    ranked.push(l.clone());
                    continue;
                }
                if let Some(chunk) = lib.chunk(cand.chunk_id)? {
                    if let Some(p) = lib.page(chunk.book_id, chunk.first_page)? {
                        label_of.insert(cand.chunk_id, p.label.clone());
                        ranked.push(p.label);
                    }
                }
            }
            row.queries += 1;
            row.ndcg10 += ndcg10(&ranked, rel);
            if let Some(i) = ranked.iter().take(10).position(|d| rel.contains_key(d)) {
                row.mrr10 += 1.0 / (i + 1) as f64;
            }
            let found = |n: usize| {
                ranked
                    .iter()
                    .take(n)
                    .filter(|d| rel.contains_key(*d))
                    .count() as f64
                    / rel.len() as f64
            };
            row.recall5 += found(5);
            row.recall10 += found(10);
        }
    }
    Ok(rows
        .into_iter()
        .map(|(mut r, times)| {
            let n = r.queries.max(1) as f64;
            r.ndcg10 /= n;
            r.mrr10 /= n;
            r.recall5 /= n;
            r.recall10 /= n;
            r.median_ms = quantile(&times, 0.5);
            r.p95_ms = quantile(&times, 0.95);
            r
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ndcg_is_one_for_the_ideal_order_and_discounts_later_hits() {
        let rel: HashMap<String, u32> = [("a".to_string(), 1)].into();
        assert_eq!(ndcg10(&["a".into(), "b".into()], &rel), 1.0);
        let later = ndcg10(&["b".into(), "a".into()], &rel);
        assert!((later - 1.0 / 3f64.log2()).abs() < 1e-9);
        assert_eq!(ndcg10(&[], &rel), 0.0);
    }
}
