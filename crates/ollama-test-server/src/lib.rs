//! A protocol-faithful Ollama server for tests.
//!
//! It follows Ollama's published REST API (`docs/api.md` of the ollama repository):
//! `GET /` ("Ollama is running"), `GET /api/version`, `GET /api/tags`, `POST /api/show`, and
//! `POST /api/chat` with NDJSON streaming (one `{"model","created_at","message":{"role",
//! "content"},"done":false}` object per token, then a final object with `"done":true`,
//! `"done_reason"` and the duration/count fields), with Ollama's error bodies
//! (`{"error":"model \"x\" not found, try pulling it first"}`, status 404).
//!
//! It also fakes the model-management endpoints a first-run setup wizard uses:
//!
//! - `HEAD /api/blobs/:digest` (`sha256:<64 hex>`): 200 when a blob with that digest was uploaded,
//!   404 otherwise, 400 for a malformed digest.
//! - `POST /api/blobs/:digest`: the raw file as body, streamed (no size limit) and hashed; 201
//!   Created with an empty body when its sha256 matches, 400
//!   `{"error":"digest mismatch, expected \"sha256:…\", got \"sha256:…\""}` when it does not,
//!   400 `{"error":"invalid digest format"}` for a malformed digest, 200 when already uploaded.
//! - `POST /api/create` with `{"model","files":{"name.gguf":"sha256:…"},"stream"}`: NDJSON
//!   `{"status":"parsing GGUF"}`, `{"status":"using existing layer sha256:…"}`,
//!   `{"status":"writing manifest"}`, `{"status":"success"}`; `{"error":"invalid file magic"}`
//!   after `parsing GGUF` for a blob that does not start with `GGUF`.
//! - `POST /api/pull` with `{"model","stream","insecure"}`: for a [`Behaviour::pullable`] model,
//!   `{"status":"pulling manifest"}`, progress objects `{"status":"pulling <12 hex>","digest",
//!   "total","completed"}`, `{"status":"verifying sha256 digest"}`, `{"status":"writing
//!   manifest"}`, `{"status":"success"}`; for any other model, what an offline Ollama answers:
//!   `{"status":"pulling manifest"}` then `{"error":"pull model manifest: Get \"URL\": dial tcp:
//!   lookup registry.ollama.ai: no such host"}` with URL
//!   `https://registry.ollama.ai/v2/library/<name>/manifests/<tag>`.
//!
//! Created and pulled models join [`Behaviour::models`] (as `name:latest` when untagged), so
//! `/api/tags`, `/api/show` and `/api/chat` see them. Errors raised before the first progress
//! line come back as an HTTP status with `{"error":…}` (as Ollama's `streamResponse` does);
//! with `"stream": false` the answer is one object: the last status, or the error with its status
//! (400 for bad requests, 500 otherwise).
//!
//! It can misbehave on purpose ([`Behaviour`]): a slow first token, a disconnect mid-stream, an
//! error object mid-stream, HTTP 500, garbage instead of JSON. It counts every call so tests
//! can assert that no model was asked.

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, head, post};
use axum::{Json, Router};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A reply rule: when the chat request's messages contain `when_contains`, stream `reply`.
#[derive(Debug, Clone)]
pub struct Rule {
    /// Substring searched in all message contents of the request.
    pub when_contains: String,
    /// The assistant reply to stream.
    pub reply: String,
}

/// How the server answers.
#[derive(Debug, Clone)]
pub struct Behaviour {
    /// Installed model names (as `/api/tags` lists them).
    pub models: Vec<String>,
    /// Reply rules, first match wins.
    pub rules: Vec<Rule>,
    /// Reply when no rule matches.
    pub default_reply: String,
    /// Delay before the first token (ms).
    pub first_token_delay_ms: u64,
    /// Delay between tokens (ms).
    pub token_delay_ms: u64,
    /// Close the connection after this many tokens, without the final `done` object.
    pub disconnect_after_tokens: Option<usize>,
    /// Send `{"error": ...}` after this many tokens and end the stream (as Ollama does when the
    /// runner crashes).
    pub error_after_tokens: Option<(usize, String)>,
    /// Answer every API call with HTTP 500 and an error body.
    pub http_500: bool,
    /// Stream lines that are not JSON instead of chat objects.
    pub garbage_json: bool,
    /// Models `/api/pull` can fetch: (name, total bytes). A name without a tag means
    /// `name:latest`. Pulling any other name fails as on an Ollama without network access.
    pub pullable: Vec<(String, u64)>,
    /// Delay between two `/api/pull` progress objects (ms).
    pub pull_chunk_delay_ms: u64,
}

