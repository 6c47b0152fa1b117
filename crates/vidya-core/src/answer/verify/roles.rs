//! Roles: the two terms of a relation (agent and object, cause and effect) read in the other
//! order than the source's, with nothing that reverses the reading, and a sentence whose
//! clauses each restate the other clause of the source.

use super::align::{account, same_word, Match};
use super::causes;
use super::cues::REVERSERS;
use super::lexicon::Lexicon;
use super::opposites::{opposite, order_class, said_twice};
use super::words::{Role, Sentence, Word};

/// Words that join a cause and its effect ("because", "so", "due to", "leads to"): a relation
/// of their own between two terms, as a verb is.
const CAUSAL: &[&str] = &[
    "because",
    "since",
    "so",
    "therefore",
    "thus",
    "hence",
    "due",
    "causes",
    "cause",
    "caused",
    "leads",
    "lead",
    "led",
    "results",
    "result",
    "resulting",
    "produces",
    "triggers",
    "triggered",
    "makes",
    "make",
    "if",
    "when",
    "whenever",
    "क्योंकि",
    "इसलिए",
    "कारण",
];

/// Causal words that put the effect first when they stand between two terms ("B because A",
/// "B if A", "B when A"); at the start of a sentence they put the cause first ("Because A,
/// B").
fn effect_first(w: &str) -> bool {
    causes::EFFECT_FIRST.contains(&w) || causes::CONDITIONS.contains(&w)
}

/// True for a past participle: "-ed" or "-en", or an irregular one ("lost", "made", "held").
fn is_participle(w: &Word) -> bool {
    let l = w.lower.as_str();
    (l.len() > 4 && (l.ends_with("ed") || l.ends_with("en"))) || super::words::lemma_of(l) != l
}

/// Words after which a word that is both a noun and a verb reads as a noun ("the tastes",
/// "have seeds", "from burning coal").
const NOUN_AFTER: &[&str] = &[
    "a", "an", "the", "its", "their", "his", "her", "our", "your", "my", "this", "these", "those",
    "some", "many", "few", "all", "each", "every", "no", "other", "such", "have", "has", "had",
    "of", "from", "with", "in", "on", "for", "at", "into", "through",
];

/// Relative pronouns: a clause they open says something of the term before them ("T cells,
/// which mature in the thymus").
const RELATIVES: &[&str] = &["that", "which", "who", "whom", "whose"];

/// Words besides the [`RELATIVES`] that open a clause with a subject of its own ("contracts
/// when myosin binds"; "tastes that humans detect" through "that").
const SUBORDINATORS: &[&str] = &["when", "where", "while", "whereas", "as", "if"];

/// True for a word that opens a clause with a subject of its own: a relative pronoun or a
/// subordinator.
fn opens_clause(w: &Word) -> bool {
    RELATIVES.contains(&w.lower.as_str()) || SUBORDINATORS.contains(&w.lower.as_str())
}

/// Whether answer word `k` can be the relation between two terms: a verb that does not read
/// as a noun here (after a determiner, a preposition, "have", an adjective, or a verb in "-ing"
/// whose object it is: "the primary tastes", "burning coal"), a word WordNet does not know, or
/// an adjective said of a term, not put before one ("larger than", not "a close
/// relationship").
fn reads_as_relation(a: &Sentence, k: usize, l: &Lexicon) -> bool {
    let w = a.words[k].lower.as_str();
    let before = k.checked_sub(1).map(|p| a.words[p].lower.as_str());
    if l.is_verb(w) {
        return !l.is_noun(w)
            || before.is_none_or(|p| {
                !NOUN_AFTER.contains(&p)
                    && (!l.is_adjective(p) || l.is_verb(p))
                    && (!p.ends_with("ing") || !l.is_verb(p))
            });
    }
    if !l.knows(w) {
        return true;
    }
    !l.is_noun(w) && a.words.get(k + 1).is_none_or(|n| n.role != Role::Content)
}

