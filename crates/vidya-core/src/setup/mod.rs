//! The first-run setup wizard's checks and actions, shared by the desktop window, `vidya serve`
//! and `vidya setup`: the bundled files ([`resources`]), the laptop ([`machine`]), Ollama and
//! the answer model ([`ollama`]; [`locate`] finds its program, installer and model files), and
//! the sample chapter for a test question ([`sample`]); [`doctor`] is `vidya doctor`'s checks.

pub mod doctor;
pub mod locate;
pub mod machine;
pub mod ollama;
pub mod resources;
pub mod sample;

use crate::answer::TutorAnswer;
use crate::app::events::{ErrorBody, IngestProgress};
use serde::Serialize;

pub use machine::{MachineReport, ModelAdvice};
pub use ollama::{GgufFile, ModelProgress, OllamaState, SetupError};
pub use resources::{ResourceCheck, ResourceReport, ResourceStatus};

/// Everything the wizard shows, checked now (`GET /api/setup`, `vidya setup --json`).
#[derive(Debug, Clone, Serialize)]
pub struct SetupReport {
    /// The bundled files.
    pub resources: ResourceReport,
    /// Memory, disk space and the library folder.
    pub machine: MachineReport,
    /// Ollama on this machine.
    pub ollama: OllamaState,
    /// The Ollama installer's file name to copy beside Vidya's installer on this platform
    /// (`OllamaSetup.exe` on Windows, `ollama-linux-amd64.tgz` on Linux).
    pub ollama_installer_name: &'static str,
    /// The answer model in the settings.
    pub model: String,
    /// Whether Ollama has that model.
    pub model_installed: bool,
    /// `.gguf` files found on USB sticks, beside the installer, or in Downloads.
    pub gguf_files: Vec<GgufFile>,
    /// The bundled sample chapter (absent in a damaged install).
    pub sample_chapter: Option<String>,
    /// Whether the teacher finished (or skipped) the wizard once.
    pub setup_done: bool,
}

impl SetupReport {
    /// Problems that stop Vidya from working well, each with its fix (bundled files, the
    /// library folder). Ollama is not among them: without it answers quote the textbook.
    pub fn problems(&self) -> Vec<String> {
        let mut p = self.resources.problems();
        p.extend(self.machine.problems.iter().cloned());
        p
    }
}

/// One event of a wizard action (a model import or pull, the sample question).
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum SetupEvent {
    /// Progress of a model import or pull.
    Model(ModelProgress),
    /// Progress of reading the sample chapter.
    Reading(IngestProgress),
    /// Text the model just wrote (sample question).
    Token {
        /// The new text.
        text: String,
    },
    /// The sample question's answer; the last event of the sample action.
    Answer(Box<TutorAnswer>),
    /// The action failed; the last event.
    Error(ErrorBody),
    /// A model import or pull finished; the last event.
    Done {
        /// The model now installed.
        model: String,
    },
}

/// Whether `models` (as Ollama lists them) has `model`.
pub fn has_model(models: &[String], model: &str) -> bool {
    models
        .iter()
        .any(|m| crate::answer::llm_client::same_model(m, model))
}
