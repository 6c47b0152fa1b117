//! Legacy Hindi fonts: detecting a Kruti Dev text layer and converting it to Unicode.
//!
//! Before Unicode fonts were common, Hindi books were typeset in fonts such as Kruti Dev 010,
//! DevLys 010 and Chanakya that draw Devanagari glyphs in the slots of Latin characters. Their
//! PDFs carry a text layer of Latin "gibberish": `iSaFklZ dh` for "पैंथर्स की". A tutor that
//! indexes it answers nothing, so Vidya converts it.
//!
//! **Mapping.** Kruti Dev 010 and DevLys 010 share the Remington (typewriter) keyboard layout;
//! the table below follows that layout as published with the font and as used by the
//! converters in wide circulation (for instance the `krutidev_unicode_converter.py` of
//! Open-Speech-EkStep/common_scripts and the `kru2uni` converter of IIIT Hyderabad's LTRC).
//! The code is Vidya's own: the legacy string is cut into glyph codes by longest match, each
//! code is mapped to its Unicode letters, and the two glyphs that Kruti Dev writes out of
//! logical order are moved:
//! - `f` (ि, drawn before its consonant) moves after the whole following consonant cluster
//!   (half forms, the full consonant, nukta and rakar: `fLFk` → स्थि);
//! - `Z` (reph, र् drawn above the end of its syllable) moves before the cluster whose vowel
//!   signs it follows (`ikVhZ` → पार्टी).
//!
//! Chanakya uses a different layout; it is detected (by font name) but not converted.

use std::collections::HashMap;
use std::sync::OnceLock;
use unicode_normalization::UnicodeNormalization;

/// A legacy (non-Unicode) Devanagari font family, recognised by its PDF font name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LegacyFont {
    /// Kruti Dev 0xx and DevLys 0xx (Remington layout): converted by [`krutidev_to_unicode`].
    KrutiDev,
    /// Chanakya / Walkman-Chanakya: detected, not converted.
    Chanakya,
}

impl LegacyFont {
    /// The family's name for messages ("Kruti Dev").
    pub fn name(self) -> &'static str {
        match self {
            LegacyFont::KrutiDev => "Kruti Dev",
            LegacyFont::Chanakya => "Chanakya",
        }
    }
}

/// The legacy family of a PDF font name (`KrutiDev010`, `ABCDEF+Kruti Dev 010`, `DevLys010`,
/// `Walkman-Chanakya905`), ignoring a subset prefix, case, spaces and punctuation; `None` for
/// any other font.
pub fn legacy_font_of(font_name: &str) -> Option<LegacyFont> {
    let base = font_name.split_once('+').map_or(font_name, |(_, b)| b);
    let key: String = base
        .chars()
        .filter(char::is_ascii_alphabetic)
        .map(|c| c.to_ascii_lowercase())
        .collect();
    if key.starts_with("krutidev") || key.starts_with("devlys") {
        Some(LegacyFont::KrutiDev)
    } else if key.contains("chanakya") {
        Some(LegacyFont::Chanakya)
    } else {
        None
    }
}

/// The Kruti Dev spellings of very frequent Hindi words (का के की में है हैं और से को कि भी
/// यह वह तथा था थे थी पर एक जो इस उन कर हो लिए गया नहीं या), used to recognise a Kruti Dev
/// text layer whose font name was stripped.
const FREQUENT_WORDS: &[&str] = &[
    "dk", "ds", "dh", "esa", "gS", "gSa", "vkSj", "ls", "dks", "fd", "Hkh", ";g", "og", "rFkk",
    "Fkk", "Fks", "Fkh", "ij", ",d", "tks", "bl", "mu", "dj", "gks", "fy,", "x;k", "ugha", ";k",
];

/// Minimum share of words that must be [`FREQUENT_WORDS`] for text to count as Kruti Dev
/// (in Hindi prose these words are about a quarter of all words; in English text about none).
pub const KRUTIDEV_WORD_SHARE: f64 = 0.12;

/// True when `text` reads as Kruti Dev-encoded Hindi by its statistics: at least 20 words, no
/// Devanagari letters, and at least [`KRUTIDEV_WORD_SHARE`] of the words are Kruti Dev
/// spellings of frequent Hindi words.
pub fn looks_like_krutidev(text: &str) -> bool {
    if text.chars().any(|c| ('\u{0900}'..='\u{097F}').contains(&c)) {
        return false;
    }
    let words: Vec<&str> = text
        .split_whitespace()
        .map(|w| w.trim_end_matches(['A', ']', '-']))
        .collect();
    if words.len() < 20 {
        return false;
    }
    let hits = words.iter().filter(|w| FREQUENT_WORDS.contains(w)).count();
    hits as f64 >= KRUTIDEV_WORD_SHARE * words.len() as f64
}

