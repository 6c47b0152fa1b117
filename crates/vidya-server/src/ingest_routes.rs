//! Adding books: `POST /api/ingest` (an uploaded file, or paths on this machine), its
//! cancellation, and `POST /api/books/{id}/reindex`; each an event stream of progress.

use crate::access::Peer;
use crate::{bad_request, blocking, event_stream, json_body, ApiError};
use axum::body::Bytes;
use axum::extract::{Extension, Path as UrlPath, Query, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
use axum::Json;
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::Arc;
use vidya_core::app::{App, IngestEvent};

/// Query of `POST /api/ingest` with a raw file body.
#[derive(Debug, Deserialize)]
/// Query of the raw upload form.
pub struct IngestQuery {
    name: Option<String>,
    title: Option<String>,
}

/// JSON body of `POST /api/ingest` for files on this machine.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngestPaths {
    paths: Vec<PathBuf>,
    #[serde(default)]
    title: Option<String>,
}

/// The refusal of a file named by its path on this machine to another device (the teacher
/// after the PIN): only the laptop itself may name its own files, or a student could read
/// any of them through the answers once it is a book.
pub(crate) fn laptop_paths_only() -> Response {
    crate::access::refuse(
        axum::http::StatusCode::FORBIDDEN,
        "forbidden",
        "only the laptop that runs Vidya can add a file by its path on the laptop: from this device, upload the file instead (drop it on the Library screen)",
    )
}

/// `POST /api/ingest` (see the crate docs). A path on this machine is the laptop's alone to
/// name ([`laptop_paths_only`]); another device uploads.
pub async fn ingest(
    State(app): State<Arc<App>>,
    Extension(peer): Extension<Peer>,
    Query(q): Query<IngestQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let is_json = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if is_json {
        if !peer.laptop {
            return Ok(laptop_paths_only());
        }
        let req: IngestPaths = json_body(&body, r#"{"paths": ["/path/to/book.pdf"]}"#)?;
        if req.paths.is_empty() {
            return Err(bad_request(
                "\"paths\" is empty: name at least one file or folder",
            ));
        }
        return Ok(event_stream(
            app,
            move |app, emit: &mut (dyn FnMut(IngestEvent) + Send)| {
                app.ingest(&req.paths, req.title, false, emit);
            },
        ));
    }
    let name = q.name.ok_or_else(|| {
        bad_request(
            "name the uploaded file: POST /api/ingest?name=book.pdf with the file as the body",
        )
    })?;
    let saver = app.clone();
    let path = blocking(move || saver.save_upload(&name, &body)).await?;
    Ok(event_stream(
        app,
        move |app, emit: &mut (dyn FnMut(IngestEvent) + Send)| {
            app.ingest(&[path], q.title, true, emit);
        },
    ))
}

/// `POST /api/ingest/cancel`.
pub async fn cancel(State(app): State<Arc<App>>) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "cancelled": app.cancel_ingest() }))
}

/// `POST /api/books/{id}/reindex`.
pub async fn reindex(State(app): State<Arc<App>>, UrlPath(id): UrlPath<i64>) -> Response {
    event_stream(
        app,
        move |app, emit: &mut (dyn FnMut(IngestEvent) + Send)| {
            app.reindex_book(id, emit);
        },
    )
}
