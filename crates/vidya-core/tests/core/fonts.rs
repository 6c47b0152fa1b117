//! The bundled Noto Sans fonts (`ui/fonts`, placed by `cargo xtask setup --models`)
//! cover every letter, vowel sign and conjunct-forming mark of the UI's Indic scripts, so the
//! app renders Hindi, Marathi, Kannada, Telugu and Tamil on a machine without Indic fonts.

use std::path::Path;

use crate::support;

/// Each font with text in its script: the Unicode block's letters and signs that the languages
/// use, plus a sentence (ground-truth text of `shared/data/indic_pdfs`).
const FONTS: &[(&str, std::ops::RangeInclusive<char>, &str)] = &[
    (
        "NotoSansDevanagari",
        '\u{0900}'..='\u{0963}',
        "पैंथर्स की डिफ़ेन्स ने लीग में केवल 308 अंक दिए। नर्मदा आणि तापी या दोन नद्या आहेत, ज्या कुंडातून वाहतात॥ ळ",
    ),
    (
        "NotoSansKannada",
        '\u{0C82}'..='\u{0CCD}',
        "ನರ್ಮದಾ ಮತ್ತು ತಾಪಿ ಎರಡು ಪರ್ಯಾಯದ್ವೀಪದ ನದಿಗಳು, ಇದು ತೊಟ್ಟಿಯ ಮೂಲಕ ಹರಿಯುತ್ತದೆ.",
    ),
    (
        "NotoSansTelugu",
        '\u{0C01}'..='\u{0C4D}',
        "నర్మదా మరియు తపి అనే రెండు ద్వీపకల్ప నదులు, ఈ ద్రోణి గుండా ప్రవహిస్తాయి.",
    ),
    (
        "NotoSansTamil",
        '\u{0B82}'..='\u{0BCD}',
        "நர்மதா மற்றும் தபி இரண்டு தீபகற்ப ஆறுகள், அவை பள்ளத்தாக்கு வழியாக பாய்கின்றன.",
    ),
];

#[test]
fn each_font_has_a_glyph_for_every_character_of_its_script() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/fonts");
    if !dir.join("NotoSansTamil-Bold.ttf").is_file() {
        support::skip(
            &format!("the UI fonts are not in {}", dir.display()),
            "cargo xtask setup --models",
        );
        return;
    }
    for (family, block, sentence) in FONTS {
        for weight in ["Regular", "Bold"] {
            let path = dir.join(format!("{family}-{weight}.ttf"));
            let data = std::fs::read(&path).unwrap();
            let face = ttf_parser::Face::parse(&data, 0).unwrap();
            let assigned = block.clone().filter(|c| {
                // Letters and marks of the block that Unicode assigns (gaps are reserved).
                unicode_script::UnicodeScript::script(c) != unicode_script::Script::Unknown
            });
            let missing: Vec<char> = assigned
                .chain(sentence.chars())
                .filter(|c| !c.is_whitespace() && face.glyph_index(*c).is_none())
                .collect();
            assert!(
                missing.is_empty(),
                "{}: no glyph for {missing:?}",
                path.display()
            );
            // Conjuncts and vowel-sign positions come from OpenType shaping tables.
            let tables = face.tables();
            assert!(
                tables.gsub.is_some() && tables.gpos.is_some(),
                "{}: no GSUB/GPOS",
                path.display()
            );
        }
    }
}