/// Kruti Dev 010 glyph codes and the Unicode letters they stand for (Remington layout).
const TABLE: &[(&str, &str)] = &[
    // Independent vowels.
    ("v", "अ"),
    ("vk", "आ"),
    ("vks", "ओ"),
    ("vkS", "औ"),
    ("v‚", "ऑ"),
    ("b", "इ"),
    ("bZ", "ई"),
    ("b±", "ईं"),
    ("m", "उ"),
    ("Å", "ऊ"),
    ("_", "ऋ"),
    (",", "ए"),
    (",s", "ऐ"),
    // Consonants: full forms, and half forms (ending in virama).
    ("d", "क"),
    ("D", "क्"),
    ("[k", "ख"),
    ("[", "ख्"),
    ("x", "ग"),
    ("X", "ग्"),
    ("?k", "घ"),
    ("?", "घ्"),
    ("³", "ङ"),
    ("p", "च"),
    ("P", "च्"),
    ("N", "छ"),
    ("t", "ज"),
    ("T", "ज्"),
    (">", "झ"),
    ("÷", "झ्"),
    ("Ö", "झ्"),
    ("¥", "ञ"),
    ("V", "ट"),
    ("B", "ठ"),
    ("M", "ड"),
    ("<", "ढ"),
    (".k", "ण"),
    (".", "ण्"),
    ("r", "त"),
    ("R", "त्"),
    ("Fk", "थ"),
    ("F", "थ्"),
    ("n", "द"),
    ("/k", "ध"),
    ("/", "ध्"),
    ("u", "न"),
    ("U", "न्"),
    ("i", "प"),
    ("I", "प्"),
    ("Q", "फ"),
    ("¶", "फ्"),
    ("c", "ब"),
    ("C", "ब्"),
    ("Hk", "भ"),
    ("H", "भ्"),
    ("Ò", "भ"),
    ("e", "म"),
    ("E", "म्"),
    (";", "य"),
    ("¸", "य्"),
    ("j", "र"),
    ("y", "ल"),
    ("Y", "ल्"),
    ("G", "ळ"),
    ("o", "व"),
    ("O", "व्"),
    ("'k", "श"),
    ("'", "श्"),
    ("Ük", "श"),
    ("Ü", "श्"),
    ("\"k", "ष"),
    ("\"", "ष्"),
    ("l", "स"),
    ("L", "स्"),
    ("g", "ह"),
    ("º", "ह्"),
    // Nukta forms that are one code, and the nukta on its own.
    ("[+k", "ख़"),
    ("[+", "ख़्"),
    ("T+", "ज़्"),
    ("¶+", "फ़्"),
    (";+", "य़"),
    ("+", "\u{093C}"),
    // Conjuncts drawn as one glyph.
    ("{k", "क्ष"),
    ("{", "क्ष्"),
    ("=", "त्र"),
    ("«", "त्र्"),
    ("K", "ज्ञ"),
    ("J", "श्र"),
    ("Ø", "क्र"),
    ("ç", "प्र"),
    ("Á", "प्र"),
    ("æ", "द्र"),
    ("Ý", "फ्र"),
    ("Vª", "ट्र"),
    ("Mª", "ड्र"),
    ("<ª", "ढ्र"),
    ("Nª", "छ्र"),
    ("Nî", "छ्य"),
    ("Vî", "ट्य"),
    ("Bî", "ठ्य"),
    ("Mî", "ड्य"),
    ("<î", "ढ्य"),
    ("|", "द्य"),
    ("}", "द्व"),
    (")", "द्ध"),
    ("í", "द्द"),
    ("Ì", "द्द"),
    ("ê", "ट्ट"),
    ("Í", "ट्ट"),
    ("ë", "ट्ठ"),
    ("Î", "ट्ठ"),
    ("ì", "ड्ड"),
    ("Ï", "ड्ड"),
    ("ï", "ड्ढ"),
    ("Ô", "ड्ढ"),
    ("ô", "क्क"),
    ("Dr", "क्त"),
    ("Ùk", "त्त"),
    ("Ù", "त्त्"),
    ("é", "न्न"),
    ("™", "न्न्"),
    ("–", "दृ"),
    ("—", "कृ"),
    ("Ñ", "कृ"),
    ("à", "ह्न"),
    ("á", "ह्य"),
    ("â", "हृ"),
    ("ã", "ह्म"),
    ("ºz", "ह्र"),
    ("#", "रु"),
    // Vowel signs and other marks.
    ("k", "ा"),
    ("h", "ी"),
    ("q", "ु"),
    ("w", "ू"),
    ("`", "ृ"),
    ("s", "े"),
    ("S", "ै"),
    ("ks", "ो"),
    ("kS", "ौ"),
    ("‚", "ॉ"),
    ("a", "ं"),
    ("¡", "ँ"),
    ("%", "ः"),
    ("W", "ॅ"),
    ("~", "्"),
    ("z", "्र"),
    ("ª", "्र"),
    ("î", "्य"),
    ("Ó", "्य"),
    ("•", "ऽ"),
    ("·", "ऽ"),
    // Punctuation and digits.
    ("A", "।"),
    ("]", ","),
    ("&", "-"),
    ("-", "."),
    ("^", "‘"),
    ("*", "’"),
    ("Þ", "“"),
    ("ß", "”"),
    ("¼", "("),
    ("½", ")"),
    ("¿", "{"),
    ("À", "}"),
    ("¾", "="),
    ("Œ", "॰"),
    ("ñ", "॰"),
    ("\\", "?"),
    ("@", "/"),
    ("(", ";"),
    ("å", "०"),
    ("ƒ", "१"),
    ("„", "२"),
    ("…", "३"),
    ("†", "४"),
    ("‡", "५"),
    ("ˆ", "६"),
    ("‰", "७"),
    ("Š", "८"),
    ("‹", "९"),
];

