//! Chunking: page lines → paragraphs → sentences → chunks of about 200–350 tokens.
//!
//! Paragraphs are rebuilt from PDF lines (a line clearly shorter than the page's full line
//! width ends a paragraph; a paragraph that fills the last line of a page continues on the
//! next page; words hyphenated at a line end are rejoined). Chunks prefer to end at a
//! paragraph boundary once they hold [`MIN_TOKENS`], never exceed [`MAX_TOKENS`] unless one
//! sentence alone does (then it is cut at word boundaries), repeat the previous chunk's last
//! sentence as overlap, and never cross a chapter. Pieces shorter than [`MIN_CHARS`] are
//! merged into a neighbour. Every sentence keeps the page it starts on.
//!
//! Each paragraph is classified ([`super::blocks`]): headings become the section context of
//! the chunks after them (not quoted text), and running text and each kind of boilerplate
//! (objectives, figure captions, boxes, summaries, key terms, exercises) are chunked apart, so
//! a caption between two paragraphs does not split the running text and a chunk holds one
//! kind of text only.

use super::blocks::{BlockKind, Classified, Classifier};
use crate::text::{estimate_tokens, split_sentences};

/// A chunk ends at the first paragraph boundary after this many tokens.
pub const MIN_TOKENS: usize = 200;
/// A chunk never grows beyond this many tokens (unless a single sentence is longer).
pub const MAX_TOKENS: usize = 350;
/// Sentences up to this many tokens are repeated at the start of the next chunk (overlap).
pub const OVERLAP_MAX_TOKENS: usize = 60;
/// Chunks shorter than this many characters are merged into a neighbour.
pub const MIN_CHARS: usize = 150;

/// A chunk before it is stored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ChunkDraft {
    /// Text: sentences joined by a space, paragraphs by a newline.
    pub text: String,
    /// `(byte offset, page ordinal)` at every page change; first entry at offset 0.
    pub page_starts: Vec<(usize, usize)>,
    /// Estimated tokens.
    pub token_count: usize,
    /// What kind of text it holds.
    pub kind: BlockKind,
    /// The section it is in ("8.2 The Light-Dependent Reactions › Absorption of Light"; empty
    /// when the chapter has no headings).
    pub context: String,
    /// Position of its first sentence in the chapter (orders chunks of different kinds).
    order: usize,
}

impl ChunkDraft {
    /// First page ordinal.
    pub fn first_page(&self) -> usize {
        self.page_starts.first().map(|p| p.1).unwrap_or(0)
    }
    /// Last page ordinal.
    pub fn last_page(&self) -> usize {
        self.page_starts.iter().map(|p| p.1).max().unwrap_or(0)
    }
}

#[derive(Debug, Clone)]
struct Sentence {
    text: String,
    page: usize,
    tokens: usize,
    /// Index into the chapter's section contexts.
    context: usize,
    /// Position in the chapter.
    order: usize,
}

/// A paragraph's sentences with its kind.
struct Paragraph {
    kind: BlockKind,
    sentences: Vec<Sentence>,
}

/// The text the embedder reads for a chunk: its section (`context`) on a line of its own, then
/// its text ("contextual chunk text"; the quoted text stays `text` alone). `text` itself when
/// there is no section.
pub fn indexed_text<'a>(context: &str, text: &'a str) -> std::borrow::Cow<'a, str> {
    if context.is_empty() {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(format!("{context}\n{text}"))
    }
}

/// Page of a byte offset given sorted `(offset, page)` starts.
pub fn page_at(page_starts: &[(usize, usize)], offset: usize) -> usize {
    page_starts
        .iter()
        .take_while(|(o, _)| *o <= offset)
        .last()
        .or(page_starts.first())
        .map(|p| p.1)
        .unwrap_or(0)
}

fn is_list_start(line: &str) -> bool {
    let mut chars = line.chars();
    match chars.next() {
        Some('•' | '◦' | '▪' | '–' | '*') => true,
        Some('[') => line.starts_with("[Image"),
        Some(c) if c.is_ascii_digit() => {
            let rest: String = line
                .chars()
                .skip_while(|c| c.is_ascii_digit())
                .take(2)
                .collect();
            rest.starts_with(". ") || rest.starts_with(") ")
        }
        _ => line.starts_with("Figure ") || line.starts_with("Table "),
    }
}

