//! Which Tesseract language reads a page: the script first (a model for one script reads
//! another as confident nonsense), then, for Devanagari, Hindi or Marathi.
//!
//! The script comes from Tesseract's orientation and script detection (`--psm 0 -l osd`,
//! "Script: Devanagari"), else from the book's text layer, else from the language the teacher
//! gave. Hindi and Marathi share Devanagari; their common function words tell them apart
//! ([`devanagari_language`]).

/// Tesseract's language for an OSD script name, `None` for a script Vidya does not read.
pub fn language_of_script(script: &str) -> Option<&'static str> {
    match script {
        "Latin" => Some("eng"),
        "Devanagari" => Some("hin"),
        "Telugu" => Some("tel"),
        "Tamil" => Some("tam"),
        "Kannada" => Some("kan"),
        _ => None,
    }
}

/// Tesseract's language for an ISO 639-1 code as Vidya's language detection gives it
/// ([`crate::text::script::detect_language`]), `None` for "und" and others.
pub fn language_of_code(code: &str) -> Option<&'static str> {
    match code {
        "en" => Some("eng"),
        "hi" => Some("hin"),
        "mr" => Some("mar"),
        "te" => Some("tel"),
        "ta" => Some("tam"),
        "kn" => Some("kan"),
        _ => None,
    }
}

/// Tesseract's language for the language `text` is written in (Vidya's detection by script
/// and, for Devanagari, by word), `None` when it is none of the six: how a book's text layer
/// and the pages read so far teach the OCR what to try first.
pub fn language_of_text(text: &str) -> Option<&'static str> {
    language_of_code(crate::text::script::detect_language(text))
}

/// The script and its confidence from Tesseract's OSD output ("Script: Devanagari",
/// "Script confidence: 39.70"); `None` when it has none.
pub fn parse_osd(out: &str) -> Option<(String, f32)> {
    let field = |name: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
    };
    let script = field("Script:")?;
    let conf = field("Script confidence:")
        .and_then(|c| c.parse().ok())
        .unwrap_or(0.0);
    Some((script, conf))
}

/// OSD script confidences below this are not trusted (Tesseract's own scale; a clear page of
/// one script scores 15–45 here, a picture with a few letters under 2).
pub const MIN_SCRIPT_CONFIDENCE: f32 = 2.0;

/// Words that are very common in Marathi text and rare in Hindi, and the reverse.
const MARATHI_WORDS: [&str; 8] = ["आहे", "आहेत", "आणि", "हे", "व", "या", "केले", "होते"];
const HINDI_WORDS: [&str; 8] = ["है", "हैं", "और", "के", "की", "में", "से", "था"];

/// "mar" when `text` (Devanagari) reads as Marathi, else "hin": by the common function words
/// above, and by ळ (about 0.5–1% of Marathi letters, almost never in Hindi).
pub fn devanagari_language(text: &str) -> &'static str {
    let (mut mr, mut hi) = (0usize, 0usize);
    for w in text.split(|c: char| c.is_whitespace() || ",.।;:!?()\"'".contains(c)) {
        if MARATHI_WORDS.contains(&w) {
            mr += 1;
        } else if HINDI_WORDS.contains(&w) {
            hi += 1;
        }
    }
    let lla = text.chars().filter(|c| *c == 'ळ').count();
    if mr + 2 * lla > hi {
        "mar"
    } else {
        "hin"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn osd_output_is_read() {
        let out = "Page number: 0\nOrientation in degrees: 0\nRotate: 0\nOrientation confidence: 42.70\nScript: Devanagari\nScript confidence: 39.70\n";
        assert_eq!(parse_osd(out), Some(("Devanagari".into(), 39.7)));
        assert_eq!(parse_osd("Too few characters. Skipping this page"), None);
        assert_eq!(language_of_script("Telugu"), Some("tel"));
        assert_eq!(language_of_script("Bengali"), None);
        assert_eq!(language_of_code("mr"), Some("mar"));
        assert_eq!(language_of_code("und"), None);
    }

    #[test]
    fn hindi_and_marathi_are_told_apart() {
        assert_eq!(
            devanagari_language("प्रकाश संश्लेषण में पौधे भोजन बनाते हैं और ऑक्सीजन छोड़ते हैं।"),
            "hin"
        );
        assert_eq!(
            devanagari_language(
                "प्रकाश संश्लेषण ही वनस्पतींची अन्न बनवण्याची क्रिया आहे आणि त्यात ऑक्सिजन बाहेर पडतो."
            ),
            "mar"
        );
        assert_eq!(devanagari_language("नदीचे पाणी निळे"), "mar");
    }
}
