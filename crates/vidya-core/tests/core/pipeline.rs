//! The retrieval pipeline stage by stage on real textbook text (OpenStax Biology 2e chapters 7
//! and 8, committed under tests/fixtures). Needs the models (`cargo xtask setup --models`,
//! which `cargo xtask test` runs); without them the tests say so and skip, except under CI.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use vidya_core::embed::Embedder;
use vidya_core::ingest::{self, IngestOptions};
use vidya_core::retrieve::{Models, PipelineConfig};
use vidya_core::search::dense::IndexSource;
use vidya_core::{Engine, Library, VidyaError};

use crate::support;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

fn models() -> Option<Models> {
    support::installed_models()
}

fn ingest_into(lib: &mut Library, path: &Path, embedder: Option<Arc<Embedder>>) -> i64 {
    let opts = IngestOptions {
        embedder,
        ..IngestOptions::default()
    };
    let src = &ingest::plan(path).unwrap()[0];
    ingest::ingest_book(lib, src, &opts, &mut |_| {})
        .unwrap()
        .book_id
}

/// The sample book ingested once (with vectors) for every test of this file.
fn sample() -> Option<&'static Path> {
    static DIR: OnceLock<Option<tempfile::TempDir>> = OnceLock::new();
    DIR.get_or_init(|| {
        let m = models()?;
        let dir = tempfile::tempdir().unwrap();
        let mut lib = Library::open(dir.path()).unwrap();
        ingest_into(&mut lib, &fixtures().join("biology2e"), m.embedder.clone());
        Some(dir)
    })
    .as_ref()
    .map(|d| d.path())
}

fn engine(dir: &Path) -> Engine {
    Engine::with_models(Library::open(dir).unwrap(), &models().unwrap()).unwrap()
}

#[test]
fn every_stage_runs_and_kept_sentences_keep_their_pages() {
    let Some(dir) = sample() else { return };
    let e = engine(dir);
    assert!(
        e.retriever()
            .notes()
            .iter()
            .all(|n| !n.contains("dense retrieval")),
        "{:?}",
        e.retriever().notes()
    );
    let r = e
        .retrieve(
            "What happens in the light-dependent reactions of photosynthesis?",
            None,
            &PipelineConfig::default(),
        )
        .unwrap();
    let stages: Vec<&str> = r.stages.iter().map(|s| s.stage).collect();
    for s in [
        "embed_query",
        "router",
        "bm25",
        "dense",
        "fusion",
        "gate",
        "budget",
        "prune",
    ] {
        assert!(stages.contains(&s), "{s} missing from {stages:?}");
    }
    assert_eq!(r.route.considered, 2, "two chapters in the sample");
    assert!(r.gate.pass, "{:?}", r.gate_input);
    assert!(r.ranked.len() <= 5 && !r.ranked.is_empty());
    assert!(r
        .ranked
        .iter()
        .any(|c| c.bm25.is_some() && c.dense.is_some()));
    let budget = r.stages.iter().find(|s| s.stage == "budget").unwrap();
    assert!(budget.tokens_out.unwrap() <= 512, "{budget:?}");
    assert!(budget.tokens_out.unwrap() <= budget.tokens_in.unwrap());
    let prune = r.stages.iter().find(|s| s.stage == "prune").unwrap();
    assert!(
        prune.tokens_out.unwrap() <= prune.tokens_in.unwrap(),
        "{prune:?}"
    );
    assert!(!r.passages.is_empty());
    let lib = e.library();
    for p in &r.passages {
        assert!(
            p.chunk.chapter_title.contains("Photosynthesis"),
            "{}",
            p.chunk.chapter_title
        );
        for (i, s) in p.sentences.iter().enumerate() {
            if i > 0 {
                assert!(s.order > p.sentences[i - 1].order, "original order kept");
            }
            let page =
                vidya_common_squash(&lib.page_text(p.chunk.book_id, s.page).unwrap().unwrap());
            assert!(
                page.contains(&vidya_common_squash(&s.text)),
                "page {} lacks «{}»",
                s.page,
                s.text
            );
        }
        assert!(!p.sentences.is_empty(), "a passage keeps a sentence");
    }
    // The answer built from the pipeline cites the pages it quotes.
    let a = e
        .ask(
            "What happens in the light-dependent reactions of photosynthesis?",
            &Default::default(),
        )
        .unwrap();
    assert!(!a.gated && !a.citations.is_empty());
    assert!(a.context_tokens > 0 && a.context_tokens <= 512);
}

