//! `ollama-test-server`: runs the test server as a process (for browser end-to-end tests).

use clap::Parser;
use ollama_test_server::{Behaviour, Rule, TestServer};

#[derive(Parser)]
#[command(
    about = "A protocol-faithful Ollama API server for tests (no model: it streams a scripted reply)"
)]
struct Args {
    /// Port on 127.0.0.1 (0 = any free port; the chosen one is printed).
    #[arg(long, default_value_t = 11434)]
    port: u16,
    /// Installed model names (repeat).
    #[arg(long = "model", default_values_t = vec!["llama3.2:3b".to_string()])]
    models: Vec<String>,
    /// Start with no installed model (as a fresh Ollama); `--model` is then ignored.
    #[arg(long)]
    no_models: bool,
    /// A model `/api/pull` can fetch, as NAME=BYTES (repeat); other names fail as offline.
    #[arg(long = "pullable", value_name = "NAME=BYTES", value_parser = parse_pullable)]
    pullable: Vec<(String, u64)>,
    /// Delay between two `/api/pull` progress objects (ms).
    #[arg(long, default_value_t = 0)]
    pull_chunk_delay_ms: u64,
    /// The reply streamed for every chat request.
    #[arg(long, default_value = "This answer comes from the test server [1].")]
    reply: String,
    /// A reply rule `CONTAINS=>REPLY` (repeat): a chat request whose messages contain CONTAINS
    /// gets REPLY; the first matching rule wins, else --reply.
    #[arg(long = "rule", value_name = "CONTAINS=>REPLY", value_parser = parse_rule)]
    rules: Vec<Rule>,
    /// Delay before the first token (ms).
    #[arg(long, default_value_t = 0)]
    first_token_delay_ms: u64,
    /// Delay between tokens (ms).
    #[arg(long, default_value_t = 20)]
    token_delay_ms: u64,
    /// Write one answer at a time, as one CPU does (a chat request waits for the one
    /// before it to end).
    #[arg(long)]
    serial: bool,
}

/// Parses `NAME=BYTES`.
fn parse_rule(s: &str) -> Result<Rule, String> {
    let (when, reply) = s
        .split_once("=>")
        .ok_or_else(|| format!("expected CONTAINS=>REPLY, got {s:?}"))?;
    Ok(Rule {
        when_contains: when.to_string(),
        reply: reply.to_string(),
    })
}

fn parse_pullable(s: &str) -> Result<(String, u64), String> {
    let (name, bytes) = s
        .rsplit_once('=')
        .ok_or_else(|| format!("expected NAME=BYTES, got {s:?}"))?;
    if name.is_empty() {
        return Err(format!("expected NAME=BYTES, got {s:?}"));
    }
    let bytes = bytes
        .parse()
        .map_err(|e| format!("bad byte count in {s:?}: {e}"))?;
    Ok((name.to_string(), bytes))
}

fn main() {
    let a = Args::parse();
    let server = TestServer::start_on(
        Behaviour {
            models: if a.no_models { Vec::new() } else { a.models },
            pullable: a.pullable,
            pull_chunk_delay_ms: a.pull_chunk_delay_ms,
            default_reply: a.reply,
            rules: a.rules,
            first_token_delay_ms: a.first_token_delay_ms,
            token_delay_ms: a.token_delay_ms,
            serial: a.serial,
            ..Behaviour::default()
        },
        a.port,
    );
    println!("ollama-test-server listening on {}", server.url());
    loop {
        std::thread::park();
    }
}
