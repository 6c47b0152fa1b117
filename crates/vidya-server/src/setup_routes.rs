//! The first-run wizard's routes (`/api/setup/…`): the report, starting Ollama, importing or
//! pulling a model (event streams of progress), the sample question, and "done".

use super::{bad_request, blocking, event_stream, json_body, ApiError};
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Deserialize;
use std::path::PathBuf;
use std::sync::Arc;
use vidya_core::app::{App, LANGUAGE_CHOICES};
use vidya_core::setup::SetupEvent;

pub async fn setup_report(
    State(app): State<Arc<App>>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let r = blocking(move || Ok(app.setup_report())).await?;
    Ok(Json(serde_json::to_value(r).unwrap_or_default()))
}

pub async fn setup_start_ollama(State(app): State<Arc<App>>) -> Response {
    match tokio::task::spawn_blocking(move || app.start_ollama()).await {
        Ok(Ok(state)) => Json(state).into_response(),
        Ok(Err(e)) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(serde_json::json!({ "error": e })),
        )
            .into_response(),
        Err(e) => crate::task_stopped(e).into_response(),
    }
}

/// Body of `POST /api/setup/import`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ImportRequest {
    path: PathBuf,
    #[serde(default)]
    name: Option<String>,
}

/// `POST /api/setup/import`: a model file named by its path on this machine, so the laptop's
/// alone ([`crate::ingest_routes::laptop_paths_only`]).
pub async fn setup_import(
    State(app): State<Arc<App>>,
    Extension(peer): Extension<crate::access::Peer>,
    body: Bytes,
) -> Result<Response, ApiError> {
    if !peer.laptop {
        return Ok(crate::ingest_routes::laptop_paths_only());
    }
    let req: ImportRequest = json_body(
        &body,
        r#"{"path": "/media/usb/model.gguf", "name": "my-model"}"#,
    )?;
    Ok(event_stream(
        app,
        move |app, emit: &mut (dyn FnMut(SetupEvent) + Send)| {
            app.import_model(&req.path, req.name.as_deref(), emit);
        },
    ))
}

/// Body of `POST /api/setup/pull`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PullRequest {
    model: String,
}

pub async fn setup_pull(State(app): State<Arc<App>>, body: Bytes) -> Result<Response, ApiError> {
    let req: PullRequest = json_body(&body, r#"{"model": "llama3.2:1b"}"#)?;
    Ok(event_stream(
        app,
        move |app, emit: &mut (dyn FnMut(SetupEvent) + Send)| {
            app.pull_model(&req.model, emit);
        },
    ))
}

/// Body of `POST /api/setup/sample`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct SampleRequest {
    #[serde(default)]
    lang: Option<String>,
}

pub async fn setup_sample(State(app): State<Arc<App>>, body: Bytes) -> Result<Response, ApiError> {
    let req: SampleRequest = if body.is_empty() {
        SampleRequest::default()
    } else {
        json_body(&body, r#"{"lang": "hi"}"#)?
    };
    if let Some(l) = &req.lang {
        if !LANGUAGE_CHOICES.contains(&l.as_str()) {
            return Err(bad_request(format!(
                "unknown language '{l}': use auto, en, hi, mr, kn, te or ta"
            )));
        }
    }
    Ok(event_stream(
        app,
        move |app, emit: &mut (dyn FnMut(SetupEvent) + Send)| {
            app.sample_question(req.lang, emit);
        },
    ))
}

/// Body of `POST /api/setup/done`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DoneRequest {
    done: bool,
}

pub async fn setup_done(
    State(app): State<Arc<App>>,
    body: Bytes,
) -> Result<Json<serde_json::Value>, ApiError> {
    let req: DoneRequest = json_body(&body, r#"{"done": true}"#)?;
    blocking(move || app.set_setup_done(req.done)).await?;
    Ok(Json(serde_json::json!({ "setup_done": req.done })))
}
