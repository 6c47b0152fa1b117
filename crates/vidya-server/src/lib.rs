//! The app service ([`vidya_core::app::App`]) over a local HTTP API (axum), and the browser
//! interface (`ui/`) beside it: `vidya serve`, and the desktop window's Settings → Classroom.
//!
//! Routes (JSON in and out; errors are `{"error": {"kind", "message"}}` with a 4xx/5xx status):
//! - `GET /health` → `{"status": "ok", "version", "library", "books", "problems": [str],
//!   "setup_done"}` (`problems`: bundled files that are missing or damaged, with the fix).
//! - `POST /api/ask`, body `{"question": str, "mode"?: "answer"|"socratic"|"quiz", "lang"?:
//!   "auto"|"en"|"hi"|"mr"|"kn"|"te"|"ta", "books"?: [id], "conversation"?: id, "no_llm"?: bool,
//!   "no_cache"?: bool, "stream"?: bool}`. With `"stream": false` the response is the object
//!   `vidya ask --json` prints. Otherwise (the default) it is a server-sent event stream:
//!   a `sources` event (`{"citations"}`) once the passages are known and the model is to
//!   write, `queued` events (`{"ahead"}`) while the question waits for the model, `token`
//!   events (`{"text"}`) as the model writes, then one `answer` event (the same object) or one
//!   `error` event.
//! - `POST /api/ingest?name=FILE.pdf` with the file's bytes as the body (what a browser sends
//!   for a dropped file), or with `Content-Type: application/json` and `{"paths": [str]}` for
//!   files already on this machine: a server-sent event stream of `progress` events
//!   (`{"file", "stage", "done", "total", "percent", "eta_s"}`, `percent` of the whole book,
//!   never going back), `note` events, then per book a `book` event (the ingest report) or an
//!   `error` event (`{"kind", "message", "file"}`), then `done`. An upload with the name of an
//!   earlier, different upload is kept as "name (2).pdf"; an upload that cannot be read is not
//!   kept. `POST /api/ingest/cancel` stops the running ingest (`{"cancelled": bool}`).
//! - `GET /api/books` → what `vidya books --json` prints; `DELETE /api/books/{id}`;
//!   `POST /api/books/{id}/reindex` → an ingest event stream (the book is read again from its
//!   file and replaced in one transaction).
//! - `GET /api/stats` → `vidya stats --json` (the dashboard's figures).
//! - The teacher's view of the class (`report_routes.rs`): `GET /api/class-report[?since=]`
//!   → what the class asked by book, chapter and page, the questions the books could not
//!   answer and each device's questions; `GET /api/class-report.csv[?since=]` → the same
//!   questions as CSV; `GET /api/answer-machines` → each answer machine's state.
//! - `GET /api/settings`, `PUT /api/settings` (the whole settings object) → the settings in
//!   effect.
//! - `GET /api/conversations`, `GET /api/conversations/{id}` (its turns),
//!   `DELETE /api/conversations/{id}`.
//! - `POST /api/page-image`, body `{"book_id", "page", "highlight"?: [str], "width"?: px}` →
//!   `image/png` of the cited page with the quoted sentences highlighted; each picture drawn
//!   once and kept, and other devices limited in how many new ones they have drawn
//!   ([`page_route`]: 429 with `Retry-After`).
//! - The first-run wizard: `GET /api/setup` → the setup report (bundled files, memory and
//!   disk, Ollama's state, models, `.gguf` files found, the sample chapter);
//!   `POST /api/setup/ollama/start` → Ollama's state once it answers (503 with the error
//!   otherwise); `POST /api/setup/import` `{"path", "name"?}` and `POST /api/setup/pull`
//!   `{"model"}` → event streams of `model` progress (`{"phase", "status", "completed",
//!   "total"}`) ending in `done` (`{"model"}`) or `error`; `POST /api/setup/sample`
//!   `{"lang"?}` → `reading` progress, `token`s, then `answer` or `error`;
//!   `POST /api/setup/done` `{"done": bool}`.
//! - Any other `GET` is a file of `ui/` (`/` is `index.html`); unknown `/api/` routes answer
//!   404 with `{"error": {"kind": "not_found", …}}`.
//!
//! Inside an event stream the HTTP status is 200 and problems arrive as `error` events.
//!
//! - Classroom and session ([`access`]): `GET /api/session` → `{"role": "teacher"|"student"|
//!   "none", "name"?, "classroom": bool}`; `POST /api/join` `{"code", "name"}` → a student
//!   session cookie; `POST /api/leave`; `POST /api/teacher` `{"pin"}` → a teacher session
//!   cookie on another device; the teacher's `PUT /api/teacher-pin` `{"pin": str|null}`; the teacher's `GET /api/classroom` → `{"on", "code",
//!   "addresses", "students", "qr_svg"}`, `POST /api/classroom/start` (a new code) and
//!   `POST /api/classroom/end`.
//!
//! Who may call what is declared once, in [`vidya_core::app::roles::ROUTES`]: the teacher (this machine) may
//! call every route; a student who joined with the code may ask, read their own
//! conversations and see page images; anyone else only joins. The server binds to 127.0.0.1
//! by default: only this machine can reach it, and another address is refused unless
//! classroom mode is on (`--classroom`, which listens on the local network). Requests whose
//! `Host` is not this server's address, or that come from a web page of another origin, are
//! refused (403), so a web site open in the same browser cannot drive the API; a request line
//! without a path (`GET host:port`) gets 400 and a path over [`MAX_PATH_BYTES`] 414. Every response
//! carries a strict Content-Security-Policy: the interface runs only its own scripts.
#![warn(missing_docs)]

