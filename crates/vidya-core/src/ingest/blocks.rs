//! Block kinds: which paragraphs of a chapter are running text (the textbook's explanation)
//! and which are the boilerplate around it, and which section each paragraph belongs to.
//!
//! Textbooks wrap their running text in material that shares its words but rarely answers a
//! student's question: learning objectives ("By the end of this section, you will be able
//! to…"), figure captions and image descriptions, "Link to Learning" and "Visual Connection"
//! boxes, key-term lists and key-equation tables, section summaries that repeat the body, and
//! end-of-chapter questions. Vidya stores all of it (a student may ask for a summary or a
//! figure) but marks each chunk with its [`BlockKind`], so retrieval ranks the body first
//! ([`crate::retrieve::pipeline`]) and quotes boilerplate only when nothing in the body
//! answers.
//!
//! The classifier reads a chapter's paragraphs in order. A heading (a one-line paragraph of at
//! most [`MAX_HEADING_WORDS`] words, starting with a capital letter or a section number,
//! without sentence punctuation at its end or a formula in it) is not text to quote: it names
//! the section for the paragraphs after it ([`Classifier::context`]) and may open a
//! boilerplate region, which the next ordinary heading closes. The heading names are those of
//! OpenStax books (their CNXML `note` titles and section headings) and NCERT books ("What you
//! have learnt", "Exercises", "Activity"); a book without them is all body text, as before.

use serde::{Deserialize, Serialize};

/// Longest heading, in words.
pub const MAX_HEADING_WORDS: usize = 14;

/// What a block of text is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum BlockKind {
    /// Running text: explanations, worked examples, "Everyday Connection" boxes.
    #[default]
    Body,
    /// Learning objectives.
    Objectives,
    /// A figure caption or an image's description, or a table's label.
    Figure,
    /// A box that points elsewhere or asks about a figure ("Link to Learning", "Visual
    /// Connection").
    Aside,
    /// Review, critical-thinking and end-of-chapter questions, exercises, activities.
    Exercise,
    /// A section or chapter summary.
    Summary,
    /// Key terms, glossaries and key-equation tables.
    KeyTerms,
}

impl BlockKind {
    /// The name stored in the library (`body`, `objectives`, `figure`, `aside`, `exercise`,
    /// `summary`, `key_terms`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Body => "body",
            Self::Objectives => "objectives",
            Self::Figure => "figure",
            Self::Aside => "aside",
            Self::Exercise => "exercise",
            Self::Summary => "summary",
            Self::KeyTerms => "key_terms",
        }
    }

    /// Parses a stored name; anything unknown is body text (libraries stored before kinds
    /// existed).
    pub fn parse(s: &str) -> Self {
        match s {
            "objectives" => Self::Objectives,
            "figure" => Self::Figure,
            "aside" => Self::Aside,
            "exercise" => Self::Exercise,
            "summary" => Self::Summary,
            "key_terms" => Self::KeyTerms,
            _ => Self::Body,
        }
    }
}

/// Heading names (lower case, without a trailing colon) that open a boilerplate region.
const REGION_HEADINGS: &[(&str, BlockKind)] = &[
    ("learning objectives", BlockKind::Objectives),
    ("section learning objectives", BlockKind::Objectives),
    ("learning outcomes", BlockKind::Objectives),
    ("objectives", BlockKind::Objectives),
    ("link to learning", BlockKind::Aside),
    ("visual connection", BlockKind::Aside),
    ("watch physics", BlockKind::Aside),
    ("virtual physics", BlockKind::Aside),
    ("section summary", BlockKind::Summary),
    ("chapter summary", BlockKind::Summary),
    ("summary", BlockKind::Summary),
    ("what you have learnt", BlockKind::Summary),
    ("what you have learned", BlockKind::Summary),
    ("key concepts", BlockKind::Summary),
    ("key terms", BlockKind::KeyTerms),
    ("section key terms", BlockKind::KeyTerms),
    ("key equations", BlockKind::KeyTerms),
    ("glossary", BlockKind::KeyTerms),
    ("review questions", BlockKind::Exercise),
    ("critical thinking questions", BlockKind::Exercise),
    ("visual connection questions", BlockKind::Exercise),
    ("check your understanding", BlockKind::Exercise),
    ("practice problems", BlockKind::Exercise),
    ("test prep", BlockKind::Exercise),
    ("performance task", BlockKind::Exercise),
    ("exercises", BlockKind::Exercise),
    ("exercise", BlockKind::Exercise),
    ("questions", BlockKind::Exercise),
    ("think and act", BlockKind::Exercise),
];

