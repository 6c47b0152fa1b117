//! The library's vocabulary: every word of the books with its count, stored per book at
//! ingest (`vocabulary` table) and used to correct misspelt question words against the words
//! the books really use ([`crate::retrieve::query`]).
//!
//! Words are UAX #29 words, NFC-normalised and lower-cased, of two or more letters and no
//! digits.

use crate::error::Result;
use crate::store::Library;
use std::collections::HashMap;
use unicode_normalization::UnicodeNormalization;
use unicode_segmentation::UnicodeSegmentation;

/// Counts the words of `texts` (see the module docs for what a word is).
pub fn word_counts<'a>(texts: impl IntoIterator<Item = &'a str>) -> HashMap<String, u32> {
    let mut counts: HashMap<String, u32> = HashMap::new();
    for t in texts {
        let nfc: String = t.nfc().collect();
        for w in nfc.unicode_words() {
            if w.chars().count() < 2 || w.chars().any(|c| c.is_numeric()) {
                continue;
            }
            *counts.entry(w.to_lowercase()).or_default() += 1;
        }
    }
    counts
}

impl Library {
    /// The words of every book with their summed counts. Books stored before the vocabulary
    /// was kept (schema v4 and older) contribute the words of their chunks, counted now.
    pub fn vocabulary(&self) -> Result<HashMap<String, u32>> {
        let mut out: HashMap<String, u32> = HashMap::new();
        let mut st = self
            .conn
            .prepare("SELECT word, count FROM vocabulary")
            .map_err(|e| self.db_err(e))?;
        let rows = st
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))
            .map_err(|e| self.db_err(e))?;
        for row in rows {
            let (w, c) = row.map_err(|e| self.db_err(e))?;
            *out.entry(w).or_default() += c;
        }
        let mut st = self
            .conn
            .prepare(
                "SELECT c.text FROM chunks c WHERE NOT EXISTS
                 (SELECT 1 FROM vocabulary v WHERE v.book_id = c.book_id)",
            )
            .map_err(|e| self.db_err(e))?;
        let texts = st
            .query_map([], |r| r.get::<_, String>(0))
            .map_err(|e| self.db_err(e))?
            .collect::<std::result::Result<Vec<String>, _>>()
            .map_err(|e| self.db_err(e))?;
        for (w, c) in word_counts(texts.iter().map(String::as_str)) {
            *out.entry(w).or_default() += c;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_words_not_numbers() {
        let c = word_counts(["Photosynthesis makes sugar. photosynthesis 42 uses CO2 and प्रकाश a"]);
        assert_eq!(c["photosynthesis"], 2);
        assert_eq!(c["प्रकाश"], 1);
        assert!(!c.contains_key("42") && !c.contains_key("co2") && !c.contains_key("a"));
    }
}
