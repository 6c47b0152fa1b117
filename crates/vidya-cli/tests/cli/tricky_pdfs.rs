//! Every PDF in `shared/data/tricky_pdfs` (see its manifest.json) either ingests with the text
//! the manifest expects or fails with a specific, named error; nothing panics and nothing
//! half-stored remains.

use crate::common::*;
use vidya_core::ingest::{self, IngestOptions};
use vidya_core::Library;

/// What a manifest category may give.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// Ingested, with the manifest's sample words in the text.
    Text,
    /// Ingested by OCR, with words of the file's ground truth in the text.
    Ocr,
    /// Ingested by OCR, or refused as "scanned" (pictures without real text: a symbol
    /// bitmap, a fax test pattern).
    OcrOrScanned,
    /// One of these error kinds.
    Error(&'static [&'static str]),
}

/// The outcomes acceptable for a manifest category, given whether an OCR engine is installed.
fn expected(category: &str, has_sample: bool, ocr: bool) -> Want {
    match category {
        "encrypted_password" => Want::Error(&["encrypted"]),
        c if c.starts_with("image_only") && !ocr => Want::Error(&["scanned"]),
        c if c.starts_with("image_only_scan") => Want::Ocr,
        "image_only" => Want::OcrOrScanned,
        "text_extracts_as_garbage" if !ocr => Want::Error(&["scanned", "garbled_text"]),
        "text_extracts_as_garbage" => Want::OcrOrScanned,
        "truncated" => Want::Error(&["corrupt"]),
        "malformed" if !has_sample => Want::Error(&["corrupt"]),
        _ => Want::Text,
    }
}

/// The stored text of an ingested book's pages, joined and lower-cased.
fn book_text(lib: &Library, r: &ingest::IngestReport) -> String {
    (0..r.pages)
        .filter_map(|p| lib.page_text(r.book_id, p).unwrap())
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Up to six words of 4+ letters from a scan's ground truth file (`X.groundtruth.txt` or
/// `X.groundtruth_approx.txt` beside `X.pdf`), in its own script, taken from its middle.
fn ground_truth_words(pdf: &std::path::Path) -> Vec<String> {
    let stem = pdf.with_extension("");
    let text = ["groundtruth.txt", "groundtruth_approx.txt"]
        .iter()
        .find_map(|ext| std::fs::read_to_string(format!("{}.{ext}", stem.display())).ok())
        .unwrap_or_default();
    let words: Vec<String> = text
        .split(|c: char| c.is_whitespace() || c.is_ascii_punctuation() || c == '।')
        .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
        .map(str::to_lowercase)
        .collect();
    let mid = words.len() / 2;
    words.into_iter().skip(mid).step_by(7).take(6).collect()
}

fn words(sample: &str) -> Vec<String> {
    sample
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 3 && w.chars().all(|c| c.is_ascii_alphabetic()))
        .take(4)
        .map(str::to_lowercase)
        .collect()
}

#[test]
fn tricky_pdfs_ingest_or_fail_by_name() {
    let Some(data) = shared_data() else { return };
    let root = data.join("tricky_pdfs");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("manifest.json")).unwrap())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    let ocr = vidya_core::ingest::ocr::engine().is_ok();
    eprintln!("OCR engine installed: {ocr}");
    let mut failures = Vec::new();
    for entry in manifest.as_array().unwrap() {
        let file = entry["file"].as_str().unwrap();
        let category = entry["category"].as_str().unwrap();
        let sample = entry["observed_poppler_pypdf"]["pdftotext_sample"]
            .as_str()
            .unwrap_or("");
        let path = root.join(file);
        let before = lib.counts().unwrap();
        let outcome = ingest::plan(&path).and_then(|b| {
            ingest::ingest_book(&mut lib, &b[0], &IngestOptions::default(), &mut |_| {})
        });
        let want = expected(category, !sample.is_empty(), ocr);
        let line = match (&outcome, want) {
            (Ok(r), Want::Ocr | Want::OcrOrScanned) => {
                let text = book_text(&lib, r);
                let ocr_pages = lib
                    .books()
                    .unwrap()
                    .into_iter()
                    .find(|b| b.id == r.book_id)
                    .map_or(0, |b| b.ocr_page_count);
                if ocr_pages == 0 || r.chunks == 0 {
                    failures.push(format!(
                        "{file}: ingested without OCR'd pages ({ocr_pages}) or chunks"
                    ));
                }
                if matches!(want, Want::Ocr) {
                    let expect = ground_truth_words(&path);
                    let found = expect.iter().filter(|w| text.contains(w.as_str())).count();
                    // OCR may miss a word; most must be there.
                    if expect.len() < 3 || found * 3 < expect.len() * 2 {
                        failures.push(format!(
                            "{file}: OCR text has {found} of the ground truth's words {expect:?}"
                        ));
                    }
                }
                format!(
                    "ok by OCR: {} pages ({ocr_pages} by OCR), {} chunks",
                    r.pages, r.chunks
                )
            }
            (Err(e), Want::Ocr) => {
                failures.push(format!(
                    "{file}: {} ({e}) but expected text by OCR",
                    e.kind()
                ));
                "unexpected error".into()
            }
            (Ok(r), Want::Text) => {
                let text = book_text(&lib, r);
                let missing: Vec<String> = words(sample)
                    .into_iter()
                    .filter(|w| !text.contains(w.as_str()))
                    .collect();
                let script_ok = match category {
                    "complex_script" => text.chars().any(|c| {
                        ('\u{0600}'..='\u{06FF}').contains(&c)
                            || ('\u{FB50}'..='\u{FEFF}').contains(&c)
                    }),
                    "cjk_vertical_text" => text.contains("日本語"),
                    _ => true,
                };
                if !missing.is_empty() || !script_ok || r.chunks == 0 {
                    failures.push(format!(
                        "{file}: text lacks {missing:?} (script ok: {script_ok})"
                    ));
                }
                format!("ok: {} pages, {} chunks", r.pages, r.chunks)
            }
            (Err(e), Want::Error(_) | Want::OcrOrScanned) => {
                let kinds: &[&str] = match want {
                    Want::Error(kinds) => kinds,
                    _ => &["scanned"],
                };
                if !kinds.contains(&e.kind()) {
                    failures.push(format!(
                        "{file}: error {} ({e}), expected one of {kinds:?}",
                        e.kind()
                    ));
                }
                assert_eq!(
                    lib.counts().unwrap(),
                    before,
                    "{file}: a failed ingest stored something"
                );
                format!("error {}: {e}", e.kind())
            }
            (Ok(r), Want::Error(kinds)) => {
                failures.push(format!(
                    "{file}: ingested ({} pages) but expected an error {kinds:?}",
                    r.pages
                ));
                "unexpected ok".into()
            }
            (Err(e), Want::Text) => {
                failures.push(format!("{file}: {} ({e}) but expected text", e.kind()));
                assert_eq!(lib.counts().unwrap(), before);
                "unexpected error".into()
            }
        };
        eprintln!("{file:55} [{category}] {line}");
    }
    assert_eq!(lib.integrity_check().unwrap(), "ok");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A question answered only on a scanned page (the book has no text layer at all) is answered