/// True when `p` (one paragraph, already joined into one line) reads as a heading.
/// `single_line`: the paragraph was one line of the page.
pub fn is_heading(p: &str, single_line: bool) -> bool {
    let p = p.trim();
    if !single_line || p.is_empty() {
        return false;
    }
    let words = p.split_whitespace().count();
    if words > MAX_HEADING_WORDS {
        return false;
    }
    let first = p.chars().next().unwrap_or(' ');
    let numbered = section_number(p).is_some();
    if !(first.is_uppercase() || numbered) {
        return false;
    }
    // Bullets and list items are text; "1. Observation" is a list item, "8.2 The …" a section.
    if !numbered && (first.is_ascii_digit() || matches!(first, '•' | '◦' | '▪' | '–' | '*' | '['))
    {
        return false;
    }
    if p.ends_with(['.', ',', ';', ':', '!']) && !p.ends_with("etc.") {
        return false;
    }
    // A formula, a table row, a credit line ("NASA/GSFC/NOAA/USGS)") is not a heading.
    if p.contains(['=', '|', '+', '×', '÷', '<', '>', '^', '√', '/']) {
        return false;
    }
    if p.matches('(').count() != p.matches(')').count() {
        return false;
    }
    let letters = p.chars().filter(|c| c.is_alphabetic()).count();
    let visible = p.chars().filter(|c| !c.is_whitespace()).count();
    letters * 10 >= visible * 6 && !is_caption_start(p)
}

/// True for a sentence that starts like an item of an answer-option list: "a.", "(b)",
/// "C)", "1." followed by text.
pub fn is_option_item(sentence: &str) -> bool {
    let s = sentence.trim_start();
    let s = s.strip_prefix('(').unwrap_or(s);
    let mut chars = s.chars();
    let (Some(label), Some(mark)) = (chars.next(), chars.next()) else {
        return false;
    };
    (label.is_ascii_alphanumeric() && label.is_ascii())
        && matches!(mark, '.' | ')')
        && chars.next().is_some_and(char::is_whitespace)
}

/// The section number of a numbered heading ("8.2 The Light-Dependent Reactions" → "8.2").
pub fn section_number(p: &str) -> Option<&str> {
    let end = p.find(char::is_whitespace)?;
    let (num, rest) = (&p[..end], p[end..].trim_start());
    let parts: Vec<&str> = num.split('.').collect();
    let ok = parts.len() >= 2
        && parts
            .iter()
            .all(|x| !x.is_empty() && x.len() <= 3 && x.chars().all(|c| c.is_ascii_digit()))
        && rest.chars().next().is_some_and(char::is_uppercase);
    ok.then_some(num)
}

/// True for a paragraph that starts a figure or table caption ("Figure 8.6 …", "Fig. 2.1",
/// "Table 5.1") or an image description ("[Image omitted: …]").
pub fn is_caption_start(p: &str) -> bool {
    let p = p.trim_start();
    if p.starts_with("[Image") {
        return true;
    }
    for label in ["Figure ", "Fig. ", "Table ", "Chart "] {
        if let Some(rest) = p.strip_prefix(label) {
            return rest.chars().next().is_some_and(|c| c.is_ascii_digit());
        }
    }
    false
}