pub mod access;
mod ask_route;
pub mod classroom;
mod ingest_routes;
pub mod listen;
pub mod page_route;
mod report_routes;
mod setup_routes;
pub mod student_view;

use access::{Access, Caller};
use anyhow::Result;
use axum::body::Bytes;
use axum::extract::{Extension, Path as UrlPath, Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
pub use listen::ConnectionLimits;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::mpsc;
use tokio_stream::wrappers::UnboundedReceiverStream;
use tokio_stream::StreamExt;
use tower_http::services::ServeDir;
use tower_http::set_header::SetResponseHeaderLayer;
use vidya_core::app::events::name_and_data;
use vidya_core::app::{App, ErrorBody, Settings};
use vidya_core::VidyaError;

/// Largest accepted upload (bytes): the PDF size limit of ingestion.
pub const MAX_UPLOAD_BYTES: usize = vidya_core::ingest::pdf::MAX_PDF_BYTES as usize;

/// Largest JSON body of the other routes (bytes): a question, settings, a page request.
pub const MAX_JSON_BYTES: usize = 1 << 20;

/// Longest path a request may name (bytes, the query not counted): every route and file of
/// the interface is far shorter. Longer gets 414.
pub const MAX_PATH_BYTES: usize = 2048;

/// Longest path segment (bytes, percent-escapes decoded): no file system has longer file
/// names, so a longer one names no file (404).
const MAX_SEGMENT_BYTES: usize = 255;

/// The Content-Security-Policy of every response: own scripts and styles only, images from
/// this server or `blob:`/`data:` (rendered pages), no frames, no plugins.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Why a non-loopback address without classroom mode is refused (what the teacher reads).
pub const OPEN_BIND_REFUSED: &str = "refusing to listen on {bind}: without classroom mode every device on the network could change your library and settings. To serve a class, run `vidya serve --classroom`: students join with a code on your screen and can only ask questions";

/// Refuses a `bind` other than loopback without classroom mode ([`OPEN_BIND_REFUSED`]).
pub fn check_bind(bind: SocketAddr, classroom: bool) -> Result<()> {
    if !classroom && !bind.ip().is_loopback() {
        anyhow::bail!(OPEN_BIND_REFUSED.replace("{bind}", &bind.ip().to_string()));
    }
    Ok(())
}

/// A running server: the API and the interface over one [`App`], on one address, in the
/// background of the Tokio runtime that started it.
pub struct Server {
    addr: SocketAddr,
    access: Arc<Access>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

/// How long [`Server::stop`] lets answers in progress finish before it closes them (s).
pub const STOP_GRACE_S: u64 = 5;

impl Server {
    /// Listens on `bind` and serves `app` with the interface in `ui` (call inside a Tokio
    /// runtime). `classroom` turns classroom mode on (students join with a code; see
    /// [`access`]) and starts a class, so a join code is ready. Connections are bounded by
    /// [`ConnectionLimits::default`].
    ///
    /// Errors: `bind` is not loopback without `classroom` ([`OPEN_BIND_REFUSED`]); the
    /// address is taken (the message says to choose another port).
    pub async fn start(
        app: Arc<App>,
        bind: SocketAddr,
        classroom: bool,
        ui: &Path,
    ) -> Result<Self> {
        Self::start_with(app, bind, classroom, ui, ConnectionLimits::default()).await
    }

    /// [`Server::start`] with other bounds on connections (tests use a short header-read
    /// timeout). Errors: as [`Server::start`].
    pub async fn start_with(
        app: Arc<App>,
        bind: SocketAddr,
        classroom: bool,
        ui: &Path,
        limits: ConnectionLimits,
    ) -> Result<Self> {
        check_bind(bind, classroom)?;
        // Read again every few seconds (access::OWN_ADDRESSES_S): an address the laptop gives
        // up is no longer the teacher's once a student's device gets it.
        let access = Arc::new(Access::reading(classroom, || {
            local_ip_address::list_afinet_netifas()
                .map(|l| l.into_iter().map(|(_, ip)| ip).collect())
                .unwrap_or_default()
        }));
        let listener = tokio::net::TcpListener::bind(bind).await.map_err(|e| {
            anyhow::anyhow!(
                "cannot listen on {bind}: {e}. Another program may use this port: choose another with --port"
            )
        })?;
        let addr = listener.local_addr()?;
        access.set_listening(addr);
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let routes = router(app, access.clone(), ui);
        let task = tokio::spawn(listen::serve(
            listener,
            routes,
            access.clone(),
            limits,
            async {
                let _ = stopped.await;
            },
        ));
        Ok(Self {
            addr,
            access,
            stop: Some(stop),
            task,
        })
    }

    /// The address it listens on (the port chosen when `bind` had port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Who may call what, and the class (join code, students).
    pub fn access(&self) -> &Arc<Access> {
        &self.access
    }

    /// The address to open in a browser on this machine (`0.0.0.0` named as 127.0.0.1).
    pub fn local_url(&self) -> String {
        let shown = if self.addr.ip().is_unspecified() {
            SocketAddr::new(std::net::Ipv4Addr::LOCALHOST.into(), self.addr.port())
        } else {
            self.addr
        };
        format!("http://{shown}")
    }

    /// The classroom as the teacher's screen shows it (see [`classroom::ClassroomInfo`]).
    pub fn classroom_info(&self) -> classroom::ClassroomInfo {
        classroom::ClassroomInfo::of(&self.access)
    }

    /// Serves until `until` completes (Ctrl-C for `vidya serve`), then stops. Errors: the
    /// server failed.
    pub async fn serve_until(mut self, until: impl std::future::Future<Output = ()>) -> Result<()> {
        tokio::select! {
            r = &mut self.task => return Ok(r??),
            _ = until => {}
        }
        self.stop().await;
        Ok(())
    }

    /// Stops listening: the class ends (students' pages say so), answers in progress get
    /// [`STOP_GRACE_S`] seconds to finish, then every connection is closed.
    pub async fn stop(mut self) {
        self.access.end_class();
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let grace = std::time::Duration::from_secs(STOP_GRACE_S);
        if tokio::time::timeout(grace, &mut self.task).await.is_err() {
            self.task.abort();
        }
    }
}

/// The routes over `app` (see the crate docs), the interface files in `ui` beside them.
pub fn router(app: Arc<App>, access: Arc<Access>, ui: &Path) -> Router {
    let api = Router::new()
        .route("/api/session", get(classroom::session))
        .route("/api/join", post(classroom::join))
        .route("/api/leave", post(classroom::leave))
        .route("/api/teacher", post(classroom::teacher))
        .route("/api/teacher-pin", axum::routing::put(classroom::set_pin))
        .route("/api/classroom", get(classroom::info))
        .route("/api/classroom/start", post(classroom::start))
        .route("/api/classroom/end", post(classroom::end))
        .route("/health", get(health))
        .route("/api/ask", post(ask_route::ask))
        .route(
            "/api/ingest",
            post(ingest_routes::ingest)
                .layer(axum::extract::DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route("/api/ingest/cancel", post(ingest_routes::cancel))
        .route("/api/books", get(books))
        .route("/api/books/{id}", delete(delete_book))
        .route("/api/books/{id}/reindex", post(ingest_routes::reindex))
        .route("/api/stats", get(stats))
        .route("/api/class-report", get(report_routes::class_report))
        .route(
            "/api/class-report.csv",
            get(report_routes::class_report_csv),
        )
        .route("/api/answer-machines", get(report_routes::answer_machines))
        .route("/api/settings", get(get_settings).put(put_settings))
        .route("/api/conversations", get(conversations))
        .route(
            "/api/conversations/{id}",
            get(conversation).delete(delete_conversation),
        )
        .route("/api/page-image", post(page_route::page_image))
        .route("/api/setup", get(setup_routes::setup_report))
        .route(
            "/api/setup/ollama/start",
            post(setup_routes::setup_start_ollama),
        )
        .route("/api/setup/import", post(setup_routes::setup_import))
        .route("/api/setup/pull", post(setup_routes::setup_pull))
        .route("/api/setup/sample", post(setup_routes::setup_sample))
        .route("/api/setup/done", post(setup_routes::setup_done))
        .route("/api", axum::routing::any(api_not_found))
        .route("/api/", axum::routing::any(api_not_found))
        .route("/api/{*rest}", axum::routing::any(api_not_found))
        .route_layer(middleware::from_fn_with_state(
            access.clone(),
            access::guard,
        ))
        .layer(Extension(access.clone()))
        .layer(Extension(page_route::Renders::new()))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_JSON_BYTES))
        .layer(middleware::map_response(json_errors))
        .with_state(app);
    api.fallback_service(ServeDir::new(ui).append_index_html_on_directories(true))
        .layer(middleware::from_fn_with_state(access, same_origin_only))
        .layer(SetResponseHeaderLayer::overriding(
            header::CONTENT_SECURITY_POLICY,
            HeaderValue::from_static(CSP),
        ))
        .layer(SetResponseHeaderLayer::overriding(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
}

async fn api_not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(serde_json::json!({"error": {"kind": "not_found", "message": "no such API route: see the routes in the README (GET /health, POST /api/ask, POST /api/ingest, GET /api/books, GET /api/stats, …)"}})),
    )
        .into_response()
}

/// Rewrites axum's own plain-text rejections (unparsable path ids, bodies over the limit,
/// wrong methods) into the API's `{"error": {"kind", "message"}}` shape.
async fn json_errors(res: Response) -> Response {
    let status = res.status();
    let is_json = res
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return res;
    }
    let (kind, hint) = match status {
        StatusCode::PAYLOAD_TOO_LARGE => (
            "too_large",
            "the request is too large: a book may be at most 512 MB, other requests 1 MB",
        ),
        StatusCode::METHOD_NOT_ALLOWED => (
            "method_not_allowed",
            "this route does not take that method: see the routes in the README",
        ),
        _ => ("bad_request", "the request is malformed"),
    };
    let bytes = axum::body::to_bytes(res.into_body(), 4096)
        .await
        .unwrap_or_default();
    let detail = String::from_utf8_lossy(&bytes).trim().to_string();
    let message = if detail.is_empty() {
        hint.to_string()
    } else {
        format!("{hint} ({detail})")
    };
    (
        status,
        Json(serde_json::json!({"error": {"kind": kind, "message": message}})),
    )
        .into_response()
}

/// The name part of a `Host` header (`[::1]:8765` → `::1`, `192.168.1.5:8765` → `192.168.1.5`).
fn host_name(host: &str) -> &str {
    match host.strip_prefix('[') {
        Some(v6) => v6.split(']').next().unwrap_or(""),
        None => host.rsplit_once(':').map_or(host, |(h, _)| h),
    }
}

/// True for a `Host` header naming this machine's loopback (any port).
fn is_local_host(host: &str) -> bool {
    matches!(host_name(host), "127.0.0.1" | "localhost" | "::1")
}

/// Refuses requests from other web sites: a `Host` that is not this server's address (DNS
/// rebinding; in classroom mode this machine's network addresses are its addresses too), an
/// absolute request target (`GET http://host/… HTTP/1.1`, whose authority HTTP/1.1 puts
/// before the `Host` header: RFC 9112 §3.2.2) naming another host, and an `Origin` that
/// differs from the host the request is for. A request with two `Host` or two `Origin` lines
/// gets 400 (RFC 9112 §3.2).
async fn same_origin_only(State(access): State<Arc<Access>>, req: Request, next: Next) -> Response {
    if let Some(refused) = odd_target(req.uri()) {
        return refused;
    }
    let headers = req.headers();
    // Two Host (or Origin) lines: which one a check reads and which one a proxy or the page
    // meant could differ. RFC 9112 §3.2: such a request gets 400.
    if headers.get_all(header::HOST).iter().count() > 1
        || headers.get_all(header::ORIGIN).iter().count() > 1
    {
        return access::refuse(
            StatusCode::BAD_REQUEST,
            "bad_option",
            "a request may name its host and its origin once each: send one Host header and at most one Origin header",
        );
    }
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let ours = |h: &str| {
        is_local_host(h)
            || (access.classroom()
                && host_name(h)
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| access.is_local(ip)))
    };
    // The host the request is for: the absolute target's authority when there is one.
    let target = req.uri().authority().map_or(host, |a| a.as_str());
    let host_ok = ours(host) && ours(target);
    let origin_ok = headers
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .is_none_or(|o| {
            o.strip_prefix("http://")
                .or_else(|| o.strip_prefix("https://"))
                == Some(target)
        });
    if !host_ok || !origin_ok {
        return access::refuse(
            StatusCode::FORBIDDEN,
            "forbidden",
            "requests from other web sites are refused: open Vidya at the address `vidya serve` printed",
        );
    }
    next.run(req).await
}

