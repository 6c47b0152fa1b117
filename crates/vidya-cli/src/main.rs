//! `vidya`: the command line of the Vidya offline textbook tutor.
//!
//! Exit codes: 0 success; 1 a problem the message explains (bad file, empty question, missing
//! library); 2 wrong command-line usage; 130 stopped with Ctrl-C.

mod logging;
mod output;

use anyhow::Result;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use vidya_core::answer::ollama::{self, LlmConfig, OllamaClient};
use vidya_core::answer::prompt::Mode;
use vidya_core::answer::{Citation, Tutor, TutorAnswer, TutorOptions};
use vidya_core::ingest::{self, IngestOptions, Progress};
use vidya_core::{Engine, Library, VidyaError};

/// Prints a formatted line to stdout, returning the write error instead of panicking.
macro_rules! out {
    ($($t:tt)*) => { output::line(format!($($t)*))? };
}

mod bench_classroom;
mod bench_cmd;
mod eval_cmd;
mod index_cmd;
mod serve_cmd;
mod setup_cmd;

use vidya_core::app::LANGUAGE_CHOICES;

#[derive(Parser)]
#[command(
    name = "vidya",
    version,
    about = "Vidya: an offline textbook tutor. Add textbooks, then ask questions answered from them with page citations."
)]
struct Cli {
    /// Library folder (default: the per-user data folder).
    #[arg(long, global = true, env = "VIDYA_LIBRARY", value_name = "PATH")]
    library: Option<PathBuf>,
    /// More log output on stderr (-v info, -vv debug, -vvv trace).
    #[arg(short, long, global = true, action = clap::ArgAction::Count)]
    verbose: u8,
    #[command(subcommand)]
    command: Command,
}

/// How to reach the answer model (shared by `ask` and `chat`).
#[derive(clap::Args, Clone)]
pub(crate) struct ModelArgs {
    /// answer (short and cited), socratic (guiding questions and hints) or quiz.
    #[arg(long, default_value = "answer", value_parser = ["answer", "socratic", "quiz"], ignore_case = true)]
    mode: String,
    /// Answer language: auto (the question's), en, hi, mr, kn, te or ta.
    #[arg(long, default_value = "auto", value_parser = LANGUAGE_CHOICES, ignore_case = true)]
    lang: String,
    /// Ollama model name.
    #[arg(long, env = "VIDYA_MODEL", default_value = ollama::DEFAULT_MODEL, value_parser = clap::builder::NonEmptyStringValueParser::new())]
    model: String,
    /// Ollama address (default: OLLAMA_HOST, else http://127.0.0.1:11434).
    #[arg(long)]
    host: Option<String>,
    /// Do not ask the model: quote the textbook only.
    #[arg(long)]
    no_llm: bool,
    /// Only search this book (repeat for several).
    #[arg(long = "book", value_name = "ID")]
    books: Vec<i64>,
    /// Sources given to the model and quoted (1-10).
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(1..=10))]
    top: u8,
}

#[derive(Subcommand)]
enum Command {
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
        #[arg(long, env = "VIDYA_MODEL", default_value = ollama::DEFAULT_MODEL)]
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
        /// http://127.0.0.1:11434).
        #[arg(long)]
        ollama: Option<String>,
        /// Store uploaded books for word search only (no dense vectors; faster).
        #[arg(long)]
        no_embed: bool,
    },
    /// Measure retrieval on a QA set (page-level recall@k and MRR), or with --answers the
    /// tutor's answers (keyword match + cited page).
    Eval(Box<eval_cmd::EvalArgs>),
}

