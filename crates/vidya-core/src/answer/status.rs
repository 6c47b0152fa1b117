//! How an answer was made ([`AnswerStatus`]) and where its retrieval query came from
//! ([`QuerySource`]): typed in Rust, with the snake_case names the JSON output, the HTTP API,
//! the conversation store and the interface use.

use serde::{Deserialize, Serialize};
use std::fmt;

/// How a [`super::tutor::TutorAnswer`] was made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerStatus {
    /// The model wrote it; its sentences were checked against the sources.
    Answered,
    /// The model stopped mid-answer; the text that arrived, checked.
    Incomplete,
    /// The model said the sources hold no answer.
    Refused,
    /// No model answered: the pruned passages, quoted with citations.
    Extractive,
    /// Nothing relevant was retrieved (the relevance gate); no model call.
    Gated,
    /// Served from the answer cache.
    Cached,
}

impl AnswerStatus {
    /// The JSON name (`answered`, `incomplete`, `refused`, `extractive`, `gated`, `cached`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Answered => "answered",
            Self::Incomplete => "incomplete",
            Self::Refused => "refused",
            Self::Extractive => "extractive",
            Self::Gated => "gated",
            Self::Cached => "cached",
        }
    }

    /// True when the text shown is the model's own (checked) writing, not quotes.
    pub fn is_model_text(self) -> bool {
        matches!(self, Self::Answered | Self::Incomplete)
    }
}

impl fmt::Display for AnswerStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where the query that retrieval ran came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum QuerySource {
    /// The question itself (it stands on its own).
    Question,
    /// A follow-up rewritten by the model (and accepted by `followup::accept`).
    Model,
    /// A follow-up joined with the earlier turn's words (`followup::fallback`).
    Fallback,
}

impl QuerySource {
    /// The JSON name (`question`, `model`, `fallback`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Question => "question",
            Self::Model => "model",
            Self::Fallback => "fallback",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_names_are_the_ones_the_api_always_used() {
        for s in [
            AnswerStatus::Answered,
            AnswerStatus::Incomplete,
            AnswerStatus::Refused,
            AnswerStatus::Extractive,
            AnswerStatus::Gated,
            AnswerStatus::Cached,
        ] {
            let json = serde_json::to_value(s).unwrap();
            assert_eq!(json, s.as_str());
            assert_eq!(serde_json::from_value::<AnswerStatus>(json).unwrap(), s);
        }
        for q in [
            QuerySource::Question,
            QuerySource::Model,
            QuerySource::Fallback,
        ] {
            assert_eq!(serde_json::to_value(q).unwrap(), q.as_str());
        }
        assert!(AnswerStatus::Incomplete.is_model_text());
        assert!(!AnswerStatus::Extractive.is_model_text());
    }
}
