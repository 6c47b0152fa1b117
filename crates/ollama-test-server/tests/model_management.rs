//! The model-management endpoints: blobs, create, pull.

use ollama_test_server::{Behaviour, TestServer};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

fn digest(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// A tiny file with GGUF magic and version 3.
fn gguf() -> Vec<u8> {
    let mut b = b"GGUF".to_vec();
    b.extend_from_slice(&[3, 0, 0, 0]);
    b.extend_from_slice(&[0; 56]);
    b
}

fn empty_server() -> TestServer {
    TestServer::start(Behaviour {
        models: Vec::new(),
        ..Behaviour::default()
    })
}

fn lines(body: &str) -> Vec<Value> {
    body.lines()
        .map(|l| serde_json::from_str(l).expect("NDJSON line"))
        .collect()
}

async fn upload(c: &reqwest::Client, url: &str, digest: &str, bytes: Vec<u8>) -> (u16, String) {
    let r = c
        .post(format!("{url}/api/blobs/{digest}"))
        .body(bytes)
        .send()
        .await
        .unwrap();
    (r.status().as_u16(), r.text().await.unwrap())
}

async fn head(c: &reqwest::Client, url: &str, digest: &str) -> u16 {
    c.head(format!("{url}/api/blobs/{digest}"))
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

/// POSTs `body` and returns (status, content type, text).
async fn post(c: &reqwest::Client, url: &str, body: Value) -> (u16, String, String) {
    let r = c.post(url).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    let ct = r
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default();
    (status, ct, r.text().await.unwrap())
}

#[tokio::test]
async fn upload_then_create_lists_the_model() {
    let server = empty_server();
    let url = server.url();
    let c = reqwest::Client::new();
    let file = gguf();
    let d = digest(&file);

    assert_eq!(head(&c, &url, &d).await, 404);
    assert_eq!(
        upload(&c, &url, &d, file.clone()).await,
        (201, String::new())
    );
    assert_eq!(head(&c, &url, &d).await, 200);
    assert_eq!(server.blob_len(&d), Some(file.len() as u64));
    // A second upload of a known blob is accepted without storing again.
    assert_eq!(upload(&c, &url, &d, file.clone()).await.0, 200);

    let (status, ct, body) = post(
        &c,
        &format!("{url}/api/create"),
        json!({"model": "tiny", "files": {"tiny.gguf": d}}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(ct, "application/x-ndjson");
    assert_eq!(
        lines(&body),
        vec![
            json!({"status": "parsing GGUF"}),
            json!({"status": format!("using existing layer {d}")}),
            json!({"status": "writing manifest"}),
            json!({"status": "success"}),
        ]
    );
    assert_eq!(server.models(), vec!["tiny:latest".to_string()]);

    let tags: Value = c
        .get(format!("{url}/api/tags"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(tags["models"][0]["name"], "tiny:latest");
    let (status, _, _) = post(&c, &format!("{url}/api/show"), json!({"model": "tiny"})).await;
    assert_eq!(status, 200);
    let (status, _, _) = post(
        &c,
        &format!("{url}/api/chat"),
        json!({"model": "tiny:latest", "messages": [{"role": "user", "content": "hi"}], "stream": false}),
    )
    .await;
    assert_eq!(status, 200);

    // Non-streaming create, with the `name` alias and an explicit tag.
    let (status, ct, body) = post(
        &c,
        &format!("{url}/api/create"),
        json!({"name": "tiny:q4", "files": {"tiny.gguf": d}, "stream": false}),
    )
    .await;
    assert_eq!((status, ct.as_str()), (200, "application/json"));
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"status": "success"})
    );
    assert_eq!(server.models(), vec!["tiny:latest", "tiny:q4"]);
    assert_eq!(server.blob_uploads(), 2);
    assert_eq!(server.blob_checks(), 2);
    assert_eq!(server.create_calls(), 2);
}

#[tokio::test]
async fn bad_uploads_are_refused() {
    let server = empty_server();
    let url = server.url();
    let c = reqwest::Client::new();
    let claimed = digest(b"something else");
    let (status, body) = upload(&c, &url, &claimed, gguf()).await;
    assert_eq!(status, 400);
    let expected = format!(
        "digest mismatch, expected \"{claimed}\", got \"{}\"",
        digest(&gguf())
    );
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({ "error": expected })
    );
    assert_eq!(head(&c, &url, &claimed).await, 404);
    assert_eq!(server.blob_len(&claimed), None);

    let (status, body) = upload(&c, &url, "sha256:1234", gguf()).await;
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"error": "invalid digest format"})
    );
    assert_eq!(head(&c, &url, "md5:1234").await, 400);
}

