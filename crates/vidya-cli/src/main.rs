//! `vidya`: the command line of the Vidya offline textbook tutor.
//!
//! Exit codes: 0 success; 1 a problem the message explains (bad file, empty question, missing
//! library); 2 wrong command-line usage.

mod logging;

use anyhow::Result;
use clap::{Parser, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;
use vidya_core::ingest::{self, IngestOptions, Progress};
use vidya_core::{AskOptions, Engine, Library, VidyaError};

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

#[derive(Subcommand)]
enum Command {
    /// Add textbooks: PDF, TXT, Markdown or DOCX files, or folders of chapter files (one book per folder).
    Ingest {
        /// Files or folders.
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Book title (default: from the PDF metadata or the folder name).
        #[arg(long)]
        title: Option<String>,
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
    /// Ask a question; the answer quotes the textbook with [n] citations.
    Ask {
        /// The question.
        question: String,
        /// Only search this book (repeat for several).
        #[arg(long = "book", value_name = "ID")]
        books: Vec<i64>,
        /// Print one JSON object (see the README for its fields).
        #[arg(long)]
        json: bool,
        /// Passages to quote (1-10).
        #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..=10))]
        top: u8,
    },
    /// Check the installation: library, database schema, native libraries.
    Doctor {
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure retrieval on a QA set (page-level recall@k and MRR).
    Eval {
        /// QA JSONL file whose records have source.pdf_file and source.pdf_pages.
        #[arg(long)]
        qa: PathBuf,
        /// k of recall@k.
        #[arg(long, default_value_t = 5)]
        k: usize,
        /// Use the question alone, without the MCQ options.
        #[arg(long)]
        no_options: bool,
        /// Evaluate only the first N questions.
        #[arg(long)]
        limit: Option<usize>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
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
            | Command::Eval { json: true, .. }
    );
    match run(cli.command, library) {
        Ok(code) => code,
        Err(e) => {
            let (kind, message) = match e.downcast_ref::<VidyaError>() {
                Some(v) => (v.kind(), v.to_string()),
                None => ("error", format!("{e:#}")),
            };
            tracing::error!(kind, %message, "command failed");
            if json_errors {
                println!(
                    "{}",
                    serde_json::json!({"error": {"kind": kind, "message": message}})
                );
            }
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command, library: PathBuf) -> Result<ExitCode> {
    match command {
        Command::Ingest { paths, title } => ingest_cmd(&library, &paths, title),
        Command::Books { json } => books_cmd(&library, json),
        Command::Remove { id } => {
            let mut lib = Library::open(&library)?;
            let book = lib.book(id)?;
            lib.delete_book(id)?;
            println!("Removed book {id}: {}", book.title);
            Ok(ExitCode::SUCCESS)
        }
        Command::Ask {
            question,
            books,
            json,
            top,
        } => ask_cmd(&library, &question, books, json, top),
        Command::Doctor { json } => doctor_cmd(&library, json),
        Command::Eval {
            qa,
            k,
            no_options,
            limit,
            json,
        } => {
            let engine = Engine::open(&library)?;
            if engine.index().is_empty() {
                return Err(VidyaError::EmptyLibrary.into());
            }
            let r = vidya_core::eval::retrieval_recall(&engine, &qa, k, !no_options, limit)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&r)?);
            } else {
                println!(
                    "questions evaluated: {} (skipped {})",
                    r.evaluated, r.skipped
                );
                println!("page-level recall@{}: {:.3}", r.k, r.recall);
                println!("page-level MRR@{}:    {:.3}", r.k, r.mrr);
                for (t, v) in &r.recall_by_qtype {
                    println!("  recall@{} {t}: {v:.3}", r.k);
                }
                println!("median retrieval time: {:.1} ms", r.median_ms);
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn ingest_cmd(
    library: &std::path::Path,
    paths: &[PathBuf],
    title: Option<String>,
) -> Result<ExitCode> {
    let mut lib = Library::open(library)?;
    let mut failed = 0usize;
    let mut books = Vec::new();
    for p in paths {
        match ingest::plan(p) {
            Ok(b) => books.extend(b),
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
            }
        }
    }
    let opts = IngestOptions {
        title: if books.len() == 1 { title } else { None },
        cancel: None,
    };
    for src in &books {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{msg:40!} [{bar:30}] {pos}/{len} pages ({eta})")
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
            Progress::Reading { file, done, total } => {
                bar.set_length(total as u64);
                bar.set_position(done as u64);
                bar.set_message(format!("{name}: {file}"));
            }
            Progress::Indexing => bar.set_message(format!("{name}: chunking")),
            Progress::Writing => bar.set_message(format!("{name}: saving")),
        });
        bar.finish_and_clear();
        match result {
            Ok(r) if r.already_present => {
                println!(
                    "Already in the library: \"{}\" (book {}), nothing to do.",
                    r.title, r.book_id
                );
            }
            Ok(r) => {
                println!(
                    "Added \"{}\" (book {}, {}): {} pages, {} chapters, {} chunks in {:.1} s",
                    r.title, r.book_id, r.language, r.pages, r.chapters, r.chunks, r.seconds
                );
                for w in &r.warnings {
                    println!("  note: {w}");
                }
            }
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
            }
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn books_cmd(library: &std::path::Path, json: bool) -> Result<ExitCode> {
    let lib = Library::open(library)?;
    let books = lib.books()?;
    if json {
        println!("{}", serde_json::to_string_pretty(&books)?);
    } else if books.is_empty() {
        println!("No books yet. Add one with: vidya ingest <pdf or folder>");
    } else {
        for b in books {
            println!(
                "{:>3}  {}  [{}]  {} pages, {} chapters, {} chunks  (added {})",
                b.id, b.title, b.language, b.page_count, b.chapter_count, b.chunk_count, b.added_at
            );
            for w in &b.warnings {
                println!("       note: {w}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn ask_cmd(
    library: &std::path::Path,
    question: &str,
    books: Vec<i64>,
    json: bool,
    top: u8,
) -> Result<ExitCode> {
    if question.trim().is_empty() {
        return Err(VidyaError::EmptyQuestion.into());
    }
    let engine = Engine::open(library)?;
    let opts = AskOptions {
        books: (!books.is_empty()).then_some(books),
        max_citations: top as usize,
    };
    let r = engine.ask(question, &opts)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&r)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}", r.answer);
    if !r.citations.is_empty() {
        println!("\nSources:");
        for c in &r.citations {
            println!(
                "  [{}] {} · {} · printed page {} ({}, PDF page {})",
                c.n, c.book, c.chapter, c.page_label, c.file, c.pdf_page
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn doctor_cmd(library: &std::path::Path, json: bool) -> Result<ExitCode> {
    let mut problems = Vec::new();
    let mut report = serde_json::Map::new();
    report.insert("library".into(), library.display().to_string().into());
    match Library::open(library) {
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
        Err(e) => problems.push(format!("library: {e}")),
    }
    let mut natives = Vec::new();
    for entry in vidya_core::native::entries() {
        let located = vidya_core::native::locate(&entry.name);
        let (path, verified, tried) =
            located
                .map(|l| (l.path, l.verified, l.tried))
                .unwrap_or((None, false, vec![]));
        let loads = if entry.name == "pdfium" && path.is_some() {
            match vidya_core::ingest::pdf::pdfium() {
                Ok(_) => None,
                Err(e) => Some(e.to_string()),
            }
        } else {
            None
        };
        let status = match (&path, verified, &loads) {
            (None, _, _) => {
                problems.push(format!(
                    "{} is missing (looked in {}). Fix: run `cargo xtask setup` in the source folder, or reinstall Vidya",
                    entry.file,
                    tried.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
                ));
                "missing"
            }
            (Some(_), _, Some(err)) => {
                problems.push(err.clone());
                "broken"
            }
            (Some(p), false, None) => {
                problems.push(format!(
                    "{} is not the pinned version (sha256 differs from resources/manifest.toml). Fix: run `cargo xtask setup --force`, or reinstall Vidya",
                    p.display()
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
    report.insert(
        "logs".into(),
        vidya_core::paths::log_dir().display().to_string().into(),
    );
    report.insert("problems".into(), problems.clone().into());
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        println!("Vidya {} doctor", env!("CARGO_PKG_VERSION"));
        println!("  library:  {}", library.display());
        if let Some(db) = report.get("database") {
            println!(
                "  database: {} (schema v{}; this build writes v{})",
                db.as_str().unwrap_or_default(),
                report["schema_version"],
                vidya_core::store::schema::SCHEMA_VERSION
            );
            println!(
                "  books:    {} ({} pages, {} chunks)",
                report["books"], report["pages"], report["chunks"]
            );
        }
        for n in &natives {
            println!(
                "  {}: {} {}",
                n["name"].as_str().unwrap_or_default(),
                n["status"].as_str().unwrap_or_default(),
                n["path"].as_str().unwrap_or("")
            );
        }
        println!("  logs:     {}", vidya_core::paths::log_dir().display());
        if problems.is_empty() {
            println!("All good.");
        } else {
            println!("Problems:");
            for p in &problems {
                println!("  - {p}");
            }
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
