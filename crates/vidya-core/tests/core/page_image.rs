//! The citation panel's page image: drawn from the book's own PDF, and refused with a reason
//! when that file was moved, or changed or replaced since the book was added (its pages would
//! no longer be the ones the stored text and citations came from). Needs pdfium (`cargo xtask
//! setup`); without it the test says so and skips, except under CI.

use std::path::Path;
use vidya_core::app::page_image;
use vidya_core::ingest::{self, IngestOptions};
use vidya_core::{Library, VidyaError};

use crate::support;

fn fixture(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/biology2e")
        .join(name)
}

/// The reason the teacher is given; checks that a student's device is given no path and no
/// fix of the teacher's.
fn why(r: vidya_core::Result<page_image::PageImage>) -> String {
    match r {
        Err(VidyaError::NoPageImage { why, student, path }) => {
            let path = path.to_string_lossy().to_string();
            assert!(
                !student.contains(&path)
                    && !student.contains("add the book")
                    && student.contains("teacher"),
                "{student}"
            );
            why
        }
        Err(e) => panic!("another error: {e}"),
        Ok(_) => panic!("the page was drawn"),
    }
}

#[test]
fn a_page_is_drawn_only_from_the_file_that_was_added() {
    if vidya_core::native::locate("pdfium").is_none_or(|l| l.path.is_none()) {
        support::skip("pdfium is not installed", "cargo xtask setup");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("ch07.pdf");
    std::fs::copy(fixture("ch07.pdf"), &book).unwrap();
    let mut lib = Library::open(dir.path().join("lib")).unwrap();
    let src = &ingest::plan(&book).unwrap()[0];
    let id = ingest::ingest_book(&mut lib, src, &IngestOptions::default(), &mut |_| {})
        .unwrap()
        .book_id;
    let drawn = page_image::render(&lib, id, 1, &[], 300).unwrap();
    assert_eq!(drawn.size.0, 300);
    assert_eq!(&drawn.png[..4], b"\x89PNG");

    // Another chapter copied over it: the same path, other pages. Drawing it would show
    // chapter 8's page under a chapter 7 citation.
    std::fs::copy(fixture("ch08.pdf"), &book).unwrap();
    let w = why(page_image::render(&lib, id, 1, &[], 300));
    assert!(w.contains("changed or replaced"), "{w}");
    // Its last page too: the same answer, not pdfium's error for a page the new file lacks.
    let last = (lib.book(id).unwrap().page_count - 1) as usize;
    let w = why(page_image::render(&lib, id, last, &[], 300));
    assert!(w.contains("changed or replaced"), "{w}");

    // The original put back: drawn again.
    std::fs::copy(fixture("ch07.pdf"), &book).unwrap();
    assert!(page_image::render(&lib, id, 1, &[], 300).is_ok());

    // Moved away.
    std::fs::rename(&book, dir.path().join("elsewhere.pdf")).unwrap();
    let w = why(page_image::render(&lib, id, 1, &[], 300));
    assert!(w.contains("moved or deleted"), "{w}");
}
