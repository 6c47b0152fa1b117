//! The end of a turn: the conversation memory and the trace.

use super::{Question, Tutor, TutorAnswer, TutorOptions};
use crate::error::Result;
use crate::store::Turn;

impl Tutor {
    /// Counts the question and stores the turn in its conversation (created when new).
    pub(super) fn remember(
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
    pub(super) fn finish(
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