/// The classifier's state over one chapter.
#[derive(Debug, Clone, Default)]
pub struct Classifier {
    region: BlockKind,
    section: Option<String>,
    subsection: Option<String>,
    /// An image description ("[Image omitted: …") began and has not closed yet: it runs on
    /// over a page break into the next paragraphs.
    open_description: bool,
    /// The paragraphs are the answer options of a question ([`Classifier::classify_before`]).
    in_options: bool,
}

/// What one paragraph is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Classified {
    /// A heading: it is kept as context, not as text.
    Heading,
    /// Text of this kind.
    Text(BlockKind),
}

impl Classifier {
    /// A classifier at the start of a chapter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Classifies the next paragraph of the chapter. `single_line`: it was one line on the
    /// page.
    pub fn classify(&mut self, p: &str, single_line: bool) -> Classified {
        self.classify_before(p, single_line, None)
    }

    /// [`Classifier::classify`] with the paragraph after it, `next`: a one-line question
    /// ("How do polarized glasses reduce glare reflected from the ocean?") followed by
    /// answer options ("1. They block …") is an exercise's stem, not a heading, and it and
    /// its options are [`BlockKind::Exercise`] text: the options are the exercise's, not the
    /// book's statements. Outside review questions the question still closes the box it ends
    /// and names the section after it, as it did when it was read as a heading (the retrieval
    /// figures were measured with those sections).
    pub fn classify_before(
        &mut self,
        p: &str,
        single_line: bool,
        next: Option<&str>,
    ) -> Classified {
        let t = p.trim();
        if self.in_options && is_option_item(t) {
            return Classified::Text(BlockKind::Exercise);
        }
        self.in_options = false;
        if t.ends_with('?') && next.is_some_and(|n| is_option_item(n.trim())) {
            self.in_options = true;
            // A one-line question still ends a "Visual Connection" box and names the section
            // of the running text after its options, as a heading would; among review
            // questions the exercises go on.
            if is_heading(t, single_line) && self.region != BlockKind::Exercise {
                self.region = BlockKind::Body;
                self.subsection = Some(t.to_string());
            }
            return Classified::Text(BlockKind::Exercise);
        }
        if is_heading(t, single_line) {
            let name = t.trim_end_matches(':').trim().to_lowercase();
            if let Some((_, kind)) = REGION_HEADINGS.iter().find(|(h, _)| *h == name) {
                self.region = *kind;
                return Classified::Heading;
            }
            // "Activity 6.1", "Example 3.2": an activity is an exercise, an example is body.
            if name.starts_with("activity")
                && name[8..].trim().starts_with(|c: char| c.is_ascii_digit())
            {
                self.region = BlockKind::Exercise;
                return Classified::Heading;
            }
            self.region = BlockKind::Body;
            if section_number(t).is_some() {
                self.section = Some(t.to_string());
                self.subsection = None;
            } else {
                self.subsection = Some(t.to_string());
            }
            return Classified::Heading;
        }
        let figure = match self.region {
            r @ (BlockKind::Aside | BlockKind::KeyTerms | BlockKind::Exercise) => r,
            _ => BlockKind::Figure,
        };
        if self.open_description {
            // The rest of an image description that a page break cut: "… back into A T P
            // and N A D P H.]" at the top of the next page.
            if t.contains(']') {
                self.open_description = false;
            }
            return Classified::Text(figure);
        }
        if is_caption_start(t) {
            if t.starts_with("[Image") && !t.contains(']') {
                self.open_description = true;
            }
            return Classified::Text(figure);
        }
        if t.starts_with("By the end of this section")
            || t.starts_with("By the end of this chapter")
        {
            self.region = BlockKind::Objectives;
            return Classified::Text(BlockKind::Objectives);
        }
        if self.region == BlockKind::Objectives && !t.starts_with(['•', '◦', '▪', '–', '*'])
        {
            // The objectives' bullet list has ended.
            self.region = BlockKind::Body;
        }
        Classified::Text(self.region)
    }

