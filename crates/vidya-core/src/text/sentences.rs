//! Sentence splitting: UAX #29 sentence boundaries plus the Devanagari danda.

use unicode_segmentation::UnicodeSegmentation;

/// A sentence inside a larger text: its byte range `[start, end)` in that text, trimmed of
/// surrounding whitespace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SentenceSpan {
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset one past the last character.
    pub end: usize,
}

impl SentenceSpan {
    /// The sentence's text within `text` (the string it was split from).
    pub fn slice<'a>(&self, text: &'a str) -> &'a str {
        &text[self.start..self.end]
    }
}

/// Splits `text` into sentences.
///
/// Boundaries are those of UAX #29 (Unicode Text Segmentation, sentence boundaries), then
/// additionally after every danda `।` (U+0964) and double danda `॥` (U+0965), which Hindi,
/// Marathi and Sanskrit use as the full stop. Whitespace-only pieces are dropped; every span is
/// trimmed. Spans are in text order and never overlap.
pub fn split_sentences(text: &str) -> Vec<SentenceSpan> {
    let mut out = Vec::new();
    for (start, piece) in text.split_sentence_bound_indices() {
        let mut local = 0usize;
        for (i, c) in piece.char_indices() {
            if c == '\u{0964}' || c == '\u{0965}' {
                let end = i + c.len_utf8();
                push_trimmed(text, start + local, start + end, &mut out);
                local = end;
            }
        }
        push_trimmed(text, start + local, start + piece.len(), &mut out);
    }
    out
}

fn push_trimmed(text: &str, start: usize, end: usize, out: &mut Vec<SentenceSpan>) {
    let s = &text[start..end];
    let lead = s.len() - s.trim_start().len();
    let trimmed = s.trim();
    if trimmed.is_empty() {
        return;
    }
    // A piece with no letter or digit (a stray danda or bullet) joins the sentence before it.
    if !trimmed.chars().any(char::is_alphanumeric) {
        if let Some(last) = out.last_mut() {
            last.end = start + lead + trimmed.len();
        }
        return;
    }
    out.push(SentenceSpan {
        start: start + lead,
        end: start + lead + trimmed.len(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<&str> {
        split_sentences(s).iter().map(|x| x.slice(s)).collect()
    }

    #[test]
    fn english() {
        assert_eq!(
            texts("Plants make sugar. They need light! Do animals? Yes."),
            vec![
                "Plants make sugar.",
                "They need light!",
                "Do animals?",
                "Yes."
            ]
        );
    }

    #[test]
    fn danda() {
        assert_eq!(
            texts("पौधे भोजन बनाते हैं। उन्हें प्रकाश चाहिए॥ यह सच है।"),
            vec!["पौधे भोजन बनाते हैं।", "उन्हें प्रकाश चाहिए॥", "यह सच है।"]
        );
    }

    #[test]
    fn empty_and_spaces() {
        assert!(texts("   \n ").is_empty());
        assert_eq!(
            texts("  one sentence without stop  "),
            vec!["one sentence without stop"]
        );
    }
}
