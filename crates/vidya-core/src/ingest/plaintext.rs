//! Plain text and Markdown: a "page" is a heading section (or a form-feed page in text files).

use super::source::{ExtractedFile, ExtractedPage, OutlineEntry};
use crate::error::{Result, VidyaError};
use std::path::Path;

/// Text files larger than this are refused (bytes): 64 MiB.
pub const MAX_TEXT_BYTES: u64 = 64 * 1024 * 1024;

/// A section longer than this many characters is split at blank lines into several pages.
const MAX_SECTION_CHARS: usize = 6000;

/// Extracts a TXT (`markdown = false`) or Markdown file.
///
/// Markdown: every ATX heading (`#`…`######`) starts a page; level-1 headings (or level 2 when
/// the file has a single level-1 title) become outline entries (chapters); the first level-1
/// heading is the title. TXT: form feeds (U+000C) separate pages; without them, lines such as
/// "Chapter 3 …" or "अध्याय 3 …" start chapters and pages. Sections longer than 6,000 characters
/// are split at blank lines. Errors: unreadable file, not UTF-8, too large, no text.
pub fn extract(
    path: &Path,
    markdown: bool,
    on_page: &mut dyn FnMut(usize, usize),
) -> Result<ExtractedFile> {
    super::source::check_size(path, MAX_TEXT_BYTES)?;
    let bytes = std::fs::read(path).map_err(|e| VidyaError::io(path, e))?;
    let raw = String::from_utf8(bytes).map_err(|_| VidyaError::Empty {
        path: path.to_path_buf(),
        why: "the file is not UTF-8 text; save it as UTF-8 (Notepad: Save As → Encoding: UTF-8)"
            .into(),
    })?;
    // Form feeds separate pages; normalisation drops control characters, so split first.
    let text = raw
        .split('\u{000C}')
        .map(crate::text::normalize)
        .collect::<Vec<_>>()
        .join("\u{000C}");
    let sections = if markdown {
        markdown_sections(&text)
            .into_iter()
            .map(|(h, body)| (h, strip_markdown_inline(&body)))
            .collect()
    } else {
        text_sections(&text)
    };
    Ok(assemble(path, sections, markdown, on_page))
}

/// Turns heading sections into pages and outline entries (shared with the DOCX extractor).
/// `title_from_h1`: the first level-1 heading becomes the document title.
pub(crate) fn assemble(
    path: &Path,
    sections: Vec<Section>,
    title_from_h1: bool,
    on_page: &mut dyn FnMut(usize, usize),
) -> ExtractedFile {
    let mut pages = Vec::new();
    let mut outline = Vec::new();
    let mut title = None;
    let top = top_level(&sections);
    for (heading, body) in sections {
        if let Some((level, h)) = &heading {
            if title_from_h1 && *level == 1 && title.is_none() {
                title = Some(h.clone());
            }
            if *level == top {
                outline.push(OutlineEntry {
                    title: h.clone(),
                    page: pages.len(),
                });
            }
        }
        let full = match &heading {
            Some((_, h)) => format!("{h}\n{body}"),
            None => body,
        };
        for piece in split_long(&full) {
            if !piece.trim().is_empty() {
                pages.push(piece);
            }
        }
    }
    let total = pages.len();
    let pages = pages
        .into_iter()
        .enumerate()
        .map(|(i, text)| {
            on_page(i + 1, total);
            ExtractedPage {
                pdf_page: (i + 1) as u32,
                label: (i + 1).to_string(),
                text,
                ocr: None,
            }
        })
        .collect();
    ExtractedFile {
        path: path.to_path_buf(),
        title,
        running_header: None,
        pages,
        outline,
        legacy_pages: vec![],
        ocr_pages: vec![],
        ocr_unavailable: None,
    }
}

/// A heading (level, text) and the body below it.
pub(crate) type Section = (Option<(usize, String)>, String);

fn markdown_sections(text: &str) -> Vec<Section> {
    let mut out: Vec<Section> = vec![(None, String::new())];
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
        }
        let hashes = t.chars().take_while(|c| *c == '#').count();
        if !in_fence && (1..=6).contains(&hashes) && t[hashes..].starts_with(' ') {
            let h = t[hashes..].trim().trim_end_matches('#').trim().to_string();
            out.push((Some((hashes, h)), String::new()));
        } else {
            let body = &mut out.last_mut().expect("starts non-empty").1;
            body.push_str(line);
            body.push('\n');
        }
    }
    out.retain(|(h, b)| h.is_some() || !b.trim().is_empty());
    out
}

