//! What the student sees of the model's answer. The model's text was checked sentence by
//! sentence as it streamed ([`crate::answer::stream_check`]); here the whole answer is
//! checked once more for what only the whole shows (an echoed prompt, a refusal, another
//! language, an empty answer), and the student gets:
//! - with [`Layout::QuotesFirst`] (the default) the textbook's quotes, then the tutor's
//!   checked sentences under a label; with [`Layout::ModelOnly`] the tutor's sentences alone;
//! - the quotes instead whenever the tutor's answer cannot stand: its first statement failed
//!   the check, nothing it wrote held up, it refused on a question the relevance gate passed,
//!   it echoed its instructions or wrote another language;
//! - a quiz or Socratic hints built from the quotes ([`crate::answer::from_quotes`]) when the
//!   model failed the mode (no question in a quiz, no guiding question in hints);
//! - under English quotes for a Hindi or Hinglish question, the glossary's Hindi terms for
//!   their key words.

use super::{Question, Tutor, TutorAnswer};
use crate::answer::from_quotes;
use crate::answer::llm_client::Generated;
use crate::answer::postcheck::{self, Checked};
use crate::answer::prompt::{self, Mode};
use crate::answer::status::AnswerStatus;
use crate::answer::stream_check::StreamCheck;
use crate::answer::turn::{quotes_head, Layout};
use crate::text::script::{script_of, Script};

/// True when the question is Hindi written in Latin letters ("photosynthesis kya hota hai").
fn is_hinglish(question: &str) -> bool {
    crate::retrieve::query::has_hinglish_marker(question)
}

impl Tutor {
    /// The model's streamed, checked answer into `answer`: its status, text and note.
    pub(super) fn take_generation(
        &self,
        g: Generated,
        system: &str,
        q: &Question,
        answer: &mut TutorAnswer,
        trace: &mut serde_json::Value,
        check: &StreamCheck,
    ) {
        let lang = q.lang;
        let n_sources = answer.base.citations.len();
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
        trace["grounding"] = serde_json::to_value(check.checked()).unwrap_or_default();
        let (checked, report) = postcheck::check(&g.text, n_sources, system, lang);
        answer.postcheck = report;
        answer.postcheck.stream_cut = check.cut().map(|c| c.as_str().to_string());
        let grounding = check.checked();
        let pc = &mut answer.postcheck;
        pc.removed_sentences = grounding.removed();
        pc.attached_citations = grounding.attached();
        pc.corrected_citations = grounding.corrected();
        pc.unchecked_sentences = grounding.unchecked();
        pc.uncited = grounding.unchecked() > 0;
        let stop_reason = g
            .stop_reason
            .clone()
            .unwrap_or_else(|| "unknown reason".into());
        // The model stopped (stalled, the connection broke, a server error mid-answer)
        // before a checked sentence: say so, not that the answer was wrong.
        let stopped = !g.complete && check.text().trim().is_empty();
        let stopped_note = format!("The tutor stopped before it could answer ({stop_reason}), so here are the textbook's own sentences; ask again for the tutor's answer.");
        let quotes_instead: Option<String> = match &checked {
            _ if stopped && !matches!(checked, Checked::Refusal(_)) => Some(stopped_note),
            Checked::UseExtractive => Some(if pc.empty_replaced {
                "The tutor's answer was empty, so here are the textbook's own sentences.".into()
            } else if pc.echo_replaced {
                "The tutor's answer repeated its instructions, so here are the textbook's own sentences.".into()
            } else if pc.wrong_language {
                format!("The tutor answered in another language than {}, so here are the textbook's own sentences.", prompt::language_name(lang))
            } else {
                "Nothing in the tutor's answer could be found in your textbook, so here are the textbook's own sentences.".into()
            }),
            // The relevance gate found these passages on the question: the student gets them,
            // never a bare "not found".
            Checked::Refusal(_) => Some(
                "The tutor did not find the answer in these passages; here is what your textbook says closest to your question.".into(),
            ),
            Checked::Answer(_) if check.lost_point() => Some(
                "The tutor's answer did not match your textbook, so here are the textbook's own sentences.".into(),
            ),
            Checked::Answer(_) if check.text().trim().is_empty() => Some(
                "Nothing in the tutor's answer could be checked against your textbook, so here are the textbook's own sentences.".into(),
            ),
            Checked::Answer(_) => None,
        };
        if matches!(checked, Checked::Refusal(_)) {
            answer.postcheck.refusal = Some("quotes".into());
        }
        if let Some(note) = quotes_instead {
            self.quotes_instead(answer, q, note);
            return;
        }
        let text = check.text().to_string();
        // A mode the model did not follow is built from the quotes.
        let mode_failed = match q.opts.mode {
            Mode::Quiz => !text.contains('?') && !text.contains("____"),
            Mode::Socratic => !text.contains('?'),
            Mode::Answer => false,
        };
        if mode_failed {
            self.quotes_instead(
                answer,
                q,
                format!(
                    "The tutor did not write a {}, so here is one made from your textbook's sentences.",
                    if q.opts.mode == Mode::Quiz { "quiz" } else { "guiding question" }
                ),
            );
            return;
        }
        let mut text = text;
        if q.opts.mode == Mode::Quiz && !postcheck::quiz_has_key(&text, lang) {
            if let Some(key) = from_quotes::quiz(&answer.base.citations, &q.question, lang)
                .and_then(|quiz| quiz.split_once("\n\n").map(|(_, k)| k.to_string()))
            {
                answer.postcheck.quiz_key_added = true;
                text.push_str("\n\n");
                text.push_str(&key);
            }
        }
        answer.status = if g.complete {
            AnswerStatus::Answered
        } else {
            AnswerStatus::Incomplete
        };
        let quotes = answer.base.answer.clone();
        answer.base.answer = match q.opts.layout {
            Layout::QuotesFirst => format!("{}{text}", quotes_head(&quotes, lang)),
            Layout::ModelOnly if !g.complete => format!("{text} …\n\n{quotes}"),
            Layout::ModelOnly => text,
        };
        self.add_terms(answer, q);
        if !g.complete {
            answer.note = Some(format!(
                "The answer stopped before the end ({stop_reason}). What arrived is shown with the textbook's own sentences; ask again for a full answer."
            ));
        } else if answer.postcheck.uncited {
            answer.note = Some("Part of this answer could not be checked against your textbook: compare it with the pages listed.".into());
        }
    }

