//! `vidya serve` over real HTTP: health, upload-and-ingest with progress events, books, stats,
//! questions answered as JSON (the same object as `vidya ask --json`) and as a stream of
//! server-sent events from the Ollama test server, and the errors a client can cause.

use crate::common::*;
use ollama_test_server::{Behaviour, TestServer};
use std::io::{BufRead, BufReader};
use std::process::{Child, Stdio};

/// A running `vidya serve` on a free port, stopped when dropped.
struct Served {
    child: Child,
    url: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(lib: &std::path::Path, ollama: &str) -> Served {
    let mut child = vidya(lib)
        .args(["serve", "--port", "0", "--no-embed", "--ollama", ollama])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    Served { child, url }
}

/// Server-sent events of a finished stream: `(event, data as JSON)`.
fn events(body: &str) -> Vec<(String, serde_json::Value)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut name = None;
            let mut data = None;
            for l in block.lines() {
                if let Some(v) = l.strip_prefix("event: ") {
                    name = Some(v.to_string());
                } else if let Some(v) = l.strip_prefix("data: ") {
                    data = serde_json::from_str(v).ok();
                }
            }
            Some((name?, data?))
        })
        .collect()
}

const Q: &str = "What happens in the light-dependent reactions of photosynthesis?";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_http_api_ingests_answers_and_explains_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path();
    let ollama = TestServer::start(Behaviour {
        default_reply:
            "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1].".into(),
        token_delay_ms: 5,
        ..Behaviour::default()
    });
    let s = serve(lib, &ollama.url());
    let http = reqwest::Client::new();

    let (_, h) = get_json(&http, format!("{}/health", s.url)).await;
    assert_eq!(
        (h["status"].as_str(), h["books"].as_i64()),
        (Some("ok"), Some(0))
    );
    assert!(
        h.get("updating").is_some_and(serde_json::Value::is_null),
        "no vectors are being made again: {h}"
    );

    // A question before any book: a clear error, not a crash.
    let r = http
        .post(format!("{}/api/ask", s.url))
        .json(&serde_json::json!({"question": Q, "stream": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    let e: serde_json::Value = r.json().await.unwrap();
    assert!(
        ["no_library", "empty_library"].contains(&e["error"]["kind"].as_str().unwrap()),
        "{e}"
    );

    // Upload a chapter as a browser does (the file's bytes as the body) and follow its progress.
    let pdf = std::fs::read(fixtures().join("biology2e/ch08.pdf")).unwrap();
    let body = post_text(&http, format!("{}/api/ingest?name=ch08.pdf", s.url), pdf).await;
    let ev = events(&body);
    // The book's percent only grows, from reading the pages to saving.
    let percents: Vec<u64> = ev
        .iter()
        .filter(|(n, _)| n == "progress")
        .map(|(_, d)| d["percent"].as_u64().unwrap())
        .collect();
    assert!(percents.len() > 5, "{body}");
    assert!(percents.windows(2).all(|w| w[0] <= w[1]), "{percents:?}");
    assert!(*percents.last().unwrap() >= 95, "{percents:?}");
    assert!(ev
        .iter()
        .any(|(n, d)| n == "progress" && d["stage"] == "reading"));
    let book = &ev.iter().find(|(n, _)| n == "book").expect(&body).1;
    assert!(book["chunks"].as_u64().unwrap() > 10, "{book}");
    assert_eq!(ev.last().unwrap().0, "done");
    assert!(lib.join("uploads/ch08.pdf").is_file());

    // Another file with the same name does not replace the first one.
    let other = std::fs::read(fixtures().join("biology2e/ch07.pdf")).unwrap();
    let body = post_text(&http, format!("{}/api/ingest?name=ch08.pdf", s.url), other).await;
    assert!(events(&body).iter().any(|(n, _)| n == "book"), "{body}");
    assert!(lib.join("uploads/ch08 (2).pdf").is_file());
    assert_eq!(
        std::fs::read(lib.join("uploads/ch08.pdf")).unwrap(),
        std::fs::read(fixtures().join("biology2e/ch08.pdf")).unwrap()
    );

    let (_, books) = get_json(&http, format!("{}/api/books", s.url)).await;
    assert_eq!(books.as_array().unwrap().len(), 2, "{books}");

    // Streamed answer: token events as the model writes, then the whole answer.
    let body = post_text(
        &http,
        format!("{}/api/ask", s.url),
        serde_json::to_vec(&serde_json::json!({"question": Q})).unwrap(),
    )
    .await;
    let ev = events(&body);
    let tokens: String = ev
        .iter()
        .filter(|(n, _)| n == "token")
        .map(|(_, d)| d["text"].as_str().unwrap().to_string())
        .collect();
    assert!(tokens.contains("chlorophyll absorbs"), "{body}");
    let (last, answer) = ev.last().unwrap();
    assert_eq!(last, "answer", "{body}");
    assert_eq!(answer["status"], "answered", "{answer}");
    assert!(!answer["citations"].as_array().unwrap().is_empty());

    // Not streamed: the object `vidya ask --json` prints, key for key.
    let (_, r) = post_json(
        &http,
        format!("{}/api/ask", s.url),
        &serde_json::json!({"question": Q, "stream": false, "no_cache": true}),
    )
    .await;
    let cli = json(
        lib,
        &["ask", Q, "--json", "--host", &ollama.url(), "--no-cache"],
    );
    let keys = |v: &serde_json::Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&r), keys(&cli));
    assert_eq!(r["status"], "answered");

    // Errors a client can cause, each with a kind and words that say what to do.
    for (body, kind) in [
        (
            serde_json::json!({"question": "   ", "stream": false}),
            "empty_question",
        ),
        (
            serde_json::json!({"question": Q, "mode": "essay", "stream": false}),
            "bad_option",
        ),
        (serde_json::json!({"questio": Q}), "bad_option"),
    ] {
        let r = http
            .post(format!("{}/api/ask", s.url))
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{body}");
        let e: serde_json::Value = r.json().await.unwrap();
        assert_eq!(e["error"]["kind"], kind, "{e}");
    }
    let r = http
        .post(format!("{}/api/ingest", s.url))
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let body = post_text(
        &http,
        format!("{}/api/ingest?name=notes.pdf", s.url),
        "this is not a PDF",
    )
    .await;
    let ev = events(&body);
    let err = &ev.iter().find(|(n, _)| n == "error").expect(&body).1;
    assert_eq!(err["file"], "notes.pdf", "{err}");
    assert!(!err["message"].as_str().unwrap().is_empty());
    assert!(
        !lib.join("uploads/notes.pdf").exists(),
        "a refused upload is not kept"
    );

    // `curl -d` sends form encoding: the JSON is read anyway.
    let r = http
        .post(format!("{}/api/ask", s.url))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .body(serde_json::json!({"question": Q, "stream": false}).to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    // Unknown API paths, the bare prefix included, answer 404 in JSON (not the interface's
    // file server).
    for path in ["/api/nope", "/api/", "/api"] {
        let r = http.get(format!("{}{path}", s.url)).send().await.unwrap();
        assert_eq!(r.status(), 404, "{path}");
        let e: serde_json::Value = r.json().await.unwrap();
        assert_eq!(e["error"]["kind"], "not_found", "{path}: {e}");
    }

    let (_, st) = get_json(&http, format!("{}/api/stats", s.url)).await;
    assert_eq!(st["books"], 2, "{st}");
    assert!(st["questions"].as_i64().unwrap() >= 2, "{st}");
}

/// POSTs `body` as JSON; the status and the JSON answer.
async fn post_json(
    http: &reqwest::Client,
    url: String,
    body: &serde_json::Value,
) -> (u16, serde_json::Value) {
    let r = http.post(url).json(body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or_default())
}

/// POSTs `body` and reads the whole answer as text (an event stream ends when the work does).
async fn post_text(http: &reqwest::Client, url: String, body: impl Into<reqwest::Body>) -> String {
    http.post(url)
        .body(body)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// GETs `url`; the status and the JSON answer.
async fn get_json(http: &reqwest::Client, url: String) -> (u16, serde_json::Value) {
    let r = http.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_app_routes_serve_the_interface_settings_conversations_and_pages() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path();
    // The reply restates the first quote, which every budget keeps.
    let ollama = TestServer::start(Behaviour {
        default_reply: "Photosynthesis takes place in two stages: the light-dependent reactions and the light-independent reactions [1].".into(),
        ..Behaviour::default()
    });
    let ch08 = fixtures().join("biology2e/ch08.pdf");
    ok(&run(lib, &["ingest", ch08.to_str().unwrap(), "--no-embed"]));
    let s = serve(lib, &ollama.url());
    let http = reqwest::Client::new();

    // The browser interface, under a strict Content-Security-Policy.
    let r = http.get(format!("{}/", s.url)).send().await.unwrap();
    assert_eq!(r.status(), 200);
    let csp = r.headers()["content-security-policy"]
        .to_str()
        .unwrap()
        .to_string();
    assert!(
        csp.contains("script-src 'self'") && csp.contains("object-src 'none'"),
        "{csp}"
    );
    assert!(r.text().await.unwrap().contains("js/main.js"));
    let r = http
        .get(format!("{}/i18n/hi.json", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);

    // Another web site cannot drive the API: a foreign Origin, or a rebinding Host.
    let r = http
        .post(format!("{}/api/ask", s.url))
        .header("Origin", "http://evil.example")
        .json(&serde_json::json!({"question": Q, "stream": false}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);
    let r = http
        .get(format!("{}/api/books", s.url))
        .header("Host", "evil.example:8765")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 403);

    // Settings: read, refuse a bad value in words, save; the answer model follows them.
    let (st, settings) = get_json(&http, format!("{}/api/settings", s.url)).await;
    assert_eq!(st, 200);
    assert_eq!(
        settings["ollama_host"],
        ollama.url().as_str(),
        "--ollama is in effect"
    );
    let mut bad = settings.clone();
    bad["ollama_host"] = "not a url".into();
    let r = http
        .put(format!("{}/api/settings", s.url))
        .json(&bad)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let e: serde_json::Value = r.json().await.unwrap();
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("http://127.0.0.1:11434"),
        "{e}"
    );
    let mut fast = settings.clone();
    fast["budget"] = "fast".into();
    fast["language"] = "en".into();
    let r = http
        .put(format!("{}/api/settings", s.url))
        .json(&fast)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(lib.join("settings.json").is_file());

    // A question: with the fast preset at most 2 sources; each names its book and page.
    let (_, a) = post_json(
        &http,
        format!("{}/api/ask", s.url),
        &serde_json::json!({"question": Q, "stream": false}),
    )
    .await;
    assert_eq!(a["status"], "answered", "{a}");
    let cites = a["citations"].as_array().unwrap();
    assert!(!cites.is_empty() && cites.len() <= 2, "{a}");
    assert!(
        a["page_tokens"].as_u64().unwrap() > a["context_tokens"].as_u64().unwrap(),
        "{a}"
    );
    let c = &cites[0];
    assert_eq!(c["book_id"], 1);

    // The cited page as PNG, with the quote highlighted.
    let r = http
        .post(format!("{}/api/page-image", s.url))
        .json(&serde_json::json!({"book_id": c["book_id"], "page": c["page"], "highlight": [c["text"]], "width": 400}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "image/png");
    let png = r.bytes().await.unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    let r = http
        .post(format!("{}/api/page-image", s.url))
        .json(&serde_json::json!({"book_id": 1, "page": 999}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);

    // The dashboard's figures (from the stored turns).
    let (_, stats) = get_json(&http, format!("{}/api/stats", s.url)).await;
    assert!(
        stats["tokens_full_pages"].as_i64().unwrap() > stats["tokens_sent"].as_i64().unwrap(),
        "{stats}"
    );
    assert!(
        stats["stage_median_ms"]["retrieve"].as_f64().is_some(),
        "{stats}"
    );
    assert_eq!(stats["recent"].as_array().unwrap().len(), 1);

    // Conversations: listed, read back, deleted.
    let (_, list) = get_json(&http, format!("{}/api/conversations", s.url)).await;
    let id = list[0]["id"].as_i64().unwrap();
    assert_eq!(a["conversation_id"], id);
    let (st, turns) = get_json(&http, format!("{}/api/conversations/{id}", s.url)).await;
    assert_eq!((st, turns[0]["question"].as_str()), (200, Some(Q)));
    let r = http
        .delete(format!("{}/api/conversations/{id}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (st, e) = get_json(&http, format!("{}/api/conversations/{id}", s.url)).await;
    assert_eq!(
        (st, e["error"]["kind"].as_str()),
        (404, Some("no_such_conversation"))
    );

    // Re-index reads the book again and replaces it; delete removes it.
    let body = post_text(&http, format!("{}/api/books/1/reindex", s.url), Vec::new()).await;
    let ev = events(&body);
    let book = &ev.iter().find(|(n, _)| n == "book").expect(&body).1;
    assert_eq!(book["already_present"], false, "{body}");
    let (_, books) = get_json(&http, format!("{}/api/books", s.url)).await;
    assert_eq!(books.as_array().unwrap().len(), 1, "{books}");
    let new_id = books[0]["id"].as_i64().unwrap();
    assert_eq!(
        new_id, 1,
        "a re-indexed book keeps its id: stored citations still work"
    );
    assert!(
        books[0]["warnings"].as_array().unwrap().is_empty(),
        "{books}"
    );
    let r = http
        .delete(format!("{}/api/books/{new_id}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let (_, books) = get_json(&http, format!("{}/api/books", s.url)).await;
    assert!(books.as_array().unwrap().is_empty());
    let r = http
        .delete(format!("{}/api/books/{new_id}", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    // axum's own rejections use the API's error shape too.
    let r = http
        .delete(format!("{}/api/books/abc", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 400);
    let e: serde_json::Value = r.json().await.unwrap();
    assert_eq!(e["error"]["kind"], "bad_request", "{e}");
    let r: serde_json::Value = http
        .post(format!("{}/api/ingest/cancel", s.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(r["cancelled"], false, "no ingest runs");
    // Last, on its own connection: the server closes a connection whose body it refused.
    let r = reqwest::Client::new()
        .post(format!("{}/api/ask", s.url))
        .body(vec![b' '; (1 << 20) + 1])
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 413);
    let e: serde_json::Value = r.json().await.unwrap();
    assert_eq!(e["error"]["kind"], "too_large", "{e}");
}

/// Ctrl-C while `vidya serve` makes an earlier version's vectors again at start-up: it stops
/// then, not when the refresh would have ended, keeps what it embedded (the next start goes on
/// from there) and says it stopped.
#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_during_the_start_up_refresh_stops_serve_and_keeps_its_work() {
    if crate::support::installed_models().is_none() {
        eprintln!("skipped: run `cargo xtask setup --models` first");
        return;
    }
    let dir = library_with_sample();
    let lib = dir.path();
    let db = stale_vectors(lib);
    let chunks = stale_count(&db);
    let mut child = vidya(lib)
        .args(["serve", "--port", "0", "--ollama", "http://127.0.0.1:9"])
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    said.read_line(&mut line).unwrap();
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let http = reqwest::Client::new();
    // Wait until the refresh has embedded something (the page's progress notice).
    let mut polls = 0;
    loop {
        let (_, health) = get_json(&http, format!("{url}/health")).await;
        if health["updating"]["done"].as_u64().is_some_and(|d| d > 0) {
            break;
        }
        polls += 1;
        assert!(polls < 2400, "the refresh never started: {health}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    // SAFETY: kill(2) on our own child's pid, which has not been waited for yet.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = tokio::task::spawn_blocking(move || child.wait().unwrap())
        .await
        .unwrap();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut said, &mut rest).unwrap();
    assert!(status.success(), "{status}: {rest}");
    assert!(rest.contains("Vidya stopped serving"), "{rest}");
    assert!(!rest.contains("Updated the search of"), "{rest}");
    let left = stale_count(&db);
    assert!(
        0 < left && left < chunks,
        "stopped part-way, keeping its work: {left} of {chunks} stale"
    );
}
