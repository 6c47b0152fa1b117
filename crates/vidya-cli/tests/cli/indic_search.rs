//! Indic-aware BM25 on the Unicode Hindi, Marathi, Telugu, Tamil and Kannada PDFs of
//! `shared/data/indic_pdfs`: words taken from each ground-truth text are one token each (vowel
//! signs, virama and nukta stay inside) and a search for the word retrieves its page.

use crate::common::*;
use vidya_core::ingest::{self, IngestOptions};
use vidya_core::text::Tokenizer;
use vidya_core::{Engine, Library};

fn has_combining_mark(w: &str) -> bool {
    // Indic dependent vowel signs, virama, nukta, anusvara: the marks a naive tokenizer splits.
    w.chars().any(|c| {
        let u = c as u32;
        (0x0900..=0x0DFF).contains(&u)
            && matches!(u & 0x7F, 0x00..=0x03 | 0x3C | 0x3E..=0x4D | 0x55..=0x57 | 0x62 | 0x63)
    })
}

#[test]
fn indic_words_are_single_tokens_and_find_their_page() {
    let Some(data) = shared_data() else { return };
    let dir = data.join("indic_pdfs");
    let tok = Tokenizer::new();
    let cases = [
        (
            "hi_xquad_unicode.pdf",
            "hi_xquad_unicode.groundtruth.txt",
            "hi",
        ),
        (
            "mr_indicquest_unicode.pdf",
            "mr_indicquest_unicode.groundtruth.txt",
            "mr",
        ),
        (
            "te_indicquest_unicode.pdf",
            "te_indicquest_unicode.groundtruth.txt",
            "te",
        ),
        (
            "ta_indicquest_unicode.pdf",
            "ta_indicquest_unicode.groundtruth.txt",
            "ta",
        ),
        (
            "kn_indicquest_unicode.pdf",
            "kn_indicquest_unicode.groundtruth.txt",
            "kn",
        ),
    ];
    for (pdf, truth, lang) in cases {
        let tmp = tempfile::tempdir().unwrap();
        let mut lib = Library::open(tmp.path()).unwrap();
        let src = &ingest::plan(&dir.join(pdf)).unwrap()[0];
        let report =
            ingest::ingest_book(&mut lib, src, &IngestOptions::default(), &mut |_| {}).unwrap();
        assert_eq!(report.language, lang, "{pdf}: language detection");
        let pages: Vec<String> = (0..report.pages)
            .map(|p| lib.page_text(report.book_id, p).unwrap().unwrap())
            .collect();
        let engine = Engine::from_library(lib).unwrap();

        let truth_text =
            vidya_core::text::normalize(&std::fs::read_to_string(dir.join(truth)).unwrap());
        // Words as a reader sees them: runs of letters, digits and Indic signs (dandas and
        // other punctuation separate words).
        let word_char = |c: char| {
            c.is_alphanumeric()
                || (('\u{0900}'..='\u{0DFF}').contains(&c) && !matches!(c, '\u{0964}' | '\u{0965}'))
        };
        let mut words: Vec<String> = truth_text
            .split(|c: char| !word_char(c))
            .map(String::from)
            .filter(|w| {
                w.chars().count() >= 4 && has_combining_mark(w) && w.chars().all(|c| !c.is_ascii())
            })
            .collect();
        words.sort();
        words.dedup();
        // Every ground-truth word with vowel signs / virama / nukta is exactly one token.
        for w in &words {
            let terms = tok.terms(w);
            assert!(terms.len() <= 1, "{pdf}: «{w}» split into {terms:?}");
        }
        // Words that survived extraction (pdfium's text layer; repairs are a later issue) must
        // retrieve a page that holds them.
        // (Stop words such as "आसपास" are not indexed by design and are left out.)
        let page_terms: Vec<std::collections::HashSet<String>> = pages
            .iter()
            .map(|p| tok.terms(p).into_iter().collect())
            .collect();
        let on = |p: usize, w: &str| {
            tok.terms(w)
                .first()
                .is_some_and(|t| page_terms[p].contains(t))
        };
        let found: Vec<&String> = words
            .iter()
            .filter(|w| (0..pages.len()).any(|p| on(p, w)))
            .collect();
        let mut checked = 0;
        for w in found.iter().step_by((found.len() / 12).max(1)) {
            // Word search (BM25) alone: the dense retriever would also find related pages.
            let cfg = vidya_core::retrieve::PipelineConfig {
                dense: false,
                keep: 1,
                ..vidya_core::retrieve::PipelineConfig::retrieval_only()
            };
            let hits = engine.retrieve(w, None, &cfg).unwrap();
            let best = hits
                .ranked
                .first()
                .unwrap_or_else(|| panic!("{pdf}: «{w}» retrieved nothing"));
            let chunk = engine.library().chunk(best.chunk_id).unwrap().unwrap();
            let on_page = (chunk.first_page..=chunk.last_page).any(|p| on(p, w));
            assert!(
                on_page,
                "{pdf}: «{w}» retrieved pages {}–{} that do not hold it",
                chunk.first_page, chunk.last_page
            );
            checked += 1;
        }
        eprintln!(
            "{pdf}: {} ground-truth words with vowel signs/virama/nukta, all single tokens; {} found as whole words in the extracted text; {checked} searched, all retrieved their page",
            words.len(),
            found.len()
        );
        assert!(checked >= 5, "{pdf}: only {checked} words could be checked");
    }
}
