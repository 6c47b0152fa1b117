//! Indic text extraction: the character error rate of `shared/data/indic_pdfs` after Vidya's
//! repairs (`vidya eval --extraction`), and a Kruti Dev legacy-font book (committed fixture)
//! that ingests as readable Hindi and answers a Hindi question from its page.

use crate::common::*;

#[test]
fn extraction_meets_the_cer_targets() {
    let Some(data) = shared_data() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let dir = data.join("indic_pdfs");
    let rows = json(
        tmp.path(),
        &["eval", "--extraction", dir.to_str().unwrap(), "--json"],
    );
    let rows = rows.as_array().unwrap();
    assert_eq!(rows.len(), 6, "{rows:?}");
    for r in rows {
        let file = r["file"].as_str().unwrap();
        let (before, after) = (
            r["cer_before"].as_f64().unwrap(),
            r["cer_after"].as_f64().unwrap(),
        );
        eprintln!("{file}: CER {:.2}% → {:.2}%", 100.0 * before, 100.0 * after);
        if file.contains("krutidev") {
            assert_eq!(r["converted_from"], "Kruti Dev", "{r}");
            assert!(
                before > 0.5,
                "{file}: the raw text layer is Latin gibberish: {r}"
            );
            assert!(after <= 0.03, "{file}: CER {after} above 3%");
        } else {
            assert!(r["converted_from"].is_null(), "{r}");
            assert!(after <= 0.01, "{file}: CER {after} above 1%");
            assert!(after < before, "{file}: the repairs changed nothing: {r}");
        }
    }
}

#[test]
fn a_kruti_dev_book_ingests_as_hindi_and_answers_a_hindi_question() {
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path();
    let pdf = fixtures().join("indic/hi_krutidev010_legacy.pdf");
    let o = run(lib, &["ingest", pdf.to_str().unwrap(), "--no-embed"]);
    ok(&o);
    let said = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        said.contains("Kruti Dev"),
        "the teacher is told about the conversion: {said}"
    );
    let books = json(lib, &["books", "--json"]);
    let b = &books[0];
    assert_eq!(b["language"], "hi", "{b}");
    assert!(b.to_string().contains("Kruti Dev"), "{b}");

    // The stored page reads as Hindi (the ground truth's opening words), not as gibberish.
    let library = vidya_core::Library::open(lib).unwrap();
    let page = library
        .page_text(b["id"].as_i64().unwrap(), 0)
        .unwrap()
        .unwrap();
    assert!(page.contains("पैंथर्स की"), "{page}");
    assert!(!page.contains("iSaFklZ"), "{page}");

    let r = json(
        lib,
        &["ask", "पैंथर्स की डिफ़ेन्स ने लीग में कितने अंक दिए?", "--json"],
    );
    assert_eq!(r["gated"], false, "{r}");
    let first = &r["citations"][0];
    assert_eq!(first["pdf_page"], 1, "{r}");
    assert!(r["answer"].as_str().unwrap().contains("308"), "{r}");
}
