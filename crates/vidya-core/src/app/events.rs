//! Events the app streams while it works: answer tokens, ingest progress. The HTTP server
//! sends each as a server-sent event (`event:` the name, `data:` the JSON); the desktop window
//! receives the same `{"event", "data"}` objects over a Tauri channel.

use crate::answer::{Citation, TutorAnswer};
use crate::ingest::IngestReport;
use crate::VidyaError;
use serde::Serialize;

/// An error as the UI shows it.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ErrorBody {
    /// Stable name ([`VidyaError::kind`]).
    pub kind: String,
    /// The message, with what to do.
    pub message: String,
    /// The file it concerns (ingest errors).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl ErrorBody {
    /// `e` as it concerns `file` (an ingest error).
    pub fn for_file(e: &VidyaError, file: impl Into<String>) -> Self {
        Self {
            file: Some(file.into()),
            ..Self::from(e)
        }
    }
}

impl From<&VidyaError> for ErrorBody {
    fn from(e: &VidyaError) -> Self {
        Self {
            kind: e.kind().to_string(),
            message: e.to_string(),
            file: None,
        }
    }
}

/// One event of an answer.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum AskEvent {
    /// The question waits for the model: `ahead` questions are before it (the one being
    /// answered included). Sent when the number changes, before any token.
    Queued {
        /// Questions before this one.
        ahead: usize,
    },
    /// The passages the model will answer from (what the sources panel shows), sent once
    /// the question is retrieved, before it waits for the model. Not sent for cached, gated
    /// or extractive-only answers (their `answer` event comes at once).
    Sources {
        /// The citations, as in the answer's `citations`.
        citations: Vec<Citation>,
        /// With the quotes-first layout: the answer's beginning, shown in the answer at once
        /// (the textbook's quotes and the label the tutor's words follow); the `token` events
        /// continue it.
        #[serde(skip_serializing_if = "Option::is_none")]
        quotes: Option<String>,
    },
    /// The teacher's question pre-empted this (a student's) answer: the text streamed so far
    /// is void; `queued` events follow while it waits again (none when the model is free by
    /// then), then the answer's tokens from its start. Sent as `data: null`.
    Restart,
    /// Text the model just wrote.
    Token {
        /// The new text.
        text: String,
    },
    /// The finished answer (the object `vidya ask --json` prints); the last event.
    Answer(Box<TutorAnswer>),
    /// The question could not be answered; the last event.
    Error(ErrorBody),
}

/// Progress of one book being read.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IngestProgress {
    /// File name (the book's file or folder).
    pub file: String,
    /// `reading`, `chunking`, `embedding` or `saving`.
    pub stage: String,
    /// Pages read (reading) or chunks embedded (embedding) so far.
    pub done: usize,
    /// Pages or chunks in all (0 when the stage has no count).
    pub total: usize,
    /// Of the whole book, 0–99, never going back: reading 0–60, chunking 60, embedding 60–95,
    /// saving 95 (the `book` event is 100).
    pub percent: usize,
    /// Estimated seconds left, from the time so far and `percent` (`None` below 3 %).
    pub eta_s: Option<f64>,
}

/// One event of an ingest.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "event", content = "data", rename_all = "snake_case")]
pub enum IngestEvent {
    /// A book's progress.
    Progress(IngestProgress),
    /// A book was stored (or was already in the library).
    Book(IngestReport),
    /// A file or book could not be read; the library is unchanged by it.
    Error(ErrorBody),
    /// Something the teacher should know that is not an error.
    Note {
        /// The note.
        message: String,
    },
    /// The ingest is over; the last event.
    Done {},
}

/// Splits a serialised event into its name and data (for server-sent events).
pub fn name_and_data(event: &impl Serialize) -> (String, serde_json::Value) {
    let v = serde_json::to_value(event).unwrap_or_default();
    let name = v["event"].as_str().unwrap_or("message").to_string();
    let data = v.get("data").cloned().unwrap_or(serde_json::Value::Null);
    (name, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_as_name_and_data() {
        let e = IngestEvent::Progress(IngestProgress {
            file: "ch07.pdf".into(),
            stage: "reading".into(),
            done: 3,
            total: 10,
            percent: 18,
            eta_s: Some(4.5),
        });
        let (name, data) = name_and_data(&e);
        assert_eq!(name, "progress");
        assert_eq!(data["percent"], 18);
        let (name, data) = name_and_data(&IngestEvent::Done {});
        assert_eq!((name.as_str(), data), ("done", serde_json::json!({})));
        let (name, data) = name_and_data(&AskEvent::Token { text: "Hi".into() });
        assert_eq!(
            (name.as_str(), data["text"].as_str()),
            ("token", Some("Hi"))
        );
        let err = ErrorBody::from(&VidyaError::EmptyQuestion);
        let (name, data) = name_and_data(&AskEvent::Error(err));
        assert_eq!(
            (name.as_str(), data["kind"].as_str()),
            ("error", Some("empty_question"))
        );
        assert!(data.get("file").is_none());
    }
}