/// from the OCR'd text and cites that page, by the printed number read from its footer; the page
/// picture highlights the quote from the OCR'd words' boxes.
#[test]
fn question_answered_only_on_a_scanned_page_cites_it() {
    let Some(data) = shared_data() else { return };
    if !ocr_engine_or_skip() {
        return;
    }
    let pdf = data.join("tricky_pdfs/constructed/scanned_biology2e_ch02_p1-3.pdf");
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path();
    let o = run(lib, &["ingest", pdf.to_str().unwrap()]);
    ok(&o);
    let books = json(lib, &["books", "--json"]);
    assert_eq!(books[0]["ocr_page_count"], 3, "{books}");
    // Printed pages 19, 20, 21 (the scans' footers); each question's answer is on one of them.
    let mut quotes = Vec::new();
    for (question, label, words) in [
        (
            "Why is the chemical symbol for sodium Na?",
            "19",
            &["natrium"][..],
        ),
        (
            "How much of an atom's volume is empty space?",
            "20",
            &["99 percent", "empty space"][..],
        ),
        (
            "How is carbon-14 created in the atmosphere?",
            "21",
            &["neutron"][..],
        ),
    ] {
        let r = json(lib, &["ask", question, "--json"]);
        quotes.push((
            r["citations"][0]["page"].as_u64().unwrap_or(0) as usize,
            r["citations"][0]["text"].as_str().unwrap_or("").to_string(),
        ));
        assert_eq!(r["gated"], false, "{question}: {r}");
        let first = &r["citations"][0];
        assert_eq!(first["page_label"], label, "{question}: {r}");
        let quote = first["text"].as_str().unwrap().to_lowercase();
        assert!(
            words.iter().all(|w| quote.contains(w)),
            "{question}: the cited passage lacks {words:?}: {quote}"
        );
    }
    // The cited scan is drawn with the quote highlighted from the OCR boxes.
    let library = vidya_core::Library::open(lib).unwrap();
    let words = library.ocr_words(1, 1).unwrap();
    assert!(
        words.len() > 100,
        "OCR boxes stored for page 2: {}",
        words.len()
    );
    for (page, quote) in quotes {
        let drawn = vidya_core::app::page_image::render(
            &library,
            1,
            page,
            std::slice::from_ref(&quote),
            600,
        )
        .unwrap();
        assert!(
            drawn.highlights > 0,
            "no highlight on page {page} for «{quote}»"
        );
    }
}

/// Cancelling while scanned pages are read by OCR stops the ingest with "cancelled" and stores
/// nothing; the OCR progress on the way carries the time left once a page is read.
#[test]
fn cancel_during_ocr_stores_nothing() {
    let Some(data) = shared_data() else { return };
    if !ocr_engine_or_skip() {
        return;
    }
    let pdf = data.join("tricky_pdfs/constructed/scanned_biology2e_ch02_p1-3.pdf");
    let dir = tempfile::tempdir().unwrap();
    let mut lib = Library::open(dir.path()).unwrap();
    let before = lib.counts().unwrap();
    let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let opts = IngestOptions {
        cancel: Some(cancel.clone()),
        ..IngestOptions::default()
    };
    let mut ocr_events = Vec::new();
    let book = &ingest::plan(&pdf).unwrap()[0];
    let outcome = ingest::ingest_book(&mut lib, book, &opts, &mut |p| {
        if let ingest::Progress::Ocr {
            done,
            total,
            seconds_left,
            ..
        } = p
        {
            ocr_events.push((done, total, seconds_left));
            // Cancel as soon as the first page is read.
            cancel.store(true, std::sync::atomic::Ordering::Relaxed);
        }
    });
    let err = outcome.expect_err("the cancelled ingest finished");
    assert_eq!(err.kind(), "cancelled", "{err}");
    assert!(!ocr_events.is_empty(), "no OCR progress before the cancel");
    assert!(
        ocr_events
            .iter()
            .any(|(done, total, left)| *done >= 1 && done < total && left.is_some()),
        "no time left shown after the first page: {ocr_events:?}"
    );
    assert_eq!(
        lib.counts().unwrap(),
        before,
        "a cancelled ingest stored something"
    );
}
