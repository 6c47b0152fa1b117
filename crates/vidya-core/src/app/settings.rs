//! The app's settings (Settings screen): Ollama host and model, default answer language and
//! mode, token-budget preset. Kept as `settings.json` in the library folder, so a library
//! copied to another laptop keeps them.

use crate::answer::llm_client::{LlmConfig, DEFAULT_MODEL};
use crate::answer::prompt::Mode;
use crate::error::{Result, VidyaError};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// File name inside the library folder.
pub const SETTINGS_FILE: &str = "settings.json";

/// Answer languages a question may ask for (`auto`: the question's own script), for
/// `--lang`, the HTTP API's `lang` and the settings.
pub const LANGUAGE_CHOICES: [&str; 7] = ["auto", "en", "hi", "mr", "kn", "te", "ta"];

/// How much textbook context each answer gets: a speed/quality trade-off for slow laptops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum BudgetPreset {
    /// 256 tokens, 2 sources: the quickest answers on a Core i3.
    Fast,
    /// 512 tokens, 4 sources: the pipeline's measured default.
    #[default]
    Balanced,
    /// 1024 tokens, 6 sources: more context, slower prompts.
    Quality,
}

impl BudgetPreset {
    /// (token budget in answer-model tokens, most sources).
    pub fn budget(self) -> (usize, usize) {
        match self {
            Self::Fast => (256, 2),
            Self::Balanced => (crate::retrieve::budget::DEFAULT_BUDGET, 4),
            Self::Quality => (1024, 6),
        }
    }
}

/// The Settings screen's values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Ollama's base URL (`http://127.0.0.1:11434`).
    pub ollama_host: String,
    /// Ollama model name (`llama3.2:3b`).
    pub model: String,
    /// Default answer language (one of [`LANGUAGE_CHOICES`]).
    pub language: String,
    /// Default mode: `answer`, `socratic` or `quiz`.
    pub mode: String,
    /// Token-budget preset.
    pub budget: BudgetPreset,
    /// Interface language of the window (`en`, `hi`, `kn`, `te`, `ta`, `mr`).
    pub ui_language: String,
    /// Whether the first-run setup wizard was finished or skipped (false: the window opens
    /// it at start).
    pub setup_done: bool,
    /// Classroom: other machines running Ollama (lab laptops) that write answers too, by
    /// address (`http://192.168.1.21:11434`), besides [`Settings::ollama_host`]. Each must
    /// have the model installed.
    pub answer_machines: Vec<String>,
    /// Answers each answer machine writes at once (Ollama's parallel slots, set on that
    /// machine with `OLLAMA_NUM_PARALLEL`): 1 to [`MAX_ANSWERS_AT_ONCE`].
    pub answers_at_once: usize,
}

/// Most answer machines a class may have (a lab's laptops).
pub const MAX_ANSWER_MACHINES: usize = 16;
/// Most answers one machine is asked to write at once.
pub const MAX_ANSWERS_AT_ONCE: usize = 4;

impl Default for Settings {
    fn default() -> Self {
        Self {
            ollama_host: LlmConfig::default().host,
            model: DEFAULT_MODEL.to_string(),
            language: "auto".into(),
            mode: "answer".into(),
            budget: BudgetPreset::Balanced,
            ui_language: "en".into(),
            setup_done: false,
            answer_machines: Vec::new(),
            answers_at_once: 1,
        }
    }
}

/// Interface languages with string files in `ui/i18n/`.
pub const UI_LANGUAGES: [&str; 6] = ["en", "hi", "kn", "te", "ta", "mr"];

impl Settings {
    /// The settings file of the library in `dir`.
    pub fn path(dir: &Path) -> PathBuf {
        dir.join(SETTINGS_FILE)
    }

