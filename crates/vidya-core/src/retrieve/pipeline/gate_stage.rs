//! The relevance gate: what it reads of the ranked candidates, and its decision.

use super::*;

impl Retriever {
    /// The relevance gate: what it reads about the best candidate ([`Self::gate_input`]) and
    /// its decision ([`gate::decide_for`]).
    pub(super) fn gate(&self, run: &mut Run, ranked: &[Candidate]) -> (GateInput, GateDecision) {
        let t = Instant::now();
        let input = self.gate_input(run, ranked);
        let decision = gate::decide_for(run.cfg.gate.as_ref(), &input, !ranked.is_empty());
        let items_out = if decision.pass { ranked.len() } else { 0 };
        run.stages
            .push(StageReport::timed("gate", t, ranked.len(), items_out));
        (input, decision)
    }

    /// The gate's features for the best of `ranked` (see [`GateInput`]).
    pub(super) fn gate_input(&self, run: &Run, ranked: &[Candidate]) -> GateInput {
        let top = run.gate_top.as_ref().or(ranked.first());
        let top_text = top.map(|c| run.records[&c.chunk_id].text.as_str());
        GateInput {
            rerank: top.and_then(|c| c.rerank),
            dense: run.dense_hits.first().map(|d| d.1),
            sentence: top.and_then(|c| c.sentence),
            coverage: top_text
                .map(|text| self.coverage(&run.terms, text))
                .unwrap_or(0.0),
            cross_script: top_text.is_some_and(|text| self.cross_script(&run.terms, text)),
            unknown: run.query.unknown as f32 / run.query.content.max(1) as f32,
            indic: if run.query.hinglish {
                1.0
            } else {
                indic_share(run.typed)
            },
            agreement: gate::agreement(&run.bm25_hits, &run.dense_hits),
            router: run.route.best,
            other_subject: match (&self.other_subjects, &run.vector) {
                (Some(o), Some(q)) => o.closest(q),
                _ => 0.0,
            },
            spread: gate::spread(&run.dense_hits),
        }
    }
}