impl Default for Behaviour {
    fn default() -> Self {
        Self {
            models: vec!["llama3.2:3b".into()],
            rules: Vec::new(),
            default_reply: "This answer comes from the test server [1].".into(),
            first_token_delay_ms: 0,
            token_delay_ms: 0,
            disconnect_after_tokens: None,
            error_after_tokens: None,
            http_500: false,
            garbage_json: false,
            pullable: Vec::new(),
            pull_chunk_delay_ms: 0,
        }
    }
}

/// Calls received, per endpoint.
#[derive(Debug, Default)]
pub struct Calls {
    /// `GET /api/tags`.
    pub tags: AtomicUsize,
    /// `POST /api/show`.
    pub show: AtomicUsize,
    /// `POST /api/chat`.
    pub chat: AtomicUsize,
    /// Streamed `POST /api/chat` answers the client stopped reading before their end.
    pub chat_abandoned: AtomicUsize,
    /// `POST /api/blobs/:digest` (uploads, whatever their outcome).
    pub blobs: AtomicUsize,
    /// `HEAD /api/blobs/:digest`.
    pub blob_checks: AtomicUsize,
    /// `POST /api/create`.
    pub create: AtomicUsize,
    /// `POST /api/pull`.
    pub pull: AtomicUsize,
    /// Anything else.
    pub other: AtomicUsize,
}

/// What the server keeps of an uploaded blob (not its bytes).
#[derive(Debug, Clone)]
struct Blob {
    /// `sha256:<hex>`.
    digest: String,
    /// The first bytes (at most 4: the file magic).
    magic: Vec<u8>,
    /// Size in bytes.
    len: u64,
}

struct Shared {
    behaviour: Mutex<Behaviour>,
    calls: Calls,
    last_chat: Mutex<Option<Value>>,
    /// Uploaded blobs by `sha256:<hex>` digest.
    blobs: Mutex<HashMap<String, Blob>>,
}

/// A running test server (on its own thread and Tokio runtime; stopped when dropped).
pub struct TestServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    shutdown: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl TestServer {
    /// Starts a server on `127.0.0.1` with an OS-chosen port.
    pub fn start(behaviour: Behaviour) -> Self {
        Self::start_on(behaviour, 0)
    }