/// Rebuilds paragraphs from the pages of one chapter: `(page ordinal, text)` in order.
/// Returns each text paragraph's kind and sentences, and the chapter's section contexts (the
/// sentences' `context` indexes them). Headings are left out of the paragraphs: they are the
/// contexts.
fn sentences_by_paragraph(pages: &[(usize, &str)]) -> (Vec<Paragraph>, Vec<String>) {
    struct Para {
        text: String,
        starts: Vec<(usize, usize)>,
        lines: usize,
    }
    let mut paras: Vec<Para> = Vec::new();
    let mut cur: Option<Para> = None;
    for (page, text) in pages {
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        let mut lens: Vec<usize> = lines.iter().map(|l| l.chars().count()).collect();
        lens.sort_unstable();
        let full = if lens.len() >= 5 {
            lens[lens.len() * 9 / 10]
        } else {
            lens.last().copied().unwrap_or(0)
        };
        for (i, line) in lines.iter().enumerate() {
            // A list item or caption starts a paragraph; a capitalised line after a list item
            // that did not wrap mid-phrase starts the next one.
            let after_item = cur.as_ref().is_some_and(|p| {
                is_list_start(&p.text)
                    && !p.text.ends_with([',', '-', ';'])
                    && line.chars().next().is_some_and(char::is_uppercase)
            });
            if is_list_start(line) || after_item {
                if let Some(p) = cur.take() {
                    paras.push(p);
                }
            }
            let p = cur.get_or_insert_with(|| Para {
                text: String::new(),
                starts: vec![(0, *page)],
                lines: 0,
            });
            p.lines += 1;
            if !p.text.is_empty() {
                let hyphen_join = p.text.ends_with('-')
                    && p.text[..p.text.len() - 1]
                        .chars()
                        .last()
                        .is_some_and(char::is_alphabetic)
                    && line.chars().next().is_some_and(char::is_lowercase);
                if hyphen_join {
                    p.text.pop();
                } else {
                    p.text.push(' ');
                }
            }
            if p.starts.last().map(|s| s.1) != Some(*page) {
                p.starts.push((p.text.len(), *page));
            }
            p.text.push_str(line);
            let len = line.chars().count();
            let short = (len as f64) < 0.7 * full as f64;
            let last_on_page = i + 1 == lines.len();
            let hyphenated =
                line.ends_with('-') && line.chars().rev().nth(1).is_some_and(char::is_alphabetic);
            // The last line of a page ends its paragraph only when it ends a sentence.
            if short && !hyphenated && (!last_on_page || ends_sentence(line)) {
                paras.push(cur.take().expect("just inserted"));
            }
        }
    }
    if let Some(p) = cur.take() {
        paras.push(p);
    }
    let mut classifier = Classifier::new();
    let mut contexts: Vec<String> = vec![String::new()];
    let mut order = 0;
    let mut out = Vec::new();
    // A chapter made of short lines only (a title page, a one-line test file) has nothing but
    // "headings": then they are its text.
    let next = |i: usize| paras.get(i + 1).map(|p: &Para| p.text.as_str());
    let classified: Vec<Classified> = (0..paras.len())
        .map(|i| classifier.classify_before(&paras[i].text, paras[i].lines == 1, next(i)))
        .collect();
    let all_headings = classified.iter().all(|c| *c == Classified::Heading);
    let mut classifier = Classifier::new();
    for (i, p) in paras.iter().enumerate() {
        let kind = match classifier.classify_before(&p.text, p.lines == 1, next(i)) {
            Classified::Heading if !all_headings => {
                let c = classifier.context();
                if contexts.last() != Some(&c) {
                    contexts.push(c);
                }
                continue;
            }
            Classified::Heading => BlockKind::Body,
            Classified::Text(kind) => kind,
        };
        let context = contexts.len() - 1;
        let sentences: Vec<Sentence> = split_sentences(&p.text)
            .into_iter()
            .map(|s| {
                let text = s.slice(&p.text).to_string();
                order += 1;
                Sentence {
                    tokens: estimate_tokens(&text),
                    page: page_at(&p.starts, s.start),
                    text,
                    context,
                    order,
                }
            })
            .collect();
        if !sentences.is_empty() {
            out.push(Paragraph { kind, sentences });
        }
    }
    (out, contexts)
}

fn ends_sentence(line: &str) -> bool {
    line.trim_end()
        .chars()
        .last()
        .is_some_and(|c| matches!(c, '.' | '?' | '!' | ':' | '।' | '॥' | '"' | '”' | ')'))
}

