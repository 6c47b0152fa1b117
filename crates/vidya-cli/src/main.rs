//! `vidya`: the command line of the Vidya offline textbook tutor.
//!
//! Exit codes: 0 success; 1 a problem the message explains (bad file, empty question, missing
//! library); 2 wrong command-line usage; 130 stopped with Ctrl-C.
//!
//! `main` parses the command line ([`cli`]) and `run` hands each command to its own module
//! (`*_cmd.rs`); output goes through [`output`] (its `out!` macro never panics on a closed
//! pipe).

#[macro_use]
mod output;

mod ask_cmd;
mod bench_classroom;
mod bench_cmd;
mod books_cmd;
mod chat_cmd;
mod cli;
mod conversations_cmd;
mod doctor_cmd;
mod eval_cmd;
mod index_cmd;
mod ingest_cmd;
mod logging;
mod serve_cmd;
mod setup_cmd;
mod stats_cmd;
mod trace_cmd;

use anyhow::Result;
use clap::Parser;
use cli::{Cli, Command, ConversationAction};
use std::path::PathBuf;
use std::process::ExitCode;
use vidya_core::{Library, VidyaError};

/// mimalloc on Windows (see the `mimalloc` entry of Cargo.toml: Wine 8's heap stalls the model
/// load; the Windows build is tested under Wine).
#[cfg(windows)]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    vidya_core::onnx::opt_out_of_runtime_telemetry();
    let cli = Cli::parse();
    let library = cli.library.clone().unwrap_or_else(Library::default_dir);
    vidya_core::paths::keep_logs_with_library(&library);
    let _guard = logging::init(cli.verbose);
    let json_errors = matches!(
        cli.command,
        Command::Ask { json: true, .. }
            | Command::Books { json: true }
            | Command::Stats { json: true }
    ) || matches!(&cli.command, Command::Eval(a) if a.json);
    match run(cli.command, library) {
        Ok(code) => code,
        Err(e) if output::is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            let (kind, message) = match e.downcast_ref::<VidyaError>() {
                Some(v) => (v.kind(), v.to_string()),
                None => ("error", format!("{e:#}")),
            };
            tracing::info!(kind, %message, "command failed");
            if json_errors {
                let _ =
                    output::line(serde_json::json!({"error": {"kind": kind, "message": message}}));
            }
            output::err_line(format!("error: {message}"));
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command, library: PathBuf) -> Result<ExitCode> {
    match command {
        Command::Ingest {
            paths,
            title,
            no_embed,
            no_ocr,
        } => ingest_cmd::run(&library, &paths, title, no_embed, no_ocr),
        Command::Reindex { force } => index_cmd::reindex_cmd(&library, force),
        Command::Bench { what } => bench_cmd::run(what),
        Command::Books { json } => books_cmd::run(&library, json),
        Command::Remove { id } => books_cmd::remove(&library, id),
        Command::Ask {
            question,
            model,
            conversation,
            no_cache,
            json,
            trace,
        } => ask_cmd::run(
            &library,
            &question,
            &model,
            conversation,
            no_cache,
            json,
            trace,
        ),
        Command::Chat {
            model,
            conversation,
        } => chat_cmd::run(&library, &model, conversation),
        Command::Conversations { action } => {
            conversations_cmd::run(&library, action.unwrap_or(ConversationAction::List))
        }
        Command::Trace { last } => trace_cmd::run(last as usize),
        Command::Stats { json } => stats_cmd::run(&library, json),
        Command::Serve {
            bind,
            classroom,
            port,
            model,
            ollama,
            no_embed,
        } => serve_cmd::run(
            &library,
            std::net::SocketAddr::new(
                bind.unwrap_or(if classroom {
                    std::net::Ipv4Addr::UNSPECIFIED.into()
                } else {
                    std::net::Ipv4Addr::LOCALHOST.into()
                }),
                port,
            ),
            vidya_core::app::LlmOverrides {
                host: ollama.first().cloned(),
                model,
                extra_hosts: ollama.iter().skip(1).cloned().collect(),
            },
            !no_embed,
            classroom,
        ),
        Command::Doctor { json, host, model } => doctor_cmd::run(&library, json, host, model),
        Command::Setup(args) => setup_cmd::run(&library, args),
        Command::Eval(args) => eval_cmd::run(&library, &args),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn command_line_definition_is_consistent() {
        use clap::CommandFactory;
        crate::cli::Cli::command().debug_assert();
    }
}