    /// Starts a server on `127.0.0.1:port` (0 = any free port). Panics when the port is taken.
    pub fn start_on(behaviour: Behaviour, port: u16) -> Self {
        let shared = Arc::new(Shared {
            behaviour: Mutex::new(behaviour),
            calls: Calls::default(),
            last_chat: Mutex::new(None),
            blobs: Mutex::new(HashMap::new()),
        });
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let (addr_tx, addr_rx) = std::sync::mpsc::channel();
        let app = router(shared.clone());
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("tokio runtime");
            rt.block_on(async move {
                let listener = tokio::net::TcpListener::bind(("127.0.0.1", port))
                    .await
                    .expect("bind test server");
                addr_tx
                    .send(listener.local_addr().expect("local addr"))
                    .ok();
                axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        rx.await.ok();
                    })
                    .await
                    .ok();
            });
        });
        let addr = addr_rx.recv().expect("server started");
        Self {
            addr,
            shared,
            shutdown: Some(tx),
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The port.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Replaces the behaviour for the next requests.
    pub fn set(&self, behaviour: Behaviour) {
        *self.shared.behaviour.lock().expect("lock") = behaviour;
    }

    /// Number of `/api/chat` calls so far.
    pub fn chat_calls(&self) -> usize {
        self.shared.calls.chat.load(Ordering::SeqCst)
    }

    /// Number of streamed answers whose client hung up before their end.
    pub fn chat_abandoned(&self) -> usize {
        self.shared.calls.chat_abandoned.load(Ordering::SeqCst)
    }

    /// Number of `/api/tags` calls so far.
    pub fn tags_calls(&self) -> usize {
        self.shared.calls.tags.load(Ordering::SeqCst)
    }

    /// Number of `POST /api/create` calls so far.
    pub fn create_calls(&self) -> usize {
        self.shared.calls.create.load(Ordering::SeqCst)
    }

    /// Number of `POST /api/pull` calls so far.
    pub fn pull_calls(&self) -> usize {
        self.shared.calls.pull.load(Ordering::SeqCst)
    }

    /// Number of `POST /api/blobs/:digest` calls (uploads) so far, whatever their outcome.
    pub fn blob_uploads(&self) -> usize {
        self.shared.calls.blobs.load(Ordering::SeqCst)
    }

    /// Number of `HEAD /api/blobs/:digest` calls so far.
    pub fn blob_checks(&self) -> usize {
        self.shared.calls.blob_checks.load(Ordering::SeqCst)
    }

    /// The size in bytes of the uploaded blob `digest` (`sha256:<hex>`), if one was stored.
    pub fn blob_len(&self, digest: &str) -> Option<u64> {
        let key = blob_key(digest)?;
        self.shared
            .blobs
            .lock()
            .expect("lock")
            .get(&key)
            .map(|b| b.len)
    }

    /// The installed model names now (including created and pulled ones).
    pub fn models(&self) -> Vec<String> {
        self.shared.behaviour.lock().expect("lock").models.clone()
    }

    /// The body of the last `/api/chat` request.
    pub fn last_chat_request(&self) -> Option<Value> {
        self.shared.last_chat.lock().expect("lock").clone()
    }
}

impl Drop for TestServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            tx.send(()).ok();
        }
        if let Some(t) = self.thread.take() {
            t.join().ok();
        }
    }
}

/// The axum router implementing the API over `shared` state.
fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(|| async { "Ollama is running" }))
        .route(
            "/api/version",
            get(|| async { Json(json!({"version": "0.6.0"})) }),
        )
        .route("/api/tags", get(tags))
        .route("/api/show", post(show))
        .route("/api/chat", post(chat))
        .route(
            "/api/blobs/{digest}",
            head(head_blob)
                .post(create_blob)
                .layer(DefaultBodyLimit::disable()),
        )
        .route("/api/create", post(create))
        .route("/api/pull", post(pull))
        .fallback(|State(s): State<Arc<Shared>>| async move {
            s.calls.other.fetch_add(1, Ordering::SeqCst);
            (StatusCode::NOT_FOUND, "404 page not found")
        })
        .with_state(shared)
}

fn error(status: StatusCode, msg: &str) -> Response {
    (status, Json(json!({ "error": msg }))).into_response()
}

fn now() -> String {
    // Ollama sends RFC 3339 times; tests never read them, so a fixed one is faithful enough.
    "2026-11-29T12:00:00.000000000Z".to_string()
}

fn model_entry(name: &str) -> Value {
    json!({
        "name": name, "model": name, "modified_at": now(), "size": 2019393189u64,
        "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
        "details": {"parent_model": "", "format": "gguf", "family": "llama", "families": ["llama"],
                    "parameter_size": "3.2B", "quantization_level": "Q4_K_M"}
    })
}

async fn tags(State(s): State<Arc<Shared>>) -> Response {
    s.calls.tags.fetch_add(1, Ordering::SeqCst);
    let b = s.behaviour.lock().expect("lock").clone();
    if b.http_500 {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    }
    let models: Vec<Value> = b.models.iter().map(|m| model_entry(m)).collect();
    Json(json!({ "models": models })).into_response()
}

#[derive(Deserialize)]
struct ShowRequest {
    #[serde(alias = "name")]
    model: String,
}