/// Prepositions that can follow a relation noun ("release on", "uptake into", "loss from").
const PREPOSITIONS: &[&str] = &[
    "on", "onto", "of", "in", "into", "from", "to", "at", "across", "through", "within",
];

/// Most words between a relation's term and the relation word.
const RELATION_GAP: usize = 4;

/// A relation's two terms swapped, or a cause and its effect reversed: two answer terms found
/// in the source, each within [`RELATION_GAP`] words of a relation word that stands between
/// them in both sentences (the same verb or a synonym, a causal word, a comparative), read in
/// the other order with no word that reverses the reading (passive "by", "because", "from",
/// an opposite comparative). A verb counts as the relation only where it can be one
/// ([`reads_as_relation`]), in the terms' own clause, and not in a clause with a subject of
/// its own that opens after the first term ([`opens_clause`]). `opposed`: answer word indexes
/// of [`opposites`], which reverse the reading too. Returns whether a swap was found, and the
/// opposite words that a swap of the terms cancels ("Y is smaller than X" for "X is larger
/// than Y").
pub fn roles(
    a: &Sentence,
    s: &Sentence,
    lex: Option<&Lexicon>,
    opposed: &[usize],
) -> (bool, Vec<usize>) {
    // Answer content words with their position in the source.
    let key: Vec<(usize, usize)> = a
        .words
        .iter()
        .zip(account(a, s, lex))
        .enumerate()
        .filter(|(_, (w, _))| w.role == Role::Content)
        .filter_map(|(i, (_, m))| match m {
            Match::Same(j) | Match::Related(j) => Some((i, j)),
            Match::None => None,
        })
        .collect();
    // Words that reverse the reading between two terms: a passive ("by" after a participle:
    // "detected by"; or an auxiliary before the relation's own participle or its opposite:
    // "is eaten", "is lost from", "is slowed" for "speeds up"; not "are located in", where
    // the relation is another word) counts once, and each causal or source word ("because",
    // "due to", "from", "after").
    let passive = |words: &[Word], relation: &Word| {
        words.iter().enumerate().any(|(k, w)| {
            is_participle(w)
                && (((same_word(w, relation) || opposite(w, relation, lex))
                    && words[..k].iter().rev().take(2).any(|x| {
                        matches!(
                            x.lower.as_str(),
                            "is" | "are"
                                | "was"
                                | "were"
                                | "be"
                                | "been"
                                | "being"
                                | "get"
                                | "gets"
                                | "got"
                        )
                    }))
                    || words[k + 1..].iter().take(2).any(|x| x.lower == "by"))
        })
    };
    let reversers = |words: &[Word], relation: &Word| {
        usize::from(passive(words, relation))
            + words
                .iter()
                .filter(|w| w.lower != "by" && REVERSERS.contains(&w.lower.as_str()))
                .count()
    };
    // "so" only where it joins clauses, not the "so" of degree ("so much more massive").
    let causal_at = |words: &[Word], k: usize| {
        let w = &words[k];
        (CAUSAL.contains(&w.lower.as_str()) || CAUSAL.contains(&w.stem.as_str()))
            && (w.lower != "so" || causes::so_joins(words, k))
    };
    let mut cancelled = Vec::new();
    // The terms of a relation are nouns (or words the lexicon does not know: technical terms).
    let term = |w: &Word| super::swaps::is_term(w, lex);
    for (n, &(ia, ja)) in key.iter().enumerate() {
        for &(ib, jb) in &key[n + 1..] {
            // One word twice ("looks green because green is reflected") is no pair of terms.
            if same_word(&a.words[ia], &a.words[ib]) {
                continue;
            }
            if ja == jb
                || ib - ia < 2
                || ib - ia > 2 * RELATION_GAP + 2
                || !term(&a.words[ia])
                || !term(&a.words[ib])
            {
                continue;
            }
            // The relation in the answer: a word between the terms, near both.
            let (lo, hi) = (ja.min(jb), ja.max(jb));
            let relation = (ia + 1..ib).find(|&k| {
                if k - ia > RELATION_GAP + 1 || ib - k > RELATION_GAP + 1 {
                    return false;
                }
                let w = &a.words[k];
                // The same relation word in the source, between the two terms and near them.
                let in_source = |j: usize| {
                    lo < j && j < hi && j - lo <= RELATION_GAP + 2 && hi - j <= RELATION_GAP + 2
                };
                if causal_at(&a.words, k) {
                    // Between the terms in the source, or opening the source sentence before
                    // the first term ("Because A, B").
                    return (lo + 1..hi).any(|j| causal_at(&s.words, j) && in_source(j))
                        || (0..lo).any(|j| causal_at(&s.words, j));
                }
                if order_class(w).is_some() {
                    return (lo + 1..hi)
                        .any(|j| order_class(&s.words[j]).is_some() && in_source(j));
                }
                // An opposite is a relation ("larger than", "slows"), except an adjective put
                // before a term ("endergonic reactions"): that says which one.
                if opposed.contains(&k) {
                    return !lex.is_some_and(|l| {
                        l.is_adjective(&w.lower)
                            && !l.is_verb(&w.lower)
                            && a.words.get(k + 1).is_some_and(|n| n.role == Role::Content)
                    });
                }
                // A relation is a verb (or an adjective of comparison), never a term, and the
                // same word in both ("eat"/"eaten", not "develop"/"derived"). It is the
                // relation of both terms' clause (or of a relative clause on the first term),
                // and not of a clause of its own that opens between the first term and it
                // ("tastes that humans detect": the humans detect).
                // Nor a word joined to the first term by "and" or "or" alone ("for moving
                // and manipulating chromosomes"): the two are a list, not a term and its
                // relation.
                let listed = k > ia + 1
                    && (ia + 1..k).all(|o| matches!(a.words[o].lower.as_str(), "and" | "or"));
                w.role == Role::Content
                    && !listed
                    && lex.is_none_or(|l| reads_as_relation(a, k, l))
                    && a.words[ib].clause == w.clause
                    && (a.words[ia].clause == w.clause
                        || (ia + 1..k).any(|o| RELATIVES.contains(&a.words[o].lower.as_str())))
                    && !(ia + 1..k)
                        .any(|o| opens_clause(&a.words[o]) && (o + 1..k).any(|t| term(&a.words[t])))
                    && key
                        .iter()
                        .any(|(i, j)| *i == k && in_source(*j) && same_word(w, &s.words[*j]))
            });
            let Some(r) = relation else { continue };
            // "Because A, B" in the source (its cause clause opens the sentence) against "B
            // because A" or "A, so B" in the answer: which term is the cause is read from
            // the clauses, not from the words between the terms (the cause clause's own
            // passive, "green is reflected", says nothing of the order).
            if causal_at(&a.words, r) && !(lo + 1..hi).any(|j| causal_at(&s.words, j)) {
                let Some(c0) = (0..lo).find(|&j| causal_at(&s.words, j)) else {
                    continue;
                };
                // A term the source says twice has no one place that puts it in or out of the
                // cause clause ("… make high-pitch sounds, while … make low-pitch sounds").
                if said_twice(s, &s.words[ja]) || said_twice(s, &s.words[jb]) {
                    continue;
                }
                let in_cause = |j: usize| s.words[j].clause == s.words[c0].clause;
                if in_cause(ja) == in_cause(jb) {
                    continue;
                }
                let source_cause = if in_cause(ja) { ia } else { ib };
                // "B because A": the term after the word is the cause; "A, so B": before.
                let answer_cause = if effect_first(&a.words[r].lower) {
                    ib
                } else {
                    ia
                };
                if source_cause != answer_cause {
                    debug_roles(format_args!(
                        "cause: {} / {} / {}",
                        a.words[ia].lower, a.words[r].lower, a.words[ib].lower
                    ));
                    return (true, cancelled);
                }
                continue;
            }
            // An order word of the other kind in the source ("before" for "precedes") reads
            // the terms the other way.
            let order_flip = order_class(&a.words[r]).is_some_and(|ac| {
                (lo + 1..hi).any(|j| order_class(&s.words[j]).is_some_and(|sc| sc != ac))
            });
            let effect_first_words = |words: &[Word]| {
                words
                    .iter()
                    .filter(|w| effect_first(&w.lower) && !REVERSERS.contains(&w.lower.as_str()))
                    .count()
            };
            // A relation noun right after the first term, before a preposition ("acetylcholine
            // release on target organs"), against a passive of the same verb in the other
            // sentence ("acetylcholine is released onto target organs"): the term is what the
            // relation is done to in both. A bare form after a term in the singular is no verb
            // of it. Against an active verb the noun says nothing ("air flow from the lungs"
            // is "air flows from the lungs").
            let nominal = |x: &[Word], t: usize| {
                let bare = |w: &Word| {
                    !(w.lower.ends_with('s') || w.lower.ends_with("ed") || w.lower.ends_with("ing"))
                };
                a.words[r].role == Role::Content
                    && x.get(t + 1).is_some_and(|rel| {
                        same_word(rel, &a.words[r])
                            && bare(rel)
                            && !x[t].lower.ends_with('s')
                            && x.get(t + 2)
                                .is_some_and(|p| PREPOSITIONS.contains(&p.lower.as_str()))
                    })
            };
            let nominal_flips =
                usize::from(nominal(&a.words, ia) && passive(&s.words[lo + 1..hi], &a.words[r]))
                    + usize::from(
                        nominal(&s.words, lo) && passive(&a.words[ia + 1..ib], &a.words[r]),
                    );
            let flips = usize::from(ja > jb)
                + nominal_flips
                + reversers(&a.words[ia + 1..ib], &a.words[r])
                + effect_first_words(&a.words[ia + 1..ib])
                + reversers(&s.words[lo + 1..hi], &a.words[r])
                + effect_first_words(&s.words[lo + 1..hi])
                + usize::from(opposed.contains(&r) || order_flip);
            if flips % 2 == 1 {
                debug_roles(format_args!(
                    "order: {} / {} / {}",
                    a.words[ia].lower, a.words[r].lower, a.words[ib].lower
                ));
                return (true, cancelled);
            }
            // The terms in the other order excuse the opposite ("B is slower than A" for "A is
            // faster than B"), unless a term is a word the answer repeats: then its place in
            // the source is its first one's, which says nothing of the order ("the adaptive
            // immune response … faster than the innate response").
            if ja > jb
                && opposed.contains(&r)
                && !said_twice(a, &a.words[ia])
                && !said_twice(a, &a.words[ib])
            {
                debug_roles(format_args!(
                    "other order, opposite excused: {} / {} / {}",
                    a.words[ia].lower, a.words[r].lower, a.words[ib].lower
                ));
                cancelled.push(r);
            }
        }
    }
    (false, cancelled)
}

