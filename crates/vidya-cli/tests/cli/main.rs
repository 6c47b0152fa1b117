//! The `vidya` command line's integration tests, one test binary (linking pdfium, ONNX Runtime
//! and usearch once instead of once per file), one module per area. Most start the `vidya`
//! binary itself; run one area with `cargo test -p vidya-cli --test cli <module>::`, e.g.
//! `cargo test -p vidya-cli --test cli real_llm::`.

mod common;
#[path = "../../../vidya-core/tests/support/mod.rs"]
mod support;

mod bad_input;
mod biology_full;
mod crash_safety;
mod indic_extraction;
mod indic_search;
mod ocr_scans;
mod pipeline_cli;
mod real_llm;
mod sample_book;
mod serve_api;
mod serve_pool;
mod serve_report;
mod serve_roles;
mod setup_cli;
mod tricky_pdfs;
mod tutor;
