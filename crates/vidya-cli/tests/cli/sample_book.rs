//! The main job on the committed sample (OpenStax Biology 2e chapters 7 and 8): ingest, ask,
//! and check that every citation names a printed page that really holds the quoted text.

use crate::common::*;

#[test]
fn ingest_then_ask_cites_real_printed_pages() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    let o = run(
        lib,
        &["ingest", fixtures().join("biology2e").to_str().unwrap()],
    );
    ok(&o);
    assert!(
        stdout(&o).contains("Added \"Biology 2e\""),
        "{}",
        stdout(&o)
    );

    let books = json(lib, &["books", "--json"]);
    let b = &books[0];
    assert_eq!(b["title"], "Biology 2e");
    assert_eq!(b["language"], "en");
    assert_eq!(b["file_count"], 2);
    assert_eq!(b["chapter_count"], 2);
    assert_eq!(b["page_count"], 37);

    let r = json(
        lib,
        &[
            "ask",
            "What happens in the light-dependent reactions of photosynthesis?",
            "--json",
        ],
    );
    assert_eq!(r["gated"], false);
    let answer = r["answer"].as_str().unwrap();
    let cits = r["citations"].as_array().unwrap();
    assert!(!cits.is_empty());
    assert!(r["context_tokens"].as_u64().unwrap() > 0);
    assert!(r["timings_ms"]["total"].as_f64().unwrap() >= 0.0);

    let library = vidya_core::Library::open(lib).unwrap();
    for c in cits {
        let n = c["n"].as_u64().unwrap();
        assert!(
            answer.contains(&format!("[{n}]")),
            "answer lacks [{n}]: {answer}"
        );
        assert_eq!(c["book"], "Biology 2e");
        assert_eq!(c["file"], "ch08.pdf", "photosynthesis is chapter 8: {c}");
        let label: u32 = c["page_label"]
            .as_str()
            .unwrap()
            .parse()
            .expect("numeric printed page");
        let pdf_page = c["pdf_page"].as_u64().unwrap() as u32;
        // Chapter 8 starts on printed page 152 (the footer numbers of the sample).
        assert_eq!(
            label,
            151 + pdf_page,
            "printed page = PDF page + 151 in chapter 8"
        );
        assert!((152..=165).contains(&label));
        // The page with that label holds every quoted sentence.
        let ordinal = 23 + pdf_page as usize - 1; // chapter 7 has 23 pages
        let page_text = squash(&library.page_text(1, ordinal).unwrap().unwrap());
        let quoted = squash(c["text"].as_str().unwrap());
        // Sentences that were not adjacent are joined with " … ".
        for part in quoted.split(" … ") {
            for sentence in vidya_core::text::split_sentences(part) {
                let s = sentence.slice(part);
                assert!(page_text.contains(s), "page {label} does not hold «{s}»");
            }
        }
    }
    // The answer names the book and the printed page in words too.
    assert!(answer.contains("Biology 2e, p. 15"), "{answer}");

    // Human-readable output lists the sources.
    let o = run(
        lib,
        &["ask", "Where do the light-dependent reactions take place?"],
    );
    ok(&o);
    let out = stdout(&o);
    assert!(
        out.contains("[1]") && out.contains("Sources:") && out.contains("printed page"),
        "{out}"
    );
}

#[test]
fn same_book_twice_is_not_duplicated_and_book_filter_works() {
    // The sample book, ingested from this folder (once per test binary, then copied).
    let dir = library_with_sample();
    let lib = dir.path();
    let src = fixtures().join("biology2e");
    let before = counts(lib);
    let o = run(lib, &["ingest", src.to_str().unwrap()]);
    ok(&o);
    assert!(
        stdout(&o).contains("Already in the library"),
        "{}",
        stdout(&o)
    );
    assert_eq!(counts(lib), before);

    // A single chapter file is a different book (different content hash).
    let o = run(
        lib,
        &[
            "ingest",
            src.join("ch07.pdf").to_str().unwrap(),
            "--title",
            "Respiration only",
        ],
    );
    ok(&o);
    assert!(
        stdout(&o).contains("ch07.pdf is also part of book 1"),
        "{}",
        stdout(&o)
    );
    let r = json(
        lib,
        &["ask", "What is glycolysis?", "--book", "2", "--json"],
    );
    for c in r["citations"].as_array().unwrap() {
        assert_eq!(c["book"], "Respiration only");
    }
    let o = run(lib, &["ask", "What is glycolysis?", "--book", "99"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no book with id 99"), "{}", stderr(&o));

    ok(&run(lib, &["remove", "2"]));
    assert_eq!(counts(lib), before);
}

#[test]
fn unanswerable_question_is_gated() {
    let dir = library_with_sample();
    let lib = dir.path();
    let r = json(
        lib,
        &[
            "ask",
            "Who won the cricket world cup final in Mumbai?",
            "--json",
        ],
    );
    assert_eq!(r["gated"], true, "{r}");
    assert!(r["citations"].as_array().unwrap().is_empty());
    assert!(r["answer"].as_str().unwrap().contains("could not find"));
}

/// ONNX Runtime 1.29+ writes a device id and a usage event for Microsoft under
/// `~/.cache/Microsoft/DeveloperTools/` when its environment is created, to upload when online;
/// Vidya turns that off before loading it.
#[test]
fn onnx_runtime_writes_no_telemetry() {
    let onnxruntime = vidya_core::native::locate("onnxruntime").and_then(|l| l.path);
    if onnxruntime.is_none() {
        eprintln!("skipped: ONNX Runtime is not installed (cargo xtask setup --models)");
        return;
    }
    let lib = library_with_sample();
    let home = tempfile::tempdir().unwrap();
    let o = vidya(lib.path())
        .env("HOME", home.path())
        .env_remove("XDG_CACHE_HOME")
        .env_remove("ORT_DISABLE_TELEMETRY")
        .args([
            "ask",
            "--no-llm",
            "--no-cache",
            "--json",
            "What is the Calvin cycle?",
        ])
        .output()
        .unwrap();
    ok(&o);
    let answer: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(
        answer["citations"]
            .as_array()
            .is_some_and(|c| !c.is_empty()),
        "{answer}"
    );
    let written = home.path().join(".cache/Microsoft");
    assert!(!written.exists(), "{} was written", written.display());
}

/// A question's trace record and the log go into the library folder (`--library`), so that
/// they travel with it and its backups.
#[test]
fn traces_and_logs_stay_with_the_library() {
    let lib = library_with_sample();
    let o = vidya(lib.path())
        .env_remove("VIDYA_TRACE_DIR")
        .args(["ask", "--no-llm", "--no-cache", "What is the Calvin cycle?"])
        .output()
        .unwrap();
    ok(&o);
    let traces: Vec<_> = std::fs::read_dir(lib.path().join("traces"))
        .map(|d| d.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        traces
            .iter()
            .any(|n| n.to_string_lossy().starts_with("trace")),
        "no trace file in the library: {traces:?}"
    );
    assert!(
        lib.path().join("logs").is_dir(),
        "no logs folder in the library"
    );
}
