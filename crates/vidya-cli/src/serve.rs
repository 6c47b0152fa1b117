//! `vidya serve`: the engine over a local HTTP API (axum), for scripts, benchmarks and a
//! browser.
//!
//! Routes (JSON in and out; errors are `{"error": {"kind", "message"}}` with a 4xx/5xx status):
//! - `GET /health` → `{"status": "ok", "version", "library", "books"}`.
//! - `POST /api/ask`, body `{"question": str, "mode"?: "answer"|"socratic"|"quiz", "lang"?:
//!   "auto"|"en"|"hi"|"mr"|"kn"|"te"|"ta", "books"?: [id], "conversation"?: id, "no_llm"?: bool,
//!   "no_cache"?: bool, "stream"?: bool}`. With `"stream": false` the response is the object
//!   `vidya ask --json` prints. Otherwise (the default) it is a server-sent event stream:
//!   `token` events (`{"text"}`) as the model writes, then one `answer` event (the same object)
//!   or one `error` event.
//! - `POST /api/ingest?name=FILE.pdf` with the file's bytes as the body (what a browser sends
//!   for a dropped file), or with `Content-Type: application/json` and `{"paths": [str]}` for
//!   files already on this machine: a server-sent event stream of `progress` events
//!   (`{"file", "stage", "done", "total", "percent"}`, `percent` of the whole book, never
//!   going back), then per book a `book` event (the ingest report) or an `error` event, then
//!   `done`. An upload with the name of an earlier, different upload is kept as "name (2).pdf";
//!   an upload that cannot be read is not kept.
//! - `GET /api/books` → what `vidya books --json` prints; `GET /api/stats` → `vidya stats --json`.
//!
//! Inside an event stream the HTTP status is 200 and problems arrive as `error` events; any
//! other route answers 404 with `{"error": {"kind": "not_found", …}}`.
//!
//! The server binds to 127.0.0.1 by default: only this machine can reach it. Uploaded files are
//! kept in `<library>/uploads/` (the library cites them by file name). One question is answered
//! at a time (the tutor holds one SQLite connection); ingests run one at a time beside it.

use anyhow::Result;
use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;
use vidya_core::answer::ollama::LlmConfig;
use vidya_core::answer::prompt::Mode;
use vidya_core::answer::{Tutor, TutorOptions};
use vidya_core::ingest::{self, IngestOptions, Progress};
use vidya_core::{Engine, Library, VidyaError};

/// Largest accepted upload (bytes): the PDF size limit of ingestion.
pub const MAX_UPLOAD_BYTES: usize = ingest::pdf::MAX_PDF_BYTES as usize;

struct AppState {
    library: PathBuf,
    llm: LlmConfig,
    embed: bool,
    /// Built on the first question, dropped after an ingest (its indexes are in memory).
    tutor: Mutex<Option<Tutor>>,
    ingest: tokio::sync::Mutex<()>,
}

/// Serves `library` at `bind` until Ctrl-C. Errors: the address is taken or not local-capable,
/// the library folder cannot be created.
pub fn run(library: &Path, bind: SocketAddr, llm: LlmConfig, embed: bool) -> Result<ExitCode> {
    Library::open(library)?; // create it (and fail early on a bad folder)
    let state = Arc::new(AppState {
        library: library.to_path_buf(),
        llm,
        embed,
        tutor: Mutex::new(None),
        ingest: tokio::sync::Mutex::new(()),
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(bind).await.map_err(|e| {
            anyhow::anyhow!(
                "cannot listen on {bind}: {e}. Another program may use this port: choose another with --port"
            )
        })?;
        let addr = listener.local_addr()?;
        crate::output::err_line(format!(
            "Vidya is serving {} at http://{addr} (Ctrl-C stops it)",
            library.display()
        ));
        axum::serve(listener, router(state))
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/health", get(health))
        .route("/api/ask", post(ask))
        .route("/api/ingest", post(ingest_route))
        .route("/api/books", get(books))
        .route("/api/stats", get(stats))
        .fallback(|| async {
            (
                StatusCode::NOT_FOUND,
                Json(serde_json::json!({"error": {"kind": "not_found", "message": "no such route: the routes are GET /health, POST /api/ask, POST /api/ingest, GET /api/books and GET /api/stats"}})),
            )
        })
        .layer(axum::extract::DefaultBodyLimit::max(MAX_UPLOAD_BYTES))
        .with_state(state)
}

/// A [`VidyaError`] as an HTTP response.
struct ApiError(VidyaError);

impl From<VidyaError> for ApiError {
    fn from(e: VidyaError) -> Self {
        Self(e)
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = match self.0.kind() {
            "empty_question" | "bad_option" | "unsupported" | "empty" | "too_large" => {
                StatusCode::BAD_REQUEST
            }
            "no_library" | "empty_library" | "no_such_book" | "no_such_conversation" => {
                StatusCode::NOT_FOUND
            }
            "scanned" | "garbled_text" | "legacy_font" | "encrypted" | "corrupt" => {
                StatusCode::UNPROCESSABLE_ENTITY
            }
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        (status, Json(error_json(&self.0))).into_response()
    }
}

fn error_json(e: &VidyaError) -> serde_json::Value {
    serde_json::json!({"error": {"kind": e.kind(), "message": e.to_string()}})
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError(VidyaError::BadOption(message.into()))
}

/// Runs blocking engine work off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, VidyaError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ApiError(VidyaError::BadOption(format!("internal error: {e}"))))?
        .map_err(ApiError)
}

async fn health(State(s): State<Arc<AppState>>) -> Result<Json<serde_json::Value>, ApiError> {
    let library = s.library.clone();
    let books = blocking(move || Library::open(&library)?.counts().map(|c| c.0)).await?;
    Ok(Json(serde_json::json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "library": s.library.display().to_string(),
        "books": books,
    })))
}