fn vidya_common_squash(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_hindi_question_over_the_english_book_finds_photosynthesis() {
    let Some(dir) = sample() else { return };
    let e = engine(dir);
    let r = e
        .retrieve(
            "प्रकाश संश्लेषण में क्लोरोफिल प्रकाश ऊर्जा को कैसे पकड़ता है?",
            None,
            &PipelineConfig::default(),
        )
        .unwrap();
    assert!(
        r.gate.pass,
        "a Hindi question is not stopped: {:?}",
        r.gate_input
    );
    let best = e.library().chunk(r.ranked[0].chunk_id).unwrap().unwrap();
    assert!(
        best.chapter_title.contains("Photosynthesis"),
        "{}",
        best.chapter_title
    );
    assert!(r.ranked[0].dense.is_some(), "found by the dense retriever");
    // Word search alone finds it too, through the English terms the glossary gives the
    // Hindi words.
    let words_only = PipelineConfig {
        dense: false,
        ..PipelineConfig::default()
    };
    let r = e
        .retrieve("प्रकाश संश्लेषण में क्लोरोफिल की भूमिका", None, &words_only)
        .unwrap();
    assert!(r.query.text.contains("photosynthesis"), "{:?}", r.query);
    let best = e.library().chunk(r.ranked[0].chunk_id).unwrap().unwrap();
    assert!(
        best.chapter_title.contains("Photosynthesis"),
        "{}",
        best.chapter_title
    );
    assert!(r.ranked[0].bm25.is_some(), "found by BM25");
}

#[test]
fn a_question_with_no_match_is_stopped_by_the_gate() {
    let Some(dir) = sample() else { return };
    let e = engine(dir);
    for q in [
        "Who won the cricket world cup final in Mumbai?",
        "How do I repair the brakes of a motorcycle?",
    ] {
        let r = e.retrieve(q, None, &PipelineConfig::default()).unwrap();
        assert!(!r.gate.pass, "{q}: {:?}", r.gate_input);
        assert!(r.passages.is_empty());
        let a = e.ask(q, &Default::default()).unwrap();
        assert!(a.gated && a.citations.is_empty());
    }
}

#[test]
fn an_empty_library_and_an_empty_question_give_clear_errors() {
    let Some(m) = models() else { return };
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::with_models(Library::open(dir.path()).unwrap(), &m).unwrap();
    let err = e
        .retrieve("What is ATP?", None, &PipelineConfig::default())
        .unwrap_err();
    assert!(matches!(err, VidyaError::EmptyLibrary), "{err}");
    assert!(err.to_string().contains("vidya ingest"));
    let Some(dir) = sample() else { return };
    let err = engine(dir)
        .retrieve("   ", None, &PipelineConfig::default())
        .unwrap_err();
    assert!(matches!(err, VidyaError::EmptyQuestion));
}

#[test]
fn a_book_with_one_page_is_searchable_by_every_stage() {
    let Some(m) = models() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mitochondria.txt");
    std::fs::write(
        &file,
        "Mitochondria are the powerhouses of the cell. They make ATP through cellular respiration, which uses oxygen and glucose. The inner membrane is folded into cristae.",
    )
    .unwrap();
    let libdir = dir.path().join("lib");
    let mut lib = Library::open(&libdir).unwrap();
    ingest_into(&mut lib, &file, m.embedder.clone());
    let e = Engine::with_models(lib, &m).unwrap();
    assert_eq!(e.retriever().dense().unwrap().len(), 1);
    let r = e
        .retrieve(
            "Where is ATP made in the cell?",
            None,
            &PipelineConfig::default(),
        )
        .unwrap();
    assert!(r.gate.pass, "{:?}", r.gate_input);
    assert_eq!(r.ranked.len(), 1);
    assert_eq!(r.route.considered, 1);
    assert!(r.passages[0].text().contains("ATP"));
}

#[test]
fn a_stale_or_damaged_vector_index_is_rebuilt_and_missing_vectors_are_reported() {
    let Some(m) = models() else { return };
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p
    };
    let a = write("cells.txt", "The cell membrane controls what enters and leaves the cell. Proteins in the membrane act as channels.");
    let b = write(
        "plants.txt",
        "Chlorophyll absorbs red and blue light. Plants store the sugar they make as starch.",
    );
    let libdir = dir.path().join("lib");
    let mut lib = Library::open(&libdir).unwrap();
    ingest_into(&mut lib, &a, m.embedder.clone());
    let e = Engine::with_models(lib, &m).unwrap();
    assert_eq!(e.retriever().dense().unwrap().len(), 1);
    drop(e);

    // A second book added by another program: the saved index is one vector short.
    let mut lib = Library::open(&libdir).unwrap();
    ingest_into(&mut lib, &b, m.embedder.clone());
    let e = Engine::with_models(lib, &m).unwrap();
    let d = e.retriever().dense().unwrap();
    assert_eq!((d.len(), d.source()), (2, IndexSource::Extended));
    drop(e);

    // A damaged index file is rebuilt from the stored vectors.
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(libdir.join("vectors.json")).unwrap()).unwrap();
    let file = libdir.join(meta["file"].as_str().unwrap());
    assert!(file.is_file(), "the side file names the index file");
    std::fs::write(&file, b"not an index").unwrap();
    let e = Engine::with_models(Library::open(&libdir).unwrap(), &m).unwrap();
    let d = e.retriever().dense().unwrap();
    assert_eq!((d.len(), d.source()), (2, IndexSource::Rebuilt));
    let r = e
        .retrieve(
            "What do plants store sugar as?",
            None,
            &PipelineConfig::default(),
        )
        .unwrap();
    assert!(r.passages[0].text().contains("starch"));
    drop(e);

    // A book stored without vectors: dense retrieval is off until `vidya reindex`.
    let c = write(
        "energy.txt",
        "Energy flows through ecosystems from producers to consumers.",
    );
    let mut lib = Library::open(&libdir).unwrap();
    ingest_into(&mut lib, &c, None);
    let e = Engine::with_models(lib, &m).unwrap();
    assert!(e.retriever().dense().is_none());
    let note = e.retriever().notes().join(" ");
    assert!(
        note.contains("1 chunk(s) have no vectors") && note.contains("vidya reindex"),
        "{note}"
    );
    let r = e
        .retrieve(
            "How does energy flow through ecosystems?",
            None,
            &PipelineConfig::default(),
        )
        .unwrap();
    assert!(r.gate.pass, "word search still answers: {:?}", r.gate_input);
    drop(e);
    let mut lib = Library::open(&libdir).unwrap();
    let report = ingest::reindex::reindex(
        &mut lib,
        m.embedder.as_ref().unwrap(),
        false,
        None,
        &mut |_, _| {},
    )
    .unwrap();
    assert_eq!((report.embedded, report.indexed), (1, 3));
    let e = Engine::with_models(lib, &m).unwrap();
    assert_eq!(e.retriever().dense().unwrap().len(), 3);

    // Removing a book makes the index stale; it is rebuilt without the book's vectors.
    drop(e);
    let mut lib = Library::open(&libdir).unwrap();
    lib.delete_book(1).unwrap();
    let e = Engine::with_models(lib, &m).unwrap();
    let d = e.retriever().dense().unwrap();
    assert_eq!((d.len(), d.source()), (2, IndexSource::Rebuilt));
}

