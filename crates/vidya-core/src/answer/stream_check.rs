//! What streams is what was checked: the model's text is held back sentence by sentence, each
//! finished sentence is checked against the sources ([`Grounder::check`]: support and meaning)
//! and only a sentence that passes reaches the student, with its citation. The answer the
//! student keeps is exactly what was shown ([`StreamCheck::text`]).
//!
//! It also stops the model early (through [`StreamCheck::finish`], which the client polls)
//! when going on cannot help the student:
//! - the answer's first statement (the one that answers the question) fails the check (in
//!   answer mode, that includes restating one sentence of the book:
//!   [`super::verify::restates`]), or is
//!   about something else than the question asks ("g on Mars" for "g near Earth"): the
//!   student gets the textbook's quotes instead, never an answer that lost its point
//!   ([`StreamCheck::lost_point`]);
//! - the model repeats a sentence it already wrote ([`MAX_REPEATS`] times: a loop);
//! - the answer grows past [`MAX_WORDS`] words or [`LENGTH_FACTOR`] × the sources' words;
//! - the model starts its own "Sources:" list.
//!
//! A bare "Yes." or "No." is never shown: small models answer a misconception with "Yes"
//! ahead of a sentence that may then be removed; the statement after it carries the answer.
//! A refusal sentence is not shown either (the tutor decides what a refusal becomes).
//!
//! Cost: one embedding batch of the source sentences when the stream starts, then one
//! sentence embedding and the meaning check per sentence (a few to 30 ms on a 2-core laptop,
//! `vidya eval --grounding` prints the per-pair time), while the model writes the next one.

use super::grounding::{Grounder, Grounding, Verdict};
use super::postcheck;
use crate::text::split_sentences;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A sentence written this many times more is a loop: the model is stopped.
pub const MAX_REPEATS: usize = 2;
/// Longest answer shown (words).
pub const MAX_WORDS: usize = 220;
/// An answer may be at most this many times longer than its sources (words), and at least
/// [`MIN_WORDS_CAP`].
pub const LENGTH_FACTOR: f32 = 1.5;
/// The length cap never goes below this many words.
pub const MIN_WORDS_CAP: usize = 60;

/// Why the model was stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cut {
    /// The first statement failed the check.
    LostPoint,
    /// A repeated sentence.
    Loop,
    /// Past the length cap.
    TooLong,
    /// The model began its own source list.
    SourcesList,
}

/// The sentence-by-sentence check of one streamed answer.
pub struct StreamCheck<'a> {
    grounder: &'a Grounder<'a>,
    system_prompt: &'a str,
    /// The question (the first statement must be about it).
    question: &'a str,
    /// True in answer mode: the first statement must also say what was asked, and a question
    /// that asks to choose gets the quotes ([`super::verify::asked`]); a guiding question or
    /// a quiz need not.
    answering: bool,
    buffer: String,
    /// What the student has been shown (the answer kept).
    shown: String,
    /// Normalised sentences written so far, with how often.
    seen: Vec<(String, usize)>,
    /// Every checked sentence, in order (for the trace and the figures).
    checked: Grounding,
    facts: usize,
    supported: usize,
    words_cap: usize,
    cut: Option<Cut>,
    refused: bool,
    finish: Arc<AtomicBool>,
}

impl std::fmt::Debug for StreamCheck<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamCheck")
            .field("shown", &self.shown)
            .field("cut", &self.cut)
            .finish_non_exhaustive()
    }
}

