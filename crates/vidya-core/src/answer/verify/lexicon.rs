//! The English lexicon: WordNet 3.1's synonyms, hypernyms, antonyms, derivations and adjective
//! clusters (Miller 1995, "WordNet: a lexical database for English"; Princeton University),
//! from `models/wordnet/lexicon.tsv` (built by `xtask/models/wordnet_lexicon.py`).
//!
//! It tells the answer check what a changed word means: a synonym ("looks" for "appears"), a
//! derivation ("absorption" for "absorbs") or a more general word ("cell division" for
//! "mitosis") keeps the meaning; an antonym ("slows" for "speeds up") or another term of the
//! same kind ("mitosis" for "meiosis": both kinds of cell division) changes it.
//!
//! Inflected forms are reduced to WordNet lemmas with WordNet's own detachment rules (morphy,
//! `morph(7WN)`: "cells" → "cell", "slower" → "slow", "dividing" → "divide").
//!
//! Loaded once per process on the first check (about 0.2 s and 30 MB for 117,000 synsets);
//! [`Lexicon::get`] is `None` when the file is missing, and the check then treats every
//! changed word as new (stricter, so fewer paraphrases are kept).

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::OnceLock;

/// The lexicon's file name in its model folder.
pub const FILE: &str = "lexicon.tsv";
/// The model folder (see [`crate::onnx::model_dirs`]).
pub const DIR: &str = "wordnet";

/// A hypernym at most this many steps above a word still makes two words "of the same kind"
/// (co-hyponyms: "mitosis" and "meiosis" under "cell division").
const SIBLING_STEPS: usize = 2;
/// A shared ancestor this close to WordNet's roots ("entity", "abstraction", "object",
/// "process") is too general to make two words of the same kind.
const MIN_SHARED_DEPTH: usize = 5;
/// A more general word this many steps up still paraphrases ("division" for "mitosis").
const HYPERNYM_STEPS: usize = 3;
/// A verb this many hypernym steps from another is a way of saying it ("raise" →
/// "increase").
const VERB_STEPS: usize = 2;

/// WordNet's relations, indexed.
pub struct Lexicon {
    lemmas: HashMap<String, Vec<u32>>,
    hypers: Vec<Vec<u32>>,
    similar: Vec<Vec<u32>>,
    synset_lemmas: Vec<Vec<String>>,
    /// Each synset's part of speech: `n`, `v`, `a` or `r`.
    pos: Vec<u8>,
    antonyms: HashMap<String, Vec<String>>,
    derived: HashMap<String, Vec<String>>,
    depth: Vec<u16>,
}

impl std::fmt::Debug for Lexicon {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lexicon")
            .field("lemmas", &self.lemmas.len())
            .field("synsets", &self.hypers.len())
            .finish_non_exhaustive()
    }
}

