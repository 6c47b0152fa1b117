//! `vidya stats`: the library's counts, cache hit rate and answer times (the Dashboard's
//! figures), as text or JSON.

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::Library;

pub(crate) fn run(library: &Path, json: bool) -> Result<ExitCode> {
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
