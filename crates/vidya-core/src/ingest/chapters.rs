//! Book titles and chapters.
//!
//! Chapters come, in order: from the files (a folder of chapter PDFs, as NCERT publishes them),
//! else from the PDF outline (top-level bookmarks) or Markdown/DOCX top-level headings, else from
//! detected "Chapter N" / "अध्याय N" headings at the top of a page, else one chapter per file.

use super::source::ExtractedFile;

/// A chapter over the book's pages (0-based ordinals, inclusive).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChapterSpan {
    /// Title.
    pub title: String,
    /// First page ordinal.
    pub first_page: usize,
    /// Last page ordinal.
    pub last_page: usize,
}

const SEPARATORS: &[char] = &['-', '–', '—', ':', '|', ',', '·', ' '];

fn file_stem(f: &ExtractedFile) -> String {
    f.path
        .file_stem()
        .map(|s| s.to_string_lossy().replace(['_', '-'], " "))
        .unwrap_or_default()
}

/// Strips a trailing "Chapter"/"अध्याय" word and separators from a common title prefix.
fn clean_prefix(prefix: &str) -> String {
    let mut p = prefix.trim_end_matches(SEPARATORS).to_string();
    for word in ["chapter", "unit", "lesson", "अध्याय", "पाठ"] {
        if p.to_lowercase().ends_with(word) {
            p.truncate(p.len() - word.len());
            p = p.trim_end_matches(SEPARATORS).to_string();
        }
    }
    p
}

/// Longest common prefix of `titles`, cut back to a word boundary.
fn common_prefix(titles: &[&str]) -> String {
    let Some(first) = titles.first() else {
        return String::new();
    };
    let mut end = first.len();
    for t in &titles[1..] {
        end = first
            .char_indices()
            .zip(t.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map(|((i, a), _)| i + a.len_utf8())
            .unwrap_or(0)
            .min(end);
    }
    let mut prefix = &first[..end];
    if end < first.len() {
        // Cut back to the last separator so a half word never ends the title.
        prefix = prefix.rfind(SEPARATORS).map(|i| &prefix[..i]).unwrap_or("");
    }
    prefix.to_string()
}

/// The book title: `requested` when given; else, for several files, the common prefix of their
/// titles ("Biology 2e - Chapter 7…", "Biology 2e - Chapter 8…" → "Biology 2e") or the folder
/// name; for one file, its metadata title or file name.
pub fn book_title(
    requested: Option<&str>,
    files: &[ExtractedFile],
    folder: Option<&std::path::Path>,
) -> String {
    let t = book_title_raw(requested, files, folder);
    // Titles are shown in terminals and windows: no control characters.
    let clean: String = t.chars().filter(|c| !c.is_control()).collect();
    match clean.trim() {
        "" => "Untitled book".into(),
        c => c.to_string(),
    }
}

fn book_title_raw(
    requested: Option<&str>,
    files: &[ExtractedFile],
    folder: Option<&std::path::Path>,
) -> String {
    if let Some(t) = requested.map(str::trim).filter(|t| !t.is_empty()) {
        return t.to_string();
    }
    if files.len() > 1 {
        let titles: Vec<&str> = files
            .iter()
            .filter_map(|f| f.title.as_deref().or(f.running_header.as_deref()))
            .collect();
        if titles.len() == files.len() {
            let p = clean_prefix(&common_prefix(&titles));
            if p.chars().count() >= 3 {
                return p;
            }
        }
    }
    if let Some(folder) = folder {
        if let Some(name) = folder.file_name().map(|n| n.to_string_lossy().to_string()) {
            return name.replace(['_', '-'], " ");
        }
    }
    files
        .first()
        .and_then(|f| f.title.clone())
        .or_else(|| files.first().map(file_stem))
        .unwrap_or_else(|| "Untitled book".into())
}

/// The title of a chapter that is a whole file: its metadata title or running header without
/// the book title ("Biology 2e - Chapter 8: Photosynthesis" → "Chapter 8: Photosynthesis"),
/// else its first line, else its file name.
fn file_chapter_title(f: &ExtractedFile, book: &str) -> String {
    for t in [f.title.as_deref(), f.running_header.as_deref()]
        .into_iter()
        .flatten()
    {
        let rest = without_book(t, book);
        if !rest.is_empty() {
            return rest.to_string();
        }
    }
    f.pages
        .iter()
        .flat_map(|p| p.text.lines())
        .map(str::trim)
        .find(|l| !l.is_empty() && l.chars().count() <= 80)
        .map(String::from)
        .unwrap_or_else(|| file_stem(f))
}

/// `title` without the book's name (or its first words) at its start, so that a chapter never
/// repeats its book's name: "Biology 2e - Chapter 8: Photosynthesis" in the book "Biology 2e
/// (sample chapter)" is "Chapter 8: Photosynthesis". Empty when nothing is left.
fn without_book<'a>(title: &'a str, book: &str) -> &'a str {
    let book = book.trim();
    // The book title or its first words, longest first, where a dash or colon or a chapter
    // heading follows them in the chapter's title ("Science and Technology" keeps its words
    // in the book "Science").
    let cuts = book
        .char_indices()
        .filter(|(_, c)| c.is_whitespace())
        .map(|(i, _)| i)
        .chain([book.len()]);
    for cut in cuts.collect::<Vec<_>>().into_iter().rev() {
        let words = book[..cut].trim_end();
        if words.chars().count() < 3 {
            break;
        }
        if let Some(rest) = title.strip_prefix(words) {
            let next = rest.trim_start();
            if next.is_empty()
                || next.starts_with(['-', '–', '—', ':', '|', '·', ','])
                || is_chapter_heading(next)
            {
                return rest.trim_start_matches(SEPARATORS).trim();
            }
        }
    }
    title.trim()
}