fn installed(b: &Behaviour, name: &str) -> bool {
    b.models
        .iter()
        .any(|m| m == name || m.strip_suffix(":latest") == Some(name))
}

async fn show(State(s): State<Arc<Shared>>, Json(req): Json<ShowRequest>) -> Response {
    s.calls.show.fetch_add(1, Ordering::SeqCst);
    let b = s.behaviour.lock().expect("lock").clone();
    if b.http_500 {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    }
    if !installed(&b, &req.model) {
        return error(
            StatusCode::NOT_FOUND,
            &format!("model '{}' not found", req.model),
        );
    }
    Json(json!({
        "modelfile": format!("FROM {}", req.model),
        "parameters": "stop \"<|eot_id|>\"",
        "template": "{{ .Prompt }}",
        "details": {"format": "gguf", "family": "llama", "parameter_size": "3.2B", "quantization_level": "Q4_K_M"},
        "model_info": {"general.architecture": "llama", "llama.context_length": 131072},
        "capabilities": ["completion"]
    }))
    .into_response()
}

/// Splits a reply into streamed pieces the way a tokenizer would: words with their spaces.
fn pieces(reply: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in reply.chars() {
        if c == ' ' && !cur.is_empty() && !cur.ends_with(' ') {
            out.push(std::mem::take(&mut cur));
        }
        cur.push(c);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

async fn chat(State(s): State<Arc<Shared>>, Json(req): Json<Value>) -> Response {
    s.calls.chat.fetch_add(1, Ordering::SeqCst);
    *s.last_chat.lock().expect("lock") = Some(req.clone());
    let b = s.behaviour.lock().expect("lock").clone();
    if b.http_500 {
        return error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "llama runner process has terminated: exit status 2",
        );
    }
    let model = req["model"].as_str().unwrap_or_default().to_string();
    if !installed(&b, &model) {
        return error(
            StatusCode::NOT_FOUND,
            &format!("model \"{model}\" not found, try pulling it first"),
        );
    }
    let all_text: String = req["messages"]
        .as_array()
        .map(|ms| {
            ms.iter()
                .filter_map(|m| m["content"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default();
    let reply = b
        .rules
        .iter()
        .find(|r| all_text.contains(&r.when_contains))
        .map(|r| r.reply.clone())
        .unwrap_or_else(|| b.default_reply.clone());
    let stream = req["stream"].as_bool().unwrap_or(true);
    if !stream {
        return Json(json!({
            "model": model, "created_at": now(),
            "message": {"role": "assistant", "content": reply},
            "done": true, "done_reason": "stop",
            "total_duration": 1_000_000u64, "load_duration": 1000u64, "prompt_eval_count": 10u64,
            "prompt_eval_duration": 1000u64, "eval_count": 10u64, "eval_duration": 1000u64
        }))
        .into_response();
    }
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<bytes::Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(b.first_token_delay_ms)).await;
        let parts = pieces(&reply);
        for (i, p) in parts.iter().enumerate() {
            if b.disconnect_after_tokens == Some(i) {
                // Let the tokens already written reach the client, as they would from a real
                // server that dies mid-answer; then abort the chunked body.
                tokio::time::sleep(Duration::from_millis(100)).await;
                tx.send(Err(std::io::Error::other("connection reset")))
                    .await
                    .ok();
                return;
            }
            if let Some((n, msg)) = &b.error_after_tokens {
                if *n == i {
                    let line = format!("{}\n", json!({ "error": msg }));
                    tx.send(Ok(line.into())).await.ok();
                    return;
                }
            }
            let line = if b.garbage_json {
                format!("<html>garbage {i}\n")
            } else {
                format!(
                    "{}\n",
                    json!({"model": model, "created_at": now(),
                           "message": {"role": "assistant", "content": p}, "done": false})
                )
            };
            if tx.send(Ok(line.into())).await.is_err() {
                s.calls.chat_abandoned.fetch_add(1, Ordering::SeqCst);
                return;
            }
            if b.token_delay_ms > 0 {
                tokio::time::sleep(Duration::from_millis(b.token_delay_ms)).await;
            }
        }
        if b.garbage_json {
            return;
        }
        let done = json!({
            "model": model, "created_at": now(),
            "message": {"role": "assistant", "content": ""},
            "done": true, "done_reason": "stop",
            "total_duration": 4_883_583_458u64, "load_duration": 1_334_875u64,
            "prompt_eval_count": 26u64, "prompt_eval_duration": 342_546_000u64,
            "eval_count": parts.len() as u64, "eval_duration": 4_535_599_000u64
        });
        tx.send(Ok(format!("{done}\n").into())).await.ok();
    });
    let body = Body::from_stream(tokio_stream_from(rx));
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/x-ndjson")
        .body(body)
        .expect("response")
}

fn tokio_stream_from(
    mut rx: tokio::sync::mpsc::Receiver<Result<bytes::Bytes, std::io::Error>>,
) -> impl futures_util::Stream<Item = Result<bytes::Bytes, std::io::Error>> {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

// ---------------------------------------------------------------------------------------------
// Model management: blobs, create, pull.
// ---------------------------------------------------------------------------------------------

/// The blob key for a digest as Ollama accepts it (`sha256:<64 hex>` or `sha256-<64 hex>`),
/// normalised to the `sha256:` form; `None` when malformed.
fn blob_key(digest: &str) -> Option<String> {
    let hex = digest
        .strip_prefix("sha256:")
        .or_else(|| digest.strip_prefix("sha256-"))?;
    (hex.len() == 64 && hex.bytes().all(|c| c.is_ascii_hexdigit())).then(|| format!("sha256:{hex}"))
}

/// `name` with `:latest` appended when its last path segment has no tag.
fn full_name(name: &str) -> String {
    let last = name.rsplit('/').next().unwrap_or(name);
    if last.contains(':') {
        name.to_string()
    } else {
        format!("{name}:latest")
    }
}

/// Adds `name` (normalised with [`full_name`]) to the installed models unless already there.
fn install(s: &Shared, name: &str) {
    let full = full_name(name);
    let mut b = s.behaviour.lock().expect("lock");
    if !b.models.iter().any(|m| full_name(m) == full) {
        b.models.push(full);
    }
}

/// The error Ollama reports when it cannot resolve the registry host of `name`.
fn offline_pull_error(name: &str) -> String {
    let full = full_name(name);
    let (path, tag) = full.rsplit_once(':').unwrap_or((&full, "latest"));
    let parts: Vec<&str> = path.split('/').collect();
    let (host, repo) = match parts.len() {
        1 => ("registry.ollama.ai", format!("library/{path}")),
        2 => ("registry.ollama.ai", path.to_string()),
        _ => (parts[0], parts[1..].join("/")),
    };
    let hostname = host.split(':').next().unwrap_or(host);
    format!(
        "pull model manifest: Get \"https://{host}/v2/{repo}/manifests/{tag}\": \
         dial tcp: lookup {hostname}: no such host"
    )
}

/// Parses a JSON request body the way Ollama's handlers do (whatever the content type).
#[allow(clippy::result_large_err)]
fn parse_body<T: DeserializeOwned>(body: &[u8]) -> Result<T, Response> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(error(StatusCode::BAD_REQUEST, "missing request body"));
    }
    serde_json::from_slice(body).map_err(|e| error(StatusCode::BAD_REQUEST, &e.to_string()))
}

async fn head_blob(State(s): State<Arc<Shared>>, Path(digest): Path<String>) -> Response {
    s.calls.blob_checks.fetch_add(1, Ordering::SeqCst);
    if s.behaviour.lock().expect("lock").http_500 {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    }
    let Some(key) = blob_key(&digest) else {
        return error(StatusCode::BAD_REQUEST, "invalid digest format");
    };
    if s.blobs.lock().expect("lock").contains_key(&key) {
        StatusCode::OK.into_response()
    } else {
        error(
            StatusCode::NOT_FOUND,
            &format!("blob \"{digest}\" not found"),
        )
    }
}

async fn create_blob(
    State(s): State<Arc<Shared>>,
    Path(digest): Path<String>,
    body: Body,
) -> Response {
    s.calls.blobs.fetch_add(1, Ordering::SeqCst);
    if s.behaviour.lock().expect("lock").http_500 {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    }
    let Some(key) = blob_key(&digest) else {
        return error(StatusCode::BAD_REQUEST, "invalid digest format");
    };
    let exists = s.blobs.lock().expect("lock").contains_key(&key);
    let mut hasher = Sha256::new();
    let mut magic = Vec::with_capacity(4);
    let mut len = 0u64;
    let mut stream = body.into_data_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = match chunk {
            Ok(c) => c,
            Err(e) => return error(StatusCode::BAD_REQUEST, &e.to_string()),
        };
        if exists {
            // Ollama answers 200 without storing again; the body is drained so the client can
            // finish sending it.
            continue;
        }
        hasher.update(&chunk);
        let want = 4usize.saturating_sub(magic.len()).min(chunk.len());
        magic.extend_from_slice(&chunk[..want]);
        len += chunk.len() as u64;
    }
    if exists {
        return StatusCode::OK.into_response();
    }
    let got = format!("sha256:{}", hex::encode(hasher.finalize()));
    // Ollama compares the computed digest with the path parameter as given.
    if got != digest {
        return error(
            StatusCode::BAD_REQUEST,
            &format!("digest mismatch, expected \"{digest}\", got \"{got}\""),
        );
    }
    s.blobs.lock().expect("lock").insert(
        key,
        Blob {
            digest: got,
            magic,
            len,
        },
    );
    StatusCode::CREATED.into_response()
}

