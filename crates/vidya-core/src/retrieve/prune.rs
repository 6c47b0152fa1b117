//! Stage 3, the sentence pruner: keeps only the sentences of the ranked chunks that bear on
//! the question, then the token budget ([`super::budget::fit`]) cuts them to size.
//!
//! Each chunk is split into sentences ([`chunk_sentences`]); each sentence is scored by the
//! cosine of its e5 vector with the question's (vectors stored at ingest,
//! [`crate::store::sentences`]; chunks stored without them are embedded on the spot) and kept
//! when the cosine is at least the threshold. The best chunk always keeps its best sentence, so
//! a question that passed the gate is never left without a quote. Kept sentences stay in
//! reading order and each keeps the page it is on, so a citation names the page of the
//! sentences that match, not the chunk's first page. Sentences a student should not be shown
//! as an answer ([`is_quotable`]: questions, figure references, headings run into the text) are
//! never kept. Without the embedder, a sentence is kept when it contains a question term (BM25
//! idf weight > 0).

use crate::embed::{cosine, Embedder};
use crate::error::Result;
use crate::ingest::blocks::{is_option_item, BlockKind};
use crate::ingest::chunk::page_at;
use crate::store::ChunkRecord;
use crate::text::split_sentences;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Default cosine threshold for multilingual-e5-small. e5's cosines are compressed into about
/// 0.7–0.9 (its contrastive training temperature is 0.01, per the model card), so the 0.20 of
/// models with spread-out scores keeps everything; this value was tuned with `vidya eval`
/// (answer-sentence retention against context tokens on Biology 2e).
pub const DEFAULT_THRESHOLD: f32 = 0.85;

/// One sentence of a chunk: its byte offset in the chunk text and its text (line breaks made
/// spaces, trimmed).
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkSentence {
    /// Byte offset of the sentence in the chunk text.
    pub start: usize,
    /// The sentence.
    pub text: String,
}

/// The sentences of a chunk's text, in order, empty ones left out. The stored sentence vectors
/// follow this order (one vector per item).
pub fn chunk_sentences(text: &str) -> Vec<ChunkSentence> {
    split_sentences(text)
        .into_iter()
        .map(|s| ChunkSentence {
            start: s.start,
            text: s.slice(text).replace('\n', " ").trim().to_string(),
        })
        .filter(|s| !s.text.is_empty())
        .collect()
}

/// True when `sentence` can be shown to a student as (part of) an answer: not a question
/// or an exercise's prompt ([`is_exercise_prompt`]), not a pointer to a figure or table
/// ("Figure 8.7 illustrates …", "(Figure 8.5):"), not a lead-in that ends with a colon, and not
/// a fragment of fewer than four words (a heading run into the text).
pub fn is_quotable(sentence: &str) -> bool {
    let s = sentence.trim();
    if is_exercise_prompt(s) || s.ends_with(':') {
        return false;
    }
    let starts_with_figure = [
        "Figure ",
        "Fig. ",
        "Table ",
        "(Figure ",
        "[Image",
        "See Figure ",
    ]
    .iter()
    .any(|p| s.starts_with(p));
    if starts_with_figure {
        return false;
    }
    // An image's description for screen readers ("[Image omitted: …]"), or its tail when the
    // description ran over a page or sentence break (ends with "]" it never opened), and a
    // figure's credit line are not the book's statements.
    if s.contains("[Image omitted")
        || (s.ends_with(']') && !s.contains('['))
        || s.contains("(credit:")
    {
        return false;
    }
    s.split_whitespace().count() >= 4
}

