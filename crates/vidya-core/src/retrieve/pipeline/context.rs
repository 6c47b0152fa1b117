//! Stages 3 and 4: the sentence pruner and the token budget (or whole chunks within the
//! budget, for the configurations without pruning).

use super::*;

impl Retriever {
    /// Without the pruner: the token budget keeps whole chunks.
    pub(super) fn budget_whole_chunks(
        &self,
        cfg: &PipelineConfig,
        chunks: Vec<ChunkRecord>,
        result: &mut PipelineResult,
    ) -> Result<()> {
        let t = Instant::now();
        let n = chunks.len();
        let (kept, report) = match cfg.budget {
            Some(b) => budget::enforce(chunks, b, &self.counter),
            None => {
                let tokens = chunks.iter().map(|c| self.counter.count(&c.text)).sum();
                let report = BudgetReport::unbudgeted(tokens, chunks.len(), &self.counter);
                (chunks, report)
            }
        };
        result.record_budget(StageReport::timed("budget", t, n, kept.len()), report);
        result.passages = prune::prune(kept, &Scorer::KeepAll)?;
        Ok(())
    }

    /// Stage 3, the pruner (cosine with the stored sentence vectors when the embedder is on,
    /// else the question's idf-weighted words), then stage 4, the token budget over the kept
    /// sentences.
    pub(super) fn prune_and_budget(
        &self,
        run: &mut Run,
        chunks: Vec<ChunkRecord>,
        result: &mut PipelineResult,
    ) -> Result<()> {
        let cfg = run.cfg;
        let t = Instant::now();
        let missing: Vec<i64> = chunks
            .iter()
            .map(|c| c.id)
            .filter(|id| !run.sentence_vectors.contains_key(id))
            .collect();
        if self.embedder.is_some() && !missing.is_empty() {
            let more = run
                .lib
                .sentence_vectors_of(&self.vector_model(), &missing)?;
            run.sentence_vectors.extend(more);
        }
        let idf = |t: &str| self.bm25.idf(t);
        let scorer = match (&self.embedder, &run.vector) {
            (Some(e), Some(q)) => Scorer::Dense {
                embedder: e,
                stored: &run.sentence_vectors,
                query: q,
                threshold: cfg.prune_threshold,
            },
            _ => Scorer::Lexical {
                tokenizer: &self.tokenizer,
                terms: &run.terms,
                idf: &idf,
            },
        };
        let n = chunks.len();
        let tokens_in: usize = chunks.iter().map(|c| self.counter.count(&c.text)).sum();
        // The definition a definition question asks for is kept whatever its cosine.
        let defines = |c: &ChunkRecord, sentence: &str| {
            run.definition
                .as_ref()
                .is_some_and(|d| self.is_body(c.id) && d.defines(sentence))
        };
        let pruned = prune::prune_defining(chunks, &scorer, &defines)?;
        let pruned_tokens: usize = pruned.iter().map(|p| self.counter.count(&p.text())).sum();
        result.stages.push(StageReport {
            tokens_in: Some(tokens_in),
            tokens_out: Some(pruned_tokens),
            ..StageReport::timed("prune", t, n, pruned.len())
        });

        let t = Instant::now();
        let n = pruned.len();
        let (passages, report) = match cfg.budget {
            Some(b) => budget::fit(pruned, b, &self.counter),
            None => {
                let report = BudgetReport::unbudgeted(pruned_tokens, pruned.len(), &self.counter);
                (pruned, report)
            }
        };
        result.record_budget(StageReport::timed("budget", t, n, passages.len()), report);
        result.passages = passages;
        if !self.counter.is_exact() {
            result.notes.retain(|n| !n.starts_with("token counts"));
            result.notes.push("token counts are estimates (the answer model's tokenizer is not installed; run `cargo xtask setup --models`)".into());
        }
        Ok(())
    }
}