/// Removes inline Markdown syntax a reader does not see: `**`/`__` emphasis, backticks, and
/// link/image syntax (`[text](url)` → `text`).
fn strip_markdown_inline(body: &str) -> String {
    static LINK: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let link =
        LINK.get_or_init(|| regex::Regex::new(r"!?\[([^\]]*)\]\([^)]*\)").expect("valid regex"));
    link.replace_all(body, "$1")
        .replace("**", "")
        .replace("__", "")
        .replace('`', "")
}

fn top_level(sections: &[Section]) -> usize {
    let ones = sections
        .iter()
        .filter(|(h, _)| matches!(h, Some((1, _))))
        .count();
    let twos = sections
        .iter()
        .filter(|(h, _)| matches!(h, Some((2, _))))
        .count();
    if ones <= 1 && twos > 0 {
        2
    } else {
        1
    }
}

fn is_chapter_line(line: &str) -> bool {
    let l = line.trim();
    let lower = l.to_lowercase();
    l.chars().count() <= 80
        && ["chapter ", "unit ", "lesson ", "अध्याय ", "पाठ ", "प्रकरण "]
            .iter()
            .any(|p| lower.starts_with(p))
}

fn text_sections(text: &str) -> Vec<Section> {
    if text.contains('\u{000C}') {
        return text
            .split('\u{000C}')
            .map(|p| (None, p.trim_matches('\n').to_string()))
            .filter(|(_, b)| !b.trim().is_empty())
            .collect();
    }
    let mut out: Vec<Section> = vec![(None, String::new())];
    for line in text.lines() {
        if is_chapter_line(line) {
            out.push((Some((1, line.trim().to_string())), String::new()));
        } else {
            let body = &mut out.last_mut().expect("starts non-empty").1;
            body.push_str(line);
            body.push('\n');
        }
    }
    out.retain(|(h, b)| h.is_some() || !b.trim().is_empty());
    out
}

fn split_long(text: &str) -> Vec<String> {
    if text.chars().count() <= MAX_SECTION_CHARS {
        return vec![text.trim().to_string()];
    }
    let mut out = Vec::new();
    let mut cur = String::new();
    for para in text.split("\n\n") {
        if !cur.is_empty() && cur.chars().count() + para.chars().count() > MAX_SECTION_CHARS {
            out.push(std::mem::take(&mut cur).trim().to_string());
        }
        cur.push_str(para);
        cur.push_str("\n\n");
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_headings_make_pages_and_chapters() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("book.md");
        std::fs::write(&p, "# Science Class 7\n\n## Nutrition in Plants\nPlants make food.\n\n### Photosynthesis\nLeaves use light.\n\n## Nutrition in Animals\nAnimals eat.\n```\n# not a heading\n```\n").unwrap();
        let f = extract(&p, true, &mut |_, _| {}).unwrap();
        assert_eq!(f.title.as_deref(), Some("Science Class 7"));
        let titles: Vec<_> = f.outline.iter().map(|o| o.title.as_str()).collect();
        assert_eq!(titles, vec!["Nutrition in Plants", "Nutrition in Animals"]);
        assert_eq!(f.pages.len(), 4);
        assert!(f.pages[3].text.contains("# not a heading"));
    }

    #[test]
    fn form_feeds_are_pages_and_markdown_marks_go() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("pages.txt");
        std::fs::write(&p, "first page text\u{000C}second page text\u{000C}third").unwrap();
        let f = extract(&p, false, &mut |_, _| {}).unwrap();
        assert_eq!(f.pages.len(), 3);
        assert_eq!(f.pages[1].text, "second page text");
        let md = dir.path().join("m.md");
        std::fs::write(
            &md,
            "# T\n\nThe **cell** uses `ATP`, see [figure 2](fig2.png).\n",
        )
        .unwrap();
        let f = extract(&md, true, &mut |_, _| {}).unwrap();
        assert!(
            f.pages[0].text.contains("The cell uses ATP, see figure 2."),
            "{}",
            f.pages[0].text
        );
    }

    #[test]
    fn text_chapters_and_bad_encoding() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("book.txt");
        std::fs::write(
            &p,
            "Chapter 1 Food\nWe eat food.\nChapter 2 Water\nWe drink water.\n",
        )
        .unwrap();
        let f = extract(&p, false, &mut |_, _| {}).unwrap();
        assert_eq!(f.outline.len(), 2);
        assert_eq!(f.pages.len(), 2);
        let bad = dir.path().join("latin1.txt");
        std::fs::write(&bad, [0x63, 0x61, 0x66, 0xE9]).unwrap();
        let e = extract(&bad, false, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("UTF-8"), "{e}");
    }
}
