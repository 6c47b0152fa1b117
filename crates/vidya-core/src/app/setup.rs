//! The setup wizard's actions on the app service: the report, starting Ollama, getting an
//! answer model (import a `.gguf` file, or pull by name), and the test question about the
//! bundled sample chapter. The checks themselves live in [`crate::setup`].

use super::{App, AskRequest, ErrorBody, IngestEvent, LlmOverrides};
use crate::setup::{self, machine, ollama, resources, sample, SetupEvent, SetupReport};
use crate::setup::{ModelProgress, OllamaState};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long [`App::start_ollama`] waits for Ollama to answer (s); Ollama starts in 1–5 s on a
/// slow laptop.
pub const OLLAMA_START_WAIT_S: u64 = 30;

fn setup_error(message: impl Into<String>) -> ErrorBody {
    ErrorBody {
        kind: "setup".into(),
        message: message.into(),
        file: None,
    }
}

impl App {
    /// Checks everything the wizard shows (bundled files, memory and disk, Ollama and its
    /// models, `.gguf` files on USB sticks). Takes up to ~1 s (the first hashing of the bundled
    /// files; later starts read the cache) plus up to 5 s when the Ollama host does not answer.
    pub fn setup_report(&self) -> SetupReport {
        let settings = self.settings();
        let host = settings.llm().host;
        let ollama = ollama::probe(&host);
        let model_installed = match &ollama {
            OllamaState::Running { models, .. } => setup::has_model(models, &settings.model),
            _ => false,
        };
        SetupReport {
            resources: resources::verify(&crate::paths::data_dir()),
            machine: machine::check(self.library_dir()),
            ollama,
            ollama_installer_name: ollama::INSTALLER_NAME,
            model: settings.model.clone(),
            model_installed,
            gguf_files: ollama::find_gguf_files(),
            sample_chapter: sample::sample_chapter().map(|p| p.display().to_string()),
            setup_done: settings.setup_done,
        }
    }

    /// The bundled files' problems (empty when all are intact), for the window's start-up
    /// banner.
    pub fn resource_problems(&self) -> Vec<String> {
        resources::verify(&crate::paths::data_dir()).problems()
    }

    /// Starts the installed Ollama and waits until it answers (at most
    /// [`OLLAMA_START_WAIT_S`]). Returns Ollama's state afterwards. Errors: the message and
    /// fix (not installed, could not start, did not answer).
    pub fn start_ollama(&self) -> std::result::Result<OllamaState, ErrorBody> {
        let host = self.settings().llm().host;
        match ollama::probe(&host) {
            s @ OllamaState::Running { .. } => Ok(s),
            OllamaState::Stopped { program, .. } => {
                ollama::start(&program, &host, Duration::from_secs(OLLAMA_START_WAIT_S))
                    .map_err(|e| setup_error(e.0))?;
                Ok(ollama::probe(&host))
            }
            OllamaState::Absent { installer, .. } => Err(setup_error(match installer {
                Some(i) => format!(
                    "Ollama is not installed. Fix: open {} to install it (it needs no internet), then come back here",
                    i.display()
                ),
                None => format!("Ollama is not installed. Fix: copy {} onto the USB stick beside Vidya's installer (download it once from ollama.com where there is internet) and run it", ollama::INSTALLER_NAME),
            })),
        }
    }

    /// Makes `model` the answer model in the settings (after an import or pull). Errors: the
    /// settings cannot be written.
    fn use_model(&self, model: &str) -> crate::error::Result<()> {
        let mut s = self.settings();
        s.model = model.to_string();
        self.save_settings(&s).map(|_| ())
    }

    /// Imports the `.gguf` file at `path` into Ollama as `name` (default: from the file name),
    /// then makes it the answer model. Sends [`SetupEvent::Model`] progress and ends with
    /// [`SetupEvent::Done`] or [`SetupEvent::Error`]. Returns true on success.
    pub fn import_model(
        &self,
        path: &Path,
        name: Option<&str>,
        emit: &mut dyn FnMut(SetupEvent),
    ) -> bool {
        let name = name
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .map(String::from)
            .unwrap_or_else(|| ollama::model_name_for(path));
        let host = self.settings().llm().host;
        let result = ollama::import_gguf(&host, path, &name, &mut |p: ModelProgress| {
            emit(SetupEvent::Model(p))
        });
        self.finish_model(result, &name, emit)
    }