#[test]
fn without_models_the_pipeline_falls_back_to_words_and_says_so() {
    let Some(dir) = sample() else { return };
    let e = Engine::with_models(Library::open(dir).unwrap(), &Models::none()).unwrap();
    let r = e
        .retrieve(
            "What happens in the light-dependent reactions of photosynthesis?",
            None,
            &PipelineConfig::default(),
        )
        .unwrap();
    let stages: Vec<&str> = r.stages.iter().map(|s| s.stage).collect();
    assert!(
        !stages.contains(&"dense") && stages.contains(&"bm25") && stages.contains(&"prune"),
        "{stages:?}"
    );
    assert!(r.gate.pass && !r.passages.is_empty());
    assert_eq!(r.gate.signal, "coverage");
}

#[test]
fn an_installed_cross_encoder_reorders_the_candidates_and_decides_the_gate() {
    let Some(dir) = sample() else { return };
    let Some(graphs) = support::test_graphs() else {
        return;
    };
    let overlap = graphs.join("overlap");
    let ce = vidya_core::retrieve::rerank::CrossEncoder::load_from(&overlap).unwrap();
    let with = Models {
        reranker: Some(Arc::new(ce)),
        ..models().unwrap()
    };
    let e = Engine::with_models(Library::open(dir).unwrap(), &with).unwrap();
    assert!(e.retriever().has_reranker());
    let q = "What do the light-dependent reactions of photosynthesis make?";
    let r = e.retrieve(q, None, &PipelineConfig::default()).unwrap();
    let rerank = r
        .stages
        .iter()
        .find(|s| s.stage == "rerank")
        .expect("rerank stage ran");
    assert_eq!(
        rerank.items_in, 30,
        "the default 30 fused candidates are reranked"
    );
    assert!(rerank.items_out <= 5);
    let logits: Vec<f32> = r.ranked.iter().map(|c| c.rerank.unwrap()).collect();
    assert!(
        logits.windows(2).all(|w| w[0] >= w[1]),
        "best first: {logits:?}"
    );
    assert_eq!(r.gate.signal, "rerank");
    assert_eq!(r.gate_input.rerank, Some(logits[0]));
    // Switched off in the config: the fused order stands and no logit is given.
    let off = PipelineConfig {
        rerank: false,
        ..PipelineConfig::default()
    };
    let r = e.retrieve(q, None, &off).unwrap();
    assert!(r.stages.iter().all(|s| s.stage != "rerank"));
    assert!(r.ranked.iter().all(|c| c.rerank.is_none()));
}