fn is_chapter_heading(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    line.chars().count() <= 80
        && ["chapter ", "unit ", "lesson ", "अध्याय ", "पाठ ", "प्रकरण "]
            .iter()
            .any(|p| lower.starts_with(p))
}

/// Splits the book's pages into chapters. `files` are in book order; page ordinals run across
/// files.
pub fn chapters(files: &[ExtractedFile], book: &str) -> Vec<ChapterSpan> {
    let mut spans = Vec::new();
    if files.len() > 1 {
        let mut start = 0;
        for f in files {
            if f.pages.is_empty() {
                continue;
            }
            spans.push(ChapterSpan {
                title: file_chapter_title(f, book),
                first_page: start,
                last_page: start + f.pages.len() - 1,
            });
            start += f.pages.len();
        }
        return spans;
    }
    let Some(f) = files.first() else {
        return spans;
    };
    let n = f.pages.len();
    if n == 0 {
        return spans;
    }
    let mut starts: Vec<(usize, String)> = f
        .outline
        .iter()
        .map(|o| (o.page, o.title.clone()))
        .collect();
    if starts.len() < 2 {
        starts = f
            .pages
            .iter()
            .enumerate()
            .filter_map(|(i, p)| {
                let first = p.text.lines().map(str::trim).find(|l| !l.is_empty())?;
                is_chapter_heading(first).then(|| (i, first.to_string()))
            })
            .collect();
    }
    starts.sort_by_key(|s| s.0);
    starts.dedup_by_key(|s| s.0);
    if starts.len() < 2 {
        // One chapter: its own title without the book's name, else its heading, else the
        // book's title.
        let own = [f.title.as_deref(), f.running_header.as_deref()]
            .into_iter()
            .flatten()
            .map(|t| without_book(t, book))
            .find(|t| !t.is_empty())
            .map(str::to_string);
        let heading = starts.first().map(|s| s.1.clone());
        return vec![ChapterSpan {
            title: own.or(heading).unwrap_or_else(|| book.to_string()),
            first_page: 0,
            last_page: n - 1,
        }];
    }
    if starts[0].0 > 0 {
        starts.insert(0, (0, "Front matter".into()));
    }
    for (i, (page, title)) in starts.iter().enumerate() {
        let last = starts.get(i + 1).map(|s| s.0 - 1).unwrap_or(n - 1);
        spans.push(ChapterSpan {
            title: title.clone(),
            first_page: *page,
            last_page: last,
        });
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::source::OutlineEntry;

    fn file(name: &str, title: Option<&str>, pages: &[&str]) -> ExtractedFile {
        crate::ingest::source::test_file(name, title, pages)
    }

    #[test]
    fn folder_of_chapters() {
        let files = vec![
            file(
                "ch07.pdf",
                Some("Biology 2e - Chapter 7: Cellular Respiration"),
                &["a", "b"],
            ),
            file(
                "ch08.pdf",
                Some("Biology 2e - Chapter 8: Photosynthesis"),
                &["c"],
            ),
        ];
        let title = book_title(None, &files, Some(std::path::Path::new("/x/pdf")));
        assert_eq!(title, "Biology 2e");
        let ch = chapters(&files, &title);
        assert_eq!(
            ch[0],
            ChapterSpan {
                title: "Chapter 7: Cellular Respiration".into(),
                first_page: 0,
                last_page: 1
            }
        );
        assert_eq!(
            ch[1],
            ChapterSpan {
                title: "Chapter 8: Photosynthesis".into(),
                first_page: 2,
                last_page: 2
            }
        );
        assert_eq!(book_title(Some("My Book"), &files, None), "My Book");
    }

    #[test]
    fn outline_then_headings_then_one() {
        let mut f = file(
            "b.pdf",
            Some("Science"),
            &[
                "Preface",
                "Chapter 1 Food",
                "more",
                "Chapter 2 Water",
                "end",
            ],
        );
        let ch = chapters(std::slice::from_ref(&f), "Science");
        let titles: Vec<_> = ch
            .iter()
            .map(|c| (c.title.as_str(), c.first_page, c.last_page))
            .collect();
        assert_eq!(
            titles,
            vec![
                ("Front matter", 0, 0),
                ("Chapter 1 Food", 1, 2),
                ("Chapter 2 Water", 3, 4)
            ]
        );
        f.outline = vec![
            OutlineEntry {
                title: "Part A".into(),
                page: 0,
            },
            OutlineEntry {
                title: "Part B".into(),
                page: 2,
            },
        ];
        let ch = chapters(std::slice::from_ref(&f), "Science");
        assert_eq!(ch.len(), 2);
        assert_eq!(ch[1].title, "Part B");
        let plain = file("c.pdf", None, &["text", "text"]);
        assert_eq!(chapters(&[plain], "C").len(), 1);
    }

    #[test]
    fn one_chapter_never_repeats_the_book_title() {
        let f = file(
            "ch08.pdf",
            Some("Biology 2e - Chapter 8: Photosynthesis"),
            &["text", "text"],
        );
        let ch = chapters(std::slice::from_ref(&f), "Biology 2e (sample chapter)");
        assert_eq!(ch[0].title, "Chapter 8: Photosynthesis");
        let ch = chapters(std::slice::from_ref(&f), "Biology 2e");
        assert_eq!(ch[0].title, "Chapter 8: Photosynthesis");
        // A title that only begins with the book's first word keeps its words.
        let f = file("s.pdf", Some("Science and Technology"), &["text"]);
        assert_eq!(chapters(&[f], "Science")[0].title, "Science and Technology");
        // The title is the book's own name: the page's chapter heading names the chapter.
        let f = file("p.pdf", Some("Physics"), &["Chapter 5 Motion", "text"]);
        assert_eq!(chapters(&[f], "Physics")[0].title, "Chapter 5 Motion");
    }
}
