//! The whole OpenStax Biology 2e (47 chapter PDFs, 1,069 pages) from `shared/data`: ingest it as
//! one book (word search only: embedding 3,500 chunks takes minutes and is measured by
//! `vidya eval`/`vidya bench`, see the README), answer on the photosynthesis pages, and report
//! page-level recall@5 of BM25 over the book's QA set (target ≥ 0.60).

use crate::common::*;

#[test]
fn biology_2e_end_to_end_and_recall_at_5() {
    let Some(data) = shared_data() else { return };
    let bio = data.join("openstax_biology2e");
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    let o = run(
        lib,
        &["ingest", "--no-embed", bio.join("pdf").to_str().unwrap()],
    );
    ok(&o);
    eprintln!("{}", stdout(&o).trim());
    let books = json(lib, &["books", "--json"]);
    assert_eq!(books.as_array().unwrap().len(), 1);
    assert_eq!(books[0]["title"], "Biology 2e");
    assert_eq!(books[0]["file_count"], 47);
    assert_eq!(books[0]["chapter_count"], 47);
    assert_eq!(books[0]["page_count"], 1069);

    let r = json(
        lib,
        &[
            "ask",
            "what happens in the light-dependent reactions",
            "--json",
        ],
    );
    assert_eq!(r["gated"], false);
    let first = &r["citations"][0];
    assert_eq!(first["file"], "ch08.pdf");
    let label: u32 = first["page_label"].as_str().unwrap().parse().unwrap();
    assert!((154..=160).contains(&label), "cited printed page {label}");
    // Printed labels match the manifest's book-wide numbering (chapter 8 starts after 151 pages).
    assert_eq!(label, 151 + first["pdf_page"].as_u64().unwrap() as u32);

    let report = json(
        lib,
        &[
            "eval",
            "--qa",
            bio.join("qa.jsonl").to_str().unwrap(),
            "--k",
            "5",
            "--configs",
            "bm25",
            "--json",
        ],
    );
    let report = &report["configs"][0];
    assert_eq!(report["name"], "bm25");
    let recall = report["recall"].as_f64().unwrap();
    eprintln!(
        "Biology 2e QA, BM25 only: page-level recall@5 = {recall:.3}, MRR@5 = {:.3} over {} questions",
        report["mrr"].as_f64().unwrap(),
        report["evaluated"],
    );
    assert_eq!(report["evaluated"], 1509);
    assert!(recall >= 0.60, "recall@5 {recall} below the 0.60 target");
}
