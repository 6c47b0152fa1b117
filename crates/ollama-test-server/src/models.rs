//! The model-management endpoints a first-run setup wizard uses (see the crate docs): blobs
//! (`HEAD`/`POST /api/blobs/:digest`), `POST /api/create` and `POST /api/pull`, with Ollama's
//! NDJSON progress lines and error bodies.

use super::{error, installed, Blob, Shared};
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

/// The blob key for a digest as Ollama accepts it (`sha256:<64 hex>` or `sha256-<64 hex>`),
/// normalised to the `sha256:` form; `None` when malformed.
pub(crate) fn blob_key(digest: &str) -> Option<String> {
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

pub(crate) async fn head_blob(
    State(s): State<Arc<Shared>>,
    Path(digest): Path<String>,
) -> Response {
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

pub(crate) async fn create_blob(
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

pub(crate) async fn create(State(s): State<Arc<Shared>>, body: bytes::Bytes) -> Response {
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

pub(crate) async fn pull(State(s): State<Arc<Shared>>, body: bytes::Bytes) -> Response {
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
}
