//! `vidya conversations`: list, show or delete the conversations kept in the library.
//!
//! What students typed reaches the teacher's terminal here, so every stored text is printed
//! through [`terminal_safe`]: a control character (ESC could clear the screen or retitle the
//! window, CR overwrite the line) or a bidirectional override is shown as an escape such as
//! `\x1b` or `\u{202e}`, never sent to the terminal. (Questions are stored without them since
//! this version; older ones may hold them.)

use crate::cli::ConversationAction;
use crate::output::plural;
use anyhow::Result;
use std::borrow::Cow;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::store::conversations::is_unsafe_in_text;
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
                    terminal_safe(&c.title),
                    plural(c.turns, "turn"),
                    terminal_safe(&c.updated_at)
                );
            }
        }
        ConversationAction::Show { id } => {
            if !lib.conversation_exists(id)? {
                return Err(VidyaError::NoSuchConversation(id).into());
            }
            for t in lib.turns(id)? {
                out!("You: {}", terminal_safe(&t.question));
                if t.query != t.question {
                    out!("  (searched for: {})", terminal_safe(&t.query));
                }
                out!(
                    "Vidya ({}, {}): {}\n",
                    terminal_safe(&t.mode),
                    terminal_safe(&t.status),
                    terminal_safe(&t.answer)
                );
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

/// `text` as a terminal may show it: each control character other than newline and tab, and
/// each bidirectional embedding, override or isolate, written as a visible escape (`\x1b`,
/// `\u{202e}`) instead.
fn terminal_safe(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe_in_text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            c if !is_unsafe_in_text(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::terminal_safe;

    #[test]
    fn control_and_bidi_characters_are_shown_escaped() {
        assert_eq!(
            terminal_safe("a\u{1b}[2Jb\r\u{7}\u{0}\u{9b}c\u{202E}d\u{2066}\ne\tf"),
            "a\\x1b[2Jb\\x0d\\x07\\x00\\x9bc\\u{202e}d\\u{2066}\ne\tf"
        );
        assert_eq!(terminal_safe("क्ष and ؟"), "क्ष and ؟");
    }
}
