//! Word documents (Office Open XML, ECMA-376): paragraphs from `word/document.xml`, headings
//! from the built-in `Heading1`…`Heading6` / `Title` paragraph styles, the title from
//! `docProps/core.xml`. A "page" is a heading section, as for Markdown.

use super::plaintext::{assemble, Section};
use super::source::ExtractedFile;
use crate::error::{Result, VidyaError};
use quick_xml::events::Event;
use quick_xml::Reader;
use std::io::Read;
use std::path::Path;

/// Largest unpacked XML part read from a DOCX (bytes): 64 MiB.
pub const MAX_XML_BYTES: u64 = 64 * 1024 * 1024;

/// Deepest paragraph nesting followed (text boxes hold paragraphs inside paragraphs).
const MAX_NESTING: usize = 64;

/// DOCX files larger than this are refused (bytes): 256 MiB.
pub const MAX_DOCX_BYTES: u64 = 256 * 1024 * 1024;

/// Extracts a .docx file. Errors: not a valid DOCX (zip/XML), too large, unreadable.
pub fn extract(path: &Path, on_page: &mut dyn FnMut(usize, usize)) -> Result<ExtractedFile> {
    super::source::check_size(path, MAX_DOCX_BYTES)?;
    let bad = |why: String| VidyaError::Corrupt {
        path: path.to_path_buf(),
        detail: why,
    };
    let file = std::fs::File::open(path).map_err(|e| VidyaError::io(path, e))?;
    let mut zip =
        zip::ZipArchive::new(file).map_err(|e| bad(format!("not a Word .docx file ({e})")))?;
    let document = read_member(&mut zip, "word/document.xml")
        .map_err(|e| bad(format!("no document body ({e})")))?;
    let core_title = read_member(&mut zip, "docProps/core.xml")
        .ok()
        .and_then(|x| core_title(&x));
    let sections =
        paragraphs_to_sections(&document).map_err(|e| bad(format!("damaged XML ({e})")))?;
    let mut f = assemble(path, sections, core_title.is_none(), on_page);
    if core_title.is_some() {
        f.title = core_title;
    }
    Ok(f)
}

fn read_member<R: std::io::Read + std::io::Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
) -> std::result::Result<String, String> {
    let m = zip.by_name(name).map_err(|e| e.to_string())?;
    // A small .docx can unpack to gigabytes (a "zip bomb"): never read past the limit,
    // whatever the header claims.
    let mut s = String::new();
    m.take(MAX_XML_BYTES + 1)
        .read_to_string(&mut s)
        .map_err(|e| e.to_string())?;
    if s.len() as u64 > MAX_XML_BYTES {
        return Err(format!(
            "{name} unpacks to more than {} MB",
            MAX_XML_BYTES / (1024 * 1024)
        ));
    }
    Ok(s)
}

fn core_title(xml: &str) -> Option<String> {
    let mut r = Reader::from_str(xml);
    let mut in_title = false;
    loop {
        match r.read_event().ok()? {
            Event::Start(e) if e.local_name().as_ref() == b"title" => in_title = true,
            Event::Text(t) if in_title => {
                let s = t.decode().ok()?.trim().to_string();
                return (!s.is_empty()).then_some(s);
            }
            Event::End(_) => in_title = false,
            Event::Eof => return None,
            _ => {}
        }
    }
}

fn heading_level(style: &str) -> Option<usize> {
    let s = style.to_ascii_lowercase();
    if s == "title" {
        return Some(1);
    }
    let n = s.strip_prefix("heading")?;
    n.trim()
        .parse::<usize>()
        .ok()
        .filter(|l| (1..=6).contains(l))
}

