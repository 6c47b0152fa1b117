//! The app service: everything the desktop window (the Tauri commands in `src-tauri/`) and
//! `vidya serve` (the HTTP API in `vidya-cli`) offer, in one place, so that both are thin
//! wrappers and behave the same.
//!
//! [`App`] owns the library folder, its settings, the tutor (built on the first question and
//! kept: its BM25 and HNSW indexes live in memory) and the one ingest that may run at a time.
//! Every method blocks: call it from a worker thread (`spawn_blocking`), never from the UI
//! thread or an async task.

pub mod class_report;
pub mod events;
mod ingesting;
pub mod operations;
pub mod page_image;
pub mod queue;
pub mod roles;
pub mod settings;
pub mod setup;
pub mod teacher_pin;
pub mod uploads;
mod vectors;

pub use events::{AskEvent, ErrorBody, IngestEvent, IngestProgress};
pub use settings::{BudgetPreset, Settings, LANGUAGE_CHOICES};
pub use vectors::VectorRefresh;

use crate::answer::prompt::Mode;
use crate::answer::tutor::{Draft, Generation, Machine, Step};
use crate::answer::{Citation, Tutor, TutorAnswer, TutorOptions};
use crate::embed::Embedder;
use crate::error::{Result, VidyaError};
use crate::ingest::{self, IngestOptions, Progress};
use crate::search::DenseIndex;
use crate::store::stats::LibraryStats;
use crate::store::{BookInfo, Conversation, Turn};
use crate::{Engine, Library};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

/// A question from the UI: the JSON body of `POST /api/ask` and the `ask` command's argument.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    /// The student's words.
    pub question: String,
    /// `answer`, `socratic` or `quiz` (default: the settings' mode).
    #[serde(default)]
    pub mode: Option<String>,
    /// Answer language: one of [`LANGUAGE_CHOICES`] (default: the settings' language).
    #[serde(default)]
    pub lang: Option<String>,
    /// Only these books (ids); all when absent or empty.
    #[serde(default)]
    pub books: Option<Vec<i64>>,
    /// Continue this conversation.
    #[serde(default)]
    pub conversation: Option<i64>,
    /// Quote the textbook only (no model).
    #[serde(default)]
    pub no_llm: bool,
    /// Do not use or fill the answer cache.
    #[serde(default)]
    pub no_cache: bool,
    /// HTTP only: `false` answers with one JSON object instead of an event stream.
    #[serde(default)]
    pub stream: Option<bool>,
}

/// Which page to draw for the citation side panel, and what to highlight on it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PageImageRequest {
    /// Book id (a citation's `book_id`).
    pub book_id: i64,
    /// Page ordinal in the book (a citation's `page`).
    pub page: usize,
    /// Sentences to highlight (a citation's kept sentences).
    #[serde(default)]
    pub highlight: Vec<String>,
    /// Width in pixels (default [`page_image::DEFAULT_WIDTH_PX`]).
    #[serde(default)]
    pub width: Option<u32>,
}

/// `GET /health` and the window's start-up check.
#[derive(Debug, Clone, Serialize)]
pub struct Health {
    /// Always `ok`.
    pub status: &'static str,
    /// Vidya's version.
    pub version: &'static str,
    /// The library folder.
    pub library: String,
    /// Books stored.
    pub books: i64,
    /// Bundled files that are missing or damaged, each naming the file and the fix (empty
    /// when all are intact; checked by size and sha256, cached).
    pub problems: Vec<String>,
    /// Whether the first-run wizard was finished or skipped.
    pub setup_done: bool,
    /// While stored vectors from an earlier version are made again
    /// ([`App::refresh_vectors`]): how far it is; `null` otherwise.
    pub updating: Option<VectorRefresh>,
    /// Answer machines in the pool (the laptop's Ollama and the lab machines added), and how
    /// many of them are up (not set aside after a failure).
    pub answer_machines: usize,
    /// Of them, up now.
    pub answer_machines_up: usize,
}

