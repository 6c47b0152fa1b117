//! Killing the process in the middle of an ingest leaves the library exactly as before that
//! book, and the next ingest completes.

use crate::common::*;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

/// Every stored book is whole: the pages and chunks tables hold exactly what the books table
/// says they should.
fn assert_consistent(lib: &std::path::Path) {
    let l = vidya_core::Library::open(lib).unwrap();
    assert_eq!(l.integrity_check().unwrap(), "ok");
    let (books, pages, chunks) = l.counts().unwrap();
    let list = l.books().unwrap();
    assert_eq!(list.len() as i64, books);
    assert_eq!(
        list.iter().map(|b| b.page_count).sum::<i64>(),
        pages,
        "orphan or missing pages"
    );
    assert_eq!(
        list.iter().map(|b| b.chunk_count).sum::<i64>(),
        chunks,
        "orphan or missing chunks"
    );
}

#[test]
fn sigkill_inside_the_transaction_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    let fixtures = fixtures().join("biology2e");
    // A book already in the library must survive untouched.
    ok(&run(
        lib,
        &["ingest", fixtures.join("ch07.pdf").to_str().unwrap()],
    ));
    let before = counts(lib);
    let books_before = json(lib, &["books", "--json"]);

    let mut child = vidya(lib)
        .args(["ingest", fixtures.to_str().unwrap()])
        .env(vidya_core::ingest::FAULT_PAUSE_ENV, "60000")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let mut reached = false;
    for line in BufReader::new(stderr).lines() {
        if line.unwrap().contains("ingest transaction open") {
            reached = true;
            break;
        }
    }
    assert!(reached, "the ingest never reached its transaction");
    child.kill().unwrap(); // SIGKILL on Unix
    child.wait().unwrap();

    assert_eq!(counts(lib), before, "the killed ingest left rows behind");
    assert_eq!(json(lib, &["books", "--json"]), books_before);
    assert_consistent(lib);

    let o = run(lib, &["ingest", fixtures.to_str().unwrap()]);
    ok(&o);
    assert!(
        stdout(&o).contains("Added \"Biology 2e\""),
        "{}",
        stdout(&o)
    );
    let after = counts(lib);
    assert_eq!(after.0, before.0 + 1);
    assert_consistent(lib);
}

#[test]
fn sigkill_at_any_moment_leaves_whole_books_only() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    // The whole Biology 2e folder when the shared data is present (a ~10 s ingest for word
    // search; `--no-embed` because embedding its 3,500 chunks takes many minutes and the killed
    // moments are all before the transaction either way), else the sample chapters.
    let src = shared_data()
        .map(|d| d.join("openstax_biology2e/pdf"))
        .unwrap_or_else(|| fixtures().join("biology2e"));
    for delay_ms in [50u64, 300, 1000, 2500, 5000] {
        let mut child = vidya(lib)
            .args(["ingest", "--no-embed", src.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        child.wait().unwrap();
        assert_consistent(lib);
        let (books, _, _) = counts(lib);
        assert!(books <= 1, "a killed ingest must never store a book twice");
    }
    ok(&run(lib, &["ingest", "--no-embed", src.to_str().unwrap()]));
    assert_eq!(counts(lib).0, 1);
    assert_consistent(lib);
}
