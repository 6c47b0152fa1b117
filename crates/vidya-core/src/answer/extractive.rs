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

/// The sentence shown when retrieval finds nothing relevant.
pub const NOT_FOUND: &str = "I could not find this in your textbooks. Try asking with other words, or ask your teacher to add the book that covers it.";

/// Builds the extractive answer from the pipeline's pruned `passages` (best first): one
/// numbered citation per passage and printed page, holding that page's kept sentences in
/// reading order, at most `max_citations` of them.
///
/// Errors: database errors while looking up pages.
pub fn from_passages(
    lib: &Library,
    passages: &[PrunedPassage],
    max_citations: usize,
) -> Result<ExtractiveAnswer> {
    let mut citations: Vec<Citation> = Vec::new();
    let mut quoted: HashSet<String> = HashSet::new();
    'passages: for p in passages {
        let mut pages: Vec<usize> = p.sentences.iter().map(|s| s.page).collect();
        pages.dedup();
        for page in pages {
            if citations.len() >= max_citations {
                break 'passages;
            }
            let on_page: Vec<&KeptSentence> = p
                .sentences
                .iter()
                .filter(|s| s.page == page && !quoted.contains(&s.text))
                .collect();
            if on_page.is_empty() {
                continue;
            }
            let Some(rec) = lib.page(p.chunk.book_id, page)? else {
                continue;
            };
            quoted.extend(on_page.iter().map(|s| s.text.clone()));
            citations.push(Citation {
                n: citations.len() + 1,
                book: p.chunk.book_title.clone(),
                chapter: p.chunk.chapter_title.clone(),
                file: rec.file_name,
                pdf_page: rec.pdf_page,
                page_label: rec.label,
                text: join(&on_page),
                book_id: p.chunk.book_id,
                page,
            });
        }
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