/// What a glyph code is, for reordering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// A full consonant or conjunct (can carry vowel signs).
    Consonant,
    /// A half consonant (ends in virama): part of the next consonant's cluster.
    Half,
    /// Nukta, rakar (्र) or ya-phala (्य): attached to the consonant before it.
    Attached,
    /// A vowel sign, anusvara, candrabindu or visarga.
    Sign,
    /// `f`: the short i sign, written before its consonant cluster.
    PreI,
    /// `Z`: reph, written after its syllable.
    Reph,
    /// Anything else (independent vowels, digits, punctuation, spaces, other text).
    Other,
}

fn classify(unicode: &str) -> Class {
    let first = unicode.chars().next().unwrap_or(' ');
    let is_consonant = |c: char| ('\u{0915}'..='\u{0939}').contains(&c) || c == '\u{0933}';
    if matches!(unicode, "\u{093C}" | "्र" | "्य") {
        Class::Attached
    } else if unicode.chars().count() > 1 && unicode.ends_with('\u{094D}') && is_consonant(first) {
        Class::Half
    } else if is_consonant(first) {
        Class::Consonant
    } else if unicode_normalization::char::is_combining_mark(first) {
        Class::Sign
    } else {
        Class::Other
    }
}

struct Codes {
    map: HashMap<&'static str, (&'static str, Class)>,
    longest: usize,
}

fn codes() -> &'static Codes {
    static CODES: OnceLock<Codes> = OnceLock::new();
    CODES.get_or_init(|| {
        let map: HashMap<_, _> = TABLE.iter().map(|(k, u)| (*k, (*u, classify(u)))).collect();
        let longest = TABLE
            .iter()
            .map(|(k, _)| k.chars().count())
            .max()
            .unwrap_or(1);
        Codes { map, longest }
    })
}

/// Converts Kruti Dev 010 / DevLys 010 encoded text to Unicode Devanagari (NFC).
///
/// ASCII digits and whitespace pass through; a character that is no Kruti Dev code passes
/// through unchanged. `:` is रू inside a word and a colon before a space, digit or the end.
fn convert(legacy: &str) -> String {
    let units = glyph_units(legacy);
    let ordered = place_short_i(units);
    let out = place_reph(ordered);
    let joined: String = out.into_iter().map(|(u, _)| u).collect();
    fix_compositions(&joined).nfc().collect()
}

