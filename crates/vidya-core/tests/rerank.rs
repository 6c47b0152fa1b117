//! The cross-encoder reranker (stage 2 of retrieval) on the test graphs that
//! `cargo xtask setup --test-models` generates (`cargo xtask test` runs it; CI always does):
//!
//! * `overlap/`: logit = number of distinct passage tokens that also occur in the question, so
//!   every score can be checked exactly against an independent count, and `max_length = 64`
//!   makes truncation observable;
//! * `minilm-shape/`: the shape of ms-marco-MiniLM-L-6-v2 with random weights (int8), for a
//!   smoke test and the latency measurement (`cargo test -p vidya-core --test rerank --
//!   --ignored --nocapture`).
//!
//! Without the graphs the tests print `skipped:` and pass, except under CI (`CI` set), where
//! they fail.

use std::collections::HashSet;
use std::path::Path;
use std::time::Instant;
use vidya_core::onnx::model_dirs;
use vidya_core::retrieve::rerank::{CrossEncoder, BATCH, RERANKER_DIR};

mod support;

macro_rules! models_or_skip {
    () => {
        match support::test_graphs() {
            Some(dir) => dir,
            None => return,
        }
    };
}

fn overlap(dir: &Path) -> CrossEncoder {
    CrossEncoder::load_from(&dir.join("overlap")).expect("the overlap test graph loads")
}

/// What the overlap graph must compute, counted independently: distinct non-special token ids
/// of the passage (its first `passage_budget` tokens) that also occur in the question.
struct Reference {
    tokenizer: tokenizers::Tokenizer,
    special: HashSet<u32>,
}

impl Reference {
    fn new(dir: &Path) -> Self {
        let mut tokenizer =
            tokenizers::Tokenizer::from_file(dir.join("overlap/tokenizer.json")).unwrap();
        tokenizer.with_truncation(None).unwrap();
        tokenizer.with_padding(None);
        let special = tokenizer
            .get_added_tokens_decoder()
            .into_iter()
            .filter(|(_, t)| t.special)
            .map(|(id, _)| id)
            .collect();
        Self { tokenizer, special }
    }

    fn ids(&self, text: &str) -> Vec<u32> {
        self.tokenizer
            .encode(text, false)
            .unwrap()
            .get_ids()
            .iter()
            .copied()
            .filter(|id| !self.special.contains(id))
            .collect()
    }

    /// Overlap of the pair when the passage keeps at most `passage_budget` tokens.
    fn count(&self, query: &str, passage: &str, passage_budget: usize) -> f32 {
        let q: HashSet<u32> = self.ids(query).into_iter().collect();
        let full = self.tokenizer.encode(passage, false).unwrap();
        let p: HashSet<u32> = full
            .get_ids()
            .iter()
            .take(passage_budget)
            .copied()
            .filter(|id| !self.special.contains(id))
            .collect();
        p.intersection(&q).count() as f32
    }

    fn len(&self, text: &str) -> usize {
        self.tokenizer.encode(text, false).unwrap().get_ids().len()
    }
}

const QUESTION: &str = "How do chloroplasts use light energy in photosynthesis?";

/// Textbook-like sentences (biology, grade 9–11).
const SENTENCES: &[&str] = &[
    "In photosynthesis, chloroplasts capture light energy and convert it into chemical energy stored in sugar.",
    "Cellular respiration breaks down glucose in the mitochondria to release energy as ATP.",
    "The heart pumps blood through arteries, veins and capillaries.",
    "Chlorophyll absorbs mostly red and blue light and reflects green light.",
    "During glycolysis, one molecule of glucose is split into two molecules of pyruvate.",
    "Stomata on the underside of leaves let carbon dioxide enter and oxygen leave.",
    "The Calvin cycle uses ATP and NADPH to fix carbon dioxide into sugar.",
    "Enzymes are proteins that speed up chemical reactions without being used up.",
    "Xylem carries water and minerals from the roots to the leaves.",
    "Fermentation lets yeast make ATP without oxygen, producing ethanol and carbon dioxide.",
    "Mitochondria are called the powerhouse of the cell.",
    "The light-dependent reactions take place in the thylakoid membranes of the chloroplast.",
];