#[tokio::test]
async fn uploads_beyond_the_default_body_limit_stream_through() {
    let server = empty_server();
    let c = reqwest::Client::new();
    let mut file = gguf();
    file.resize(3 * 1024 * 1024 + 7, 0xab);
    let d = digest(&file);
    assert_eq!(upload(&c, &server.url(), &d, file.clone()).await.0, 201);
    assert_eq!(server.blob_len(&d), Some(file.len() as u64));
}

#[tokio::test]
async fn create_errors() {
    let server = empty_server();
    let url = server.url();
    let c = reqwest::Client::new();
    let create = format!("{url}/api/create");

    // Not GGUF: the stream starts, then ends with Ollama's parse error.
    let text = b"hello, this is not a model".to_vec();
    let d = digest(&text);
    assert_eq!(upload(&c, &url, &d, text).await.0, 201);
    let (status, _, body) = post(
        &c,
        &create,
        json!({"model": "bad", "files": {"model.gguf": d}}),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(
        lines(&body),
        vec![
            json!({"status": "parsing GGUF"}),
            json!({"error": "invalid file magic"})
        ]
    );
    let (status, _, body) = post(
        &c,
        &create,
        json!({"model": "bad", "files": {"model.gguf": d}, "stream": false}),
    )
    .await;
    assert_eq!(status, 500);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({"error": "invalid file magic"})
    );
    // Neither a .gguf name nor GGUF magic.
    let (status, _, body) = post(
        &c,
        &create,
        json!({"model": "bad", "files": {"notes.txt": d}}),
    )
    .await;
    assert_eq!(
        (status, body.as_str()),
        (400, r#"{"error":"unknown type"}"#)
    );

    // A blob that was never uploaded.
    let missing = digest(b"never uploaded");
    let (status, _, body) = post(
        &c,
        &create,
        json!({"model": "bad", "files": {"model.gguf": missing}}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(
        serde_json::from_str::<Value>(&body).unwrap(),
        json!({ "error": format!("file {missing} not found") })
    );

    // No files at all.
    let (status, _, body) = post(&c, &create, json!({"model": "bad"})).await;
    assert_eq!(status, 400);
    assert_eq!(
        body,
        r#"{"error":"neither 'from' or 'files' was specified"}"#
    );
    let (status, _, body) = post(
        &c,
        &create,
        json!({"model": "bad", "files": {"m.gguf": "sha256:zz"}}),
    )
    .await;
    assert_eq!(status, 400);
    assert!(body.contains("invalid digest format"), "{body}");
    let (status, _, body) = post(&c, &create, json!({"files": {}})).await;
    assert_eq!(
        (status, body.as_str()),
        (400, r#"{"error":"invalid model name"}"#)
    );

    assert!(server.models().is_empty());
}

#[tokio::test]
async fn pull_of_a_pullable_model_streams_progress() {
    let server = TestServer::start(Behaviour {
        models: Vec::new(),
        pullable: vec![
            ("qwen2.5:0.5b".into(), 397_821_319),
            ("tinyllama".into(), 100),
        ],
        pull_chunk_delay_ms: 2,
        ..Behaviour::default()
    });
    let url = server.url();
    let c = reqwest::Client::new();
    let (status, ct, body) = post(
        &c,
        &format!("{url}/api/pull"),
        json!({"model": "qwen2.5:0.5b", "insecure": false}),
    )
    .await;
    assert_eq!((status, ct.as_str()), (200, "application/x-ndjson"));
    let ls = lines(&body);
    assert_eq!(ls[0], json!({"status": "pulling manifest"}));
    let n = ls.len();
    assert_eq!(
        ls[n - 3..],
        [
            json!({"status": "verifying sha256 digest"}),
            json!({"status": "writing manifest"}),
            json!({"status": "success"})
        ]
    );
    let progress = &ls[1..n - 3];
    assert!((5..=10).contains(&progress.len()), "{progress:?}");
    let d = progress[0]["digest"].as_str().unwrap().to_string();
    assert!(d.starts_with("sha256:") && d.len() == 71);
    let mut last = None;
    for p in progress {
        assert_eq!(p["status"], format!("pulling {}", &d[7..19]));
        assert_eq!(p["digest"], d);
        assert_eq!(p["total"], 397_821_319u64);
        let k = p["completed"].as_u64().unwrap();
        if let Some(prev) = last {
            assert!(k > prev, "{progress:?}");
        }
        last = Some(k);
    }
    assert_eq!(last, Some(397_821_319));
    assert_eq!(server.models(), vec!["qwen2.5:0.5b"]);

    // Non-streaming, with the `name` alias and an implied `:latest`.
    let (status, _, body) = post(
        &c,
        &format!("{url}/api/pull"),
        json!({"name": "tinyllama:latest", "stream": false}),
    )
    .await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"success"}"#));
    assert_eq!(server.models(), vec!["qwen2.5:0.5b", "tinyllama:latest"]);
    assert_eq!(server.pull_calls(), 2);
}

#[tokio::test]
async fn pull_of_an_unknown_model_fails_as_offline() {
    let server = empty_server();
    let url = server.url();
    let c = reqwest::Client::new();
    let (status, _, body) =
        post(&c, &format!("{url}/api/pull"), json!({"model": "llama3.2"})).await;
    assert_eq!(status, 200);
    let ls = lines(&body);
    assert_eq!(ls.len(), 2);
    assert_eq!(ls[0], json!({"status": "pulling manifest"}));
    let err = ls[1]["error"].as_str().unwrap();
    assert!(err.starts_with("pull model manifest"), "{err}");
    assert_eq!(
        err,
        "pull model manifest: Get \"https://registry.ollama.ai/v2/library/llama3.2/manifests/latest\": dial tcp: lookup registry.ollama.ai: no such host"
    );
    let (status, _, body) = post(
        &c,
        &format!("{url}/api/pull"),
        json!({"model": "llama3.2", "stream": false}),
    )
    .await;
    assert_eq!(status, 500);
    assert!(body.contains("pull model manifest"), "{body}");
    assert!(server.models().is_empty());
}

#[tokio::test]
async fn http_500_applies_to_model_management() {
    let server = TestServer::start(Behaviour {
        http_500: true,
        pullable: vec![("m".into(), 10)],
        ..Behaviour::default()
    });
    let url = server.url();
    let c = reqwest::Client::new();
    let file = gguf();
    let d = digest(&file);
    assert_eq!(head(&c, &url, &d).await, 500);
    assert_eq!(upload(&c, &url, &d, file).await.0, 500);
    let (s1, _, _) = post(
        &c,
        &format!("{url}/api/create"),
        json!({"model": "x", "files": {"x.gguf": d}}),
    )
    .await;
    let (s2, _, _) = post(&c, &format!("{url}/api/pull"), json!({"model": "m"})).await;
    assert_eq!((s1, s2), (500, 500));
    assert_eq!(server.models(), vec!["llama3.2:3b"]);
}
