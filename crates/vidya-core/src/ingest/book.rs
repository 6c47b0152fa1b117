//! One book's ingest, step by step: hash its files (a copy, or a book already stored, is
//! found before anything is read) → read each file's pages → lay out pages and chapters →
//! chunk → embed (optional) → store, in one SQLite transaction ([`Library::insert_book`]).

use super::source::{self, ExtractedFile};
use super::{chapters, chunk, quality, reindex};
use super::{BookSource, IngestOptions, IngestReport, Progress, FAULT_PAUSE_ENV};
use crate::error::{Result, VidyaError};
use crate::store::{Library, NewBook, NewChapter, NewChunk, NewFile, NewPage};
use crate::text::{script::detect_language, Tokenizer};
use chapters::ChapterSpan;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Ingests one book into `lib` in a single transaction.
///
/// Re-ingesting identical content (same sha256) writes nothing and reports
/// `already_present`. In a folder book, a file that cannot be read is skipped with a warning;
/// the book fails only when no file can be read (with the first file's error).
///
/// Errors: [`VidyaError::Empty`] (nothing readable or nothing to chunk),
/// [`VidyaError::Cancelled`] (nothing stored), a file's read error for a one-file book,
/// [`VidyaError::PdfiumMissing`], embedding and database errors.
pub fn ingest_book(
    lib: &mut Library,
    src: &BookSource,
    opts: &IngestOptions,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<IngestReport> {
    let t0 = Instant::now();
    let mut warnings: Vec<String> = subfolder_warning(src).into_iter().collect();
    let hashed = hash_files(src, &mut warnings)?;
    let book_sha = book_hash(&hashed.iter().map(|(_, h)| h.clone()).collect::<Vec<_>>());
    if let Some(id) = lib
        .book_by_sha(&book_sha)?
        .filter(|id| Some(*id) != opts.replaces)
    {
        let b = lib.book(id)?;
        return Ok(IngestReport {
            book_id: id,
            title: b.title,
            language: b.language,
            pages: b.page_count as usize,
            chapters: b.chapter_count as usize,
            chunks: b.chunk_count as usize,
            seconds: t0.elapsed().as_secs_f64(),
            already_present: true,
            warnings: vec![],
        });
    }
    let extracted = read_files(src, &hashed, opts, &mut warnings, on_progress)?;

    on_progress(Progress::Indexing);
    let files: Vec<ExtractedFile> = extracted.iter().map(|(f, _)| f.clone()).collect();
    let title = chapters::book_title(
        opts.title.as_deref(),
        &files,
        src.is_folder.then_some(src.path.as_path()),
    );
    let spans = chapters::chapters(&files, &title);
    let (new_files, pages) = lay_out(&extracted, &spans);
    let language = book_language(&pages);
    let mut chunks = chunk_book(&spans, &pages);
    if chunks.is_empty() {
        return Err(VidyaError::Empty {
            path: src.path.clone(),
            why: "no text could be chunked".into(),
        });
    }
    stop_if_cancelled(opts)?;
    let embedding_model = match &opts.embedder {
        Some(embedder) => {
            reindex::embed_chunks(
                embedder,
                &mut chunks,
                &mut |done, total| on_progress(Progress::Embedding { done, total }),
                &|| !cancelled(opts),
            )?;
            Some(embedder.model_id())
        }
        None => None,
    };
    // A cancel that came while the last batch was embedded still stops before the write.
    stop_if_cancelled(opts)?;
    warnings.extend(shared_file_warnings(lib, &extracted, opts.replaces)?);
    let book = NewBook {
        title: title.clone(),
        language: language.clone(),
        sha256: book_sha,
        source_path: absolute(&src.path).to_string_lossy().to_string(),
        files: new_files,
        chapters: spans
            .iter()
            .map(|s| NewChapter {
                title: s.title.clone(),
                first_page: s.first_page,
                last_page: s.last_page,
            })
            .collect(),
        pages,
        chunks,
        warnings: warnings.clone(),
        embedding_model,
        replaces: opts.replaces,
    };
    on_progress(Progress::Writing);
    let (book_id, already_present) = store(lib, &book)?;
    Ok(IngestReport {
        book_id,
        title,
        language,
        pages: book.pages.len(),
        chapters: book.chapters.len(),
        chunks: book.chunks.len(),
        seconds: t0.elapsed().as_secs_f64(),
        already_present,
        warnings: if already_present {
            Vec::new()
        } else {
            warnings
        },
    })
}

fn cancelled(opts: &IngestOptions) -> bool {
    opts.cancel
        .as_ref()
        .is_some_and(|c| c.load(Ordering::Relaxed))
}

fn stop_if_cancelled(opts: &IngestOptions) -> Result<()> {
    if cancelled(opts) {
        return Err(VidyaError::Cancelled);
    }
    Ok(())
}

fn absolute(p: &Path) -> PathBuf {
    dunce::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

fn file_name(p: &Path) -> String {
    p.file_name()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string()
}

/// A folder book's sub-folders are not read: the warning that says so, naming them.
fn subfolder_warning(src: &BookSource) -> Option<String> {
    if !src.is_folder {
        return None;
    }
    let subfolders: Vec<String> = std::fs::read_dir(&src.path)
        .map(|rd| {
            rd.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.is_dir())
                .map(|p| file_name(&p))
                .collect()
        })
        .unwrap_or_default();
    (!subfolders.is_empty()).then(|| {
        format!(
            "sub-folders were not read ({}); add each of them separately if they hold other books",
            subfolders.join(", ")
        )
    })
}

/// The book's files with their sha256 (hex), in book order: a copy of an earlier file is
/// skipped with a warning, and in a folder book so is a file that cannot be read.
///
/// Errors: a one-file book's file cannot be read ([`VidyaError::Io`]); no file is left
/// ([`VidyaError::Empty`]).
fn hash_files(src: &BookSource, warnings: &mut Vec<String>) -> Result<Vec<(PathBuf, String)>> {
    let mut hashed: Vec<(PathBuf, String)> = Vec::with_capacity(src.files.len());
    for f in &src.files {
        let name = file_name(f);
        match crate::native::sha256_file(f) {
            Ok(h) if hashed.iter().any(|(_, seen)| *seen == h) => {
                warnings.push(format!(
                    "skipped {name}: it is a copy of another file in the folder"
                ));
            }
            Ok(h) => hashed.push((f.clone(), h)),
            Err(e) if src.is_folder => {
                warnings.push(format!("skipped {name}: {}", VidyaError::io(f, e)))
            }
            Err(e) => return Err(VidyaError::io(f, e)),
        }
    }
    if hashed.is_empty() {
        return Err(VidyaError::Empty {
            path: src.path.clone(),
            why: "none of its files could be read".into(),
        });
    }
    Ok(hashed)
}

/// The book's identity: its one file's sha256, or the sha256 of its files' hashes, one per
/// line in book order.
fn book_hash(hashes: &[String]) -> String {
    if let [one] = hashes {
        return one.clone();
    }
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for s in hashes {
        h.update(s.as_bytes());
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// Reads each file's pages (reporting [`Progress::Reading`]) and checks its text layer
/// ([`quality::check_text_layer`]). In a folder book a file that fails is skipped with a
/// warning (but a missing PDF library stops the book).
///
/// Errors: [`VidyaError::Cancelled`]; a one-file book's read error; every file failed (the
/// first error).
fn read_files(
    src: &BookSource,
    hashed: &[(PathBuf, String)],
    opts: &IngestOptions,
    warnings: &mut Vec<String>,
    on_progress: &mut dyn FnMut(Progress),
) -> Result<Vec<(ExtractedFile, String)>> {
    let mut extracted: Vec<(ExtractedFile, String)> = Vec::new();
    let mut first_error = None;
    let mut done_before = 0usize;
    for (index, (path, sha)) in hashed.iter().enumerate() {
        stop_if_cancelled(opts)?;
        let name = file_name(path);
        let read_opts = source::ReadOptions {
            no_ocr: opts.no_ocr,
            cancel: opts.cancel.clone(),
            language: None,
        };
        let mut ocr_started: Option<Instant> = None;
        let result = source::extract_file(path, &read_opts, &mut |event| match event {
            source::ReadEvent::Page { done, total } => on_progress(Progress::Reading {
                file: name.clone(),
                file_index: index,
                files: hashed.len(),
                page: done,
                pages: total,
                done: done_before + done,
            }),
            source::ReadEvent::Ocr { done, total } => {
                let started = *ocr_started.get_or_insert_with(Instant::now);
                let seconds_left = (done > 0)
                    .then(|| started.elapsed().as_secs_f64() / done as f64 * (total - done) as f64);
                on_progress(Progress::Ocr {
                    file: name.clone(),
                    done,
                    total,
                    seconds_left,
                })
            }
        })
        .and_then(|f| quality::check_text_layer(&f).map(|w| (f, w)));
        match result {
            Ok((f, w)) => {
                done_before += f.pages.len();
                warnings.extend(w);
                extracted.push((f, sha.clone()));
            }
            Err(e) if src.is_folder && !matches!(e, VidyaError::PdfiumMissing { .. }) => {
                tracing::info!(file = %path.display(), error = %e, "skipping file");
                warnings.push(format!("skipped {name}: {e}"));
                first_error.get_or_insert(e);
            }
            Err(e) => return Err(e),
        }
    }
    if extracted.is_empty() {
        return Err(first_error.unwrap_or(VidyaError::Empty {
            path: src.path.clone(),
            why: "no readable files".into(),
        }));
    }
    Ok(extracted)
}

/// The rows for the book's files and pages: each page numbered in book order (its ordinal)
/// and given the chapter span that holds it (the first when none does).
fn lay_out(
    extracted: &[(ExtractedFile, String)],
    spans: &[ChapterSpan],
) -> (Vec<NewFile>, Vec<NewPage>) {
    let mut pages = Vec::new();
    let mut files = Vec::new();
    for (fi, (f, sha)) in extracted.iter().enumerate() {
        files.push(NewFile {
            path: absolute(&f.path).to_string_lossy().to_string(),
            name: file_name(&f.path),
            sha256: sha.clone(),
            page_count: f.pages.len(),
        });
        for p in &f.pages {
            let ordinal = pages.len();
            let chapter = spans
                .iter()
                .position(|s| s.first_page <= ordinal && ordinal <= s.last_page)
                .unwrap_or(0);
            pages.push(NewPage {
                file: fi,
                chapter,
                pdf_page: p.pdf_page,
                label: p.label.clone(),
                text: p.text.clone(),
                ocr: p.ocr.clone(),
            });
        }
    }
    (files, pages)
}

/// The book's language code, detected on its first 40 pages.
fn book_language(pages: &[NewPage]) -> String {
    let sample: String = pages
        .iter()
        .take(40)
        .map(|p| p.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    detect_language(&sample).to_string()
}

/// Each chapter's pages cut into chunks ([`chunk::chunk_chapter`]) with their BM25 terms; no
/// vectors yet.
fn chunk_book(spans: &[ChapterSpan], pages: &[NewPage]) -> Vec<NewChunk> {
    let tokenizer = Tokenizer::new();
    let mut chunks = Vec::new();
    for (ci, span) in spans.iter().enumerate() {
        let chapter_pages: Vec<(usize, &str)> = (span.first_page..=span.last_page)
            .filter_map(|o| pages.get(o).map(|p| (o, p.text.as_str())))
            .collect();
        for draft in chunk::chunk_chapter(&chapter_pages) {
            chunks.push(NewChunk {
                chapter: ci,
                first_page: draft.first_page(),
                last_page: draft.last_page(),
                // BM25 reads the text alone: with the section title in every chunk of a
                // section, its words lose their weight (measured: hit@3 0.866 → 0.848 on the
                // dev split); the embedder reads the section with the text.
                terms: tokenizer.terms(&draft.text),
                token_count: draft.token_count,
                page_starts: draft.page_starts,
                text: draft.text,
                vector: None,
                kind: draft.kind,
                context: draft.context,
                sentence_vectors: None,
            });
        }
    }
    chunks
}

/// A warning for each file that another stored book (not the one being replaced) also holds.
fn shared_file_warnings(
    lib: &Library,
    extracted: &[(ExtractedFile, String)],
    replaces: Option<i64>,
) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    for (f, sha) in extracted {
        for (id, title) in lib
            .books_with_file(sha)?
            .into_iter()
            .filter(|(id, _)| Some(*id) != replaces)
        {
            warnings.push(format!(
                "{} is also part of book {id} (\"{title}\"); answers may cite both",
                file_name(&f.path)
            ));
        }
    }
    Ok(warnings)
}

/// Writes `book` in one transaction: `(book id, already present)`, the latter true when
/// another process stored the same book while this one read it. [`FAULT_PAUSE_ENV`] pauses
/// inside the open transaction (for the crash test).
fn store(lib: &mut Library, book: &NewBook) -> Result<(i64, bool)> {
    let inserted = lib.insert_book(book, || {
        if let Some(ms) = std::env::var(FAULT_PAUSE_ENV)
            .ok()
            .and_then(|v| v.parse::<u64>().ok())
        {
            eprintln!("vidya: ingest transaction open");
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
    });
    match inserted {
        Ok(id) => Ok((id, false)),
        Err(e)
            if matches!(
                &e,
                VidyaError::Database { source: rusqlite::Error::SqliteFailure(f, _), .. }
                    if f.code == rusqlite::ErrorCode::ConstraintViolation
            ) =>
        {
            match lib.book_by_sha(&book.sha256)? {
                Some(id) => Ok((id, true)),
                None => Err(e),
            }
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    //! Each step on small text files: no PDF library and no model files.
    use super::*;

    const CHAPTER_1: &str = "Light\n\nLight travels in straight lines. A shadow forms where an opaque object blocks the light, and its shape follows the object.\n\nMirrors reflect light: the angle of reflection equals the angle of incidence.\n";
    const CHAPTER_2: &str = "Sound\n\nSound is a vibration that travels through air, water and solids. It cannot travel through a vacuum, so there is no sound on the Moon.\n";

    fn folder_book(dir: &Path, files: &[(&str, &str)]) -> BookSource {
        let book = dir.join("science");
        std::fs::create_dir_all(&book).unwrap();
        for (name, text) in files {
            std::fs::write(book.join(name), text).unwrap();
        }
        super::super::plan(&book).unwrap().remove(0)
    }

    #[test]
    fn copies_and_unreadable_files_are_skipped_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let mut src = folder_book(
            dir.path(),
            &[
                ("ch1.txt", CHAPTER_1),
                ("ch2.txt", CHAPTER_2),
                ("ch3.txt", CHAPTER_1),
            ],
        );
        src.files.push(dir.path().join("science/gone.txt"));
        let mut warnings = Vec::new();
        let hashed = hash_files(&src, &mut warnings).unwrap();
        let names: Vec<String> = hashed.iter().map(|(p, _)| file_name(p)).collect();
        assert_eq!(names, ["ch1.txt", "ch2.txt"]);
        assert!(
            warnings[0].starts_with("skipped ch3.txt: it is a copy"),
            "{warnings:?}"
        );
        assert!(warnings[1].starts_with("skipped gone.txt"), "{warnings:?}");
        // A one-file book whose file cannot be read is an error, not a warning.
        let one = BookSource {
            path: dir.path().join("gone.txt"),
            files: vec![dir.path().join("gone.txt")],
            is_folder: false,
        };
        assert!(matches!(
            hash_files(&one, &mut Vec::new()),
            Err(VidyaError::Io { .. })
        ));
    }

    #[test]
    fn a_books_hash_is_its_files_hashes_in_order() {
        assert_eq!(book_hash(&["aa".into()]), "aa");
        assert_eq!(
            book_hash(&["aa".into(), "bb".into()]),
            "329d670e59ead1543a2d36865895972560bc434204c5f4a0c8219005dd312719"
        );
        assert_ne!(
            book_hash(&["aa".into(), "bb".into()]),
            book_hash(&["bb".into(), "aa".into()])
        );
    }

    #[test]
    fn pages_chapters_and_chunks_are_laid_out_in_book_order() {
        let dir = tempfile::tempdir().unwrap();
        let src = folder_book(
            dir.path(),
            &[("ch2.txt", CHAPTER_2), ("ch1.txt", CHAPTER_1)],
        );
        let mut warnings = Vec::new();
        let hashed = hash_files(&src, &mut warnings).unwrap();
        let mut progress = Vec::new();
        let extracted = read_files(
            &src,
            &hashed,
            &IngestOptions::default(),
            &mut warnings,
            &mut |p| progress.push(p),
        )
        .unwrap();
        assert!(matches!(
            progress.last(),
            Some(Progress::Reading {
                file_index: 1,
                files: 2,
                ..
            })
        ));
        let files: Vec<ExtractedFile> = extracted.iter().map(|(f, _)| f.clone()).collect();
        let spans = chapters::chapters(&files, "Science");
        assert_eq!(spans.len(), 2, "{spans:?}");
        let (new_files, pages) = lay_out(&extracted, &spans);
        assert_eq!(new_files[0].name, "ch1.txt");
        assert_eq!(new_files[0].sha256, hashed[0].1);
        // Every page belongs to the chapter span that holds it.
        for (ordinal, p) in pages.iter().enumerate() {
            let s = &spans[p.chapter];
            assert!(s.first_page <= ordinal && ordinal <= s.last_page);
        }
        assert_eq!(book_language(&pages), "en");
        let chunks = chunk_book(&spans, &pages);
        assert!(chunks
            .iter()
            .any(|c| c.chapter == 0 && c.text.contains("shadow")));
        assert!(chunks
            .iter()
            .any(|c| c.chapter == 1 && c.text.contains("vacuum")));
        let sound = chunks.iter().find(|c| c.text.contains("vacuum")).unwrap();
        assert!(
            sound.terms.iter().any(|t| t == "vacuum"),
            "{:?}",
            sound.terms
        );
        assert!(chunks
            .iter()
            .all(|c| c.vector.is_none() && c.token_count > 0));
    }

    #[test]
    fn a_cancelled_ingest_stores_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let src = folder_book(dir.path(), &[("ch1.txt", CHAPTER_1)]);
        std::fs::create_dir(dir.path().join("science/more")).unwrap();
        assert!(subfolder_warning(&src).unwrap().contains("(more)"));
        let mut lib = Library::open(dir.path().join("lib")).unwrap();
        let opts = IngestOptions {
            cancel: Some(std::sync::Arc::new(std::sync::atomic::AtomicBool::new(
                true,
            ))),
            ..IngestOptions::default()
        };
        let e = ingest_book(&mut lib, &src, &opts, &mut |_| {}).unwrap_err();
        assert!(matches!(e, VidyaError::Cancelled), "{e}");
        assert!(lib.books().unwrap().is_empty());
        // The same book, not cancelled, is stored once; the second time it is found.
        let first = ingest_book(&mut lib, &src, &IngestOptions::default(), &mut |_| {}).unwrap();
        assert!(!first.already_present && first.chunks > 0);
        assert!(first.warnings.iter().any(|w| w.contains("sub-folders")));
        let again = ingest_book(&mut lib, &src, &IngestOptions::default(), &mut |_| {}).unwrap();
        assert_eq!(
            (again.book_id, again.already_present),
            (first.book_id, true)
        );
    }
}
