//! Stage 0: the question as the retrievers read it (normalised, its BM25 terms) and its
//! e5 vector.

use super::*;

impl Retriever {
    /// The question as the retrievers read it (normalised when `cfg.normalize`: SMS spellings,
    /// typos, Hinglish and Hindi terms) and its BM25 terms.
    pub(super) fn read_question<'a>(
        &self,
        lib: &'a Library,
        typed: &'a str,
        books: Option<&'a [i64]>,
        cfg: &'a PipelineConfig,
    ) -> Run<'a> {
        let t = Instant::now();
        let query = if cfg.normalize {
            self.normalizer.normalize(typed)
        } else {
            NormalizedQuery {
                text: typed.to_string(),
                ..Default::default()
            }
        };
        let terms = self.tokenizer.terms(&query.text);
        let definition = (cfg.definition_weight > 0.0)
            .then(|| asked_term(typed, &query))
            .flatten()
            .map(|term| DefinitionMatcher::new(&term));
        Run {
            definition,
            lib,
            cfg,
            books,
            typed,
            query,
            terms,
            vector: None,
            route: Route::default(),
            bm25_hits: Vec::new(),
            dense_hits: Vec::new(),
            records: HashMap::new(),
            sentence_vectors: HashMap::new(),
            gate_top: None,
            stages: vec![StageReport::timed("normalize", t, 1, 1)],
        }
    }

    /// The question's vector, when the embedder is on and dense retrieval, the router or the
    /// pruner needs it.
    pub(super) fn embed_question(&self, run: &mut Run) -> Result<Option<Vec<f32>>> {
        let cfg = run.cfg;
        let Some(e) = self
            .embedder
            .as_ref()
            .filter(|_| cfg.dense || cfg.router.is_some() || cfg.prune)
        else {
            return Ok(None);
        };
        let t = Instant::now();
        // A Hindi question with English terms found for its words: the question and the terms
        // are embedded apart and their vectors added, the terms' weighted by the share of the
        // question they translate (measured on the dev split: Hindi hit@3 0.90 → 1.00 against
        // embedding them as one text; weighting by the share keeps a lone translated word, as
        // in XQuAD's questions about named people, from steering the vector: XQuAD hi→en
        // recall@5 0.917 → 0.94).
        let v = match &run.query.english {
            Some(en) => {
                let vs = e.embed_queries(&[run.typed, en.as_str()])?;
                let w = run.query.english_share;
                let mut v: Vec<f32> = vs[0].iter().zip(&vs[1]).map(|(a, b)| a + w * b).collect();
                crate::store::vectors::normalize(&mut v);
                Some(v)
            }
            None => e.embed_queries(&[run.query.text.as_str()])?.pop(),
        };
        run.stages.push(StageReport::timed("embed_query", t, 1, 1));
        Ok(v)
    }
}
