//! Prompts for the answer model, rendered from the template files in `prompts/` (minijinja):
//! `system.j2` (rules per mode and language), `user.j2` (numbered sources and the question),
//! `rewrite.j2` (follow-up → standalone question), `languages.toml` (language names, the exact
//! refusal sentence per language, the quiz answer-key label).

use crate::error::{Result, VidyaError};
use crate::text::script::detect_language;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

const SYSTEM: &str = include_str!("../../prompts/system.j2");
const USER: &str = include_str!("../../prompts/user.j2");
const REWRITE: &str = include_str!("../../prompts/rewrite.j2");
const LANGUAGES: &str = include_str!("../../prompts/languages.toml");

/// Number of questions a quiz asks.
pub const QUIZ_QUESTIONS: usize = 4;

/// How the tutor answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A short, direct, cited answer.
    #[default]
    Answer,
    /// Guiding questions and hints, never the bare answer first.
    Socratic,
    /// 3–5 questions with an answer key drawn from the sources.
    Quiz,
}

impl Mode {
    /// Parses `answer`, `socratic` or `quiz`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "answer" => Some(Self::Answer),
            "socratic" => Some(Self::Socratic),
            "quiz" => Some(Self::Quiz),
            _ => None,
        }
    }

    /// The lowercase name.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Answer => "answer",
            Self::Socratic => "socratic",
            Self::Quiz => "quiz",
        }
    }
}

/// One answer language of `languages.toml`.
#[derive(Debug, Clone, Deserialize)]
pub struct Language {
    /// Name shown to the model.
    pub name: String,
    /// The exact refusal sentence.
    pub refusal: String,
    /// Label of the quiz answer key.
    pub answer_key: String,
    /// Title of a quiz built from the quotes.
    pub quiz_title: String,
    /// Title of Socratic hints built from the quotes.
    pub hints_title: String,
    /// The question under a cloze sentence.
    pub cloze_prompt: String,
    /// Label before the tutor's words under the quotes.
    pub tutor_label: String,
    /// Label of the glossary's terms under quotes in another language.
    pub terms_label: String,
}

/// All answer languages by ISO 639-1 code (`en`, `hi`, `mr`, `kn`, `te`, `ta`).
pub fn languages() -> &'static BTreeMap<String, Language> {
    static L: OnceLock<BTreeMap<String, Language>> = OnceLock::new();
    L.get_or_init(|| toml::from_str(LANGUAGES).expect("prompts/languages.toml is valid"))
}

/// The answer language for `requested` (`auto` or empty = the question's script, English when
/// unsure). Errors: an unknown code, with the list of known ones.
pub fn resolve_language(requested: Option<&str>, question: &str) -> Result<&'static str> {
    let langs = languages();
    match requested
        .map(str::trim)
        .filter(|r| !r.is_empty() && *r != "auto")
    {
        Some(code) => langs
            .keys()
            .find(|k| k.as_str() == code.to_ascii_lowercase())
            .map(|k| k.as_str())
            .ok_or_else(|| {
                VidyaError::BadOption(format!(
                    "unknown language '{code}': use one of auto, {}",
                    langs.keys().cloned().collect::<Vec<_>>().join(", ")
                ))
            }),
        None => {
            // Students often write in an Indian language with the textbook's English terms
            // ("photosynthesis में light reactions क्या हैं?"): a fifth of the letters in an
            // Indian script is enough to answer in that language.
            let letters: Vec<char> = question.chars().filter(|c| c.is_alphabetic()).collect();
            let indic: String = letters
                .iter()
                .filter(|c| ('\u{0900}'..='\u{0DFF}').contains(*c))
                .collect();
            let detected = if !letters.is_empty() && indic.chars().count() * 5 >= letters.len() {
                detect_language(&indic.repeat(20 / indic.chars().count().max(1) + 1))
            } else {
                detect_language(question)
            };
            Ok(langs
                .keys()
                .find(|k| k.as_str() == detected)
                .map(|k| k.as_str())
                .unwrap_or("en"))
        }
    }
}

/// A numbered source as the prompt shows it.
#[derive(Debug, Clone, Serialize)]
pub struct PromptSource {
    /// Its `[n]`.
    pub n: usize,
    /// Book title.
    pub book: String,
    /// Chapter title.
    pub chapter: String,
    /// Printed page label.
    pub page_label: String,
    /// Quoted text.
    pub text: String,
}

/// A rendered prompt: the system message and the user message.
#[derive(Debug, Clone, PartialEq)]
pub struct Prompt {
    /// System message (rules).
    pub system: String,
    /// User message (sources and question).
    pub user: String,
}

/// A previous turn, for the follow-up rewrite.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryTurn {
    /// The student's question.
    pub question: String,
    /// What was searched for it (its standalone rewrite, or the question).
    pub query: String,
    /// The tutor's answer (shortened).
    pub answer: String,
}

fn render(template: &str, ctx: minijinja::Value) -> String {
    let env = minijinja::Environment::new();
    env.render_str(template, ctx)
        .expect("prompt templates are valid and tested")
        .trim()
        .to_string()
}

/// The refusal sentence for `lang` (English when unknown).
pub fn refusal(lang: &str) -> &'static str {
    languages()
        .get(lang)
        .or_else(|| languages().get("en"))
        .map(|l| l.refusal.as_str())
        .unwrap_or("I could not find this in your textbook.")
}

/// The English name of answer language `lang` ("Hindi"), or the code itself when unknown.
pub fn language_name(lang: &str) -> String {
    languages()
        .get(lang)
        .map(|l| l.name.clone())
        .unwrap_or_else(|| lang.to_string())
}

