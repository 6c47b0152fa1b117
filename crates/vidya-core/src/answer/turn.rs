//! What one tutor turn takes and gives, step by step ([`super::tutor`]): its options, the
//! checked [`Question`], the [`Query`] retrieval runs, the [`Draft`] waiting for the model and
//! the finished [`TutorAnswer`].

use super::postcheck::PostCheck;
use super::prompt::{self, HistoryTurn, Mode};
use super::status::{AnswerStatus, QuerySource};
use crate::engine::AskResponse;
use serde::{Deserialize, Serialize};
use std::time::Instant;

/// Options of one tutor turn.
#[derive(Debug, Clone)]
pub struct TutorOptions {
    /// Answer, Socratic or quiz.
    pub mode: Mode,
    /// Answer language code, or `None`/`auto` for the question's script.
    pub language: Option<String>,
    /// Only these books.
    pub books: Option<Vec<i64>>,
    /// Continue this conversation (`None` starts a new one).
    pub conversation: Option<i64>,
    /// Ask the model (false: extractive answer only).
    pub use_llm: bool,
    /// Use and fill the answer cache.
    pub use_cache: bool,
    /// Store the turn in conversation memory.
    pub remember: bool,
    /// Passages given to the model (and quoted by the extractive answer).
    pub max_sources: usize,
    /// Token budget of the context (answer-model tokens); `None`: the pipeline default
    /// ([`crate::retrieve::budget::DEFAULT_BUDGET`]).
    pub budget_tokens: Option<usize>,
    /// Stop questions the library does not answer before the model is asked (the relevance
    /// gate). Off only to measure what the answer checks do on their own.
    pub gate: bool,
    /// Give the model the whole pages the passages come from (up to
    /// [`WHOLE_PAGES_TOKENS`] tokens) instead of the pruned sentences: the baseline against
    /// which pruning is measured (`vidya eval --answers --whole-pages`). The citations the
    /// student sees are the same.
    pub whole_pages: bool,
    /// The prompt's form (measuring prompts; the default is the one kept).
    pub prompt_form: prompt::PromptForm,
    /// How the model's answer is shown with the quotes.
    pub layout: Layout,
}

impl TutorOptions {
    /// The layout's name (`quotes-first`, `model-only`).
    pub fn layout_name(&self) -> &'static str {
        match self.layout {
            Layout::QuotesFirst => "quotes-first",
            Layout::ModelOnly => "model-only",
        }
    }
}

/// How a model's answer is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// The textbook's quotes first (shown as soon as the passages are found), then the tutor's
    /// checked sentences under a label. Chosen by the answer grading of `vidya eval
    /// --answers --layout` (docs/evaluation.md).
    #[default]
    QuotesFirst,
    /// The tutor's checked sentences alone (the quotes only in the sources panel).
    ModelOnly,
}

impl Layout {
    /// Parses `quotes-first` or `model-only`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "quotes-first" => Some(Self::QuotesFirst),
            "model-only" => Some(Self::ModelOnly),
            _ => None,
        }
    }
}

/// Most answer-model tokens of whole pages given to the model with
/// [`TutorOptions::whole_pages`] (the 2,000-token baseline of the pruning measurement).
pub const WHOLE_PAGES_TOKENS: usize = 2000;

impl Default for TutorOptions {
    fn default() -> Self {
        Self {
            mode: Mode::Answer,
            language: None,
            books: None,
            conversation: None,
            use_llm: true,
            use_cache: true,
            remember: true,
            max_sources: 4,
            budget_tokens: None,
            gate: true,
            whole_pages: false,
            prompt_form: prompt::PromptForm::default(),
            layout: Layout::default(),
        }
    }
}

/// A model error as reported to the user.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct LlmProblem {
    /// Stable name (`not_running`, `model_missing`, `timeout`, `not_ollama`, `server`,
    /// `cancelled`).
    pub kind: String,
    /// The message with the fix.
    pub message: String,
}

/// The answer of a tutor turn: `vidya ask --json` prints it. It has every field of
/// [`AskResponse`] (flattened) plus the ones below.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TutorAnswer {
    /// `answer`, `gated`, `citations`, `context_tokens`, `timings_ms` (adds `rewrite`, `ttft`,
    /// `generate` when the model ran).
    #[serde(flatten)]
    pub base: AskResponseData,
    /// `answer`, `socratic` or `quiz`.
    pub mode: Mode,
    /// ISO 639-1 answer language.
    pub language: String,
    /// The model asked, if any.
    pub model: Option<String>,
    /// How the answer was made (JSON: `answered`, `incomplete`, `refused`, `extractive`,
    /// `gated`, `cached`).
    pub status: AnswerStatus,
    /// Why the model could not answer, when it could not.
    pub llm_error: Option<LlmProblem>,
    /// One line for the student explaining a fallback or an incomplete answer.
    pub note: Option<String>,
    /// The standalone query used for retrieval.
    pub query: String,
    /// How the query was made (JSON: `question`, `model` or `fallback`).
    pub query_source: QuerySource,
    /// Post-check decisions.
    pub postcheck: PostCheck,
    /// Conversation id (when remembered).
    pub conversation_id: Option<i64>,
    /// Turn id (when remembered).
    pub turn_id: Option<i64>,
    /// Prompt tokens the model evaluated for this answer: the model server's own count
    /// (Ollama's `prompt_eval_count`, which leaves out a prefix it kept from the previous
    /// request, such as the unchanged system prompt) when it reports one, else an estimate of
    /// the whole prompt; `None` when no model was asked.
    #[serde(default)]
    pub prompt_tokens: Option<u64>,
}

