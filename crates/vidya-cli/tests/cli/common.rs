//! Helpers shared by the CLI integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The committed fixtures folder (`tests/fixtures`).
pub fn fixtures() -> PathBuf {
    repo_root().join("tests/fixtures")
}

/// `../shared/data` beside the checkout (or `$VIDYA_SHARED_DATA`), when present. Tests that need
/// it print why they skip and return.
pub fn shared_data() -> Option<PathBuf> {
    let p = std::env::var_os("VIDYA_SHARED_DATA")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("../shared/data"));
    if p.is_dir() {
        Some(p)
    } else {
        eprintln!(
            "skipped: shared evaluation data not found at {} (set VIDYA_SHARED_DATA)",
            p.display()
        );
        None
    }
}

/// Whether an OCR engine (Tesseract with one of Vidya's languages) is installed; when not, says
/// why the calling test skips.
pub fn ocr_engine_or_skip() -> bool {
    match vidya_core::ingest::ocr::engine() {
        Ok(_) => true,
        Err(why) => {
            eprintln!("skipped: no OCR engine ({why})");
            false
        }
    }
}

/// A `vidya` command using the library folder `lib`.
pub fn vidya(lib: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vidya"));
    c.arg("--library")
        .arg(lib)
        .env_remove("VIDYA_LIBRARY")
        .env("XDG_DATA_HOME", lib.join("data-home"))
        // Hermetic: no test talks to a real Ollama unless it passes --host itself. Nothing
        // listens on port 9 (discard), so the tutor falls back to the extractive answer.
        .env("OLLAMA_HOST", "http://127.0.0.1:9");
    c
}

/// A fresh library holding the committed sample book (`tests/fixtures/biology2e`, 37 pages).
///
/// The book is ingested once per test binary (about 25 s on a 2-core machine) and each caller
/// gets its own copy of the library files, so tests stay independent without paying for an
/// ingest each. Tests of ingestion itself ingest on their own.
pub fn library_with_sample() -> tempfile::TempDir {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    let built = BUILT.get_or_init(|| {
        let dir = tempfile::Builder::new()
            .prefix("vidya-sample-library")
            .tempdir()
            .unwrap()
            .keep();
        ok(&run(
            &dir,
            &["ingest", fixtures().join("biology2e").to_str().unwrap()],
        ));
        dir
    });
    let copy = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(built).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), copy.path().join(entry.file_name())).unwrap();
        }
    }
    copy
}

/// Runs `vidya` with `args` and returns its output.
pub fn run(lib: &Path, args: &[&str]) -> Output {
    vidya(lib).args(args).output().expect("vidya runs")
}

/// stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

/// stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Runs `vidya ... --json` and parses stdout.
pub fn json(lib: &Path, args: &[&str]) -> serde_json::Value {
    let o = run(lib, args);
    serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: stdout {} stderr {}", stdout(&o), stderr(&o)))
}

/// Asserts the command succeeded.
pub fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "status {:?}\nstdout: {}\nstderr: {}",
        o.status,
        stdout(o),
        stderr(o)
    );
}

/// Library counts (books, pages, chunks) read straight from the database.
pub fn counts(lib: &Path) -> (i64, i64, i64) {
    let l = vidya_core::Library::open(lib).unwrap();
    l.counts().unwrap()
}

/// Whitespace-insensitive containment (page text keeps line breaks; quotes join lines).
pub fn squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A lock for tests that must not share the machine with each other: the real model's tests
/// (llama.cpp keeps both cores busy for minutes) and the classroom tests that wait for a
/// server within a few seconds. All of this binary's modules run in one process, two tests at
/// a time; before they were one binary each, these two groups never overlapped.
pub fn exclusive() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    // A test that failed while holding it does not stop the others.
    LOCK.lock().unwrap_or_else(|p| p.into_inner())
}

/// Marks every stored chunk and sentence vector of the library at `lib` as made by an earlier
/// version of Vidya (model id `old`), as an update that changed the embedder leaves them, and
/// returns the open database.
pub fn stale_vectors(lib: &Path) -> rusqlite::Connection {
    let db = rusqlite::Connection::open(lib.join("library.sqlite3")).unwrap();
    for table in ["chunk_vectors", "sentence_vectors"] {
        db.execute(&format!("UPDATE {table} SET model = 'old'"), [])
            .unwrap();
    }
    db
}

/// Chunk vectors still from the earlier version ([`stale_vectors`]).
pub fn stale_count(db: &rusqlite::Connection) -> i64 {
    db.query_row(
        "SELECT COUNT(*) FROM chunk_vectors WHERE model = 'old'",
        [],
        |r| r.get(0),
    )
    .unwrap()
}
