//! The tutor turn: follow-up rewrite → cache → retrieval and relevance gate → prompt → streamed
//! model answer → deterministic post-checks → memory, cache and trace.
//!
//! Whenever no model can answer (Ollama down, model missing, timeout, broken stream with no
//! text, echoed prompt) the student still gets the extractive answer — the pruned passages
//! with citations — and one line saying why the tutor could not write an answer.

use super::followup;
use super::llm_client::{LlmConfig, LlmError, OllamaClient};
use super::postcheck::{self, Checked, PostCheck};
use super::prompt::{self, HistoryTurn, Mode, PromptSource};
use super::status::{AnswerStatus, QuerySource};
use crate::engine::{AskOptions, Engine};
use crate::error::{Result, VidyaError};
use crate::store::Turn;
use crate::text::{estimate_tokens, Tokenizer};
use sha2::{Digest, Sha256};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub use super::turn::{
    AskResponseData, Draft, Generation, LlmProblem, Query, Question, Step, TutorAnswer,
    TutorOptions, WHOLE_PAGES_TOKENS,
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
                    return Ok(Step::NeedsModel(Box::new(Draft {
                        q,
                        answer,
                        trace,
                        cache_key,
                    })))
                }
                Err(e) => self.fall_back(&mut answer, e),
            }
        }
        answer.base.timings_ms.insert("total".into(), ms(q.t0));
        Ok(Step::Answered(Box::new(self.finish(&q, answer, trace)?)))
    }

    /// Step 4: the model writes the answer from the draft's passages (streamed to
    /// `on_token`; `cancel` set to true stops it), the answer is checked
    /// ([`postcheck::check`], [`Tutor::ground`]), cached when fully answered, stored and
    /// traced. A model that fails or stops leaves the extractive answer with a note.
    /// Errors: database errors (whole pages, memory).
    pub fn generate(
        &self,
        d: Draft,
        on_token: &mut (dyn FnMut(&str) + Send),
        cancel: Option<Arc<AtomicBool>>,
    ) -> Result<TutorAnswer> {
        match self.generate_unless_preempted(d, on_token, cancel, None)? {
            Generation::Answered(a) => Ok(*a),
            Generation::Preempted(_) => unreachable!("nothing can pre-empt it without a flag"),
        }
    }

    /// [`Tutor::generate`] for a student's question in a class: `preempt` set to true (by the
    /// model's queue, when the teacher asks: [`crate::app::queue::Turn::preempted`]) stops
    /// the model within [`super::llm_client::CANCEL_POLL_MS`] and gives the draft back, to be
    /// generated again from the start when the question's turn comes again. The text streamed
    /// so far is thrown away; nothing is stored or cached. Errors: as [`Tutor::generate`].
    pub fn generate_unless_preempted(
        &self,
        d: Draft,
        on_token: &mut (dyn FnMut(&str) + Send),
        cancel: Option<Arc<AtomicBool>>,
        preempt: Option<Arc<AtomicBool>>,
    ) -> Result<Generation> {
        let preempted = || preempt.as_ref().is_some_and(|p| p.load(Ordering::SeqCst));
        if preempted() {
            let mut d = d;
            count_preemption(&mut d.trace);
            return Ok(Generation::Preempted(Box::new(d)));
        }
        let Draft {
            q,
            mut answer,
            mut trace,
            cache_key,
        } = d;
        let stop: Vec<Arc<AtomicBool>> = cancel.iter().chain(preempt.iter()).cloned().collect();
        let lang = q.lang;
        let client = OllamaClient::new(self.llm.clone());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        match (client, runtime) {
            (Err(e), _) => self.fall_back(&mut answer, e),
            (_, Err(e)) => self.fall_back(
                &mut answer,
                LlmError::Server {
                    message: format!("could not start the answer runtime: {e}"),
                },
            ),
            (Ok(client), Ok(runtime)) => {
                answer.model = Some(self.llm.model.clone());
                let mut sources: Vec<PromptSource> = answer
                    .base
                    .citations
                    .iter()
                    .map(|c| PromptSource {
                        n: c.n,
                        book: c.book.clone(),
                        chapter: c.chapter.clone(),
                        page_label: c.page_label.clone(),
                        text: c.text.clone(),
                    })
                    .collect();
                if q.opts.whole_pages {
                    self.whole_pages(&mut sources, &answer.base.citations)?;
                }
                let p = prompt::build_form(
                    q.opts.prompt_form,
                    q.opts.mode,
                    lang,
                    &answer.query,
                    &sources,
                );
                let prompt_tokens = estimate_tokens(&p.system) + estimate_tokens(&p.user);
                trace["prompt_tokens_estimate"] = prompt_tokens.into();
                answer.prompt_tokens = Some(prompt_tokens as u64);
                let t = Instant::now();
                let result = runtime.block_on(async {
                    client.check_model().await?;
                    client
                        .chat_stream(&p.system, &p.user, on_token, &stop)
                        .await
                });
                answer.base.timings_ms.insert("generate".into(), ms(t));
                let cancelled = cancel.as_ref().is_some_and(|c| c.load(Ordering::SeqCst));
                if matches!(result, Err(LlmError::Cancelled)) && preempted() && !cancelled {
                    count_preemption(&mut trace);
                    // The call that counts is the one that writes the answer kept.
                    answer.base.timings_ms.remove("generate");
                    return Ok(Generation::Preempted(Box::new(Draft {
                        q,
                        answer,
                        trace,
                        cache_key,
                    })));
                }
                match result {
                    Err(e) => self.fall_back(&mut answer, e),
                    Ok(g) => self.take_generation(
                        g,
                        &p.system,
                        sources.len(),
                        &q,
                        &mut answer,
                        &mut trace,
                    ),
                }
            }
        }
        answer.base.timings_ms.insert("total".into(), ms(q.t0));
        if answer.status == AnswerStatus::Answered {
            if let Some(key) = &cache_key {
                if let Ok(json) = serde_json::to_string(&answer) {
                    if let Err(e) = self.engine.library().cache_put(key, &json) {
                        tracing::warn!(error = %e, "could not store the answer in the cache");
                    }
                }
            }
        }
        Ok(Generation::Answered(Box::new(
            self.finish(&q, answer, trace)?,
        )))
    }

    /// The model's text checked and grounded into `answer`: its status, text and note.
    fn take_generation(
        &self,
        g: super::llm_client::Generated,
        system: &str,
        n_sources: usize,
        q: &Question,
        answer: &mut TutorAnswer,
        trace: &mut serde_json::Value,
    ) {
        let lang = q.lang;
        if g.prompt_tokens.is_some() {
            answer.prompt_tokens = g.prompt_tokens;
        }
        if let Some(ttft) = g.ttft_ms {
            answer
                .base
                .timings_ms
                .insert("ttft".into(), (ttft * 1e3).round() / 1e3);
        }
        trace["generated"] = serde_json::to_value(&g).unwrap_or_default();
        let (checked, report) = postcheck::check(&g.text, n_sources, system, lang);
        answer.postcheck = report;
        let stop_reason = || {
            g.stop_reason
                .clone()
                .unwrap_or_else(|| "unknown reason".into())
        };
        match self.ground(checked, answer, q.opts.mode, lang, trace) {
            Checked::UseExtractive => {
                answer.status = AnswerStatus::Extractive;
                let pc = &answer.postcheck;
                answer.note = Some(if !g.complete {
                    // The model stopped (stalled, the connection broke, a server error
                    // mid-answer): say so, not that the answer was wrong.
                    format!(
                        "The tutor stopped before it could answer ({}), so here are the textbook's own sentences; ask again for the tutor's answer.",
                        stop_reason()
                    )
                } else if pc.empty_replaced {
                    "The tutor's answer was empty, so here are the textbook's own sentences.".into()
                } else if pc.echo_replaced {
                    "The tutor's answer repeated its instructions, so here are the textbook's own sentences.".into()
                } else if pc.wrong_language {
                    format!("The tutor answered in another language than {}, so here are the textbook's own sentences.", prompt::language_name(lang))
                } else {
                    "Nothing in the tutor's answer could be found in your textbook, so here are the textbook's own sentences.".into()
                });
            }
            Checked::Refusal(text) => {
                answer.status = AnswerStatus::Refused;
                answer.base.answer = text;
            }
            Checked::Answer(text) => {
                answer.status = if g.complete {
                    AnswerStatus::Answered
                } else {
                    AnswerStatus::Incomplete
                };
                if !g.complete {
                    // Never leave the student with a few words only: the textbook's sentences
                    // follow what arrived.
                    answer.base.answer = format!("{text} …\n\n{}", answer.base.answer);
                    answer.note = Some(format!(
                        "The answer stopped before the end ({}). What arrived is shown, then the textbook's own sentences; ask again for a full answer.",
                        stop_reason()
                    ));
                } else {
                    answer.base.answer = text;
                }
                if g.complete && answer.postcheck.uncited {
                    answer.note = Some("Part of this answer could not be checked against your textbook: compare it with the pages listed.".into());
                }
            }
        }
    }

    /// Checks a model answer against its sources ([`super::grounding`]): supported sentences
    /// are cited, unsupported ones removed; an answer left with nothing supported becomes the
    /// extractive answer (or the refusal, when the model had also said the sources do not
    /// answer). A quiz without its answer key gets the sources as its key.
    fn ground(
        &self,
        checked: Checked,
        answer: &mut TutorAnswer,
        mode: Mode,
        lang: &str,
        trace: &mut serde_json::Value,
    ) -> Checked {
        let Checked::Answer(text) = checked else {
            return checked;
        };
        let embedder = self.engine.retriever().embedder();
        let g = match super::grounding::ground(
            &text,
            &answer.base.citations,
            embedder,
            &self.tokenizer,
        ) {
            Ok(g) => g,
            Err(e) => {
                // The embedder failed mid-answer: check words only.
                tracing::warn!(error = %e, "embedding the answer failed; checking its words only");
                match super::grounding::ground(&text, &answer.base.citations, None, &self.tokenizer)
                {
                    Ok(g) => g,
                    Err(_) => return Checked::UseExtractive,
                }
            }
        };
        trace["grounding"] = serde_json::to_value(&g).unwrap_or_default();
        let pc = &mut answer.postcheck;
        pc.removed_sentences = g.removed();
        pc.attached_citations = g.attached();
        pc.corrected_citations = g.corrected();
        pc.unchecked_sentences = g.unchecked();
        pc.uncited = g.unchecked() > 0;
        if g.supported() == 0 && g.unchecked() == 0 {
            if pc.refusal.is_some() {
                pc.refusal = Some("normalized".into());
                return Checked::Refusal(prompt::refusal(lang).to_string());
            }
            return Checked::UseExtractive;
        }
        let mut text = g.text();
        if mode == Mode::Quiz && !postcheck::quiz_has_key(&text, lang) {
            pc.quiz_key_added = true;
            let key = prompt::languages()
                .get(lang)
                .map(|l| l.answer_key.clone())
                .unwrap_or_else(|| "Answer key".into());
            text.push_str(&format!("\n\n{key}:"));
            for c in &answer.base.citations {
                text.push_str(&format!("\n[{}] {}", c.n, c.text));
            }
        }
        Checked::Answer(text)
    }

    /// Replaces each source's text by its whole page, while the pages fit
    /// [`WHOLE_PAGES_TOKENS`] (a source whose page does not fit keeps its quote).
    fn whole_pages(
        &self,
        sources: &mut [PromptSource],
        citations: &[crate::answer::Citation],
    ) -> Result<()> {
        let counter = self.engine.retriever().counter();
        let mut used = 0;
        for (s, c) in sources.iter_mut().zip(citations) {
            if let Some(text) = self.engine.library().page_text(c.book_id, c.page)? {
                let n = counter.count(&text);
                if used + n <= WHOLE_PAGES_TOKENS {
                    used += n;
                    s.text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                }
            }
        }
        Ok(())
    }

    fn fall_back(&self, answer: &mut TutorAnswer, e: LlmError) {
        answer.status = AnswerStatus::Extractive;
        answer.note = Some(format!(
            "The quotes above are your textbook's answer; the tutor could not write one of its own: {e}."
        ));
        answer.llm_error = Some(LlmProblem {
            kind: e.kind().into(),
            message: e.to_string(),
        });
    }

    /// Counts the question and stores the turn in its conversation (created when new).
    fn remember(
        &self,
        question: &str,
        opts: &TutorOptions,
        answer: &mut TutorAnswer,
    ) -> Result<()> {
        let lib = self.engine.library();
        lib.bump("questions", 1)?;
        let conversation_id = match opts.conversation {
            Some(id) => id,
            None => lib.create_conversation(question)?,
        };
        let turn = Turn {
            id: 0,
            conversation_id,
            question: question.to_string(),
            query: answer.query.clone(),
            answer: answer.base.answer.clone(),
            citations: serde_json::to_value(&answer.base.citations).unwrap_or_default(),
            mode: answer.mode.as_str().into(),
            language: answer.language.clone(),
            model: answer.model.clone(),
            status: answer.status.as_str().into(),
            timings: serde_json::to_value(&answer.base.timings_ms).unwrap_or_default(),
            context_tokens: answer.base.context_tokens as i64,
            page_tokens: answer.base.page_tokens as i64,
        };
        answer.turn_id = Some(lib.add_turn(&turn)?);
        answer.conversation_id = Some(conversation_id);
        Ok(())
    }

    /// Stores the turn (when asked), counts it and writes the trace.
    fn finish(
        &self,
        q: &Question,
        mut answer: TutorAnswer,
        mut trace: serde_json::Value,
    ) -> Result<TutorAnswer> {
        let (question, opts) = (q.question.as_str(), &q.opts);
        if opts.remember {
            // The answer is already made: if the library is busy (another Vidya is writing a
            // book) the student still gets it, only the memory of this turn is lost.
            if let Err(e) = self.remember(question, opts, &mut answer) {
                tracing::warn!(error = %e, "could not store the turn");
                trace["memory_error"] = e.to_string().into();
            }
        }
        let unix_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_millis() as u64)
            .unwrap_or(0);
        trace["time_unix_ms"] = unix_ms.into();
        trace["question"] = question.into();
        trace["query"] = answer.query.clone().into();
        trace["query_source"] = answer.query_source.as_str().into();
        trace["mode"] = answer.mode.as_str().into();
        trace["language"] = answer.language.clone().into();
        trace["model"] = serde_json::to_value(&answer.model).unwrap_or_default();
        trace["status"] = answer.status.as_str().into();
        trace["gated"] = answer.base.gated.into();
        trace["kept"] = serde_json::to_value(&answer.base.citations).unwrap_or_default();
        trace["context_tokens"] = answer.base.context_tokens.into();
        trace["timings_ms"] = serde_json::to_value(&answer.base.timings_ms).unwrap_or_default();
        trace["postcheck"] = serde_json::to_value(&answer.postcheck).unwrap_or_default();
        trace["llm_error"] = serde_json::to_value(&answer.llm_error).unwrap_or_default();
        trace["conversation_id"] = serde_json::to_value(answer.conversation_id).unwrap_or_default();
        trace["answer"] = answer.base.answer.clone().into();
        if let Err(e) = crate::trace::write(&trace) {
            tracing::warn!(error = %e, "could not write the trace log");
        }
        Ok(answer)
    }
}

/// Counts one more pre-emption of this turn in its trace (`preempted`, a count).
fn count_preemption(trace: &mut serde_json::Value) {
    let restarts = trace["preempted"].as_u64().unwrap_or(0) + 1;
    trace["preempted"] = restarts.into();
}

#[cfg(test)]
mod tests;