/// The answer model's settings given on the command line (`vidya serve --model --ollama`):
/// they win over the saved settings until the Settings screen saves new ones.
#[derive(Debug, Clone, Default)]
pub struct LlmOverrides {
    /// Ollama address.
    pub host: Option<String>,
    /// Model name.
    pub model: Option<String>,
    /// More answer machines (`vidya serve --ollama` given again): they write answers too,
    /// besides the saved settings' [`Settings::answer_machines`].
    pub extra_hosts: Vec<String>,
}

/// How one question waits for the model ([`App::ask_with`]).
pub struct AskControl<'a> {
    /// The teacher's question (ahead of every student's in the queue).
    pub teacher: bool,
    /// Called with the number of questions ahead whenever it changes while waiting.
    pub on_queue: &'a mut (dyn FnMut(usize) + Send),
    /// Set to true to leave the queue, or to stop the model mid-answer.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Called once with the passages the model will be given, as soon as they are known
    /// (before the question waits for the model; not called for cached or gated answers),
    /// and, with the quotes-first layout, the answer's beginning to show at once: the
    /// textbook's quotes and the label the tutor's words will follow
    /// ([`crate::answer::turn::Draft::quotes_head`]).
    pub on_sources: &'a mut (dyn FnMut(&[Citation], Option<&str>) + Send),
    /// Called when the teacher's question pre-empted this student's answer: the text
    /// streamed so far is void, the question waits again (first after the teacher's, with
    /// `on_queue` calls) and the answer streams again from its start.
    pub on_restart: &'a mut (dyn FnMut() + Send),
}

/// Most times one question moves to another answer machine after a failure.
pub const MAX_MOVES: usize = 3;

/// The model writes `draft`'s answer in `turn`; when the teacher's question pre-empts it (a
/// student's turn only), the student is told (`ctl.on_restart`), the question waits again,
/// first after the teacher's ([`queue::Turn::rejoin`]), and the answer is written from the
/// start. Errors: as [`Tutor::generate`]; [`VidyaError::Cancelled`] when cancelled while
/// waiting again.
fn generate_in_turn(
    tutor: &Tutor,
    mut draft: Draft,
    mut turn: queue::Turn<'_>,
    on_token: &mut (dyn FnMut(&str) + Send),
    ctl: AskControl<'_>,
    cancelled: &dyn Fn() -> bool,
) -> Result<TutorAnswer> {
    // Each machine of the pool is tried at most once more than there are machines: then the
    // student gets the quotes and the last machine's error.
    let mut moves = 0usize;
    loop {
        let machine = Machine {
            preempt: turn.preempted(),
            host: turn.host().map(str::to_string),
            can_move: turn.has_other_machines() && moves < MAX_MOVES,
        };
        match tutor.generate_on(draft, on_token, ctl.cancel.clone(), machine)? {
            Generation::Answered(a) => {
                // Quotes because the machine could not write (not because the student
                // cancelled): the Dashboard shows that machine's problem.
                match a.llm_error.as_ref().filter(|p| p.kind != "cancelled") {
                    Some(problem) => turn.unanswered(&problem.message),
                    None => turn.answered(),
                }
                return Ok(*a);
            }
            Generation::Preempted(d) => {
                draft = *d;
                (ctl.on_restart)();
                turn = turn.rejoin(ctl.on_queue, cancelled)?;
            }
            Generation::Moved(d, why) => {
                // The words streamed so far are void: the answer starts again on another
                // machine, first in line.
                draft = *d;
                moves += 1;
                tracing::warn!(host = turn.host().unwrap_or("(settings)"), %why, "an answer machine failed; the question moves to another");
                (ctl.on_restart)();
                turn = turn.failed(&why, ctl.on_queue, cancelled)?;
            }
        }
    }
}