/// The shape of the prompt, measured with a real model (`vidya eval --answers
/// --prompt-form …`); [`PromptForm::default`] is the one kept. Measured with
/// Qwen2.5-Coder-0.5B-Instruct on the first 40 dev questions of `tests/eval/students.jsonl`
/// (answered by the model / cited page holds the answer / must-mention): standard 0.70 / 0.60
/// / 0.475, example 0.675 / 0.65 / 0.575, short 0.65 / 0.525 / 0.425, question-first 0.25 /
/// 0.80 / 0.80 (but 68 % of its answers were replaced by the extractive answer, so those rates
/// are the quotes'): `example` is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PromptForm {
    /// Full rules, the sources, then the question.
    Standard,
    /// The standard rules with a one-line example of a cited sentence.
    #[default]
    Example,
    /// Shorter rules with the example built into the citation rule.
    Short,
    /// The standard rules, the question before the sources.
    QuestionFirst,
}

impl PromptForm {
    /// Parses `standard`, `example`, `short` or `question-first`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "standard" => Some(Self::Standard),
            "example" => Some(Self::Example),
            "short" => Some(Self::Short),
            "question-first" => Some(Self::QuestionFirst),
            _ => None,
        }
    }
}

/// Renders the prompt for `mode` in `lang` over `sources`, in the default form. The system
/// prompt depends only on the mode and the language, never on the question, so Ollama reuses
/// its evaluated prefix from one question to the next.
pub fn build(mode: Mode, lang: &str, question: &str, sources: &[PromptSource]) -> Prompt {
    build_form(PromptForm::default(), mode, lang, question, sources)
}

/// Renders the prompt for `mode` in `lang` over `sources` in `form`.
pub fn build_form(
    form: PromptForm,
    mode: Mode,
    lang: &str,
    question: &str,
    sources: &[PromptSource],
) -> Prompt {
    let l = languages()
        .get(lang)
        .or_else(|| languages().get("en"))
        .expect("en exists");
    let system = render(
        SYSTEM,
        minijinja::context! {
            mode => mode.as_str(),
            language_name => l.name,
            refusal => l.refusal,
            answer_key_label => l.answer_key,
            quiz_questions => QUIZ_QUESTIONS,
            form => match form {
                PromptForm::Example => "example",
                PromptForm::Short => "short",
                _ => "standard",
            },
        },
    );
    let user = render(
        USER,
        minijinja::context! {
            mode => mode.as_str(), sources => sources, question => question.trim(),
            question_first => form == PromptForm::QuestionFirst,
        },
    );
    Prompt { system, user }
}

/// Renders the follow-up rewrite prompt.
pub fn rewrite(history: &[HistoryTurn], question: &str) -> String {
    render(
        REWRITE,
        minijinja::context! { history => history, question => question.trim() },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sources() -> Vec<PromptSource> {
        vec![
            PromptSource {
                n: 1,
                book: "Biology 2e".into(),
                chapter: "Chapter 8: Photosynthesis".into(),
                page_label: "154".into(),
                text: "Photosynthesis takes place in two sequential stages: the light-dependent reactions and the light-independent reactions.".into(),
            },
            PromptSource {
                n: 2,
                book: "Biology 2e".into(),
                chapter: "Chapter 8: Photosynthesis".into(),
                page_label: "158".into(),
                text: "The overall function of light-dependent reactions is to convert solar energy into chemical energy in the form of NADPH and ATP.".into(),
            },
        ]
    }

    #[test]
    fn answer_mode_english() {
        let p = build(
            Mode::Answer,
            "en",
            "What happens in the light-dependent reactions?",
            &sources(),
        );
        insta::assert_snapshot!("answer_en_system", p.system);
        insta::assert_snapshot!("answer_en_user", p.user);
    }

    #[test]
    fn socratic_mode_hindi() {
        let p = build(
            Mode::Socratic,
            "hi",
            "प्रकाश अभिक्रियाओं में क्या होता है?",
            &sources(),
        );
        insta::assert_snapshot!("socratic_hi_system", p.system);
        assert!(p.system.contains("मुझे यह आपकी पाठ्यपुस्तक में नहीं मिला।"));
    }

    #[test]
    fn quiz_mode_tamil() {
        let p = build(Mode::Quiz, "ta", "photosynthesis", &sources());
        insta::assert_snapshot!("quiz_ta_system", p.system);
        insta::assert_snapshot!("quiz_ta_user", p.user);
    }

    #[test]
    fn rewrite_prompt() {
        let h = vec![HistoryTurn {
            question: "What happens in glycolysis?".into(),
            query: "What happens in glycolysis?".into(),
            answer: "Glucose is split into two pyruvate molecules [1].".into(),
        }];
        insta::assert_snapshot!("rewrite", rewrite(&h, "Where does it take place?"));
    }

    #[test]
    fn languages_and_modes() {
        assert_eq!(languages().len(), 6);
        assert_eq!(
            resolve_language(None, "प्रकाश संश्लेषण क्या है और यह कहाँ होता है?").unwrap(),
            "hi"
        );
        assert_eq!(
            resolve_language(Some("auto"), "What is light?").unwrap(),
            "en"
        );
        assert_eq!(
            resolve_language(
                None,
                "photosynthesis में light-dependent reactions क्या करती हैं?"
            )
            .unwrap(),
            "hi"
        );
        assert_eq!(
            resolve_language(Some("TA"), "What is light?").unwrap(),
            "ta"
        );
        assert!(resolve_language(Some("fr"), "x")
            .unwrap_err()
            .to_string()
            .contains("unknown language 'fr'"));
        assert_eq!(Mode::parse("Quiz"), Some(Mode::Quiz));
        assert_eq!(Mode::parse("essay"), None);
    }
}
