//! Stage 2 without a cross-encoder: the fused candidates re-sorted with the best cosine
//! between the question and one of each chunk's sentences (vectors stored at ingest).

use super::prune;
use super::result::Candidate;
use crate::embed::cosine;

/// Stage 2 without a cross-encoder: re-sorts `ranked` by `(1 − w) · fused + w · sentence`,
/// each min–max normalised over the candidates (a candidate without a sentence cosine gets the
/// lowest), plus `definition` for a candidate that [`Candidate::defines`] the term asked
/// about. Ties keep the fused order.
pub fn rescore(ranked: &mut [Candidate], w: f32, definition: f32) {
    let norm = |xs: Vec<f32>| {
        let (lo, hi) = xs
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), x| (lo.min(*x), hi.max(*x)));
        let span = (hi - lo).max(1e-6);
        xs.into_iter()
            .map(move |x| (x - lo) / span)
            .collect::<Vec<f32>>()
    };
    let fused = norm(ranked.iter().map(|c| c.fused).collect());
    let floor = ranked
        .iter()
        .filter_map(|c| c.sentence)
        .fold(f32::MAX, f32::min);
    let sentence = norm(
        ranked
            .iter()
            .map(|c| {
                c.sentence
                    .unwrap_or(if floor == f32::MAX { 0.0 } else { floor })
            })
            .collect(),
    );
    let mut keyed: Vec<(f32, usize)> = fused
        .iter()
        .zip(&sentence)
        .enumerate()
        .map(|(i, (f, s))| {
            let d = if ranked[i].defines { definition } else { 0.0 };
            ((1.0 - w) * f + w * s + d, i)
        })
        .collect();
    keyed.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let order: Vec<Candidate> = keyed.iter().map(|(_, i)| ranked[*i].clone()).collect();
    ranked.clone_from_slice(&order);
}

/// The best cosine between `query` and a quotable one of a chunk's `sentences` (its
/// [`prune::chunk_sentences`]; see [`prune::is_quotable`]), given the chunk's stored sentence
/// `vectors` in the same order; `None` when no sentence is quotable.
pub fn best_sentence_cosine(
    query: &[f32],
    vectors: &[Vec<f32>],
    sentences: &[prune::ChunkSentence],
) -> Option<f32> {
    vectors
        .iter()
        .zip(sentences)
        .filter(|(_, s)| prune::is_quotable(&s.text))
        .map(|(v, _)| cosine(query, v))
        .max_by(f32::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn candidate(chunk_id: i64, fused: f32, sentence: Option<f32>) -> Candidate {
        Candidate {
            chunk_id,
            book_id: 1,
            bm25: None,
            dense: None,
            fused,
            rerank: None,
            sentence,
            defines: false,
        }
    }

    fn order(c: &[Candidate]) -> Vec<i64> {
        c.iter().map(|c| c.chunk_id).collect()
    }

    #[test]
    fn the_sentence_cosine_moves_a_candidate_up_by_its_weight() {
        // Chunk 3 has the weakest fused score but the closest sentence.
        let base = vec![
            candidate(1, 0.9, Some(0.80)),
            candidate(2, 0.8, Some(0.81)),
            candidate(3, 0.7, Some(0.95)),
        ];
        let mut none = base.clone();
        rescore(&mut none, 0.0, 0.0);
        assert_eq!(order(&none), [1, 2, 3], "weight 0 keeps the fused order");
        // Normalised, fused is 1, 0.5, 0 and sentence 0, 0.07, 1: at 0.7, 0.3, 0.20, 0.7.
        let mut most = base.clone();
        rescore(&mut most, 0.7, 0.0);
        assert_eq!(order(&most), [3, 1, 2]);
        let mut all = base;
        rescore(&mut all, 1.0, 0.0);
        assert_eq!(
            order(&all),
            [3, 2, 1],
            "weight 1 sorts by the sentence cosine"
        );
    }

    #[test]
    fn the_best_sentence_is_the_closest_quotable_one() {
        let text = "Chlorophyll absorbs red and blue light in the leaf. What do leaves absorb? Plants release oxygen into the air.";
        let q = [1.0, 0.0];
        // The question sentence is closest to the query but is never quoted.
        let vectors = vec![vec![0.6, 0.8], vec![1.0, 0.0], vec![0.0, 1.0]];
        let sentences = prune::chunk_sentences(text);
        let best = best_sentence_cosine(&q, &vectors, &sentences).unwrap();
        assert!((best - 0.6).abs() < 1e-6, "{best}");
        assert_eq!(best_sentence_cosine(&q, &[], &sentences), None);
    }

    #[test]
    fn a_candidate_without_sentence_vectors_counts_as_the_weakest_sentence() {
        let mut c = vec![
            candidate(1, 0.9, None),
            candidate(2, 0.85, Some(0.9)),
            candidate(3, 0.5, Some(0.6)),
        ];
        rescore(&mut c, 0.5, 0.0);
        // 1: 0.5·1 + 0.5·0 = 0.5; 2: 0.5·0.875 + 0.5·1 = 0.94; 3: 0 + 0 = 0.
        assert_eq!(order(&c), [2, 1, 3]);
        // Ties keep the fused order; no sentence vectors at all is the fused order.
        let mut flat = vec![candidate(5, 0.4, None), candidate(4, 0.4, None)];
        rescore(&mut flat, 0.5, 0.0);
        assert_eq!(order(&flat), [5, 4]);
    }
}
