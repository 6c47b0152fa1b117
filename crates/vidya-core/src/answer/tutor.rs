//! The tutor turn: follow-up rewrite → cache → retrieval and relevance gate → prompt → streamed
//! model answer → deterministic post-checks → memory, cache and trace.
//!
//! Whenever no model can answer (Ollama down, model missing, timeout, broken stream with no
//! text, echoed prompt) the student still gets the extractive answer — the pruned passages
//! with citations — and one line saying why the tutor could not write an answer.

use super::followup;
use super::llm_client::{LlmConfig, LlmError, OllamaClient};
use super::postcheck::PostCheck;
use super::prompt::{self, HistoryTurn};
use super::status::{AnswerStatus, QuerySource};
use crate::engine::{AskOptions, Engine};
use crate::error::{Result, VidyaError};
use crate::text::Tokenizer;
use sha2::{Digest, Sha256};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

pub use super::turn::{
    AskResponseData, Draft, Generation, Layout, LlmProblem, Machine, Query, Question, Step,
    TutorAnswer, TutorOptions, WHOLE_PAGES_TOKENS,
};

/// The tutor: the engine plus the answer model's settings.
#[derive(Debug)]
pub struct Tutor {
    engine: Engine,
    llm: LlmConfig,
    tokenizer: Tokenizer,
}