impl Lexicon {
    /// The lexicon of this installation, read on first use from `models/wordnet/lexicon.tsv`
    /// in the first of [`crate::onnx::model_dirs`] that has it; `None` when none has it or it
    /// cannot be read (logged once).
    pub fn get() -> Option<&'static Lexicon> {
        static LEXICON: OnceLock<Option<Lexicon>> = OnceLock::new();
        LEXICON
            .get_or_init(|| {
                let path = crate::onnx::model_dirs(DIR)
                    .into_iter()
                    .map(|d| d.join(FILE))
                    .find(|p| p.is_file())?;
                match Lexicon::load(&path) {
                    Ok(l) => Some(l),
                    Err(e) => {
                        tracing::warn!(path = %path.display(), error = %e, "the answer check's lexicon could not be read; checking without it");
                        None
                    }
                }
            })
            .as_ref()
    }

    /// Reads a lexicon file. Errors: the file cannot be read.
    pub fn load(path: &Path) -> std::io::Result<Lexicon> {
        Ok(Self::parse(&std::fs::read_to_string(path)?))
    }

    /// Parses the lexicon's text (format: `xtask/models/wordnet_lexicon.py`). Lines it does
    /// not understand are skipped.
    pub fn parse(text: &str) -> Lexicon {
        let mut ids: HashMap<&str, u32> = HashMap::new();
        let mut raw_hypers: Vec<Vec<&str>> = Vec::new();
        let mut raw_similar: Vec<(&str, &str)> = Vec::new();
        let mut lex = Lexicon {
            lemmas: HashMap::new(),
            hypers: Vec::new(),
            similar: Vec::new(),
            synset_lemmas: Vec::new(),
            pos: Vec::new(),
            antonyms: HashMap::new(),
            derived: HashMap::new(),
            depth: Vec::new(),
        };
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let mut f = line.split('\t');
            match (f.next(), f.next(), f.next(), f.next()) {
                (Some("s"), Some(id), Some(words), hypers) => {
                    let n = raw_hypers.len() as u32;
                    ids.insert(id, n);
                    raw_hypers.push(hypers.unwrap_or("").split_whitespace().collect());
                    let words: Vec<String> = words.split('|').map(str::to_string).collect();
                    for w in &words {
                        lex.lemmas.entry(w.clone()).or_default().push(n);
                    }
                    lex.synset_lemmas.push(words);
                    lex.pos.push(id.bytes().next().unwrap_or(b'n'));
                }
                (Some("a"), Some(x), Some(y), _) => {
                    lex.antonyms.entry(x.into()).or_default().push(y.into())
                }
                (Some("d"), Some(x), Some(y), _) => {
                    lex.derived.entry(x.into()).or_default().push(y.into())
                }
                (Some("m"), Some(x), Some(y), _) => raw_similar.push((x, y)),
                _ => {}
            }
        }
        lex.hypers = raw_hypers
            .iter()
            .map(|hs| hs.iter().filter_map(|h| ids.get(h).copied()).collect())
            .collect();
        lex.similar = vec![Vec::new(); lex.hypers.len()];
        for (x, y) in raw_similar {
            if let (Some(&a), Some(&b)) = (ids.get(x), ids.get(y)) {
                lex.similar[a as usize].push(b);
                lex.similar[b as usize].push(a);
            }
        }
        lex.depth = lex.depths();
        lex
    }

    /// Each synset's distance from a root of the hypernym hierarchy (shortest path).
    fn depths(&self) -> Vec<u16> {
        let n = self.hypers.len();
        let mut depth = vec![u16::MAX; n];
        fn walk(i: usize, hypers: &[Vec<u32>], depth: &mut [u16], guard: usize) -> u16 {
            if depth[i] != u16::MAX {
                return depth[i];
            }
            if guard > 40 {
                return 0;
            }
            let d = hypers[i]
                .iter()
                .map(|h| walk(*h as usize, hypers, depth, guard + 1).saturating_add(1))
                .min()
                .unwrap_or(0);
            depth[i] = d;
            d
        }
        for i in 0..n {
            walk(i, &self.hypers, &mut depth, 0);
        }
        depth
    }

    /// The lemmas `word` (lower case) may be an inflection of, itself first when it is one:
    /// WordNet's detachment rules for nouns, verbs and adjectives.
    pub fn base_forms(&self, word: &str) -> Vec<String> {
        let mut out = Vec::new();
        if self.lemmas.contains_key(word) {
            out.push(word.to_string());
        }
        let irregular = super::words::lemma_of(word);
        if irregular != word && self.lemmas.contains_key(irregular) {
            out.push(irregular.to_string());
        }
        const RULES: &[(&str, &str)] = &[
            ("s", ""),
            ("ses", "s"),
            ("xes", "x"),
            ("zes", "z"),
            ("ches", "ch"),
            ("shes", "sh"),
            ("men", "man"),
            ("ies", "y"),
            ("es", "e"),
            ("es", ""),
            ("ed", "e"),
            ("ed", ""),
            ("ing", "e"),
            ("ing", ""),
            ("er", ""),
            ("est", ""),
            ("er", "e"),
            ("est", "e"),
            ("ier", "y"),
            ("iest", "y"),
            ("ied", "y"),
            ("ying", "ie"),
            ("i", "us"),
            ("a", "um"),
            ("ae", "a"),
            ("ices", "ex"),
            ("ices", "ix"),
        ];
        for (suffix, replacement) in RULES {
            if let Some(stem) = word.strip_suffix(suffix) {
                if stem.len() < 2 {
                    continue;
                }
                let base = format!("{stem}{replacement}");
                if self.lemmas.contains_key(&base) && !out.contains(&base) {
                    out.push(base);
                }
                // Doubled final consonants: "bigger" → "big", "stopped" → "stop".
                let b = stem.as_bytes();
                if replacement.is_empty() && b.len() >= 3 && b[b.len() - 1] == b[b.len() - 2] {
                    let single = &stem[..stem.len() - 1];
                    if self.lemmas.contains_key(single) && !out.iter().any(|o| o == single) {
                        out.push(single.to_string());
                    }
                }
            }
        }
        out
    }

    /// True when one of `word`'s meanings is a verb.
    pub fn is_verb(&self, word: &str) -> bool {
        self.synsets(word)
            .iter()
            .any(|s| self.pos[*s as usize] == b'v')
    }

    /// True when one of `word`'s meanings is a noun.
    pub fn is_noun(&self, word: &str) -> bool {
        self.synsets(word)
            .iter()
            .any(|s| self.pos[*s as usize] == b'n')
    }

    /// True when one of `word`'s meanings is an adjective (WordNet's `a` and satellite `s`).
    pub fn is_adjective(&self, word: &str) -> bool {
        self.synsets(word)
            .iter()
            .any(|s| matches!(self.pos[*s as usize], b'a' | b's'))
    }

    /// True when `word` has one meaning in WordNet and it is a noun ("microtubule", "DNA"): a
    /// term of a field, not an everyday word a small model picks to reword ("stretch",
    /// "share", "sits" have several meanings each).
    pub fn is_single_sense_noun(&self, word: &str) -> bool {
        let s = self.synsets(word);
        s.len() == 1 && self.pos[s[0] as usize] == b'n'
    }

    /// True when WordNet knows `word` (lower case, any inflection).
    pub fn knows(&self, word: &str) -> bool {
        !self.base_forms(word).is_empty()
    }

    fn synsets(&self, word: &str) -> Vec<u32> {
        let mut out: Vec<u32> = self
            .base_forms(word)
            .iter()
            .flat_map(|b| self.lemmas.get(b).into_iter().flatten().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// True when `a` and `b` share a synset (any part of speech), are derivations of one
    /// another ("absorb"/"absorption", "cell"/"cellular"), are verbs one of which is a way of
    /// doing the other ("raise"/"increase", "trap"/"capture": a verb hypernym at most
    /// [`VERB_STEPS`] up), or adjectives of one cluster ("rapid"/"fast").
    pub fn same_meaning(&self, a: &str, b: &str) -> bool {
        let (sa, sb) = (self.synsets(a), self.synsets(b));
        if sa.iter().any(|x| sb.binary_search(x).is_ok()) {
            return true;
        }
        let of = |ss: &[u32], p: u8| -> Vec<u32> {
            ss.iter()
                .copied()
                .filter(|s| self.pos[*s as usize] == p)
                .collect()
        };
        let (va, vb) = (of(&sa, b'v'), of(&sb, b'v'));
        if !va.is_empty() && !vb.is_empty() {
            let up_a = self.ancestors(&va, VERB_STEPS);
            let up_b = self.ancestors(&vb, VERB_STEPS);
            if vb.iter().any(|s| up_a.contains_key(s)) || va.iter().any(|s| up_b.contains_key(s)) {
                return true;
            }
        }
        // Adjectives of one cluster: one similar to the other, or both to the same head
        // ("tiny" and "microscopic" under "small"); not two names of one kind ("red" and
        // "blue" under "chromatic", "infrared" and "ultraviolet" under "invisible": as nouns
        // they are siblings).
        let (aa, ab) = (of(&sa, b'a'), of(&sb, b'a'));
        if aa.iter().any(|x| {
            let near = &self.similar[*x as usize];
            near.iter().any(|y| ab.contains(y))
                || ab
                    .iter()
                    .any(|z| self.similar[*z as usize].iter().any(|y| near.contains(y)))
        }) && !self.noun_siblings(&sa, &sb, SIBLING_STEPS)
        {
            return true;
        }
        let bb = self.base_forms(b);
        if self.base_forms(a).iter().any(|x| {
            self.derived
                .get(x)
                .is_some_and(|ds| ds.iter().any(|d| bb.contains(d)))
        }) {
            return true;
        }
        // A word derived from a synonym of the other ("solar" from "sun", and "sun" is a
        // name of sunlight), either way.
        let via = |x: &str, ys: &[u32]| {
            self.base_forms(x).iter().any(|f| {
                self.derived.get(f).is_some_and(|ds| {
                    ds.iter()
                        .any(|d| self.synsets(d).iter().any(|s| ys.binary_search(s).is_ok()))
                })
            })
        };
        via(a, &sb) || via(b, &sa)
    }

    /// Ancestors of `synsets` up to `steps` hypernym steps, with their distance.
    fn ancestors(&self, synsets: &[u32], steps: usize) -> HashMap<u32, usize> {
        let mut seen: HashMap<u32, usize> = synsets.iter().map(|s| (*s, 0)).collect();
        let mut frontier: Vec<u32> = synsets.to_vec();
        for d in 1..=steps {
            let mut next = Vec::new();
            for s in frontier {
                for h in &self.hypers[s as usize] {
                    if !seen.contains_key(h) {
                        seen.insert(*h, d);
                        next.push(*h);
                    }
                }
            }
            frontier = next;
        }
        seen
    }

    /// True when `general` is a more general word for `specific`: one of its synsets is a
    /// hypernym of one of `specific`'s, at most a few steps up ("division" for "mitosis",
    /// "organelle" for "chloroplast").
    pub fn generalizes(&self, general: &str, specific: &str) -> bool {
        let g = self.synsets(general);
        if g.is_empty() {
            return false;
        }
        let up = self.ancestors(&self.synsets(specific), HYPERNYM_STEPS);
        g.iter().any(|s| {
            up.get(s).is_some_and(|d| *d > 0)
                && self.depth[*s as usize] as usize >= MIN_SHARED_DEPTH - 1
        })
    }

    /// True when `a` and `b` are different terms of the same kind: they share a hypernym at
    /// most [`SIBLING_STEPS`] above each that is not near WordNet's roots, and do not share a
    /// meaning ("mitosis"/"meiosis", "artery"/"vein", "proton"/"electron").
    pub fn same_kind(&self, a: &str, b: &str) -> bool {
        self.same_kind_within(a, b, SIBLING_STEPS)
    }

    /// [`Lexicon::same_kind`] with the shared hypernym at most `steps` above each: 1 for
    /// siblings only ("Mars"/"Earth" under "terrestrial planet", "mitosis"/"meiosis" under
    /// "cell division").
    pub fn same_kind_within(&self, a: &str, b: &str, steps: usize) -> bool {
        // A word and a more general word for it ("osmosis", "diffusion") are not two kinds.
        if self.same_meaning(a, b) || self.generalizes(a, b) || self.generalizes(b, a) {
            return false;
        }
        self.noun_siblings(&self.synsets(a), &self.synsets(b), steps)
    }

    /// True when the noun synsets among `sa` and `sb` (two words' synsets, sorted) share a
    /// hypernym at most `steps` above each that is neither of them nor near WordNet's roots,
    /// and the two share no noun synset. Nouns only: verbs under one hypernym are mostly ways
    /// of saying the same thing.
    fn noun_siblings(&self, sa: &[u32], sb: &[u32], steps: usize) -> bool {
        let nouns = |ss: &[u32]| -> Vec<u32> {
            ss.iter()
                .copied()
                .filter(|s| self.pos[*s as usize] == b'n')
                .collect()
        };
        let (sa, sb) = (nouns(sa), nouns(sb));
        if sa.is_empty() || sb.is_empty() || sa.iter().any(|x| sb.contains(x)) {
            return false;
        }
        let ua = self.ancestors(&sa, steps);
        let ub = self.ancestors(&sb, steps);
        ua.keys().any(|s| {
            ub.contains_key(s)
                && !(sa.contains(s) || sb.contains(s))
                && self.depth[*s as usize] as usize >= MIN_SHARED_DEPTH
        })
    }

    /// True when a synonym of `a` (a lemma of one of its synsets) is an antonym of `b`
    /// ("outside" → "exterior" against "interior"). One side only: both sides widened would
    /// find antonyms between unrelated words.
    pub fn antonym_of_synonym(&self, a: &str, b: &str) -> bool {
        let bb = self.base_forms(b);
        self.synsets(a).iter().any(|s| {
            self.synset_lemmas[*s as usize].iter().any(|x| {
                self.antonyms
                    .get(x)
                    .is_some_and(|ys| ys.iter().any(|y| bb.contains(y)))
            })
        }) || {
            let ba = self.base_forms(a);
            self.synsets(b).iter().any(|s| {
                self.synset_lemmas[*s as usize].iter().any(|x| {
                    self.antonyms
                        .get(x)
                        .is_some_and(|ys| ys.iter().any(|y| ba.contains(y)))
                })
            })
        }
    }

    /// True when `a` and `b` are antonyms in WordNet: directly ("increase"/"decrease"), or
    /// through the adjective clusters they belong to ("rapid", similar to "fast", against
    /// "slow").
    pub fn antonyms(&self, a: &str, b: &str) -> bool {
        // The word's own lemmas, and for an adjective the heads of its clusters (a satellite
        // such as "rapid" has no antonym of its own; its head "fast" has).
        let cluster = |w: &str| -> HashSet<String> {
            let mut out: HashSet<String> = self.base_forms(w).into_iter().collect();
            for s in self.synsets(w) {
                if self.pos[s as usize] != b'a' {
                    continue;
                }
                for h in &self.similar[s as usize] {
                    out.extend(self.synset_lemmas[*h as usize].iter().cloned());
                }
            }
            out
        };
        let (ca, cb) = (cluster(a), cluster(b));
        ca.iter().any(|x| {
            self.antonyms
                .get(x)
                .is_some_and(|ys| ys.iter().any(|y| cb.contains(y)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> Lexicon {
        Lexicon::parse(
            "# test\n\
             s\tn1\tentity\t\n\
             s\tn2\tabstraction\tn1\n\
             s\tn3\tprocess\tn2\n\
             s\tn4\tnatural process\tn3\n\
             s\tn5\tbiological process\tn4\n\
             s\tn6\tcell division|cellular division\tn5\n\
             s\tn7\tmitosis\tn6\n\
             s\tn8\tmeiosis|reduction division\tn6\n\
             s\tv1\tappear|seem|look\t\n\
             s\ta1\tfast\t\n\
             s\ta2\trapid|speedy\t\n\
             s\ta3\tslow\t\n\
             m\ta2\ta1\n\
             a\tfast\tslow\n\
             a\tslow\tfast\n\
             s\tv2\tabsorb\t\n\
             s\tn9\tabsorption\tn3\n\
             d\tabsorb\tabsorption\n\
             d\tabsorption\tabsorb\n",
        )
    }

    #[test]
    fn synonyms_derivations_and_inflections_keep_the_meaning() {
        let l = tiny();
        assert!(l.same_meaning("looks", "appears"));
        assert!(l.same_meaning("absorbs", "absorption"));
        assert!(l.same_meaning("meiosis", "reduction division"));
        assert!(!l.same_meaning("mitosis", "meiosis"));
        assert_eq!(l.base_forms("slower"), vec!["slow"]);
    }

    #[test]
    fn siblings_antonyms_and_generalisations_are_told_apart() {
        let l = tiny();
        assert!(l.same_kind("mitosis", "meiosis"));
        assert!(!l.same_kind("mitosis", "cell division"));
        assert!(l.antonyms("faster", "slower"));
        assert!(l.antonyms("rapid", "slow"), "through the cluster of fast");
        assert!(!l.antonyms("fast", "rapid"));
        assert!(l.generalizes("cell division", "mitosis"));
        assert!(!l.generalizes("mitosis", "cell division"));
    }
}
