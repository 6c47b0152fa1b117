//! The extractive answer: the pruned passages of the retrieval pipeline, quoted with `[n]` and
//! a citation (book, printed page). It is what the student sees when no model can answer, and
//! the sources the model is given when one can.

use crate::error::Result;
use crate::retrieve::prune::{join, KeptSentence, PrunedPassage};
use crate::store::Library;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

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
    /// Book id (0 in answers cached before it was recorded).
    #[serde(default)]
    pub book_id: i64,
    /// Page ordinal inside the book (0-based; with `book_id` it names the page for the page
    /// image).
    #[serde(default)]
    pub page: usize,
}

/// An extractive answer.
#[derive(Debug, Clone, Serialize)]
pub struct ExtractiveAnswer {
    /// Text shown to the student, with `[n]` markers.
    pub answer: String,
    /// Sources, numbered from 1.
    pub citations: Vec<Citation>,
}

/// How much a page's score drops per rank of the passage it comes from (in cosine units):
/// pages are ordered by `best sentence cosine − RANK_PRIOR × passage rank`. Chosen with
/// `vidya eval --students` on the dev split of `tests/eval`: 0 (sentence score alone) gave
/// hit@1 0.571 / hit@3 0.821, 0.005 gave 0.625 / 0.839, 0.05 (passage order) 0.634 / 0.804.
pub const RANK_PRIOR: f32 = 0.005;

/// How much a page's score rises (in cosine units) when one of its sentences defines the term a
/// definition question asks about ([`crate::retrieve::definition`]), so that the definition is
/// cited first. Chosen with `vidya eval --students` on the dev split of `tests/eval`: 0 gave
/// definition questions hit@1 0.625, 0.02 and 0.05 both 0.750 (every question's hit@3 the same);
/// the smaller one moves a page past sentences that match the question much better less often.
pub const DEFINITION_BONUS: f32 = 0.02;

/// The sentence shown when retrieval finds nothing relevant.
pub const NOT_FOUND: &str = "I could not find this in your textbooks. Try asking with other words, or ask your teacher to add the book that covers it.";

/// Builds the extractive answer from the pipeline's pruned `passages` (best first): one
/// numbered citation per printed page, holding the kept sentences on that page in reading
/// order (a page reached by two overlapping passages is cited once), at most `max_citations`
/// of them. Pages are ordered by their best sentence's score (the page whose sentence matches
/// the question best comes first) with a small prior for the passage's rank ([`RANK_PRIOR`]),
/// a page holding the definition a definition question asks for first of all
/// ([`DEFINITION_BONUS`]).
///
/// Errors: database errors while looking up pages.
pub fn from_passages(
    lib: &Library,
    passages: &[PrunedPassage],
    max_citations: usize,
) -> Result<ExtractiveAnswer> {
    struct Page<'a> {
        book_id: i64,
        page: usize,
        first: &'a PrunedPassage,
        sentences: Vec<&'a KeptSentence>,
        best: f32,
        rank: usize,
        defines: bool,
    }
    let mut pages: Vec<Page> = Vec::new();
    let mut quoted: HashSet<&str> = HashSet::new();
    for (rank, p) in passages.iter().enumerate() {
        for s in &p.sentences {
            if !quoted.insert(s.text.as_str()) {
                continue;
            }
            match pages
                .iter_mut()
                .find(|x| x.book_id == p.chunk.book_id && x.page == s.page)
            {
                Some(x) => {
                    x.sentences.push(s);
                    x.best = x.best.max(s.score);
                    x.defines |= s.defines;
                }
                None => pages.push(Page {
                    book_id: p.chunk.book_id,
                    page: s.page,
                    first: p,
                    sentences: vec![s],
                    best: s.score,
                    rank,
                    defines: s.defines,
                }),
            }
        }
    }
    let key = |x: &Page| {
        let definition = if x.defines { DEFINITION_BONUS } else { 0.0 };
        x.best - RANK_PRIOR * x.rank as f32 + definition
    };
    pages.sort_by(|a, b| key(b).total_cmp(&key(a)).then(a.rank.cmp(&b.rank)));
    let mut citations: Vec<Citation> = Vec::new();
    for x in pages {
        if citations.len() >= max_citations {
            break;
        }
        let Some(rec) = lib.page(x.book_id, x.page)? else {
            continue;
        };
        // Reading order within the page: by chunk, then by sentence (overlapping chunks repeat
        // sentences, which were quoted once above).
        let mut on_page = x.sentences;
        on_page.sort_by_key(|s| (s.chunk_id, s.order));
        citations.push(Citation {
            n: citations.len() + 1,
            book: x.first.chunk.book_title.clone(),
            chapter: x.first.chunk.chapter_title.clone(),
            file: rec.file_name,
            pdf_page: rec.pdf_page,
            page_label: rec.label,
            text: join(&on_page),
            book_id: x.book_id,
            page: x.page,
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