/// One item of a progress stream (`/api/create`, `/api/pull`).
enum Progress {
    /// A status object, sent as one NDJSON line.
    Status(Value),
    /// An error: ends the stream.
    Error(StatusCode, String),
}

fn status(s: &str) -> Progress {
    Progress::Status(json!({ "status": s }))
}

fn ndjson_line(v: &Value) -> bytes::Bytes {
    format!("{v}\n").into()
}

/// Answers a progress stream as Ollama's `streamResponse` / `waitForStream` do: with
/// `stream`, NDJSON lines, where an error before the first line becomes the HTTP status with an
/// error body and a later one a last `{"error":…}` line; without, one JSON object (the last
/// status, or the error with its status).
async fn progress_response(
    mut rx: tokio::sync::mpsc::Receiver<Progress>,
    stream: bool,
) -> Response {
    if !stream {
        let mut last = json!({ "status": "" });
        while let Some(p) = rx.recv().await {
            match p {
                Progress::Status(v) => last = v,
                Progress::Error(code, msg) => return error(code, &msg),
            }
        }
        return Json(last).into_response();
    }
    let first = match rx.recv().await {
        Some(Progress::Status(v)) => Some(ndjson_line(&v)),
        Some(Progress::Error(code, msg)) => return error(code, &msg),
        None => None,
    };
    let mut first = first;
    let mut ended = first.is_none();
    let lines = futures_util::stream::poll_fn(move |cx| {
        if let Some(line) = first.take() {
            return std::task::Poll::Ready(Some(Ok::<_, std::io::Error>(line)));
        }
        if ended {
            return std::task::Poll::Ready(None);
        }
        rx.poll_recv(cx).map(|p| match p {
            Some(Progress::Status(v)) => Some(Ok(ndjson_line(&v))),
            Some(Progress::Error(_, msg)) => {
                ended = true;
                Some(Ok(ndjson_line(&json!({ "error": msg }))))
            }
            None => None,
        })
    });
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "application/x-ndjson")
        .body(Body::from_stream(lines))
        .expect("response")
}