/// The app service over one library folder.
pub struct App {
    library: PathBuf,
    embed: bool,
    overrides: Mutex<LlmOverrides>,
    tutor: Mutex<Option<Tutor>>,
    /// Set when books changed while a question held the tutor: the next question rebuilds it.
    stale: AtomicBool,
    embedder: Mutex<Option<Arc<Embedder>>>,
    ingest: Mutex<()>,
    cancel: Mutex<Option<Arc<AtomicBool>>>,
    queue: queue::AskQueue,
    /// Progress of [`App::refresh_vectors`] while it runs.
    refresh: Mutex<Option<VectorRefresh>>,
    /// Set while an ingest waits for the ingest lock: [`App::refresh_vectors`] pauses.
    refresh_pause: AtomicBool,
    /// Ingests waiting for the ingest lock.
    ingests_waiting: Mutex<usize>,
    /// Set by [`App::close`]: background work stops.
    closing: AtomicBool,
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("library", &self.library)
            .field("embed", &self.embed)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

fn file_label(path: &Path) -> String {
    path.file_name()
        .unwrap_or(path.as_os_str())
        .to_string_lossy()
        .to_string()
}

impl App {
    /// The service for the library in `library` (created when absent). `embed`: store dense
    /// vectors for new books when the embedder is installed (false: word search only, faster).
    /// Errors: the folder cannot be created or its database opened.
    pub fn open(library: &Path, embed: bool, overrides: LlmOverrides) -> Result<Self> {
        Library::open(library)?;
        Ok(Self {
            library: library.to_path_buf(),
            embed,
            overrides: Mutex::new(overrides),
            tutor: Mutex::new(None),
            stale: AtomicBool::new(false),
            embedder: Mutex::new(None),
            ingest: Mutex::new(()),
            cancel: Mutex::new(None),
            queue: queue::AskQueue::default(),
            refresh: Mutex::new(None),
            refresh_pause: AtomicBool::new(false),
            ingests_waiting: Mutex::new(0),
            closing: AtomicBool::new(false),
        })
    }

    /// The library folder.
    pub fn library_dir(&self) -> &Path {
        &self.library
    }

    fn lib(&self) -> Result<Library> {
        Library::open(&self.library)
    }

    /// Drops the tutor: the next question reloads the indexes (after books change). Never
    /// waits for a question being answered: then the tutor is only marked stale.
    fn forget_tutor(&self) {
        self.stale.store(true, Ordering::SeqCst);
        if let Ok(mut guard) = self.tutor.try_lock() {
            let old = guard.take();
            drop(guard);
            drop(old);
        }
    }

    /// A tutor over the library's indexes and every installed model (seconds on a slow laptop).
    fn build_tutor(&self, settings: &Settings) -> Result<Tutor> {
        let engine = Engine::from_library(Library::open_existing(&self.library)?)?;
        Ok(Tutor::new(engine, settings.llm()))
    }

    /// Loads the indexes and models now (on a background thread at start-up), so the first
    /// question is answered as fast as the next ones. Does nothing for an empty library.
    pub fn warm_up(&self) {
        if self.closing.load(Ordering::SeqCst) {
            return;
        }
        let t = Instant::now();
        let mut guard = lock(&self.tutor);
        if guard.is_some() || !self.lib().and_then(|l| l.counts()).is_ok_and(|c| c.0 > 0) {
            return;
        }
        match self.build_tutor(&self.settings()) {
            Ok(tutor) => {
                *guard = Some(tutor);
                tracing::info!(ms = t.elapsed().as_millis() as u64, "tutor ready");
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not load the library ahead of the first question")
            }
        }
    }

    /// Health figures. Errors: database errors.
    pub fn health(&self) -> Result<Health> {
        let machines = self.answer_machines();
        Ok(Health {
            status: "ok",
            version: env!("CARGO_PKG_VERSION"),
            library: self.library.display().to_string(),
            books: self.lib()?.counts()?.0,
            problems: self.resource_problems(),
            setup_done: self.settings().setup_done,
            updating: self.vector_refresh(),
            answer_machines: machines.len(),
            answer_machines_up: machines.iter().filter(|m| m.up).count(),
        })
    }

    /// The books, oldest first (what `vidya books --json` prints).
    pub fn books(&self) -> Result<Vec<BookInfo>> {
        self.lib()?.books()
    }

    /// Usage figures for the dashboard (what `vidya stats --json` prints).
    pub fn stats(&self) -> Result<LibraryStats> {
        self.lib()?.stats()
    }

