//! `ollama-test-server`: runs the test server as a process (for browser end-to-end tests).

use clap::Parser;
use ollama_test_server::{Behaviour, TestServer};

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
    /// The reply streamed for every chat request.
    #[arg(long, default_value = "This answer comes from the test server [1].")]
    reply: String,
    /// Delay before the first token (ms).
    #[arg(long, default_value_t = 0)]
    first_token_delay_ms: u64,
    /// Delay between tokens (ms).
    #[arg(long, default_value_t = 20)]
    token_delay_ms: u64,
}

fn main() {
    let a = Args::parse();
    let server = TestServer::start_on(
        Behaviour {
            models: a.models,
            default_reply: a.reply,
            first_token_delay_ms: a.first_token_delay_ms,
            token_delay_ms: a.token_delay_ms,
            ..Behaviour::default()
        },
        a.port,
    );
    println!("ollama-test-server listening on {}", server.url());
    loop {
        std::thread::park();
    }
}