/// The refusal of a request target this server has nothing for, before anything reads it: the
/// authority form (`GET 127.0.0.1:8765 HTTP/1.1`, meant for a proxy's CONNECT) and the
/// asterisk form get 400, a path over [`MAX_PATH_BYTES`] 414, a segment longer than any
/// file name ([`MAX_SEGMENT_BYTES`]) 404. `None`: the target is fine.
fn odd_target(uri: &axum::http::Uri) -> Option<Response> {
    let path = uri.path();
    if !path.starts_with('/') {
        return Some(access::refuse(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "the request line must name a path on this server, like `GET / HTTP/1.1` (a host and port alone is for a proxy)",
        ));
    }
    if path.len() > MAX_PATH_BYTES {
        return Some(access::refuse(
            StatusCode::URI_TOO_LONG,
            "too_long",
            format!("the address is too long: a path on this server has at most {MAX_PATH_BYTES} characters"),
        ));
    }
    if path
        .split('/')
        .any(|seg| decoded_len(seg) > MAX_SEGMENT_BYTES)
    {
        return Some(access::refuse(
            StatusCode::NOT_FOUND,
            "not_found",
            "no such file or route: a name in the address is longer than any file name",
        ));
    }
    None
}

/// The length in bytes of `segment` once its percent-escapes (`%41`) are decoded.
fn decoded_len(segment: &str) -> usize {
    let b = segment.as_bytes();
    let escapes = b
        .windows(3)
        .filter(|w| w[0] == b'%' && w[1].is_ascii_hexdigit() && w[2].is_ascii_hexdigit())
        .count();
    b.len() - 2 * escapes
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
        (status_of(&self.0), Json(error_json(&self.0))).into_response()
    }
}

