//! `vidya doctor`: what this machine has of what Vidya needs (native libraries, models,
//! the library, Ollama), each with the fix ([`vidya_core::setup::doctor`]).

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use vidya_core::setup::doctor::DoctorReport;

/// Prints the doctor's report (`--json`: as JSON); fails when it found a problem.
pub(crate) fn run(
    library: &Path,
    json: bool,
    host: Option<String>,
    model: String,
) -> Result<ExitCode> {
    let report = DoctorReport::check(library, host, &model);
    if json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", report.to_text());
    }
    Ok(if report.problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