fn paragraphs_to_sections(xml: &str) -> std::result::Result<Vec<Section>, quick_xml::Error> {
    let mut r = Reader::from_str(xml);
    let mut sections: Vec<Section> = vec![(None, String::new())];
    // Paragraphs can nest (a text box inside a paragraph): one buffer per open paragraph.
    let mut stack: Vec<(String, Option<usize>)> = Vec::new();
    let mut overflow = 0usize;
    let mut in_text = false;
    let emit = |text: &str, level: Option<usize>, sections: &mut Vec<Section>| {
        let text = text.trim();
        match level {
            Some(l) if !text.is_empty() => {
                sections.push((Some((l, text.to_string())), String::new()))
            }
            _ if !text.is_empty() => {
                let body = &mut sections.last_mut().expect("starts non-empty").1;
                body.push_str(text);
                body.push_str("\n\n");
            }
            _ => {}
        }
    };
    loop {
        let event = r.read_event()?;
        let empty = matches!(event, Event::Empty(_));
        match event {
            Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                b"p" if !empty => {
                    if stack.len() >= MAX_NESTING {
                        overflow += 1;
                    } else {
                        stack.push((String::new(), None));
                    }
                }
                b"pStyle" => {
                    for a in e.attributes().flatten() {
                        if a.key.local_name().as_ref() == b"val" {
                            if let Some(top) = stack.last_mut() {
                                top.1 = heading_level(&String::from_utf8_lossy(&a.value));
                            }
                        }
                    }
                }
                b"t" if !empty => in_text = true,
                b"tab" => push(&mut stack, "\t"),
                b"br" | b"cr" => push(&mut stack, "\n"),
                _ => {}
            },
            Event::Text(t) if in_text => {
                push(&mut stack, &t.decode().map_err(quick_xml::Error::from)?)
            }
            Event::GeneralRef(g) if in_text => {
                if let Ok(Some(c)) = g.resolve_char_ref() {
                    push(&mut stack, c.encode_utf8(&mut [0u8; 4]));
                } else {
                    let name = String::from_utf8_lossy(&g);
                    push(
                        &mut stack,
                        match name.as_ref() {
                            "amp" => "&",
                            "lt" => "<",
                            "gt" => ">",
                            "quot" => "\"",
                            "apos" => "'",
                            _ => "",
                        },
                    );
                }
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"t" => in_text = false,
                b"p" if overflow > 0 => overflow -= 1,
                b"p" => {
                    if let Some((text, level)) = stack.pop() {
                        emit(&text, level, &mut sections);
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    while let Some((text, level)) = stack.pop() {
        emit(&text, level, &mut sections);
    }
    sections.retain(|(h, b)| h.is_some() || !b.trim().is_empty());
    Ok(sections)
}

fn push(stack: &mut [(String, Option<usize>)], text: &str) {
    if let Some(top) = stack.last_mut() {
        top.0.push_str(text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn make_docx(path: &Path) {
        let f = std::fs::File::create(path).unwrap();
        let mut z = zip::ZipWriter::new(f);
        let o: zip::write::SimpleFileOptions = Default::default();
        z.start_file("docProps/core.xml", o).unwrap();
        z.write_all(br#"<?xml version="1.0"?><cp:coreProperties xmlns:cp="x" xmlns:dc="y"><dc:title>Science 7</dc:title></cp:coreProperties>"#).unwrap();
        z.start_file("word/document.xml", o).unwrap();
        z.write_all(r#"<?xml version="1.0"?><w:document xmlns:w="w"><w:body>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>Nutrition in Plants</w:t></w:r></w:p>
<w:p><w:r><w:t xml:space="preserve">Plants make food &amp; oxygen </w:t></w:r><w:r><w:t>by photosynthesis.</w:t></w:r></w:p>
<w:p><w:pPr><w:pStyle w:val="Heading1"/></w:pPr><w:r><w:t>पौधों में पोषण</w:t></w:r></w:p>
<w:p><w:r><w:t>पौधे भोजन बनाते हैं।</w:t></w:r></w:p>
</w:body></w:document>"#.as_bytes()).unwrap();
        z.finish().unwrap();
    }

    #[test]
    fn docx_paragraphs_headings_title() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("book.docx");
        make_docx(&p);
        let f = extract(&p, &mut |_, _| {}).unwrap();
        assert_eq!(f.title.as_deref(), Some("Science 7"));
        assert_eq!(f.outline.len(), 2);
        assert!(
            f.pages[0]
                .text
                .contains("Plants make food & oxygen by photosynthesis."),
            "{:?}",
            f.pages[0].text
        );
        assert!(f.pages[1].text.contains("पौधे भोजन बनाते हैं।"));
    }

    #[test]
    fn text_boxes_keep_every_sentence_once() {
        let xml = r#"<w:document xmlns:w="w"><w:body><w:p><w:r><w:t>Outer sentence about the nucleus.</w:t></w:r><w:r><w:txbxContent><w:p><w:r><w:t>Box sentence about ribosomes.</w:t></w:r></w:p></w:txbxContent></w:r><w:r><w:t xml:space="preserve"> Outer tail about vacuoles.</w:t></w:r></w:p><w:p/></w:body></w:document>"#;
        let sections = paragraphs_to_sections(xml).unwrap();
        let all: String = sections.iter().map(|s| s.1.clone()).collect();
        assert_eq!(
            all.matches("Box sentence about ribosomes.").count(),
            1,
            "{all}"
        );
        assert!(
            all.contains("Outer sentence about the nucleus. Outer tail about vacuoles."),
            "{all}"
        );
    }

    #[test]
    fn not_a_docx() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("fake.docx");
        std::fs::write(&p, b"this is not a zip").unwrap();
        let e = extract(&p, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("docx"), "{e}");
    }
}