/// Sends `items` into a fresh channel and returns its receiver.
fn progress_of(items: Vec<Progress>) -> tokio::sync::mpsc::Receiver<Progress> {
    let (tx, rx) = tokio::sync::mpsc::channel(items.len().max(1));
    for p in items {
        tx.try_send(p).ok();
    }
    rx
}

#[derive(Deserialize)]
struct CreateRequest {
    #[serde(default)]
    model: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    files: Option<BTreeMap<String, String>>,
    #[serde(default)]
    stream: Option<bool>,
}

async fn create(State(s): State<Arc<Shared>>, body: bytes::Bytes) -> Response {
    s.calls.create.fetch_add(1, Ordering::SeqCst);
    if s.behaviour.lock().expect("lock").http_500 {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    }
    let req: CreateRequest = match parse_body(&body) {
        Ok(r) => r,
        Err(resp) => return resp,
    };
    for (path, digest) in req.files.iter().flatten() {
        if path.is_empty()
            || path == "."
            || path.starts_with('/')
            || path.split('/').any(|c| c == ".." || c.is_empty())
            || path.contains(['\\', ':'])
        {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("file path must be relative: {path}"),
            );
        }
        if blob_key(digest).is_none() {
            return error(
                StatusCode::BAD_REQUEST,
                &format!("invalid digest for {path}: invalid digest format"),
            );
        }
    }
    let name = if req.model.is_empty() {
        req.name.clone()
    } else {
        req.model.clone()
    };
    if name.trim().is_empty() || name.contains(char::is_whitespace) {
        return error(StatusCode::BAD_REQUEST, "invalid model name");
    }
    let stream = req.stream.unwrap_or(true);
    let bad = |msg: String| progress_of(vec![Progress::Error(StatusCode::BAD_REQUEST, msg)]);

    if !req.from.is_empty() {
        // Only a copy of an installed model is supported; anything else would be pulled, which
        // fails as on an Ollama without network access.
        let b = s.behaviour.lock().expect("lock").clone();
        if !installed(&b, &req.from) {
            let items = vec![
                status("pulling manifest"),
                Progress::Error(
                    StatusCode::INTERNAL_SERVER_ERROR,
                    offline_pull_error(&req.from),
                ),
            ];
            return progress_response(progress_of(items), stream).await;
        }
        let layer = format!(
            "sha256:{}",
            hex::encode(Sha256::digest(req.from.as_bytes()))
        );
        install(&s, &name);
        let items = vec![
            status(&format!("using existing layer {layer}")),
            status("writing manifest"),
            status("success"),
        ];
        return progress_response(progress_of(items), stream).await;
    }

    let Some(files) = req.files else {
        return progress_response(
            bad("neither 'from' or 'files' was specified".into()),
            stream,
        )
        .await;
    };
    let looked_up: Result<Vec<(String, Blob)>, String> = {
        let stored = s.blobs.lock().expect("lock");
        files
            .iter()
            .map(|(path, digest)| {
                let key = blob_key(digest).expect("validated above");
                stored
                    .get(&key)
                    .map(|blob| (path.clone(), blob.clone()))
                    .ok_or_else(|| format!("file {digest} not found"))
            })
            .collect()
    };
    let blobs = match looked_up {
        Ok(b) => b,
        Err(msg) => return progress_response(bad(msg), stream).await,
    };
    let is_gguf = blobs
        .iter()
        .any(|(path, blob)| path.ends_with(".gguf") || blob.magic == b"GGUF");
    if !is_gguf {
        // Neither a `.gguf` name nor GGUF magic (an empty `files` too): Ollama's `unknown type`.
        return progress_response(bad("unknown type".into()), stream).await;
    }
    let mut items = Vec::new();
    for (_, blob) in &blobs {
        items.push(status("parsing GGUF"));
        if blob.magic != b"GGUF" {
            items.push(Progress::Error(
                StatusCode::INTERNAL_SERVER_ERROR,
                "invalid file magic".into(),
            ));
            return progress_response(progress_of(items), stream).await;
        }
    }
    for (_, blob) in &blobs {
        items.push(status(&format!("using existing layer {}", blob.digest)));
    }
    items.push(status("writing manifest"));
    items.push(status("success"));
    install(&s, &name);
    progress_response(progress_of(items), stream).await
}