fn normalized(s: &str) -> String {
    s.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// True for a sentence that is only "Yes" or "No" (any case, punctuation, in Hindi too).
pub fn is_bare_yes_no(s: &str) -> bool {
    let t = normalized(s);
    matches!(
        t.as_str(),
        "yes" | "no" | "yes it is" | "no it is not" | "हाँ" | "हां" | "नहीं" | "जी हाँ" | "जी नहीं"
    )
}

/// Longest sentence shown (words): a longer one is a run-on a small model fell into.
pub const MAX_SENTENCE_WORDS: usize = 80;

/// True for a sentence no student should read: longer than [`MAX_SENTENCE_WORDS`], or one
/// word making up half of eight or more words (a loop inside the sentence).
pub fn is_degenerate(sentence: &str) -> bool {
    let words: Vec<String> = sentence
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    if words.len() > MAX_SENTENCE_WORDS {
        return true;
    }
    if words.len() < 8 {
        return false;
    }
    let mut counts: std::collections::HashMap<&str, usize> = Default::default();
    for w in &words {
        *counts.entry(w.as_str()).or_default() += 1;
    }
    counts.values().any(|n| n * 2 >= words.len())
}

impl Cut {
    /// The name reported in [`super::postcheck::PostCheck::stream_cut`].
    pub fn as_str(self) -> &'static str {
        match self {
            Cut::LostPoint => "lost_point",
            Cut::Loop => "loop",
            Cut::TooLong => "too_long",
            Cut::SourcesList => "sources_list",
        }
    }
}

