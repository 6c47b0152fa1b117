//! `vidya ingest`: adds books (PDF, TXT, MD, DOCX, or folders of them) with a progress bar;
//! Ctrl-C stops the book being read and keeps the earlier ones.

use crate::index_cmd;
use crate::output::{self, plural};
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::Path;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vidya_core::ingest::{self, IngestOptions, Progress};
use vidya_core::{Library, VidyaError};

/// Adds each book found under `paths` (a file or folder can hold several), one transaction
/// each, with vectors unless `no_embed`. Exit status 1 when a path or book failed, 130 when
/// Ctrl-C stopped it.
pub(crate) fn run(
    library: &Path,
    paths: &[PathBuf],
    title: Option<String>,
    no_embed: bool,
    no_ocr: bool,
) -> Result<ExitCode> {
    let mut books = Vec::new();
    let mut failed = 0usize;
    for p in paths {
        match ingest::plan(p) {
            Ok(b) => books.extend(b),
            Err(e) => {
                refused(p, &e);
                failed += 1;
            }
        }
    }
    if title.is_some() && books.len() > 1 {
        return Err(VidyaError::BadOption(format!(
            "--title names one book, but {} books were given: add them one at a time to give each a title",
            books.len()
        ))
        .into());
    }
    if books.is_empty() {
        return Ok(ExitCode::FAILURE);
    }
    let mut lib = Library::open(library)?;
    // Before the model loads (seconds): a Ctrl-C meanwhile stops cleanly too.
    let cancel = stop_on_ctrl_c();
    let embedder = if no_embed {
        None
    } else {
        index_cmd::embedder_for_ingest()
    };
    let opts = IngestOptions {
        title,
        cancel: Some(cancel),
        embedder: embedder.clone(),
        replaces: None,
        no_ocr,
    };
    for (i, src) in books.iter().enumerate() {
        let name = src
            .path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let result = with_progress_bar(&name, |on_progress| {
            ingest::ingest_book(&mut lib, src, &opts, on_progress)
        });
        match result {
            Ok(r) => print_added(&r),
            Err(VidyaError::Cancelled) => {
                let rest = books.len() - i - 1;
                output::err_line(stopped_note(&name, i, rest));
                return Ok(ExitCode::from(130));
            }
            Err(e) => {
                refused(&src.path, &e);
                failed += 1;
            }
        }
    }
    if let Some(e) = &embedder {
        index_cmd::sync_dense(&lib, e);
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// A file that could not be added: said on stderr, and kept in the log file (the teacher's
/// record of what went wrong, `<library>/logs`).
fn refused(path: &Path, e: &VidyaError) {
    tracing::info!(file = %path.display(), kind = e.kind(), message = %e, "a file was not added");
    output::err_line(format!("error: {e}"));
}

/// What a Ctrl-C left: the book being read (`name`) is not in the library; the `before` files
/// tried ahead of it are as they ended; the `rest` after it were not read.
fn stopped_note(name: &str, before: usize, rest: usize) -> String {
    let mut note = format!("stopped: {name} was not added");
    if before > 0 {
        note += &format!(" (the {before} file(s) before it ended as shown above)");
    }
    if rest > 0 {
        note += &format!("; {rest} file(s) after it were not read. Run the same `vidya ingest` again: books already in the library are skipped.");
    } else {
        note += "; the library is as it was before this book.";
    }
    note
}

/// The flag Ctrl-C sets to stop the book being read (or the `reindex`); a second Ctrl-C ends
/// the process at once with status 130 (the transaction keeps the library whole).
pub(crate) fn stop_on_ctrl_c() -> Arc<AtomicBool> {
    let cancel = Arc::new(AtomicBool::new(false));
    let c = cancel.clone();
    let _ = ctrlc::set_handler(move || {
        if c.swap(true, Ordering::SeqCst) {
            exit_at_once(130);
        }
    });
    cancel
}

/// Ends the process with `code` without running exit handlers: `std::process::exit` would
/// run ONNX Runtime's while the embedding threads are inside a run, and they would fail with
/// a message that the model is broken. On Windows `ExitProcess` stops the other threads
/// before any library is told the process ends.
fn exit_at_once(code: i32) -> ! {
    #[cfg(unix)]
    // SAFETY: `_exit` only ends the process; no Rust state is touched after it.
    unsafe {
        libc::_exit(code)
    }
    #[cfg(not(unix))]
    std::process::exit(code)
}

/// Runs `ingest` with a progress bar for the book `name` (reading per page, chunking,
/// embedding per chunk, saving), cleared when it ends.
fn with_progress_bar<T>(name: &str, ingest: impl FnOnce(&mut dyn FnMut(Progress)) -> T) -> T {
    let bar = ProgressBar::new(100);
    bar.set_style(
        ProgressStyle::with_template("{msg:50!} [{bar:30}] {percent:>3}% ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    bar.set_message(name.to_string());
    let result = ingest(&mut |p| match p {
        Progress::Reading {
            file,
            file_index,
            files,
            page,
            pages,
            ..
        } => {
            let pages = pages.max(1);
            bar.set_position(((file_index * 100 + page * 100 / pages) / files.max(1)) as u64);
            bar.set_message(if files > 1 {
                format!(
                    "{name}: {file} ({}/{files}), page {page}/{pages}",
                    file_index + 1
                )
            } else {
                format!("{name}: page {page}/{pages}")
            });
        }
        Progress::Ocr {
            file,
            done,
            total,
            seconds_left,
        } => {
            bar.set_position((done * 100 / total.max(1)) as u64);
            let left = seconds_left
                .map(|s| format!(", about {} left", human_duration(s)))
                .unwrap_or_default();
            bar.set_message(format!(
                "{name}: {file}: reading scanned page {done}/{total} by OCR{left}"
            ));
        }
        Progress::Indexing => bar.set_message(format!("{name}: chunking")),
        Progress::Embedding { done, total } => {
            bar.set_position((done * 100 / total.max(1)) as u64);
            bar.set_message(format!("{name}: embedding chunk {done}/{total}"));
        }
        Progress::Writing => bar.set_message(format!("{name}: saving")),
    });
    bar.finish_and_clear();
    result
}

/// `seconds` as "40 s" or "3 min".
fn human_duration(seconds: f64) -> String {
    if seconds < 90.0 {
        format!("{:.0} s", seconds.max(1.0))
    } else {
        format!("{:.0} min", seconds / 60.0)
    }
}

/// The summary of one ingest. Best effort: a closed stdout must not stop the ingest of the
/// remaining books.
fn print_added(r: &ingest::IngestReport) {
    if r.already_present {
        let _ = output::line(format!(
            "Already in the library: \"{}\" (book {}), nothing to do.",
            r.title, r.book_id
        ));
        return;
    }
    let _ = output::line(format!(
        "Added \"{}\" (book {}, {}): {}, {}, {} in {:.1} s",
        r.title,
        r.book_id,
        r.language,
        plural(r.pages as i64, "page"),
        plural(r.chapters as i64, "chapter"),
        plural(r.chunks as i64, "chunk"),
        r.seconds
    ));
    for w in &r.warnings {
        let _ = output::line(format!("  note: {w}"));
    }
}

#[cfg(test)]
mod tests {
    use super::stopped_note;

    #[test]
    fn a_stopped_ingest_says_which_files_were_not_read() {
        let only = stopped_note("ch01.pdf", 0, 0);
        assert_eq!(
            only,
            "stopped: ch01.pdf was not added; the library is as it was before this book."
        );
        let middle = stopped_note("ch02.pdf", 1, 3);
        assert!(middle.starts_with("stopped: ch02.pdf was not added (the 1 file(s) before it"));
        assert!(
            middle.contains("3 file(s) after it were not read"),
            "{middle}"
        );
        assert!(middle.contains("books already in the library are skipped"));
    }
}