#[derive(Deserialize)]
struct PullRequest {
    #[serde(default)]
    model: String,
    #[serde(default)]
    name: String,
    /// Accepted and ignored (there is no registry to reach).
    #[serde(default)]
    #[allow(dead_code)]
    insecure: bool,
    #[serde(default)]
    stream: Option<bool>,
}

/// Number of progress objects a successful pull sends for its layer (completed 0 … total).
const PULL_STEPS: u64 = 8;

async fn pull(State(s): State<Arc<Shared>>, body: bytes::Bytes) -> Response {
    s.calls.pull.fetch_add(1, Ordering::SeqCst);
    let b = s.behaviour.lock().expect("lock").clone();
    if b.http_500 {
        return error(StatusCode::INTERNAL_SERVER_ERROR, "internal error");
    }
    let req: PullRequest = match parse_body(&body) {
        Ok(r) => r,
        Err(resp) => return resp,
    };
    let name = if req.model.is_empty() {
        req.name
    } else {
        req.model
    };
    if name.trim().is_empty() || name.contains(char::is_whitespace) {
        return error(StatusCode::BAD_REQUEST, "invalid model name");
    }
    let full = full_name(&name);
    let total = b
        .pullable
        .iter()
        .find(|(n, _)| full_name(n) == full)
        .map(|(_, t)| *t);
    let delay = Duration::from_millis(b.pull_chunk_delay_ms);
    let (tx, rx) = tokio::sync::mpsc::channel::<Progress>(4);
    tokio::spawn(async move {
        if tx.send(status("pulling manifest")).await.is_err() {
            return;
        }
        let Some(total) = total else {
            let msg = offline_pull_error(&name);
            tx.send(Progress::Error(StatusCode::INTERNAL_SERVER_ERROR, msg))
                .await
                .ok();
            return;
        };
        let digest = format!("sha256:{}", hex::encode(Sha256::digest(full.as_bytes())));
        for i in 0..=PULL_STEPS {
            if i > 0 && !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let completed = (u128::from(total) * u128::from(i) / u128::from(PULL_STEPS)) as u64;
            let line = json!({
                "status": format!("pulling {}", &digest[7..19]),
                "digest": digest, "total": total, "completed": completed
            });
            if tx.send(Progress::Status(line)).await.is_err() {
                // The client went away: Ollama cancels the pull.
                return;
            }
        }
        for st in ["verifying sha256 digest", "writing manifest"] {
            if tx.send(status(st)).await.is_err() {
                return;
            }
        }
        install(&s, &full);
        tx.send(status("success")).await.ok();
    });
    progress_response(rx, req.stream.unwrap_or(true)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_and_names() {
        let hex = "a".repeat(64);
        assert_eq!(
            blob_key(&format!("sha256:{hex}")),
            Some(format!("sha256:{hex}"))
        );
        assert_eq!(
            blob_key(&format!("sha256-{hex}")),
            Some(format!("sha256:{hex}"))
        );
        assert_eq!(blob_key("sha256:abc"), None);
        assert_eq!(blob_key(&format!("md5:{hex}")), None);
        assert_eq!(full_name("qwen2.5"), "qwen2.5:latest");
        assert_eq!(full_name("qwen2.5:0.5b"), "qwen2.5:0.5b");
        assert_eq!(full_name("localhost:5000/m"), "localhost:5000/m:latest");
        assert_eq!(
            offline_pull_error("llama3.2"),
            "pull model manifest: Get \"https://registry.ollama.ai/v2/library/llama3.2/manifests/latest\": dial tcp: lookup registry.ollama.ai: no such host"
        );
        assert!(offline_pull_error("me/m:q4")
            .contains("https://registry.ollama.ai/v2/me/m/manifests/q4"));
        assert!(offline_pull_error("hf.co/u/m:q4")
            .contains("\"https://hf.co/v2/u/m/manifests/q4\": dial tcp: lookup hf.co:"));
    }

    #[test]
    fn pieces_keep_spaces() {
        assert_eq!(pieces("a bc  d"), vec!["a", " bc", "  d"]);
        assert_eq!(pieces("a bc  d").concat(), "a bc  d");
    }
}
