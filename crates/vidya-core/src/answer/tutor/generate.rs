//! Step 4 of a turn: the model writes the answer from the draft's passages, streamed, and a
//! model that cannot answer leaves the extractive answer with a note.

use super::{ms, Draft, Generation, LlmProblem, Machine, Tutor, TutorAnswer, WHOLE_PAGES_TOKENS};
use crate::answer::grounding::Grounder;
use crate::answer::llm_client::{LlmError, OllamaClient};
use crate::answer::prompt::{self, Mode, PromptSource};
use crate::answer::status::AnswerStatus;
use crate::answer::stream_check::StreamCheck;
use crate::error::Result;
use crate::text::estimate_tokens;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

impl Tutor {
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
        match self.generate_on(d, on_token, cancel, Machine::default())? {
            Generation::Answered(a) => Ok(*a),
            Generation::Preempted(_) | Generation::Moved(..) => {
                unreachable!("nothing can pre-empt or move it without a machine that allows it")
            }
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
        let machine = Machine {
            preempt,
            ..Machine::default()
        };
        self.generate_on(d, on_token, cancel, machine)
    }

    /// [`Tutor::generate_unless_preempted`] on one answer machine of the classroom's pool
    /// (`machine.host`, else the tutor's own Ollama address). When the machine fails (it is
    /// not running, times out, or its stream breaks off before the answer ends) and
    /// `machine.can_move`, the draft comes back as [`Generation::Moved`] for another machine:
    /// the text streamed so far is void, nothing is stored. Errors: as [`Tutor::generate`].
    pub fn generate_on(
        &self,
        d: Draft,
        on_token: &mut (dyn FnMut(&str) + Send),
        cancel: Option<Arc<AtomicBool>>,
        machine: Machine,
    ) -> Result<Generation> {
        let preempt = machine.preempt.clone();
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
        let mut llm = self.llm.clone();
        if let Some(h) = &machine.host {
            llm.host = h.clone();
        }
        let client = OllamaClient::new(llm);
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
                // The sentences are checked as they stream: only checked ones reach the
                // student (stream_check.rs).
                let embedder = self.engine.retriever().embedder();
                let citations = answer.base.citations.clone();
                let grounder = Grounder::new(&citations, embedder, &self.tokenizer)
                    .or_else(|e| {
                        tracing::warn!(error = %e, "embedding the sources failed; checking words only");
                        Grounder::new(&citations, None, &self.tokenizer)
                    })?;
                let source_words: usize = answer
                    .base
                    .citations
                    .iter()
                    .map(|c| c.text.split_whitespace().count())
                    .sum();
                let mut check = StreamCheck::new(&grounder, &p.system, &q.question, source_words)
                    .answering(q.opts.mode == Mode::Answer);
                let finish = check.finish();
                let t = Instant::now();
                let mut first_shown: Option<f64> = None;
                let result = {
                    let mut show = |piece: &str| {
                        first_shown.get_or_insert_with(|| ms(q.t0));
                        on_token(piece);
                    };
                    let mut forward = |piece: &str| check.push(piece, &mut show);
                    let r = runtime.block_on(async {
                        client.check_model().await?;
                        client
                            .chat_stream_until(&p.system, &p.user, &mut forward, &stop, &finish)
                            .await
                    });
                    if let Ok(g) = &r {
                        check.end(g.complete, &mut show);
                    }
                    r
                };
                answer.base.timings_ms.insert("generate".into(), ms(t));
                if let Some(first) = first_shown {
                    answer.base.timings_ms.insert("first_shown".into(), first);
                }
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
                // The machine failed: another takes the question, from its start.
                let failed_here = match &result {
                    Err(e) => matches!(
                        e,
                        LlmError::NotRunning { .. }
                            | LlmError::Timeout { .. }
                            | LlmError::Server { .. }
                    )
                    .then(|| e.to_string()),
                    Ok(g) if g.broken => g.stop_reason.clone(),
                    Ok(_) => None,
                };
                if let Some(why) = failed_here.filter(|_| machine.can_move && !cancelled) {
                    answer.base.timings_ms.remove("generate");
                    answer.base.timings_ms.remove("first_shown");
                    let moves = trace["moved"].as_u64().unwrap_or(0) + 1;
                    trace["moved"] = moves.into();
                    return Ok(Generation::Moved(
                        Box::new(Draft {
                            q,
                            answer,
                            trace,
                            cache_key,
                        }),
                        why,
                    ));
                }
                match result {
                    Err(e) => self.fall_back(&mut answer, e),
                    Ok(g) => {
                        self.take_generation(g, &p.system, &q, &mut answer, &mut trace, &check)
                    }
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

    /// Replaces each source's text by its whole page, while the pages fit
    /// [`WHOLE_PAGES_TOKENS`] (a source whose page does not fit keeps its quote).
    pub(super) fn whole_pages(
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

    pub(super) fn fall_back(&self, answer: &mut TutorAnswer, e: LlmError) {
        answer.status = AnswerStatus::Extractive;
        answer.note = Some(format!(
            "The quotes above are your textbook's answer; the tutor could not write one of its own: {e}."
        ));
        answer.llm_error = Some(LlmProblem {
            kind: e.kind().into(),
            message: e.to_string(),
        });
    }
}

/// Counts one more pre-emption of this turn in its trace (`preempted`, a count).
fn count_preemption(trace: &mut serde_json::Value) {
    let restarts = trace["preempted"].as_u64().unwrap_or(0) + 1;
    trace["preempted"] = restarts.into();
}
