//! The teacher's view of the class over `vidya serve --classroom`: after two students asked,
//! the teacher reads what each asked (by book, chapter and page; the question the books could
//! not answer; per student and device), as JSON and as CSV, and the answer machines' state;
//! a student gets 403 for all three routes.
//!
//! Students are devices on loopback addresses (127.0.0.7, 127.0.0.8): the server sees other
//! devices (only 127.0.0.1 and ::1 are this machine).

// The test holds `exclusive()` across its awaits on purpose (see serve_roles.rs).
#![allow(clippy::await_holding_lock)]

use crate::common::*;
use ollama_test_server::{Behaviour, TestServer};
use std::io::{BufRead, BufReader};
use std::net::IpAddr;
use std::process::{Child, Stdio};

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

/// `vidya serve --classroom` on loopback with one answer machine, its address and join code
/// read from what it prints.
fn classroom(lib: &std::path::Path, ollama: &str) -> Served {
    let mut child = vidya(lib)
        .args([
            "serve",
            "--classroom",
            "--bind",
            "127.0.0.1",
            "--port",
            "0",
            "--no-embed",
            "--ollama",
            ollama,
        ])
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

/// A device at `ip` that joined the class as `name`.
async fn joined(s: &Served, ip: &str, name: &str) -> reqwest::Client {
    let d = reqwest::Client::builder()
        .local_address(ip.parse::<IpAddr>().unwrap())
        .cookie_store(true)
        .build()
        .unwrap();
    let r = d
        .post(format!("{}/api/join", s.url))
        .json(&serde_json::json!({"code": s.code, "name": name}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    d
}

async fn ask(d: &reqwest::Client, url: &str, q: &str) -> serde_json::Value {
    let r = d
        .post(format!("{url}/api/ask"))
        .json(&serde_json::json!({"question": q, "stream": false, "no_cache": true}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    r.json().await.unwrap()
}

async fn get(d: &reqwest::Client, url: String) -> (u16, serde_json::Value) {
    let r = d.get(url).send().await.unwrap();
    (r.status().as_u16(), r.json().await.unwrap_or_default())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_class_report_is_the_teachers_after_two_students_asked() {
    let _machine = exclusive();
    let lib = library_with_sample();
    let ollama = TestServer::start(Behaviour {
        default_reply: "Chlorophyll absorbs light energy [1].".into(),
        ..Behaviour::default()
    });
    let s = classroom(lib.path(), &ollama.url());
    let asha = joined(&s, "127.0.0.7", "Asha").await;
    let ravi = joined(&s, "127.0.0.8", "Ravi, \"row 2\"").await;
    let a = ask(&asha, &s.url, "What does chlorophyll absorb?").await;
    assert!(a["citations"][0]["book"].is_string(), "{a}");
    // No searchable word: the relevance gate stops it (the books cannot answer it).
    let r = ask(&ravi, &s.url, "?? what is the ??").await;
    assert_eq!(r["status"], "gated", "{r}");

    // Nothing of it for a student.
    for route in [
        "/api/class-report",
        "/api/class-report.csv",
        "/api/class-report?since=class",
        "/api/answer-machines",
    ] {
        let st = asha
            .get(format!("{}{route}", s.url))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(st.as_u16(), 403, "student {route}");
    }

    let teacher = reqwest::Client::new();
    let (st, report) = get(&teacher, format!("{}/api/class-report", s.url)).await;
    assert_eq!(st, 200, "{report}");
    assert_eq!(report["total"], 2, "{report}");
    // Asha's question, under the book, chapter and printed page of its first citation.
    let cited = &a["citations"][0];
    let book = &report["groups"][0];
    assert_eq!(book["book"], cited["book"], "{report}");
    assert_eq!(book["chapters"][0]["chapter"], cited["chapter"]);
    let page = &book["chapters"][0]["pages"][0];
    assert_eq!(page["page_label"], cited["page_label"]);
    assert_eq!(
        page["questions"][0]["question"],
        "What does chlorophyll absorb?"
    );
    assert_eq!(page["questions"][0]["student"], "Asha");
    // Ravi's, which the books could not answer.
    let unanswered = report["unanswered"].as_array().unwrap();
    assert_eq!(unanswered.len(), 1, "{report}");
    assert_eq!(unanswered[0]["student"], "Ravi, \"row 2\"");
    assert_eq!(unanswered[0]["status"], "gated");
    // Per student and device.
    let devices: Vec<(String, String, u64)> = report["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["student"].as_str().unwrap().to_string(),
                d["device"].as_str().unwrap().to_string(),
                d["count"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        devices,
        [
            ("Asha".to_string(), "127.0.0.7".to_string(), 1),
            ("Ravi, \"row 2\"".to_string(), "127.0.0.8".to_string(), 1)
        ]
    );
    // Since the class started: both; from a later time: none; a bad time: 400.
    let (_, this_class) = get(&teacher, format!("{}/api/class-report?since=class", s.url)).await;
    assert_eq!(this_class["total"], 2, "{this_class}");
    let (_, later) = get(
        &teacher,
        format!("{}/api/class-report?since=4102444800", s.url),
    )
    .await;
    assert_eq!(later["total"], 0, "{later}");
    let (st, bad) = get(
        &teacher,
        format!("{}/api/class-report?since=tomorrow", s.url),
    )
    .await;
    assert_eq!(
        (st, bad["error"]["kind"].as_str()),
        (400, Some("bad_option"))
    );

    // The CSV: one row per question, UTF-8 with a byte-order mark, quoted where needed.
    let r = teacher
        .get(format!("{}/api/class-report.csv", s.url))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let kind = r.headers()["content-type"].to_str().unwrap().to_string();
    assert!(kind.starts_with("text/csv"), "{kind}");
    assert_eq!(r.headers()["cache-control"], "no-store");
    let bytes = r.bytes().await.unwrap();
    assert!(bytes.starts_with(b"\xEF\xBB\xBF"), "a byte-order mark");
    let csv = String::from_utf8(bytes[3..].to_vec()).unwrap();
    let rows: Vec<&str> = csv.trim_end().split("\r\n").collect();
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!(
        rows[0],
        "time,student,device,question,status,book,chapter,printed page"
    );
    assert!(
        rows[1].contains(",Asha,127.0.0.7,What does chlorophyll absorb?,"),
        "{csv}"
    );
    assert!(
        rows[2].ends_with(",\"Ravi, \"\"row 2\"\"\",127.0.0.8,?? what is the ??,gated,,,"),
        "{csv}"
    );

    // The answer machines: the one given with --ollama wrote Asha's answer.
    let (st, machines) = get(&teacher, format!("{}/api/answer-machines", s.url)).await;
    assert_eq!(st, 200, "{machines}");
    let list = machines.as_array().unwrap();
    assert_eq!(list.len(), 1, "{machines}");
    assert_eq!(list[0]["up"], true);
    assert!(list[0]["answered"].as_u64().unwrap() >= 1, "{machines}");
    assert!(list[0]["slots"].as_u64().unwrap() >= 1, "{machines}");
}
