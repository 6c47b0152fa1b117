//! Every PDF in `shared/data/tricky_pdfs` (see its manifest.json) either ingests with the text
//! the manifest expects or fails with a specific, named error; nothing panics and nothing
//! half-stored remains.

use crate::common::*;
use vidya_core::ingest::{self, IngestOptions};
use vidya_core::Library;

/// The outcomes acceptable for a manifest category: `Ok(())` = ingested with text, else the
/// error kinds allowed.
fn expected(category: &str, has_sample: bool) -> Result<(), &'static [&'static str]> {
    match category {
        "encrypted_password" => Err(&["encrypted"]),
        c if c.starts_with("image_only") => Err(&["scanned"]),
        "text_extracts_as_garbage" => Err(&["scanned", "garbled_text"]),
        "truncated" => Err(&["corrupt"]),
        "malformed" if !has_sample => Err(&["corrupt"]),
        _ => Ok(()),
    }
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
        let want = expected(category, !sample.is_empty());
        let line = match (&outcome, want) {
            (Ok(r), Ok(())) => {
                let text: String = (0..r.pages)
                    .filter_map(|p| lib.page_text(r.book_id, p).unwrap())
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase();
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
            (Err(e), Err(kinds)) => {
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
            (Ok(r), Err(kinds)) => {
                failures.push(format!(
                    "{file}: ingested ({} pages) but expected an error {kinds:?}",
                    r.pages
                ));
                "unexpected ok".into()
            }
            (Err(e), Ok(())) => {
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