#[test]
fn rescoring_with_the_embedder_orders_the_fused_candidates_by_cosine() {
    let Some(dir) = sample() else { return };
    let e = engine(dir);
    let cfg = PipelineConfig {
        rescore: true,
        keep: 5,
        ..PipelineConfig::retrieval_only()
    };
    let r = e
        .retrieve("What do the light-dependent reactions make?", None, &cfg)
        .unwrap();
    assert!(
        r.stages.iter().any(|s| s.stage == "rescore"),
        "{:?}",
        r.stages
    );
    // With the sentence signal alone, the order is that of each chunk's best sentence cosine.
    let cfg = PipelineConfig {
        rescore_weight: 1.0,
        ..cfg
    };
    let r = e
        .retrieve("What do the light-dependent reactions make?", None, &cfg)
        .unwrap();
    let cos: Vec<f32> = r.ranked.iter().map(|c| c.sentence.unwrap()).collect();
    assert_eq!(cos.len(), 5);
    assert!(cos.windows(2).all(|w| w[0] >= w[1]), "{cos:?}");
    // The rescoring reads `rescore_top` fused candidates; the cross-encoder's `rerank_top`
    // does not limit it.
    for depth in [12, 40] {
        let deep = PipelineConfig {
            rescore_top: depth,
            rerank_top: 8,
            ..cfg.clone()
        };
        let r = e
            .retrieve("What do the light-dependent reactions make?", None, &deep)
            .unwrap();
        let rescore = r.stages.iter().find(|s| s.stage == "rescore").unwrap();
        assert_eq!(rescore.items_in, depth, "{:?}", r.stages);
    }
    // Without it the fused order stands (and no rescore stage runs).
    let plain = e
        .retrieve(
            "What do the light-dependent reactions make?",
            None,
            &PipelineConfig::retrieval_only(),
        )
        .unwrap();
    assert!(plain.stages.iter().all(|s| s.stage != "rescore"));
}

#[test]
fn a_definition_question_ranks_quotes_and_cites_the_defining_sentence_first() {
    use vidya_core::answer::extractive::from_passages;
    let Some(dir) = sample() else { return };
    let e = engine(dir);
    let cfg = PipelineConfig::default();
    for (question, definition) in [
        ("wat is chemiosmosis", "is called chemiosmosis"),
        ("define carbon fixation", "is called carbon fixation"),
        ("glycolysis meaning", "Glycolysis is the first step"),
    ] {
        let r = e.retrieve(question, None, &cfg).unwrap();
        assert!(r.gate.pass, "{question}");
        let first_defining = r.ranked.iter().position(|c| c.defines);
        let defining_chunk = first_defining.map(|i| r.ranked[i].chunk_id);
        let defining: Vec<&str> = r
            .passages
            .iter()
            .flat_map(|p| &p.sentences)
            .filter(|s| s.defines)
            .map(|s| s.text.as_str())
            .collect();
        assert!(
            defining.iter().any(|s| s.contains(definition)),
            "{question}: {defining:?}"
        );
        let answer = from_passages(e.library(), &r.passages, 4).unwrap();
        assert!(
            answer.citations[0].text.contains(definition),
            "{question}: the definition's page is cited first: {:?}",
            answer.citations
        );
        // Weight 0 turns definition questions' handling off: nothing is marked.
        let off = PipelineConfig {
            definition_weight: 0.0,
            ..cfg.clone()
        };
        let r = e.retrieve(question, None, &off).unwrap();
        assert!(r.ranked.iter().all(|c| !c.defines), "{question}");
        let before = r
            .ranked
            .iter()
            .position(|c| Some(c.chunk_id) == defining_chunk);
        assert!(
            first_defining.is_some() && first_defining <= before.or(Some(usize::MAX)),
            "{question}: the defining passage ranks no lower than without ({first_defining:?}, {before:?})"
        );
        assert!(r
            .passages
            .iter()
            .flat_map(|p| &p.sentences)
            .all(|s| !s.defines));
    }
    // A question that asks something else marks nothing.
    let r = e
        .retrieve("why do plants need sunlight", None, &cfg)
        .unwrap();
    assert!(r.ranked.iter().all(|c| !c.defines));
}

