//! Answers: the extractive answer ([`extractive`]) that quotes the best textbook sentences with
//! citations, and the tutor ([`tutor`]) that asks a local model through Ollama ([`ollama`]) with
//! prompts from template files ([`prompt`]), rewrites follow-ups ([`followup`]) and checks what
//! the model wrote ([`postcheck`]); [`status`] types how an answer was made.

pub mod extractive;
pub mod followup;
pub mod grounding;
pub mod ollama;
pub mod postcheck;
pub mod prompt;
pub mod status;
pub mod tutor;

pub use extractive::{Citation, ExtractiveAnswer};
pub use status::{AnswerStatus, QuerySource};
pub use tutor::{Tutor, TutorAnswer, TutorOptions};
