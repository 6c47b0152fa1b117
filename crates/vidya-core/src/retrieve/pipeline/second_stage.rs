//! Stage 2: the cross-encoder reranker when one is installed, else the sentence rescoring of
//! the fused candidates.

use super::*;

impl Retriever {
    /// Stage 2: the cross-encoder's order, or without one the fused order rescored with the
    /// stored sentence vectors ([`rescore`]); at most `cfg.keep` candidates.
    pub(super) fn rerank(
        &self,
        run: &mut Run,
        mut ranked: Vec<Candidate>,
    ) -> Result<Vec<Candidate>> {
        let cfg = run.cfg;
        match (&self.reranker, cfg.rerank) {
            (Some(ce), true) if !ranked.is_empty() => {
                let t = Instant::now();
                let n = ranked.len();
                let texts: Vec<&str> = ranked
                    .iter()
                    .map(|c| run.records[&c.chunk_id].text.as_str())
                    .collect();
                let order = ce.rerank(&run.query.text, &texts, cfg.keep)?;
                ranked = order
                    .into_iter()
                    .map(|(i, logit)| Candidate {
                        rerank: Some(logit),
                        ..ranked[i].clone()
                    })
                    .collect();
                run.stages
                    .push(StageReport::timed("rerank", t, n, ranked.len()));
            }
            _ if cfg.rescore && run.vector.is_some() && !ranked.is_empty() => {
                let t = Instant::now();
                let n = ranked.len();
                let ids: Vec<i64> = ranked.iter().map(|c| c.chunk_id).collect();
                run.sentence_vectors = run.lib.sentence_vectors_of(&self.vector_model(), &ids)?;
                let q = run.vector.as_deref().unwrap_or_default();
                let definition = run.definition.as_ref();
                for c in &mut ranked {
                    let sentences = prune::chunk_sentences(&run.records[&c.chunk_id].text);
                    c.sentence = run
                        .sentence_vectors
                        .get(&c.chunk_id)
                        .and_then(|vs| best_sentence_cosine(q, vs, &sentences));
                    c.defines = self.is_body(c.chunk_id)
                        && definition.is_some_and(|d| {
                            sentences
                                .iter()
                                .any(|s| prune::is_quotable(&s.text) && d.defines(&s.text))
                        });
                }
                if ranked.len() > gate::FIT_RESCORED {
                    let mut fitted = ranked[..gate::FIT_RESCORED].to_vec();
                    rescore(&mut fitted, cfg.rescore_weight, cfg.definition_weight);
                    run.gate_top = fitted.into_iter().next();
                }
                rescore(&mut ranked, cfg.rescore_weight, cfg.definition_weight);
                ranked.truncate(cfg.keep);
                run.stages
                    .push(StageReport::timed("rescore", t, n, ranked.len()));
            }
            _ => ranked.truncate(cfg.keep),
        }
        Ok(ranked)
    }
}
