//! Stage 4, the sentence pruner: keeps only the sentences of the budgeted chunks that bear on
//! the question.
//!
//! Each chunk is split into sentences ([`crate::text::split_sentences`]); every sentence is
//! embedded with e5 (`passage: ` prefix, as for chunks) and kept when its cosine with the
//! question is at least the threshold, together with each chunk's first sentence (it usually
//! names the topic). Kept sentences stay in their original order and each keeps the printed
//! page it is on. Without the embedder, a sentence is kept when it contains a question term
//! (BM25 idf weight > 0).

use crate::embed::{cosine, Embedder};
use crate::error::Result;
use crate::ingest::chunk::page_at;
use crate::store::ChunkRecord;
use crate::text::split_sentences;
use serde::Serialize;
use std::collections::HashSet;

/// Default cosine threshold for multilingual-e5-small. e5's cosines are compressed into about
/// 0.7–0.9 (its contrastive training temperature is 0.01, per the model card), so the 0.20 of
/// models with spread-out scores keeps everything; this value was tuned with `vidya eval`
/// (answer-sentence retention against context tokens on Biology 2e).
pub const DEFAULT_THRESHOLD: f32 = 0.85;

/// A sentence kept by the pruner.
#[derive(Debug, Clone, Serialize)]
pub struct KeptSentence {
    /// Text (line breaks made spaces).
    pub text: String,
    /// Page ordinal in its book.
    pub page: usize,
    /// Position among its chunk's sentences.
    pub order: usize,
    /// Cosine with the question (or summed idf of matched terms without the embedder).
    pub score: f32,
}

/// A chunk reduced to its kept sentences.
#[derive(Debug, Clone)]
pub struct PrunedPassage {
    /// The chunk.
    pub chunk: ChunkRecord,
    /// Kept sentences in reading order.
    pub sentences: Vec<KeptSentence>,
}

impl PrunedPassage {
    /// The kept sentences joined (an ellipsis marks a gap).
    pub fn text(&self) -> String {
        join(&self.sentences.iter().collect::<Vec<_>>())
    }
}

/// Joins sentences in order, with " … " where sentences were left out between them.
pub fn join(sentences: &[&KeptSentence]) -> String {
    let mut out = String::new();
    for (i, s) in sentences.iter().enumerate() {
        if i > 0 {
            out.push_str(if s.order == sentences[i - 1].order + 1 {
                " "
            } else {
                " … "
            });
        }
        out.push_str(&s.text);
    }
    out
}

/// How sentences are scored.
pub enum Scorer<'a> {
    /// Cosine with the question's e5 vector.
    Dense {
        /// The embedder.
        embedder: &'a Embedder,
        /// The question's unit vector.
        query: &'a [f32],
        /// Keep at or above this cosine.
        threshold: f32,
    },
    /// Summed idf of question terms present; keep when > 0.
    Lexical {
        /// Tokenizer for sentence terms.
        tokenizer: &'a crate::text::Tokenizer,
        /// Question terms.
        terms: &'a [String],
        /// idf of a term.
        idf: &'a dyn Fn(&str) -> f32,
    },
    /// Keep every sentence (pruning switched off).
    KeepAll,
}

/// Prunes `chunks` with `scorer`. A chunk left with no sentence is dropped.
///
/// Errors: the embedder failed.
pub fn prune(chunks: Vec<ChunkRecord>, scorer: &Scorer<'_>) -> Result<Vec<PrunedPassage>> {
    let mut pieces: Vec<Vec<KeptSentence>> = chunks
        .iter()
        .map(|c| {
            split_sentences(&c.text)
                .into_iter()
                .enumerate()
                .map(|(order, s)| KeptSentence {
                    text: s.slice(&c.text).replace('\n', " ").trim().to_string(),
                    page: page_at(&c.page_starts, s.start),
                    order,
                    score: 0.0,
                })
                .filter(|s| !s.text.is_empty())
                .collect()
        })
        .collect();
    let keep = |s: &KeptSentence, first: bool, threshold: f32| first || s.score >= threshold;
    let threshold = match scorer {
        Scorer::Dense {
            embedder,
            query,
            threshold,
        } => {
            let all: Vec<&str> = pieces.iter().flatten().map(|s| s.text.as_str()).collect();
            let vectors = embedder.embed_passages_batched(&all, &mut |_, _| {}, &|| true)?;
            for (s, v) in pieces.iter_mut().flatten().zip(vectors) {
                s.score = cosine(query, &v);
            }
            *threshold
        }
        Scorer::Lexical {
            tokenizer,
            terms,
            idf,
        } => {
            let q: HashSet<&str> = terms.iter().map(String::as_str).collect();
            for s in pieces.iter_mut().flatten() {
                let t: HashSet<String> = tokenizer.terms(&s.text).into_iter().collect();
                s.score = t
                    .iter()
                    .filter(|t| q.contains(t.as_str()))
                    .map(|t| idf(t))
                    .sum();
            }
            f32::MIN_POSITIVE
        }
        Scorer::KeepAll => f32::MIN,
    };
    Ok(chunks
        .into_iter()
        .zip(pieces)
        .filter_map(|(chunk, sentences)| {
            let sentences: Vec<KeptSentence> = sentences
                .into_iter()
                .filter(|s| keep(s, s.order == 0, threshold))
                .collect();
            (!sentences.is_empty()).then_some(PrunedPassage { chunk, sentences })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_pruning_keeps_first_and_matching_sentences_with_pages() {
        let text = "Cells need energy. Mitochondria make ATP by respiration. The sky is blue. Respiration uses oxygen.";
        let second_page_at = text.find("The sky").unwrap();
        let chunk = ChunkRecord {
            id: 1,
            book_id: 1,
            book_title: "B".into(),
            chapter_title: "C".into(),
            text: text.into(),
            page_starts: vec![(0, 4), (second_page_at, 5)],
            first_page: 4,
            last_page: 5,
        };
        let tok = crate::text::Tokenizer::new();
        let terms = tok.terms("What does respiration make?");
        let idf = |_: &str| 1.0;
        let out = prune(
            vec![chunk],
            &Scorer::Lexical {
                tokenizer: &tok,
                terms: &terms,
                idf: &idf,
            },
        )
        .unwrap();
        let kept: Vec<&str> = out[0].sentences.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            kept,
            vec![
                "Cells need energy.",
                "Mitochondria make ATP by respiration.",
                "Respiration uses oxygen."
            ]
        );
        assert_eq!(out[0].sentences[2].page, 5);
        assert_eq!(
            out[0].text(),
            "Cells need energy. Mitochondria make ATP by respiration. … Respiration uses oxygen."
        );
    }
}
