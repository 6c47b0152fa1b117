//! Who may call what in `vidya serve`: every route of the role table walked as an anonymous
//! device, a joined student and the teacher; the refusal of an open `--bind` without
//! classroom mode; join-code brute force; one student's conversation hidden from another;
//! a cross-origin page; ending the class.
//!
//! Other devices are simulated over loopback: the client's socket is bound to 127.0.0.2,
//! 127.0.0.3, … so the server sees another address (only 127.0.0.1 and ::1 are this machine).

// Each test holds `exclusive()` for its whole run, across its awaits on purpose: it keeps the
// real model's tests off the machine while these wait on a server (one runtime per test, so no
// task of this test waits on the lock it holds).
#![allow(clippy::await_holding_lock)]

use crate::common::*;
use ollama_test_server::{Behaviour, TestServer};
use std::io::{BufRead, BufReader};
use std::net::IpAddr;
use std::process::{Child, Stdio};
use vidya_core::app::roles::{Role, ROUTES};

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

/// `vidya serve --classroom` on loopback (so the test opens nothing to the network), with
/// the join code read from what it prints.
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
    // Keep reading so the server never blocks on a full pipe.
    std::thread::spawn(move || lines.for_each(drop));
    let code: String = code.expect("the join code is printed");
    assert_eq!(code.len(), 6, "{code}");
    Served {
        child,
        url: url.expect("the address is printed"),
        code,
    }
}

/// A client whose requests come from `ip` (keeps cookies).
fn device(ip: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .local_address(ip.parse::<IpAddr>().unwrap())
        .cookie_store(true)
        .build()
        .unwrap()
}

/// A device at `ip` that joined the class as `name` (its session cookie kept).
async fn joined(ip: &str, s: &Served, name: &str) -> reqwest::Client {
    let d = device(ip);
    let (st, body) = post(
        &d,
        format!("{}/api/join", s.url),
        serde_json::json!({"code": s.code, "name": name}),
    )
    .await;
    assert_eq!(st, 200, "{body}");
    d
}

async fn send(http: &reqwest::Client, method: &str, url: &str, body: &str) -> u16 {
    let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = http.request(m, url);
    if method != "GET" && method != "DELETE" {
        req = req
            .header("Content-Type", "application/json")
            .body(body.to_string());
    }
    req.send().await.unwrap().status().as_u16()
}

async fn post(
    http: &reqwest::Client,
    url: String,
    body: serde_json::Value,
) -> (u16, serde_json::Value) {
    let r = http.post(url).json(&body).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or_default())
}

async fn get(http: &reqwest::Client, url: String) -> (u16, serde_json::Value) {
    let r = http.get(url).send().await.unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or_default())
}

