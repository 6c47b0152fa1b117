//! The extractive answer: the best-matching sentences of the top passages, quoted with `[n]`
//! and a citation (book, printed page).
//!
//! For each passage (in retrieval order) its sentences are scored by the summed BM25 idf of the
//! distinct question terms they contain; the best sentence is kept with up to two more from the
//! same page that score at least half as well, in reading order. A citation therefore always
//! names the one printed page that holds every quoted sentence.

use crate::error::Result;
use crate::ingest::chunk::page_at;
use crate::store::{ChunkRecord, Library};
use crate::text::{split_sentences, Tokenizer};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// Most sentences quoted from one passage.
pub const MAX_SENTENCES_PER_CITATION: usize = 3;

/// One numbered source of an answer (the `citations` items of `vidya ask --json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Citation {
    /// The `[n]` number used in the answer (1-based).
    pub n: usize,
    /// Book title.
    pub book: String,
    /// Chapter title.
    pub chapter: String,
    /// File name the page is in.
    pub file: String,
    /// 1-based page number inside that file.
    pub pdf_page: u32,
    /// Printed page label.
    pub page_label: String,
    /// The quoted text.
    pub text: String,
}

/// An extractive answer.
#[derive(Debug, Clone, Serialize)]
pub struct ExtractiveAnswer {
    /// Text shown to the student, with `[n]` markers.
    pub answer: String,
    /// Sources, numbered from 1.
    pub citations: Vec<Citation>,
}

/// The sentence shown when retrieval finds nothing relevant.
pub const NOT_FOUND: &str = "I could not find this in your textbooks. Try asking with other words, or ask your teacher to add the book that covers it.";

/// Score factor for heading-like sentences (see [`is_heading_like`]).
pub const HEADING_WEIGHT: f32 = 0.3;

/// True for lines without a sentence end (no final `.`, `?`, `!`, `।` or `॥`) that are short
/// (fewer than 10 words) or list items: headings, labels, learning objectives.
pub fn is_heading_like(sentence: &str) -> bool {
    let ends = sentence
        .trim_end()
        .trim_end_matches(['"', '”', ')', ']'])
        .ends_with(['.', '?', '!', '।', '॥']);
    let bullet = sentence.trim_start().starts_with(['•', '◦', '▪', '–', '*']);
    !ends && (bullet || sentence.split_whitespace().count() < 10)
}

/// True for pieces that are not the book's own prose sentences: they start in the middle of a
/// sentence (lowercase first letter) or are figure alt text (`[Image omitted: …]`).
pub fn is_fragment(sentence: &str) -> bool {
    let t = sentence.trim_start();
    t.starts_with("[Image") || t.chars().next().is_some_and(|c| c.is_lowercase())
}

struct Scored {
    text: String,
    page: usize,
    score: f32,
    order: usize,
}

/// Builds the extractive answer from `passages` (best first), quoting at most `max_citations`
/// of them. `idf` weighs question terms (see [`crate::search::Bm25Index::idf`]).
pub fn compose(
    lib: &Library,
    tokenizer: &Tokenizer,
    question_terms: &[String],
    passages: &[ChunkRecord],
    idf: &dyn Fn(&str) -> f32,
    max_citations: usize,
) -> Result<ExtractiveAnswer> {
    let q: HashSet<&str> = question_terms.iter().map(String::as_str).collect();
    let mut quoted: HashSet<String> = HashSet::new();
    let mut citations = Vec::new();
    for chunk in passages {
        if citations.len() >= max_citations {
            break;
        }
        let sentences: Vec<Scored> = split_sentences(&chunk.text)
            .into_iter()
            .enumerate()
            .map(|(order, s)| {
                let text = s.slice(&chunk.text).replace('\n', " ");
                let terms: HashSet<String> = tokenizer.terms(&text).into_iter().collect();
                let matched: f32 = terms
                    .iter()
                    .filter(|t| q.contains(t.as_str()))
                    .map(|t| idf(t))
                    .sum();
                // A heading ("8.2 The Light-Dependent Reactions") matches the question's words
                // but answers nothing: quote it only when no real sentence matches.
                let score = if is_heading_like(&text) || is_fragment(&text) {
                    matched * HEADING_WEIGHT
                } else {
                    matched
                };
                Scored {
                    page: page_at(&chunk.page_starts, s.start),
                    text,
                    score,
                    order,
                }
            })
            .filter(|s| !quoted.contains(&s.text))
            .collect();
        let Some(best) = sentences.iter().filter(|s| s.score > 0.0).max_by(|a, b| {
            a.score
                .total_cmp(&b.score)
                .then(b.text.len().cmp(&a.text.len()))
        }) else {
            continue;
        };
        let mut keep: Vec<&Scored> = sentences
            .iter()
            .filter(|s| {
                s.page == best.page
                    && s.order != best.order
                    && s.score >= best.score * 0.5
                    && !is_heading_like(&s.text)
                    && !is_fragment(&s.text)
            })
            .collect();
        keep.sort_by(|a, b| b.score.total_cmp(&a.score));
        keep.truncate(MAX_SENTENCES_PER_CITATION - 1);
        keep.push(best);
        keep.sort_by_key(|s| s.order);
        // Sentences that were not next to each other are joined with an ellipsis.
        let mut text = String::new();
        for (i, s) in keep.iter().enumerate() {
            if i > 0 {
                text.push_str(if s.order == keep[i - 1].order + 1 {
                    " "
                } else {
                    " … "
                });
            }
            text.push_str(&s.text);
        }
        for s in &keep {
            quoted.insert(s.text.clone());
        }
        let Some(page) = lib.page(chunk.book_id, best.page)? else {
            continue;
        };
        citations.push(Citation {
            n: citations.len() + 1,
            book: chunk.book_title.clone(),
            chapter: chunk.chapter_title.clone(),
            file: page.file_name,
            pdf_page: page.pdf_page,
            page_label: page.label,
            text,
        });
    }
    if citations.is_empty() {
        return Ok(ExtractiveAnswer {
            answer: NOT_FOUND.to_string(),
            citations,
        });
    }
    let mut answer = String::from("From your textbook:\n");
    for c in &citations {
        answer.push_str(&format!(
            "\n[{}] {} ({}, p. {})\n",
            c.n, c.text, c.book, c.page_label
        ));
    }
    Ok(ExtractiveAnswer {
        answer: answer.trim_end().to_string(),
        citations,
    })
}
