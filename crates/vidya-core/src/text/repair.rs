//! Repairs what PDF text extraction gets wrong in Indic scripts.
//!
//! Indic text in PDFs is shaped: the font draws conjuncts, pre-base vowel signs and
//! mark combinations as glyphs of their own, and the PDF's `ToUnicode` map tells an extractor
//! which characters each glyph stands for. Producers often leave some glyphs out of that map
//! (positional variants of a vowel sign, an anusvara stacked on a matra). pdfium then emits the
//! glyph's raw character code instead: a Latin letter, digit, symbol, Latin-1 or C0/C1 code
//! point glued to the Indic word ("दि%ए", "జబకి1", "ತು\\"). Some extractors also put a space
//! between a consonant and its vowel sign ("த ொடங்க"), which splits the word.
//!
//! [`repair_indic`] removes both kinds of noise and then applies NFC (UAX #15). It never
//! touches text outside Indic words, so English pages come back unchanged. Measured on
//! `shared/data/indic_pdfs` (`vidya eval --extraction`), together with the glyph-box spacing:
//! the character error rate of the five Unicode PDFs falls from 2–6 % to 0.01–0.73 %.
//!
//! Missing word breaks are restored earlier, from the glyph boxes
//! (`crate::ingest::pdf`, `respace`). What neither can repair, because the information is not
//! in the PDF: a vowel sign or anusvara whose glyph had no mapping at all (its code is removed,
//! the sign stays missing), a space pdfium put inside a word after a pre-base vowel sign
//! ("खि लाड़ी"), and ZWJ/ZWNJ, which are invisible.

use super::script::{is_indic, is_indic_digit};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Punctuation that may legitimately end an Indic word ("किया,", "(हिन्दी)", "रहे.").
const WORD_END: &[char] = &[
    ',', '.', ';', ':', '!', '?', ')', ']', '}', '"', '\'', '’', '”', '-', '–', '—', '/', '।', '॥',
];

/// Punctuation that may legitimately join two Indic words without spaces ("5-बार",
/// "लग-अलग", "उ.प्र.").
const JOINERS: &[char] = &['-', '–', '—', '.', '/', ':'];

/// Returns `text` with unmapped glyph codes removed from Indic words, spaces before Indic vowel
/// signs removed, C0/C1 controls (except `\n`, `\t`) dropped, and NFC applied.
///
/// Rules, applied to each run of non-space, non-Indic characters that directly follows an Indic
/// letter or sign:
/// - when the run is followed directly by another Indic letter (it sits inside a word), it is
///   noise unless it is a single joiner (`-`, `.`, `/`, `:`, dashes);
/// - otherwise (the word ends there) its leading characters up to the first legitimate
///   word-ending punctuation are noise: "कि1 24" → "कि 24", "टी*." → "टी.", "(हिन्दी)" stays.
///
/// A run that follows a space, a Latin letter or a digit is never touched.
pub fn repair_indic(text: &str) -> String {
    let chars: Vec<char> = text
        .chars()
        .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
        .collect();
    let mut out = String::with_capacity(text.len());
    let mut last: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let after_indic = last.is_some_and(is_indic);
        if c == ' ' && after_indic && chars.get(i + 1).is_some_and(|n| is_vowel_sign(*n)) {
            i += 1; // "த ொ" → "தொ"
            continue;
        }
        // Indic-script digits ("कक्षा१०") are text, not glyph codes.
        let indic_digit = is_indic_digit(c);
        if is_indic(c) || c.is_whitespace() || indic_digit || !after_indic {
            out.push(c);
            last = Some(c);
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && !chars[i].is_whitespace() && !is_indic(chars[i]) {
            i += 1;
        }
        let run = &chars[start..i];
        let inside_word = chars.get(i).is_some_and(|n| is_indic(*n));
        let kept: &[char] = if inside_word {
            if run.len() == 1 && JOINERS.contains(&run[0]) {
                run
            } else {
                &[]
            }
        } else {
            let first_punct = run
                .iter()
                .position(|c| WORD_END.contains(c))
                .unwrap_or(run.len());
            &run[first_punct..]
        };
        out.extend(kept.iter());
        if let Some(k) = kept.last() {
            last = Some(*k);
        }
    }
    out.nfc().collect()
}

/// An Indic vowel sign, virama, nukta or other combining mark (never starts a word).
fn is_vowel_sign(c: char) -> bool {
    is_indic(c) && is_combining_mark(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unmapped_glyph_codes_inside_and_after_words_go() {
        // Seen in pdfium's output of shared/data/indic_pdfs (Hindi, Telugu, Kannada, Marathi).
        assert_eq!(repair_indic("केवल 308 अंक दि%ए"), "केवल 308 अंक दिए");
        assert_eq!(repair_indic("जबकि1 24 इन्टरसेप्शन"), "जबकि 24 इन्टरसेप्शन");
        assert_eq!(repair_indic("डिफ़ेंसिBव टैकल"), "डिफ़ेंसिव टैकल");
        assert_eq!(repair_indic("వచ్చిAంది"), "వచ్చింది");
        assert_eq!(repair_indic("ಲೋ\"7ಕಸಭೆ"), "ಲೋಕಸಭೆ");
        assert_eq!(repair_indic("ಆಗಸ್ಟ್0 1920"), "ಆಗಸ್ಟ್ 1920");
        assert_eq!(repair_indic("आणि\\ त्या"), "आणि त्या");
        assert_eq!(repair_indic("టీ*. అది"), "టీ. అది");
        assert_eq!(repair_indic("दि\u{0012}ए"), "दिए");
        assert_eq!(repair_indic("ಘೋ67ಷಿಸಲಾಯಿತು"), "ಘೋಷಿಸಲಾಯಿತು");
        assert_eq!(repair_indic("அவைZ பள்ளத்தாக்கு"), "அவை பள்ளத்தாக்கு");
        assert_eq!(repair_indic("కిĕలో"), "కిలో");
        // A Latin-1 fraction is numeric, but not an Indic digit: "जि¼कल्या" (Marathi).
        assert_eq!(repair_indic("जि¼कल्या"), "जिकल्या");
    }

    #[test]
    fn real_punctuation_digits_and_latin_words_stay() {
        for s in [
            "XQuAD (हिन्दी) — अनुच्छेद",
            "किया, जबकि तीन",
            "5-बार के प्रो बॉलर",
            "लग-अलग",
            "साथ NFL में 11 प्रो",
            "समाप्ति के 4:51 समय",
            "Photosynthesis makes sugar (glucose).",
            "रहे। 11 प्रो",
            "क्या यह सच है?",
            "कक्षा१० में ५०% छात्र॥",
        ] {
            assert_eq!(repair_indic(s), s, "{s}");
        }
    }

    #[test]
    fn a_space_before_a_vowel_sign_goes() {
        assert_eq!(repair_indic("த ொடங்க"), "தொடங்க");
        // A space before a consonant may be a real word break: it stays.
        assert_eq!(repair_indic("हि न्दी"), "हि न्दी");
        assert_eq!(repair_indic("क ि"), "कि");
    }

    #[test]
    fn result_is_nfc() {
        // NUKTA written after DDA composes canonically; NFC keeps the decomposed pair for
        // ड़ (composition exclusion), so the output equals the NFC of the input.
        let s = "ड\u{093C}";
        assert_eq!(repair_indic(s), s.nfc().collect::<String>());
    }
}
