//! Script and language detection from character statistics.
//!
//! Vidya's languages map one-to-one onto scripts except Hindi and Marathi, which share
//! Devanagari; they are told apart by the letter ळ (U+0933, LLA), which is common in Marathi
//! and nearly absent from standard Hindi.

/// Writing systems Vidya's languages use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Script {
    /// Latin (English).
    Latin,
    /// Devanagari (Hindi, Marathi), U+0900–U+097F.
    Devanagari,
    /// Kannada, U+0C80–U+0CFF.
    Kannada,
    /// Telugu, U+0C00–U+0C7F.
    Telugu,
    /// Tamil, U+0B80–U+0BFF.
    Tamil,
    /// Anything else.
    Other,
}

/// The script of one character (letters and marks only; digits and punctuation are `Other`).
///
/// Uses the Unicode Script property (UAX #24, through the `unicode-script` crate). The danda
/// `।` and double danda `॥` (Script=Common, shared by the Brahmic scripts) count as
/// Devanagari, the script that uses them as its full stop.
pub fn script_of(c: char) -> Script {
    use unicode_script::{Script as U, UnicodeScript};
    match c.script() {
        U::Devanagari => Script::Devanagari,
        U::Kannada => Script::Kannada,
        U::Telugu => Script::Telugu,
        U::Tamil => Script::Tamil,
        U::Latin if c.is_alphabetic() => Script::Latin,
        _ if matches!(c, '\u{0964}' | '\u{0965}') => Script::Devanagari,
        _ => Script::Other,
    }
}

/// True for a character whose Unicode Script (UAX #24) is a Brahmic script Vidya may meet:
/// Devanagari, Bengali, Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada or Malayalam.
fn brahmic(c: char) -> bool {
    use unicode_script::{Script as U, UnicodeScript};
    matches!(
        c.script(),
        U::Devanagari
            | U::Bengali
            | U::Gurmukhi
            | U::Gujarati
            | U::Oriya
            | U::Tamil
            | U::Telugu
            | U::Kannada
            | U::Malayalam
    )
}

/// True for a letter, vowel sign or other mark of a Brahmic (Indic) script: Devanagari,
/// Bengali, Gurmukhi, Gujarati, Oriya, Tamil, Telugu, Kannada or Malayalam (Unicode Script
/// property, UAX #24). Dandas, digits and punctuation are not.
pub fn is_indic(c: char) -> bool {
    brahmic(c) && !c.is_numeric() && !matches!(c, '\u{0964}' | '\u{0965}')
}

/// True for a digit of a Brahmic script (०–९ and its Kannada, Telugu, Tamil, … forms).
pub fn is_indic_digit(c: char) -> bool {
    c.is_numeric() && brahmic(c)
}

/// Share of the letters of `text` written in an Indian (Brahmic) script, 0..=1 (0 for text
/// without letters).
pub fn indic_share(text: &str) -> f32 {
    let (mut letters, mut indic) = (0usize, 0usize);
    for c in text.chars().filter(|c| c.is_alphabetic()) {
        letters += 1;
        indic += is_indic(c) as usize;
    }
    if letters == 0 {
        0.0
    } else {
        indic as f32 / letters as f32
    }
}

/// Guesses the language of `text` as an ISO 639-1 code: `en`, `hi`, `mr`, `kn`, `te`, `ta`,
/// or `und` when no Vidya script dominates (fewer than 20 letters, or mostly other scripts).
pub fn detect_language(text: &str) -> &'static str {
    let mut counts = [0usize; 6];
    let mut lla = 0usize;
    for c in text.chars() {
        let s = script_of(c);
        counts[s as usize] += 1;
        if c == '\u{0933}' {
            lla += 1;
        }
    }
    let letters: usize = counts[..5].iter().sum();
    if letters < 20 {
        return "und";
    }
    let (best, n) = counts[..5]
        .iter()
        .enumerate()
        .max_by_key(|(_, n)| **n)
        .map(|(i, n)| (i, *n))
        .unwrap_or((5, 0));
    if n * 2 < letters {
        return "und";
    }
    match best {
        0 => "en",
        1 => {
            // ळ is ~0.5–1% of Marathi letters and well under 0.05% of Hindi letters.
            if lla * 1000 >= n * 2 {
                "mr"
            } else {
                "hi"
            }
        }
        2 => "kn",
        3 => "te",
        4 => "ta",
        _ => "und",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn languages() {
        assert_eq!(
            detect_language("Photosynthesis converts light energy into chemical energy."),
            "en"
        );
        assert_eq!(
            detect_language("प्रकाश संश्लेषण में पौधे सूर्य के प्रकाश से भोजन बनाते हैं।"),
            "hi"
        );
        assert_eq!(
            detect_language("महाराष्ट्रातील शाळांमध्ये मुलांना खेळ आणि कला शिकवली जाते. त्यांच्या वेळापत्रकात"),
            "mr"
        );
        assert_eq!(
            detect_language("ಕರ್ನಾಟಕದ ರಾಜಧಾನಿ ಬೆಂಗಳೂರು ನಗರವಾಗಿದೆ ಮತ್ತು ಅದು ದೊಡ್ಡದು"),
            "kn"
        );
        assert_eq!(detect_language("తెలంగాణ రాష్ట్ర రాజధాని హైదరాబాద్ నగరం చాలా పెద్దది"), "te");
        assert_eq!(
            detect_language("தமிழ்நாட்டின் தலைநகரம் சென்னை ஆகும் அது பெரிய நகரம்"),
            "ta"
        );
        assert_eq!(detect_language("12 34"), "und");
    }
}