#[test]
fn the_passage_sharing_the_questions_words_ranks_first() {
    let dir = models_or_skip!();
    let ce = overlap(&dir);
    let reference = Reference::new(&dir);
    let passages = [SENTENCES[1], SENTENCES[0], SENTENCES[2], SENTENCES[3]];
    let scores = ce.score(QUESTION, &passages).unwrap();
    eprintln!("overlap logits: {scores:?}");
    for (p, s) in passages.iter().zip(&scores) {
        assert_eq!(*s, reference.count(QUESTION, p, usize::MAX), "{p}");
    }
    assert_eq!(scores[2], 0.0, "the heart shares no word with the question");
    let ranked = ce.rerank(QUESTION, &passages, 10).unwrap();
    assert_eq!(ranked.len(), 4);
    assert_eq!(ranked[0].0, 1, "{ranked:?}");
    assert_eq!(ranked[3].0, 2, "{ranked:?}");
    assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1), "{ranked:?}");
    for (i, s) in &ranked {
        assert_eq!(*s, scores[*i]);
    }
}

#[test]
fn keep_limits_the_result_list_and_ties_keep_passage_order() {
    let dir = models_or_skip!();
    let ce = overlap(&dir);
    let all = ce.rerank(QUESTION, SENTENCES, usize::MAX).unwrap();
    assert_eq!(all.len(), SENTENCES.len());
    let top3 = ce.rerank(QUESTION, SENTENCES, 3).unwrap();
    assert_eq!(top3, all[..3].to_vec());
    assert!(ce.rerank(QUESTION, SENTENCES, 0).unwrap().is_empty());
    // The same passage twice: equal logits, lower index first.
    let twice = ce
        .rerank(QUESTION, &[SENTENCES[2], SENTENCES[0], SENTENCES[0]], 3)
        .unwrap();
    assert_eq!(twice.iter().map(|r| r.0).collect::<Vec<_>>(), vec![1, 2, 0]);
}