async fn books(State(s): State<Arc<AppState>>) -> Result<Json<serde_json::Value>, ApiError> {
    let library = s.library.clone();
    let books = blocking(move || Library::open(&library)?.books()).await?;
    Ok(Json(serde_json::to_value(books).unwrap_or_default()))
}

async fn stats(State(s): State<Arc<AppState>>) -> Result<Json<serde_json::Value>, ApiError> {
    let library = s.library.clone();
    let stats = blocking(move || Library::open(&library)?.stats()).await?;
    Ok(Json(serde_json::to_value(stats).unwrap_or_default()))
}

/// The body of `POST /api/ask`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AskRequest {
    question: String,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    books: Option<Vec<i64>>,
    #[serde(default)]
    conversation: Option<i64>,
    #[serde(default)]
    no_llm: bool,
    #[serde(default)]
    no_cache: bool,
    #[serde(default)]
    stream: Option<bool>,
}

impl AskRequest {
    fn options(&self) -> Result<TutorOptions, ApiError> {
        let mode = match &self.mode {
            None => Mode::Answer,
            Some(m) => Mode::parse(m).ok_or_else(|| {
                bad_request(format!("unknown mode '{m}': use answer, socratic or quiz"))
            })?,
        };
        let lang = self.lang.clone().unwrap_or_else(|| "auto".into());
        if !crate::LANGUAGE_CHOICES.contains(&lang.as_str()) {
            return Err(bad_request(format!(
                "unknown language '{lang}': use auto, en, hi, mr, kn, te or ta"
            )));
        }
        Ok(TutorOptions {
            mode,
            language: Some(lang),
            books: self.books.clone().filter(|b| !b.is_empty()),
            conversation: self.conversation,
            use_llm: !self.no_llm,
            use_cache: !self.no_cache,
            ..TutorOptions::default()
        })
    }
}

/// Answers with the shared tutor, building it on first use.
fn answer_blocking(
    s: &AppState,
    question: &str,
    opts: &TutorOptions,
    on_token: &mut (dyn FnMut(&str) + Send),
) -> Result<vidya_core::answer::TutorAnswer, VidyaError> {
    let mut guard = s.tutor.lock().unwrap_or_else(|p| p.into_inner());
    if guard.is_none() {
        let engine = Engine::from_library(Library::open_existing(&s.library)?)?;
        *guard = Some(Tutor::new(engine, s.llm.clone()));
    }
    let tutor = guard.as_ref().expect("built above");
    tutor.ask(question, opts, on_token, None)
}

