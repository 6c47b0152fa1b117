//! Tesseract's TSV output → the page's text (lines in reading order, a blank line between
//! paragraphs) and its words with boxes.
//!
//! The format (Tesseract 4+, `tsv` config): a header, then one row per layout element with
//! `level page_num block_num par_num line_num word_num left top width height conf text`;
//! level 5 rows are words, `conf` 0–100 (−1 on non-word rows), boxes in pixels of the input.

use super::{OcrWord, PageOcr};

/// Parses `tsv` of a picture `width` × `height` pixels. Words whose text is empty or blank are
/// dropped; the page's confidence is the mean word confidence weighted by characters.
pub fn parse(tsv: &str, width: u32, height: u32, language: &str) -> PageOcr {
    let (w, h) = (width.max(1) as f32, height.max(1) as f32);
    let mut text = String::new();
    let mut words = Vec::new();
    let mut last: Option<(u32, u32, u32)> = None;
    let (mut conf_sum, mut conf_chars) = (0f64, 0usize);
    for row in tsv.lines().skip(1) {
        let cols: Vec<&str> = row.splitn(12, '\t').collect();
        if cols.len() < 12 || cols[0] != "5" {
            continue;
        }
        let word = cols[11].trim();
        if word.is_empty() {
            continue;
        }
        let num = |i: usize| cols[i].parse::<f32>().unwrap_or(0.0);
        let key = (num(2) as u32, num(3) as u32, num(4) as u32);
        match last {
            Some((b, p, _)) if (b, p) != (key.0, key.1) => text.push_str("\n\n"),
            Some(l) if l != key => text.push('\n'),
            Some(_) => text.push(' '),
            None => {}
        }
        last = Some(key);
        text.push_str(word);
        let conf = num(10).clamp(0.0, 100.0);
        let chars = word.chars().count();
        conf_sum += conf as f64 * chars as f64;
        conf_chars += chars;
        let (left, top, bw, bh) = (num(6), num(7), num(8), num(9));
        words.push(OcrWord {
            text: word.to_string(),
            left: left / w,
            top: top / h,
            right: (left + bw) / w,
            bottom: (top + bh) / h,
            confidence: conf,
        });
    }
    PageOcr {
        text,
        words,
        confidence: if conf_chars == 0 {
            0.0
        } else {
            (conf_sum / conf_chars as f64) as f32
        },
        language: language.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TSV: &str = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
1\t1\t0\t0\t0\t0\t0\t0\t1000\t2000\t-1\t
5\t1\t1\t1\t1\t1\t100\t200\t100\t50\t90\tPlants
5\t1\t1\t1\t1\t2\t220\t200\t100\t50\t80\tmake
5\t1\t1\t1\t2\t1\t100\t260\t100\t50\t70\tfood.
5\t1\t2\t1\t1\t1\t100\t400\t100\t50\t-1\t 
5\t1\t2\t1\t1\t2\t100\t400\t100\t50\t60\t154
";

    #[test]
    fn lines_paragraphs_boxes_and_confidence() {
        let p = parse(TSV, 1000, 2000, "eng");
        assert_eq!(p.text, "Plants make\nfood.\n\n154");
        assert_eq!(p.words.len(), 4);
        assert_eq!(p.words[0].left, 0.1);
        assert_eq!(p.words[0].bottom, 0.125);
        // (90·6 + 80·4 + 70·5 + 60·3) / 18
        assert!((p.confidence - 77.222).abs() < 0.01, "{}", p.confidence);
        assert_eq!(p.language, "eng");
    }

    #[test]
    fn empty_or_odd_output_reads_as_no_text() {
        let p = parse("", 10, 10, "hin");
        assert!(p.text.is_empty() && p.words.is_empty() && p.confidence == 0.0);
        let p = parse("header\n5\t1\tbroken", 10, 10, "hin");
        assert!(p.words.is_empty());
    }
}
