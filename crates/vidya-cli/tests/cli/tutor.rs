//! Grounded answers through Ollama, tested against the protocol-faithful test server
//! (`ollama-test-server`): streaming, citation checks, echo and refusal handling, the relevance
//! gate, follow-ups, memory, the answer cache, and every error path of the model.

use crate::common::*;
use ollama_test_server::{Behaviour, Rule, TestServer};
use std::path::Path;

fn ask_json(lib: &Path, host: &str, args: &[&str]) -> serde_json::Value {
    let mut a = vec!["ask", "--json", "--host", host];
    a.extend_from_slice(args);
    let o = run(lib, &a);
    ok(&o);
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", stdout(&o)))
}

const Q: &str = "What happens in the light-dependent reactions of photosynthesis?";

fn reply(text: &str) -> Behaviour {
    Behaviour {
        default_reply: text.into(),
        ..Behaviour::default()
    }
}

#[test]
fn streams_a_checked_answer_whose_citations_resolve_to_real_pages() {
    let lib = library_with_sample();
    let server = TestServer::start(reply(
        "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1]. This energy is stored as ATP and NADPH [2].",
    ));
    // Human output: the textbook's quotes at once, then the tutor's checked words as they
    // stream, then the sources.
    let o = run(lib.path(), &["ask", Q, "--host", &server.url()]);
    ok(&o);
    let out = stdout(&o);
    assert!(out.starts_with("From your textbook:"), "{out}");
    let tutor = out
        .find("**In the tutor's words:** In the light-dependent reactions, chlorophyll absorbs")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        out[..tutor].contains("[1] "),
        "the quotes come first: {out}"
    );
    assert!(
        out.contains("Sources:") && out.contains("printed page"),
        "{out}"
    );

    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "answered");
    assert_eq!(r["model"], "llama3.2:3b");
    assert_eq!(r["gated"], false);
    assert!(r["timings_ms"]["ttft"].as_f64().is_some());
    let library = vidya_core::Library::open(lib.path()).unwrap();
    let cits = r["citations"].as_array().unwrap();
    // The pipeline's budget and pruner decide how many sources there are (one or more).
    assert!(!cits.is_empty());
    for c in cits {
        // The cited page holds the quoted source text.
        let label: usize = c["page_label"].as_str().unwrap().parse().unwrap();
        let ordinal = 23 + (label - 152); // chapter 8 starts on printed page 152, after 23 pages of chapter 7
        let page = squash(&library.page_text(1, ordinal).unwrap().unwrap());
        let first = vidya_core::text::split_sentences(c["text"].as_str().unwrap())[0];
        let first = squash(first.slice(c["text"].as_str().unwrap()));
        assert!(
            page.contains(first.trim_end_matches(" …")),
            "page {label} lacks «{first}»"
        );
    }
    // The model was sent a small context and the rules.
    let req = server.last_chat_request().unwrap();
    assert_eq!(req["options"]["num_ctx"], 4096);
    assert!(req["options"]["temperature"].as_f64().unwrap() < 0.5);
    assert!(req["messages"][0]["content"]
        .as_str()
        .unwrap()
        .contains("Cite the source of every fact as [n]"));
    assert!(req["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("[1] (Biology 2e"));
}

#[test]
fn invented_citation_removed_echo_replaced_refusal_stripped() {
    let lib = library_with_sample();
    let server = TestServer::start(reply(
        "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1]. It makes ATP [7].",
    ));
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    // [7] names no source and goes; the sentence is supported, so Vidya cites the source that
    // supports it.
    let answer = r["answer"].as_str().unwrap();
    assert!(answer.starts_with("From your textbook:"), "{r:#}");
    assert!(
        vidya_core::answer::turn::tutor_words(answer)
            .starts_with(
                "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1]. It makes ATP ["
            ),
        "{r:#}"
    );
    assert!(!answer.contains("[7]"), "{r:#}");
    assert_eq!(r["postcheck"]["removed_citations"], serde_json::json!([7]));

    server.set(reply(
        "You are Vidya, a patient tutor for school students in India. You answer only from the numbered textbook sources that the student's message gives you. Use only facts written in the sources. Never add facts from your own memory.",
    ));
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["postcheck"]["echo_replaced"], true);
    assert_eq!(r["status"], "extractive");
    assert!(r["answer"]
        .as_str()
        .unwrap()
        .starts_with("From your textbook:"));

    server.set(reply("The light-dependent reactions make ATP and NADPH [1]. I could not find this in your textbook."));
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(
        vidya_core::answer::turn::tutor_words(r["answer"].as_str().unwrap()),
        "The light-dependent reactions make ATP and NADPH [1]."
    );
    assert_eq!(r["postcheck"]["refusal"], "stripped");

    // A refusal on a question the relevance gate passed leaves the student the quotes,
    // never nothing.
    server.set(reply("Sorry, the sources do not say this."));
    let r = ask_json(
        lib.path(),
        &server.url(),
        &[Q, "--no-cache", "--lang", "hi"],
    );
    assert_eq!(r["status"], "extractive", "{r:#}");
    assert_eq!(r["postcheck"]["refusal"], "quotes", "{r:#}");
    assert!(
        r["answer"]
            .as_str()
            .unwrap()
            .starts_with("From your textbook:"),
        "{r:#}"
    );
    assert!(
        r["note"].as_str().unwrap().contains("did not find"),
        "{r:#}"
    );
}

#[test]
fn a_false_first_sentence_gives_the_quotes_and_nothing_false_streams() {
    let lib = library_with_sample();
    // The first statement flips the book's meaning (photosynthesis does not use light): the
    // student gets the quotes, and no word of the model's streamed.
    let server = TestServer::start(reply(
        "The light-dependent reactions do not use light energy [1]. They make ATP and NADPH [1].",
    ));
    let o = run(
        lib.path(),
        &["ask", Q, "--host", &server.url(), "--no-cache"],
    );
    ok(&o);
    let out = stdout(&o);
    assert!(out.starts_with("From your textbook:"), "{out}");
    assert!(!out.contains("do not use light energy"), "{out}");
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "extractive", "{r:#}");
    assert!(
        r["note"]
            .as_str()
            .unwrap()
            .contains("did not match your textbook"),
        "{r:#}"
    );
    assert!(
        !r["answer"]
            .as_str()
            .unwrap()
            .contains("do not use light energy"),
        "{r:#}"
    );
    // Quiz mode with a model that writes no question: a fill-in-the-blank quiz from the
    // quotes, with its answer key.
    server.set(reply("Photosynthesis is important for plants [1]."));
    let r = ask_json(
        lib.path(),
        &server.url(),
        &[Q, "--no-cache", "--mode", "quiz"],
    );
    let answer = r["answer"].as_str().unwrap();
    assert!(
        answer.contains("Quiz from your textbook") && answer.contains("____"),
        "{answer}"
    );
    assert!(answer.contains("Answer key:"), "{answer}");
}