/// True when `sentence` leans on the one before it: it opens with a pronoun or a
/// demonstrative ("It", "They", "This", "These", "Such"), names "this …"/"these …" early on
/// ("Infants with this genotype emit a high-pitched cry"), or carries the sentence before on
/// (it opens with a small letter or with "and", "or", "but": "or 3.70 × 10^10 decays per
/// second", the end of "1 Ci = 3.70 × 10^10 Bq, …"). Quoted after a "…" that dropped what it
/// leans on, it would be read as about whatever the quote said last.
pub fn refers_back(sentence: &str) -> bool {
    // A small letter opens it, in a word with no capital ("or", "which"; not "pH", "mRNA").
    let first_word = sentence.split_whitespace().next().unwrap_or("");
    if first_word.chars().next().is_some_and(char::is_lowercase)
        && !first_word.chars().any(char::is_uppercase)
    {
        return true;
    }
    let words: Vec<String> = sentence
        .split_whitespace()
        .take(8)
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    let opens = words.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "it" | "its"
                | "and"
                | "or"
                | "but"
                | "nor"
                | "they"
                | "their"
                | "them"
                | "this"
                | "these"
                | "those"
                | "such"
                | "he"
                | "she"
                | "his"
                | "her"
        )
    });
    opens || words.iter().skip(1).any(|w| w == "this" || w == "these")
}

/// `kept` with the antecedent of every kept sentence that [`refers_back`] across a dropped
/// one: the sentence before it is kept too when it may be quoted (and, once, the one before
/// that when it refers back as well); otherwise the sentence is dropped. A chunk's first
/// sentence is left as it is (its antecedent, if any, is in the chunk before).
fn with_antecedents(all: &[KeptSentence], mut kept: Vec<bool>, quotable: &[bool]) -> Vec<bool> {
    for i in (1..all.len()).rev() {
        if !kept[i] || kept[i - 1] || !refers_back(&all[i].text) {
            continue;
        }
        if !quotable[i - 1] {
            kept[i] = false;
            continue;
        }
        kept[i - 1] = true;
        if i >= 2 && !kept[i - 2] && quotable[i - 2] && refers_back(&all[i - 1].text) {
            kept[i - 2] = true;
        }
    }
    kept
}

/// True for a list marker alone ("1.", "b.", "(c)", "12)"): the sentence splitter often
/// cuts an item's label off from its text.
fn is_marker(text: &str) -> bool {
    let t = text.trim();
    let t = t.strip_prefix('(').unwrap_or(t);
    let Some(label) = t.strip_suffix('.').or_else(|| t.strip_suffix(')')) else {
        return false;
    };
    (label.len() == 1 && label.chars().all(|c| c.is_ascii_alphanumeric()))
        || (1..=2).contains(&label.len()) && label.chars().all(|c| c.is_ascii_digit())
}

/// True when `sentence` asks the reader something: a question ("What impact will this have on
/// photosynthesis?"), an instruction to explain ("Explain why Earth does actually appear to be
/// the center of the solar system.", "Explain."), or a true-or-false check ("True or
/// false—In a circuit diagram, …"). OpenStax *Physics* puts such prompts, with numbered
/// answer options some of which are false ("1. Earth appears to be the center of the solar
/// system because Earth is at the center of the universe"), inside its feature boxes, where
/// the book's structure does not mark them as exercises.
pub fn is_exercise_prompt(sentence: &str) -> bool {
    let s = sentence.trim();
    let first = s.split(|c: char| !c.is_alphanumeric()).next().unwrap_or("");
    s.ends_with('?') || first == "Explain" || s.to_lowercase().contains("true or false")
}

/// True for a list item or a label alone whose label is not a list's first ("2.", "b)",
/// "(C)"; "i" is left out: it may be a first roman numeral).
fn continues_a_list(text: &str) -> bool {
    let t = text.trim_start();
    let label = t.strip_prefix('(').unwrap_or(t).chars().next();
    (is_option_item(t) || is_marker(t))
        && label.is_some_and(|c| c.is_ascii_alphanumeric() && !"1aAiI".contains(c))
}

