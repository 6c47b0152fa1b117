//! Each step on a small text book with no model files: BM25, lexical pruning and the
//! coverage gate (the stages that need the embedder or the cross-encoder are skipped).
use super::*;
use crate::retrieve::gate::GateConfig;

const BOOK: &str = "Photosynthesis\n\nPhotosynthesis is the process by which green plants use light energy to make sugar from carbon dioxide and water. Chlorophyll in the chloroplasts absorbs the red and blue light and reflects green light, which is why leaves look green.\n\nThe light reactions take place in the thylakoid membranes, where water is split and oxygen is released.\n\nCell division\n\nMitosis divides one nucleus into two identical nuclei. Meiosis makes four cells with half the chromosomes, and crossing over mixes the genes of the parents.\n";

fn library(dir: &std::path::Path) -> (Library, Retriever) {
    let file = dir.join("biology.txt");
    std::fs::write(&file, BOOK).unwrap();
    let mut lib = Library::open(dir.join("lib")).unwrap();
    for src in crate::ingest::plan(&file).unwrap() {
        crate::ingest::ingest_book(&mut lib, &src, &Default::default(), &mut |_| {}).unwrap();
    }
    let r = Retriever::load(&lib, &Models::none()).unwrap();
    (lib, r)
}

fn stage_names(r: &PipelineResult) -> Vec<&'static str> {
    r.stages.iter().map(|s| s.stage).collect()
}

#[test]
fn a_question_goes_through_each_stage_without_models() {
    let dir = tempfile::tempdir().unwrap();
    let (lib, r) = library(dir.path());
    let cfg = PipelineConfig::default();
    // A misspelt question: read as the library's word (used at least twice), found by BM25,
    // passed by coverage.
    let res = r.run(&lib, "why do leaves look grene", None, &cfg).unwrap();
    assert_eq!(res.query.text, "why do leaves look green");
    assert_eq!(
        stage_names(&res),
        ["normalize", "bm25", "fusion", "gate", "prune", "budget"]
    );
    assert!(res.gate.pass, "{:?}", res.gate_input);
    assert_eq!(res.gate.signal, "coverage");
    assert!(res.ranked[0].bm25.is_some() && res.ranked[0].dense.is_none());
    let first = res.passages[0].text();
    assert!(first.contains("Chlorophyll"), "{first}");
    // The pruner kept the sentences with the question's words and left the one without.
    assert!(!first.contains("thylakoid"), "{first}");
    let prune = res.stages.iter().find(|s| s.stage == "prune").unwrap();
    assert!(prune.tokens_out < prune.tokens_in, "{prune:?}");
    assert!(res.context_tokens > 0 && res.context_tokens == res.budget.tokens_out);
    assert!(res.notes.iter().any(|n| n.starts_with("token counts")));
}

#[test]
fn books_chapters_and_the_gate_limit_what_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let (lib, r) = library(dir.path());
    let cfg = PipelineConfig::default();
    // Another book: nothing to search, so the gate stops the question.
    let res = r
        .run(&lib, "why do leaves look green", Some(&[999]), &cfg)
        .unwrap();
    assert!(res.ranked.is_empty() && res.passages.is_empty());
    assert_eq!((res.gate.pass, res.gate.signal), (false, "no_candidates"));
    // No word of the question in the book: the same.
    let res = r
        .run(&lib, "who won the cricket match", None, &cfg)
        .unwrap();
    assert_eq!((res.gate.pass, res.gate.signal), (false, "no_candidates"));
    // A gate that asks for more of the question's words than the best passage has.
    let strict = PipelineConfig {
        gate: Some(GateConfig {
            coverage: 0.99,
            ..GateConfig::default()
        }),
        ..PipelineConfig::default()
    };
    let res = r
        .run(&lib, "how do green plants make money", None, &strict)
        .unwrap();
    assert!(!res.gate.pass && res.gate.signal == "coverage");
    assert!(res.passages.is_empty() && res.budgeted.is_empty());
    // Without a gate the same question gets the passages.
    let open = PipelineConfig {
        gate: None,
        ..PipelineConfig::default()
    };
    let res = r
        .run(&lib, "how do green plants make money", None, &open)
        .unwrap();
    assert_eq!((res.gate.pass, res.gate.signal), (true, "off"));
    assert!(!res.passages.is_empty());
}

#[test]
fn without_the_pruner_the_budget_keeps_whole_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let (lib, r) = library(dir.path());
    let cfg = PipelineConfig {
        prune: false,
        ..PipelineConfig::default()
    };
    let res = r
        .run(&lib, "what do mitosis and meiosis make", None, &cfg)
        .unwrap();
    assert_eq!(stage_names(&res).last(), Some(&"budget"));
    assert!(!stage_names(&res).contains(&"prune"));
    let text = res.passages[0].text();
    assert!(
        text.contains("Mitosis") && text.contains("crossing over"),
        "{text}"
    );
    // A budget of a few tokens keeps less than the chunk.
    let tight = PipelineConfig {
        budget: Some(8),
        ..cfg
    };
    let small = r
        .run(&lib, "what do mitosis and meiosis make", None, &tight)
        .unwrap();
    assert!(small.context_tokens <= 8 || small.passages.len() <= 1);
    assert!(small.budget.tokens_in > small.budget.tokens_out);
}

#[test]
fn an_empty_library_is_an_error_not_an_empty_answer() {
    let dir = tempfile::tempdir().unwrap();
    let lib = Library::open(dir.path().join("lib")).unwrap();
    let r = Retriever::load(&lib, &Models::none()).unwrap();
    let e = r
        .run(&lib, "what is light", None, &PipelineConfig::default())
        .unwrap_err();
    assert!(matches!(e, VidyaError::EmptyLibrary), "{e}");
}

#[test]
fn fusion_weights_follow_the_questions_script() {
    let configured = Fusion::Weighted { dense: 0.4 };
    let english = NormalizedQuery {
        text: "why are leaves green".into(),
        ..Default::default()
    };
    assert_eq!(fusion_for(&english, &english.text, configured), configured);
    let hindi = "पत्तियाँ हरी क्यों होती हैं";
    assert_eq!(
        fusion_for(&english, hindi, configured),
        Fusion::Weighted {
            dense: INDIC_DENSE_WEIGHT
        }
    );
    let translated = NormalizedQuery {
        english: Some("leaves green".into()),
        ..english.clone()
    };
    assert_eq!(
        fusion_for(&translated, hindi, configured),
        Fusion::Weighted {
            dense: CROSS_LINGUAL_DENSE_WEIGHT
        }
    );
    // Reciprocal-rank fusion has no weight to change.
    let rrf = Fusion::Rrf {
        k: super::super::fusion::RRF_K,
    };
    assert_eq!(fusion_for(&translated, hindi, rrf), rrf);
}

#[test]
fn boilerplate_ranks_below_body_text_and_objectives_are_dropped() {
    let kinds = |id: i64| match id {
        1 => Some(BlockKind::Body),
        2 => Some(BlockKind::Objectives),
        3 => Some(BlockKind::Figure),
        _ => None,
    };
    let mut fused = vec![(3, 1.0), (2, 0.9), (1, 0.8), (4, 0.7)];
    demote_boilerplate(&mut fused, 0.5, &kinds);
    assert_eq!(fused, [(1, 0.8), (4, 0.7), (3, 0.5)]);
}