/// [`AskResponse`]'s fields, owned and deserialisable (for the cache).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AskResponseData {
    /// Answer text with `[n]` markers.
    pub answer: String,
    /// True when the relevance gate stopped the answer.
    pub gated: bool,
    /// Numbered sources.
    pub citations: Vec<crate::answer::Citation>,
    /// Estimated tokens of the context given to the model (or quoted).
    pub context_tokens: usize,
    /// Tokens of the whole pages the kept chunks come from (the full-page baseline).
    #[serde(default)]
    pub page_tokens: usize,
    /// Milliseconds per stage.
    pub timings_ms: std::collections::BTreeMap<String, f64>,
    /// The retrieval pipeline's per-stage figures.
    #[serde(default)]
    pub retrieval: crate::retrieve::PipelineResult,
}

impl From<AskResponse> for AskResponseData {
    fn from(r: AskResponse) -> Self {
        Self {
            retrieval: r.retrieval,
            answer: r.answer,
            gated: r.gated,
            citations: r.citations,
            context_tokens: r.context_tokens,
            page_tokens: r.page_tokens,
            timings_ms: r.timings_ms,
        }
    }
}

/// A question checked by [`super::Tutor::begin`], with its conversation loaded.
#[derive(Debug, Clone)]
pub struct Question {
    /// When the turn began.
    pub(super) t0: Instant,
    /// The question as asked (cut to [`crate::engine::MAX_QUESTION_CHARS`] characters).
    pub question: String,
    /// The turn's options.
    pub opts: TutorOptions,
    /// The answer language code (`en`, `hi`, …).
    pub lang: &'static str,
    /// The conversation's last turns (at most 3), oldest first.
    pub history: Vec<HistoryTurn>,
}

/// The query retrieval runs ([`super::Tutor::rewrite`]).
#[derive(Debug, Clone)]
pub struct Query {
    /// The standalone query text.
    pub text: String,
    /// The question itself, rewritten by the model, or joined with the earlier turn.
    pub source: QuerySource,
    /// Time the rewrite took (ms).
    pub ms: f64,
}

/// What [`super::Tutor::retrieve`] leaves: a finished turn, or a draft for the model to write.
#[derive(Debug)]
pub enum Step {
    /// Finished (cached, gated, extractive only, or the model cannot be reached).
    Answered(Box<TutorAnswer>),
    /// Retrieved and not gated: [`super::Tutor::generate`] asks the model.
    NeedsModel(Box<Draft>),
}

/// What [`super::Tutor::generate_unless_preempted`] leaves.
#[derive(Debug)]
pub enum Generation {
    /// Finished, stored and traced (the model's answer, or the extractive one with a note).
    Answered(Box<TutorAnswer>),
    /// The teacher's question pre-empted the model: the draft, to generate again.
    Preempted(Box<Draft>),
    /// The answer machine failed (not reachable, timed out, broke off mid-answer) and another
    /// may take the question ([`Machine::can_move`]): the draft, and why, in words.
    Moved(Box<Draft>, String),
}

/// Where a question's answer is written (the classroom queue's turn,
/// [`crate::app::queue::Turn`]).
#[derive(Debug, Clone, Default)]
pub struct Machine {
    /// Set to true by the queue when the teacher's question pre-empts this student's answer.
    pub preempt: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
    /// The answer machine's Ollama address (`None`: the tutor's own setting).
    pub host: Option<String>,
    /// Another machine could take the question if this one fails: then a failure gives the
    /// draft back ([`Generation::Moved`]) instead of the extractive answer.
    pub can_move: bool,
}

/// A turn retrieved and waiting for the model: the extractive answer and its passages.
#[derive(Debug)]
pub struct Draft {
    pub(super) q: Question,
    /// The extractive answer, which the model's answer replaces.
    pub(super) answer: TutorAnswer,
    /// The turn's trace so far.
    pub(super) trace: serde_json::Value,
    /// Where the answer goes in the answer cache (`None`: not cached).
    pub(super) cache_key: Option<String>,
}

impl Draft {
    /// The passages the model will be given (what the student is shown as sources).
    pub fn citations(&self) -> &[crate::answer::Citation] {
        &self.answer.base.citations
    }

    /// What the student sees before the model writes, with [`Layout::QuotesFirst`]: the
    /// textbook's quotes and the label the tutor's words follow (the answer then begins with
    /// exactly this text when the model's answer stands). `None` with [`Layout::ModelOnly`].
    pub fn quotes_head(&self) -> Option<String> {
        (self.q.opts.layout == Layout::QuotesFirst)
            .then(|| quotes_head(&self.answer.base.answer, self.q.lang))
    }
}

/// The tutor's words in a shown answer: what follows the tutor's label with the quotes-first
/// layout (up to the glossary's terms line, when there is one), else the answer up to the
/// quotes that follow an incomplete one.
pub fn tutor_words(answer: &str) -> &str {
    let words = match answer
        .split_once("\n\n**")
        .and_then(|(_, rest)| rest.split_once(":** "))
    {
        Some((_, tutor)) => tutor,
        None => answer.split("\n\n").next().unwrap_or_default(),
    };
    // The glossary's terms come after a blank line.
    words.split("\n\n").next().unwrap_or_default()
}

/// The quotes (the extractive answer's text) and the label of the tutor's words in `lang`,
/// as [`Layout::QuotesFirst`] shows them.
pub fn quotes_head(quotes: &str, lang: &str) -> String {
    let label = prompt::languages()
        .get(lang)
        .map(|l| l.tutor_label.as_str())
        .unwrap_or("In the tutor's words");
    format!("{quotes}\n\n**{label}:** ")
}
