//! Answers: the extractive answer ([`extractive`]) that quotes the best textbook sentences with
//! citations, and the tutor ([`tutor`]) that asks a local model through Ollama ([`llm_client`]) with
//! prompts from template files ([`prompt`]), rewrites follow-ups ([`followup`]) and checks what
//! the model wrote ([`postcheck`]); [`turn`] holds what a turn takes and gives, [`status`]
//! types how an answer was made.

pub mod extractive;
pub mod followup;
pub mod from_quotes;
pub mod grounding;
pub mod llm_client;
pub mod postcheck;
pub mod prompt;
pub mod status;
pub mod stream_check;
pub mod turn;
pub mod tutor;
pub mod verify;

pub use extractive::{Citation, ExtractiveAnswer};
pub use status::{AnswerStatus, QuerySource};
pub use tutor::{Tutor, TutorAnswer, TutorOptions};
