//! Printed page labels and running headers/footers.
//!
//! A citation must name the page number printed in the book, which rarely equals the PDF page
//! index (front matter, one PDF per chapter). Labels come, in order of trust, from the PDF's
//! `/PageLabels` tree (ISO 32000-1 §12.4.2), else from page numbers printed in the header or
//! footer when they form a consistent sequence, else the 1-based page index.

use std::collections::HashMap;

/// Page texts with running headers/footers removed.
#[derive(Debug, Clone)]
pub struct Cleaned {
    /// One text per page, without the running lines.
    pub pages: Vec<String>,
    /// The most frequent running header text (digits kept), e.g. "Biology 2e — Chapter 8:
    /// Photosynthesis"; `None` when the document has none.
    pub header: Option<String>,
}

/// Lines within this many non-empty lines of a page's top or bottom may be headers/footers.
const EDGE_LINES: usize = 2;

fn edge_lines(page: &str) -> Vec<(usize, &str)> {
    let lines: Vec<(usize, &str)> = page
        .lines()
        .enumerate()
        .map(|(i, l)| (i, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .collect();
    let n = lines.len();
    // On a short page the second line from each edge is body text, not a header.
    let edge = if n > 2 * EDGE_LINES + 1 {
        EDGE_LINES
    } else {
        1
    };
    lines
        .into_iter()
        .enumerate()
        .filter(|(k, _)| *k < edge || *k + edge >= n)
        .map(|(_, x)| x)
        .collect()
}

fn digit_value(c: char) -> Option<u32> {
    // ASCII and the Devanagari, Tamil, Telugu and Kannada digit blocks (each 10 consecutive
    // code points starting at zero).
    for zero in ['0', '\u{0966}', '\u{0BE6}', '\u{0C66}', '\u{0CE6}'] {
        let d = (c as u32).wrapping_sub(zero as u32);
        if d < 10 {
            return Some(d);
        }
    }
    None
}

/// Parses a header/footer line that is only a page number: "154", "- 154 -", "Page 154",
/// "Page 154 of 300", "पृष्ठ १५४", "१५४". Returns the number.
pub fn parse_page_number(line: &str) -> Option<u32> {
    let l = line
        .trim()
        .trim_matches(|c: char| c == '-' || c == '–' || c == '|' || c.is_whitespace());
    let lower = l.to_lowercase();
    let rest = ["page ", "p. ", "पृष्ठ ", "पान "]
        .iter()
        .find_map(|p| lower.strip_prefix(p))
        .unwrap_or(&lower);
    let rest = match rest.split_once(" of ") {
        Some((a, _)) => a,
        None => rest,
    };
    let rest = rest.trim();
    if rest.is_empty() || rest.chars().count() > 4 {
        return None;
    }
    let mut n = 0u32;
    for c in rest.chars() {
        n = n * 10 + digit_value(c)?;
    }
    (n > 0).then_some(n)
}

/// Assigns a printed label to every page. `pdf_labels[i]` is the `/PageLabels` label of page
/// `i` when the file has one. Returns one label per page.
pub fn assign(pages: &[String], pdf_labels: &[Option<String>]) -> Vec<String> {
    let n = pages.len();
    if pdf_labels.iter().any(Option::is_some) {
        return (0..n)
            .map(|i| {
                pdf_labels
                    .get(i)
                    .cloned()
                    .flatten()
                    .unwrap_or_else(|| (i + 1).to_string())
            })
            .collect();
    }
    if let Some(offset) = printed_offset(pages) {
        return (0..n)
            .map(|i| {
                let printed = i as i64 + 1 + offset;
                if printed >= 1 {
                    printed.to_string()
                } else {
                    (i + 1).to_string()
                }
            })
            .collect();
    }
    (1..=n).map(|i| i.to_string()).collect()
}

/// The offset `printed number − page index (1-based)` shared by at least half of the pages,
/// when page numbers are printed consistently; `None` otherwise.
fn printed_offset(pages: &[String]) -> Option<i64> {
    let mut votes: HashMap<i64, usize> = HashMap::new();
    for (i, page) in pages.iter().enumerate() {
        let mut seen = Vec::new();
        for (_, line) in edge_lines(page) {
            if let Some(num) = parse_page_number(line) {
                let off = num as i64 - (i as i64 + 1);
                if !seen.contains(&off) {
                    seen.push(off);
                    *votes.entry(off).or_default() += 1;
                }
            }
        }
    }
    let (offset, count) = votes.into_iter().max_by_key(|(off, c)| (*c, -off.abs()))?;
    let enough = if pages.len() == 1 {
        count == 1
    } else {
        count >= 2 && count * 2 >= pages.len()
    };
    enough.then_some(offset)
}

fn line_key(line: &str) -> String {
    let mut key = String::with_capacity(line.len());
    let mut last_hash = false;
    for c in line.trim().chars() {
        if digit_value(c).is_some() {
            if !last_hash {
                key.push('#');
            }
            last_hash = true;
        } else {
            last_hash = false;
            key.extend(c.to_lowercase());
        }
    }
    key
}

/// Removes running headers and footers: lines among the first or last two of a page whose
/// text (digits masked) repeats at the page edge on at least half of the pages (and at least 3).
pub fn strip_running_lines(pages: &[String]) -> Cleaned {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for page in pages {
        let mut keys: Vec<String> = edge_lines(page)
            .into_iter()
            .map(|(_, l)| line_key(l))
            .collect();
        keys.sort();
        keys.dedup();
        for k in keys {
            *counts.entry(k).or_default() += 1;
        }
    }
    let threshold = pages.len().div_ceil(2).max(3);
    let running: std::collections::HashSet<&String> = counts
        .iter()
        .filter(|(_, c)| **c >= threshold)
        .map(|(k, _)| k)
        .collect();
    let mut header_counts: HashMap<String, usize> = HashMap::new();
    let cleaned = pages
        .iter()
        .map(|page| {
            let drop: Vec<usize> = edge_lines(page)
                .into_iter()
                .filter(|(_, l)| running.contains(&line_key(l)))
                .map(|(i, l)| {
                    if l.chars().any(char::is_alphabetic) {
                        *header_counts.entry(l.to_string()).or_default() += 1;
                    }
                    i
                })
                .collect();
            page.lines()
                .enumerate()
                .filter(|(i, _)| !drop.contains(i))
                .map(|(_, l)| l)
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    let header = header_counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(&a.0)))
        .map(|(h, _)| h);
    Cleaned {
        pages: cleaned,
        header,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: [&str; 6] = [
        "Leaves hold chlorophyll.",
        "Roots take up water.",
        "Stomata let gases in.",
        "Light splits water.",
        "Sugar is made.",
        "Plants grow.",
    ];

    fn book(first: u32, n: usize) -> Vec<String> {
        (0..n)
            .map(|i| {
                format!(
                    "Biology 2e — Chapter 8: Photosynthesis\n{}\nMore about page {i}.\nAnd more.\n{}\n{}",
                    BODY[i % BODY.len()],
                    BODY[(i + 3) % BODY.len()],
                    first as usize + i
                )
            })
            .collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(parse_page_number("154"), Some(154));
        assert_eq!(parse_page_number("- 12 -"), Some(12));
        assert_eq!(parse_page_number("Page 7 of 20"), Some(7));
        assert_eq!(parse_page_number("पृष्ठ १५४"), Some(154));
        assert_eq!(parse_page_number("೧೨"), Some(12));
        assert_eq!(parse_page_number("Figure 8.1"), None);
        assert_eq!(parse_page_number("12345"), None);
        assert_eq!(parse_page_number("0"), None);
    }

    #[test]
    fn footer_numbers_give_labels_and_are_stripped() {
        let pages = book(152, 6);
        let labels = assign(&pages, &vec![None; 6]);
        assert_eq!(labels, vec!["152", "153", "154", "155", "156", "157"]);
        let cleaned = strip_running_lines(&pages);
        assert_eq!(
            cleaned.header.as_deref(),
            Some("Biology 2e — Chapter 8: Photosynthesis")
        );
        assert_eq!(
            cleaned.pages[0],
            "Leaves hold chlorophyll.\nMore about page 0.\nAnd more.\nLight splits water."
        );
    }

    #[test]
    fn pdf_labels_win_and_inconsistent_numbers_fall_back_to_index() {
        let pages = book(152, 3);
        let pdf = vec![Some("xi".to_string()), Some("xii".to_string()), None];
        assert_eq!(assign(&pages, &pdf), vec!["xi", "xii", "3"]);
        let noisy: Vec<String> = ["a\n5", "b\n99", "c\n3", "d\n42"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(assign(&noisy, &vec![None; 4]), vec!["1", "2", "3", "4"]);
    }
}