#[test]
fn the_gate_reads_the_depth_it_was_fitted_on_however_deep_the_rescoring() {
    use vidya_core::retrieve::gate::FIT_RESCORED;
    let Some(dir) = sample() else { return };
    let e = engine(dir);
    // Ranked by the best sentence alone, the best of every candidate is more often past the
    // first 30 (the sample book's 126 chunks give about 100 fused candidates).
    let deep = PipelineConfig {
        rescore_weight: 1.0,
        ..PipelineConfig::default()
    };
    assert!(deep.rescore_top > FIT_RESCORED);
    let shallow = PipelineConfig {
        rescore_top: FIT_RESCORED,
        ..deep.clone()
    };
    let mut reordered = 0;
    for q in [
        "wat is photosyntesis",
        "where does the calvin cycle happen",
        "why do leaves look green",
        "what is atp used for in the cell",
        "how r sugars made from co2",
        "who was the first mughal emperor",
        "types of soil in india",
        "diff b/w lok sabha n rajya sabha",
        "what is a thylakoid",
        "how does light energy become chemical energy",
        "role of nadph",
        "stomata kya hote hai",
        "what happens in the stroma",
        "why do plants need water for photosynthesis",
        "what is the electron transport chain",
        "hello how r u",
        "prove root 2 is irrational",
        "who wrote gitanjali",
        "pani ka boiling point kya hai",
        "newtons third law example",
    ] {
        let d = e.retrieve(q, None, &deep).unwrap();
        let s = e.retrieve(q, None, &shallow).unwrap();
        // The same candidate's signals (BM25 coverage sums its terms in hash order: to 1e-5).
        let (fd, fs) = (d.gate_input.features(), s.gate_input.features());
        assert_eq!(fd.is_some(), fs.is_some(), "{q}");
        for (x, y) in fd.unwrap_or_default().iter().zip(fs.unwrap_or_default()) {
            assert!(
                (x - y).abs() < 1e-5,
                "{q}: {:?} against {:?}",
                d.gate_input,
                s.gate_input
            );
        }
        assert_eq!(d.gate.pass, s.gate.pass, "{q}");
        let first = |r: &vidya_core::retrieve::PipelineResult| r.ranked.first().map(|c| c.chunk_id);
        reordered += usize::from(first(&d) != first(&s));
    }
    assert!(
        reordered > 0,
        "the deeper rescoring put no other passage first"
    );
}

#[test]
fn a_question_pasted_with_invisible_characters_finds_what_the_typed_one_finds() {
    let Some(dir) = sample() else { return };
    let e = engine(dir);
    let cfg = PipelineConfig::default();
    let typed = e.retrieve("what is chlorophyll", None, &cfg).unwrap();
    for pasted in [
        "what is chloro\u{200B}phyll",
        "what is chloro\u{00AD}phyll\u{FEFF}",
        "what is chloro\u{200D}phyll",
    ] {
        let r = e.retrieve(pasted, None, &cfg).unwrap();
        assert_eq!(r.gate.pass, typed.gate.pass, "{pasted:?}");
        assert_eq!(
            r.ranked.first().map(|c| c.chunk_id),
            typed.ranked.first().map(|c| c.chunk_id),
            "{pasted:?}"
        );
    }
    assert!(typed.gate.pass);
}
