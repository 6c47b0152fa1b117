//! A class's answers spread over the lab's answer machines (`vidya serve --ollama A --ollama
//! B`): every machine writes answers, and one that breaks off mid-answer has its questions
//! moved to another, none lost and none answered twice.
//!
//! The machines are scripted Ollama servers that write one answer at a time, as one CPU does
//! (`serial`); the students are devices on loopback addresses (127.0.0.2, …).

#![allow(clippy::await_holding_lock)]

use crate::common::*;
use ollama_test_server::{Behaviour, TestServer};
use std::io::{BufRead, BufReader};
use std::net::IpAddr;
use std::process::{Child, Stdio};
use tokio_stream::StreamExt;

struct Served {
    child: Child,
    url: String,
    code: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `vidya serve --classroom` on loopback with these answer machines.
fn classroom(lib: &std::path::Path, machines: &[String]) -> Served {
    let mut args: Vec<String> = [
        "serve",
        "--classroom",
        "--bind",
        "127.0.0.1",
        "--port",
        "0",
        "--no-embed",
    ]
    .map(String::from)
    .to_vec();
    for m in machines {
        args.push("--ollama".into());
        args.push(m.clone());
    }
    let mut child = vidya(lib)
        .args(&args)
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let (mut url, mut code) = (None, None);
    for line in lines.by_ref() {
        let line = line.unwrap();
        if url.is_none() {
            url = line
                .split_whitespace()
                .find(|w| w.starts_with("http://"))
                .map(String::from);
        }
        if let Some(rest) = line.split("join code ").nth(1) {
            code = Some(rest.chars().take_while(char::is_ascii_digit).collect());
            break;
        }
    }
    std::thread::spawn(move || lines.for_each(drop));
    Served {
        child,
        url: url.expect("the address is printed"),
        code: code.expect("the join code is printed"),
    }
}

/// A student's device at 127.0.0.`n` that joined the class.
async fn student(s: &Served, n: u8) -> reqwest::Client {
    let d = reqwest::Client::builder()
        .local_address(IpAddr::from([127, 0, 0, n]))
        .cookie_store(true)
        .build()
        .unwrap();
    let r = d
        .post(format!("{}/api/join", s.url))
        .json(&serde_json::json!({"code": s.code, "name": format!("student {n}")}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    d
}

/// Asks and reads the event stream to its end: the event names, and the final answer.
async fn ask(d: &reqwest::Client, url: &str, q: &str) -> (Vec<String>, serde_json::Value) {
    let r = d
        .post(format!("{url}/api/ask"))
        .json(&serde_json::json!({"question": q, "no_cache": true}))
        .send()
        .await
        .unwrap();
    let mut stream = r.bytes_stream();
    let (mut buf, mut names, mut last) = (String::new(), Vec::new(), serde_json::Value::Null);
    while let Some(Ok(chunk)) = stream.next().await {
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(cut) = buf.find("\n\n") {
            let block: String = buf.drain(..cut + 2).collect();
            let name = block
                .lines()
                .find_map(|l| l.strip_prefix("event: "))
                .unwrap_or("")
                .to_string();
            if name == "answer" {
                last = block
                    .lines()
                    .find_map(|l| l.strip_prefix("data: "))
                    .and_then(|d| serde_json::from_str(d).ok())
                    .unwrap_or_default();
            }
            names.push(name);
        }
    }
    (names, last)
}

/// Every device asks `q` at once: each one's events and final answer.
async fn all_ask(
    devices: &[reqwest::Client],
    url: &str,
    q: &str,
) -> Vec<(Vec<String>, serde_json::Value)> {
    let tasks: Vec<_> = devices
        .iter()
        .map(|d| {
            let (d, url, q) = (d.clone(), url.to_string(), q.to_string());
            tokio::spawn(async move { ask(&d, &url, &q).await })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.unwrap());
    }
    out
}

/// Guiding questions: shown as soon as each is written (they are not statements the check
/// must find in the book), so the answers are the model's own.
const REPLY: &str = "Which pigment absorbs the light? What colour does the plant reflect?";

fn machine(delay_ms: u64) -> TestServer {
    TestServer::start(Behaviour {
        default_reply: REPLY.into(),
        token_delay_ms: delay_ms,
        serial: true,
        ..Behaviour::default()
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_answer_machine_writes_and_a_failed_one_hands_its_questions_on() {
    let _machine = exclusive();
    let lib = library_with_sample();
    let (a, b) = (machine(60), machine(60));
    let s = classroom(lib.path(), &[a.url(), b.url()]);
    let health: serde_json::Value = reqwest::get(format!("{}/health", s.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["answer_machines"], 2, "{health}");

    // Four students at once: both machines write.
    let mut devices = Vec::new();
    for n in 2..6 {
        devices.push(student(&s, n).await);
    }
    let answers = all_ask(&devices, &s.url, "what does chlorophyll absorb").await;
    for (names, last) in &answers {
        assert_eq!(
            names.last().map(String::as_str),
            Some("answer"),
            "{names:?}"
        );
        assert_eq!(last["status"], "answered", "{last}");
    }
    let (on_a, on_b) = (a.chat_calls(), b.chat_calls());
    assert!(
        on_a >= 1 && on_b >= 1,
        "both machines answered: {on_a} and {on_b}"
    );

    // Machine a breaks off after two words from now on: its questions move to b, each
    // answered once (the student saw the words void with `restart`), none lost.
    a.set(Behaviour {
        default_reply: REPLY.into(),
        token_delay_ms: 60,
        serial: true,
        disconnect_after_tokens: Some(2),
        ..Behaviour::default()
    });
    let answers = all_ask(&devices, &s.url, "why do plants look green").await;
    let mut moved = 0;
    for (names, last) in &answers {
        assert_eq!(
            names.last().map(String::as_str),
            Some("answer"),
            "{names:?}"
        );
        assert_eq!(last["status"], "answered", "not lost: {last}");
        assert_eq!(
            names.iter().filter(|n| *n == "answer").count(),
            1,
            "answered once"
        );
        moved += names.iter().filter(|n| *n == "restart").count();
    }
    assert!(
        moved >= 1,
        "at least one question was on the failing machine"
    );
    let health: serde_json::Value = reqwest::get(format!("{}/health", s.url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["answer_machines_up"], 1, "a is set aside: {health}");
}
