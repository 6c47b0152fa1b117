//! Other school subjects, for the relevance gate: how close a question is to questions students
//! ask about history, civics, geography, chemistry beyond the science books, maths, grammar,
//! literature, economics, computers, current affairs, or to chit-chat
//! (`data/other_subjects.txt`).
//!
//! A neighbouring subject's question ("types of soil in india", "electrochemical series kya
//! hoti hai") shares words and even e5 similarity with a science book; it is much closer still
//! to other questions of its own subject. The examples are written in both registers students
//! use: typed ("1857 ki kranti ke karan batao") and as exam papers and guide books print the
//! questions students copy out ("Which battle established British rule in Bengal in 1757?"); with
//! typed examples only, formal questions of other subjects sat no closer to them than the
//! science book's own questions did. The gate's `other_subject` signal is the best cosine
//! between the question and these example questions, embedded once per model with the bundled
//! embedder (`query: ` prefix) and kept in the library folder (`other-subjects.vec`, rebuilt
//! when the model or the list changes; in memory only when the folder cannot be written).

use crate::embed::{cosine, Embedder};
use crate::error::Result;
use sha2::{Digest, Sha256};
use std::path::Path;

const QUESTIONS: &str = include_str!("../../data/other_subjects.txt");

/// A question matching an example this closely is that example (its own cosine does not
/// count, so the examples can be scored like any other question when the gate is fitted).
pub const SAME_QUESTION: f32 = 0.995;

/// The example questions, in file order.
pub fn questions() -> Vec<&'static str> {
    QUESTIONS
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect()
}

/// The examples' unit vectors from `embedder`.
pub struct OtherSubjects {
    vectors: Vec<Vec<f32>>,
}

impl std::fmt::Debug for OtherSubjects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtherSubjects")
            .field("questions", &self.vectors.len())
            .finish()
    }
}

fn key(model: &str) -> String {
    let mut h = Sha256::new();
    h.update(model.as_bytes());
    h.update(QUESTIONS.as_bytes());
    hex::encode(h.finalize())
}

impl OtherSubjects {
    /// Reads the vectors cached in `dir` for this model and list, or embeds the examples (about
    /// 2 s on a 2-core laptop, once) and caches them there.
    ///
    /// Errors: the embedder failed.
    pub fn load(dir: &Path, embedder: &Embedder) -> Result<Self> {
        let path = dir.join("other-subjects.vec");
        let key = key(&embedder.model_id());
        if let Ok(bytes) = std::fs::read(&path) {
            if bytes.len() > 64 && bytes[..64] == *key.as_bytes() {
                if let Some(vectors) =
                    crate::store::sentences::decode(&bytes[64..], crate::embed::DIM)
                {
                    if vectors.len() == questions().len() {
                        return Ok(Self { vectors });
                    }
                }
            }
        }
        let qs = questions();
        let vectors = embedder.embed_queries(&qs)?;
        let mut bytes = key.into_bytes();
        bytes.extend(crate::store::sentences::encode(&vectors));
        let tmp = path.with_extension("vec.tmp");
        if std::fs::write(&tmp, &bytes).is_ok() {
            let _ = std::fs::rename(&tmp, &path);
        }
        Ok(Self { vectors })
    }

    /// The best cosine between `query` (a unit vector) and an example question other than
    /// the query itself.
    pub fn closest(&self, query: &[f32]) -> f32 {
        self.vectors
            .iter()
            .map(|v| cosine(query, v))
            .filter(|c| *c < SAME_QUESTION)
            .fold(0.0, f32::max)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_examples_are_questions_of_other_subjects() {
        let q = super::questions();
        assert!(q.len() >= 100, "{}", q.len());
        assert!(q.iter().all(|x| !x.starts_with('#')));
    }
}
