//! `vidya setup` and `vidya doctor` as a teacher or a script meets them: a damaged bundled
//! model file is named with its fix, the wizard imports a `.gguf` file into the Ollama test
//! server and asks its test question, and it speaks the six interface languages.

use crate::common::*;
use ollama_test_server::{Behaviour, TestServer};
use std::path::Path;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[test]
fn a_damaged_bundled_model_file_is_named_with_the_fix() {
    let models = repo_root().join("resources/models/llama-3.2-tokenizer");
    if !models.join("tokenizer.json").is_file() {
        eprintln!("skipped: run `cargo xtask setup --models` first (no tokenizer.json)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("library");
    let copy = dir.path().join("models");
    copy_dir(&models, &copy.join("llama-3.2-tokenizer"));
    // Intact: doctor counts every bundled file as present.
    let o = vidya(&lib)
        .env("VIDYA_MODELS_DIR", &copy)
        .args(["doctor", "--json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let file = report["resources"]["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "llama-3.2-tokenizer")
        .cloned()
        .unwrap();
    assert_eq!(file["status"], "ok", "{file}");
    assert!(file["path"]
        .as_str()
        .unwrap()
        .starts_with(copy.canonicalize().unwrap().to_str().unwrap()));

    // One byte more: damaged, named, with the fix, and doctor fails.
    let f = copy.join("llama-3.2-tokenizer/tokenizer.json");
    let mut bytes = std::fs::read(&f).unwrap();
    bytes.push(b' ');
    std::fs::write(&f, bytes).unwrap();
    let o = vidya(&lib)
        .env("VIDYA_MODELS_DIR", &copy)
        .arg("doctor")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    assert!(
        out.contains("tokenizer.json (llama-3.2-tokenizer, counts words for the model) is damaged"),
        "{out}"
    );
    assert!(
        out.contains("Fix: run `cargo xtask setup --models --force` in the source folder"),
        "{out}"
    );
    // The wizard reports the same file, and fails.
    let o = vidya(&lib)
        .env("VIDYA_MODELS_DIR", &copy)
        .args(["setup", "--no-test"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stdout(&o).contains("tokenizer.json (llama-3.2-tokenizer"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn setup_imports_a_gguf_file_and_answers_the_test_question() {
    let server = TestServer::start(Behaviour {
        models: Vec::new(),
        default_reply:
            "In the light-dependent reactions, chlorophyll absorbs energy from sunlight [1].".into(),
        ..Behaviour::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("library");
    let gguf = dir.path().join("Tiny-Model.gguf");
    let mut bytes = b"GGUF\x03\x00\x00\x00".to_vec();
    bytes.resize(1 << 20, 0);
    std::fs::write(&gguf, bytes).unwrap();

    let o = vidya(&lib)
        .env("VIDYA_OLLAMA_PROGRAM", "")
        .args(["setup", "--json", "--host", &server.url(), "--import"])
        .arg(&gguf)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["actions"][0]["import"]["ok"], true, "{r}");
    assert_eq!(r["report"]["model"], "tiny-model");
    assert_eq!(r["report"]["model_installed"], true);
    assert_eq!(r["test"]["status"], "answered", "{}", r["test"]);
    assert!(
        r["test"]["citations"][0]["page_label"].as_str().is_some(),
        "{}",
        r["test"]
    );
    assert!(server.models().contains(&"tiny-model:latest".to_string()));
    // The wizard is marked done, and the model is saved for the app.
    let settings: serde_json::Value =
        serde_json::from_slice(&std::fs::read(lib.join("settings.json")).unwrap()).unwrap();
    assert_eq!(settings["setup_done"], true);
    assert_eq!(settings["model"], "tiny-model");

    // The address is cleaned like OLLAMA_HOST (a trailing slash, no scheme); a bad one is
    // refused as a usage error.
    let port = server.url().rsplit(':').next().unwrap().to_string();
    for host in [format!("{}/", server.url()), format!("127.0.0.1:{port}")] {
        let o = vidya(&lib)
            .args(["setup", "--no-test", "--json", "--host", &host])
            .output()
            .unwrap();
        let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(r["report"]["ollama"]["state"], "running", "{host}: {r}");
    }
    let o = run(&lib, &["setup", "--no-test", "--host", "ftp://x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("is not a web address"),
        "{}",
        stderr(&o)
    );

    // A .gguf name that is not a model: a clear message, exit 1, nothing changed.
    let bad = dir.path().join("notes.gguf");
    std::fs::write(&bad, "hello").unwrap();
    let o = vidya(&lib)
        .args(["setup", "--no-test", "--host", &server.url(), "--import"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("is not a GGUF model file"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("panicked"));
}

#[test]
fn setup_speaks_the_six_interface_languages() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("library");
    let titles = [
        ("en", "Set up Vidya"),
        ("hi", "Vidya को तैयार करें"),
        ("mr", "Vidya"),
        ("kn", "Vidya"),
        ("te", "Vidya"),
        ("ta", "Vidya"),
    ];
    let scripts = [
        ("hi", '\u{0900}'..='\u{097F}'),
        ("mr", '\u{0900}'..='\u{097F}'),
        ("kn", '\u{0C80}'..='\u{0CFF}'),
        ("te", '\u{0C00}'..='\u{0C7F}'),
        ("ta", '\u{0B80}'..='\u{0BFF}'),
    ];
    for (lang, title) in titles {
        let o = vidya(&lib)
            .env("VIDYA_OLLAMA_PROGRAM", "")
            .args(["setup", "--no-test", "--lang", lang])
            .output()
            .unwrap();
        let out = stdout(&o);
        assert!(
            out.starts_with(title) || out.lines().next().unwrap_or("").contains(title),
            "{lang}: {out}"
        );
        // The terminal has no buttons or screens: its steps are commands.
        assert!(out.contains("vidya setup"), "{lang}: {out}");
        assert!(out.contains("vidya ingest"), "{lang}: {out}");
        for window_only in ["Check again", "Library screen", "फिर से जाँचें", "“पुस्तकालय”"]
        {
            assert!(!out.contains(window_only), "{lang}: {window_only}\n{out}");
        }
        if let Some((_, range)) = scripts.iter().find(|(l, _)| *l == lang) {
            let native = out.chars().filter(|c| range.contains(c)).count();
            assert!(
                native > 100,
                "{lang}: only {native} characters of its script:\n{out}"
            );
        }
    }
    let o = run(&lib, &["setup", "--lang", "fr"]);
    assert_eq!(o.status.code(), Some(2), "clap refuses an unknown language");
}
