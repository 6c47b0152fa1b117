//! `vidya chat`: questions typed one after another in one conversation (follow-ups resolved
//! against the earlier turns), until an empty line or end of input.

use crate::ask_cmd::{ask_once, llm_config, tutor_options};
use crate::cli::ModelArgs;
use crate::output;
use anyhow::Result;
use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::answer::prompt::Mode;
use vidya_core::answer::Tutor;
use vidya_core::{Engine, Library, VidyaError};

pub(crate) fn run(
    library: &Path,
    model: &ModelArgs,
    conversation: Option<i64>,
) -> Result<ExitCode> {
    let tutor = Tutor::new(
        Engine::from_library(Library::open_existing(library)?)?,
        llm_config(model),
    );
    let mut opts = tutor_options(model, conversation, false)?;
    if let Some(id) = conversation {
        if !tutor.engine().library().conversation_exists(id)? {
            return Err(VidyaError::NoSuchConversation(id).into());
        }
    }
    out!("Ask a question about your textbooks. Commands: /new (new conversation), /mode answer|socratic|quiz, /lang auto|en|hi|mr|kn|te|ta, /quit.");
    let stdin = std::io::stdin();
    loop {
        output::text("\nYou: ")?;
        let mut bytes = Vec::new();
        if stdin.lock().read_until(b'\n', &mut bytes)? == 0 {
            out!("");
            break;
        }
        let Ok(line) = String::from_utf8(bytes) else {
            out!("(That line could not be read as text: please type the question again.)");
            continue;
        };
        let line = line.trim();
        match line
            .split_once(' ')
            .map(|(a, b)| (a, b.trim()))
            .unwrap_or((line, ""))
        {
            ("", _) => continue,
            ("/quit" | "/exit", _) => break,
            ("/new", _) => {
                opts.conversation = None;
                out!("(new conversation)");
                continue;
            }
            ("/mode", m) => {
                match Mode::parse(m) {
                    Some(mode) => {
                        opts.mode = mode;
                        out!("(mode: {})", mode.as_str());
                    }
                    None => {
                        out!("Unknown mode '{m}': use /mode answer, /mode socratic or /mode quiz.")
                    }
                }
                continue;
            }
            ("/lang", "") => {
                out!(
                    "(language: {}; change it with /lang auto|en|hi|mr|kn|te|ta)",
                    opts.language.as_deref().unwrap_or("auto")
                );
                continue;
            }
            ("/lang", l) => {
                match vidya_core::answer::prompt::resolve_language(Some(l), "") {
                    Ok(_) => {
                        opts.language = Some(l.to_ascii_lowercase());
                        out!("(language: {})", l.to_ascii_lowercase());
                    }
                    Err(e) => out!("Unknown language: {e}."),
                }
                continue;
            }
            ("/help", _) => {
                out!("Commands: /new, /mode answer|socratic|quiz, /lang auto|en|hi|mr|kn|te|ta, /quit.");
                continue;
            }
            (cmd, _) if cmd.starts_with('/') => {
                out!("Unknown command {cmd}: use /new, /mode, /lang, /help or /quit.");
                continue;
            }
            _ => {}
        }
        output::text("Vidya: ")?;
        let result = match ask_once(&tutor, line, &opts, false) {
            // The conversation was deleted meanwhile (by another window): start a new one.
            Err(e)
                if matches!(
                    e.downcast_ref::<VidyaError>(),
                    Some(VidyaError::NoSuchConversation(_))
                ) =>
            {
                out!("(that conversation was deleted; starting a new one)");
                opts.conversation = None;
                ask_once(&tutor, line, &opts, false)
            }
            other => other,
        };
        match result {
            Ok(a) => opts.conversation = a.conversation_id,
            Err(e) if output::is_broken_pipe(&e) => return Err(e),
            Err(e) => out!("{e}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}
