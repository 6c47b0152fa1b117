//! Bringing the library's dense vectors up to date after an update of Vidya changed the
//! embedder (its weights, or how vectors are made: [`crate::embed::model_id`]), without anyone
//! running `vidya reindex`: a teacher in the window has no command line.

use super::*;
use crate::ingest::reindex::reindex;
use std::time::Duration;

/// How often a paused [`App::refresh_vectors`] looks whether the ingest it let go first has
/// taken the lock.
const PAUSE_POLL: Duration = Duration::from_millis(100);

/// How far [`App::refresh_vectors`] has got: chunks embedded of those that need it. Shown by
/// the window while it runs ([`Health::updating`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct VectorRefresh {
    /// Chunks embedded so far.
    pub done: usize,
    /// Chunks that needed new vectors when it began.
    pub total: usize,
}

impl App {
    /// Embeds the chunks that have no vectors from the installed embedder: chunks whose vectors
    /// an earlier version of Vidya made (another model id) or that were stored when the
    /// embedder was missing. Without it, dense retrieval stays off for the whole library and
    /// every question is answered by word search alone.
    ///
    /// Meant for a background thread at start-up, before [`App::warm_up`]. It holds the ingest
    /// lock while it runs but pauses for a book being added ([`App::lock_for_ingest`]);
    /// [`Health::updating`] says how far it is, and questions are answered meanwhile by word
    /// search. Its work is committed [`crate::ingest::reindex::REINDEX_COMMIT`] chunks at a
    /// time, and whatever it embedded when it pauses or is stopped by [`App::close`], so the
    /// next start continues from there (when the process is killed, from the last commit). Afterwards the next question loads
    /// the indexes with dense retrieval on. Both OpenStax books (4,988 chunks) took 188 s on
    /// this 2-core machine (`vidya reindex`, the same code), peak 396 MB. Does nothing
    /// (returns 0) when vectors are off ([`App::open`]'s `embed`), none are missing, or the
    /// embedder is not installed (the window's problems banner says so).
    ///
    /// Returns the chunks embedded. Errors are logged, never returned: the library keeps what it
    /// had, and the next start tries again.
    pub fn refresh_vectors(&self) -> usize {
        if !self.embed {
            return 0;
        }
        let model = crate::embed::model_id();
        let missing = || {
            self.lib()
                .and_then(|l| l.chunks_to_embed_count(&model))
                .map_or(0, |n| n.max(0) as usize)
        };
        let total = missing();
        if total == 0 {
            return 0;
        }
        // Its own embedder, dropped afterwards: the tutor loads the one it answers with.
        let embedder = match Embedder::load() {
            Ok(e) => e,
            Err(e) => {
                tracing::warn!(error = %e, "stored vectors are out of date and the embedder cannot be loaded");
                return 0;
            }
        };
        tracing::info!(chunks = total, model = %model, "embedding the chunks without vectors from this version's embedder");
        let t = Instant::now();
        let mut total = total;
        let result = loop {
            if self.closing.load(Ordering::SeqCst) {
                break Err(VidyaError::Cancelled);
            }
            let running = lock(&self.ingest);
            if self.closing.load(Ordering::SeqCst) {
                // Closed while it waited for the lock (an ingest may have cleared the pause).
                break Err(VidyaError::Cancelled);
            }
            if self.refresh_pause.load(Ordering::SeqCst) {
                // A book is waiting to be added or read again: it goes first.
                drop(running);
                std::thread::sleep(PAUSE_POLL);
                continue;
            }
            let left = missing();
            if left == 0 {
                break Ok(());
            }
            total = total.max(left);
            let before = total - left;
            *lock(&self.refresh) = Some(VectorRefresh {
                done: before,
                total,
            });
            let round = self.lib().and_then(|mut lib| {
                reindex(
                    &mut lib,
                    &embedder,
                    false,
                    Some(&self.refresh_pause),
                    &mut |done, _| {
                        *lock(&self.refresh) = Some(VectorRefresh {
                            done: (before + done).min(total),
                            total,
                        });
                    },
                )
            });
            match round {
                Ok(_) => break Ok(()),
                // Paused for an ingest: the groups committed so far stay; go on after it.
                Err(VidyaError::Cancelled) => continue,
                Err(e) => break Err(e),
            }
        };
        *lock(&self.refresh) = None;
        match result {
            Ok(()) => {
                let embedded = total.saturating_sub(missing());
                tracing::info!(
                    chunks = embedded,
                    seconds = t.elapsed().as_secs_f64(),
                    "stored vectors are up to date"
                );
                // The next question loads the indexes again, with dense retrieval on.
                self.forget_tutor();
                embedded
            }
            Err(VidyaError::Cancelled) => {
                tracing::info!("stopped making vectors again; the next start goes on");
                0
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not bring the stored vectors up to date; the next start tries again");
                0
            }
        }
    }

    /// Stops the app's background work before the program ends: a running
    /// [`App::refresh_vectors`] stops within one window of chunks (what it embedded is saved,
    /// and the next start goes on), a book being added is cancelled (nothing of it is stored;
    /// [`App::cancel_ingest`]), and [`App::warm_up`] no longer loads anything.
    pub fn close(&self) {
        // Under the waiting ingests' lock, so an ingest ending now cannot clear the pause.
        let waiting = lock(&self.ingests_waiting);
        self.closing.store(true, Ordering::SeqCst);
        self.refresh_pause.store(true, Ordering::SeqCst);
        drop(waiting);
        self.cancel_ingest();
    }

    /// Takes the ingest lock to add or read books again. A running [`App::refresh_vectors`]
    /// pauses for it (within one window of chunks, about a second; what it committed stays) and
    /// goes on afterwards, so a teacher adding a book never waits for a whole library's
    /// vectors.
    pub(super) fn lock_for_ingest(&self) -> MutexGuard<'_, ()> {
        self.ingest_waiting(true);
        let guard = lock(&self.ingest);
        self.ingest_waiting(false);
        guard
    }

    /// Counts the ingests waiting for the lock; [`App::refresh_vectors`] pauses while any does.
    fn ingest_waiting(&self, waiting: bool) {
        let mut n = lock(&self.ingests_waiting);
        *n = if waiting { *n + 1 } else { n.saturating_sub(1) };
        let closing = self.closing.load(Ordering::SeqCst);
        self.refresh_pause
            .store(*n > 0 || closing, Ordering::SeqCst);
    }

    /// The note for the teacher after books were added ([`ingest::reindex::sync_index`]'s), in
    /// the app's words: earlier chunks still without vectors are made by
    /// [`App::refresh_vectors`], now when it is running, else at the next start; `vidya
    /// reindex` is a command a teacher in the window never sees.
    pub(super) fn index_note(&self, lib: &Library, embedder: &Embedder) -> Option<String> {
        let note = ingest::reindex::sync_index(lib, embedder)?;
        let missing = lib.missing_vector_count(&embedder.model_id()).unwrap_or(0);
        if missing == 0 {
            Some(note)
        } else if self.vector_refresh().is_some() {
            None
        } else {
            Some(format!(
                "{missing} passage(s) of earlier books are searched by their words only until Vidya is started again, which prepares them"
            ))
        }
    }

    /// Progress of [`App::refresh_vectors`] while it runs.
    pub fn vector_refresh(&self) -> Option<VectorRefresh> {
        *lock(&self.refresh)
    }
}