    /// Downloads `name` through Ollama (needs the internet), then makes it the answer model.
    /// Events as [`App::import_model`].
    pub fn pull_model(&self, name: &str, emit: &mut dyn FnMut(SetupEvent)) -> bool {
        let host = self.settings().llm().host;
        let result = ollama::pull(&host, name, &mut |p: ModelProgress| {
            emit(SetupEvent::Model(p))
        });
        self.finish_model(result, name.trim(), emit)
    }

    fn finish_model(
        &self,
        result: std::result::Result<(), setup::SetupError>,
        name: &str,
        emit: &mut dyn FnMut(SetupEvent),
    ) -> bool {
        match result {
            Ok(()) => match self.use_model(name) {
                Ok(()) => {
                    emit(SetupEvent::Done {
                        model: name.to_string(),
                    });
                    true
                }
                Err(e) => {
                    emit(SetupEvent::Error(setup_error(format!(
                        "Ollama now has {name}, but Vidya could not save it as the answer model ({e}). Fix: choose it under Settings → Model"
                    ))));
                    false
                }
            },
            Err(e) => {
                emit(SetupEvent::Error(setup_error(e.0)));
                false
            }
        }
    }

    /// Asks [`sample::SAMPLE_QUESTION`] about the bundled sample chapter (read once into its
    /// own library, [`sample::sample_library_dir`]) with this app's answer-model settings, in
    /// `lang` (default: the settings' language). Sends [`SetupEvent::Reading`] while the chapter
    /// is read (≈15 s the first time), [`SetupEvent::Token`]s, then [`SetupEvent::Answer`] or
    /// [`SetupEvent::Error`]. Returns true when an answer came back (a model that is down gives
    /// the extractive answer, which is still an answer).
    pub fn sample_question(
        &self,
        lang: Option<String>,
        emit: &mut (dyn FnMut(SetupEvent) + Send),
    ) -> bool {
        self.sample_question_in(&sample::sample_library_dir(), lang, emit)
    }

    /// [`App::sample_question`] with the sample library in `dir` (tests).
    pub fn sample_question_in(
        &self,
        dir: &Path,
        lang: Option<String>,
        emit: &mut (dyn FnMut(SetupEvent) + Send),
    ) -> bool {
        let Some(chapter) = sample::sample_chapter() else {
            emit(SetupEvent::Error(setup_error(
                "the sample chapter (sample/ch08.pdf) is missing from Vidya's folder. Fix: reinstall Vidya from its installer (your books are kept)",
            )));
            return false;
        };
        let settings = self.settings();
        let overrides = LlmOverrides {
            host: Some(settings.ollama_host.clone()),
            model: Some(settings.model.clone()),
            extra_hosts: Vec::new(),
        };
        let sample_app = match App::open(dir, self.embed, overrides) {
            Ok(a) => a,
            Err(e) => {
                emit(SetupEvent::Error(ErrorBody::from(&e)));
                return false;
            }
        };
        if sample_app.books().map(|b| b.is_empty()).unwrap_or(true) {
            let mut failed: Option<ErrorBody> = None;
            let ok = sample_app.ingest(
                &[PathBuf::from(&chapter)],
                Some("Biology 2e (sample chapter)".into()),
                false,
                &mut |e| match e {
                    IngestEvent::Progress(p) => emit(SetupEvent::Reading(p)),
                    IngestEvent::Error(b) => failed = Some(b),
                    _ => {}
                },
            );
            if !ok {
                emit(SetupEvent::Error(failed.unwrap_or_else(|| {
                    setup_error("the sample chapter could not be read")
                })));
                return false;
            }
        }
        let req = AskRequest {
            question: sample::SAMPLE_QUESTION.into(),
            lang: lang.or(Some(settings.language)),
            no_cache: true,
            ..AskRequest::default()
        };
        let mut on_token = |t: &str| {
            emit(SetupEvent::Token {
                text: t.to_string(),
            })
        };
        let result = sample_app.ask(&req, &mut on_token);
        match result {
            Ok(a) => {
                emit(SetupEvent::Answer(Box::new(a)));
                true
            }
            Err(e) => {
                emit(SetupEvent::Error(ErrorBody::from(&e)));
                false
            }
        }
    }

    /// Records that the wizard was finished (or skipped), so the window no longer opens it at
    /// start; `false` makes it open again. Errors: the settings cannot be written.
    pub fn set_setup_done(&self, done: bool) -> crate::error::Result<()> {
        let mut s = self.settings();
        s.setup_done = done;
        self.save_settings(&s).map(|_| ())
    }
}