impl<'a> StreamCheck<'a> {
    /// A check over `grounder`'s sources; `system_prompt` is what the model was told (its
    /// rule lines are never shown); `question`: what the student asked (the first statement
    /// must be about it, [`super::verify::answers_another_question`]); `source_words`: the
    /// sources' length, for the length cap.
    pub fn new(
        grounder: &'a Grounder<'a>,
        system_prompt: &'a str,
        question: &'a str,
        source_words: usize,
    ) -> Self {
        Self {
            grounder,
            system_prompt,
            question,
            answering: true,
            buffer: String::new(),
            shown: String::new(),
            seen: Vec::new(),
            checked: Grounding::default(),
            facts: 0,
            supported: 0,
            words_cap: ((source_words as f32 * LENGTH_FACTOR) as usize)
                .clamp(MIN_WORDS_CAP, MAX_WORDS),
            cut: None,
            refused: false,
            finish: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Whether the reply is in answer mode (true unless set). With false (Socratic hints,
    /// quizzes) the first statement is not held to say what was asked, and a question that
    /// asks to choose is not left to the quotes ([`super::verify::asked`]).
    pub fn answering(mut self, answering: bool) -> Self {
        self.answering = answering;
        self
    }

    /// The flag that tells the model client to end the answer now (set by the check).
    pub fn finish(&self) -> Arc<AtomicBool> {
        self.finish.clone()
    }

    /// Takes the next piece of the model's text; passes each finished sentence that holds up
    /// to `show` (with its `[n]`).
    pub fn push(&mut self, piece: &str, show: &mut dyn FnMut(&str)) {
        if self.cut.is_some() {
            return;
        }
        self.buffer.push_str(piece);
        // Finished sentences: every span but the last, and the last too once the text after
        // it has begun (a newline, or a space after its full stop).
        loop {
            let spans = split_sentences(&self.buffer);
            let done = match spans.len() {
                0 => break,
                1 => {
                    let s = spans[0];
                    let rest = &self.buffer[s.end..];
                    let ended = self.buffer[..s.end]
                        .trim_end()
                        .ends_with(['.', '!', '?', '।', ':', ']']);
                    if ended && (rest.contains('\n') || rest.starts_with(' ')) {
                        s.end
                    } else if self.buffer[s.start..].contains('\n') {
                        // A line without a full stop (a list item, a heading) ends at its
                        // newline.
                        s.start + self.buffer[s.start..].find('\n').unwrap_or(0)
                    } else {
                        break;
                    }
                }
                _ => spans[1].start,
            };
            let sentence: String = self.buffer[..done].to_string();
            self.buffer.drain(..done);
            self.decide(&sentence, show);
            if self.cut.is_some() {
                return;
            }
        }
    }

    /// The model ended (`complete`: it finished; false when the stream broke off): checks
    /// what is left in the buffer. A last sentence the stream broke off in the middle of is
    /// shown if it holds up, but its failing is not the answer losing its point.
    pub fn end(&mut self, complete: bool, show: &mut dyn FnMut(&str)) {
        if self.cut.is_none() && !self.buffer.trim().is_empty() {
            let rest = std::mem::take(&mut self.buffer);
            let cut_off = !complete && !rest.trim_end().ends_with(['.', '!', '?', '।']);
            let facts = self.facts;
            self.decide(&rest, show);
            if cut_off && self.cut == Some(Cut::LostPoint) {
                self.cut = None;
                self.finish.store(false, Ordering::SeqCst);
                // The fragment does not count as the answer's first statement.
                self.facts = facts;
            }
        }
    }

    fn stop(&mut self, why: Cut) {
        self.cut = Some(why);
        self.finish.store(true, Ordering::SeqCst);
    }

    fn decide(&mut self, raw: &str, show: &mut dyn FnMut(&str)) {
        let new_line = raw.contains('\n') || self.shown.is_empty();
        let (clean, sources_list) = postcheck::sanitize(raw);
        if sources_list {
            self.stop(Cut::SourcesList);
        }
        let text = clean.trim();
        if text.is_empty() || !text.chars().any(char::is_alphanumeric) {
            return;
        }
        if postcheck::is_refusal(text) {
            self.refused = true;
            return;
        }
        if postcheck::is_rule_echo(text, self.system_prompt) || is_bare_yes_no(text) {
            return;
        }
        if is_degenerate(text) {
            // "light light light …": a loop inside one sentence.
            self.stop(Cut::Loop);
            return;
        }
        let key = normalized(&super::grounding::without_marks(text));
        if let Some(entry) = self.seen.iter_mut().find(|(k, _)| *k == key) {
            entry.1 += 1;
            if entry.1 > MAX_REPEATS {
                self.stop(Cut::Loop);
            }
            return;
        }
        self.seen.push((key, 1));
        let mut g = match self.grounder.check(text) {
            Ok(g) => g,
            Err(e) => {
                tracing::warn!(error = %e, "checking a streamed sentence failed; it is not shown");
                return;
            }
        };
        if self.answering {
            self.hold_to_one_sentence(&mut g);
        }
        let first_fact = self.facts == 0;
        for s in &g.sentences {
            if matches!(
                s.verdict,
                Verdict::Supported | Verdict::Removed | Verdict::Unchecked
            ) {
                self.facts += 1;
            }
            if s.verdict == Verdict::Supported {
                self.supported += 1;
            }
        }
        let first = g.sentences.iter().find(|s| s.verdict != Verdict::NotAFact);
        // A bare answer ("J/K") before any statement, or numbers alone ("two to one", which
        // the check reads as a statement): it must be what the sources give for the question.
        let bare_off = first_fact
            && first.is_none_or(|f| {
                super::verify::words::read(&f.text)
                    .content()
                    .next()
                    .is_none()
            })
            && !self.question.is_empty()
            && g.sentences.first().is_some_and(|s| {
                !super::verify::fragment_answers(
                    self.question,
                    &s.text,
                    self.grounder.source_texts(),
                )
            });
        let lost = bare_off
            || first.is_some_and(|s| {
                s.verdict == Verdict::Removed
                    || (first_fact
                        && !self.question.is_empty()
                        && (super::verify::answers_another_question(self.question, &s.text)
                            || (self.answering
                                && (super::verify::asked::asks_a_choice(self.question)
                                    || super::verify::asked::asks_what_no_passage_has(
                                        self.question,
                                        self.grounder.source_texts(),
                                    )
                                    || super::verify::asked::restates_the_question(
                                        self.question,
                                        &s.text,
                                    )
                                    || super::verify::reason::gives_a_reason_the_book_does_not(
                                        self.question,
                                        &s.text,
                                        self.grounder.source_texts(),
                                    )
                                    || super::verify::asked::gives_another_terms_definition(
                                        self.question,
                                        &s.text,
                                        self.grounder.source_texts(),
                                    )
                                    || super::verify::asked::misses_the_question(
                                        self.question,
                                        &s.text,
                                        self.grounder.source_texts(),
                                    )))))
            });
        let kept = g.text();
        self.checked.sentences.extend(g.sentences);
        if first_fact && lost {
            self.stop(Cut::LostPoint);
            return;
        }
        if kept.is_empty() {
            return;
        }
        let piece = if self.shown.is_empty() {
            kept
        } else if new_line {
            format!("\n{kept}")
        } else {
            format!(" {kept}")
        };
        self.shown.push_str(&piece);
        show(&piece);
        if self.shown.split_whitespace().count() >= self.words_cap {
            self.stop(Cut::TooLong);
        }
    }

    /// In answer mode, a supported statement that restates no single sentence of the
    /// sources ([`super::verify::restates`]) is removed, with the words that kept it from one.
    fn hold_to_one_sentence(&self, g: &mut Grounding) {
        for s in g
            .sentences
            .iter_mut()
            .filter(|s| s.verdict == Verdict::Supported)
        {
            if let Some(words) =
                super::verify::restates::beyond_one_sentence(&s.text, self.grounder.source_texts())
            {
                s.verdict = Verdict::Removed;
                s.findings
                    .push(super::verify::Finding::BeyondOneSentence { words });
            }
        }
    }

    /// The answer shown, as the student keeps it.
    pub fn text(&self) -> &str {
        &self.shown
    }

    /// Every sentence checked, with its verdict (the removed ones included).
    pub fn checked(&self) -> &Grounding {
        &self.checked
    }

    /// Statements checked, and how many were supported.
    pub fn facts(&self) -> (usize, usize) {
        (self.facts, self.supported)
    }

    /// Why the model was stopped early, if it was.
    pub fn cut(&self) -> Option<Cut> {
        self.cut
    }

    /// True when the answer's first statement failed: the student gets the quotes.
    pub fn lost_point(&self) -> bool {
        self.cut == Some(Cut::LostPoint)
    }

    /// True when the model said the sources do not answer.
    pub fn refused(&self) -> bool {
        self.refused
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::answer::Citation;
    use crate::text::Tokenizer;

    fn source(text: &str) -> Vec<Citation> {
        vec![Citation {
            n: 1,
            book: "Biology 2e".into(),
            chapter: "Chapter 5".into(),
            file: "ch05.pdf".into(),
            pdf_page: 3,
            page_label: "120".into(),
            text: text.into(),
            book_id: 1,
            page: 2,
        }]
    }

    fn run(sources: &[Citation], pieces: &[&str]) -> (String, Vec<String>, Option<Cut>) {
        run_asked(sources, "", pieces)
    }

    fn run_asked(
        sources: &[Citation],
        question: &str,
        pieces: &[&str],
    ) -> (String, Vec<String>, Option<Cut>) {
        let tok = Tokenizer::new();
        let g = Grounder::new(sources, None, &tok).unwrap();
        let mut check = StreamCheck::new(&g, "Two to four sentences.", question, 200);
        let mut shown = Vec::new();
        for p in pieces {
            check.push(p, &mut |t| shown.push(t.to_string()));
        }
        check.end(true, &mut |t| shown.push(t.to_string()));
        (check.text().to_string(), shown, check.cut())
    }

    const SRC: &str = "Plant cells have a cell wall outside the plasma membrane. Raising the temperature speeds up diffusion.";

    #[test]
    fn only_checked_sentences_stream_and_they_stream_whole() {
        let (text, shown, cut) = run(
            &source(SRC),
            &[
                "Plant cells have a cell ",
                "wall outside the plasma membrane. Raising the temperature ",
                "slows down diffusion. Plant cells have a cell wall outside the plasma membrane.",
            ],
        );
        assert_eq!(cut, None);
        assert_eq!(
            shown,
            vec!["Plant cells have a cell wall outside the plasma membrane [1]."]
        );
        assert_eq!(text, shown.concat(), "the answer kept is what was shown");
    }

    #[test]
    fn a_false_first_statement_stops_the_model_and_shows_nothing() {
        let (text, shown, cut) = run(
            &source(SRC),
            &[
                "Yes. ",
                "Plant cells do not have a cell wall. ",
                "Raising the temperature speeds up diffusion.",
            ],
        );
        assert_eq!(cut, Some(Cut::LostPoint));
        assert!(shown.is_empty() && text.is_empty(), "{shown:?}");
    }

    /// Physics (OpenStax), p. 175 and p. 194; the model answered "J/K" (graded wrong).
    const HEAT: &str = "The specific heat c is a property of the substance; its SI unit is J/(kg ⋅ K) or J/(kg ⋅ °C ). In SI, entropy is expressed in units of joules per kelvin (J/K).";

    #[test]
    fn a_bare_answer_must_come_from_a_sentence_about_the_question() {
        let (text, shown, cut) = run_asked(&source(HEAT), "si unit of specific heat", &["J/K [1]"]);
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        let (text, _, cut) = run_asked(
            &source(HEAT),
            "what is the SI unit of entropy",
            &["J/K [1]"],
        );
        assert_eq!(cut, None);
        assert!(text.contains("J/K"), "{text}");
        // A lead-in is not a bare answer.
        let (_, _, cut) = run_asked(
            &source(HEAT),
            "si unit of specific heat",
            &["Sure! ", "The SI unit of specific heat is J/(kg ⋅ K) [1]."],
        );
        assert_eq!(cut, None);
    }

    /// Biology 2e (OpenStax), ch. 26; the model answered "Two years" (the ninth set of
    /// student questions, stop 58; graded wrong: the book gives an upper bound).
    const PINE: &str = "Fertilization and seed development is a long process in pine trees: it may take up to two years after pollination.";

    #[test]
    fn a_bare_number_keeps_the_bound_the_book_puts_on_it() {
        let q = "pine tree takes how long to make seeds after pollination";
        let (text, shown, cut) = run_asked(&source(PINE), q, &["Two years [1]."]);
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        let unbounded = PINE.replace("up to two years", "two years");
        let (text, _, cut) = run_asked(&source(&unbounded), q, &["Two years [1]."]);
        assert_eq!(cut, None);
        assert!(text.contains("Two years"), "{text}");
    }

    /// Biology 2e (OpenStax), p. 205 and p. 209; asked the least and most chiasmata per
    /// chromosome, the model answered "two to one" (the twelfth set of student questions,
    /// stop 59; graded wrong): numbers alone, from a sentence on ploidy.
    const CHIASMATA: &str = "There must be at least one chiasma per chromosome for proper separation of homologous chromosomes during meiosis I, but there may be as many as 25. … When the chiasmata resolve and the tetrad is broken up with the homologous chromosomes moving to one pole or another, the ploidy level—the number of sets of chromosomes in each future nucleus—has been reduced from two to one.";

    #[test]
    fn numbers_alone_must_come_from_a_sentence_about_the_question() {
        let q = "min how many chiasma per chromosome in meiosis 1 n max??";
        let (text, shown, cut) = run_asked(&source(CHIASMATA), q, &["two to one [1]"]);
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        // Numbers from the sentence about what was asked stand (Biology 2e, p. 8).
        let ph = "The pH scale is, as we previously mentioned, an inverse logarithm and ranges from 0 to 14.";
        let (text, _, cut) = run_asked(
            &source(ph),
            "wat is the range of the pH scale",
            &["0 to 14 [1]"],
        );
        assert_eq!(cut, None, "{text}");
        assert!(text.contains("0 to 14"), "{text}");
    }

    /// Physics (OpenStax), p. 310 and p. 287; the model answered "C" (graded wrong: the
    /// symbol of capacitance and the coulomb, not the farad), as the pruner quotes it: "…"
    /// between kept sentences.
    const CAPACITANCE: &str = "A capacitor is an arrangement of objects that, by virtue of their geometry, can store energy an electric field. … The capacity of a capacitor is defined by its capacitance C, which is given by C = (Q)/(V), … We can see from the equation for capacitance that the units of capacitance are C/V, which are called farads (F) after the nineteenth-century English physicist Michael Faraday. The SI unit for electric charge is the coulomb (abbreviated as “C”), which is named after the French physicist Charles Augustin de Coulomb.";

    #[test]
    fn a_bare_letter_must_stand_whole_in_a_sentence_about_the_question() {
        let q = "unit of capacitance n who is it named after";
        let (text, shown, cut) = run_asked(&source(CAPACITANCE), q, &["C"]);
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        let (text, _, cut) = run_asked(&source(CAPACITANCE), q, &["F [1]"]);
        assert_eq!(cut, None);
        assert!(text.contains('F'), "{text}");
    }

    /// Biology 2e (OpenStax), p. 211 and 213: a reason the book gives for something else
    /// (verify::reason) ends the answer; the book's reason is kept.
    #[test]
    fn a_reason_the_book_does_not_give_gives_the_quotes() {
        let src = "The cells produced are genetically unique because of the random assortment of paternal and maternal homologs and because of the recombination of maternal and paternal segments of chromosomes that occurs during crossover. The process of meiosis produces unique reproductive cells called gametes, which have half the number of chromosomes as the parent cell.";
        let q = "why r the 4 cells made in meiosis all genetically difrent";
        let (text, shown, cut) = run_asked(
            &source(src),
            q,
            &["Because they have half the number of chromosomes as the parent cell [1]."],
        );
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        let (text, _, cut) = run_asked(
            &source(src),
            q,
            &["The cells produced are genetically unique because of the random assortment of paternal and maternal homologs [1]."],
        );
        assert_eq!(cut, None, "{text}");
    }

    /// Biology 2e (OpenStax), p. 729 (made-up join of its two sentences): in answer mode a
    /// statement joined from two book sentences ends the answer (verify::restates), though
    /// each word is the book's; a later joined sentence is not shown; a Socratic hint need
    /// not restate one sentence.
    #[test]
    fn a_statement_joined_from_two_book_sentences_is_not_the_tutors_to_make() {
        let src = "Guard cells are the only epidermal cells to contain chloroplasts. \
                   The epidermis of a leaf is usually one cell layer thick.";
        let joined = "The cells of the leaf epidermis contain chloroplasts [1].";
        let one = "Guard cells are the only epidermal cells that contain chloroplasts [1].";
        let q = "which cells of leaf epidermis hav chloroplasts";
        let (text, shown, cut) = run_asked(&source(src), q, &[joined]);
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        let (text, _, cut) = run_asked(&source(src), q, &[one, " ", joined]);
        assert_eq!(cut, None, "{text}");
        assert!(text.contains("Guard cells"), "{text}");
        assert!(!text.contains("leaf epidermis"), "{text}");
        let tok = Tokenizer::new();
        let sources = source(src);
        let g = Grounder::new(&sources, None, &tok).unwrap();
        let mut hint = StreamCheck::new(&g, "", q, 200).answering(false);
        hint.push(joined, &mut |_| {});
        hint.end(true, &mut |_| {});
        assert_eq!(hint.cut(), None);
        assert!(hint.text().contains("leaf epidermis"), "{}", hint.text());
    }

    /// Physics (OpenStax), p. 400 and 402: another term's definition given to the asked
    /// term (verify::asked) ends the answer; the book's own definition is kept.
    #[test]
    fn another_terms_definition_for_the_asked_term_gives_the_quotes() {
        let src = "Nuclear fusion is defined as the combining, or fusing, of two nuclei and, the combining of nuclei also results in an emission of energy. The minimum amount necessary for self-sustained fission of a given nuclide is called its critical mass.";
        let q = "wat is critical mass in fision";
        let (text, shown, cut) = run_asked(
            &source(src),
            q,
            &["The critical mass in nuclear fusion is the combining, or fusing, of two nuclei [1]."],
        );
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        let (text, _, cut) = run_asked(
            &source(src),
            q,
            &["The critical mass of a nuclide is the minimum amount necessary for its self-sustained fission [1]."],
        );
        assert_eq!(cut, None, "{text}");
    }

    /// Physics (OpenStax), p. 122: the model gave the Hindi question back as its answer.
    #[test]
    fn a_first_statement_that_gives_the_question_back_gives_the_quotes() {
        let q = "सबसे पहले किसने बोला था कि ग्रह सूरज के चारों तरफ घूमते हैं";
        let src = "Nicolaus Copernicus (1473–1543) first had the idea that the planets circle the sun, in about 1514.";
        let (text, shown, cut) = run_asked(&source(src), q, &[&format!("{q} [1].")]);
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
    }

    /// A true first statement that does not say what was asked ("the specific heat is a
    /// property of the substance" for its SI unit) ends the answer: the student gets the
    /// quotes (verify::asked).
    #[test]
    fn a_first_statement_that_misses_the_question_gives_the_quotes() {
        let (text, shown, cut) = run_asked(
            &source(HEAT),
            "si unit of specific heat",
            &["The specific heat c is a property of the substance [1]. Its SI unit is J/(kg ⋅ K) [1]."],
        );
        assert_eq!(cut, Some(Cut::LostPoint), "{text}");
        assert!(shown.is_empty());
        let (text, _, cut) = run_asked(
            &source(HEAT),
            "si unit of specific heat",
            &["The SI unit of specific heat is J/(kg ⋅ K) [1]."],
        );
        assert_eq!(cut, None);
        assert!(text.contains("J/(kg"), "{text}");
    }

    /// Physics p. 107: a pick between two things the book names is not the tutor's to make
    /// in answer mode (the 0.5B model picked the wrong point of a spinning CD); a Socratic
    /// or quiz reply is not held to it.
    #[test]
    fn a_pick_between_two_things_gives_the_quotes_in_answer_mode() {
        const CD: &str = "Consequently, tangential speed is greater for a point on the outer edge of the CD than for a point closer to the center of the CD.";
        let q = "on a spinning cd which point moves faster, edge or near the center";
        let reply = "A point on the outer edge of the CD has the greater tangential speed [1].";
        let (_, shown, cut) = run_asked(&source(CD), q, &[reply]);
        assert_eq!(cut, Some(Cut::LostPoint));
        assert!(shown.is_empty());
        let tok = Tokenizer::new();
        let cited = source(CD);
        let g = Grounder::new(&cited, None, &tok).unwrap();
        let mut check = StreamCheck::new(&g, "Two to four sentences.", q, 200).answering(false);
        check.push(reply, &mut |_| {});
        check.end(true, &mut |_| {});
        assert_eq!(check.cut(), None, "{}", check.text());
        assert!(check.text().contains("outer edge"));
    }

    #[test]
    fn a_word_looping_inside_a_sentence_is_not_shown() {
        let looped = format!("{}[1].", "light ".repeat(40));
        let (text, shown, cut) = run(&source(SRC), &[&looped]);
        assert_eq!(cut, Some(Cut::Loop));
        assert!(text.is_empty() && shown.is_empty());
        assert!(!is_degenerate(
            "Plant cells have a cell wall outside the plasma membrane."
        ));
    }

    #[test]
    fn a_loop_is_stopped_and_rule_echoes_are_not_shown() {
        let s = "Raising the temperature speeds up diffusion. ";
        let (text, _, cut) = run(&source(SRC), &["Two to four sentences. ", s, s, s, s, s]);
        assert_eq!(cut, Some(Cut::Loop));
        assert_eq!(text, "Raising the temperature speeds up diffusion [1].");
    }
}
