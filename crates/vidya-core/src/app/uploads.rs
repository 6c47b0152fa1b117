//! Where dropped or uploaded files are kept: `<library>/uploads/`, under a safe name that never
//! replaces a different file.

use std::path::{Path, PathBuf};

/// Folder of uploaded books inside the library folder.
pub const UPLOADS_DIR: &str = "uploads";

/// Longest kept file name (bytes); longer names are shortened, keeping the extension.
pub const MAX_NAME_BYTES: usize = 180;

/// A file name safe to create inside the uploads folder: the last path component, with
/// characters that Windows or Linux forbid replaced by `_`, shortened to [`MAX_NAME_BYTES`]
/// (keeping the extension); `None` when nothing is left.
pub fn safe_file_name(name: &str) -> Option<String> {
    let last = name.rsplit(['/', '\\']).next().unwrap_or("").trim();
    let cleaned: String = last
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    let cleaned = cleaned.trim_start_matches('.').trim().to_string();
    if cleaned.is_empty() {
        return None;
    }
    if cleaned.len() <= MAX_NAME_BYTES {
        return Some(cleaned);
    }
    let ext = match cleaned.rsplit_once('.') {
        Some((_, e)) if !e.is_empty() && e.len() <= 10 => format!(".{e}"),
        _ => String::new(),
    };
    let mut stem = String::new();
    for c in cleaned.chars() {
        if stem.len() + c.len_utf8() + ext.len() > MAX_NAME_BYTES {
            break;
        }
        stem.push(c);
    }
    Some(format!("{}{ext}", stem.trim_end()))
}

/// Where an upload named `name` is kept in `dir`: that name, unless a file with other content
/// already has it; then "name (2).pdf", "name (3).pdf", ….
pub fn upload_path(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let first = dir.join(name);
    let taken = |p: &Path| p.exists() && std::fs::read(p).map_or(true, |b| b != bytes);
    if !taken(&first) {
        return first;
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() => (s.to_string(), format!(".{e}")),
        _ => (name.to_string(), String::new()),
    };
    (2..)
        .map(|n| dir.join(format!("{stem} ({n}){ext}")))
        .find(|p| !taken(p))
        .expect("an unbounded range has a free name")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upload_never_replaces_a_different_file_of_the_same_name() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert_eq!(upload_path(d, "ch07.pdf", b"A"), d.join("ch07.pdf"));
        std::fs::write(d.join("ch07.pdf"), b"A").unwrap();
        // The same content again: the same file.
        assert_eq!(upload_path(d, "ch07.pdf", b"A"), d.join("ch07.pdf"));
        // Other content: a new name, then the next one.
        assert_eq!(upload_path(d, "ch07.pdf", b"B"), d.join("ch07 (2).pdf"));
        std::fs::write(d.join("ch07 (2).pdf"), b"B").unwrap();
        assert_eq!(upload_path(d, "ch07.pdf", b"C"), d.join("ch07 (3).pdf"));
        assert_eq!(upload_path(d, "notes", b"C"), d.join("notes"));
    }

    #[test]
    fn uploaded_names_stay_inside_the_uploads_folder() {
        assert_eq!(safe_file_name("ch07.pdf").as_deref(), Some("ch07.pdf"));
        assert_eq!(
            safe_file_name("../../etc/passwd").as_deref(),
            Some("passwd")
        );
        assert_eq!(
            safe_file_name("C:\\books\\ch 8.pdf").as_deref(),
            Some("ch 8.pdf")
        );
        assert_eq!(safe_file_name("..").as_deref(), None);
        assert_eq!(safe_file_name("").as_deref(), None);
        assert_eq!(safe_file_name("a?b.pdf").as_deref(), Some("a_b.pdf"));
        assert_eq!(safe_file_name(".hidden.pdf").as_deref(), Some("hidden.pdf"));
        // A long Hindi name is shortened on a character boundary, keeping ".pdf".
        let long = format!("{}.pdf", "कक्षा".repeat(20));
        let short = safe_file_name(&long).unwrap();
        assert!(
            short.len() <= MAX_NAME_BYTES && short.ends_with(".pdf"),
            "{short}"
        );
        assert!(short.starts_with("कक्षा"));
    }
}