#[test]
fn weak_retrieval_never_reaches_the_model() {
    let lib = library_with_sample();
    let server = TestServer::start(Behaviour::default());
    let r = ask_json(
        lib.path(),
        &server.url(),
        &["Who won the cricket world cup final in Mumbai?"],
    );
    assert_eq!(r["gated"], true);
    assert_eq!(r["status"], "gated");
    assert_eq!(
        server.chat_calls(),
        0,
        "the model was called for a gated question"
    );
    assert_eq!(server.tags_calls(), 0);
}

#[test]
fn follow_up_is_rewritten_and_memory_survives_a_restart() {
    let lib = library_with_sample();
    let server = TestServer::start(Behaviour {
        rules: vec![Rule {
            when_contains: "Rewrite the student's last question".into(),
            reply: "Where does glycolysis take place?".into(),
        }],
        default_reply: "Glycolysis splits glucose into two pyruvate molecules [1].".into(),
        ..Behaviour::default()
    });
    let first = ask_json(lib.path(), &server.url(), &["What happens in glycolysis?"]);
    let conv = first["conversation_id"].as_i64().unwrap();
    let id = conv.to_string();
    let second = ask_json(
        lib.path(),
        &server.url(),
        &["Where does it take place?", "--conversation", &id],
    );
    assert_eq!(second["query_source"], "model");
    assert_eq!(second["query"], "Where does glycolysis take place?");
    assert_eq!(second["conversation_id"], conv);
    for c in second["citations"].as_array().unwrap() {
        assert_eq!(c["chapter"], "Chapter 7: Cellular Respiration", "{c}");
    }
    // The guard refuses a rewrite that brings in a topic nobody mentioned.
    server.set(Behaviour {
        rules: vec![Rule {
            when_contains: "Rewrite the student's last question".into(),
            reply: "Where does glycolysis take place in quantum computers?".into(),
        }],
        ..Behaviour::default()
    });
    let third = ask_json(
        lib.path(),
        &server.url(),
        &["And why is it important?", "--conversation", &id],
    );
    assert_eq!(third["query_source"], "fallback");
    assert_eq!(
        third["query"],
        "Where does glycolysis take place? And why is it important?"
    );

    // A new process reads the conversation back.
    let o = run(lib.path(), &["conversations", "show", &id]);
    ok(&o);
    let out = stdout(&o);
    assert_eq!(out.matches("You: ").count(), 3, "{out}");
    assert!(
        out.contains("(searched for: Where does glycolysis take place?)"),
        "{out}"
    );
    assert!(stdout(&run(lib.path(), &["conversations"])).contains("What happens in glycolysis?"));
    ok(&run(lib.path(), &["conversations", "delete", &id]));
    assert_eq!(
        run(lib.path(), &["conversations", "show", &id])
            .status
            .code(),
        Some(1)
    );
    assert_eq!(
        run(lib.path(), &["ask", "x y z", "--conversation", "999"])
            .status
            .code(),
        Some(1)
    );
}

