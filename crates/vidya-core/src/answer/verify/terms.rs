//! Terms: each content word of the answer that the aligned sentence and its passage do not
//! account for, judged as another term of the same kind (a swapped term) or as new content.

use super::align::{account, find, same_word, Match};
use super::lexicon::Lexicon;
use super::opposites::NEGATING_PREFIXES;
use super::words::{unit_of, Role, Sentence, Word};
use super::Finding;

/// The answer's content words that the aligned sentence (or its passage) does not account
/// for, each judged: another term of the same kind as a source word the answer dropped
/// ([`Finding::SwappedTerm`]) or new content ([`Finding::NewTerm`]) when no sentence of
/// `sources` (every passage the model was given) has it either. Words of an opposite pair
/// are reported by [`opposites`] instead (`skip`).
pub fn terms(
    a: &Sentence,
    s: &Sentence,
    passage: &[Sentence],
    sources: &[Sentence],
    lex: Option<&Lexicon>,
    skip: &[usize],
    findings: &mut Vec<Finding>,
) {
    let matches = account(a, s, lex);
    let taken: Vec<usize> = matches
        .iter()
        .filter_map(|m| match m {
            Match::Same(j) | Match::Related(j) => Some(*j),
            Match::None => None,
        })
        .collect();
    let dropped: Vec<(usize, &Word)> = s
        .words
        .iter()
        .enumerate()
        .filter(|(j, x)| x.role == Role::Content && !taken.contains(j))
        .filter(|(_, x)| !a.words.iter().any(|w| same_word(w, x)))
        .collect();
    for (i, w) in a.words.iter().enumerate() {
        if w.role != Role::Content || skip.contains(&i) || matches[i] != Match::None {
            continue;
        }
        if let Some((_, x)) = dropped
            .iter()
            .find(|(_, x)| same_kind(w, x, lex) && !narrows(&w.lower, &x.lower))
        {
            findings.push(Finding::SwappedTerm {
                answer: w.lower.clone(),
                source: x.lower.clone(),
            });
            continue;
        }
        // One unit named for another ("the watt is the unit of work" where the book names
        // the joule): WordNet puts the two under different kinds of unit.
        if let Some(u) = unit_of(&w.lower) {
            if let Some((_, x)) = dropped
                .iter()
                .find(|(_, x)| unit_of(&x.lower).is_some_and(|v| v != u))
            {
                findings.push(Finding::SwappedTerm {
                    answer: w.lower.clone(),
                    source: x.lower.clone(),
                });
                continue;
            }
        }
        // In the place of a dropped source word: its neighbour (the next content word before
        // or after it) is matched, and the source's neighbour on that side was dropped
        // ("parietal cells" for "chief cells", "the slope of the line" for "the area under
        // the line").
        // A word taken from elsewhere in the sources into the place of a dropped one; a word
        // the sources do not have at all is new content ([`Finding::NewTerm`]) instead.
        let in_sources = super::align::in_any(w, passage);
        // Not a word that means the same ("sunlight" for "solar radiation").
        if let Some(x) = substituted(a, s, i, &matches, &dropped)
            .filter(|_| in_sources)
            .filter(|x| !lex.is_some_and(|l| l.same_meaning(&w.lower, x)))
            .filter(|x| !narrows(&w.lower, x))
        {
            findings.push(Finding::SwappedTerm {
                answer: w.lower.clone(),
                source: x,
            });
            continue;
        }
        // New content is what no passage the model was given has: "the light-dependent
        // reactions of photosynthesis" restates the sentence it is aligned to, and
        // "photosynthesis" is in another passage.
        if sources.iter().any(|p| find(w, p, lex) != Match::None) {
            continue;
        }
        findings.push(Finding::NewTerm {
            term: w.lower.clone(),
        });
    }
}

/// The dropped source word in the place of answer word `i`, when a content neighbour of `i`
/// is matched in the source and the source word on the same side of that match is dropped.
fn substituted(
    a: &Sentence,
    s: &Sentence,
    i: usize,
    matches: &[Match],
    dropped: &[(usize, &Word)],
) -> Option<String> {
    let is_content = |w: &Word| w.role == Role::Content;
    let next_a = (i + 1..a.words.len()).find(|k| is_content(&a.words[*k]));
    let prev_a = (0..i).rev().find(|k| is_content(&a.words[*k]));
    let source_at = |k: usize| match matches[k] {
        Match::Same(j) => Some(j),
        _ => None,
    };
    let dropped_at = |j: usize| {
        dropped
            .iter()
            .find(|(d, _)| *d == j)
            .map(|(_, x)| x.lower.clone())
    };
    // The answer word comes before its matched neighbour: compare the source word before the
    // neighbour's match; and after.
    if let Some(j) = next_a.and_then(source_at) {
        if a.words[next_a?].clause == a.words[i].clause {
            if let Some(p) = (0..j).rev().find(|p| is_content(&s.words[*p])) {
                if s.words[p].clause == s.words[j].clause {
                    if let Some(x) = dropped_at(p) {
                        return Some(x);
                    }
                }
            }
        }
    }
    if let Some(j) = prev_a.and_then(source_at) {
        if a.words[prev_a?].clause == a.words[i].clause {
            if let Some(p) = (j + 1..s.words.len()).find(|p| is_content(&s.words[*p])) {
                if s.words[p].clause == s.words[j].clause {
                    if let Some(x) = dropped_at(p) {
                        return Some(x);
                    }
                }
            }
        }
    }
    None
}

/// Two terms of the same kind: WordNet co-hyponyms, or technical words that share a long
/// ending or beginning and differ in the rest ("prophase"/"metaphase",
/// "endothermic"/"exothermic", "hypertonic"/"hypotonic").
fn same_kind(a: &Word, b: &Word, lex: Option<&Lexicon>) -> bool {
    if lex.is_some_and(|l| l.same_kind(&a.lower, &b.lower)) {
        return true;
    }
    let (x, y) = (a.lower.as_str(), b.lower.as_str());
    if x.len() < 6 || y.len() < 6 || !x.is_ascii() || !y.is_ascii() {
        return false;
    }
    let common_suffix = x
        .bytes()
        .rev()
        .zip(y.bytes().rev())
        .take_while(|(p, q)| p == q)
        .count();
    let common_prefix = x.bytes().zip(y.bytes()).take_while(|(p, q)| p == q).count();
    let shorter = x.len().min(y.len());
    // A shared part of four letters or more, and a different part of two or more on each side;
    // or a shared beginning and ending around a different middle of two letters or more
    // ("conduction"/"convection", "reflection"/"refraction", "transcription"/"translation").
    let middle = |z: &str| z.len().saturating_sub(common_prefix + common_suffix);
    (common_suffix >= 4 && shorter - common_suffix >= 1 && common_prefix < 2)
        || (common_prefix >= 4 && shorter - common_prefix >= 3 && common_suffix < 3)
        || (common_prefix >= 3 && common_suffix >= 4 && middle(x) >= 2 && middle(y) >= 2)
}

/// True when answer word `a` is source word `b` with a head that narrows it
/// ("exoenzymes" for "enzymes", "phospholipids" for "lipids"): a more specific name for the
/// same thing, not another term of its kind. A negating head ("nonpolar", "antibodies")
/// makes another term.
fn narrows(a: &str, b: &str) -> bool {
    b.chars().count() >= 5
        && a.strip_suffix(b).is_some_and(|head| {
            head.chars().count() >= 2
                && !NEGATING_PREFIXES.contains(&head)
                && !["anti", "counter", "de"].contains(&head)
        })
}