fn ms(t: Instant) -> f64 {
    (t.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

fn normalized_question(q: &str) -> String {
    q.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['?', '.', '!', '।', ' '])
        .to_string()
}

fn short(text: &str, words: usize) -> String {
    let w: Vec<&str> = text.split_whitespace().collect();
    if w.len() <= words {
        w.join(" ")
    } else {
        format!("{} …", w[..words].join(" "))
    }
}

impl Tutor {
    /// A tutor over `engine` using the model settings `llm`.
    pub fn new(engine: Engine, llm: LlmConfig) -> Self {
        Self {
            engine,
            llm,
            tokenizer: Tokenizer::new(),
        }
    }

    /// A tutor over the same indexes and models with its own library connection and the
    /// model settings `llm`: one per question, so that questions retrieve in parallel.
    /// Errors: the library's database cannot be opened.
    pub fn fork(&self, llm: LlmConfig) -> Result<Self> {
        Ok(Self::new(self.engine.fork()?, llm))
    }

    /// The engine.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The model settings.
    pub fn llm_config(&self) -> &LlmConfig {
        &self.llm
    }

    /// Changes the model settings (the Settings screen); the indexes are kept.
    pub fn set_llm_config(&mut self, llm: LlmConfig) {
        self.llm = llm;
    }

    /// Checks that Ollama answers and the configured model is installed (blocking).
    pub fn check_model(&self) -> std::result::Result<(), LlmError> {
        let client = OllamaClient::new(self.llm.clone())?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| LlmError::Server {
                message: e.to_string(),
            })?;
        runtime.block_on(client.check_model())
    }

    fn cache_key(&self, question: &str, opts: &TutorOptions, lang: &str) -> String {
        let mut books = opts.books.clone().unwrap_or_default();
        books.sort_unstable();
        let material = serde_json::json!({
            "q": normalized_question(question), "books": books, "mode": opts.mode.as_str(), "lang": lang,
            "model": if opts.use_llm { Some(&self.llm.model) } else { None }, "sources": opts.max_sources,
            "budget": opts.budget_tokens,
        });
        hex::encode(Sha256::digest(material.to_string().as_bytes()))
    }

    /// Answers one question: [`Tutor::begin`], [`Tutor::rewrite`] (with the model for a
    /// follow-up), [`Tutor::retrieve`], then [`Tutor::generate`] when the model is to write the
    /// answer. Blocking: the model calls run on their own small Tokio runtime, so call it from a
    /// plain thread (`spawn_blocking` inside async code). `on_token` receives the model's answer
    /// as it streams (nothing is streamed for extractive, gated or cached answers). Errors:
    /// [`VidyaError::EmptyQuestion`], [`VidyaError::EmptyLibrary`],
    /// [`VidyaError::NoSuchBook`], [`VidyaError::NoSuchConversation`],
    /// [`VidyaError::BadOption`], database errors. Model problems are not errors: they produce
    /// the extractive answer with `llm_error` and `note` set.
    pub fn ask(
        &self,
        question: &str,
        opts: &TutorOptions,
        on_token: &mut (dyn FnMut(&str) + Send),
        cancel: Option<Arc<AtomicBool>>,
    ) -> Result<TutorAnswer> {
        let q = self.begin(question, opts)?;
        let query = self.rewrite(&q, opts.use_llm);
        match self.retrieve(q, query)? {
            Step::Answered(a) => Ok(*a),
            Step::NeedsModel(d) => self.generate(*d, on_token, cancel),
        }
    }

    /// Step 1: checks the question and loads its conversation. No model call and no
    /// retrieval. Errors: [`VidyaError::EmptyQuestion`], [`VidyaError::EmptyLibrary`],
    /// [`VidyaError::NoSuchConversation`], [`VidyaError::BadOption`] (an unknown language),
    /// database errors.
    pub fn begin(&self, question: &str, opts: &TutorOptions) -> Result<Question> {
        let t0 = Instant::now();
        // A question with no letter or digit (spaces, punctuation, emoji) is refused before it
        // is searched or stored as a conversation; inside a conversation ("??" after an
        // answer) it is a follow-up, made a query from the earlier turns, and only an empty
        // one is refused.
        if opts.conversation.is_none() {
            crate::engine::Engine::clean_question(question)?;
        } else if question.trim().is_empty() {
            return Err(VidyaError::EmptyQuestion);
        }
        // A pasted page is not a question: keep the first MAX_QUESTION_CHARS characters for
        // the prompt, the memory and the trace.
        let question = if question.chars().count() > crate::engine::MAX_QUESTION_CHARS {
            format!(
                "{} …",
                question
                    .chars()
                    .take(crate::engine::MAX_QUESTION_CHARS)
                    .collect::<String>()
            )
        } else {
            question.to_string()
        };
        if self.engine.index().is_empty() {
            return Err(VidyaError::EmptyLibrary);
        }
        let lib = self.engine.library();
        let lang = prompt::resolve_language(opts.language.as_deref(), &question)?;
        let history: Vec<HistoryTurn> = match opts.conversation {
            Some(id) => {
                if !lib.conversation_exists(id)? {
                    return Err(VidyaError::NoSuchConversation(id));
                }
                lib.turns(id)?
                    .into_iter()
                    .rev()
                    .take(3)
                    .rev()
                    .map(|t| HistoryTurn {
                        question: t.question,
                        query: t.query,
                        answer: short(&t.answer, 60),
                    })
                    .collect()
            }
            None => Vec::new(),
        };
        Ok(Question {
            t0,
            question,
            opts: opts.clone(),
            lang,
            history,
        })
    }

    /// True when [`Tutor::rewrite`] would ask the model (a follow-up that does not stand on
    /// its own, with the model on): then it belongs in the model's queue.
    pub fn rewrite_needs_model(&self, q: &Question) -> bool {
        q.opts.use_llm && followup::needs_rewrite(&q.question, q.history.len(), &self.tokenizer)
    }

    /// Step 2: the standalone query. A follow-up that does not stand on its own is rewritten
    /// by the model when `use_model` (and the rewrite passes [`followup::accept`]), otherwise
    /// by [`followup::fallback`]; any other question is its own query.
    pub fn rewrite(&self, q: &Question, use_model: bool) -> Query {
        let t = Instant::now();
        if !followup::needs_rewrite(&q.question, q.history.len(), &self.tokenizer) {
            return Query {
                text: q.question.trim().to_string(),
                source: QuerySource::Question,
                ms: ms(t),
            };
        }
        let rewritten = if use_model {
            let client = OllamaClient::new(self.llm.clone()).ok();
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .ok();
            match (client, runtime) {
                (Some(c), Some(rt)) => rt
                    .block_on(c.complete(&prompt::rewrite(&q.history, &q.question)))
                    .ok()
                    .map(|r| followup::clean(&r))
                    .filter(|r| followup::accept(r, &q.question, &q.history, &self.tokenizer)),
                _ => None,
            }
        } else {
            None
        };
        let (text, source) = match rewritten {
            Some(r) => (r, QuerySource::Model),
            None => (
                followup::fallback(&q.question, &q.history),
                QuerySource::Fallback,
            ),
        };
        Query {
            text,
            source,
            ms: ms(t),
        }
    }

    /// Step 3: the answer cache (first turns only: a follow-up's answer depends on its
    /// conversation), then retrieval, the relevance gate and the extractive answer. The turn
    /// is finished here (stored, traced) when no model is to write: a cached, gated or
    /// extractive-only answer, or a model that cannot be reached. No model call.
    /// Errors: [`VidyaError::NoSuchBook`], database and model-file errors.
    pub fn retrieve(&self, q: Question, query: Query) -> Result<Step> {
        let lib = self.engine.library();
        let opts = &q.opts;
        let cache_key = (opts.use_cache && q.history.is_empty())
            .then(|| self.cache_key(&q.question, opts, q.lang));
        if let Some(key) = &cache_key {
            if let Some(json) = lib.cache_get(key).unwrap_or_else(|e| {
                tracing::warn!(error = %e, "answer cache unavailable");
                None
            }) {
                if let Ok(mut cached) = serde_json::from_str::<TutorAnswer>(&json) {
                    cached.status = AnswerStatus::Cached;
                    cached.base.timings_ms.clear();
                    cached.base.timings_ms.insert("total".into(), ms(q.t0));
                    let trace = serde_json::json!({"cache": "hit"});
                    return Ok(Step::Answered(Box::new(self.finish(&q, cached, trace)?)));
                }
            }
        }
        let mut ask_opts = AskOptions {
            books: opts.books.clone(),
            max_citations: opts.max_sources,
            ..AskOptions::default()
        };
        if let Some(b) = opts.budget_tokens {
            ask_opts.pipeline.budget = Some(b);
        }
        if !opts.gate {
            ask_opts.pipeline.gate = None;
        }
        let extractive = self.engine.ask(&query.text, &ask_opts)?;
        let mut base: AskResponseData = extractive.into();
        let retrieval = base.retrieval.clone();
        base.timings_ms.remove("total");
        if query.source != QuerySource::Question {
            base.timings_ms.insert("rewrite".into(), query.ms);
        }
        let mut answer = TutorAnswer {
            base,
            mode: opts.mode,
            language: q.lang.to_string(),
            model: None,
            status: AnswerStatus::Extractive,
            llm_error: None,
            note: None,
            query: query.text,
            query_source: query.source,
            postcheck: PostCheck::default(),
            conversation_id: opts.conversation,
            turn_id: None,
            prompt_tokens: None,
        };
        let trace = serde_json::json!({ "retrieval": retrieval });
        if answer.base.gated {
            answer.status = AnswerStatus::Gated;
            answer.base.answer = if q.lang == "en" {
                crate::answer::extractive::NOT_FOUND.to_string()
            } else {
                prompt::refusal(q.lang).to_string()
            };
        } else if opts.use_llm {
            match OllamaClient::new(self.llm.clone()) {
                Ok(_) => {
                    // The passages are ready: with the quotes-first layout the student sees
                    // the textbook's answer from now on.
                    answer
                        .base
                        .timings_ms
                        .insert("quotes_ready".into(), ms(q.t0));
                    return Ok(Step::NeedsModel(Box::new(Draft {
                        q,
                        answer,
                        trace,
                        cache_key,
                    })));
                }
                Err(e) => self.fall_back(&mut answer, e),
            }
        }
        answer.base.timings_ms.insert("total".into(), ms(q.t0));
        Ok(Step::Answered(Box::new(self.finish(&q, answer, trace)?)))
    }
}

mod finish;
mod generate;
mod shown;

#[cfg(test)]
mod tests;
