//! vidya-core's integration tests that share one test binary (linking pdfium, ONNX Runtime and
//! usearch once): the embedder, the interface fonts, the Ollama client, the page image,
//! the retrieval pipeline and the gate's other-subject examples. `rerank.rs` and `setup_wizard.rs` stay binaries of their own: they set environment
//! variables the other tests read. Run one area with `cargo test -p vidya-core --test core
//! <module>::`.

#[path = "../support/mod.rs"]
mod support;

mod embed;
mod fonts;
mod ollama_client;
mod page_image;
mod pipeline;
mod subjects;
