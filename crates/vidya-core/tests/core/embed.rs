//! The multilingual-e5-small embedder (needs `cargo xtask setup --models`, which
//! `cargo xtask test` runs; without the files the tests say so and skip, except under CI).

use vidya_core::embed::{cosine, Embedder, DIM, MODEL_DIR, MODEL_FILE, WEIGHTS_FILE};
use vidya_core::ingest::reindex::ChunkEmbedder;
use vidya_core::onnx::model_dirs;
use vidya_core::retrieve::prune::chunk_sentences;
use vidya_core::store::vectors::centroid;

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
    // A text's vector does not depend on what it is embedded with (each text runs alone:
    // the int8 model quantises its activations with one scale per run).
    let alone = e
        .embed_passages(&[
            "The cricket world cup final was played in Mumbai in front of a large crowd.",
        ])
        .unwrap();
    assert_eq!(alone[0], p[1]);
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

#[test]
fn a_chunks_vector_is_the_mean_of_its_sentences_and_section_and_a_repeated_sentence_is_reused() {
    if !installed() {
        return;
    }
    let e = Embedder::load().unwrap();
    let first = "Plants make food by photosynthesis. Chlorophyll absorbs red and blue light.";
    let second =
        "Chlorophyll absorbs red and blue light. Green light is reflected, so leaves look green.";
    let mut chunker = ChunkEmbedder::new(&e);
    let (v1, s1) = chunker
        .embed(
            "8.1 Overview of Photosynthesis",
            first,
            &chunk_sentences(first),
        )
        .unwrap();
    let (v2, s2) = chunker
        .embed(
            "8.1 Overview of Photosynthesis",
            second,
            &chunk_sentences(second),
        )
        .unwrap();
    assert_eq!((s1.len(), s2.len()), (2, 2));
    // The sentence the second chunk repeats (its overlap) has the same vector in both.
    assert_eq!(s1[1], s2[0]);
    // Each sentence's vector is its own text's, embedded alone.
    let alone = e
        .embed_passages(&[
            "Plants make food by photosynthesis.",
            "8.1 Overview of Photosynthesis",
        ])
        .unwrap();
    assert_eq!(s1[0], alone[0]);
    // The chunk's vector: the normalised mean of its sentences' and its section's.
    let mean = centroid([&s1[0][..], &s1[1], &alone[1]]).unwrap();
    assert!(cosine(&mean, &v1) > 0.9999, "{}", cosine(&mean, &v1));
    assert!(cosine(&v1, &v2) < 0.9999, "two chunks, one vector");
    // A chunk with no section: its sentences alone.
    let (v3, s3) = ChunkEmbedder::new(&e)
        .embed("", first, &chunk_sentences(first))
        .unwrap();
    let mean = centroid([&s3[0][..], &s3[1]]).unwrap();
    assert!(cosine(&mean, &v3) > 0.9999);
}

#[test]
fn the_worker_sessions_give_each_text_the_vector_the_question_session_gives() {
    if !installed() {
        return;
    }
    let e = Embedder::load().unwrap();
    let texts = [
        "Chlorophyll absorbs red and blue light.",
        "प्रकाश संश्लेषण में पौधे भोजन बनाते हैं।",
        "ದ್ಯುತಿಸಂಶ್ಲೇಷಣೆ",
        "A much longer passage about the way forces act on a body at rest, and how Newton's first law describes inertia for every object that is not pushed or pulled.",
        "Chlorophyll absorbs red and blue light.",
        "x",
    ];
    let mut pool = e.pool().unwrap();
    assert!(pool.workers() >= 1);
    let parallel = pool.embed_passages(&texts).unwrap();
    let alone = e.embed_passages(&texts).unwrap();
    assert_eq!(parallel.len(), texts.len());
    for (i, (p, a)) in parallel.iter().zip(&alone).enumerate() {
        assert_eq!(p.len(), DIM);
        assert_eq!(p, a, "text {i} got another vector from a worker");
    }
    assert!(pool.embed_passages(&[]).unwrap().is_empty());

    // A group of chunks embedded by the workers: the vectors of each chunk embedded in turn.
    let chunks = [
        ("8.1 Overview", "Plants make food by photosynthesis. Chlorophyll absorbs red and blue light."),
        ("", "Figure 8.2 A leaf"),
        ("8.1 Overview", "Chlorophyll absorbs red and blue light. Green light is reflected, so leaves look green."),
        ("8.2 The Light-Dependent Reactions", "Light energy splits water. Oxygen is released."),
    ];
    let sentences: Vec<_> = chunks.iter().map(|(_, t)| chunk_sentences(t)).collect();
    // In groups of one, then of three: the group of three begins with a figure caption, and
    // its next chunk repeats a sentence of the chunk before the group (the overlap around a
    // figure), which the group must still find.
    let mut parallel = ChunkEmbedder::parallel(&e).unwrap();
    let mut grouped = parallel.embed_texts(&chunks[..1]).unwrap();
    grouped.extend(parallel.embed_texts(&chunks[1..]).unwrap());
    let mut one_by_one = ChunkEmbedder::new(&e);
    for (g, ((context, text), s)) in grouped.iter().zip(chunks.iter().zip(&sentences)) {
        let (v, sv) = one_by_one.embed(context, text, s).unwrap();
        assert_eq!(g.0.len(), DIM, "chunk {text:?}");
        assert_eq!(g.0, v, "chunk {text:?}");
        assert_eq!(g.1, sv, "sentences of {text:?}");
        assert_eq!(sv.len(), s.len());
        assert!(sv.iter().all(|v| v.len() == DIM), "sentences of {text:?}");
    }
    // All four in one group: the same vectors.
    let together = ChunkEmbedder::parallel(&e)
        .unwrap()
        .embed_texts(&chunks)
        .unwrap();
    assert_eq!(together, grouped);
}
