//! The Dashboard's view of the class in the window: the class report (what the class asked,
//! what the books could not answer, each device's questions), saving it as CSV beside the
//! library, and the answer machines' state. The same as `vidya serve`'s
//! `GET /api/class-report`, `GET /api/class-report.csv` and `GET /api/answer-machines`.

use crate::{CmdResult, Vidya};
use tauri::State;
use vidya_core::app::queue::MachineHealth;
use vidya_core::app::ErrorBody;
use vidya_core::store::class_report::{ClassReport, ReportSince};

/// `since` as the report reads it (see `ReportSince::parse`): `class` is the start of the
/// class running now when classroom mode is on, else the latest class recorded.
async fn since_of(state: &State<'_, Vidya>, since: Option<String>) -> CmdResult<ReportSince> {
    let since =
        ReportSince::parse(since.as_deref().unwrap_or("")).map_err(|e| ErrorBody::from(&e))?;
    Ok(match (since, state.classroom.class_started().await) {
        (ReportSince::LastClass, Some(t)) => ReportSince::From(t),
        (s, _) => s,
    })
}

/// The class report from `since` (`class`, `all`, a local date or time, Unix seconds).
#[tauri::command]
pub async fn class_report(
    state: State<'_, Vidya>,
    since: Option<String>,
) -> CmdResult<ClassReport> {
    let since = since_of(&state, since).await?;
    crate::blocking(&state, move |a| a.class_report(&since)).await
}

/// Saves the class's questions from `since` as CSV in the library's `reports` folder; returns
/// the file's path (the Dashboard shows it).
#[tauri::command]
pub async fn class_report_csv(state: State<'_, Vidya>, since: Option<String>) -> CmdResult<String> {
    let since = since_of(&state, since).await?;
    let path = crate::blocking(&state, move |a| a.save_class_report_csv(&since)).await?;
    Ok(path.to_string_lossy().to_string())
}

/// Each answer machine's state (address, up, answering now, slots, answered, failures, the
/// last error).
#[tauri::command]
pub async fn answer_machines(state: State<'_, Vidya>) -> CmdResult<Vec<MachineHealth>> {
    crate::blocking(&state, |a| Ok(a.answer_machines())).await
}
