//! Ingesting a collection of short documents (a BEIR corpus, XQuAD paragraphs) as one book:
//! each document is one page (its page label is the document id) and one chunk.
//!
//! Used by `vidya eval --beir`; the book goes through the same single transaction, BM25 terms
//! and dense vectors (chunk and sentence vectors) as a textbook.

use crate::error::{Result, VidyaError};
use crate::ingest::{IngestOptions, Progress};
use crate::store::{Library, NewBook, NewChapter, NewChunk, NewFile, NewPage};
use crate::text::{estimate_tokens, Tokenizer};

/// One document: id and text.
#[derive(Debug, Clone)]
pub struct Document {
    /// Document id (stored as the page label).
    pub id: String,
    /// Text (title and body).
    pub text: String,
}

/// Stores `docs` as the book `title` identified by `sha256` (nothing is written when a book
/// with that sha256 exists; its id is returned). Returns the book id.
///
/// Errors: [`VidyaError::Empty`] for no documents, [`VidyaError::Cancelled`], model and
/// database errors.
pub fn ingest_documents(
    lib: &mut Library,
    title: &str,
    sha256: &str,
    source: &std::path::Path,
    docs: &[Document],
    opts: &IngestOptions,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<i64> {
    if let Some(id) = lib.book_by_sha(sha256)? {
        return Ok(id);
    }
    if docs.is_empty() {
        return Err(VidyaError::Empty {
            path: source.to_path_buf(),
            why: "no documents".into(),
        });
    }
    let tokenizer = Tokenizer::new();
    let mut chunks: Vec<NewChunk> = docs
        .iter()
        .enumerate()
        .map(|(i, d)| NewChunk {
            chapter: 0,
            first_page: i,
            last_page: i,
            terms: tokenizer.terms(&d.text),
            token_count: estimate_tokens(&d.text),
            page_starts: vec![(0, i)],
            text: d.text.clone(),
            vector: None,
            kind: crate::ingest::blocks::BlockKind::Body,
            context: String::new(),
            sentence_vectors: None,
        })
        .collect();
    // The same embedding as a textbook's (chunk and sentence vectors), so a BEIR or XQuAD
    // measurement runs the pipeline a student gets, sentence rescoring included.
    let embedding_model = match &opts.embedder {
        Some(e) => {
            let cancel = opts.cancel.clone();
            crate::ingest::reindex::embed_chunks(
                e,
                &mut chunks,
                &mut |done, total| on_progress(Progress::Embedding { done, total }),
                &|| {
                    cancel
                        .as_ref()
                        .is_none_or(|c| !c.load(std::sync::atomic::Ordering::SeqCst))
                },
            )?;
            Some(e.model_id())
        }
        None => None,
    };
    let language = crate::text::script::detect_language(
        &docs
            .iter()
            .take(50)
            .map(|d| d.text.as_str())
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .to_string();
    let name = source
        .file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let book = NewBook {
        title: title.to_string(),
        language,
        sha256: sha256.to_string(),
        source_path: source.to_string_lossy().to_string(),
        files: vec![NewFile {
            path: source.to_string_lossy().to_string(),
            name,
            sha256: sha256.to_string(),
            page_count: docs.len(),
        }],
        chapters: vec![NewChapter {
            title: title.to_string(),
            first_page: 0,
            last_page: docs.len() - 1,
        }],
        pages: docs
            .iter()
            .enumerate()
            .map(|(i, d)| NewPage {
                file: 0,
                chapter: 0,
                pdf_page: (i + 1) as u32,
                label: d.id.clone(),
                text: d.text.clone(),
                ocr: None,
            })
            .collect(),
        chunks,
        warnings: Vec::new(),
        embedding_model,
        replaces: opts.replaces,
    };
    on_progress(Progress::Writing);
    lib.insert_book(&book, || {})
}
