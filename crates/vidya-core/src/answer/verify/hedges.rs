//! Hedges: a claim the source calls disputed, proposed or uncertain, stated as plain fact.

use super::align::matched_clauses;
use super::cues::{HEDGES, MODAL_HEDGES};
use super::words::Sentence;
use super::Finding;

/// A source that calls the claim disputed, proposed or uncertain, restated as plain fact.
pub fn hedge(a: &Sentence, s: &Sentence) -> Option<Finding> {
    let clauses = matched_clauses(a, s);
    let h = s
        .words
        .iter()
        .find(|w| clauses.contains(&w.clause) && HEDGES.contains(&w.lower.as_str()))?;
    let hedged = a.has_any(HEDGES, None) || a.has_any(MODAL_HEDGES, None);
    (!hedged).then(|| Finding::Hedge {
        source: h.lower.clone(),
    })
}