/// True for a sentence that ends with the next item's label ("… a thin wall. b.").
fn ends_with_marker(text: &str) -> bool {
    text.trim_end()
        .rsplit_once(char::is_whitespace)
        .is_some_and(|(_, last)| is_marker(last))
}

/// For each of a chunk's `sentences`, whether it may be quoted in its place: the answer
/// options of an exercise (list items after a question or another prompt,
/// [`is_exercise_prompt`]; "a. … b. …") are the exercise's, not
/// the book's statements, even when one of them reads like a fact. An item is a sentence that
/// starts with a label, or follows a label the splitter cut off (a label alone, or one at the
/// end of the sentence before), and a chunk's first sentence when the next one carries on a
/// list ("2. …", "b. …": its own label stayed in the chunk before). In an exercise chunk
/// (`kind` [`BlockKind::Exercise`]) no item is quoted, question or not.
pub fn quotable_in_place(sentences: &[ChunkSentence], kind: BlockKind) -> Vec<bool> {
    let marker: Vec<bool> = sentences.iter().map(|s| is_marker(&s.text)).collect();
    let item: Vec<bool> = (0..sentences.len())
        .map(|i| {
            !marker[i]
                && (is_option_item(&sentences[i].text)
                    || (i > 0 && (marker[i - 1] || ends_with_marker(&sentences[i - 1].text)))
                    || (i == 0 && sentences.get(1).is_some_and(|n| continues_a_list(&n.text))))
        })
        .collect();
    // A chunk that opens with a run of two to five list items carries on the options of a
    // question the previous chunk ended with ("1. … 2. … 3. … 4. …" after "Which of the
    // following statements is false?").
    let lead = (0..sentences.len())
        .take_while(|&i| item[i] || marker[i])
        .filter(|&i| item[i])
        .count();
    let exercise = kind == BlockKind::Exercise;
    let mut after_question = (2..=5).contains(&lead);
    let description = in_image_description(sentences);
    // An option the page broke over two lines ("2. Earth appears … in the reference frame of" /
    // "Earth, the sun, moon, and planets all appear …"): the piece after an unquoted option
    // that breaks off ([`breaks_off`]) is the option's too, and the options go on after it.
    let mut option_open = false;
    (0..sentences.len())
        .map(|i| {
            let listed = item[i] || marker[i] || option_open;
            let keep = !(listed && (after_question || exercise)) && !description[i];
            if is_exercise_prompt(&sentences[i].text) {
                after_question = true;
            } else if !listed {
                after_question = false;
            }
            option_open = listed && !keep && !marker[i] && breaks_off(&sentences[i].text);
            keep
        })
        .collect()
}

/// True when `text` stops where no sentence can: after a comma, a hyphen, or a word that
/// needs one after it ("of", "the", "and", …).
fn breaks_off(text: &str) -> bool {
    const NEEDS_MORE: &[&str] = &[
        "of", "the", "a", "an", "to", "in", "and", "or", "for", "with", "by", "from", "that", "as",
        "at", "on", "is", "are", "its", "their",
    ];
    let t = text.trim_end();
    t.ends_with([',', '-', '–'])
        || t.rsplit(char::is_whitespace)
            .next()
            .is_some_and(|w| NEEDS_MORE.contains(&w.to_lowercase().as_str()))
}

/// For each of a chunk's `sentences`, whether it is inside an image's description for screen
/// readers ("[Image omitted: … several sentences …]"): the sentences after an opening
/// "[Image" up to the one that closes it, and, in a chunk that begins inside a description
/// (its start is in the chunk before), every sentence up to the first "]" that no "[" opened.
fn in_image_description(sentences: &[ChunkSentence]) -> Vec<bool> {
    let mut out = vec![false; sentences.len()];
    if let Some(end) = sentences
        .iter()
        .position(|s| s.text.contains(']'))
        .filter(|&j| !sentences[..=j].iter().any(|s| s.text.contains('[')))
    {
        out[..=end].fill(true);
    }
    let mut open = false;
    for (i, s) in sentences.iter().enumerate() {
        if open {
            out[i] = true;
            open = !s.text.contains(']');
        } else if let Some(at) = s.text.find("[Image") {
            out[i] = true;
            open = !s.text[at..].contains(']');
        }
    }
    out
}