async fn ask(State(s): State<Arc<AppState>>, body: Bytes) -> Result<Response, ApiError> {
    // Parsed whatever the Content-Type says: `curl -d` sends form encoding by default.
    let req: AskRequest = serde_json::from_slice(&body).map_err(|e| {
        bad_request(format!(
            "the request body must be JSON like {{\"question\": \"...\"}}: {e}"
        ))
    })?;
    let opts = req.options()?;
    if !req.stream.unwrap_or(true) {
        let answer =
            blocking(move || answer_blocking(&s, &req.question, &opts, &mut |_| {})).await?;
        return Ok(Json(answer).into_response());
    }
    let (tx, rx) = mpsc::unbounded_channel::<Event>();
    tokio::task::spawn_blocking(move || {
        let token_tx = tx.clone();
        let mut on_token = move |t: &str| {
            let _ = token_tx.send(json_event("token", &serde_json::json!({ "text": t })));
        };
        let event = match answer_blocking(&s, &req.question, &opts, &mut on_token) {
            Ok(a) => json_event("answer", &a),
            Err(e) => json_event("error", &error_json(&e)["error"]),
        };
        let _ = tx.send(event);
    });
    Ok(sse(rx))
}

fn json_event(name: &str, data: &impl serde::Serialize) -> Event {
    Event::default()
        .event(name)
        .data(serde_json::to_string(data).unwrap_or_else(|_| "null".into()))
}

fn sse(rx: mpsc::UnboundedReceiver<Event>) -> Response {
    let stream = UnboundedReceiverStream::new(rx).map(Ok::<_, Infallible>);
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Query of `POST /api/ingest` with a raw file body.
#[derive(Debug, Deserialize)]
struct IngestQuery {
    name: Option<String>,
    title: Option<String>,
}

/// JSON body of `POST /api/ingest` for files on this machine.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct IngestPaths {
    paths: Vec<PathBuf>,
    #[serde(default)]
    title: Option<String>,
}

/// A file name safe to create inside the uploads folder: the last path component, with
/// characters that Windows or Linux forbid replaced by `_`.
fn safe_file_name(name: &str) -> Option<String> {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("").trim();
    let cleaned: String = last
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim_start_matches('.').to_string();
    (!cleaned.is_empty() && cleaned.len() <= 200).then_some(cleaned)
}

async fn ingest_route(
    State(s): State<Arc<AppState>>,
    Query(q): Query<IngestQuery>,
    headers: HeaderMap,
    body: Bytes,
) -> Result<Response, ApiError> {
    let is_json = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    let mut uploaded: Option<PathBuf> = None;
    let (paths, title) = if is_json {
        let req: IngestPaths = serde_json::from_slice(&body).map_err(|e| {
            bad_request(format!(
                "the JSON body must be {{\"paths\": [\"/path/to/book.pdf\"]}}: {e}"
            ))
        })?;
        if req.paths.is_empty() {
            return Err(bad_request(
                "\"paths\" is empty: name at least one file or folder",
            ));
        }
        (req.paths, req.title)
    } else {
        let name = q.name.as_deref().and_then(safe_file_name).ok_or_else(|| {
            bad_request(
                "name the uploaded file: POST /api/ingest?name=book.pdf with the file as the body",
            )
        })?;
        if body.is_empty() {
            return Err(ApiError(VidyaError::Empty {
                path: PathBuf::from(&name),
                why: "the upload is empty (0 bytes)".into(),
            }));
        }
        let dir = s.library.join("uploads");
        let bytes = body.clone();
        let path = blocking(move || {
            std::fs::create_dir_all(&dir).map_err(|e| VidyaError::io(&dir, e))?;
            let path = upload_path(&dir, &name, &bytes);
            std::fs::write(&path, &bytes).map_err(|e| VidyaError::io(&path, e))?;
            Ok(path)
        })
        .await?;
        uploaded = Some(path.clone());
        (vec![path], q.title)
    };
    let (tx, rx) = mpsc::unbounded_channel::<Event>();
    tokio::spawn(async move {
        let _running = s.ingest.lock().await;
        let state = s.clone();
        let result = tokio::task::spawn_blocking(move || {
            let stored = ingest_blocking(&state, &paths, title, &tx);
            // A refused upload is not kept: the library holds only books it could read.
            if let (Some(file), false) = (&uploaded, stored) {
                let _ = std::fs::remove_file(file);
            }
            let _ = tx.send(json_event("done", &serde_json::json!({})));
        })
        .await;
        if result.is_err() {
            tracing::error!("the ingest task stopped unexpectedly");
        }
    });
    Ok(sse(rx))
}

/// Where an upload named `name` is kept in `dir`: that name, unless a file with other content
/// already has it; then "name (2).pdf", "name (3).pdf", ….
fn upload_path(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let first = dir.join(name);
    let taken = |p: &Path| p.exists() && std::fs::read(p).map_or(true, |b| b != bytes);
    if !taken(&first) {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.to_string(), String::new()),
    };
    (2..)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !taken(p))
        .expect("an unbounded range has a free name")
}

