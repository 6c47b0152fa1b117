//! `vidya conversations`: list, show or delete the conversations kept in the library.

use crate::cli::ConversationAction;
use crate::output::plural;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::{Library, VidyaError};

pub(crate) fn run(library: &Path, action: ConversationAction) -> Result<ExitCode> {
    let lib = Library::open_existing(library)?;
    match action {
        ConversationAction::List => {
            let list = lib.conversations()?;
            if list.is_empty() {
                out!("No conversations yet.");
            }
            for c in list {
                out!(
                    "{:>4}  {}  ({}, last {} UTC)",
                    c.id,
                    c.title,
                    plural(c.turns, "turn"),
                    c.updated_at
                );
            }
        }
        ConversationAction::Show { id } => {
            if !lib.conversation_exists(id)? {
                return Err(VidyaError::NoSuchConversation(id).into());
            }
            for t in lib.turns(id)? {
                out!("You: {}", t.question);
                if t.query != t.question {
                    out!("  (searched for: {})", t.query);
                }
                out!("Vidya ({}, {}): {}\n", t.mode, t.status, t.answer);
            }
        }
        ConversationAction::Delete { id } => {
            if !lib.delete_conversation(id)? {
                return Err(VidyaError::NoSuchConversation(id).into());
            }
            out!("Deleted conversation {id}.");
        }
    }
    Ok(ExitCode::SUCCESS)
}
