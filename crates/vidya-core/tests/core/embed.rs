//! The multilingual-e5-small embedder (needs `cargo xtask setup --models`, which
//! `cargo xtask test` runs; without the files the tests say so and skip, except under CI).

use vidya_core::embed::{cosine, Embedder, DIM, MODEL_DIR, MODEL_FILE, WEIGHTS_FILE};
use vidya_core::onnx::model_dirs;

use crate::support;

fn installed() -> bool {
    support::installed_models().is_some()
}

#[test]
fn a_hindi_question_finds_the_english_passage() {
    if !installed() {
        return;
    }
    let e = Embedder::load().unwrap();
    let q = e
        .embed_queries(&[
            "प्रकाश संश्लेषण में पौधे भोजन कैसे बनाते हैं?",
            "How do plants make their food?",
        ])
        .unwrap();
    let p = e
        .embed_passages(&[
            "Photosynthesis is the process by which green plants use sunlight to make sugar from carbon dioxide and water.",
            "The cricket world cup final was played in Mumbai in front of a large crowd.",
            "प्रकाश संश्लेषण वह प्रक्रिया है जिसमें हरे पौधे सूर्य के प्रकाश से भोजन बनाते हैं।",
        ])
        .unwrap();
    assert_eq!(q.len(), 2);
    assert_eq!(p.len(), 3);
    for v in q.iter().chain(&p) {
        assert_eq!(v.len(), DIM);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-3, "not unit length: {norm}");
    }
    for query in &q {
        let photosynthesis = cosine(query, &p[0]);
        let cricket = cosine(query, &p[1]);
        assert!(
            photosynthesis > cricket + 0.05,
            "{photosynthesis} vs {cricket}"
        );
        assert!(cosine(query, &p[2]) > cricket + 0.05);
    }
    // Alone or in a padded batch, a text embeds (nearly) the same way: dynamic int8
    // quantisation sees the whole batch's activations, so they are close, not identical.
    let alone = e
        .embed_passages(&[
            "The cricket world cup final was played in Mumbai in front of a large crowd.",
        ])
        .unwrap();
    let same = cosine(&alone[0], &p[1]);
    eprintln!("cosine(alone, in batch) = {same:.4}");
    assert!(same > 0.97, "{same}");
    assert!(e.embed_queries(&[]).unwrap().is_empty());
}

#[test]
fn missing_or_damaged_model_files_name_the_setup_command() {
    if !installed() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let e = Embedder::load_from(dir.path()).unwrap_err();
    assert_eq!(e.kind(), "model_missing");
    assert!(e.to_string().contains("cargo xtask setup --models"), "{e}");
    let real = model_dirs(MODEL_DIR)
        .into_iter()
        .find(|d| d.join("tokenizer.json").is_file())
        .unwrap();
    std::fs::copy(
        real.join("tokenizer.json"),
        dir.path().join("tokenizer.json"),
    )
    .unwrap();
    std::fs::write(dir.path().join(MODEL_FILE), b"not an onnx model").unwrap();
    let e = Embedder::load_from(dir.path()).unwrap_err();
    assert!(
        e.to_string().contains(WEIGHTS_FILE) && e.to_string().contains("is missing"),
        "{e}"
    );
    std::fs::write(dir.path().join(WEIGHTS_FILE), b"weights").unwrap();
    let e = Embedder::load_from(dir.path()).unwrap_err();
    assert!(e.to_string().contains("is damaged"), "{e}");
    assert!(e.to_string().contains("cargo xtask setup --models"), "{e}");
}