    /// The settings in effect: the saved ones with the command line's model settings over
    /// them.
    pub fn settings(&self) -> Settings {
        let mut s = Settings::load(&self.library);
        let o = lock(&self.overrides);
        if let Some(h) = &o.host {
            s.ollama_host = h.clone();
        }
        if let Some(m) = &o.model {
            s.model = m.clone();
        }
        s
    }

    /// Each answer machine's state (the Dashboard's "answer machines"): busy, up, answered,
    /// failures, the last error.
    pub fn answer_machines(&self) -> Vec<queue::MachineHealth> {
        let settings = self.settings();
        let extra = lock(&self.overrides).extra_hosts.clone();
        self.queue
            .set_hosts(&settings.answer_pool(&extra), settings.answers_at_once);
        self.queue.health()
    }

    /// Validates and saves `settings`; they apply from the next question. A command-line model
    /// setting stays in effect (and out of the file) until the user changes that field.
    /// Returns the settings in effect. Errors: [`VidyaError::BadOption`] naming the bad field;
    /// I/O.
    pub fn save_settings(&self, settings: &Settings) -> Result<Settings> {
        // A value given on the command line is written only when the user changed it: saving
        // the interface language must not make `--ollama` permanent.
        let saved = Settings::load(&self.library);
        let mut to_save = settings.clone();
        {
            let mut o = lock(&self.overrides);
            if let Some(h) = o.host.clone() {
                if to_save.ollama_host == h {
                    to_save.ollama_host = saved.ollama_host.clone();
                } else {
                    o.host = None;
                }
            }
            if let Some(m) = o.model.clone() {
                if to_save.model == m {
                    to_save.model = saved.model.clone();
                } else {
                    o.model = None;
                }
            }
        }
        settings.validate()?;
        to_save.save(&self.library)?;
        Ok(self.settings())
    }

    /// The tutor options for `req` under `settings`.
    fn tutor_options(req: &AskRequest, settings: &Settings) -> Result<TutorOptions> {
        let mode_name = req.mode.clone().unwrap_or_else(|| settings.mode.clone());
        let mode = Mode::parse(&mode_name).ok_or_else(|| {
            VidyaError::BadOption(format!(
                "unknown mode '{mode_name}': use answer, socratic or quiz"
            ))
        })?;
        let lang = req
            .lang
            .clone()
            .unwrap_or_else(|| settings.language.clone());
        if !LANGUAGE_CHOICES.contains(&lang.as_str()) {
            return Err(VidyaError::BadOption(format!(
                "unknown language '{lang}': use auto, en, hi, mr, kn, te or ta"
            )));
        }
        let (budget, sources) = settings.budget.budget();
        Ok(TutorOptions {
            mode,
            language: Some(lang),
            books: req.books.clone().filter(|b| !b.is_empty()),
            conversation: req.conversation,
            use_llm: !req.no_llm,
            use_cache: !req.no_cache,
            max_sources: sources,
            budget_tokens: Some(budget),
            ..TutorOptions::default()
        })
    }

    /// Checks `req` without answering it (bad mode or language). Errors:
    /// [`VidyaError::BadOption`].
    pub fn check_request(&self, req: &AskRequest) -> Result<()> {
        Self::tutor_options(req, &self.settings()).map(|_| ())
    }

    /// Sets (`Some`) or removes (`None`) the teacher PIN ([`teacher_pin`]). Errors:
    /// [`VidyaError::BadOption`] for a PIN that is not 4–12 digits.
    pub fn set_teacher_pin(&self, pin: Option<&str>) -> Result<()> {
        teacher_pin::set(&self.library, pin)
    }

    /// True when a teacher PIN is set.
    pub fn teacher_pin_set(&self) -> bool {
        teacher_pin::is_set(&self.library)
    }

    /// True when `pin` is the teacher PIN.
    pub fn check_teacher_pin(&self, pin: &str) -> bool {
        teacher_pin::check(&self.library, pin)
    }

    /// Answers a question as the teacher's (first in the model's queue); `on_token` receives
    /// the model's text as it streams. See [`App::ask_with`].
    pub fn ask(
        &self,
        req: &AskRequest,
        on_token: &mut (dyn FnMut(&str) + Send),
    ) -> Result<TutorAnswer> {
        self.ask_with(
            req,
            on_token,
            AskControl {
                teacher: true,
                on_queue: &mut |_| {},
                cancel: None,
                on_sources: &mut |_, _| {},
                on_restart: &mut || {},
            },
        )
    }

