//! `vidya trace`: the last questions' trace records (every stage's inputs, outputs and times).

use anyhow::Result;
use std::process::ExitCode;

/// Prints the last `last` trace records, newest last. Errors: the trace folder cannot be read.
pub(crate) fn run(last: usize) -> Result<ExitCode> {
    let dir = vidya_core::trace::trace_dir();
    let records = vidya_core::trace::last(last).map_err(|e| {
        anyhow::anyhow!(
            "cannot read the trace folder {}: {e}. Check that it is a folder you can read (set VIDYA_TRACE_DIR to use another)",
            dir.display()
        )
    })?;
    if records.is_empty() {
        out!(
            "No trace yet: traces are written when questions are asked ({}).",
            dir.display()
        );
    }
    for r in records {
        out!("{}", serde_json::to_string_pretty(&r)?);
    }
    Ok(ExitCode::SUCCESS)
}
