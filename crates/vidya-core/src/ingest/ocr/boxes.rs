//! The OCR'd words' boxes as stored (`ocr_pages.words`), and finding a quote's words among
//! them so the cited page's picture can highlight it on a scan (a scan has no text layer for
//! pdfium to search).

use super::OcrWord;
use unicode_normalization::UnicodeNormalization;

/// JSON `[[text, left, top, right, bottom], …]` with the edges in thousandths of the page
/// (integers: a box to 0.1% of the page is finer than any highlight needs, and half the bytes).
pub fn encode(words: &[OcrWord]) -> String {
    let rows: Vec<serde_json::Value> = words
        .iter()
        .map(|w| {
            let k = |x: f32| (x.clamp(0.0, 1.0) * 1000.0).round() as u32;
            serde_json::json!([w.text, k(w.left), k(w.top), k(w.right), k(w.bottom)])
        })
        .collect();
    serde_json::Value::Array(rows).to_string()
}

/// The words of [`encode`]'s JSON (confidence is not stored: 0); malformed rows are skipped,
/// malformed JSON gives none.
pub fn decode(json: &str) -> Vec<OcrWord> {
    let Ok(serde_json::Value::Array(rows)) = serde_json::from_str::<serde_json::Value>(json) else {
        return Vec::new();
    };
    rows.iter()
        .filter_map(|r| {
            let r = r.as_array()?;
            let n = |i: usize| Some(r.get(i)?.as_f64()? as f32 / 1000.0);
            Some(OcrWord {
                text: r.first()?.as_str()?.to_string(),
                left: n(1)?,
                top: n(2)?,
                right: n(3)?,
                bottom: n(4)?,
                confidence: 0.0,
            })
        })
        .collect()
}

/// A word reduced for matching: NFC, lower case, without the punctuation around it.
fn key(word: &str) -> String {
    word.nfc()
        .collect::<String>()
        .to_lowercase()
        .trim_matches(|c: char| !c.is_alphanumeric() && !crate::text::script::is_indic(c))
        .to_string()
}

/// Share of a window's words that must match in place for its boxes to be taken: OCR'd text
/// went through Vidya's repairs before it was stored, so a few words differ.
pub const MIN_MATCH_SHARE: f32 = 0.7;

/// The boxes (left, top, right, bottom as fractions of the page) of the best place in `words`
/// where the words of `window` (a run of a quote's words, see
/// [`crate::app::page_image::windows`]) stand in order, when at least [`MIN_MATCH_SHARE`] of
/// them match there; empty otherwise.
pub fn find(words: &[OcrWord], window: &str) -> Vec<(f32, f32, f32, f32)> {
    let want: Vec<String> = window
        .split_whitespace()
        .map(key)
        .filter(|w| !w.is_empty())
        .collect();
    if want.is_empty() || words.len() < want.len() {
        return Vec::new();
    }
    let have: Vec<String> = words.iter().map(|w| key(&w.text)).collect();
    let mut best = (0usize, 0usize);
    for start in 0..=have.len() - want.len() {
        let hits = want
            .iter()
            .zip(&have[start..])
            .filter(|(a, b)| a == b)
            .count();
        if hits > best.1 {
            best = (start, hits);
        }
    }
    if (best.1 as f32) < MIN_MATCH_SHARE * want.len() as f32 {
        return Vec::new();
    }
    words[best.0..best.0 + want.len()]
        .iter()
        .map(|w| (w.left, w.top, w.right, w.bottom))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, x: f32) -> OcrWord {
        OcrWord {
            text: text.into(),
            left: x,
            top: 0.1,
            right: x + 0.05,
            bottom: 0.12,
            confidence: 90.0,
        }
    }

    #[test]
    fn boxes_survive_storage_to_a_thousandth() {
        let words = vec![word("पौधे", 0.1), word("food.", 0.2)];
        let back = decode(&encode(&words));
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].text, "पौधे");
        assert!((back[1].left - 0.2).abs() < 0.001 && (back[1].right - 0.25).abs() < 0.001);
        assert!(decode("not json").is_empty());
        assert_eq!(decode(r#"[["a",1,2,3,4],["bad"]]"#).len(), 1);
    }

    #[test]
    fn a_quote_is_found_among_the_words_despite_a_misread_one() {
        let page: Vec<OcrWord> = "The Sun gives light. Plants make food from light and water ."
            .split(' ')
            .enumerate()
            .map(|(i, w)| word(w, i as f32 * 0.06))
            .collect();
        let mut misread = page.clone();
        misread[6].text = "f00d".into();
        let found = find(&misread, "plants make food from light");
        assert_eq!(found.len(), 5);
        assert_eq!(found[0].0, page[4].left);
        assert!(find(&page, "animals eat grass every day").is_empty());
        assert!(find(&page[..2], "plants make food from light").is_empty());
    }
}
