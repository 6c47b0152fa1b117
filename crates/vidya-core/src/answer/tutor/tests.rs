//! The tutor's steps on a small text book, with no model files (BM25 and lexical pruning)
//! and no model server (nothing listens at the address).
use super::*;
use crate::retrieve::Models;
use crate::Library;

const BOOK: &str = "Photosynthesis\n\nPhotosynthesis is the process by which green plants use light energy to make sugar from carbon dioxide and water. Chlorophyll in the chloroplasts absorbs the red and blue light and reflects green light, which is why leaves look green.\n\nThe light reactions take place in the thylakoid membranes, where water is split and oxygen is released.\n\nCell division\n\nMitosis divides one nucleus into two identical nuclei. Meiosis makes four cells with half the chromosomes, and crossing over mixes the genes of the parents.\n";

fn tutor(dir: &std::path::Path) -> Tutor {
    // Traces of these turns go to the system's temporary folder, not the user's data.
    static TRACES: std::sync::Once = std::sync::Once::new();
    TRACES.call_once(|| {
        std::env::set_var(
            "VIDYA_TRACE_DIR",
            std::env::temp_dir().join("vidya-unit-test-traces"),
        )
    });
    let file = dir.join("biology.txt");
    std::fs::write(&file, BOOK).unwrap();
    let mut lib = Library::open(dir.join("lib")).unwrap();
    for src in crate::ingest::plan(&file).unwrap() {
        crate::ingest::ingest_book(&mut lib, &src, &Default::default(), &mut |_| {}).unwrap();
    }
    let engine = Engine::with_models(lib, &Models::none()).unwrap();
    let llm = LlmConfig {
        // Nothing listens on port 9 (discard) here: the model cannot be reached.
        host: "http://127.0.0.1:9".into(),
        connect_timeout_ms: 500,
        ..LlmConfig::default()
    };
    Tutor::new(engine, llm)
}

#[test]
fn each_step_alone_without_model_files_or_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let t = tutor(dir.path());
    // begin: a question with no word (only punctuation and emoji) is refused; a real one is checked, its language found.
    assert!(matches!(
        t.begin("  ?? 🙏 ", &TutorOptions::default()),
        Err(VidyaError::EmptyQuestion)
    ));
    let opts = TutorOptions {
        use_cache: false,
        ..TutorOptions::default()
    };
    let q = t.begin("why do leaves look green", &opts).unwrap();
    assert_eq!(q.lang, "en");
    assert!(q.history.is_empty());
    // rewrite: a first question is its own query, and needs no model.
    assert!(!t.rewrite_needs_model(&q));
    let query = t.rewrite(&q, true);
    assert_eq!(
        (query.text.as_str(), query.source),
        ("why do leaves look green", QuerySource::Question)
    );
    // retrieve: with the model on, a draft whose passages hold the answer.
    let Step::NeedsModel(draft) = t.retrieve(q.clone(), query.clone()).unwrap() else {
        panic!("an answerable question goes on to the model");
    };
    assert!(
        draft
            .citations()
            .iter()
            .any(|c| c.text.contains("reflects green light")),
        "{:?}",
        draft.citations()
    );
    // generate: the model cannot be reached, so the textbook's sentences answer, with why.
    let a = t.generate(*draft, &mut |_| {}, None).unwrap();
    assert_eq!(a.status, AnswerStatus::Extractive);
    assert!(a.llm_error.is_some() && a.note.is_some(), "{a:?}");
    assert!(a.base.answer.contains("green light"), "{}", a.base.answer);
    assert!(a.turn_id.is_some(), "the turn is remembered");
    // Without the model, retrieve finishes the turn itself.
    let no_llm = TutorOptions {
        use_llm: false,
        ..opts.clone()
    };
    let q = t.begin("wat is crossing over in meiosis", &no_llm).unwrap();
    let query = t.rewrite(&q, false);
    let Step::Answered(a) = t.retrieve(q, query).unwrap() else {
        panic!("no model: answered at once");
    };
    assert_eq!(a.status, AnswerStatus::Extractive);
    assert!(a.base.answer.contains("crossing over"), "{}", a.base.answer);
}

#[test]
fn a_follow_up_is_rewritten_without_the_model_when_it_is_off() {
    let dir = tempfile::tempdir().unwrap();
    let t = tutor(dir.path());
    let opts = TutorOptions {
        use_llm: false,
        use_cache: false,
        ..TutorOptions::default()
    };
    let first = t.ask("what is meiosis", &opts, &mut |_| {}, None).unwrap();
    let follow = TutorOptions {
        conversation: first.conversation_id,
        ..opts.clone()
    };
    let q = t
        .begin("and how is it different from mitosis?", &follow)
        .unwrap();
    assert_eq!(q.history.len(), 1);
    assert!(!t.rewrite_needs_model(&q), "the model is off");
    let query = t.rewrite(&q, false);
    assert_eq!(query.source, QuerySource::Fallback);
    assert!(
        query.text.to_lowercase().contains("meiosis"),
        "{}",
        query.text
    );
    let with_model = Question {
        opts: TutorOptions {
            use_llm: true,
            ..follow.clone()
        },
        ..q
    };
    assert!(t.rewrite_needs_model(&with_model));
    // "??" after an answer asks about it again: a follow-up made from the earlier turn, not
    // an empty question (it is one outside a conversation).
    let q = t.begin("??", &follow).unwrap();
    let query = t.rewrite(&q, false);
    assert!(
        query.text.to_lowercase().contains("meiosis"),
        "{}",
        query.text
    );
    assert!(matches!(
        t.begin("  ", &follow),
        Err(VidyaError::EmptyQuestion)
    ));
}