/// Asks a quick question (no model) from `d` until its earlier question has ended (it is
/// refused `one_at_a_time` meanwhile), for at most `secs` seconds: the last status and body.
async fn ask_when_free_within(
    d: &reqwest::Client,
    url: &str,
    secs: u64,
) -> (u16, serde_json::Value) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    loop {
        let (st, body) = post(
            d,
            format!("{url}/api/ask"),
            serde_json::json!({"question": "what is chlorophyll", "stream": false, "no_llm": true}),
        )
        .await;
        if body["error"]["kind"] != "one_at_a_time" || std::time::Instant::now() > deadline {
            return (st, body);
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
}

#[test]
fn an_open_bind_without_classroom_mode_is_refused() {
    let _machine = exclusive();
    let tmp = tempfile::tempdir().unwrap();
    let o = run(tmp.path(), &["serve", "--bind", "0.0.0.0", "--port", "0"]);
    assert!(!o.status.success());
    let e = stderr(&o);
    assert!(
        e.contains("--classroom") && e.contains("every device"),
        "{e}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_route_answers_only_the_roles_it_declares() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    let ollama = TestServer::start(Behaviour {
        default_reply: "Chlorophyll absorbs light energy [1].".into(),
        ..Behaviour::default()
    });
    let s = classroom(tmp.path(), &ollama.url());
    let anonymous = device("127.0.0.2");
    let student = device("127.0.0.3");
    let (st, joined) = post(
        &student,
        format!("{}/api/join", s.url),
        serde_json::json!({"code": s.code, "name": "Asha's phone"}),
    )
    .await;
    assert_eq!(
        (st, joined["role"].as_str()),
        (200, Some("student")),
        "{joined}"
    );
    let (_, me) = get(&student, format!("{}/api/session", s.url)).await;
    assert_eq!(me["name"], "Asha's phone");
    let (_, who) = get(&anonymous, format!("{}/api/session", s.url)).await;
    assert_eq!(who["role"], "none");

    // Leaving ends the student's session: walked last.
    let mut walk: Vec<_> = ROUTES.iter().collect();
    walk.sort_by_key(|(_, p, _)| *p == "/api/leave");
    for (method, pattern, role) in walk {
        // A book and a conversation that do not exist: nothing is changed by the walk.
        let url = format!("{}{}", s.url, pattern.replace("{id}", "987654"));
        let a = send(&anonymous, method, &url, "{}").await;
        let st = send(&student, method, &url, "{}").await;
        match role {
            Role::Teacher => {
                assert_eq!(a, 403, "anonymous {method} {pattern}");
                assert_eq!(st, 403, "student {method} {pattern}");
            }
            Role::Student => {
                assert_eq!(a, 401, "anonymous {method} {pattern}");
                assert!(st != 401 && st != 403, "student {method} {pattern}: {st}");
            }
            Role::Anyone => {
                assert!(a != 401 && a != 403, "anonymous {method} {pattern}: {a}");
            }
        }
    }
    // The teacher (this machine) reads every teacher page; the walk above changed nothing.
    let teacher = reqwest::Client::new();
    for (method, pattern, _) in ROUTES
        .iter()
        .filter(|(m, p, _)| *m == "GET" && !p.contains('{'))
    {
        let st = send(&teacher, method, &format!("{}{pattern}", s.url), "").await;
        assert_eq!(st, 200, "teacher {method} {pattern}");
    }
    let (_, books) = get(&teacher, format!("{}/api/books", s.url)).await;
    assert_eq!(books.as_array().map(Vec::len), Some(1));

    // The attacks of the report that opened this: settings and books from another device.
    let hostile = r#"{"ollama_host": "http://203.0.113.9:11434"}"#;
    assert_eq!(
        send(
            &anonymous,
            "PUT",
            &format!("{}/api/settings", s.url),
            hostile
        )
        .await,
        403
    );
    assert_eq!(
        send(&student, "PUT", &format!("{}/api/settings", s.url), hostile).await,
        403
    );
    let book = books[0]["id"].as_i64().unwrap();
    assert_eq!(
        send(
            &student,
            "DELETE",
            &format!("{}/api/books/{book}", s.url),
            ""
        )
        .await,
        403
    );
    let (_, after) = get(&teacher, format!("{}/api/settings", s.url)).await;
    assert_ne!(after["ollama_host"], "http://203.0.113.9:11434");
    let (_, books) = get(&teacher, format!("{}/api/books", s.url)).await;
    assert_eq!(
        books.as_array().map(Vec::len),
        Some(1),
        "the book is still there"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn students_see_only_their_own_conversations_and_the_class_can_end() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    let ollama = TestServer::start(Behaviour {
        default_reply: "Chlorophyll absorbs light energy [1].".into(),
        ..Behaviour::default()
    });
    let s = classroom(tmp.path(), &ollama.url());
    let asha = joined("127.0.0.5", &s, "Asha").await;
    let ravi = joined("127.0.0.6", &s, "Ravi").await;
    let (st, a) = post(
        &asha,
        format!("{}/api/ask", s.url),
        serde_json::json!({"question": "What does chlorophyll absorb?", "stream": false, "no_cache": true}),
    )
    .await;
    assert_eq!(st, 200, "{a}");
    let id = a["conversation_id"].as_i64().expect("a conversation");
    let (st, turns) = get(&asha, format!("{}/api/conversations/{id}", s.url)).await;
    assert_eq!(st, 200);
    assert!(turns.as_array().is_some_and(|t| !t.is_empty()));
    let (_, mine) = get(&asha, format!("{}/api/conversations", s.url)).await;
    assert_eq!(mine.as_array().map(Vec::len), Some(1));
    // Ravi cannot read, continue or delete it, nor see it listed.
    let (st, _) = get(&ravi, format!("{}/api/conversations/{id}", s.url)).await;
    assert_eq!(st, 404);
    let (_, his) = get(&ravi, format!("{}/api/conversations", s.url)).await;
    assert_eq!(his.as_array().map(Vec::len), Some(0));
    let (st, _) = post(
        &ravi,
        format!("{}/api/ask", s.url),
        serde_json::json!({"question": "and why?", "conversation": id, "stream": false}),
    )
    .await;
    assert_eq!(st, 404);
    assert_eq!(
        send(
            &ravi,
            "DELETE",
            &format!("{}/api/conversations/{id}", s.url),
            ""
        )
        .await,
        404
    );
    // The teacher sees both devices and every conversation.
    let teacher = reqwest::Client::new();
    let (_, class) = get(&teacher, format!("{}/api/classroom", s.url)).await;
    let names: Vec<&str> = class["students"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(names, ["Asha", "Ravi"]);
    assert_eq!(class["code"], s.code.as_str());
    assert!(class["qr_svg"].as_str().is_some_and(|q| q.contains("<svg")));
    assert!(
        class["questions_per_minute"]
            .as_u64()
            .is_some_and(|n| n >= 1),
        "Asha's question counts: {class}"
    );
    let (_, all) = get(&teacher, format!("{}/api/conversations", s.url)).await;
    assert_eq!(all.as_array().map(Vec::len), Some(1));
    // The teacher ends the class: both students are told, and the old code stops working.
    let (st, _) = post(
        &teacher,
        format!("{}/api/classroom/end", s.url),
        serde_json::json!({}),
    )
    .await;
    assert_eq!(st, 200);
    for d in [&asha, &ravi] {
        let (st, e) = post(
            d,
            format!("{}/api/ask", s.url),
            serde_json::json!({"question": "what is light?"}),
        )
        .await;
        assert_eq!(
            (st, e["error"]["kind"].as_str()),
            (401, Some("class_ended"))
        );
    }
    let (st, _) = post(
        &asha,
        format!("{}/api/join", s.url),
        serde_json::json!({"code": s.code, "name": "Asha"}),
    )
    .await;
    assert_eq!(st, 404, "no class is running");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessing_the_code_is_stopped_and_other_sites_are_refused() {
    let _machine = exclusive();
    let tmp = tempfile::tempdir().unwrap();
    let ollama = TestServer::start(Behaviour::default());
    let s = classroom(tmp.path(), &ollama.url());
    let guesser = device("127.0.0.7");
    let wrong = if s.code == "000000" {
        "000001"
    } else {
        "000000"
    };
    let mut statuses = Vec::new();
    for _ in 0..7 {
        let (st, _) = post(
            &guesser,
            format!("{}/api/join", s.url),
            serde_json::json!({"code": wrong, "name": "x"}),
        )
        .await;
        statuses.push(st);
    }
    assert_eq!(statuses, [403, 403, 403, 403, 403, 429, 429]);
    // Locked out: even the right code must wait; another device is not affected.
    let (st, e) = post(
        &guesser,
        format!("{}/api/join", s.url),
        serde_json::json!({"code": s.code, "name": "x"}),
    )
    .await;
    assert_eq!((st, e["error"]["kind"].as_str()), (429, Some("locked")));
    let (st, _) = post(
        &device("127.0.0.8"),
        format!("{}/api/join", s.url),
        serde_json::json!({"code": s.code, "name": "y"}),
    )
    .await;
    assert_eq!(st, 200);
    // A page of another origin cannot drive the API, not even from this machine; nor can a
    // request that names another host (DNS rebinding).
    let teacher = reqwest::Client::new();
    let r = teacher
        .post(format!("{}/api/classroom/start", s.url))
        .header("Origin", "http://evil.example")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
    let r = device("127.0.0.9")
        .post(format!("{}/api/join", s.url))
        .header("Host", "evil.example")
        .json(&serde_json::json!({"code": s.code, "name": "z"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 403);
}

/// Reads a server-sent event stream until `stop(event, data)` says so or it ends; returns the
/// events seen.
async fn read_events(
    res: reqwest::Response,
    mut stop: impl FnMut(&str, &serde_json::Value) -> bool,
) -> Vec<(String, serde_json::Value)> {
    use tokio_stream::StreamExt;
    let mut stream = res.bytes_stream();
    let (mut buf, mut out) = (String::new(), Vec::new());
    while let Some(Ok(chunk)) = stream.next().await {
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(cut) = buf.find("\n\n") {
            let block: String = buf.drain(..cut + 2).collect();
            let name = block
                .lines()
                .find_map(|l| l.strip_prefix("event: "))
                .unwrap_or("");
            let data = block
                .lines()
                .find_map(|l| l.strip_prefix("data: "))
                .and_then(|d| serde_json::from_str(d).ok())
                .unwrap_or_default();
            let done = stop(name, &data);
            out.push((name.to_string(), data));
            if done {
                return out;
            }
        }
    }
    out
}

type Events = tokio::sync::mpsc::UnboundedReceiver<(String, serde_json::Value)>;

/// A page reading its answer's events: all of them, and when the last one came.
type Page = tokio::task::JoinHandle<(Vec<(String, serde_json::Value)>, std::time::Instant)>;

/// Reads an answer's event stream in the background until its `answer` or `error`: each
/// event as it comes on the receiver; the task returns them all and when the last came.
/// Aborting the task closes the page (the connection).
fn watch(res: reqwest::Response) -> (Page, Events) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(async move {
        let seen = read_events(res, |e, d| {
            let _ = tx.send((e.to_string(), d.clone()));
            e == "answer" || e == "error"
        })
        .await;
        (seen, std::time::Instant::now())
    });
    (task, rx)
}

/// The events from `rx` up to the first for which `stop` is true (panics if the stream ends
/// first).
async fn until_event(
    rx: &mut Events,
    stop: impl Fn(&str, &serde_json::Value) -> bool,
) -> Vec<(String, serde_json::Value)> {
    let mut seen = Vec::new();
    while let Some((e, d)) = rx.recv().await {
        let done = stop(&e, &d);
        seen.push((e, d));
        if done {
            return seen;
        }
    }
    panic!("the stream ended before the awaited event: {seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_class_shares_one_queue_with_places_and_the_teacher_goes_first() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    // About 3 s per answer, so the others have to wait. Two guiding questions: each streams
    // as soon as it is written (a question is not a statement the check must find in the
    // book).
    let ollama = TestServer::start(Behaviour {
        default_reply: "What does chlorophyll absorb from the light? Which colours of light does the plant use?".into(),
        token_delay_ms: 250,
        ..Behaviour::default()
    });
    let s = classroom(tmp.path(), &ollama.url());
    let mut students = Vec::new();
    for (i, name) in ["Asha", "Ravi", "Meena"].iter().enumerate() {
        students.push(joined(&format!("127.0.0.{}", 20 + i), &s, name).await);
    }
    let ask = |d: &reqwest::Client, q: &str| {
        d.post(format!("{}/api/ask", s.url))
            .json(&serde_json::json!({"question": q, "no_cache": true}))
            .send()
    };
    // Asha's question is being answered (its first token arrived).
    let asha = ask(&students[0], "what does chlorophyll absorb")
        .await
        .unwrap();
    let (asha, mut asha_events) = watch(asha);
    until_event(&mut asha_events, |e, _| e == "token").await;
    // Ravi waits with one question ahead of him; Meena with two; then Ravi cancels (closes
    // the page) and Meena moves up.
    let ravi = ask(&students[1], "how do plants capture light")
        .await
        .unwrap();
    let (ravi_page, mut ravi_events) = watch(ravi);
    let ravi_seen = until_event(&mut ravi_events, |e, d| e == "queued" && d["ahead"] == 1).await;
    // Retrieval does not wait for the model: Ravi's passages arrived while Asha's answer was
    // still being written, before his place in the queue.
    assert_eq!(ravi_seen[0].0, "sources", "{ravi_seen:?}");
    assert!(
        ravi_seen[0].1["citations"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "{ravi_seen:?}"
    );
    let meena = ask(&students[2], "what is the role of chlorophyll")
        .await
        .unwrap();
    let (meena, mut meena_events) = watch(meena);
    until_event(&mut meena_events, |e, d| e == "queued" && d["ahead"] == 2).await;
    // Ravi closes his page.
    ravi_page.abort();
    // The teacher asks from the laptop meanwhile: served before Meena.
    tokio::time::sleep(std::time::Duration::from_millis(600)).await;
    let teacher = reqwest::Client::new();
    let (st, answer) = post(
        &teacher,
        format!("{}/api/ask", s.url),
        serde_json::json!({"question": "what is chlorophyll", "stream": false, "no_cache": true}),
    )
    .await;
    let teacher_done = std::time::Instant::now();
    assert_eq!(st, 200, "{answer}");
    let (asha, _) = asha.await.unwrap();
    assert!(asha.iter().any(|(e, _)| e == "answer"), "{asha:?}");
    let (meena, meena_done) = meena.await.unwrap();
    assert!(meena.iter().any(|(e, _)| e == "answer"), "{meena:?}");
    assert!(
        teacher_done < meena_done,
        "the teacher's question went ahead of Meena's"
    );
    let places: Vec<u64> = meena
        .iter()
        .filter(|(e, _)| e == "queued")
        .filter_map(|(_, d)| d["ahead"].as_u64())
        .collect();
    assert_eq!(
        places.first(),
        Some(&2),
        "Asha's and Ravi's before hers: {places:?}"
    );
    assert!(
        places.contains(&1),
        "she moved up when Ravi left: {places:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_teachers_question_preempts_a_students_answer_which_starts_again_after_it() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    let reply =
        "Chlorophyll a absorbs wavelengths from either end of the visible spectrum [1]. ".repeat(3);
    // About 8 s per answer: the teacher asks (and its passages are retrieved, seconds on a
    // busy debug build) while Asha's is being written.
    let ollama = TestServer::start(Behaviour {
        default_reply: reply.clone(),
        token_delay_ms: 250,
        ..Behaviour::default()
    });
    let s = classroom(tmp.path(), &ollama.url());
    let asha = joined("127.0.0.40", &s, "Asha").await;
    let res = asha
        .post(format!("{}/api/ask", s.url))
        .json(&serde_json::json!({"question": "what does chlorophyll absorb", "no_cache": true}))
        .send()
        .await
        .unwrap();
    let (page, mut events) = watch(res);
    until_event(&mut events, |e, _| e == "token").await;
    let teacher = reqwest::Client::new();
    let (st, answer) = post(
        &teacher,
        format!("{}/api/ask", s.url),
        serde_json::json!({"question": "what is chlorophyll", "stream": false, "no_cache": true}),
    )
    .await;
    let teacher_done = std::time::Instant::now();
    assert_eq!(st, 200, "{answer}");
    assert_eq!(answer["status"], "answered", "{answer}");
    let (seen, asha_done) = page.await.unwrap();
    assert!(teacher_done < asha_done, "the teacher's answer came first");
    // Asha's page was told her answer starts again, saw her place (the teacher's answer
    // ahead), then the answer from its first word.
    let names: Vec<&str> = seen.iter().map(|(e, _)| e.as_str()).collect();
    let restart = names.iter().position(|e| *e == "restart");
    let restart = restart.unwrap_or_else(|| panic!("no restart event: {names:?}"));
    assert!(
        names[..restart].contains(&"token"),
        "it was being written: {names:?}"
    );
    assert_eq!(names[restart + 1], "queued", "{names:?}");
    assert_eq!(seen[restart + 1].1["ahead"], 1, "{seen:?}");
    assert_eq!(names.last(), Some(&"answer"), "{names:?}");
    let again: String = seen[restart..]
        .iter()
        .filter(|(e, _)| e == "token")
        .filter_map(|(_, d)| d["text"].as_str())
        .collect();
    let done = &seen.last().unwrap().1;
    assert_eq!(done["status"], "answered", "{done}");
    // Written again from its start; what streamed is what the student keeps (the checked
    // sentences: the model's repeats of its sentence are not shown).
    assert_eq!(
        again.trim(),
        vidya_core::answer::turn::tutor_words(done["answer"].as_str().unwrap()).trim(),
        "the whole answer, written again"
    );
    assert!(reply.starts_with(again.trim()), "{again}");
    // Her conversation holds the question once, with the answer written the second time.
    let id = done["conversation_id"].as_i64().unwrap();
    let (st, turns) = get(&asha, format!("{}/api/conversations/{id}", s.url)).await;
    assert_eq!(st, 200);
    assert_eq!(turns.as_array().map(Vec::len), Some(1), "{turns}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_teacher_pin_gives_another_device_the_teachers_routes() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    let ollama = TestServer::start(Behaviour::default());
    let s = classroom(tmp.path(), &ollama.url());
    let laptop = reqwest::Client::new();
    let tablet = device("127.0.0.40");
    let url = |p: &str| format!("{}{p}", s.url);
    // No PIN yet: nobody signs in as the teacher from elsewhere.
    let (st, _) = post(
        &tablet,
        url("/api/teacher"),
        serde_json::json!({"pin": "2468"}),
    )
    .await;
    assert_eq!(st, 404);
    // Only the laptop sets it; a PIN that is not 4–12 digits is refused.
    assert_eq!(
        send(
            &tablet,
            "PUT",
            &url("/api/teacher-pin"),
            r#"{"pin": "2468"}"#
        )
        .await,
        403
    );
    assert_eq!(
        send(&laptop, "PUT", &url("/api/teacher-pin"), r#"{"pin": "12"}"#).await,
        400
    );
    assert_eq!(
        send(
            &laptop,
            "PUT",
            &url("/api/teacher-pin"),
            r#"{"pin": "2468"}"#
        )
        .await,
        200
    );
    let (_, me) = get(&laptop, url("/api/session")).await;
    assert_eq!(me["pin_set"], true);
    // Wrong PIN: refused; right PIN: the tablet is the teacher.
    let (st, _) = post(
        &tablet,
        url("/api/teacher"),
        serde_json::json!({"pin": "1357"}),
    )
    .await;
    assert_eq!(st, 403);
    assert_eq!(send(&tablet, "GET", &url("/api/books"), "").await, 403);
    let (st, who) = post(
        &tablet,
        url("/api/teacher"),
        serde_json::json!({"pin": "2468"}),
    )
    .await;
    assert_eq!((st, who["role"].as_str()), (200, Some("teacher")));
    assert_eq!(send(&tablet, "GET", &url("/api/books"), "").await, 200);
    assert_eq!(send(&tablet, "GET", &url("/api/classroom"), "").await, 200);
    // A new PIN ends the teacher sessions of other devices.
    assert_eq!(
        send(
            &laptop,
            "PUT",
            &url("/api/teacher-pin"),
            r#"{"pin": "97531"}"#
        )
        .await,
        200
    );
    assert_eq!(send(&tablet, "GET", &url("/api/books"), "").await, 403);
    // Guessing PINs locks the device out like guessing codes.
    let guesser = device("127.0.0.41");
    let mut statuses = Vec::new();
    for pin in ["1111", "2222", "3333", "4444", "5555", "97531"] {
        let (st, _) = post(
            &guesser,
            url("/api/teacher"),
            serde_json::json!({"pin": pin}),
        )
        .await;
        statuses.push(st);
    }
    assert_eq!(statuses, [403, 403, 403, 403, 403, 429]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_without_a_stream_stops_when_its_device_hangs_up() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    // About 40 s of answer (160 words, one every 250 ms): long enough that a loaded CI
    // machine's model loading and retrieval (seconds each) fit before the check below.
    let ollama = TestServer::start(Behaviour {
        default_reply: "Chlorophyll absorbs red and blue light for the plant [1]. ".repeat(16),
        token_delay_ms: 250,
        ..Behaviour::default()
    });
    let s = classroom(tmp.path(), &ollama.url());
    let d = joined("127.0.0.50", &s, "Asha").await;
    let hung_up = d
        .post(format!("{}/api/ask", s.url))
        .json(&serde_json::json!({"question": "what does chlorophyll absorb", "stream": false, "no_cache": true}))
        .timeout(std::time::Duration::from_millis(3000))
        .send()
        .await;
    assert!(hung_up.is_err(), "the answer came before the hang-up");
    // The question ends long before its answer would (about 40 s): the device may ask again.
    let (st, answer) = ask_when_free_within(&d, &s.url, 25).await;
    assert_eq!(st, 200, "{answer}");
    // And the model was stopped (or, when the question had not reached it, never asked).
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while ollama.chat_abandoned() < ollama.chat_calls() && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(
        ollama.chat_abandoned(),
        ollama.chat_calls(),
        "the model went on writing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_students_device_is_not_told_where_files_are_and_odd_names_are_cleaned() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    let ollama = TestServer::start(Behaviour::default());
    let s = classroom(tmp.path(), &ollama.url());
    let d = device("127.0.0.60");
    // A name made only of invisible characters is no name; bidi overrides are dropped.
    let (st, _) = post(
        &d,
        format!("{}/api/join", s.url),
        serde_json::json!({"code": s.code, "name": "\u{202E}\u{200B}"}),
    )
    .await;
    assert_eq!(st, 400);
    let (st, _) = post(
        &d,
        format!("{}/api/join", s.url),
        serde_json::json!({"code": s.code, "name": "Asha\u{202E}nimda"}),
    )
    .await;
    assert_eq!(st, 200);
    let (_, class) = get(&reqwest::Client::new(), format!("{}/api/classroom", s.url)).await;
    assert_eq!(class["students"][0]["name"], "Ashanimda", "{class}");

    let page = serde_json::json!({"book_id": 1, "page": 99999});
    let (st, student) = post(&d, format!("{}/api/page-image", s.url), page.clone()).await;
    assert_eq!(st, 404, "{student}");
    let shown = student["error"]["message"].as_str().unwrap_or_default();
    assert!(shown.contains("no page 99999"), "{student}");
    // The book was added from tests/fixtures/biology2e.
    assert!(!shown.contains("fixtures"), "{student}");
    // The teacher is told where the file is.
    let (st, teacher) = post(
        &reqwest::Client::new(),
        format!("{}/api/page-image", s.url),
        page,
    )
    .await;
    assert_eq!(st, 404);
    assert!(
        teacher["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("fixtures"),
        "{teacher}"
    );

    // A method a route does not have is 405, for anyone.
    for who in [&d, &reqwest::Client::new()] {
        let st = send(who, "PATCH", &format!("{}/api/settings", s.url), "{}").await;
        assert_eq!(st, 405);
    }
    // HEAD is a GET without its body, with the GET route's role.
    let head = |who: &reqwest::Client, path: &str| who.head(format!("{}{path}", s.url)).send();
    assert_eq!(
        head(&d, "/api/session").await.unwrap().status().as_u16(),
        200
    );
    assert_eq!(head(&d, "/api/stats").await.unwrap().status().as_u16(), 403);
    assert_eq!(
        head(&reqwest::Client::new(), "/api/stats")
            .await
            .unwrap()
            .status()
            .as_u16(),
        200
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hanging_up_before_the_models_first_word_frees_the_device_at_once() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    // A very slow laptop model: two minutes to its first word. The device must be free long
    // before that (a minute at most, however busy this machine is with other tests: the first
    // question also waits for the models to load).
    let ollama = TestServer::start(Behaviour {
        first_token_delay_ms: 120_000,
        ..Behaviour::default()
    });
    let s = classroom(tmp.path(), &ollama.url());
    let d = joined("127.0.0.51", &s, "Ravi").await;
    for stream in [false, true] {
        let asked = d
            .post(format!("{}/api/ask", s.url))
            .json(&serde_json::json!({"question": "what does chlorophyll absorb", "stream": stream, "no_cache": true}))
            .timeout(std::time::Duration::from_millis(1500))
            .send()
            .await;
        if let Ok(res) = asked {
            // The stream's head came back: hang up while its body waits for the model.
            assert!(
                stream,
                "a stream:false answer came before its model's first word"
            );
            drop(res);
        }
        // The device's question ends long before the model's first word would come.
        let (status, _) = ask_when_free_within(&d, &s.url, 60).await;
        assert_eq!(
            status, 200,
            "stream {stream}: still answering the abandoned question"
        );
    }
}

/// The id of the first book of the library the server at `s` holds (asked as the laptop).
async fn first_book(s: &Served) -> i64 {
    let (_, books) = get(&reqwest::Client::new(), format!("{}/api/books", s.url)).await;
    books[0]["id"].as_i64().expect("a book")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn page_pictures_are_drawn_once_and_each_device_draws_only_a_few_a_minute() {
    use vidya_server::page_route::PAGE_RENDERS_PER_MINUTE as LIMIT;
    let _machine = exclusive();
    let tmp = library_with_sample();
    let ollama = TestServer::start(Behaviour::default());
    let s = classroom(tmp.path(), &ollama.url());
    let book = first_book(&s).await;
    let asha = joined("127.0.0.64", &s, "Asha").await;
    let page = |p: usize| serde_json::json!({"book_id": book, "page": p, "width": 240});
    let draw = |d: &reqwest::Client, p: usize| {
        d.post(format!("{}/api/page-image", s.url))
            .json(&page(p))
            .send()
    };
    let mut first = None;
    for p in 0..LIMIT {
        let r = draw(&asha, p).await.unwrap();
        assert_eq!(r.status().as_u16(), 200, "page {p}");
        assert_eq!(r.headers()["content-type"], "image/png");
        let png = r.bytes().await.unwrap();
        first.get_or_insert(png);
    }
    // One page more within the minute: refused, with when to try again.
    let r = draw(&asha, LIMIT).await.unwrap();
    assert_eq!(r.status().as_u16(), 429);
    let wait: u64 = r.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=60).contains(&wait), "{wait}");
    let e: serde_json::Value = r.json().await.unwrap();
    assert_eq!(e["error"]["kind"], "rate_limited", "{e}");
    assert!(
        e["error"]["message"].as_str().unwrap().contains("wait"),
        "{e}"
    );
    // A page drawn before comes from the cache, however often it is opened.
    for _ in 0..2 * LIMIT {
        let r = draw(&asha, 0).await.unwrap();
        assert_eq!(r.status().as_u16(), 200);
        assert_eq!(Some(r.bytes().await.unwrap()), first, "the same picture");
    }
    // Another device, and the laptop, are not held back by Asha's count.
    let ravi = joined("127.0.0.65", &s, "Ravi").await;
    assert_eq!(draw(&ravi, LIMIT + 1).await.unwrap().status().as_u16(), 200);
    let laptop = reqwest::Client::new();
    for p in LIMIT..LIMIT + 3 {
        assert_eq!(draw(&laptop, p + 2).await.unwrap().status().as_u16(), 200);
    }
}

/// Characters that must never reach a terminal: C0 and C1 controls other than newline and
/// tab, and the bidirectional embeddings, overrides and isolates.
fn terminal_unsafe(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn control_characters_in_a_question_never_reach_the_teachers_terminal() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    let ollama = TestServer::start(Behaviour::default());
    let s = classroom(tmp.path(), &ollama.url());
    let d = joined("127.0.0.66", &s, "Ravi").await;
    let question =
        "what does \u{1b}[2J\u{1b}]0;owned\u{7}chloro\rphyll\u{0} absorb \u{202E}thgil\u{2066}?";
    let (st, a) = post(
        &d,
        format!("{}/api/ask", s.url),
        serde_json::json!({"question": question, "stream": false, "no_llm": true}),
    )
    .await;
    assert_eq!(st, 200, "{a}");
    let id = a["conversation_id"].as_i64().expect("a conversation");
    let (_, turns) = get(&d, format!("{}/api/conversations/{id}", s.url)).await;
    let stored = turns[0]["question"].as_str().unwrap().to_string();
    assert!(
        !stored.chars().any(terminal_unsafe),
        "stored as typed: {stored:?}"
    );
    assert!(stored.contains("chlorophyll"), "{stored:?}");
    drop(s);
    let printed = |args: &[&str]| {
        let o = run(tmp.path(), args);
        ok(&o);
        stdout(&o)
    };
    let id_arg = id.to_string();
    for out in [
        printed(&["conversations", "show", &id_arg]),
        printed(&["conversations", "list"]),
    ] {
        assert!(!out.chars().any(terminal_unsafe), "{out:?}");
    }
    // A question stored before it was cleaned (by an earlier version) is printed escaped.
    let db = rusqlite::Connection::open(tmp.path().join("library.sqlite3")).unwrap();
    db.execute(
        "UPDATE turns SET question = ?1, query = ?1 WHERE conversation_id = ?2",
        rusqlite::params![question, id],
    )
    .unwrap();
    db.execute(
        "UPDATE conversations SET title = ?1 WHERE id = ?2",
        rusqlite::params![question, id],
    )
    .unwrap();
    drop(db);
    for out in [
        printed(&["conversations", "show", &id_arg]),
        printed(&["conversations", "list"]),
    ] {
        assert!(!out.chars().any(terminal_unsafe), "{out:?}");
        assert!(out.contains(r"\x1b") && out.contains(r"\u{202e}"), "{out}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pin_session_stays_on_its_device_and_cannot_name_the_laptops_files() {
    let _machine = exclusive();
    let tmp = library_with_sample();
    let ollama = TestServer::start(Behaviour::default());
    let s = classroom(tmp.path(), &ollama.url());
    let url = |p: &str| format!("{}{p}", s.url);
    let laptop = reqwest::Client::new();
    assert_eq!(
        send(
            &laptop,
            "PUT",
            &url("/api/teacher-pin"),
            r#"{"pin": "2468"}"#
        )
        .await,
        200
    );
    let tablet = device("127.0.0.45");
    let r = tablet
        .post(url("/api/teacher"))
        .json(&serde_json::json!({"pin": "2468"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let cookie = r.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_string();
    assert_eq!(send(&tablet, "GET", &url("/api/books"), "").await, 200);
    // The same cookie sent from another device's address is nobody's.
    let elsewhere = reqwest::Client::builder()
        .local_address("127.0.0.46".parse::<IpAddr>().unwrap())
        .build()
        .unwrap();
    for path in ["/api/books", "/api/classroom"] {
        let r = elsewhere
            .get(url(path))
            .header("Cookie", &cookie)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 403, "{path}");
    }
    // The tablet cannot name a file on the laptop's disk: it may only upload.
    let secret = tmp.path().join("staff-room.txt");
    std::fs::write(&secret, "The staff room safe opens with 4711. ".repeat(20)).unwrap();
    for (route, body) in [
        (
            "/api/ingest",
            serde_json::json!({"paths": [secret.to_str().unwrap()]}),
        ),
        (
            "/api/setup/import",
            serde_json::json!({"path": secret.to_str().unwrap()}),
        ),
    ] {
        let (st, e) = post(&tablet, url(route), body).await;
        assert_eq!(
            (st, e["error"]["kind"].as_str()),
            (403, Some("forbidden")),
            "{route}: {e}"
        );
        assert!(
            e["error"]["message"].as_str().unwrap().contains("upload"),
            "{e}"
        );
    }
    let (_, books) = get(&laptop, url("/api/books")).await;
    assert_eq!(books.as_array().map(Vec::len), Some(1), "nothing was added");
    // An upload from the tablet is a book like any other.
    let text = "Osmosis is the movement of water across a membrane. ".repeat(40);
    let r = tablet
        .post(url("/api/ingest?name=osmosis-notes.txt"))
        .body(text)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    let events = r.text().await.unwrap();
    assert!(events.contains("event: book"), "{events}");
    let (_, books) = get(&laptop, url("/api/books")).await;
    assert_eq!(books.as_array().map(Vec::len), Some(2));
}
