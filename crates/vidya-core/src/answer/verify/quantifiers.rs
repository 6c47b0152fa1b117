//! Quantifiers: "all" where the source says "some", "some" where it says "all", an "only"
//! it does not say.

use super::align::{matched_clauses, same_word};
use super::cues::{ONLY, PARTIAL, UNIVERSAL};
use super::lexicon::Lexicon;
use super::opposites::{negated_bases, opposite};
use super::words::{Role, Sentence, Word};
use super::Finding;

/// Quantifiers: "all" where the source says "some" (or says neither), "some" where it says
/// "all", "only" where it does not.
pub fn quantifier(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> Option<Finding> {
    let clauses = matched_clauses(a, s);
    let in_s = |list: &[&str]| s.has_any(list, Some(&clauses));
    let first = |list: &[&str]| {
        a.words
            .iter()
            .find(|w| list.contains(&w.lower.as_str()))
            .map(|w| w.lower.clone())
    };
    let strong_universal: Vec<&str> = UNIVERSAL
        .iter()
        .copied()
        .filter(|w| !matches!(*w, "any" | "each"))
        .collect();
    if let Some(q) = first(&strong_universal) {
        let universal_in_source = s.words.iter().enumerate().any(|(j, w)| {
            clauses.contains(&w.clause) && UNIVERSAL.contains(&w.lower.as_str()) && !partitive(s, j)
        }) || source_quantifier_on_term(a, s, &q, |k| {
            UNIVERSAL.contains(&s.words[k].lower.as_str()) && !partitive(s, k)
        }) || repeated_term(a, s, &q);
        if !universal_in_source || limited_in_source(a, s, &q) {
            let source = s
                .words
                .iter()
                .find(|w| clauses.contains(&w.clause) && PARTIAL.contains(&w.lower.as_str()))
                .map(|w| w.lower.clone());
            return Some(Finding::Quantifier { answer: q, source });
        }
    }
    // A proportion the source does not give: "most", "few", "rarely" are claims of their own.
    const PROPORTION: &[&str] = &[
        "most", "mostly", "majority", "minority", "few", "rarely", "seldom",
    ];
    if let Some(q) = first(PROPORTION).filter(|q| {
        !s.has_any(&[q.as_str()], None) && !in_s(PROPORTION) && !denied_opposite(s, q, lex)
    }) {
        return Some(Finding::Quantifier {
            answer: q,
            source: None,
        });
    }
    if let Some(q) = first(PARTIAL).filter(|_| in_s(&strong_universal) && !in_s(PARTIAL)) {
        return Some(Finding::Quantifier {
            answer: q,
            source: Some("all".into()),
        });
    }
    // "Some viruses are up to 1000 nm" told as "viruses are 1000 nm": what the book says of
    // some, said of all; and a value it gives as usual ("is usually between 0 and 1.0"),
    // said as always so.
    let any_quantifier = |x: &Sentence| {
        x.has_any(UNIVERSAL, None) || x.has_any(PARTIAL, None) || x.has_any(ONLY, None)
    };
    if !any_quantifier(a) {
        const FREQUENCY: &[&str] = &[
            "usually",
            "typically",
            "generally",
            "normally",
            "often",
            "sometimes",
        ];
        // A value the book gives as usual ("usually between 0 and 1.0") is a claim about
        // that value; "researchers often use both" told as "scientists use both" is not
        // false.
        let gives_number = a.words.iter().any(|w| w.role == Role::Number);
        let limited = s.words.iter().find(|w| {
            clauses.contains(&w.clause)
                && (matches!(
                    w.lower.as_str(),
                    "some" | "few" | "several" | "certain" | "most" | "many"
                ) || (FREQUENCY.contains(&w.lower.as_str()) && gives_number))
        });
        if let Some(w) = limited {
            return Some(Finding::Quantifier {
                answer: "(all)".into(),
                source: Some(w.lower.clone()),
            });
        }
    }
    if let Some(q) = first(ONLY) {
        if !in_s(ONLY) && !s.has_any(ONLY, None) {
            return Some(Finding::Quantifier {
                answer: q,
                source: None,
            });
        }
    }
    None
}

/// True when the source says proportion `q` as its opposite with a negating prefix
/// ([`negated_bases`]; opposites by [`opposite`], with `lex` for WordNet's):
/// "infrequently" for "rarely", as "rarely" is the opposite of "frequently".
fn denied_opposite(s: &Sentence, q: &str, lex: Option<&Lexicon>) -> bool {
    let qw = super::words::read(q);
    let Some(q) = qw.words.first() else {
        return false;
    };
    s.words.iter().any(|x| {
        negated_bases(&x.lower).any(|rest| {
            super::words::read(rest)
                .words
                .first()
                .is_some_and(|r| opposite(q, r, lex))
        })
    })
}

/// True when the source says the term the answer quantifies with `q` twice around "after"
/// ("year after year" for "every year", "cell after cell"): a universal in English idiom.
fn repeated_term(a: &Sentence, s: &Sentence, q: &str) -> bool {
    quantified_term(a, q).is_some_and(|term| {
        s.words
            .windows(3)
            .any(|w| same_word(term, &w[0]) && w[1].lower == "after" && same_word(term, &w[2]))
    })
}

/// Words that take a part of what follows "of all" ("half of all", "most of all").
const PARTS: &[&str] = &[
    "percent", "half", "most", "some", "many", "few", "majority", "minority", "fraction", "part",
    "portion", "third", "quarter",
];

/// True when the source's universal word at `j` is inside a part of the whole ("about 90
/// percent of all bony fish", "half of all cells"): a number or a word of [`PARTS`], then
/// "of", then the universal. It says the part, not all.
fn partitive(s: &Sentence, j: usize) -> bool {
    j >= 2
        && s.words[j - 1].lower == "of"
        && (s.words[j - 2].role == Role::Number || PARTS.contains(&s.words[j - 2].lower.as_str()))
}

/// The content word the answer quantifies with `q`: the first one after it ("every sensory
/// signal" → "sensory").
fn quantified_term<'a>(a: &'a Sentence, q: &str) -> Option<&'a Word> {
    let at = a.words.iter().position(|w| w.lower == q)?;
    a.words[at + 1..].iter().find(|w| w.role == Role::Content)
}

/// True when the source puts a word that `quantifies` (given by its index in `s`) right before
/// (within two words) the term the answer quantifies with `q`, in any clause: "every sensory
/// signal" where the book's "All sensory signals, except those from the olfactory system, are
/// transmitted…" puts its "all" in a clause of its own.
fn source_quantifier_on_term(
    a: &Sentence,
    s: &Sentence,
    q: &str,
    quantifies: impl Fn(usize) -> bool,
) -> bool {
    let Some(term) = quantified_term(a, q) else {
        return false;
    };
    s.words
        .iter()
        .enumerate()
        .any(|(j, x)| same_word(term, x) && (j.saturating_sub(2)..j).any(&quantifies))
}

/// True when the term the answer quantifies with `q` ("all wavelengths") is limited in the
/// source ("only specific wavelengths", "certain wavelengths"): the source's own universal
/// word is on another term ("each absorbs only specific wavelengths").
fn limited_in_source(a: &Sentence, s: &Sentence, q: &str) -> bool {
    const LIMITING: &[&str] = &[
        "specific",
        "certain",
        "particular",
        "some",
        "few",
        "several",
    ];
    source_quantifier_on_term(a, s, q, |k| {
        let y = s.words[k].lower.as_str();
        LIMITING.contains(&y) || ONLY.contains(&y)
    })
}