#[derive(Subcommand)]
enum ConversationAction {
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

fn main() -> ExitCode {
    let cli = Cli::parse();
    let _guard = logging::init(cli.verbose);
    let library = cli.library.clone().unwrap_or_else(Library::default_dir);
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

fn plural(n: impl Into<i64>, word: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

fn llm_config(m: &ModelArgs) -> LlmConfig {
    let mut c = LlmConfig {
        model: m.model.clone(),
        ..LlmConfig::default()
    };
    if let Some(h) = &m.host {
        c.host = h.clone();
    }
    c
}

fn tutor_options(
    m: &ModelArgs,
    conversation: Option<i64>,
    use_cache: bool,
) -> Result<TutorOptions> {
    let mode = Mode::parse(&m.mode).ok_or_else(|| {
        VidyaError::BadOption(format!(
            "unknown mode '{}': use answer, socratic or quiz",
            m.mode
        ))
    })?;
    Ok(TutorOptions {
        mode,
        language: Some(m.lang.clone()),
        books: (!m.books.is_empty()).then(|| m.books.clone()),
        conversation,
        use_llm: !m.no_llm,
        use_cache,
        remember: true,
        max_sources: m.top as usize,
        ..TutorOptions::default()
    })
}

fn run(command: Command, library: PathBuf) -> Result<ExitCode> {
    match command {
        Command::Ingest {
            paths,
            title,
            no_embed,
        } => ingest_cmd(&library, &paths, title, no_embed),
        Command::Reindex { force } => index_cmd::reindex_cmd(&library, force),
        Command::Bench { what } => bench_cmd::run(what),
        Command::Books { json } => books_cmd(&library, json),
        Command::Remove { id } => {
            let mut lib = Library::open_existing(&library)?;
            let book = lib.book(id)?;
            lib.delete_book(id)?;
            out!("Removed book {id}: {}", book.title);
            Ok(ExitCode::SUCCESS)
        }
        Command::Ask {
            question,
            model,
            conversation,
            no_cache,
            json,
            trace,
        } => {
            let question = question.join(" ");
            if question.trim().is_empty() {
                return Err(VidyaError::EmptyQuestion.into());
            }
            let tutor = Tutor::new(
                Engine::from_library(Library::open_existing(&library)?)?,
                llm_config(&model),
            );
            let opts = tutor_options(&model, conversation, !no_cache)?;
            let a = ask_once(&tutor, &question, &opts, json)?;
            if !json {
                print_retrieval(&a.base.retrieval, trace)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Chat {
            model,
            conversation,
        } => chat_cmd(&library, &model, conversation),
        Command::Conversations { action } => {
            conversations_cmd(&library, action.unwrap_or(ConversationAction::List))
        }
        Command::Trace { last } => {
            let dir = vidya_core::trace::trace_dir();
            let records = vidya_core::trace::last(last as usize).map_err(|e| {
                anyhow::anyhow!(
                    "cannot read the trace folder {}: {e}. Check that it is a folder you can read (set VIDYA_TRACE_DIR to use another)",
                    dir.display()
                )
            })?;
            if records.is_empty() {
                out!(
                    "No trace yet: traces are written when questions are asked ({}).",
                    vidya_core::trace::trace_dir().display()
                );
            }
            for r in records {
                out!("{}", serde_json::to_string_pretty(&r)?);
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Stats { json } => stats_cmd(&library, json),
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
                host: ollama,
                model,
            },
            !no_embed,
            classroom,
        ),
        Command::Doctor { json, host, model } => doctor_cmd(&library, json, host, model),
        Command::Setup(args) => setup_cmd::run(&library, args),
        Command::Eval(args) => eval_cmd::run(&library, &args),
    }
}

fn location(c: &Citation) -> String {
    let is_pdf = c.file.to_ascii_lowercase().ends_with(".pdf");
    format!(
        "{}, {} {}",
        c.file,
        if is_pdf { "PDF page" } else { "section" },
        c.pdf_page
    )
}

/// Answers one question, streaming the model's words when printing for a person.
fn ask_once(tutor: &Tutor, question: &str, opts: &TutorOptions, json: bool) -> Result<TutorAnswer> {
    if json {
        let a = tutor.ask(question, opts, &mut |_| {}, None)?;
        out!("{}", serde_json::to_string_pretty(&a)?);
        return Ok(a);
    }
    let mut streamed = String::new();
    let mut write_failed = false;
    let a = tutor.ask(
        question,
        opts,
        &mut |t| {
            // Model text never drives the terminal: escape sequences, carriage returns and
            // backspaces are dropped before printing (the post-checks drop them from the answer).
            let t: String = t
                .chars()
                .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
                .collect();
            if !write_failed && output::text(&t).is_err() {
                write_failed = true;
            }
            streamed.push_str(&t);
        },
        None,
    )?;
    if write_failed {
        return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe).into());
    }
    let model_text = matches!(a.status.as_str(), "answered" | "incomplete" | "refused");
    if streamed.is_empty() || !model_text {
        if !streamed.is_empty() {
            out!("\n");
        }
        out!("{}", a.base.answer);
    } else if streamed.trim() != a.base.answer.trim() {
        out!("\n\nChecked answer: {}", a.base.answer);
    } else {
        out!("");
    }
    if let Some(note) = &a.note {
        out!("\nNote: {note}");
    }
    if !a.base.citations.is_empty() && a.status != "refused" {
        out!("\nSources:");
        for c in &a.base.citations {
            let chapter = if c.chapter == c.book {
                String::new()
            } else {
                format!(" · {}", c.chapter)
            };
            out!(
                "  [{}] {}{} · printed page {} ({})",
                c.n,
                c.book,
                chapter,
                c.page_label,
                location(c)
            );
        }
    }
    if let Some(id) = a.conversation_id {
        out!("\n(conversation {id}: ask a follow-up with --conversation {id})");
    }
    Ok(a)
}

/// Prints the pipeline's notes (stages that are off) to stderr, and with `trace` its per-stage
/// figures to stdout.
fn print_retrieval(r: &serde_json::Value, trace: bool) -> Result<()> {
    for n in r["notes"].as_array().into_iter().flatten() {
        output::err_line(format!("note: {}", n.as_str().unwrap_or_default()));
    }
    if !trace || r.is_null() {
        return Ok(());
    }
    out!("\nRetrieval trace:");
    out!(
        "  {:<12} {:>9} {:>6} {:>6} {:>11}",
        "stage",
        "ms",
        "in",
        "out",
        "tokens"
    );
    for s in r["stages"].as_array().into_iter().flatten() {
        let tokens = match (s["tokens_in"].as_u64(), s["tokens_out"].as_u64()) {
            (Some(a), Some(b)) => format!("{a} → {b}"),
            _ => String::new(),
        };
        out!(
            "  {:<12} {:>9.1} {:>6} {:>6} {:>11}",
            s["stage"].as_str().unwrap_or_default(),
            s["ms"].as_f64().unwrap_or_default(),
            s["items_in"].as_u64().unwrap_or_default(),
            s["items_out"].as_u64().unwrap_or_default(),
            tokens
        );
    }
    let route = &r["route"];
    if route["considered"].as_u64().unwrap_or(0) > 0 {
        out!(
            "  router: {} of {} chapters searched; closest: {}",
            route["kept"],
            route["considered"],
            route["top"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|t| format!(
                    "{} ({:.3})",
                    t[0].as_str().unwrap_or_default(),
                    t[1].as_f64().unwrap_or_default()
                ))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    let q = &r["query"];
    if q["corrections"].as_array().is_some_and(|c| !c.is_empty()) {
        out!("  searched as: {}", q["text"].as_str().unwrap_or_default());
    }
    let g = &r["gate_input"];
    let num = |v: &serde_json::Value, d: usize| {
        v.as_f64()
            .map(|x| format!("{x:.d$}"))
            .unwrap_or_else(|| "-".into())
    };
    out!(
        "  gate: {} (signal {}, p {}; dense cosine {}, best sentence {}, BM25 coverage {}, unknown words {}, BM25/dense agreement {}, reranker {})",
        if r["gate"]["pass"].as_bool().unwrap_or(false) {
            "pass"
        } else {
            "stopped"
        },
        r["gate"]["signal"].as_str().unwrap_or_default(),
        num(&r["gate"]["probability"], 3),
        num(&g["dense"], 3),
        num(&g["sentence"], 3),
        num(&g["coverage"], 2),
        num(&g["unknown"], 2),
        num(&g["agreement"], 2),
        num(&g["rerank"], 2),
    );
    for (i, c) in r["ranked"].as_array().into_iter().flatten().enumerate() {
        let f = |k: &str, d: usize| {
            c[k].as_f64()
                .map(|x| format!("{x:.d$}"))
                .unwrap_or_else(|| "-".into())
        };
        out!(
            "  #{} chunk {} (book {}): bm25 {}, dense {}, fused {}, best sentence {}, rerank {}",
            i + 1,
            c["chunk_id"],
            c["book_id"],
            f("bm25", 2),
            f("dense", 3),
            f("fused", 4),
            f("sentence", 3),
            f("rerank", 2)
        );
    }
    Ok(())
}

fn chat_cmd(library: &Path, model: &ModelArgs, conversation: Option<i64>) -> Result<ExitCode> {
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

fn conversations_cmd(library: &Path, action: ConversationAction) -> Result<ExitCode> {
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

fn stats_cmd(library: &Path, json: bool) -> Result<ExitCode> {
    let s = Library::open_existing(library)?.stats()?;
    if json {
        out!("{}", serde_json::to_string_pretty(&s)?);
    } else {
        out!(
            "books: {} ({} pages, {} chunks)",
            s.books,
            s.pages,
            s.chunks
        );
        out!("questions asked: {}", s.questions);
        match s.median_answer_ms {
            Some(m) => out!("median time to answer: {:.0} ms", m),
            None => out!("median time to answer: no answers yet"),
        }
        out!(
            "answer cache: {} hits in {} lookups ({:.0}%)",
            s.cache_hits,
            s.cache_lookups,
            s.cache_hit_rate.unwrap_or(0.0) * 100.0
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn ingest_cmd(
    library: &Path,
    paths: &[PathBuf],
    title: Option<String>,
    no_embed: bool,
) -> Result<ExitCode> {
    let mut books = Vec::new();
    let mut failed = 0usize;
    for p in paths {
        match ingest::plan(p) {
            Ok(b) => books.extend(b),
            Err(e) => {
                output::err_line(format!("error: {e}"));
                failed += 1;
            }
        }
    }
    if title.is_some() && books.len() > 1 {
        return Err(VidyaError::BadOption(format!(
            "--title names one book, but {} books were given: add them one at a time to give each a title",
            books.len()
        ))
        .into());
    }
    if books.is_empty() {
        return Ok(ExitCode::FAILURE);
    }
    let mut lib = Library::open(library)?;
    let cancel = Arc::new(AtomicBool::new(false));
    {
        let c = cancel.clone();
        // A second Ctrl-C ends the process at once (the transaction keeps the library whole).
        let _ = ctrlc::set_handler(move || {
            if c.swap(true, Ordering::SeqCst) {
                std::process::exit(130);
            }
        });
    }
    let embedder = if no_embed {
        None
    } else {
        index_cmd::embedder_for_ingest()
    };
    let opts = IngestOptions {
        title,
        cancel: Some(cancel.clone()),
        embedder: embedder.clone(),
        replaces: None,
    };
    for src in &books {
        let bar = ProgressBar::new(100);
        bar.set_style(
            ProgressStyle::with_template("{msg:50!} [{bar:30}] {percent:>3}% ({eta})")
                .expect("valid template")
                .progress_chars("=> "),
        );
        let name = src
            .path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        bar.set_message(name.clone());
        let result = ingest::ingest_book(&mut lib, src, &opts, &mut |p| match p {
            Progress::Reading {
                file,
                file_index,
                files,
                page,
                pages,
                ..
            } => {
                let pages = pages.max(1);
                bar.set_position(((file_index * 100 + page * 100 / pages) / files.max(1)) as u64);
                bar.set_message(if files > 1 {
                    format!(
                        "{name}: {file} ({}/{files}), page {page}/{pages}",
                        file_index + 1
                    )
                } else {
                    format!("{name}: page {page}/{pages}")
                });
            }
            Progress::Indexing => bar.set_message(format!("{name}: chunking")),
            Progress::Embedding { done, total } => {
                bar.set_position((done * 100 / total.max(1)) as u64);
                bar.set_message(format!("{name}: embedding chunk {done}/{total}"));
            }
            Progress::Writing => bar.set_message(format!("{name}: saving")),
        });
        bar.finish_and_clear();
        // Summary lines are best effort: a closed stdout must not stop the ingest of the
        // remaining books.
        match result {
            Ok(r) if r.already_present => {
                let _ = output::line(format!(
                    "Already in the library: \"{}\" (book {}), nothing to do.",
                    r.title, r.book_id
                ));
            }
            Ok(r) => {
                let _ = output::line(format!(
                    "Added \"{}\" (book {}, {}): {}, {}, {} in {:.1} s",
                    r.title,
                    r.book_id,
                    r.language,
                    plural(r.pages as i64, "page"),
                    plural(r.chapters as i64, "chapter"),
                    plural(r.chunks as i64, "chunk"),
                    r.seconds
                ));
                for w in &r.warnings {
                    let _ = output::line(format!("  note: {w}"));
                }
            }
            Err(VidyaError::Cancelled) => {
                output::err_line(format!(
                    "stopped: {name} was not added; the library is unchanged."
                ));
                return Ok(ExitCode::from(130));
            }
            Err(e) => {
                output::err_line(format!("error: {e}"));
                failed += 1;
            }
        }
    }
    if let Some(e) = &embedder {
        index_cmd::sync_dense(&lib, e);
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn books_cmd(library: &Path, json: bool) -> Result<ExitCode> {
    let books = match Library::open_existing(library) {
        Ok(lib) => lib.books()?,
        Err(VidyaError::NoLibrary { .. }) => Vec::new(),
        Err(e) => return Err(e.into()),
    };
    if json {
        out!("{}", serde_json::to_string_pretty(&books)?);
    } else if books.is_empty() {
        out!(
            "No books yet in {}. Add one with: vidya ingest <pdf or folder>",
            library.display()
        );
    } else {
        for b in books {
            out!(
                "{:>3}  {}  [{}]  {}, {}, {}  (added {} UTC)",
                b.id,
                b.title,
                b.language,
                plural(b.page_count, "page"),
                plural(b.chapter_count, "chapter"),
                plural(b.chunk_count, "chunk"),
                b.added_at
            );
            for w in &b.warnings {
                out!("       note: {w}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// True when a file can be created (and removed) in `dir`.
fn tempfile_probe(dir: &Path) -> bool {
    let probe = dir.join(format!(".vidya-write-test-{}", std::process::id()));
    let ok = std::fs::write(&probe, b"ok").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// What to do about a missing or damaged native library (the wording of the bundled-file
/// check).
fn native_fix() -> &'static str {
    vidya_core::setup::resources::fix_for(
        vidya_core::paths::is_installed(),
        vidya_core::setup::resources::ResourceKind::Library,
    )
}

fn doctor_cmd(library: &Path, json: bool, host: Option<String>, model: String) -> Result<ExitCode> {
    let mut problems = Vec::new();
    let mut report = serde_json::Map::new();
    report.insert("library".into(), library.display().to_string().into());
    match Library::open_existing(library) {
        Ok(lib) => {
            let version = lib.schema_version()?;
            let (books, pages, chunks) = lib.counts()?;
            report.insert(
                "database".into(),
                lib.db_path().display().to_string().into(),
            );
            report.insert("schema_version".into(), version.into());
            report.insert("books".into(), books.into());
            report.insert("pages".into(), pages.into());
            report.insert("chunks".into(), chunks.into());
        }
        Err(VidyaError::NoLibrary { .. }) => {
            report.insert("database".into(), serde_json::Value::Null);
        }
        Err(e) => problems.push(format!("library: {e}")),
    }
    // Every bundled file, hashed once (cached): the native libraries below take their verdicts
    // from it, then get a load test; the models, tokenizers and fonts are reported after.
    let bundled = vidya_core::setup::resources::verify(&vidya_core::paths::data_dir());
    let mut natives = Vec::new();
    for entry in vidya_core::native::entries() {
        let found = bundled.files.iter().find(|f| {
            f.kind == vidya_core::setup::resources::ResourceKind::Library
                && f.name == entry.name
                && f.file == entry.file
        });
        let path = found
            .filter(|f| f.status != vidya_core::setup::ResourceStatus::Missing)
            .map(|f| f.path.clone());
        let verified = found.is_some_and(|f| f.status == vidya_core::setup::ResourceStatus::Ok);
        let tried: Vec<PathBuf> = vidya_core::native::search_dirs()
            .into_iter()
            .map(|d| d.join(&entry.file))
            .collect();
        let loads = if entry.name == "pdfium" && path.is_some() {
            vidya_core::ingest::pdf::pdfium()
                .err()
                .map(|e| e.to_string())
        } else {
            None
        };
        let status = match (&path, verified, &loads) {
            // Neural retrieval files are optional until the retrieval stages use them.
            (None, _, _) if entry.group != "core" && !vidya_core::paths::is_installed() => {
                "not installed (cargo xtask setup --models)"
            }
            (None, _, _) => {
                problems.push(format!(
                    "{} is missing (looked in {}). Fix: {}",
                    entry.file,
                    tried
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    native_fix()
                ));
                "missing"
            }
            (Some(_), _, Some(err)) => {
                problems.push(err.clone());
                "broken"
            }
            (Some(p), false, None) => {
                problems.push(format!(
                    "{} is not the pinned version (sha256 differs from resources/manifest.toml). Fix: {}",
                    p.display(),
                    native_fix()
                ));
                "unverified"
            }
            (Some(_), true, None) => "ok",
        };
        natives.push(serde_json::json!({
            "name": entry.name, "version": entry.version, "file": entry.file,
            "path": path.map(|p| p.display().to_string()), "status": status, "license": entry.license,
        }));
    }
    report.insert("native".into(), natives.clone().into());
    // Models, tokenizers and fonts (the native libraries are reported above).
    for f in &bundled.files {
        use vidya_core::setup::{resources::ResourceKind, ResourceStatus};
        let counts = f.kind != ResourceKind::Library
            && (f.status == ResourceStatus::Damaged
                || (f.status == ResourceStatus::Missing && bundled.installed));
        if counts {
            problems.extend(f.message.clone());
        }
    }
    let bundled_ok = bundled
        .files
        .iter()
        .filter(|f| f.status == vidya_core::setup::ResourceStatus::Ok)
        .count();
    let bundled_total = bundled.files.len();
    report.insert("resources".into(), serde_json::to_value(&bundled)?);
    // Ollama is optional: without it answers are extractive, so it is reported, not a problem.
    let mut cfg = LlmConfig {
        model: model.clone(),
        ..LlmConfig::default()
    };
    if let Some(h) = host {
        cfg.host = h;
    }
    let ollama_status = match OllamaClient::new(cfg.clone()) {
        Ok(client) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            match rt.block_on(client.list_models()) {
                Ok(models) => {
                    // Ollama runs but the answer model is missing: answers will fail until it
                    // is pulled, so this is a problem to fix.
                    let same = |m: &String| ollama::same_model(m, &model);
                    if !models.iter().any(same) {
                        problems.push(format!(
                            "the answer model {model} is not installed in Ollama (installed: {}). Fix: `ollama pull {model}`, or choose one with --model / VIDYA_MODEL",
                            if models.is_empty() { "none".to_string() } else { models.join(", ") }
                        ));
                    }
                    serde_json::json!({"host": client.config().host, "running": true, "models": models, "model": model})
                }
                Err(e) => {
                    serde_json::json!({"host": client.config().host, "running": false, "message": e.to_string()})
                }
            }
        }
        Err(e) => serde_json::json!({"host": cfg.host, "running": false, "message": e.to_string()}),
    };
    report.insert("ollama".into(), ollama_status.clone());
    for (what, dir) in [
        ("logs", vidya_core::paths::log_dir()),
        ("traces", vidya_core::trace::trace_dir()),
    ] {
        if !(std::fs::create_dir_all(&dir).is_ok() && tempfile_probe(&dir)) {
            problems.push(format!(
                "the {what} folder {} cannot be written. Fix: make it writable, or point XDG_DATA_HOME (VIDYA_TRACE_DIR for traces) at a writable folder",
                dir.display()
            ));
        }
    }
    report.insert(
        "logs".into(),
        vidya_core::paths::log_dir().display().to_string().into(),
    );
    report.insert(
        "traces".into(),
        vidya_core::trace::trace_dir().display().to_string().into(),
    );
    report.insert("problems".into(), problems.clone().into());
    if json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("Vidya {} doctor", env!("CARGO_PKG_VERSION"));
        out!("  library:  {}", library.display());
        match report.get("database").and_then(|d| d.as_str()) {
            Some(db) => {
                out!(
                    "  database: {} (schema v{}; this build writes v{})",
                    db,
                    report["schema_version"],
                    vidya_core::store::schema::SCHEMA_VERSION
                );
                out!(
                    "  books:    {} ({} pages, {} chunks)",
                    report["books"],
                    report["pages"],
                    report["chunks"]
                );
            }
            None if problems.iter().all(|p| !p.starts_with("library:")) => {
                out!("  database: none yet (the first `vidya ingest` creates it here)")
            }
            None => {}
        }
        for n in &natives {
            out!(
                "  {:<9} {} {}",
                format!("{}:", n["name"].as_str().unwrap_or_default()),
                n["status"].as_str().unwrap_or_default(),
                n["path"].as_str().unwrap_or("")
            );
        }
        if ollama_status["running"].as_bool() == Some(true) {
            let models: Vec<String> = ollama_status["models"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            out!(
                "  ollama:   running at {} ({})",
                ollama_status["host"].as_str().unwrap_or_default(),
                if models.is_empty() {
                    "no model installed yet".to_string()
                } else {
                    models.join(", ")
                }
            );
        } else {
            out!(
                "  ollama:   not reachable: answers will quote the textbook only. {}",
                ollama_status["message"].as_str().unwrap_or_default()
            );
        }
        out!(
            "  files:    {bundled_ok} of {bundled_total} bundled files present and intact{}",
            if bundled.installed {
                " (installed copy)"
            } else {
                ""
            }
        );
        out!("  logs:     {}", vidya_core::paths::log_dir().display());
        out!("  traces:   {}", vidya_core::trace::trace_dir().display());
        if problems.is_empty() {
            out!("All good.");
        } else {
            out!("Problems:");
            for p in &problems {
                out!("  - {p}");
            }
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn command_line_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
