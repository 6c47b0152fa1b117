//! The gate's `other_subject` signal (`retrieve::subjects`) with the bundled embedder (needs
//! `cargo xtask setup --models`; without the files the test says so and skips, except under CI).

use vidya_core::embed::Embedder;
use vidya_core::retrieve::subjects::OtherSubjects;

use crate::support;

/// Mean [`OtherSubjects::closest`] of `questions`.
fn mean_closest(e: &Embedder, s: &OtherSubjects, questions: &[&str]) -> f32 {
    let v = e.embed_queries(questions).unwrap();
    v.iter().map(|q| s.closest(q)).sum::<f32>() / v.len() as f32
}

/// Questions copied from an exam paper or a guide book ("Which Mughal emperor built ...?") are
/// as much a student's input as typed ones; the examples must cover that register too, or a
/// formal history question sits no closer to them than the science book's own questions do
/// (0.831 against 0.828 with the typed examples only, 0.849 with the exam-style ones). None of
/// these questions is in `data/other_subjects.txt`.
#[test]
fn exam_style_questions_of_other_subjects_are_closer_to_the_examples_than_the_books_own() {
    let Some(m) = support::installed_models() else {
        return;
    };
    let e = m
        .embedder
        .clone()
        .expect("installed_models has the embedder");
    let dir = tempfile::tempdir().unwrap();
    let s = OtherSubjects::load(dir.path(), &e).unwrap();
    let other = [
        "Which Mughal emperor built the Red Fort in Delhi?",
        "Who was the first woman Prime Minister of India?",
        "Which article of the Constitution deals with the right to education?",
        "Name the river on which the Hirakud dam is built.",
        "Who wrote the poem Madhushala?",
        "Which dynasty built the Konark sun temple?",
        "Who founded the Ramakrishna Mission?",
        "In which year did the Battle of Buxar take place?",
    ];
    let book = [
        "What is meant by \"photosynthesis\"?",
        "What happens in the light-dependent reactions of photosynthesis?",
        "what is glycolysis",
        "Which organelle makes ATP in a plant cell?",
    ];
    for q in other.iter().chain(&book) {
        assert!(
            !vidya_core::retrieve::subjects::questions().contains(q),
            "{q} is an example"
        );
    }
    let (o, b) = (mean_closest(&e, &s, &other), mean_closest(&e, &s, &book));
    assert!(
        o > b + 0.015,
        "exam-style questions of other subjects {o:.3}, the book's questions {b:.3}"
    );
}