#[test]
fn batches_give_the_same_scores_as_one_pair_at_a_time() {
    let dir = models_or_skip!();
    let ce = overlap(&dir);
    let reference = Reference::new(&dir);
    // 40 passages of different lengths (1–3 sentences): three batches, the last one partial.
    let texts: Vec<String> = (0..40)
        .map(|i| {
            (0..=(i % 3))
                .map(|k| SENTENCES[(i * 5 + k * 7) % SENTENCES.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let passages: Vec<&str> = texts.iter().map(String::as_str).collect();
    assert!(passages.len() > 2 * BATCH && !passages.len().is_multiple_of(BATCH));
    let together = ce.score(QUESTION, &passages).unwrap();
    eprintln!("40 passages: {together:?}");
    assert_eq!(together.len(), 40);
    for (p, s) in passages.iter().zip(&together) {
        assert_eq!(ce.score(QUESTION, &[p]).unwrap(), vec![*s], "{p}");
        let budget = ce.max_length() - 3 - reference.len(QUESTION);
        assert_eq!(*s, reference.count(QUESTION, p, budget), "{p}");
    }
    assert!(together.iter().any(|&s| s > 0.0) && together.contains(&0.0));
}

#[test]
fn the_passage_is_cut_at_max_length_and_the_question_is_kept() {
    let dir = models_or_skip!();
    let ce = overlap(&dir);
    let reference = Reference::new(&dir);
    assert_eq!(ce.max_length(), 64, "overlap/vidya-reranker.toml says 64");
    let question = "Where is chlorophyll found?";
    // 70 words that share no token with the question.
    let filler = "Roots absorb water and minerals from soil. ".repeat(10);
    assert_eq!(reference.count(question, &filler, usize::MAX), 0.0);
    assert!(3 + reference.len(question) + reference.len(&filler) > 64);

    let early = format!("Chlorophyll colours leaves green. {filler}");
    let late = format!("{filler}Chlorophyll colours leaves green.");
    let s = ce.score(question, &[&early, &late, &filler]).unwrap();
    eprintln!("early, late, none: {s:?}");
    let full = reference.count(question, "Chlorophyll colours leaves green.", usize::MAX);
    assert!(full >= 1.0);
    assert_eq!(
        s[0], full,
        "the matching word at the start of the passage counts"
    );
    assert_eq!(
        s[1], 0.0,
        "the matching word after token 64 is cut off with the passage's end"
    );
    assert_eq!(s[2], 0.0);

    // The question is never the part that is cut: its words all count whatever the passage.
    let echo = format!("Where is chlorophyll found? {filler}");
    let q_only = reference.count(question, question, usize::MAX);
    assert_eq!(ce.score(question, &[&echo]).unwrap(), vec![q_only]);
}

#[test]
fn empty_inputs_and_very_long_texts() {
    let dir = models_or_skip!();
    let ce = overlap(&dir);
    assert!(ce.score(QUESTION, &[]).unwrap().is_empty());
    assert!(ce.rerank(QUESTION, &[], 5).unwrap().is_empty());
    assert_eq!(ce.score(QUESTION, &[""]).unwrap(), vec![0.0]);

    // A whole chapter as one passage: cut to max_length, scored, quickly.
    let chapter = SENTENCES.join(" ").repeat(300);
    let started = Instant::now();
    let s = ce.score(QUESTION, &[&chapter, SENTENCES[0]]).unwrap();
    assert!(s.iter().all(|x| x.is_finite()), "{s:?}");
    assert!(
        s[0] > 0.0,
        "its opening sentence shares the question's words"
    );
    eprintln!(
        "a passage of {} characters scored in {:?}",
        chapter.len(),
        started.elapsed()
    );

    // A question longer than max_length (a pasted paragraph) is cut, not an error.
    let long_question = format!("{QUESTION} {}", SENTENCES.join(" ").repeat(20));
    let s = ce.score(&long_question, &[SENTENCES[0], ""]).unwrap();
    assert_eq!(s.len(), 2);
    assert!(s[0] > 0.0 && s[1] == 0.0, "{s:?}");
}

#[test]
fn missing_corrupt_and_wrong_models_give_clear_errors() {
    let dir = models_or_skip!();
    let tokenizer = dir.join("overlap/tokenizer.json");

    // No model.onnx.
    let folder = tempfile::tempdir().unwrap();
    std::fs::copy(&tokenizer, folder.path().join("tokenizer.json")).unwrap();
    let e = CrossEncoder::load_from(folder.path()).unwrap_err();
    assert_eq!(e.kind(), "reranker_broken");
    let msg = e.to_string();
    eprintln!("{msg}");
    assert!(msg.contains("model.onnx"), "{msg}");
    assert!(msg.contains(&folder.path().display().to_string()), "{msg}");
    assert!(msg.contains("--reranker-from"), "{msg}");

    // Random bytes as model.onnx.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let junk: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(folder.path().join("model.onnx"), junk).unwrap();
    let e = CrossEncoder::load_from(folder.path()).unwrap_err();
    assert_eq!(e.kind(), "reranker_broken");
    let msg = e.to_string();
    eprintln!("{msg}");
    assert!(
        msg.contains("cannot be used") && msg.contains("model.onnx"),
        "{msg}"
    );
    assert!(msg.contains("remove the folder"), "{msg}");

    // A damaged tokenizer.json next to a good model.
    std::fs::copy(
        dir.join("overlap/model.onnx"),
        folder.path().join("model.onnx"),
    )
    .unwrap();
    std::fs::write(folder.path().join("tokenizer.json"), "{\"truncated\": ").unwrap();
    let e = CrossEncoder::load_from(folder.path()).unwrap_err();
    assert!(e.to_string().contains("tokenizer.json is damaged"), "{e}");

    // A graph with another interface: the e5 embedder (outputs sentence embeddings).
    let e5 = model_dirs(vidya_core::embed::MODEL_DIR)
        .into_iter()
        .find(|d| {
            d.join(vidya_core::embed::MODEL_FILE).is_file() && d.join("tokenizer.json").is_file()
        });
    match e5 {
        Some(e5) => {
            let wrong = tempfile::tempdir().unwrap();
            link_or_copy(
                &e5.join(vidya_core::embed::MODEL_FILE),
                &wrong.path().join("model.onnx"),
            );
            // The graph reads its weights from the file beside it, by this name.
            let weights = vidya_core::embed::WEIGHTS_FILE;
            link_or_copy(&e5.join(weights), &wrong.path().join(weights));
            std::fs::copy(e5.join("tokenizer.json"), wrong.path().join("tokenizer.json")).unwrap();
            let e = CrossEncoder::load_from(wrong.path()).unwrap_err();
            assert_eq!(e.kind(), "reranker_broken");
            let msg = e.to_string();
            eprintln!("{msg}");
            assert!(msg.contains("is not a cross-encoder"), "{msg}");
            assert!(msg.contains("no output `logits`"), "{msg}");
            assert!(msg.contains("sentence_embedding"), "{msg}");
        }
        None => eprintln!(
            "skipped the wrong-interface case: the e5 embedder is not installed (`cargo xtask setup --models`)"
        ),
    }
}

fn link_or_copy(from: &Path, to: &Path) {
    #[cfg(unix)]
    if std::os::unix::fs::symlink(from, to).is_ok() {
        return;
    }
    std::fs::copy(from, to).unwrap();
}

/// Every case that reads `VIDYA_RERANKER_DIR` is in this one test (the variable is
/// process-wide; no other test here calls `CrossEncoder::load`).
#[test]
fn load_finds_the_reranker_through_the_environment() {
    let dir = models_or_skip!();
    let installed = model_dirs(RERANKER_DIR)
        .iter()
        .any(|d| d.join("model.onnx").exists() || d.join("tokenizer.json").exists());
    let saved = std::env::var_os("VIDYA_RERANKER_DIR");
    let empty = tempfile::tempdir().unwrap();
    let partial = tempfile::tempdir().unwrap();
    std::fs::copy(
        dir.join("overlap/tokenizer.json"),
        partial.path().join("tokenizer.json"),
    )
    .unwrap();

    std::env::set_var("VIDYA_RERANKER_DIR", dir.join("overlap"));
    let found = CrossEncoder::load()
        .unwrap()
        .expect("the folder named is used");
    assert_eq!(found.max_length(), 64);
    assert!(found.score(QUESTION, &[SENTENCES[0]]).unwrap()[0] > 0.0);

    std::env::set_var("VIDYA_RERANKER_DIR", partial.path());
    let e = CrossEncoder::load().unwrap_err();
    assert!(e.to_string().contains("it has no model.onnx"), "{e}");

    for value in [empty.path().as_os_str(), "".as_ref()] {
        std::env::set_var("VIDYA_RERANKER_DIR", value);
        let got = CrossEncoder::load();
        if installed {
            eprintln!("a reranker is installed in resources/models/{RERANKER_DIR}: load() uses it");
            assert!(got.is_err() || got.unwrap().is_some());
        } else {
            assert!(got.unwrap().is_none(), "no reranker anywhere: Ok(None)");
        }
    }

    match saved {
        Some(v) => std::env::set_var("VIDYA_RERANKER_DIR", v),
        None => std::env::remove_var("VIDYA_RERANKER_DIR"),
    }
}

/// 300 words of textbook-like prose, different for each `seed`.
fn passage_300_words(seed: usize) -> String {
    let words: Vec<&str> = (0..)
        .flat_map(|k| SENTENCES[(seed + k * 5) % SENTENCES.len()].split_whitespace())
        .take(300)
        .collect();
    words.join(" ")
}

#[test]
fn minilm_shaped_model_scores_twenty_pairs() {
    let dir = models_or_skip!();
    let ce = CrossEncoder::load_from(&dir.join("minilm-shape")).unwrap();
    assert_eq!(ce.max_length(), 512);
    let texts: Vec<String> = (0..20).map(passage_300_words).collect();
    let passages: Vec<&str> = texts.iter().map(String::as_str).collect();
    let scores = ce.score(QUESTION, &passages).unwrap();
    assert_eq!(scores.len(), 20);
    assert!(scores.iter().all(|s| s.is_finite()), "{scores:?}");
    let ranked = ce.rerank(QUESTION, &passages, 5).unwrap();
    assert_eq!(ranked.len(), 5);
    assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1));
}

/// Latency of reranking 20 (question, 300-word passage) pairs with the MiniLM-shaped int8
/// graph: `cargo test -p vidya-core --test rerank -- --ignored --nocapture`.
#[test]
#[ignore = "a measurement, not a check"]
fn latency_of_twenty_300_word_passages() {
    let dir = models_or_skip!();
    let ce = CrossEncoder::load_from(&dir.join("minilm-shape")).unwrap();
    let texts: Vec<String> = (0..20).map(passage_300_words).collect();
    let passages: Vec<&str> = texts.iter().map(String::as_str).collect();
    let reference = Reference::new(&dir);
    let tokens: Vec<usize> = texts.iter().map(|t| reference.len(t)).collect();
    ce.score(QUESTION, &passages).unwrap(); // warm-up
    let mut ms: Vec<f64> = (0..5)
        .map(|_| {
            let t = Instant::now();
            ce.score(QUESTION, &passages).unwrap();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    ms.sort_by(f64::total_cmp);
    eprintln!(
        "minilm-shape int8: 20 pairs (passages of 300 words, {}–{} tokens) in {:.0} ms median (runs: {:?} ms; {} threads)",
        tokens.iter().min().unwrap(),
        tokens.iter().max().unwrap(),
        ms[2],
        ms.iter().map(|m| m.round()).collect::<Vec<_>>(),
        vidya_core::onnx::INTRA_THREADS
    );
}