/// Ingests `paths`, sending events; true when at least one book is in the library afterwards
/// (added now or already there).
fn ingest_blocking(
    s: &AppState,
    paths: &[PathBuf],
    title: Option<String>,
    tx: &mpsc::UnboundedSender<Event>,
) -> bool {
    let send = |name: &str, v: serde_json::Value| {
        let _ = tx.send(json_event(name, &v));
    };
    let mut books = Vec::new();
    for p in paths {
        match ingest::plan(p) {
            Ok(b) => books.extend(b),
            Err(e) => send("error", error_json(&e)["error"].clone()),
        }
    }
    let mut lib = match Library::open(&s.library) {
        Ok(l) => l,
        Err(e) => {
            send("error", error_json(&e)["error"].clone());
            return false;
        }
    };
    let embedder = if s.embed {
        crate::index_cmd::embedder_for_ingest()
    } else {
        None
    };
    let opts = IngestOptions {
        title: if books.len() == 1 { title } else { None },
        cancel: None,
        embedder: embedder.clone(),
    };
    let mut added = false;
    let mut stored = false;
    for src in &books {
        let file = src
            .path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        // `percent` is of the whole book and never goes back: reading 0–60, chunking 60,
        // embedding 60–95, saving 95 (the `book` event is 100).
        let progress = |stage: &str, done: usize, total: usize, from: usize, span: usize| {
            let percent = from + (done * span).checked_div(total).unwrap_or(0);
            serde_json::json!({"file": file, "stage": stage, "done": done, "total": total, "percent": percent})
        };
        let result = ingest::ingest_book(&mut lib, src, &opts, &mut |p| {
            let v = match p {
                Progress::Reading { page, pages, .. } => progress("reading", page, pages, 0, 60),
                Progress::Indexing => progress("chunking", 0, 0, 60, 0),
                Progress::Embedding { done, total } => progress("embedding", done, total, 60, 35),
                Progress::Writing => progress("saving", 0, 0, 95, 0),
            };
            send("progress", v);
        });
        match result {
            Ok(r) => {
                added |= !r.already_present;
                stored = true;
                send("book", serde_json::to_value(&r).unwrap_or_default());
            }
            Err(e) => {
                let mut v = error_json(&e)["error"].clone();
                v["file"] = serde_json::json!(file);
                send("error", v);
            }
        }
    }
    if added {
        if let Some(e) = &embedder {
            crate::index_cmd::sync_dense(&lib, e);
        }
        // The next question rebuilds the tutor's in-memory indexes with the new book.
        let old = s.tutor.lock().unwrap_or_else(|p| p.into_inner()).take();
        drop(old);
    }
    stored
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_never_replaces_a_different_file_of_the_same_name() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(upload_path(d, "ch07.pdf", b"A"), d.join("ch07.pdf"));
        std::fs::write(d.join("ch07.pdf"), b"A").unwrap();
        // The same content again: the same file.
        assert_eq!(upload_path(d, "ch07.pdf", b"A"), d.join("ch07.pdf"));
        // Other content: a new name, then the next one.
        assert_eq!(upload_path(d, "ch07.pdf", b"B"), d.join("ch07 (2).pdf"));
        std::fs::write(d.join("ch07 (2).pdf"), b"B").unwrap();
        assert_eq!(upload_path(d, "ch07.pdf", b"C"), d.join("ch07 (3).pdf"));
        assert_eq!(upload_path(d, "notes", b"C"), d.join("notes"));
    }

    #[test]
    fn uploaded_names_stay_inside_the_uploads_folder() {
        assert_eq!(safe_file_name("ch07.pdf").as_deref(), Some("ch07.pdf"));
        assert_eq!(
            safe_file_name("../../etc/passwd").as_deref(),
            Some("passwd")
        );
        assert_eq!(
            safe_file_name("C:\\books\\ch 8.pdf").as_deref(),
            Some("ch 8.pdf")
        );
        assert_eq!(safe_file_name("..").as_deref(), None);
        assert_eq!(safe_file_name("").as_deref(), None);
        assert_eq!(safe_file_name("a?b.pdf").as_deref(), Some("a_b.pdf"));
        assert_eq!(safe_file_name(".hidden.pdf").as_deref(), Some("hidden.pdf"));
    }
}