/// A sentence kept by the pruner.
#[derive(Debug, Clone, Serialize)]
pub struct KeptSentence {
    /// Text (line breaks made spaces).
    pub text: String,
    /// Page ordinal in its book.
    pub page: usize,
    /// Position among its chunk's sentences.
    pub order: usize,
    /// The chunk it is in (chunk ids follow reading order within a book).
    pub chunk_id: i64,
    /// Cosine with the question (or summed idf of matched terms without the embedder).
    pub score: f32,
    /// True when it defines the term a definition question asks about
    /// ([`super::definition`]); such a sentence is kept whatever its score.
    pub defines: bool,
}

/// A chunk reduced to its kept sentences.
#[derive(Debug, Clone)]
pub struct PrunedPassage {
    /// The chunk.
    pub chunk: ChunkRecord,
    /// Kept sentences in reading order.
    pub sentences: Vec<KeptSentence>,
}

impl PrunedPassage {
    /// The kept sentences joined (an ellipsis marks a gap).
    pub fn text(&self) -> String {
        join(&self.sentences.iter().collect::<Vec<_>>())
    }

    /// The best sentence score.
    pub fn best(&self) -> f32 {
        self.sentences
            .iter()
            .map(|s| s.score)
            .fold(f32::MIN, f32::max)
    }
}

/// Joins sentences in order, with " … " where sentences were left out between them.
pub fn join(sentences: &[&KeptSentence]) -> String {
    let mut out = String::new();
    for (i, s) in sentences.iter().enumerate() {
        if i > 0 {
            let prev = sentences[i - 1];
            out.push_str(
                if s.chunk_id == prev.chunk_id && s.order == prev.order + 1 {
                    " "
                } else {
                    " … "
                },
            );
        }
        out.push_str(&s.text);
    }
    out
}

/// How sentences are scored.
pub enum Scorer<'a> {
    /// Cosine with the question's e5 vector.
    Dense {
        /// Embeds the sentences of chunks that have no stored sentence vectors.
        embedder: &'a Embedder,
        /// Stored sentence vectors by chunk id ([`chunk_sentences`] order).
        stored: &'a HashMap<i64, Vec<Vec<f32>>>,
        /// The question's unit vector.
        query: &'a [f32],
        /// Keep at or above this cosine.
        threshold: f32,
    },
    /// Summed idf of question terms present; keep when > 0.
    Lexical {
        /// Tokenizer for sentence terms.
        tokenizer: &'a crate::text::Tokenizer,
        /// Question terms.
        terms: &'a [String],
        /// idf of a term.
        idf: &'a dyn Fn(&str) -> f32,
    },
    /// Keep every sentence (pruning switched off).
    KeepAll,
}

