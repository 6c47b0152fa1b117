//! Adding and re-reading books through the app: one ingest at a time, with progress events,
//! Ctrl-C or the window's Cancel stopping the book being read, and the tutor's indexes
//! rebuilt for the next question.

use super::*;

impl App {
    /// Stops the running ingest (its book is not stored; earlier books stay). Returns false
    /// when none runs.
    pub fn cancel_ingest(&self) -> bool {
        match lock(&self.cancel).as_ref() {
            Some(flag) => {
                flag.store(true, Ordering::SeqCst);
                true
            }
            None => false,
        }
    }

    pub(super) fn embedder_if_loaded(&self) -> Option<Arc<Embedder>> {
        lock(&self.embedder).clone()
    }

    /// The embedder for new books, loaded once; `None` (with a note) when not installed.
    pub(super) fn embedder_for_ingest(
        &self,
        emit: &mut dyn FnMut(IngestEvent),
    ) -> Option<Arc<Embedder>> {
        if !self.embed {
            return None;
        }
        let mut slot = lock(&self.embedder);
        if slot.is_none() {
            match Embedder::load() {
                Ok(e) => *slot = Some(Arc::new(e)),
                Err(e) => emit(IngestEvent::Note {
                    message: format!(
                        "books are stored for word search only: {e}. Then run `vidya reindex`."
                    ),
                }),
            }
        }
        slot.clone()
    }

    /// Ingests `paths` (files or chapter folders), one book at a time, sending events and
    /// finally [`IngestEvent::Done`]. `uploaded`: the paths are uploads Vidya keeps; one that
    /// is refused is deleted. Returns true when at least one book is in the library afterwards
    /// (added now or already there). Waits while another ingest runs.
    pub fn ingest(
        &self,
        paths: &[PathBuf],
        title: Option<String>,
        uploaded: bool,
        emit: &mut dyn FnMut(IngestEvent),
    ) -> bool {
        self.ingest_with(paths, title, None, uploaded, emit)
    }

    /// Reads book `id` again from its source and replaces it in one transaction (after an
    /// update of Vidya's reading, or to add dense vectors). The old book stays when the source
    /// is gone or unreadable. Events as [`App::ingest`].
    pub fn reindex_book(&self, id: i64, emit: &mut dyn FnMut(IngestEvent)) -> bool {
        let book = match self.lib().and_then(|l| l.book(id)) {
            Ok(b) => b,
            Err(e) => {
                emit(IngestEvent::Error(ErrorBody::from(&e)));
                emit(IngestEvent::Done {});
                return false;
            }
        };
        let source = PathBuf::from(&book.source_path);
        if !source.exists() {
            emit(IngestEvent::Error(ErrorBody {
                kind: "source_missing".into(),
                message: format!(
                    "the book's file was moved or deleted, so it cannot be read again; the stored book is kept ({})",
                    source.display()
                ),
                file: Some(file_label(&source)),
            }));
            emit(IngestEvent::Done {});
            return false;
        }
        self.ingest_with(&[source], Some(book.title), Some(id), false, emit)
    }

    pub(super) fn ingest_with(
        &self,
        paths: &[PathBuf],
        title: Option<String>,
        replaces: Option<i64>,
        uploaded: bool,
        emit: &mut dyn FnMut(IngestEvent),
    ) -> bool {
        let _running = self.lock_for_ingest();
        let cancel = Arc::new(AtomicBool::new(false));
        *lock(&self.cancel) = Some(cancel.clone());
        let mut stored_any = false;
        let mut added = false;
        let mut books = Vec::new();
        for p in paths {
            match ingest::plan(p) {
                Ok(b) => books.extend(b),
                Err(e) => {
                    emit(IngestEvent::Error(ErrorBody::for_file(&e, file_label(p))));
                    if uploaded {
                        let _ = std::fs::remove_file(p);
                    }
                }
            }
        }
        let mut lib = match self.lib() {
            Ok(l) => l,
            Err(e) => {
                emit(IngestEvent::Error(ErrorBody::from(&e)));
                emit(IngestEvent::Done {});
                *lock(&self.cancel) = None;
                return false;
            }
        };
        let embedder = if books.is_empty() {
            None
        } else {
            self.embedder_for_ingest(emit)
        };
        let opts = IngestOptions {
            title: if books.len() == 1 { title } else { None },
            cancel: Some(cancel.clone()),
            embedder: embedder.clone(),
            replaces,
            no_ocr: false,
        };
        for src in &books {
            let file = file_label(&src.path);
            let started = Instant::now();
            let mut last_percent = 0;
            let result = ingest::ingest_book(&mut lib, src, &opts, &mut |p| {
                let (stage, done, total, from, span) = match p {
                    // The book's page total is not known before its last file opens: the
                    // file's own count is used, and `percent` never goes back.
                    Progress::Reading { page, pages, .. } => ("reading", page, pages, 0, 10),
                    // OCR takes seconds a page, reading a text layer milliseconds.
                    Progress::Ocr { done, total, .. } => ("ocr", done, total, 10, 50),
                    Progress::Indexing => ("chunking", 0, 0, 60, 0),
                    Progress::Embedding { done, total } => ("embedding", done, total, 60, 35),
                    Progress::Writing => ("saving", 0, 0, 95, 0),
                };
                let percent = (from + (done * span).checked_div(total).unwrap_or(0))
                    .max(last_percent)
                    .min(99);
                last_percent = percent;
                let elapsed = started.elapsed().as_secs_f64();
                let eta_s = (percent >= 3).then(|| {
                    (elapsed * (100 - percent) as f64 / percent as f64 * 10.0).round() / 10.0
                });
                emit(IngestEvent::Progress(IngestProgress {
                    file: file.clone(),
                    stage: stage.into(),
                    done,
                    total,
                    percent,
                    eta_s,
                }));
            });
            match result {
                Ok(r) => {
                    added |= !r.already_present;
                    stored_any = true;
                    // The same book was already there from another file: this copy is unused.
                    if uploaded && r.already_present {
                        let kept = lib
                            .book(r.book_id)
                            .map(|b| b.source_path)
                            .unwrap_or_default();
                        if Path::new(&kept) != src.path.as_path() {
                            let _ = std::fs::remove_file(&src.path);
                        }
                    }
                    emit(IngestEvent::Book(r));
                }
                Err(e) => {
                    emit(IngestEvent::Error(ErrorBody::for_file(&e, file.clone())));
                    if uploaded {
                        let _ = std::fs::remove_file(&src.path);
                    }
                }
            }
        }
        *lock(&self.cancel) = None;
        if added {
            if let Some(message) = embedder.as_deref().and_then(|e| self.index_note(&lib, e)) {
                emit(IngestEvent::Note { message });
            }
            // The next question rebuilds the tutor's in-memory indexes with the new book.
            self.forget_tutor();
        }
        emit(IngestEvent::Done {});
        stored_any
    }
}