/// Step 1: `legacy` cut into glyph codes by longest match, each as its Unicode text and class.
fn glyph_units(legacy: &str) -> Vec<(String, Class)> {
    let codes = codes();
    let chars: Vec<char> = legacy.chars().collect();
    let mut units: Vec<(String, Class)> = Vec::with_capacity(chars.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == 'f' {
            units.push(("ि".into(), Class::PreI));
            i += 1;
            continue;
        }
        if c == 'Z' {
            units.push(("र्".into(), Class::Reph));
            i += 1;
            continue;
        }
        // Between digits a dash is a dash ("23–16"), not the दृ / कृ glyph of its slot.
        if matches!(c, '–' | '—')
            && i > 0
            && chars[i - 1].is_ascii_digit()
            && chars.get(i + 1).is_some_and(|n| n.is_ascii_digit())
        {
            units.push((c.to_string(), Class::Other));
            i += 1;
            continue;
        }
        if c == ':' {
            let next_is_letter = chars
                .get(i + 1)
                .is_some_and(|n| !n.is_whitespace() && !n.is_ascii_digit());
            let (text, class) = if next_is_letter {
                ("रू", Class::Consonant)
            } else {
                (":", Class::Other)
            };
            units.push((text.into(), class));
            i += 1;
            continue;
        }
        let mut matched = None;
        for len in (1..=codes.longest.min(chars.len() - i)).rev() {
            let code: String = chars[i..i + len].iter().collect();
            if let Some((u, class)) = codes.map.get(code.as_str()) {
                matched = Some((len, *u, *class));
                break;
            }
        }
        match matched {
            Some((len, u, class)) => {
                units.push((u.into(), class));
                i += len;
            }
            None => {
                units.push((c.to_string(), Class::Other));
                i += 1;
            }
        }
    }
    units
}

/// Step 2: each short-i sign (typed before its consonant) moved after the consonant cluster
/// that follows it.
fn place_short_i(units: Vec<(String, Class)>) -> Vec<(String, Class)> {
    let mut ordered: Vec<(String, Class)> = Vec::with_capacity(units.len());
    let mut pending_i = 0usize;
    let mut k = 0;
    while k < units.len() {
        if units[k].1 == Class::PreI {
            pending_i += 1;
            k += 1;
            continue;
        }
        if pending_i > 0 {
            let mut j = k;
            while j < units.len() && units[j].1 == Class::Half {
                j += 1;
            }
            if j < units.len() && units[j].1 == Class::Consonant {
                j += 1;
                while j < units.len() && units[j].1 == Class::Attached {
                    j += 1;
                }
                ordered.extend(units[k..j].iter().cloned());
                for _ in 0..pending_i {
                    ordered.push(("ि".into(), Class::Sign));
                }
                pending_i = 0;
                k = j;
                continue;
            }
            // No consonant follows: keep the sign where it was written.
            for _ in 0..pending_i {
                ordered.push(("ि".into(), Class::Sign));
            }
            pending_i = 0;
        }
        ordered.push(units[k].clone());
        k += 1;
    }
    for _ in 0..pending_i {
        ordered.push(("ि".into(), Class::Sign));
    }
    ordered
}

/// Step 3: each reph (typed after its cluster's vowel signs) moved before the consonant
/// cluster.
fn place_reph(ordered: Vec<(String, Class)>) -> Vec<(String, Class)> {
    let mut out: Vec<(String, Class)> = Vec::with_capacity(ordered.len());
    for unit in ordered {
        if unit.1 != Class::Reph {
            out.push(unit);
            continue;
        }
        let mut j = out.len();
        while j > 0 && out[j - 1].1 == Class::Sign {
            j -= 1;
        }
        while j > 0 && out[j - 1].1 == Class::Attached {
            j -= 1;
        }
        if j > 0 && out[j - 1].1 == Class::Consonant {
            j -= 1;
            while j > 0 && out[j - 1].1 == Class::Half {
                j -= 1;
            }
            out.insert(j, ("र्".into(), Class::Half));
        } else {
            out.push(("र्".into(), Class::Half));
        }
    }
    out
}

/// Converts Kruti Dev text word by word with [`convert_word`], keeping Latin abbreviations.
///
/// A word of two or more ASCII capital letters whose conversion would end in a virama
/// ("NFL" → छथ्स्) is an English abbreviation typed in the Kruti Dev font: Hindi words almost
/// never end in a half consonant, and Kruti Dev types them with lower-case codes. It is kept
/// in Latin letters.
pub fn krutidev_to_unicode(legacy: &str) -> String {
    let mut out = String::with_capacity(legacy.len() * 2);
    let mut word = String::new();
    for c in legacy.chars() {
        if c.is_whitespace() {
            out.push_str(&convert_word(&word));
            word.clear();
            out.push(c);
        } else {
            word.push(c);
        }
    }
    out.push_str(&convert_word(&word));
    out
}

fn convert_word(word: &str) -> String {
    if word.is_empty() {
        return String::new();
    }
    let core = word.trim_matches(|c: char| !c.is_ascii_alphanumeric());
    if core.len() >= 2
        && core.chars().all(|c| c.is_ascii_uppercase())
        && convert(core).ends_with('\u{094D}')
    {
        // Keep the abbreviation; its brackets and punctuation are still Kruti Dev codes.
        let start = word.find(core).unwrap_or(0);
        let (before, after) = (&word[..start], &word[start + core.len()..]);
        return format!("{}{core}{}", convert(before), convert(after));
    }
    convert(word)
}