/// Scores every sentence of `chunks` with `scorer`: one score per [`chunk_sentences`] item.
///
/// Errors: the embedder failed.
pub fn score_sentences(chunks: &[ChunkRecord], scorer: &Scorer<'_>) -> Result<Vec<Vec<f32>>> {
    let sentences: Vec<Vec<ChunkSentence>> =
        chunks.iter().map(|c| chunk_sentences(&c.text)).collect();
    match scorer {
        Scorer::Dense {
            embedder,
            stored,
            query,
            ..
        } => {
            let mut scores: Vec<Option<Vec<f32>>> = chunks
                .iter()
                .zip(&sentences)
                .map(|(c, s)| {
                    stored
                        .get(&c.id)
                        .filter(|v| v.len() == s.len())
                        .map(|v| v.iter().map(|v| cosine(query, v)).collect())
                })
                .collect();
            // Chunks stored without sentence vectors: embedded here as at ingest.
            let mut chunker = crate::ingest::reindex::ChunkEmbedder::new(embedder);
            for ((sc, s), c) in scores.iter_mut().zip(&sentences).zip(chunks) {
                if sc.is_none() {
                    let (_, vectors) = chunker.embed(&c.context, &c.text, s)?;
                    *sc = Some(vectors.iter().map(|v| cosine(query, v)).collect());
                }
            }
            Ok(scores.into_iter().map(Option::unwrap_or_default).collect())
        }
        Scorer::Lexical {
            tokenizer,
            terms,
            idf,
        } => {
            let q: HashSet<&str> = terms.iter().map(String::as_str).collect();
            Ok(sentences
                .iter()
                .map(|ss| {
                    ss.iter()
                        .map(|s| {
                            let t: HashSet<String> = tokenizer.terms(&s.text).into_iter().collect();
                            t.iter()
                                .filter(|t| q.contains(t.as_str()))
                                .map(|t| idf(t))
                                .sum()
                        })
                        .collect()
                })
                .collect())
        }
        Scorer::KeepAll => Ok(sentences.iter().map(|s| vec![0.0; s.len()]).collect()),
    }
}

/// Prunes `chunks` (best first) with `scorer`. A chunk left with no sentence is dropped; the
/// first chunk keeps at least its best quotable sentence.
///
/// Errors: the embedder failed.
pub fn prune(chunks: Vec<ChunkRecord>, scorer: &Scorer<'_>) -> Result<Vec<PrunedPassage>> {
    prune_defining(chunks, scorer, &|_, _| false)
}

