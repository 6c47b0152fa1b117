//! The retrieval pipeline from the command line: `vidya ask --trace`, `vidya reindex`, and a
//! damaged model file (the answer still comes, with a note naming the setup command).

use crate::common::*;
use crate::support;

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
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(lib.join("vectors.json")).unwrap()).unwrap();
    assert!(lib.join(meta["file"].as_str().unwrap()).is_file());

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
    std::fs::write(
        e5.join(vidya_core::embed::MODEL_FILE),
        b"this is not an onnx model",
    )
    .unwrap();
    std::fs::write(
        e5.join(vidya_core::embed::WEIGHTS_FILE),
        b"nor are these weights",
    )
    .unwrap();
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

/// After an update of Vidya changed the embedder (another model id on the stored vectors), the
/// app (the window and `vidya serve` run this at start-up) makes the library's vectors again on
/// its own: dense retrieval comes back without anyone running `vidya reindex`.
#[test]
fn the_app_makes_vectors_from_an_earlier_version_again() {
    if !models_installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    let ch08 = fixtures().join("biology2e/ch08.pdf");
    ok(&run(lib, &["ingest", ch08.to_str().unwrap()]));
    let db = rusqlite::Connection::open(lib.join("library.sqlite3")).unwrap();
    for table in ["chunk_vectors", "sentence_vectors"] {
        db.execute(
            &format!("UPDATE {table} SET model = 'multilingual-e5-small:000000000000:s0'"),
            [],
        )
        .unwrap();
    }
    drop(db);
    let q = "What does chlorophyll do in photosynthesis?";
    let o = run(lib, &["ask", q, "--no-llm", "--trace"]);
    ok(&o);
    assert!(
        !trace_stages(&stdout(&o)).contains(&"dense".to_string()),
        "stale vectors are not searched: {}",
        stdout(&o)
    );
    assert!(stderr(&o).contains("have no vectors"), "{}", stderr(&o));
    let chunks = counts(lib).2 as usize;
    // `vidya doctor` names them, with what to do.
    let o = run(lib, &["doctor"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    for said in [
        format!("  vectors:  0 of {chunks} chunks searched by meaning"),
        format!("{chunks} of {chunks} chunk(s) have no vectors from this version's embedder"),
        "run `vidya reindex`".to_string(),
    ] {
        assert!(stdout(&o).contains(&said), "{said:?} not in {}", stdout(&o));
    }

    let app = vidya_core::app::App::open(lib, true, Default::default()).unwrap();
    assert_eq!(
        app.refresh_vectors(),
        chunks,
        "every chunk is embedded again"
    );
    assert_eq!(app.vector_refresh(), None);
    assert_eq!(app.health().unwrap().updating, None);
    assert_eq!(app.refresh_vectors(), 0, "nothing is left to do");
    drop(app);

    let o = run(lib, &["ask", q, "--no-llm", "--trace"]);
    ok(&o);
    assert!(
        trace_stages(&stdout(&o)).contains(&"dense".to_string()),
        "dense retrieval is back: {}",
        stdout(&o)
    );
    assert!(!stderr(&o).contains("reindex"), "{}", stderr(&o));
    let o = run(lib, &["doctor"]);
    assert!(
        stdout(&o).contains(&format!("  vectors:  {chunks} of {chunks} chunks searched"))
            && !stdout(&o).contains("no vectors"),
        "{}",
        stdout(&o)
    );
    // With vectors off (`vidya serve --no-embed`) the app leaves them alone.
    let db = rusqlite::Connection::open(lib.join("library.sqlite3")).unwrap();
    db.execute("UPDATE chunk_vectors SET model = 'old'", [])
        .unwrap();
    drop(db);
    let app = vidya_core::app::App::open(lib, false, Default::default()).unwrap();
    assert_eq!(app.refresh_vectors(), 0);
}

/// A teacher who adds a book while the app makes a library's vectors again does not wait for
/// the whole library: the refresh pauses for the ingest and goes on after it.
#[test]
fn a_book_added_during_the_refresh_goes_first() {
    if !models_installed() {
        return;
    }
    let dir = library_with_sample();
    let lib = dir.path();
    let db = stale_vectors(lib);
    let chunks = stale_count(&db);
    assert!(chunks > 100, "{chunks}");
    let notes = lib.join("notes.txt");
    std::fs::write(
        &notes,
        "Osmosis is the movement of water across a semipermeable membrane.\n\nDiffusion moves solutes from high to low concentration.",
    )
    .unwrap();
    let app = vidya_core::app::App::open(lib, true, Default::default()).unwrap();
    std::thread::scope(|scope| {
        let refresh = scope.spawn(|| app.refresh_vectors());
        // Once the refresh is under way, a book arrives.
        let done = loop {
            match app.vector_refresh() {
                Some(p) if p.done > 0 => break p.done as i64,
                _ => {
                    assert!(!refresh.is_finished(), "the refresh ended before it began");
                    std::thread::yield_now();
                }
            }
        };
        let mut notes_said = Vec::new();
        assert!(
            app.ingest(std::slice::from_ref(&notes), None, false, &mut |e| {
                if let vidya_core::app::IngestEvent::Note { message } = e {
                    notes_said.push(message);
                }
            })
        );
        let left = stale_count(&db);
        assert!(left > 0, "the book was added before the refresh finished");
        assert!(
            left <= chunks - done,
            "what was embedded before the pause is kept: {left} stale of {chunks}, {done} done"
        );
        // The teacher in the window is not told to run a command.
        assert!(
            notes_said.iter().all(|n| !n.contains("reindex")),
            "{notes_said:?}"
        );
        assert!(
            app.vector_refresh().is_some(),
            "the refresh goes on after the book"
        );
        assert_eq!(refresh.join().unwrap(), chunks as usize);
    });
    assert_eq!(stale_count(&db), 0);
    assert_eq!(app.books().unwrap().len(), 2);
    let o = run(lib, &["ask", "What is osmosis?", "--no-llm", "--trace"]);
    ok(&o);
    assert!(
        trace_stages(&stdout(&o)).contains(&"dense".to_string()),
        "{}",
        stdout(&o)
    );
}

/// Closing the app (Ctrl-C on `vidya serve`) stops the start-up refresh at once, keeping what
/// it embedded; the next start goes on from there. Chunks whose sentence vectors alone are
/// from an earlier version are made again too.
#[test]
fn closing_the_app_stops_the_refresh_and_keeps_its_work() {
    if !models_installed() {
        return;
    }
    let dir = library_with_sample();
    let lib = dir.path();
    let db = stale_vectors(lib);
    let chunks = stale_count(&db);
    let app = vidya_core::app::App::open(lib, true, Default::default()).unwrap();
    std::thread::scope(|scope| {
        let refresh = scope.spawn(|| app.refresh_vectors());
        while app.vector_refresh().is_none_or(|p| p.done == 0) {
            assert!(!refresh.is_finished(), "the refresh ended before it began");
            std::thread::yield_now();
        }
        app.close();
        assert_eq!(
            refresh.join().unwrap(),
            0,
            "a stopped refresh reports nothing"
        );
    });
    assert_eq!(app.vector_refresh(), None);
    let left = stale_count(&db);
    assert!(
        0 < left && left < chunks,
        "stopped part-way, keeping its work: {left} of {chunks} stale"
    );
    drop(app);

    let app = vidya_core::app::App::open(lib, true, Default::default()).unwrap();
    assert_eq!(app.refresh_vectors() as i64, left, "the next start goes on");
    assert_eq!(stale_count(&db), 0);
    // Sentence vectors alone from an earlier version.
    db.execute(
        "UPDATE sentence_vectors SET model = 'old' WHERE chunk_id IN (SELECT id FROM chunks ORDER BY id LIMIT 5)",
        [],
    )
    .unwrap();
    assert_eq!(app.refresh_vectors(), 5);
    let old: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM sentence_vectors WHERE model = 'old'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(old, 0);
}

/// Citations of `vidya ask --no-llm --json QUESTION` as `(file, pdf_page, text)`, and whether
/// the gate stopped it.
fn cited(
    lib: &std::path::Path,
    question: &str,
) -> (Vec<(String, u64, String)>, bool, serde_json::Value) {
    let a = json(lib, &["ask", "--no-llm", "--json", "--no-cache", question]);
    let c = a["citations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["file"].as_str().unwrap().to_string(),
                c["pdf_page"].as_u64().unwrap(),
                c["text"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (c, a["gated"].as_bool().unwrap(), a)
}

/// One of the first three citations is on `page` of ch08.pdf.
fn on_page(c: &[(String, u64, String)], page: u64) -> bool {
    c.iter()
        .take(3)
        .any(|(f, p, _)| f == "ch08.pdf" && *p == page)
}

#[test]
fn student_questions_find_their_pages_and_other_subjects_are_stopped() {
    if !models_installed() {
        return;
    }
    let lib = library_with_sample();
    let lib = lib.path();
    // A learning objective of section 8.2 word for word: the objectives chunk shares every
    // word, but the body sentences that answer it are quoted, not the objective.
    let (c, gated, a) = cited(lib, "explain how plants absorb energy from sunlight");
    assert!(!gated, "{a:#}");
    for (_, _, text) in &c {
        assert!(
            !text.contains("By the end of this section") && !text.contains("• Explain"),
            "an objective was quoted: {a:#}"
        );
    }
    // Pages 154 and 156-158 (PDF pages 3, 5-7) explain how chlorophyll and the other
    // pigments absorb light; page 155 (PDF page 4) holds the objectives.
    assert!(
        c.first()
            .is_some_and(|(f, p, _)| f == "ch08.pdf" && [3, 5, 6, 7].contains(p)),
        "the first source explains how pigments absorb light: {a:#}"
    );
    // Misspelt, SMS-style: corrected against the book's words, it finds its page.
    let (c, gated, a) = cited(
        lib,
        "wat happens in the lite dependent reactions of photosyntesis",
    );
    assert!(!gated, "{a:#}");
    assert!(
        a["retrieval"]["query"]["text"]
            .as_str()
            .unwrap()
            .contains("photosynthesis"),
        "{a:#}"
    );
    assert!(
        on_page(&c, 3),
        "the page of the two stages of photosynthesis: {a:#}"
    );
    // Hinglish over the English book.
    let (c, gated, a) = cited(lib, "light dependent reactions me kya hota hai");
    assert!(!gated, "{a:#}");
    assert!(on_page(&c, 3) || on_page(&c, 5), "{a:#}");
    // Questions from neighbouring school subjects are stopped, in English and Hindi.
    for q in [
        "what are the fundamental rights in the indian constitution",
        "how do you write the IUPAC name of a branched compound",
        "who was the first mughal emperor",
        "मुगल साम्राज्य की स्थापना किसने की",
    ] {
        let (c, gated, a) = cited(lib, q);
        assert!(gated && c.is_empty(), "{q}: {a:#}");
    }
    // The demo question's answer starts with a statement, not the figure's question.
    let (c, _, a) = cited(
        lib,
        "What happens in the light-dependent reactions of photosynthesis?",
    );
    let first = &c[0].2;
    assert!(
        !first.starts_with("What impact") && !first.contains('?') && !first.starts_with("Figure"),
        "{a:#}"
    );
}