/// Glyph pairs that Kruti Dev types as two codes for one Unicode letter.
fn fix_compositions(s: &str) -> String {
    const PAIRS: &[(&str, &str)] = &[
        ("्ा", ""), // half form + the aa bar = the full consonant ("Dk" → क)
        ("अा", "आ"),
        ("आे", "ओ"),
        ("आै", "औ"),
        ("एे", "ऐ"),
        ("ाॅ", "ॉ"), // aa + candra = the o of "doctor" ("kW")
        ("आॅ", "ऑ"),
        ("अॅ", "ॲ"),
    ];
    let mut s = s.to_string();
    for (from, to) in PAIRS {
        if s.contains(from) {
            s = s.replace(from, to);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn font_names() {
        assert_eq!(legacy_font_of("KrutiDev010"), Some(LegacyFont::KrutiDev));
        assert_eq!(
            legacy_font_of("ABCDEF+Kruti Dev 010,Bold"),
            Some(LegacyFont::KrutiDev)
        );
        assert_eq!(legacy_font_of("DevLys010"), Some(LegacyFont::KrutiDev));
        assert_eq!(
            legacy_font_of("Walkman-Chanakya905"),
            Some(LegacyFont::Chanakya)
        );
        assert_eq!(legacy_font_of("MPDFAA+NotoSansDevanagari"), None);
        assert_eq!(legacy_font_of("TimesNewRomanPSMT"), None);
    }

    #[test]
    fn words_from_the_shared_kruti_dev_pdf() {
        // Pairs from shared/data/indic_pdfs/hi_krutidev010_legacy (encoded / ground truth).
        for (legacy, unicode) in [
            ("iSaFklZ dh", "पैंथर्स की"),
            ("fMQ+sUl", "डिफ़ेन्स"),
            ("LFkku", "स्थान"),
            ("bUVjlsI'ku", "इन्टरसेप्शन"),
            ("vxz.kh jgsA", "अग्रणी रहे।"),
            ("izks ckmy", "प्रो बाउल"),
            ("usr`Ro fd;k]", "नेतृत्व किया,"),
            ("'kkWVZ", "शॉर्ट"),
            ("ekfjvks ,fMlu", "मारिओ एडिसन"),
            ("tksM+sA", "जोड़े।"),
            ("5&ckj", "5-बार"),
            ("lfØ; dfj;j", "सक्रिय करियर"),
            ("'kqjqvkr", "शुरुआत"),
            ("Q+ksLMZ", "फ़ोर्स्ड"),
            ("Y;wd D;qpyh", "ल्यूक क्युचली"),
            ("Fkk: FkkWel", "था: थॉमस"),
            ("4:51 le;", "4:51 समय"),
            ("lkFk NFL esa", "साथ NFL में"),
            ("Hkk\"kk ¼ASL½ esa", "भाषा (ASL) में"),
            ("23–16 ls", "23–16 से"),
            ("IysvkWQ+", "प्लेऑफ़"),
        ] {
            let want: String = unicode.nfc().collect();
            assert_eq!(krutidev_to_unicode(legacy), want, "{legacy}");
        }
    }

    #[test]
    fn reordering_of_short_i_and_reph() {
        assert_eq!(krutidev_to_unicode("fiz;"), "प्रिय"); // ि after the rakar cluster
        assert_eq!(krutidev_to_unicode("ikVhZ"), "पार्टी"); // reph before ट, after ी
        assert_eq!(krutidev_to_unicode("dk;Z"), "कार्य");
        assert_eq!(krutidev_to_unicode("/keZ"), "धर्म");
        assert_eq!(krutidev_to_unicode("f"), "ि"); // nothing to attach to: kept
    }

    #[test]
    fn recognises_kruti_dev_text_by_its_words() {
        let legacy = "iSaFklZ dh fMQ+sUl us yhx esa dsoy 308 vad fn, vkSj NBs LFkku ij jgs \
                      tcfd 24 bUVjlsI'ku vkSj pkj izks ckmy p;u ds lkFk NFL esa vxz.kh jgsA";
        assert!(looks_like_krutidev(legacy));
        let english = "The light-dependent reactions of photosynthesis take place in the \
                       thylakoid membranes, where energy from sunlight is used to make ATP \
                       and NADPH for us and for the cell.";
        assert!(!looks_like_krutidev(english));
        assert!(!looks_like_krutidev(
            "पैंथर्स की डिफ़ेन्स ने लीग में केवल dk ds dh esa"
        ));
    }
}
