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
#![warn(missing_docs)]

use axum::body::Body;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, head, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

mod models;
use models::{blob_key, create, create_blob, head_blob, pull};

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
    /// Write one answer at a time, as one CPU does: a chat request waits for the one before
    /// it to end (its tokens delayed, not interleaved).
    pub serial: bool,
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
            serial: false,
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
    /// Held while a chat answer streams, when [`Behaviour::serial`].
    writing: Arc<tokio::sync::Mutex<()>>,
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
            writing: Arc::new(tokio::sync::Mutex::new(())),
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
    let writing = s.writing.clone();
    tokio::spawn(async move {
        // One answer at a time: held until this answer's stream ends (or its client leaves).
        let _one = if b.serial {
            Some(writing.lock_owned().await)
        } else {
            None
        };
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_keep_spaces() {
        assert_eq!(pieces("a bc  d"), vec!["a", " bc", "  d"]);
        assert_eq!(pieces("a bc  d").concat(), "a bc  d");
    }
}