    /// Reads the library's settings; defaults when the file is absent. A damaged file is
    /// reported in the log and replaced by the defaults (the next save rewrites it).
    pub fn load(dir: &Path) -> Self {
        let path = Self::path(dir);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %path.display(), error = %e, "settings unreadable; using defaults");
                Self::default()
            }),
            Err(_) => Self::default(),
        }
    }

    /// Checks every value. Errors: [`VidyaError::BadOption`] naming the field and what to use.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(VidyaError::BadOption(m));
        let host = self.ollama_host.trim();
        match url::Url::parse(host) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.host().is_some() => {}
            _ => {
                return bad(format!(
                    "the Ollama address '{host}' is not a web address: use one like http://127.0.0.1:11434"
                ))
            }
        }
        let odd = |s: &str| s.len() > 300 || s.chars().any(char::is_control);
        if odd(&self.ollama_host) || odd(&self.model) {
            return bad(
                "the Ollama address and model name must be one short line (under 300 characters)"
                    .into(),
            );
        }
        if self.model.trim().is_empty() {
            return bad(
                "the model name is empty: use one that `ollama list` shows, such as llama3.2:3b"
                    .into(),
            );
        }
        if !LANGUAGE_CHOICES.contains(&self.language.as_str()) {
            return bad(format!(
                "unknown answer language '{}': use auto, en, hi, mr, kn, te or ta",
                self.language
            ));
        }
        if Mode::parse(&self.mode).is_none() {
            return bad(format!(
                "unknown mode '{}': use answer, socratic or quiz",
                self.mode
            ));
        }
        if self.answer_machines.len() > MAX_ANSWER_MACHINES {
            return bad(format!(
                "at most {MAX_ANSWER_MACHINES} answer machines: remove some"
            ));
        }
        for m in &self.answer_machines {
            if odd(m) || crate::answer::llm_client::normalize_host(m).is_err() {
                return bad(format!(
                    "the answer machine '{}' is not an address: use one like http://192.168.1.21:11434",
                    m.chars().take(80).collect::<String>()
                ));
            }
        }
        if !(1..=MAX_ANSWERS_AT_ONCE).contains(&self.answers_at_once) {
            return bad(format!(
                "answers at once must be 1 to {MAX_ANSWERS_AT_ONCE}"
            ));
        }
        if !UI_LANGUAGES.contains(&self.ui_language.as_str()) {
            return bad(format!(
                "unknown interface language '{}': use en, hi, kn, te, ta or mr",
                self.ui_language
            ));
        }
        Ok(())
    }

    /// Validates and writes the settings atomically (a temporary file renamed over the old
    /// one, so a crash never leaves half a file). Errors: [`VidyaError::BadOption`], [`VidyaError::Internal`] (serialising failed), I/O.
    pub fn save(&self, dir: &Path) -> Result<()> {
        self.validate()?;
        let path = Self::path(dir);
        let tmp = dir.join(format!("{SETTINGS_FILE}.tmp"));
        let json =
            serde_json::to_vec_pretty(self).map_err(|e| VidyaError::Internal(e.to_string()))?;
        std::fs::write(&tmp, json).map_err(|e| VidyaError::io(&tmp, e))?;
        std::fs::rename(&tmp, &path).map_err(|e| VidyaError::io(&path, e))
    }

    /// The answer machines of a class, each once, in order: the Ollama address of these
    /// settings first, then [`Settings::answer_machines`] and `extra` (`vidya serve
    /// --ollama` given more than once), each as Ollama reads an address
    /// ([`crate::answer::llm_client::normalize_host`]).
    pub fn answer_pool(&self, extra: &[String]) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let all = std::iter::once(&self.ollama_host)
            .chain(&self.answer_machines)
            .chain(extra);
        for h in all {
            let h = crate::answer::llm_client::normalize_host(h.trim())
                .unwrap_or_else(|_| h.trim().to_string());
            if !h.is_empty() && !out.contains(&h) {
                out.push(h);
            }
        }
        out
    }

    /// The answer model's configuration with these settings.
    pub fn llm(&self) -> LlmConfig {
        LlmConfig {
            host: self.ollama_host.trim().to_string(),
            model: self.model.trim().to_string(),
            ..LlmConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_round_trip_and_bad_values_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default());
        let s = Settings {
            model: "qwen2.5:1.5b".into(),
            language: "hi".into(),
            budget: BudgetPreset::Fast,
            ..Settings::default()
        };
        s.save(dir.path()).unwrap();
        assert_eq!(Settings::load(dir.path()), s);
        assert_eq!(s.llm().model, "qwen2.5:1.5b");

        for bad in [
            Settings {
                ollama_host: "localhost 11434".into(),
                ..s.clone()
            },
            Settings {
                model: " ".into(),
                ..s.clone()
            },
            Settings {
                language: "fr".into(),
                ..s.clone()
            },
            Settings {
                mode: "essay".into(),
                ..s.clone()
            },
            Settings {
                ui_language: "de".into(),
                ..s.clone()
            },
        ] {
            let e = bad.save(dir.path()).unwrap_err();
            assert_eq!(e.kind(), "bad_option", "{e}");
        }
        // Nothing bad was written.
        assert_eq!(Settings::load(dir.path()), s);
        // A damaged file falls back to the defaults.
        std::fs::write(Settings::path(dir.path()), b"{not json").unwrap();
        assert_eq!(Settings::load(dir.path()), Settings::default());
        assert_eq!(BudgetPreset::Quality.budget(), (1024, 6));
    }
}