    /// Answers a question; `on_token` receives the model's text as it streams. The question
    /// is checked and retrieved at once, in parallel with the others ([`Tutor::fork`]); only
    /// the model's part waits in the model's queue ([`queue::AskQueue`]: the teacher's first,
    /// then in the order they came). A cached, gated or extractive-only answer never waits.
    /// `ctl.on_sources` hears the passages before the wait, `ctl.on_queue` how many questions
    /// are ahead while it waits, and `ctl.cancel` set to true takes it out of the queue or
    /// stops the model. A follow-up the model must rewrite waits for its turn first (the
    /// rewrite is a model call).
    ///
    /// Errors: as [`Tutor::ask`]; [`VidyaError::Busy`] when the queue is full;
    /// [`VidyaError::Cancelled`] when cancelled while waiting. A model that is down or stops
    /// is not an error (the answer quotes the textbook and says why).
    pub fn ask_with(
        &self,
        req: &AskRequest,
        on_token: &mut (dyn FnMut(&str) + Send),
        ctl: AskControl<'_>,
    ) -> Result<TutorAnswer> {
        let arrival = self.queue.arrive();
        let settings = self.settings();
        let extra = lock(&self.overrides).extra_hosts.clone();
        self.queue
            .set_hosts(&settings.answer_pool(&extra), settings.answers_at_once);
        let opts = Self::tutor_options(req, &settings)?;
        let cancel = ctl.cancel.clone();
        let cancelled = || cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst));
        // The first question after a start or a library change waits for the models and
        // indexes to load (seconds on a slow laptop): a student who left meanwhile is not
        // kept "still answering" through retrieval too.
        let tutor = self.tutor_for_question(&settings)?;
        if cancelled() {
            return Err(VidyaError::Cancelled);
        }
        let q = tutor.begin(&req.question, &opts)?;
        if tutor.rewrite_needs_model(&q) {
            let turn = self
                .queue
                .wait_turn(arrival, ctl.teacher, ctl.on_queue, &cancelled)?;
            let query = tutor.rewrite(&q, true);
            return match tutor.retrieve(q, query)? {
                Step::Answered(a) => Ok(*a),
                Step::NeedsModel(d) => {
                    (ctl.on_sources)(d.citations(), d.quotes_head().as_deref());
                    generate_in_turn(&tutor, *d, turn, on_token, ctl, &cancelled)
                }
            };
        }
        let query = tutor.rewrite(&q, false);
        let draft = match tutor.retrieve(q, query)? {
            Step::Answered(a) => return Ok(*a),
            Step::NeedsModel(d) => d,
        };
        if cancelled() {
            return Err(VidyaError::Cancelled);
        }
        (ctl.on_sources)(draft.citations(), draft.quotes_head().as_deref());
        let turn = self
            .queue
            .wait_turn(arrival, ctl.teacher, ctl.on_queue, &cancelled)?;
        generate_in_turn(&tutor, *draft, turn, on_token, ctl, &cancelled)
    }

    /// A tutor of this question's own over the shared indexes (built on first use, rebuilt
    /// after books changed), with the model settings in effect.
    fn tutor_for_question(&self, settings: &Settings) -> Result<Tutor> {
        let mut guard = lock(&self.tutor);
        if self.stale.swap(false, Ordering::SeqCst) {
            *guard = None;
        }
        if guard.is_none() {
            *guard = Some(self.build_tutor(settings)?);
        }
        guard.as_ref().expect("built above").fork(settings.llm())
    }

    /// Conversations, newest first.
    pub fn conversations(&self) -> Result<Vec<Conversation>> {
        self.lib()?.conversations()
    }

    /// The turns of a conversation. Errors: [`VidyaError::NoSuchConversation`].
    pub fn conversation(&self, id: i64) -> Result<Vec<Turn>> {
        let lib = self.lib()?;
        if !lib.conversation_exists(id)? {
            return Err(VidyaError::NoSuchConversation(id));
        }
        lib.turns(id)
    }

    /// Deletes a conversation. Errors: [`VidyaError::NoSuchConversation`].
    pub fn delete_conversation(&self, id: i64) -> Result<()> {
        if self.lib()?.delete_conversation(id)? {
            Ok(())
        } else {
            Err(VidyaError::NoSuchConversation(id))
        }
    }

    /// Deletes a book (and its uploaded copy, if Vidya keeps one). Errors:
    /// [`VidyaError::NoSuchBook`]; database errors.
    pub fn delete_book(&self, id: i64) -> Result<()> {
        let mut lib = self.lib()?;
        let book = lib.book(id)?;
        lib.delete_book(id)?;
        self.forget_tutor();
        let uploads = self.library.join(uploads::UPLOADS_DIR);
        let source = PathBuf::from(&book.source_path);
        if source.parent() == Some(uploads.as_path()) {
            let _ = std::fs::remove_file(&source);
        }
        if let Some(e) = self.embedder_if_loaded() {
            let _ = DenseIndex::open(&lib, &e.model_id(), crate::embed::DIM);
        }
        Ok(())
    }

    /// Renders a cited page with its sentences highlighted. Errors: see
    /// [`page_image::render`].
    pub fn page_image(&self, req: &PageImageRequest) -> Result<page_image::PageImage> {
        page_image::render(
            &self.lib()?,
            req.book_id,
            req.page,
            &req.highlight,
            req.width.unwrap_or(page_image::DEFAULT_WIDTH_PX),
        )
    }

    /// Keeps an uploaded file in `<library>/uploads/` and returns its path. Errors:
    /// [`VidyaError::BadOption`] for an unusable name, [`VidyaError::Empty`] for 0 bytes; I/O.
    /// (Size and type are checked by the ingest that follows.)
    pub fn save_upload(&self, name: &str, bytes: &[u8]) -> Result<PathBuf> {
        let name = uploads::safe_file_name(name).ok_or_else(|| {
            VidyaError::BadOption(
                "name the uploaded file: a file name such as book.pdf is needed".into(),
            )
        })?;
        if bytes.is_empty() {
            return Err(VidyaError::Empty {
                path: PathBuf::from(&name),
                why: "the upload is empty (0 bytes)".into(),
            });
        }
        let dir = self.library.join(uploads::UPLOADS_DIR);
        std::fs::create_dir_all(&dir).map_err(|e| VidyaError::io(&dir, e))?;
        let path = uploads::upload_path(&dir, &name, bytes);
        std::fs::write(&path, bytes).map_err(|e| VidyaError::io(&path, e))?;
        Ok(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_line_model_settings_are_not_saved_until_the_user_changes_them() {
        let dir = tempfile::tempdir().unwrap();
        let app = App::open(
            dir.path(),
            false,
            LlmOverrides {
                host: Some("http://127.0.0.1:9999".into()),
                model: None,
                extra_hosts: Vec::new(),
            },
        )
        .unwrap();
        let mut s = app.settings();
        assert_eq!(s.ollama_host, "http://127.0.0.1:9999");
        // Switching the interface language saves the settings as shown…
        s.ui_language = "hi".into();
        let effective = app.save_settings(&s).unwrap();
        assert_eq!(effective.ollama_host, "http://127.0.0.1:9999");
        assert_eq!(effective.ui_language, "hi");
        // …but the file keeps its own address.
        let file = Settings::load(dir.path());
        assert_eq!(file.ollama_host, Settings::default().ollama_host);
        assert_eq!(file.ui_language, "hi");
        // A changed address is the user's choice: saved, and it replaces the flag.
        s.ollama_host = "http://127.0.0.1:11500".into();
        assert_eq!(
            app.save_settings(&s).unwrap().ollama_host,
            "http://127.0.0.1:11500"
        );
        assert_eq!(
            Settings::load(dir.path()).ollama_host,
            "http://127.0.0.1:11500"
        );
        // A bad value is refused and nothing changes.
        s.model = "".into();
        assert_eq!(app.save_settings(&s).unwrap_err().kind(), "bad_option");
        assert_eq!(Settings::load(dir.path()).model, Settings::default().model);
    }
}