/// With `VIDYA_DEBUG_VERIFY` set: which rule read the answer's roles as swapped (on stderr).
pub(super) fn debug_roles(note: std::fmt::Arguments) {
    if super::debugging() {
        eprintln!("  roles ({note})");
    }
}

/// Two clauses' terms exchanged ("activators bind to the promoter, while repressors bind to
/// operators" against the reverse; "gametes have 46, body cells 23" against the reverse):
/// the answer's clauses are paired with distinct source clauses (the pairing that shares the
/// most words), and a word of one answer clause is found only in the source clause paired
/// with another answer clause, which in turn holds a word of that source clause.
pub fn crossed_clauses(a: &Sentence, s: &Sentence, lex: Option<&Lexicon>) -> bool {
    let _ = lex;
    let same = super::align::same_term;
    // Terms: content words, numbers, and a one-letter name before a word ("T cells").
    fn terms_of(x: &Sentence) -> Vec<Vec<&Word>> {
        let is_term = |k: usize| {
            let w = &x.words[k];
            matches!(w.role, Role::Content | Role::Number)
                || (super::swaps::is_letter(w)
                    && x.words.get(k + 1).is_some_and(|n| n.role == Role::Content))
        };
        // A relative clause ("…, which is carried out by T cells") belongs to the clause
        // whose term it describes.
        let mut group = 0;
        let mut out: Vec<Vec<&Word>> = Vec::new();
        for (k, w) in x.words.iter().enumerate() {
            let opens = k > 0 && x.words[k - 1].clause != w.clause;
            if opens && !RELATIVES.contains(&w.lower.as_str()) {
                group += 1;
            }
            if is_term(k) {
                out.resize_with(group + 1, Vec::new);
                out[group].push(w);
            }
        }
        out.retain(|ws| !ws.is_empty());
        out
    }
    let a_clauses = terms_of(a);
    let s_clauses = terms_of(s);
    if a_clauses.len() < 2 || a_clauses.len() > 4 || s_clauses.len() < 2 {
        return false;
    }
    let shared =
        |ac: &[&Word], sc: &[&Word]| ac.iter().filter(|w| sc.iter().any(|x| same(w, x))).count();
    // Every pairing of answer clauses with distinct source clauses; the one sharing most.
    fn pairings(n: usize, m: usize, prefix: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if prefix.len() == n {
            out.push(prefix.clone());
            return;
        }
        for j in 0..m {
            if !prefix.contains(&j) {
                prefix.push(j);
                pairings(n, m, prefix, out);
                prefix.pop();
            }
        }
    }
    let mut all = Vec::new();
    pairings(a_clauses.len(), s_clauses.len(), &mut Vec::new(), &mut all);
    // The pairing sharing most words; of equals, the one keeping the clauses' order.
    let Some(best) = all.into_iter().max_by_key(|p| {
        let total = p
            .iter()
            .enumerate()
            .map(|(i, j)| shared(&a_clauses[i], &s_clauses[*j]))
            .sum::<usize>();
        (total, p.windows(2).all(|w| w[0] < w[1]))
    }) else {
        return false;
    };
    // Where a word stands in its clause: first term (the subject, usually), last term, or a
    // number; a one-letter name stands in the place of the word it names ("B cells" last).
    // Two words exchange places only from the same place.
    let place = |ws: &[&Word], w: &Word| -> Option<u8> {
        let at = ws.iter().position(|x| std::ptr::eq(*x, w))?;
        let end = if super::swaps::is_letter(w) {
            at + 1
        } else {
            at
        };
        if w.role == Role::Number {
            Some(2)
        } else if at == 0 {
            Some(0)
        } else if end + 1 == ws.len() {
            Some(1)
        } else {
            None
        }
    };
    for (i, &si) in best.iter().enumerate() {
        for (k, &sk) in best.iter().enumerate() {
            if i == k {
                continue;
            }
            // A word of answer clause i found only in source clause sk, not in its own si …
            let out_of_place: Vec<u8> = a_clauses[i]
                .iter()
                .filter(|w| {
                    !s_clauses[si].iter().any(|x| same(w, x))
                        && s_clauses[sk].iter().any(|x| same(w, x))
                })
                .filter_map(|w| place(&a_clauses[i], w))
                .collect();
            // … while source clause si has, in the same place, a word that answer clause k
            // holds instead of i.
            let came_in = s_clauses[si].iter().any(|x| {
                !a_clauses[i].iter().any(|w| same(w, x))
                    && a_clauses[k].iter().any(|w| same(w, x))
                    && place(&s_clauses[si], x).is_some_and(|p| out_of_place.contains(&p))
            });
            if came_in {
                debug_roles(format_args!("crossed clauses: answer clause {i} / {k}"));
                return true;
            }
        }
    }
    false
}
