//! The teacher's Dashboard of the class: `GET /api/class-report` (what the class asked, by
//! book, chapter and page; what the books could not answer; each device's questions),
//! `GET /api/class-report.csv` (the same questions, one row each, for a spreadsheet) and
//! `GET /api/answer-machines` (each answer machine's state). The teacher's alone
//! ([`vidya_core::app::roles::ROUTES`]).

use crate::access::Access;
use crate::{blocking, ApiError};
use axum::extract::{Extension, Query, State};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::Arc;
use vidya_core::app::queue::MachineHealth;
use vidya_core::app::App;
use vidya_core::store::class_report::{ClassReport, ReportSince};

/// The query of both report routes: `?since=` `class` (the class running now, or the last
/// one), `all`, a local date or time (`2025-07-14`, `2025-07-14 10:05`) or Unix seconds.
#[derive(Debug, Default, serde::Deserialize)]
pub struct ReportQuery {
    /// From when (see [`ReportSince::parse`]); everything when absent.
    #[serde(default)]
    since: Option<String>,
}

/// `since` as the report reads it: `class` is the start of this server's class (running
/// now, or the last one) when there was one, else the latest class recorded in the library.
fn since_of(q: &ReportQuery, access: &Access) -> Result<ReportSince, ApiError> {
    let since = ReportSince::parse(q.since.as_deref().unwrap_or(""))?;
    Ok(match (since, access.class_started()) {
        (ReportSince::LastClass, Some(t)) => ReportSince::From(t),
        (s, _) => s,
    })
}

/// Marks a response as not to be kept by the browser (it names students).
fn private(mut res: Response) -> Response {
    res.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// `GET /api/class-report[?since=…]` → the [`ClassReport`].
pub async fn class_report(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    Query(q): Query<ReportQuery>,
) -> Result<Response, ApiError> {
    let since = since_of(&q, &access)?;
    let report: ClassReport = blocking(move || app.class_report(&since)).await?;
    Ok(private(Json(report).into_response()))
}

/// `GET /api/class-report.csv[?since=…]` → `text/csv` (UTF-8 with a byte-order mark), as a
/// download named `class-report.csv`.
pub async fn class_report_csv(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    Query(q): Query<ReportQuery>,
) -> Result<Response, ApiError> {
    let since = since_of(&q, &access)?;
    let csv = blocking(move || app.class_report_csv(&since)).await?;
    let res = (
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"class-report.csv\"",
            ),
        ],
        csv,
    )
        .into_response();
    Ok(private(res))
}

/// `GET /api/answer-machines` → each answer machine's state: `[{"host", "busy", "slots",
/// "up", "answered", "failures", "last_error"}]`.
pub async fn answer_machines(
    State(app): State<Arc<App>>,
) -> Result<Json<Vec<MachineHealth>>, ApiError> {
    Ok(Json(blocking(move || Ok(app.answer_machines())).await?))
}
