//! The command line's definition (clap): the global options, every command and its flags.

use crate::{bench_cmd, eval_cmd, setup_cmd};
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use vidya_core::answer::llm_client;
use vidya_core::app::LANGUAGE_CHOICES;

#[derive(Parser)]
#[command(
    name = "vidya",
    version,
    about = "Vidya: an offline textbook tutor. Add textbooks, then ask questions answered from them with page citations."
)]
pub(crate) struct Cli {
    /// Library folder (default: the per-user data folder).
    #[arg(long, global = true, env = "VIDYA_LIBRARY", value_name = "PATH")]
    pub(crate) library: Option<PathBuf>,
    /// More log output on stderr (-v info, -vv debug, -vvv trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    pub(crate) verbose: u8,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// How to reach the answer model (shared by `ask` and `chat`).
#[derive(clap::Args, Clone)]
pub(crate) struct ModelArgs {
    /// answer (short and cited), socratic (guiding questions and hints) or quiz.
    #[arg(long, default_value = "answer", value_parser = ["answer", "socratic", "quiz"], ignore_case = true)]
    pub(crate) mode: String,
    /// Answer language: auto (the question's), en, hi, mr, kn, te or ta.
    #[arg(long, default_value = "auto", value_parser = LANGUAGE_CHOICES, ignore_case = true)]
    pub(crate) lang: String,
    /// Ollama model name.
    #[arg(long, env = "VIDYA_MODEL", default_value = llm_client::DEFAULT_MODEL, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    pub(crate) model: String,
    /// Ollama address (default: OLLAMA_HOST, else http://127.0.0.1:11434).
    #[arg(long)]
    pub(crate) host: Option<String>,
    /// Do not ask the model: quote the textbook only.
    #[arg(long)]
    pub(crate) no_llm: bool,
    /// Only search this book (repeat for several).
    #[arg(long = "book", value_name = "ID")]
    pub(crate) books: Vec<i64>,
    /// Sources given to the model and quoted (1-10).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=10))]
    pub(crate) top: u8,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Add textbooks: PDF, TXT, Markdown or DOCX files, or folders of chapter files (one book per folder).
    Ingest {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Book title (default: from the PDF metadata or the folder name); only with one book.
        #[arg(long)]
        title: Option<String>,
        /// Store the book for word search (BM25) only, without dense vectors (faster; add them
        /// later with `vidya reindex`).
        #[arg(long)]
        no_embed: bool,
        /// Do not read pages without a usable text layer (scans, unreadable fonts) by OCR:
        /// they stay without text.
        #[arg(long)]
        no_ocr: bool,
    },
    /// Compute the dense vectors that are missing (books added with --no-embed or before the
    /// models were installed) and rebuild the vector index.
    Reindex {
        /// Recompute every vector, not only the missing ones.
        #[arg(long)]
        force: bool,
    },
    /// List the books in the library.
    Books {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Remove a book (and everything stored for it) from the library.
    Remove {
        /// Book id, as listed by `vidya books`.
        id: i64,
    },
    /// Ask a question; the answer comes from the textbooks with [n] citations.
    Ask {
        /// The question (quotes are optional).
        #[arg(required = true, num_args = 1..)]
        question: Vec<String>,
        #[command(flatten)]
        model: ModelArgs,
        /// Continue this conversation (follow-up questions use it).
        #[arg(long, value_name = "ID")]
        conversation: Option<i64>,
        /// Do not reuse a stored answer for the same question.
        #[arg(long)]
        no_cache: bool,
        /// Print one JSON object (see the README for its fields).
        #[arg(long)]
        json: bool,
        /// Also print the retrieval pipeline: per-stage time, candidates, scores and tokens.
        #[arg(long)]
        trace: bool,
    },
    /// A conversation in the terminal: type questions, follow-ups use the earlier turns.
    Chat {
        #[command(flatten)]
        model: ModelArgs,
        /// Continue this conversation.
        #[arg(long, value_name = "ID")]
        conversation: Option<i64>,
    },
    /// List, show or delete conversations.
    Conversations {
        #[command(subcommand)]
        action: Option<ConversationAction>,
    },
    /// Show the latest per-question trace records (retrieval, prompt size, timings, checks).
    Trace {
        /// How many records (1-1000).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..=1000))]
        last: u16,
    },
    /// Usage figures: questions asked, answer times, cache hit rate.
    Stats {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Check the installation: library, database schema, native libraries, Ollama.
    Doctor {
        /// Print JSON.
        #[arg(long)]
        json: bool,
        /// Ollama address to check (default: OLLAMA_HOST, else http://127.0.0.1:11434).
        #[arg(long)]
        host: Option<String>,
        /// The answer model that must be installed.
        #[arg(long, env = "VIDYA_MODEL", default_value = llm_client::DEFAULT_MODEL)]
        model: String,
    },
    /// First-run setup, in six languages: checks Vidya's files, the library folder, Ollama and
    /// the answer model; can start Ollama, add a .gguf model file from a USB stick (no internet)
    /// or download a model; then asks a test question about the bundled sample chapter.
    Setup(setup_cmd::SetupArgs),
    /// Benchmarks: per-stage latency over a large synthetic library, ingest throughput.
    Bench {
        #[command(subcommand)]
        what: bench_cmd::BenchCmd,
    },
    /// Serve the library over a local HTTP API (JSON, server-sent events) for scripts and a
    /// browser: GET /health, POST /api/ask, POST /api/ingest, GET /api/books, GET /api/stats.
    Serve {
        /// Address to listen on (default 127.0.0.1: this machine only; with --classroom,
        /// 0.0.0.0: the local network). Another address needs --classroom.
        #[arg(long)]
        bind: Option<std::net::IpAddr>,
        /// Classroom mode: listen on the local network; students join with the code printed
        /// here and may only ask and see their own conversations; only this machine changes
        /// the library and the settings.
        #[arg(long)]
        classroom: bool,
        /// Port to listen on (0: any free port, printed at start).
        #[arg(long, default_value_t = 8765)]
        port: u16,
        /// Ollama model name (default: the Settings screen's, else llama3.2:3b).
        #[arg(long, env = "VIDYA_MODEL", value_parser = clap::builder::NonEmptyStringValueParser::new())]
        model: Option<String>,
        /// Ollama address (default: the Settings screen's, else OLLAMA_HOST, else
        /// http://127.0.0.1:11434). Give it again for each more machine that writes answers
        /// (classroom: the lab's laptops running Ollama; Settings → Classroom lists more).
        #[arg(long, value_name = "URL")]
        ollama: Vec<String>,
        /// Store uploaded books for word search only (no dense vectors; faster).
        #[arg(long)]
        no_embed: bool,
    },
    /// Measure retrieval on a QA set (page-level recall@k and MRR), or with --answers the
    /// tutor's answers (keyword match + cited page).
    Eval(Box<eval_cmd::EvalArgs>),
}

#[derive(Subcommand)]
pub(crate) enum ConversationAction {
    /// List conversations (the default).
    List,
    /// Show the turns of a conversation.
    Show {
        /// Conversation id.
        id: i64,
    },
    /// Delete a conversation.
    Delete {
        /// Conversation id.
        id: i64,
    },
}