/// Cuts a sentence longer than [`MAX_TOKENS`] at word boundaries into pieces of about
/// `(MIN_TOKENS + MAX_TOKENS) / 2` tokens.
fn split_long_sentence(s: Sentence) -> Vec<Sentence> {
    if s.tokens <= MAX_TOKENS {
        return vec![s];
    }
    let target = (MIN_TOKENS + MAX_TOKENS) / 2;
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in s.text.split_whitespace() {
        if !cur.is_empty() && estimate_tokens(&cur) + 2 > target {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter()
        .map(|text| Sentence {
            tokens: estimate_tokens(&text),
            page: s.page,
            text,
            context: s.context,
            order: s.order,
        })
        .collect()
}

#[derive(Default)]
struct Builder {
    sentences: Vec<(Sentence, bool)>, // (sentence, starts a new paragraph)
    tokens: usize,
    fresh: bool,    // holds at least one sentence that is not overlap
    overlap: usize, // leading sentences repeated from the previous chunk
}

impl Builder {
    fn push(&mut self, s: Sentence, new_para: bool) {
        self.tokens += s.tokens;
        self.sentences.push((s, new_para));
        self.fresh = true;
    }

    fn emit(&mut self, out: &mut Vec<ChunkDraft>, kind: BlockKind, contexts: &[String]) {
        if !self.fresh || self.sentences.is_empty() {
            return;
        }
        // The section of the first sentence that is not the previous chunk's overlap.
        let first_new = self
            .sentences
            .iter()
            .map(|(s, _)| s)
            .nth(self.overlap)
            .or(self.sentences.first().map(|(s, _)| s))
            .expect("not empty");
        let (context, order) = (contexts[first_new.context].clone(), first_new.order);
        let mut text = String::new();
        let mut starts: Vec<(usize, usize)> = Vec::new();
        for (i, (s, new_para)) in self.sentences.iter().enumerate() {
            if i > 0 {
                text.push(if *new_para { '\n' } else { ' ' });
            }
            if starts.last().map(|x| x.1) != Some(s.page) {
                starts.push((text.len(), s.page));
            }
            text.push_str(&s.text);
        }
        out.push(ChunkDraft {
            token_count: estimate_tokens(&text),
            text,
            page_starts: starts,
            kind,
            context,
            order,
        });
        let last = self.sentences.pop().map(|x| x.0);
        self.sentences.clear();
        self.tokens = 0;
        self.fresh = false;
        self.overlap = 0;
        if let Some(last) = last.filter(|l| l.tokens <= OVERLAP_MAX_TOKENS) {
            self.tokens = last.tokens;
            self.sentences.push((last, true));
            self.overlap = 1;
        }
    }
}

/// Chunks one chapter. `pages` are `(page ordinal, page text)` in reading order. Chunks come
/// back in reading order of their first sentence; each holds one [`BlockKind`].
pub fn chunk_chapter(pages: &[(usize, &str)]) -> Vec<ChunkDraft> {
    let (paragraphs, contexts) = sentences_by_paragraph(pages);
    // One builder (and one output stream) per kind of text.
    let mut streams: Vec<(BlockKind, Builder, Vec<ChunkDraft>)> = Vec::new();
    for para in paragraphs {
        let at = match streams.iter().position(|(k, _, _)| *k == para.kind) {
            Some(i) => i,
            None => {
                streams.push((para.kind, Builder::default(), Vec::new()));
                streams.len() - 1
            }
        };
        let (kind, b, out) = &mut streams[at];
        for (i, s) in para
            .sentences
            .into_iter()
            .flat_map(split_long_sentence)
            .enumerate()
        {
            if b.fresh && b.tokens + s.tokens > MAX_TOKENS {
                b.emit(out, *kind, &contexts);
            }
            b.push(s, i == 0);
        }
        if b.tokens >= MIN_TOKENS {
            b.emit(out, *kind, &contexts);
        }
    }
    let mut all = Vec::new();
    for (kind, mut b, mut out) in streams {
        b.emit(&mut out, kind, &contexts);
        all.extend(merge_small(out));
    }
    all.sort_by_key(|c| c.order);
    all
}

fn merge_small(chunks: Vec<ChunkDraft>) -> Vec<ChunkDraft> {
    let mut out: Vec<ChunkDraft> = Vec::with_capacity(chunks.len());
    let mut carry: Option<ChunkDraft> = None;
    for mut c in chunks {
        if let Some(prev) = carry.take() {
            c = join(prev, c);
        }
        if c.text.chars().count() >= MIN_CHARS {
            out.push(c);
        } else if let Some(last) = out.last_mut() {
            let prev = std::mem::take(last);
            *last = join(prev, c);
        } else {
            carry = Some(c);
        }
    }
    out.extend(carry);
    out
}

/// Appends `b` to `a`, dropping `b`'s first sentence when it is `a`'s overlap sentence.
fn join(a: ChunkDraft, b: ChunkDraft) -> ChunkDraft {
    let a_meta = ChunkDraft {
        kind: a.kind,
        context: a.context.clone(),
        order: a.order,
        ..ChunkDraft::default()
    };
    let mut skip = 0;
    if let Some(first) = split_sentences(&b.text).first() {
        if a.text.ends_with(first.slice(&b.text)) {
            skip = first.end;
        }
    }
    let rest_start = skip + (b.text[skip..].len() - b.text[skip..].trim_start().len());
    let rest = &b.text[rest_start..];
    let mut text = a.text;
    let mut starts = a.page_starts;
    if !rest.is_empty() {
        if !text.is_empty() {
            text.push('\n');
        }
        let base = text.len();
        let first_page = page_at(&b.page_starts, rest_start);
        if starts.last().map(|x| x.1) != Some(first_page) {
            starts.push((base, first_page));
        }
        for &(off, page) in &b.page_starts {
            if off > rest_start && starts.last().map(|x| x.1) != Some(page) {
                starts.push((base + off - rest_start, page));
            }
        }
        text.push_str(rest);
    }
    ChunkDraft {
        token_count: estimate_tokens(&text),
        text,
        page_starts: starts,
        ..a_meta
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn para(n: usize, topic: &str) -> String {
        // n sentences of ~12 words, wrapped at ~80 characters like a PDF.
        let text: String = (0..n)
            .map(|i| format!("Sentence {i} explains how {topic} works in green plants and in every living cell today. "))
            .collect();
        let mut out = String::new();
        let mut line = String::new();
        for w in text.split_whitespace() {
            if line.len() + w.len() > 80 {
                out.push_str(&line);
                out.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(w);
        }
        out.push_str(&line);
        out.push('\n');
        out
    }

    #[test]
    fn sizes_overlap_and_pages() {
        let p0 = format!("{}{}", para(12, "photosynthesis"), para(12, "respiration"));
        let p1 = format!("{}{}", para(12, "chlorophyll"), para(3, "stomata"));
        let chunks = chunk_chapter(&[(4, &p0), (5, &p1)]);
        assert!(chunks.len() >= 2, "{chunks:#?}");
        for c in &chunks {
            assert!(
                c.token_count <= MAX_TOKENS + OVERLAP_MAX_TOKENS,
                "{}",
                c.token_count
            );
            assert!(c.text.chars().count() >= MIN_CHARS);
            assert!(c.first_page() >= 4 && c.last_page() <= 5);
        }
        assert_eq!(chunks.first().unwrap().first_page(), 4);
        assert_eq!(chunks.last().unwrap().last_page(), 5);
        // Overlap: each chunk after the first starts with the previous chunk's last sentence.
        for w in chunks.windows(2) {
            let last = split_sentences(&w[0].text)
                .last()
                .unwrap()
                .slice(&w[0].text)
                .to_string();
            assert!(
                w[1].text.starts_with(&last),
                "no overlap between\n{}\n---\n{}",
                w[0].text,
                w[1].text
            );
        }
        // Every sentence's page is right: "stomata" sentences are on page 5.
        for c in &chunks {
            if let Some(pos) = c.text.find("stomata") {
                assert_eq!(page_at(&c.page_starts, pos), 5);
            }
            if let Some(pos) = c.text.find("respiration") {
                assert_eq!(page_at(&c.page_starts, pos), 4);
            }
        }
    }

    #[test]
    fn hyphenated_words_rejoin_and_short_pieces_merge() {
        let page = "The chloro-\nplast is where light energy is captured by pigments inside the leaf cells of plants.\nShort.";
        let chunks = chunk_chapter(&[(0, page)]);
        assert_eq!(chunks.len(), 1);
        assert!(chunks[0].text.contains("chloroplast"), "{}", chunks[0].text);
        assert!(chunks[0].text.contains("Short."));
    }

    #[test]
    fn a_huge_sentence_is_cut() {
        let words: String = (0..2000).map(|i| format!("w{i} ")).collect();
        let chunks = chunk_chapter(&[(0, &words)]);
        assert!(chunks.len() > 3);
        assert!(chunks
            .iter()
            .all(|c| c.token_count <= MAX_TOKENS + OVERLAP_MAX_TOKENS));
    }

    #[test]
    fn a_text_of_headings_only_is_kept_as_text() {
        let chunks = chunk_chapter(&[(0, "Reduced test-case")]);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].text, "Reduced test-case");
    }

    #[test]
    fn danda_sentences() {
        let page = "प्रकाश संश्लेषण वह प्रक्रिया है जिसमें हरे पौधे सूर्य के प्रकाश की उपस्थिति में भोजन बनाते हैं। इसमें क्लोरोफिल की आवश्यकता होती है। पत्तियाँ इसका मुख्य स्थान हैं।";
        let chunks = chunk_chapter(&[(0, page)]);
        assert_eq!(chunks.len(), 1);
        assert_eq!(split_sentences(&chunks[0].text).len(), 3);
    }
}
