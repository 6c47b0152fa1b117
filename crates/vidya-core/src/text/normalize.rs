//! Unicode normalisation of extracted text.

use unicode_normalization::UnicodeNormalization;

/// Returns `text` in Unicode NFC (UAX #15) with extraction noise removed: carriage returns
/// become `\n`, NUL and other C0 controls (except `\n` and `\t`) are dropped, soft hyphens
/// (U+00AD) and byte-order marks are dropped, and non-breaking spaces become plain spaces.
///
/// Line structure is kept; callers decide how to join lines.
pub fn normalize(text: &str) -> String {
    let cleaned: String = text
        .replace("\r\n", "\n")
        .chars()
        .filter_map(|c| match c {
            '\r' => Some('\n'),
            '\n' | '\t' => Some(c),
            '\u{00A0}' | '\u{2007}' | '\u{202F}' => Some(' '),
            '\u{00AD}' | '\u{FEFF}' | '\u{FFFE}' | '\u{FFFF}' => None,
            c if c.is_control() => None,
            c => Some(c),
        })
        .collect();
    cleaned.nfc().collect()
}

/// `text` without the invisible characters that text copied from a PDF or a web page carries
/// inside words ("os\u{200B}mosis"), which split the word for BM25 and the embedder alike: zero
/// width space U+200B, word joiner U+2060, byte-order mark U+FEFF, soft hyphen U+00AD, Mongolian
/// vowel separator U+180E; and zero width joiner and non-joiner (U+200D, U+200C) except after an
/// Indic letter ([`super::script::is_indic`]), where they choose how a conjunct is drawn
/// (Unicode 15, ch. 12, "Devanagari"; the BM25 tokenizer folds them there itself). For typed
/// questions; [`normalize`] cleans extracted text.
pub fn drop_invisible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut prev = None;
    for c in text.chars() {
        let drop = match c {
            '\u{200B}' | '\u{2060}' | '\u{FEFF}' | '\u{00AD}' | '\u{180E}' => true,
            '\u{200C}' | '\u{200D}' => !prev.is_some_and(super::script::is_indic),
            _ => false,
        };
        if !drop {
            out.push(c);
            prev = Some(c);
        }
    }
    out
}

/// Collapses every run of whitespace (including newlines) into one space and trims the ends.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nfc_and_noise() {
        // "कि" written as decomposed nukta sequence stays NFC-stable; NBSP and soft hyphen go.
        let s = "photo\u{00AD}synthesis\u{00A0}is\r\nlife\u{0000}";
        assert_eq!(normalize(s), "photosynthesis is\nlife");
        // e + combining acute composes to é under NFC.
        assert_eq!(normalize("e\u{0301}"), "\u{00E9}");
    }

    #[test]
    fn collapse() {
        assert_eq!(collapse_whitespace("  a \n\n b\tc "), "a b c");
    }
}
