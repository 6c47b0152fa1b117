//! The retrieval pipeline from the command line: `vidya ask --trace`, `vidya reindex`, and a
//! damaged model file (the answer still comes, with a note naming the setup command).

mod common;
use common::*;

#[path = "../../vidya-core/tests/support/mod.rs"]
mod support;

fn models_installed() -> bool {
    support::installed_models().is_some()
}

/// The stage names of the trace table (first word of each row under its header).
fn trace_stages(out: &str) -> Vec<String> {
    out.lines()
        .skip_while(|l| !l.starts_with("Retrieval trace:"))
        .skip(2)
        .take_while(|l| {
            let t = l.trim_start();
            !t.starts_with("router:") && !t.starts_with("gate:")
        })
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

#[test]
fn trace_shows_each_stage_and_reindex_turns_dense_retrieval_on() {
    if !models_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    let ch08 = fixtures().join("biology2e/ch08.pdf");
    ok(&run(lib, &["ingest", "--no-embed", ch08.to_str().unwrap()]));
    let q = "What does chlorophyll do in photosynthesis?";
    let o = run(lib, &["ask", q, "--no-llm", "--trace"]);
    ok(&o);
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(out.contains("Retrieval trace:"), "{out}");
    let stages = trace_stages(&out);
    assert!(stages.contains(&"bm25".to_string()), "{out}");
    assert!(
        !stages.contains(&"dense".to_string()),
        "no vectors yet: {out}"
    );
    assert!(
        err.contains("have no vectors") && err.contains("vidya reindex"),
        "{err}"
    );

    let o = run(lib, &["reindex"]);
    ok(&o);
    assert!(stdout(&o).contains("Embedded"), "{}", stdout(&o));
    assert!(lib.join("vectors.usearch").is_file());

    let o = run(lib, &["ask", q, "--no-llm", "--trace"]);
    ok(&o);
    let out = stdout(&o);
    for stage in [
        "embed_query",
        "bm25",
        "dense",
        "fusion",
        "gate",
        "budget",
        "prune",
    ] {
        assert!(
            trace_stages(&out).contains(&stage.to_string()),
            "{stage} missing: {out}"
        );
    }
    assert!(out.contains("gate: pass"), "{out}");
    assert!(!stderr(&o).contains("reindex"), "{}", stderr(&o));

    // The JSON answer carries the same figures.
    let r = json(lib, &["ask", q, "--no-llm", "--no-cache", "--json"]);
    let stages = r["retrieval"]["stages"].as_array().unwrap();
    let prune = stages.iter().find(|s| s["stage"] == "prune").unwrap();
    assert!(prune["tokens_out"].as_u64().unwrap() <= prune["tokens_in"].as_u64().unwrap());
    assert!(r["context_tokens"].as_u64().unwrap() <= 512);
}

#[test]
fn a_damaged_model_file_still_answers_and_names_the_setup_command() {
    if !models_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("lib");
    let ch07 = fixtures().join("biology2e/ch07.pdf");
    ok(&run(
        &lib,
        &["ingest", "--no-embed", ch07.to_str().unwrap()],
    ));
    let models = dir.path().join("models");
    let e5 = models.join(vidya_core::embed::MODEL_DIR);
    std::fs::create_dir_all(&e5).unwrap();
    std::fs::write(e5.join("model_int8.onnx"), b"this is not an onnx model").unwrap();
    std::fs::write(e5.join("tokenizer.json"), b"{}").unwrap();
    let o = vidya(&lib)
        .env("VIDYA_MODELS_DIR", &models)
        .args(["ask", "What is glycolysis?", "--no-llm"])
        .output()
        .unwrap();
    ok(&o);
    assert!(
        stdout(&o).contains("[1]"),
        "word search still answers: {}",
        stdout(&o)
    );
    let err = stderr(&o);
    assert!(
        err.contains("is damaged") && err.contains("cargo xtask setup --models"),
        "{err}"
    );
    let o = vidya(&lib)
        .env("VIDYA_MODELS_DIR", &models)
        .args(["reindex"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("cargo xtask setup --models"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"));
}