/// [`prune`], also keeping every quotable sentence for which `defines(chunk, sentence)` is
/// true (the definition of the term a definition question asks about, [`super::definition`]),
/// marked [`KeptSentence::defines`].
///
/// Errors: as [`prune`].
pub fn prune_defining(
    chunks: Vec<ChunkRecord>,
    scorer: &Scorer<'_>,
    defines: &dyn Fn(&ChunkRecord, &str) -> bool,
) -> Result<Vec<PrunedPassage>> {
    let scores = score_sentences(&chunks, scorer)?;
    let threshold = match scorer {
        Scorer::Dense { threshold, .. } => Some(*threshold),
        Scorer::Lexical { .. } => Some(f32::MIN_POSITIVE),
        Scorer::KeepAll => None,
    };
    Ok(chunks
        .into_iter()
        .zip(scores)
        .enumerate()
        .filter_map(|(rank, (chunk, scores))| {
            let sentences = chunk_sentences(&chunk.text);
            let in_place = quotable_in_place(&sentences, chunk.kind);
            let all: Vec<KeptSentence> = sentences
                .into_iter()
                .zip(scores)
                .enumerate()
                .map(|(order, (s, score))| KeptSentence {
                    page: page_at(&chunk.page_starts, s.start),
                    defines: is_quotable(&s.text) && defines(&chunk, &s.text),
                    text: s.text,
                    order,
                    chunk_id: chunk.id,
                    score,
                })
                .collect();
            let quotable = |s: &KeptSentence| is_quotable(&s.text) && in_place[s.order];
            let Some(threshold) = threshold else {
                return (!all.is_empty()).then_some(PrunedPassage {
                    chunk,
                    sentences: all,
                });
            };
            let best = all
                .iter()
                .filter(|s| quotable(s))
                .map(|s| s.order)
                .max_by(|a, b| all[*a].score.total_cmp(&all[*b].score));
            let kept: Vec<bool> = all
                .iter()
                .map(|s| {
                    (s.defines && in_place[s.order])
                        || (quotable(s)
                            && (s.score >= threshold || (rank == 0 && Some(s.order) == best)))
                })
                .collect();
            let quotable_at: Vec<bool> = all.iter().map(quotable).collect();
            let kept = with_antecedents(&all, kept, &quotable_at);
            let sentences: Vec<KeptSentence> =
                all.iter().filter(|s| kept[s.order]).cloned().collect();
            (!sentences.is_empty()).then_some(PrunedPassage { chunk, sentences })
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(text: &str, second_page_at: usize) -> ChunkRecord {
        ChunkRecord {
            id: 1,
            book_id: 1,
            book_title: "B".into(),
            chapter_title: "C".into(),
            text: text.into(),
            page_starts: vec![(0, 4), (second_page_at, 5)],
            first_page: 4,
            last_page: 5,
            kind: crate::ingest::blocks::BlockKind::Body,
            context: String::new(),
        }
    }

    /// [`prune`] of one chunk with the lexical scorer (every question term weighs 1).
    fn prune_lexically(c: ChunkRecord, question: &str) -> Vec<PrunedPassage> {
        let tok = crate::text::Tokenizer::new();
        let terms = tok.terms(question);
        let idf = |_: &str| 1.0;
        prune(
            vec![c],
            &Scorer::Lexical {
                tokenizer: &tok,
                terms: &terms,
                idf: &idf,
            },
        )
        .unwrap()
    }

    #[test]
    fn lexical_pruning_keeps_matching_sentences_with_their_pages() {
        let text = "Cells need a lot of energy. Mitochondria make ATP by cellular respiration. The sky is blue today. Respiration uses oxygen from the air.";
        let c = chunk(text, text.find("The sky").unwrap());
        let out = prune_lexically(c, "What does respiration make?");
        let kept: Vec<&str> = out[0].sentences.iter().map(|s| s.text.as_str()).collect();
        assert_eq!(
            kept,
            vec![
                "Mitochondria make ATP by cellular respiration.",
                "Respiration uses oxygen from the air."
            ]
        );
        assert_eq!(out[0].sentences[0].page, 4);
        assert_eq!(
            out[0].sentences[1].page, 5,
            "the page of the sentence, not of the chunk"
        );
        assert_eq!(
            out[0].text(),
            "Mitochondria make ATP by cellular respiration. … Respiration uses oxygen from the air."
        );
    }

    /// Biology 2e ch. 13: quoted as "…Turner syndrome, characterized as an X0 genotype… …
    /// Infants with this genotype emit a characteristic high-pitched cry", a grader read the
    /// cry as Turner syndrome's (the book says it of cri-du-chat).
    #[test]
    fn a_sentence_that_points_back_is_quoted_with_what_it_points_at() {
        let text = "Turner syndrome is characterized as an X0 genotype. It causes sterility. Cri-du-chat is caused by the loss of most of the short arm of chromosome 5. Infants with this genotype emit a characteristic high-pitched cry on which the disorder's name is based.";
        let out = prune_lexically(chunk(text, text.len()), "Turner syndrome X0 genotype cry");
        let quote = out[0].text();
        assert!(
            quote.contains("Cri-du-chat is caused") && !quote.contains("genotype. … Infants"),
            "{quote}"
        );
        assert!(refers_back("It causes sterility."));
        assert!(refers_back("Infants with this genotype emit a cry."));
        // Physics p. 395: "1 Bq = 1 decay/second. … or 3.70 × 10^10 decays per second."
        assert!(refers_back("or 3.70 × 1010 decays per second."));
        assert!(refers_back("And so the cycle repeats."));
        assert!(!refers_back("mRNA is read by the ribosome."));
        assert!(!refers_back("Osmosis is the diffusion of water."));
    }

    #[test]
    fn the_options_of_a_question_the_chunk_before_ended_with_are_not_quoted() {
        let text = "1. The parasympathetic pathway rests the body. 2. Most preganglionic neurons start in the spinal cord. 3. Slowing of the heartbeat is a parasympathetic response. 4. Parasympathetic neurons release norepinephrine on the target organ. The autonomic nervous system relays between the CNS and the organs.";
        let sentences = chunk_sentences(text);
        let mask = quotable_in_place(&sentences, BlockKind::Body);
        let kept: Vec<&str> = sentences
            .iter()
            .zip(&mask)
            .filter(|(_, k)| **k)
            .map(|(s, _)| s.text.as_str())
            .collect();
        assert_eq!(
            kept,
            vec!["The autonomic nervous system relays between the CNS and the organs."]
        );
    }

    /// The sentences of `text` that [`quotable_in_place`] lets be quoted in a chunk of `kind`.
    fn in_place(text: &str, kind: BlockKind) -> Vec<String> {
        let sentences = chunk_sentences(text);
        let mask = quotable_in_place(&sentences, kind);
        sentences
            .into_iter()
            .zip(mask)
            .filter(|(_, keep)| *keep)
            .map(|(s, _)| s.text)
            .collect()
    }

    /// The sentences of running text `text` that may be quoted: in their place and alone.
    fn quoted(text: &str) -> Vec<String> {
        let mut kept = in_place(text, BlockKind::Body);
        kept.retain(|s| is_quotable(s));
        kept
    }

    #[test]
    fn options_whose_first_label_stayed_in_the_chunk_before_are_not_quoted() {
        // Physics ch. 15: the chunk begins with option 3's text (its "3." is in the chunk
        // before), then option 4, then running text.
        let text = "When the sunglasses are rotated, the light is blocked at two positions due to the polarization of light. 4. When the sunglasses are rotated, the light is blocked at two positions due to the bending of light waves. We can use the speed of light to carry out several simple calculations.";
        assert_eq!(
            in_place(text, BlockKind::Body),
            vec!["We can use the speed of light to carry out several simple calculations."]
        );
        // In an exercise chunk no option is quoted, whether or not its question is in it.
        let text = "Some light passes. 1. They block horizontally polarized light. 2. They are transparent to vertically polarized light.";
        assert_eq!(
            in_place(text, BlockKind::Exercise),
            vec!["Some light passes."]
        );
        // A first item is not taken for a cut-off one.
        assert!(!continues_a_list("1. Light is absorbed."));
        assert!(continues_a_list("b) Light is reflected."));
    }

    #[test]
    fn no_sentence_of_an_image_description_is_quoted_even_mid_chunk() {
        // Biology 2e ch. 22: an aside chunk that begins inside the nitrogen-cycle figure's
        // description (its start is in the chunk before), and one that holds a whole one.
        let kept = quoted;
        assert_eq!(
            kept("Nitrification is the process by which nitrifying bacteria produce nitrites, shown as upper N upper O 2 negative. Nitrates are assimilated by plants, then animals, then decomposers. Denitrifying bacteria convert nitrates to nitrogen gas, completing the cycle.] Watch a recent news report on antibiotic-resistant bacteria in livestock."),
            vec!["Watch a recent news report on antibiotic-resistant bacteria in livestock."]
        );
        assert_eq!(
            kept("Biofilms resist antibiotics and detergents. [Image omitted: This illustration shows the role of bacteria in the nitrogen cycle. Nitrogen-fixing bacteria in root nodules of legumes convert nitrogen gas into organic nitrogen. Decomposers release ammonium.] Nitrogen-fixing bacteria live in the soil."),
            vec!["Biofilms resist antibiotics and detergents.", "Nitrogen-fixing bacteria live in the soil."]
        );
        // A bracket the text itself opened and closed is not a description.
        assert_eq!(
            kept("The concentration [H+] of the solution rises as acid is added."),
            vec!["The concentration [H+] of the solution rises as acid is added."]
        );
    }

    #[test]
    fn exercise_options_figure_descriptions_and_credits_are_never_quoted() {
        let text = "Which of the following statements is true? a. Gram-positive bacteria have a thin wall. b. Gram-negative bacteria have a thick wall. Gram-negative bacteria have a thin cell wall. 1. Light is absorbed by chlorophyll in the first step.";
        assert_eq!(
            quoted(text),
            vec![
                "Gram-negative bacteria have a thin cell wall.",
                "Light is absorbed by chlorophyll in the first step."
            ],
            "options after the question go, a numbered step of the text stays"
        );
        assert!(!is_quotable(
            "Then the Calvin cycle convert these molecules back into A T P and N A D P H.]"
        ));
        assert!(!is_quotable(
            "[Image omitted: A diagram shows the light-dependent reactions.]"
        ));
        assert!(!is_quotable(
            "In Gram-positive bacteria, lipoteichoic acid anchors the wall. (credit: modification of work by Franciscosp2)"
        ));
    }

    #[test]
    fn options_after_an_explain_or_true_or_false_prompt_are_not_quoted() {
        // Physics ch. 7 (a feature box's check) and ch. 18: the options are numbered, the
        // prompt ends with a full stop or carries "True or false"; the numbered law after a
        // statement stays.
        let text = "Copernicus first had the idea that the planets circle the sun.\nExplain why Earth does actually appear to be the center of the solar system.\n1. Earth appears to be the center of the solar system because Earth is at the center of the universe.\n2. Earth appears to be the center of the solar system because, in the reference frame of\nEarth, the planets appear to move across the sky.\n3. Earth appears to be at the center of the solar system because all the heavenly bodies revolve around it.\nTrue or false—In a circuit diagram, we can assume that the voltage is the same at every point in a given wire.\n1. false\n2. true\nNewton’s first law of motion states the following.\n1. A body at rest tends to remain at rest.";
        assert_eq!(
            quoted(text),
            vec![
                "Copernicus first had the idea that the planets circle the sun.",
                "Newton’s first law of motion states the following.",
                "A body at rest tends to remain at rest."
            ]
        );
    }

    #[test]
    fn questions_figure_pointers_and_fragments_are_never_quoted() {
        assert!(!is_quotable(
            "What impact will this have on photosynthesis?"
        ));
        assert!(!is_quotable(
            "Figure 8.7 illustrates the components inside the chloroplast."
        ));
        assert!(!is_quotable(
            "The following is the chemical equation for photosynthesis (Figure 8.5):"
        ));
        assert!(!is_quotable("Absorption of Light"));
        assert!(is_quotable(
            "Chlorophyll a absorbs wavelengths from either end of the visible spectrum."
        ));
        // A lead question that matches the student's words well is still not quoted; the
        // best quotable sentence of the top chunk is.
        let text = "How can light energy be used to make food? Light energy is converted into chemical energy by photoautotrophs.";
        let tok = crate::text::Tokenizer::new();
        let terms = tok.terms("how is light energy used to make food");
        let idf = |_: &str| 1.0;
        let out = prune(
            vec![chunk(text, text.len())],
            &Scorer::Lexical {
                tokenizer: &tok,
                terms: &terms,
                idf: &idf,
            },
        )
        .unwrap();
        assert_eq!(out[0].sentences.len(), 1);
        assert!(out[0].sentences[0]
            .text
            .starts_with("Light energy is converted"));
    }

    #[test]
    fn the_best_chunk_keeps_its_best_sentence_and_others_need_the_threshold() {
        let tok = crate::text::Tokenizer::new();
        let terms = tok.terms("zebra stripes");
        let idf = |_: &str| 1.0;
        let a = chunk(
            "Nothing here matches the words at all. Another plain sentence is here.",
            0,
        );
        let b = ChunkRecord { id: 2, ..a.clone() };
        let out = prune(
            vec![a, b],
            &Scorer::Lexical {
                tokenizer: &tok,
                terms: &terms,
                idf: &idf,
            },
        )
        .unwrap();
        assert_eq!(out.len(), 1, "only the first chunk keeps a sentence");
        assert_eq!(out[0].sentences.len(), 1);
    }
}
