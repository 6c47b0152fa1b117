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

/// DOCX files larger than this are refused (bytes): 256 MiB.
pub const MAX_DOCX_BYTES: u64 = 256 * 1024 * 1024;

/// Extracts a .docx file. Errors: not a valid DOCX (zip/XML), too large, unreadable.
pub fn extract(path: &Path, on_page: &mut dyn FnMut(usize, usize)) -> Result<ExtractedFile> {
    let size = std::fs::metadata(path)
        .map_err(|e| VidyaError::io(path, e))?
        .len();
    if size > MAX_DOCX_BYTES {
        return Err(VidyaError::TooLarge {
            path: path.to_path_buf(),
            size_mb: size / (1024 * 1024),
            limit_mb: MAX_DOCX_BYTES / (1024 * 1024),
        });
    }
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
    let mut m = zip.by_name(name).map_err(|e| e.to_string())?;
    let mut s = String::new();
    m.read_to_string(&mut s).map_err(|e| e.to_string())?;
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
    let mut para = String::new();
    let mut level: Option<usize> = None;
    let mut in_text = false;
    loop {
        match r.read_event()? {
            Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                b"p" => {
                    para.clear();
                    level = None;
                }
                b"pStyle" => {
                    for a in e.attributes().flatten() {
                        if a.key.local_name().as_ref() == b"val" {
                            level = heading_level(&String::from_utf8_lossy(&a.value));
                        }
                    }
                }
                b"t" => in_text = true,
                b"tab" => para.push('\t'),
                b"br" | b"cr" => para.push('\n'),
                _ => {}
            },
            Event::Text(t) if in_text => {
                para.push_str(&t.decode().map_err(quick_xml::Error::from)?)
            }
            Event::GeneralRef(g) if in_text => {
                if let Ok(Some(c)) = g.resolve_char_ref() {
                    para.push(c);
                } else {
                    let name = String::from_utf8_lossy(&g);
                    para.push_str(match name.as_ref() {
                        "amp" => "&",
                        "lt" => "<",
                        "gt" => ">",
                        "quot" => "\"",
                        "apos" => "'",
                        _ => "",
                    });
                }
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"t" => in_text = false,
                b"p" => {
                    let text = para.trim().to_string();
                    match level {
                        Some(l) if !text.is_empty() => {
                            sections.push((Some((l, text)), String::new()))
                        }
                        _ => {
                            let body = &mut sections.last_mut().expect("starts non-empty").1;
                            body.push_str(&text);
                            body.push_str("\n\n");
                        }
                    }
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    sections.retain(|(h, b)| h.is_some() || !b.trim().is_empty());
    Ok(sections)
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
    fn not_a_docx() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("fake.docx");
        std::fs::write(&p, b"this is not a zip").unwrap();
        let e = extract(&p, &mut |_, _| {}).unwrap_err();
        assert!(e.to_string().contains("docx"), "{e}");
    }
}
