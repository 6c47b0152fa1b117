//! Stage 1: the curriculum router (chapters), the BM25 and dense candidate lists and their
//! fusion (RRF or weighted).

use super::*;

impl Retriever {
    /// Stage 0: the chapters worth searching, from the question's vector and the chapter
    /// centroids of the books asked about (every chapter without a router or a vector).
    pub(super) fn route(&self, run: &mut Run) -> Route {
        let (Some(rc), Some(q)) = (&run.cfg.router, &run.vector) else {
            return Route::default();
        };
        let t = Instant::now();
        let chapters: Vec<ChapterVector> = self
            .chapters
            .iter()
            .filter(|c| run.in_books(c.book_id))
            .cloned()
            .collect();
        let r = router::route(q, &chapters, rc);
        run.stages
            .push(StageReport::timed("router", t, r.considered, r.kept));
        r
    }

    /// True when `chunk` is running text (not boilerplate), where a definition counts.
    pub(super) fn is_body(&self, chunk: i64) -> bool {
        self.location
            .get(&chunk)
            .is_some_and(|l| l.2 == BlockKind::Body)
    }

    /// True when `chunk` is in a book asked about and in a chapter the router kept.
    pub(super) fn allowed(&self, run: &Run, chunk: i64) -> bool {
        self.location.get(&chunk).is_some_and(|(b, c, _)| {
            run.in_books(*b) && run.route.chapters.as_ref().is_none_or(|cs| cs.contains(c))
        })
    }

    /// Stage 1: the first `cfg.candidates` BM25 and dense candidates among the allowed chunks.
    pub(super) fn candidates(&self, run: &mut Run) {
        let cfg = run.cfg;
        if cfg.bm25 {
            let t = Instant::now();
            let hits: Vec<(i64, f32)> = self
                .bm25
                .search_filtered(&run.terms, cfg.candidates, &|c, _| self.allowed(run, c))
                .into_iter()
                .map(|h| (h.chunk_id, h.score))
                .collect();
            run.stages
                .push(StageReport::timed("bm25", t, self.bm25.len(), hits.len()));
            run.bm25_hits = hits;
        }
        if let (Some(d), Some(q), true) = (&self.dense, &run.vector, cfg.dense) {
            let t = Instant::now();
            let hits: Vec<(i64, f32)> = d
                .search(q, cfg.candidates, &|c| self.allowed(run, c))
                .into_iter()
                .map(|h| (h.chunk_id, h.cosine))
                .collect();
            run.stages
                .push(StageReport::timed("dense", t, d.len(), hits.len()));
            run.dense_hits = hits;
        }
    }

    /// Stage 1: the two lists fused ([`fusion_for`]), boilerplate ranked below body text unless
    /// the question asks for it ([`demote_boilerplate`]), and the first `rerank_top` (for the
    /// cross-encoder) or `rescore_top` (for the sentence rescoring), at least `keep`, kept as
    /// candidates.
    pub(super) fn fuse_lists(&self, run: &mut Run) -> Vec<Candidate> {
        let t = Instant::now();
        let cfg = run.cfg;
        let (bm25, dense) = (&run.bm25_hits, &run.dense_hits);
        let mut fused = match (bm25.is_empty(), dense.is_empty()) {
            (false, false) => fuse(bm25, dense, fusion_for(&run.query, run.typed, cfg.fusion)),
            (false, true) => bm25.clone(),
            (true, _) => dense.clone(),
        };
        if cfg.boilerplate_weight < 1.0 && !asks_for_boilerplate(&run.query.text) {
            demote_boilerplate(&mut fused, cfg.boilerplate_weight, &|id| {
                self.location.get(&id).map(|l| l.2)
            });
        }
        let bm25_of: HashMap<i64, f32> = bm25.iter().copied().collect();
        let dense_of: HashMap<i64, f32> = dense.iter().copied().collect();
        let ranked: Vec<Candidate> = fused
            .iter()
            .take(self.stage2_depth(cfg).max(cfg.keep))
            .map(|&(id, s)| Candidate {
                chunk_id: id,
                book_id: self.location.get(&id).map(|l| l.0).unwrap_or(0),
                bm25: bm25_of.get(&id).copied(),
                dense: dense_of.get(&id).copied(),
                fused: s,
                rerank: None,
                sentence: None,
                defines: false,
            })
            .collect();
        let items_in = bm25.len() + dense.len();
        run.stages
            .push(StageReport::timed("fusion", t, items_in, ranked.len()));
        ranked
    }

    /// How many fused candidates stage 2 reads: `rerank_top` when the cross-encoder runs,
    /// else `rescore_top`.
    pub(super) fn stage2_depth(&self, cfg: &PipelineConfig) -> usize {
        if self.reranker.is_some() && cfg.rerank {
            cfg.rerank_top
        } else {
            cfg.rescore_top
        }
    }

    /// The model id the stored vectors were made with (empty without an embedder).
    pub(super) fn vector_model(&self) -> String {
        self.embedder
            .as_ref()
            .map(|e| e.model_id())
            .unwrap_or_default()
    }
}