    /// The section the next paragraph belongs to: "8.2 The Light-Dependent Reactions of
    /// Photosynthesis › What Is Light Energy?" (empty before the first heading).
    pub fn context(&self) -> String {
        match (&self.section, &self.subsection) {
            (Some(s), Some(sub)) => format!("{s} › {sub}"),
            (Some(s), None) => s.clone(),
            (None, Some(sub)) => sub.clone(),
            (None, None) => String::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_image_description_cut_by_a_page_break_stays_a_figure() {
        let mut c = Classifier::new();
        assert_eq!(
            c.classify(
                "[Image omitted: The light-dependent reactions make ATP and NADPH, and the Calvin",
                false
            ),
            Classified::Text(BlockKind::Figure)
        );
        // The next page begins with the description's tail.
        assert_eq!(
            c.classify(
                "cycle converts these molecules back into A T P and N A D P H.]",
                false
            ),
            Classified::Text(BlockKind::Figure)
        );
        assert_eq!(
            c.classify(
                "Light-dependent reactions harness energy from the sun to produce ATP.",
                false
            ),
            Classified::Text(BlockKind::Body)
        );
    }

    #[test]
    fn a_one_line_question_with_answer_options_is_an_exercise_not_a_heading() {
        // Physics ch. 15: the question is one short line, then its four options; the
        // section's running text goes on after them.
        let paras = [
            ("Polarization of Light, Linear and Circular", true),
            (
                "This video explains the polarization of light in great detail.",
                false,
            ),
            (
                "How do polarized glasses reduce glare reflected from the ocean?",
                true,
            ),
            (
                "1. They block horizontally polarized and vertically polarized light.",
                true,
            ),
            (
                "2. They are transparent to horizontally polarized and vertically polarized light.",
                true,
            ),
            ("The Behavior of Light", true),
            (
                "Light travels in straight lines until it meets a surface.",
                false,
            ),
        ];
        let out = run(&paras);
        let kinds: Vec<Classified> = out.iter().map(|(k, _)| *k).collect();
        use Classified::*;
        assert_eq!(
            kinds,
            [
                Heading,
                Text(BlockKind::Body),
                Text(BlockKind::Exercise),
                Text(BlockKind::Exercise),
                Text(BlockKind::Exercise),
                Heading,
                Text(BlockKind::Body),
            ]
        );
        assert_eq!(out.last().unwrap().1, "The Behavior of Light");
        // Biology 2e ch. 8: a "Visual Connection" box ends with its question; the running
        // text after the options is body text again.
        let paras = [
            ("Visual Connection", true),
            ("[Image omitted: The light reactions in the thylakoid membrane.]", false),
            ("What is the initial source of electrons for the chloroplast electron transport chain?", true),
            ("1. water", true),
            ("2. oxygen", true),
            ("PSII and PSI are two major components of the photosynthetic electron transport chain.", false),
        ];
        let out = run(&paras);
        let kinds: Vec<Classified> = out.iter().map(|(k, _)| *k).collect();
        assert_eq!(
            kinds,
            [
                Heading,
                Text(BlockKind::Aside),
                Text(BlockKind::Exercise),
                Text(BlockKind::Exercise),
                Text(BlockKind::Exercise),
                Text(BlockKind::Body),
            ]
        );
        // A question heading followed by running text is still a heading (NCERT: "Why Do We
        // Fall Ill?").
        let mut c = Classifier::new();
        assert_eq!(
            c.classify_before(
                "Why Do We Fall Ill?",
                true,
                Some("Health is a state of well-being.")
            ),
            Heading
        );
    }

    /// Each paragraph's kind (read with the paragraph after it) and the context after it.
    fn run(paras: &[(&str, bool)]) -> Vec<(Classified, String)> {
        let mut c = Classifier::new();
        (0..paras.len())
            .map(|i| {
                let (p, single) = paras[i];
                let k = c.classify_before(p, single, paras.get(i + 1).map(|n| n.0));
                (k, c.context())
            })
            .collect()
    }

    #[test]
    fn openstax_section_start() {
        let out = run(&[
            ("8.2 The Light-Dependent Reactions of Photosynthesis", true),
            ("Learning Objectives", true),
            ("By the end of this section, you will be able to do the following:", true),
            ("• Explain how plants absorb energy from sunlight", true),
            ("• Describe short and long wavelengths of light", true),
            ("How can light energy be used to make food? When a person turns on a lamp, electrical energy becomes light energy.", false),
            ("[Image omitted: A photo shows the silhouette of a grassy plant.]", false),
            ("Figure 8.9 Photoautotrophs can capture visible light energy in specific wavelengths.", false),
            ("What Is Light Energy?", true),
            ("The sun emits an enormous amount of electromagnetic radiation (solar energy).", false),
            ("Link to Learning", true),
            ("Click the link to learn more about photosynthesis.", true),
            ("Absorption of Light", true),
            ("Light energy initiates the process of photosynthesis when pigments absorb the light.", false),
            ("Section Summary", true),
            ("The process of photosynthesis transformed life on Earth.", false),
        ]);
        let kinds: Vec<Classified> = out.iter().map(|o| o.0).collect();
        use BlockKind::*;
        use Classified::*;
        assert_eq!(
            kinds,
            vec![
                Heading,
                Heading,
                Text(Objectives),
                Text(Objectives),
                Text(Objectives),
                Text(Body),
                Text(Figure),
                Text(Figure),
                Heading,
                Text(Body),
                Heading,
                Text(Aside),
                Heading,
                Text(Body),
                Heading,
                Text(Summary),
            ]
        );
        assert_eq!(
            out[9].1,
            "8.2 The Light-Dependent Reactions of Photosynthesis › What Is Light Energy?"
        );
        assert_eq!(
            out[5].1,
            "8.2 The Light-Dependent Reactions of Photosynthesis"
        );
    }

    #[test]
    fn formulas_lists_and_sentences_are_not_headings() {
        for p in [
            "F = ma",
            "W = Fd",
            "1. All flying birds and insects have wings",
            "Short.",
            "resultant magnitude | R = sqrt(R_x^2 + R_y^2)",
            "• Describe the graphical method",
            "प्रकाश संश्लेषण",
            "NASA/GSFC/NOAA/USGS)",
            "Pooley, both of USDA, ARS, EMU)",
        ] {
            assert!(!is_heading(p, true), "{p}");
        }
        assert!(is_heading(
            "5.1 Vector Addition and Subtraction: Graphical Methods",
            true
        ));
        assert!(is_heading("The Two Parts of Photosynthesis", true));
        assert!(is_heading(
            "Secondary Active Transport (Co-transport)",
            true
        ));
        assert!(
            !is_heading("The Two Parts of Photosynthesis", false),
            "two lines: text"
        );
        assert_eq!(section_number("8.2 The Light"), Some("8.2"));
        assert_eq!(section_number("8.2 the light"), None);
        assert!(is_caption_start("Figure 8.6 Photosynthesis takes place"));
        assert!(!is_caption_start("Figure out the answer"));
    }

    #[test]
    fn physics_key_terms_table_ends_at_the_next_heading() {
        let out = run(&[
            ("Section Key Terms", true),
            ("Table 5.1", true),
            ("graphical method | head (of a vector) | resultant", true),
            (
                "The Graphical Method of Vector Addition and Subtraction",
                true,
            ),
            (
                "Recall that a vector is a quantity that has magnitude and direction.",
                false,
            ),
            ("Key Equations", true),
            ("kinetic energy | KE = 1/2 mv^2", true),
        ]);
        use BlockKind::*;
        use Classified::*;
        let kinds: Vec<Classified> = out.iter().map(|o| o.0).collect();
        assert_eq!(
            kinds,
            vec![
                Heading,
                Text(KeyTerms),
                Text(KeyTerms),
                Heading,
                Text(Body),
                Heading,
                Text(KeyTerms)
            ]
        );
        assert_eq!(BlockKind::parse("key_terms"), KeyTerms);
        assert_eq!(BlockKind::parse("whatever"), Body);
    }
}
