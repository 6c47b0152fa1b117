//! `vidya ask`: one question answered from the library, with its citations and the
//! retrieval figures (`--trace` for every stage); the model settings `chat` and `eval` share.

use crate::cli::ModelArgs;
use crate::output;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::answer::llm_client::LlmConfig;
use vidya_core::answer::prompt::Mode;
use vidya_core::answer::status::AnswerStatus;
use vidya_core::answer::tutor::Step;
use vidya_core::answer::{Citation, Tutor, TutorAnswer, TutorOptions};
use vidya_core::retrieve::Models;
use vidya_core::retrieve::PipelineResult;
use vidya_core::{Engine, Library, VidyaError};

/// `vidya ask`: one question, the answer streamed (or as JSON), then the retrieval figures.
/// Errors: an empty question, no library, the model's errors the message explains.
pub(crate) fn run(
    library: &Path,
    question: &[String],
    model: &ModelArgs,
    conversation: Option<i64>,
    no_cache: bool,
    json: bool,
    trace: bool,
) -> Result<ExitCode> {
    let question = question.join(" ");
    if question.trim().is_empty() {
        return Err(VidyaError::EmptyQuestion.into());
    }
    let lib = Library::open_existing(library)?;
    let models = Models::load();
    // One question and the process ends: the operating system takes the models' memory back
    // at once, while freeing their tokenizers piece by piece took about 130 ms of a 1.3 s
    // `vidya ask` on a 2-core laptop. A leaked handle keeps them from being freed.
    std::mem::forget(models.clone());
    let tutor = Tutor::new(Engine::with_models(lib, &models)?, llm_config(model));
    let opts = tutor_options(model, conversation, !no_cache)?;
    let a = ask_once(&tutor, &question, &opts, json)?;
    if !json {
        print_retrieval(&a.base.retrieval, trace)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// How to reach the answer model, from the command line.
pub(crate) fn llm_config(m: &ModelArgs) -> LlmConfig {
    let mut c = LlmConfig {
        model: m.model.clone(),
        ..LlmConfig::default()
    };
    if let Some(h) = &m.host {
        c.host = h.clone();
    }
    c
}

/// The tutor's options from the command line. Errors: an unknown mode.
pub(crate) fn tutor_options(
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

fn location(c: &Citation) -> String {
    let is_pdf = c.file.to_ascii_lowercase().ends_with(".pdf");
    format!(
        "{}, {} {}",
        c.file,
        if is_pdf { "PDF page" } else { "section" },
        c.pdf_page
    )
}

/// Answers one question, streaming the model's words when printing for a person: with the
/// quotes-first layout the textbook's quotes are printed as soon as they are found, then the
/// tutor's sentences as each one passes the check.
pub(crate) fn ask_once(
    tutor: &Tutor,
    question: &str,
    opts: &TutorOptions,
    json: bool,
) -> Result<TutorAnswer> {
    if json {
        let a = tutor.ask(question, opts, &mut |_| {}, None)?;
        out!("{}", serde_json::to_string_pretty(&a)?);
        return Ok(a);
    }
    let mut printed = String::new();
    let mut write_failed = false;
    let mut print = |t: &str, printed: &mut String| {
        // Model text never drives the terminal: escape sequences, carriage returns and
        // backspaces are dropped before printing (the post-checks drop them from the answer).
        let t: String = t
            .chars()
            .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
            .collect();
        if !write_failed && output::text(&t).is_err() {
            write_failed = true;
        }
        printed.push_str(&t);
    };
    let q = tutor.begin(question, opts)?;
    let query = tutor.rewrite(&q, opts.use_llm);
    let mut quotes = String::new();
    let a = match tutor.retrieve(q, query)? {
        Step::Answered(a) => *a,
        Step::NeedsModel(d) => {
            // The quotes at once; the tutor's label with its first checked sentence.
            let mut label = String::new();
            if let Some(head) = d.quotes_head() {
                if let Some((q, _)) = head.rsplit_once("\n\n**") {
                    quotes = q.to_string();
                    label = head[q.len()..].to_string();
                }
                print(&quotes, &mut printed);
            }
            tutor.generate(
                *d,
                &mut |t| {
                    if !label.is_empty() {
                        print(&std::mem::take(&mut label), &mut printed);
                    }
                    print(t, &mut printed)
                },
                None,
            )?
        }
    };
    if write_failed {
        return Err(std::io::Error::from(std::io::ErrorKind::BrokenPipe).into());
    }
    let shown = a.base.answer.trim();
    if printed.is_empty() {
        out!("{shown}");
    } else if let Some(rest) = shown.strip_prefix(printed.trim()) {
        // The answer is what was printed (and perhaps a quiz key or terms after it).
        out!("{rest}");
    } else if let Some(rest) = shown
        .strip_prefix(quotes.trim())
        .filter(|_| !quotes.is_empty())
    {
        // The quotes stand alone (the note says why), perhaps with what was built from them.
        out!("\n{}", rest.trim_start());
    } else {
        out!("\n\nChecked answer: {shown}");
    }
    if let Some(note) = &a.note {
        out!("\nNote: {note}");
    }
    if !a.base.citations.is_empty() && a.status != AnswerStatus::Refused {
        out!("\nSources:");
        for c in &a.base.citations {
            // A one-file book is often named with its chapter ("Biology 2e - Chapter 4:
            // Cell Structure"): the chapter is not said twice.
            let chapter = if c.book.ends_with(c.chapter.as_str()) {
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
fn print_retrieval(r: &PipelineResult, trace: bool) -> Result<()> {
    for n in &r.notes {
        output::err_line(format!("note: {n}"));
    }
    // A cached answer from before retrieval was stored has no stages.
    if !trace || r.stages.is_empty() {
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
    for s in &r.stages {
        let tokens = match (s.tokens_in, s.tokens_out) {
            (Some(a), Some(b)) => format!("{a} → {b}"),
            _ => String::new(),
        };
        out!(
            "  {:<12} {:>9.1} {:>6} {:>6} {:>11}",
            s.stage,
            s.ms,
            s.items_in,
            s.items_out,
            tokens
        );
    }
    if r.route.considered > 0 {
        out!(
            "  router: {} of {} chapters searched; closest: {}",
            r.route.kept,
            r.route.considered,
            r.route
                .top
                .iter()
                .map(|(title, cosine)| format!("{title} ({cosine:.3})"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if !r.query.corrections.is_empty() {
        out!("  searched as: {}", r.query.text);
    }
    let num =
        |v: Option<f32>, d: usize| v.map(|x| format!("{x:.d$}")).unwrap_or_else(|| "-".into());
    let g = &r.gate_input;
    out!(
        "  gate: {} (signal {}, p {}; dense cosine {}, best sentence {}, BM25 coverage {}, unknown words {}, BM25/dense agreement {}, reranker {})",
        if r.gate.pass { "pass" } else { "stopped" },
        r.gate.signal,
        num(r.gate.probability, 3),
        num(g.dense, 3),
        num(g.sentence, 3),
        num(Some(g.coverage), 2),
        num(Some(g.unknown), 2),
        num(Some(g.agreement), 2),
        num(g.rerank, 2),
    );
    for (i, c) in r.ranked.iter().enumerate() {
        out!(
            "  #{} chunk {} (book {}): bm25 {}, dense {}, fused {}, best sentence {}, rerank {}",
            i + 1,
            c.chunk_id,
            c.book_id,
            num(c.bm25, 2),
            num(c.dense, 3),
            num(Some(c.fused), 4),
            num(c.sentence, 3),
            num(c.rerank, 2)
        );
    }
    Ok(())
}