#[test]
fn the_same_question_twice_is_answered_from_the_cache() {
    let lib = library_with_sample();
    let server = TestServer::start(reply("Chlorophyll absorbs light [1]."));
    let a = ask_json(lib.path(), &server.url(), &[Q]);
    assert_eq!(a["status"], "answered");
    let calls = server.chat_calls();
    let b = ask_json(
        lib.path(),
        &server.url(),
        &["what happens in the LIGHT-dependent   reactions of photosynthesis"],
    );
    assert_eq!(b["status"], "cached");
    assert_eq!(b["answer"], a["answer"]);
    assert_eq!(
        server.chat_calls(),
        calls,
        "a cached answer must not call the model"
    );
    let stats = json(lib.path(), &["stats", "--json"]);
    assert_eq!(stats["cache_hits"], 1);
    assert_eq!(stats["questions"], 2);
    // Adding a book empties the cache: answers may change.
    ok(&run(
        lib.path(),
        &[
            "ingest",
            fixtures().join("biology2e/ch08.pdf").to_str().unwrap(),
            "--title",
            "Ch 8 alone",
        ],
    ));
    let c = ask_json(lib.path(), &server.url(), &[Q]);
    assert_eq!(c["status"], "answered");
}

#[test]
fn every_model_failure_gives_the_extractive_answer_and_a_fix() {
    let lib = library_with_sample();
    // Nothing listens on this port.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let down = format!("http://127.0.0.1:{port}");
    let r = ask_json(lib.path(), &down, &[Q]);
    assert_eq!(r["status"], "extractive");
    assert_eq!(r["llm_error"]["kind"], "not_running");
    assert!(r["note"].as_str().unwrap().contains("ollama serve"));
    assert!(r["answer"].as_str().unwrap().contains("[1]"));
    assert!(!r["citations"].as_array().unwrap().is_empty());
    let o = run(lib.path(), &["ask", Q, "--host", &down]);
    ok(&o);
    assert!(stdout(&o).contains(
        "Note: The quotes above are your textbook's answer; the tutor could not write one of its own: Ollama is not running"
    ));

    let server = TestServer::start(Behaviour {
        models: vec!["qwen2.5:1.5b".into()],
        ..Behaviour::default()
    });
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["llm_error"]["kind"], "model_missing");
    let msg = r["llm_error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("ollama pull llama3.2:3b") && msg.contains("qwen2.5:1.5b"),
        "{msg}"
    );

    server.set(Behaviour {
        http_500: true,
        ..Behaviour::default()
    });
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "extractive");
    assert!(
        ["server", "not_ollama"].contains(&r["llm_error"]["kind"].as_str().unwrap()),
        "{r}"
    );

    server.set(Behaviour {
        garbage_json: true,
        ..Behaviour::default()
    });
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "extractive", "{r}");
    assert!(r["note"]
        .as_str()
        .unwrap()
        .contains("could not write one of its own"));

    // The model stops mid-answer: what arrived is kept and marked incomplete.
    server.set(Behaviour {
        default_reply:
            "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1]. Then water is split and oxygen is released [2]."
                .into(),
        disconnect_after_tokens: Some(12),
        ..Behaviour::default()
    });
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "incomplete", "{r}");
    // The textbook's own sentences, and the checked sentence that arrived.
    let answer = r["answer"].as_str().unwrap();
    assert!(answer.starts_with("From your textbook:"), "{answer}");
    assert!(
        vidya_core::answer::turn::tutor_words(answer).starts_with(
            "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1]."
        ),
        "{answer}"
    );
    assert!(r["note"]
        .as_str()
        .unwrap()
        .contains("stopped before the end"));

    // The model breaks off after a few words none of the sources support: the note says the
    // tutor stopped, not that its answer was wrong.
    server.set(Behaviour {
        default_reply: "Well, you see, the thing about this is rather long [1].".into(),
        disconnect_after_tokens: Some(3),
        ..Behaviour::default()
    });
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "extractive", "{r}");
    let note = r["note"].as_str().unwrap();
    assert!(note.contains("stopped before it could answer"), "{note}");
    assert!(!note.contains("could be found"), "{note}");

    server.set(Behaviour {
        default_reply: "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1]. More words here.".into(),
        // The error comes after the first sentence is whole (the checked sentences stream).
        error_after_tokens: Some((12, "llama runner process has terminated".into())),
        ..Behaviour::default()
    });
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "incomplete", "{r}");

    // An answer cut by the length limit (Ollama's num_predict) before a whole sentence: the
    // quotes, and the note says why.
    server.set(reply(&format!("{}[1].", "light ".repeat(520))));
    let r = ask_json(lib.path(), &server.url(), &[Q, "--no-cache"]);
    assert_eq!(r["status"], "extractive", "{}", r["note"]);
    let note = r["note"].as_str().unwrap();
    assert!(
        note.contains("length limit") || note.contains("Vidya stopped it"),
        "{note}"
    );

    // Something that is not Ollama answers on the port.
    let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for s in other.incoming().take(4) {
            let mut s = s.unwrap();
            let mut buf = [0u8; 2048];
            let _ = s.read(&mut buf);
            let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 9\r\n\r\n<h1>hi</h1");
        }
    });
    let r = ask_json(
        lib.path(),
        &format!("http://127.0.0.1:{other_port}"),
        &[Q, "--no-cache"],
    );
    assert_eq!(r["status"], "extractive");
    assert_eq!(r["llm_error"]["kind"], "not_ollama", "{r}");

    // Another web server answers 404 with its own HTML page: named as not Ollama, with the
    // address to check, never "Ollama reported an error" and a memory hint.
    let web = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let web_port = web.local_addr().unwrap().port();
    std::thread::spawn(move || {
        use std::io::{Read, Write};
        for s in web.incoming().take(8) {
            let mut s = s.unwrap();
            let mut buf = [0u8; 2048];
            let _ = s.read(&mut buf);
            let page = "<!DOCTYPE HTML><html><body><h1>Error response</h1><p>Error code: 404</p></body></html>";
            let _ = s.write_all(
                format!("HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: {}\r\n\r\n{page}", page.len())
                    .as_bytes(),
            );
        }
    });
    let r = ask_json(
        lib.path(),
        &format!("http://127.0.0.1:{web_port}"),
        &[Q, "--no-cache"],
    );
    assert_eq!(r["status"], "extractive");
    assert_eq!(r["llm_error"]["kind"], "not_ollama", "{r}");
    let message = r["llm_error"]["message"].as_str().unwrap();
    assert!(!message.contains("short of memory"), "{message}");
}