    /// The quotes (the extractive answer already in `answer`) instead of the model's text,
    /// with `note`; in quiz and Socratic mode a quiz or hints built from them.
    pub(super) fn quotes_instead(&self, answer: &mut TutorAnswer, q: &Question, note: String) {
        answer.status = AnswerStatus::Extractive;
        answer.note = Some(note);
        let built = match q.opts.mode {
            Mode::Quiz => from_quotes::quiz(&answer.base.citations, &q.question, q.lang),
            Mode::Socratic => from_quotes::socratic(&answer.base.citations, &q.question, q.lang),
            Mode::Answer => None,
        };
        if let Some(b) = built {
            answer.base.answer = format!("{}\n\n{b}", answer.base.answer);
        }
        self.add_terms(answer, q);
    }

    /// Under English quotes for a Hindi or Hinglish question: the glossary's Hindi terms for
    /// their key words.
    fn add_terms(&self, answer: &mut TutorAnswer, q: &Question) {
        let devanagari = q
            .question
            .chars()
            .any(|c| script_of(c) == Script::Devanagari);
        if !(devanagari || is_hinglish(&q.question)) {
            return;
        }
        let english_quotes = answer.base.citations.iter().any(|c| {
            c.text
                .chars()
                .filter(|c| c.is_alphabetic())
                .all(|c| c.is_ascii())
        });
        if !english_quotes {
            return;
        }
        if let Some(line) = from_quotes::terms_line(&answer.base.citations, &q.question, q.lang) {
            answer.base.answer.push_str("\n\n");
            answer.base.answer.push_str(&line);
        }
    }
}