/// The HTTP status of an engine error: 400 for what the caller sent, 404 for what is not
/// there, 422 for a file that cannot be read, 503 when busy, 500 for faults on this side
/// (missing or broken bundled files, the database, the disk, [`VidyaError::Internal`]).
/// Exhaustive, so a new variant has to be given its status here.
fn status_of(e: &VidyaError) -> StatusCode {
    use VidyaError as E;
    match e {
        E::EmptyQuestion
        | E::BadOption(_)
        | E::Unsupported { .. }
        | E::Empty { .. }
        | E::TooLarge { .. } => StatusCode::BAD_REQUEST,
        E::Busy(_) => StatusCode::SERVICE_UNAVAILABLE,
        E::NoLibrary { .. }
        | E::EmptyLibrary
        | E::NoSuchBook(_)
        | E::NoSuchConversation(_)
        | E::NoPageImage { .. } => StatusCode::NOT_FOUND,
        E::Scanned { .. }
        | E::GarbledText { .. }
        | E::LegacyFont { .. }
        | E::Ocr { .. }
        | E::Encrypted { .. }
        | E::Corrupt { .. } => StatusCode::UNPROCESSABLE_ENTITY,
        E::Io { .. }
        | E::PdfiumMissing { .. }
        | E::ModelMissing { .. }
        | E::RerankerBroken { .. }
        | E::Database { .. }
        | E::WrongType { .. }
        | E::SchemaTooNew { .. }
        | E::Cancelled
        | E::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn error_json(e: &VidyaError) -> serde_json::Value {
    serde_json::json!({ "error": ErrorBody::from(e) })
}

fn bad_request(message: impl Into<String>) -> ApiError {
    ApiError(VidyaError::BadOption(message.into()))
}

/// A blocking task that panicked or was cancelled: a fault on this side (500, kind `internal`).
fn task_stopped(e: tokio::task::JoinError) -> ApiError {
    ApiError(VidyaError::Internal(format!("the task stopped ({e})")))
}

/// Runs blocking engine work off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, VidyaError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(task_stopped)?
        .map_err(ApiError)
}

fn json_body<T: serde::de::DeserializeOwned>(body: &[u8], example: &str) -> Result<T, ApiError> {
    // Parsed whatever the Content-Type says: `curl -d` sends form encoding by default.
    serde_json::from_slice(body)
        .map_err(|e| bad_request(format!("the request body must be JSON like {example}: {e}")))
}

async fn health(State(app): State<Arc<App>>) -> Result<Json<serde_json::Value>, ApiError> {
    let h = blocking(move || app.health()).await?;
    Ok(Json(serde_json::to_value(h).unwrap_or_default()))
}

async fn books(State(app): State<Arc<App>>) -> Result<Json<serde_json::Value>, ApiError> {
    let books = blocking(move || app.books()).await?;
    Ok(Json(serde_json::to_value(books).unwrap_or_default()))
}

async fn delete_book(
    State(app): State<Arc<App>>,
    UrlPath(id): UrlPath<i64>,
) -> Result<Json<serde_json::Value>, ApiError> {
    blocking(move || app.delete_book(id)).await?;
    Ok(Json(serde_json::json!({ "deleted": id })))
}

async fn stats(State(app): State<Arc<App>>) -> Result<Json<serde_json::Value>, ApiError> {
    let stats = blocking(move || app.stats()).await?;
    Ok(Json(serde_json::to_value(stats).unwrap_or_default()))
}

async fn get_settings(State(app): State<Arc<App>>) -> Json<Settings> {
    Json(app.settings())
}

async fn put_settings(
    State(app): State<Arc<App>>,
    body: Bytes,
) -> Result<Json<Settings>, ApiError> {
    let s: Settings = json_body(
        &body,
        r#"{"ollama_host": "http://127.0.0.1:11434", "model": "llama3.2:3b", …}"#,
    )?;
    Ok(Json(blocking(move || app.save_settings(&s)).await?))
}

/// Conversations: every one for the teacher, a student's own for a student.
async fn conversations(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    Extension(caller): Extension<Caller>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let mut list = blocking(move || app.conversations()).await?;
    if let Caller::Student(token) = &caller {
        let own = access.conversations_of(token);
        list.retain(|c| own.contains(&c.id));
    }
    Ok(Json(serde_json::to_value(list).unwrap_or_default()))
}

/// A student may only see their own conversations: any other id is "no such conversation",
/// as if it did not exist.
fn check_owner(access: &Access, caller: &Caller, id: i64) -> Result<(), ApiError> {
    match caller {
        Caller::Student(token) if !access.owns(token, id) => {
            Err(ApiError(VidyaError::NoSuchConversation(id)))
        }
        _ => Ok(()),
    }
}

async fn conversation(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    Extension(caller): Extension<Caller>,
    UrlPath(id): UrlPath<i64>,
) -> Result<Json<serde_json::Value>, ApiError> {
    check_owner(&access, &caller, id)?;
    let turns = blocking(move || app.conversation(id)).await?;
    Ok(Json(serde_json::to_value(turns).unwrap_or_default()))
}

async fn delete_conversation(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    Extension(caller): Extension<Caller>,
    UrlPath(id): UrlPath<i64>,
) -> Result<Json<serde_json::Value>, ApiError> {
    check_owner(&access, &caller, id)?;
    blocking(move || app.delete_conversation(id)).await?;
    Ok(Json(serde_json::json!({ "deleted": id })))
}

/// One server-sent event: the event's name and its JSON data ([`name_and_data`]).
pub(crate) fn event(e: &impl serde::Serialize) -> Event {
    let (name, data) = name_and_data(e);
    Event::default()
        .event(name)
        .data(serde_json::to_string(&data).unwrap_or_else(|_| "null".into()))
}

/// A server-sent event stream of what arrives on `rx` (with keep-alive comments).
pub(crate) fn sse(rx: mpsc::UnboundedReceiver<Event>) -> Response {
    let stream = UnboundedReceiverStream::new(rx).map(Ok::<_, Infallible>);
    Sse::new(stream)
        .keep_alive(KeepAlive::default())
        .into_response()
}

/// Runs `work` on a blocking thread, streaming the events it sends (ingest or setup events).
pub(crate) fn event_stream<E: serde::Serialize + 'static>(
    app: Arc<App>,
    work: impl FnOnce(&App, &mut (dyn FnMut(E) + Send)) + Send + 'static,
) -> Response {
    let (tx, rx) = mpsc::unbounded_channel::<Event>();
    tokio::task::spawn_blocking(move || {
        work(&app, &mut |e| {
            let _ = tx.send(event(&e));
        });
    });
    sse(rx)
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