#[test]
fn modes_and_languages_reach_the_prompt() {
    let lib = library_with_sample();
    let server = TestServer::start(reply(
        "1. What do the light-dependent reactions make? [1]\nउत्तर कुंजी: 1. ATP and NADPH [1]",
    ));
    let r = ask_json(
        lib.path(),
        &server.url(),
        &[
            "light-dependent reactions",
            "--mode",
            "quiz",
            "--lang",
            "hi",
        ],
    );
    assert_eq!(r["mode"], "quiz");
    assert_eq!(r["language"], "hi");
    let req = server.last_chat_request().unwrap();
    let system = req["messages"][0]["content"].as_str().unwrap();
    assert!(
        system.contains("Write in Hindi") && system.contains("उत्तर कुंजी"),
        "{system}"
    );
    assert!(req["messages"][1]["content"]
        .as_str()
        .unwrap()
        .contains("Topic: light-dependent reactions"));

    ask_json(lib.path(), &server.url(), &[Q, "--mode", "socratic"]);
    let system = server.last_chat_request().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("Do not state the final answer"), "{system}");

    // A Hindi question with the textbook's English terms retrieves the English pages, and the
    // answer is asked for in Hindi by default (the question's script).
    ask_json(
        lib.path(),
        &server.url(),
        &["photosynthesis में light-dependent reactions क्या करती हैं?"],
    );
    let system = server.last_chat_request().unwrap()["messages"][0]["content"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(system.contains("Write in Hindi"), "{system}");

    let o = run(lib.path(), &["ask", Q, "--mode", "essay"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("invalid value 'essay'"),
        "{}",
        stderr(&o)
    );
    let o = run(lib.path(), &["ask", Q, "--lang", "fr"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("invalid value 'fr'"), "{}", stderr(&o));
    // An unusable Ollama address is reported, with the textbook's sentences still given.
    for bad in ["::::", "http://127.0.0.1:70000", "ftp://x"] {
        let r = ask_json(lib.path(), bad, &[Q, "--no-cache"]);
        assert_eq!(r["llm_error"]["kind"], "bad_host", "{bad}: {r}");
        assert!(r["answer"].as_str().unwrap().contains("[1]"));
    }
}

#[test]
fn trace_log_records_each_turn() {
    let lib = library_with_sample();
    let server = TestServer::start(reply("Chlorophyll absorbs light [1]."));
    ask_json(lib.path(), &server.url(), &[Q]);
    let o = run(lib.path(), &["trace", "--last", "1"]);
    ok(&o);
    let t: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(t["question"], Q);
    assert_eq!(t["status"], "answered");
    assert!(t["retrieval"]["ranked"].as_array().unwrap().len() >= 2);
    assert!(t["prompt_tokens_estimate"].as_u64().unwrap() > 50);
    assert!(t["generated"]["ttft_ms"].as_f64().is_some());
    assert!(t["timings_ms"]["total"].as_f64().is_some());
}

#[test]
fn chat_loop_keeps_the_conversation() {
    use std::io::Write;
    let lib = library_with_sample();
    let server = TestServer::start(Behaviour {
        rules: vec![Rule {
            when_contains: "Rewrite the student's last question".into(),
            reply: "Where does glycolysis take place?".into(),
        }],
        default_reply: "Glycolysis happens in the cytoplasm [1].".into(),
        ..Behaviour::default()
    });
    let mut child = vidya(lib.path())
        .args(["chat", "--host", &server.url()])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"What happens in glycolysis?\nWhere does it take place?\n/quit\n")
        .unwrap();
    let o = child.wait_with_output().unwrap();
    ok(&o);
    let out = stdout(&o);
    // Both turns answered (the citation names whichever quote holds the sentence).
    assert_eq!(
        out.matches("Glycolysis happens in the cytoplasm [").count(),
        2,
        "{out}"
    );
    let convs = stdout(&run(lib.path(), &["conversations"]));
    assert!(convs.contains("2 turns"), "{convs}");
}

/// Runs against a real Ollama when one answers at `OLLAMA_HOST` (or the default address).
#[test]
fn real_ollama_when_reachable() {
    let host = vidya_core::answer::llm_client::host_from_env();
    let cfg = vidya_core::answer::llm_client::LlmConfig {
        host: host.clone(),
        ..Default::default()
    };
    let client = vidya_core::answer::llm_client::OllamaClient::new(cfg).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let models = match rt.block_on(client.list_models()) {
        Ok(m) if !m.is_empty() => m,
        _ => {
            eprintln!("skipped: no Ollama with a model at {host}");
            return;
        }
    };
    let lib = library_with_sample();
    let r = ask_json(lib.path(), &host, &[Q, "--model", &models[0]]);
    assert!(
        ["answered", "incomplete", "refused"].contains(&r["status"].as_str().unwrap()),
        "{r}"
    );
    eprintln!("real model {}: {}", models[0], r["answer"]);
}

#[test]
fn answer_eval_judges_phrases_and_cited_pages() {
    let lib = library_with_sample();
    let qa = lib.path().join("qa.jsonl");
    std::fs::write(
        &qa,
        concat!(
            r#"{"question": "Where do the light-dependent reactions take place?", "answers": ["thylakoid membrane"], "source": {"pdf_file": "pdf/ch08.pdf", "pdf_pages": [1, 14]}}"#,
            "\n",
            r#"{"question": "Where does the Calvin cycle take place?", "answers": ["stroma"], "source": {"pdf_file": "pdf/ch08.pdf", "pdf_pages": [1, 14]}}"#,
            "\n",
            r#"{"question": "Who won the cricket world cup final in Mumbai?", "answers": ["a very long expected answer that keyword matching cannot judge well at all"], "source": {"pdf_file": "pdf/ch08.pdf", "pdf_pages": [1, 14]}}"#,
            "\n"
        ),
    )
    .unwrap();
    let server = TestServer::start(reply(
        "The light-dependent reactions take place in the thylakoid membrane [1].",
    ));
    let r = json(
        lib.path(),
        &[
            "eval",
            "--answers",
            "--qa",
            qa.to_str().unwrap(),
            "--host",
            &server.url(),
            "--json",
        ],
    );
    // Every question is asked; the long expected answer only has no must-mention phrase. The
    // scripted reply ("thylakoid membrane") is supported by the first question's sources only:
    // for the Calvin cycle nothing the model wrote is in its sources, so the student gets the
    // textbook's sentences (which name the stroma) instead. The cricket question matches no
    // page of the biology chapters and is stopped by the gate (no model call, no citation).
    let all = &r["overall"];
    assert_eq!(all["n"], 3, "{r:#}");
    assert_eq!(r["skipped"], 0);
    for key in ["answered", "extractive", "gated"] {
        assert!(
            (all[key].as_f64().unwrap() - 1.0 / 3.0).abs() < 1e-9,
            "{key}: {r:#}"
        );
    }
    assert_eq!(all["must_mention"], 1.0, "{r:#}");
    assert!(
        (all["cited_page"].as_f64().unwrap() - 2.0 / 3.0).abs() < 1e-9,
        "{r:#}"
    );
    assert_eq!(all["fully_supported"], 1.0, "{r:#}");
    assert_eq!(all["unsupported_shown"], 0);
    assert!(all["ttft_p50_ms"].as_f64().is_some());
}
