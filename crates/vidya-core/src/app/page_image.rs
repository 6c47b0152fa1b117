//! The citation side panel's page image: a stored page rendered by pdfium as PNG, with the
//! quoted sentences highlighted.
//!
//! Highlighting searches the page's text layer (pdfium `FPDFText_FindStart`) for windows of
//! [`WINDOW_WORDS`] consecutive words of each quoted sentence, so a sentence that Vidya's
//! repairs changed slightly (joined hyphenation, re-spaced Indic words) is still mostly found;
//! a window that is not found is simply not painted.
//!
//! Each picture is drawn once: a page (of the file that was added, by its sha256), its
//! highlights and its width are kept as PNG in a cache of at most [`CACHE_BYTES`], the least
//! recently used picture leaving first. [`lookup`] checks the file and finds a picture drawn
//! before; [`draw`] draws one (the server lets each device draw only a few, and the laptop
//! any: `crates/vidya-server/src/page_route.rs`); [`render`] does both.

use crate::error::{Result, VidyaError};
use crate::ingest::pdf::pdfium;
use crate::Library;
use pdfium_render::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};
use std::time::SystemTime;

/// Default rendered width (pixels): readable in the side panel at 1366×768 and about 150 KB
/// as PNG for a textbook page.
pub const DEFAULT_WIDTH_PX: u32 = 900;
/// Largest width accepted (pixels).
pub const MAX_WIDTH_PX: u32 = 2000;
/// Words per searched window.
pub const WINDOW_WORDS: usize = 4;
/// Most windows searched per page (bounds the work for long quotes).
const MAX_WINDOWS: usize = 120;
/// Bytes of drawn pictures kept for reuse ([`draw`]): about 100 pages at the side panel's
/// width, or 30 at [`MAX_WIDTH_PX`].
pub const CACHE_BYTES: usize = 32 << 20;
/// Highlight colour (RGBA, yellow marker) blended over the page.
const HIGHLIGHT: [u8; 4] = [255, 214, 0, 110];

/// A rendered page.
#[derive(Debug, Clone)]
pub struct PageImage {
    /// PNG bytes.
    pub png: Vec<u8>,
    /// Width × height in pixels.
    pub size: (u32, u32),
    /// Highlight rectangles painted.
    pub highlights: usize,
}

/// What a student's device is told when the page cannot be drawn because of the book's file.
const STUDENT_NO_PICTURE: &str = "the picture of this page cannot be shown: the quoted sentences are the page's own words (your teacher's laptop says why)";

fn not_renderable(path: &Path, why: &str) -> VidyaError {
    VidyaError::NoPageImage {
        path: path.to_path_buf(),
        why: why.to_string(),
        student: STUDENT_NO_PICTURE.to_string(),
    }
}

/// Renders page `page` (0-based ordinal in the book) of book `book_id` at `width_px` pixels
/// (clamped to 100–[`MAX_WIDTH_PX`]) with `highlight` sentences marked: the picture drawn
/// before when the cache has it ([`lookup`], then [`draw`]).
///
/// Errors: [`VidyaError::NoSuchBook`] for an unknown book; [`VidyaError::NoPageImage`] for a
/// page the book does not have,
/// when the book came from a text file (no page to draw), or its file was moved away, changed
/// or replaced since it was added (its sha256 differs); [`VidyaError::Corrupt`] when pdfium cannot open or render it.
pub fn render(
    lib: &Library,
    book_id: i64,
    page: usize,
    highlight: &[String],
    width_px: u32,
) -> Result<PageImage> {
    match lookup(lib, book_id, page, highlight, width_px)? {
        Lookup::Drawn(img) => Ok(img),
        Lookup::ToDraw(source) => draw(&source),
    }
}

/// A page to draw, its file checked ([`lookup`]): hand it to [`draw`].
#[derive(Debug, Clone)]
pub struct PageSource {
    /// The book's PDF file.
    path: PathBuf,
    /// 0-based page index in that file.
    index: i32,
    /// The highlight's search windows ([`windows`]).
    windows: Vec<String>,
    /// Width in pixels (clamped).
    width: u32,
    /// The words OCR read on the page with their boxes (a scanned page: pdfium has no text
    /// to search there); empty otherwise.
    ocr_words: Vec<crate::ingest::ocr::OcrWord>,
    /// The picture's key in the cache.
    key: [u8; 32],
}

/// What [`lookup`] found.
#[derive(Debug, Clone)]
pub enum Lookup {
    /// The picture, drawn before (from the cache).
    Drawn(PageImage),
    /// Not drawn yet: the page to [`draw`].
    ToDraw(PageSource),
}

/// Checks that page `page` of book `book_id` can be drawn (as [`render`], the same errors)
/// and finds its picture with these highlights at this width if it was drawn before.
pub fn lookup(
    lib: &Library,
    book_id: i64,
    page: usize,
    highlight: &[String],
    width_px: u32,
) -> Result<Lookup> {
    let book = lib.book(book_id)?;
    let rec = lib.page(book_id, page)?.ok_or_else(|| {
        let why = format!(
            "\"{}\" has no page {page} (its pages are numbered 0 to {})",
            book.title,
            book.page_count - 1
        );
        VidyaError::NoPageImage {
            path: book.source_path.clone().into(),
            student: why.clone(),
            why,
        }
    })?;
    let path = PathBuf::from(&rec.file_path);
    let is_pdf = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"));
    if !is_pdf {
        return Err(not_renderable(
            &path,
            "this book was added from a text file, so there is no printed page to show; the quoted sentences are the page's words",
        ));
    }
    if !path.is_file() {
        return Err(not_renderable(
            &path,
            "the PDF was moved or deleted after it was added, so its page cannot be drawn; add the book again from its new place to see pages",
        ));
    }
    if !same_file(&path, &rec.file_sha256).map_err(|e| VidyaError::io(&path, e))? {
        return Err(not_renderable(
            &path,
            "the PDF in this place was changed or replaced after it was added, so its pages no longer match the stored text and cannot be drawn: put the original file back, or choose Re-index for this book on the Library screen to read the new file",
        ));
    }
    let index = rec.pdf_page.saturating_sub(1) as i32;
    let width = width_px.clamp(100, MAX_WIDTH_PX);
    let windows = windows(highlight);
    let key = {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        // The file by its content (a file put back is the same file), the page, the width, the
        // highlights; each part ended by a byte no part holds.
        for part in [
            rec.file_sha256.to_ascii_lowercase().as_str(),
            &rec.file_path,
        ] {
            h.update(part.as_bytes());
            h.update([0]);
        }
        h.update(index.to_le_bytes());
        h.update(width.to_le_bytes());
        for w in &windows {
            h.update(w.as_bytes());
            h.update([0]);
        }
        <[u8; 32]>::from(h.finalize())
    };
    if let Some(img) = cache().get(&key) {
        return Ok(Lookup::Drawn(img));
    }
    let ocr_words = if windows.is_empty() {
        Vec::new()
    } else {
        lib.ocr_words(book_id, page)?
    };
    Ok(Lookup::ToDraw(PageSource {
        path,
        index,
        windows,
        width,
        ocr_words,
        key,
    }))
}

/// Draws the page [`lookup`] checked, and keeps the picture in the cache (a picture another
/// request drew meanwhile is taken from there). Errors: [`VidyaError::Corrupt`] when pdfium
/// cannot open or render it; pdfium missing.
pub fn draw(source: &PageSource) -> Result<PageImage> {
    if let Some(img) = cache().get(&source.key) {
        return Ok(img);
    }
    let PageSource {
        path,
        index,
        windows,
        width,
        ocr_words,
        key,
    } = source;
    let pdfium = pdfium()?;
    let corrupt = |e: PdfiumError| VidyaError::Corrupt {
        path: path.clone(),
        detail: e.to_string(),
    };
    let doc = pdfium.load_pdf_from_file(path, None).map_err(corrupt)?;
    let pdf_page = doc.pages().get(*index).map_err(corrupt)?;
    let bitmap = pdf_page
        .render_with_config(&PdfRenderConfig::new().set_target_width(*width as Pixels))
        .map_err(corrupt)?;
    let (w, h) = (bitmap.width() as u32, bitmap.height() as u32);
    let mut rgba = bitmap.as_rgba_bytes();
    let scale = w as f32 / pdf_page.width().value.max(1.0);
    let page_h = pdf_page.height().value;
    let mut rects = Vec::new();
    if let Ok(text) = pdf_page.text() {
        for window in windows {
            let Ok(search) = text.search(window, &PdfSearchOptions::new()) else {
                continue;
            };
            if let Some(segments) = search.find_next() {
                for s in segments.iter() {
                    let b = s.bounds();
                    rects.push((
                        (b.left().value * scale).floor(),
                        ((page_h - b.top().value) * scale).floor(),
                        (b.right().value * scale).ceil(),
                        ((page_h - b.bottom().value) * scale).ceil(),
                    ));
                }
            }
        }
    }
    if rects.is_empty() {
        for window in windows {
            for (l, t, r, b) in crate::ingest::ocr::boxes::find(ocr_words, window) {
                rects.push((
                    (l * w as f32).floor(),
                    (t * h as f32).floor(),
                    (r * w as f32).ceil(),
                    (b * h as f32).ceil(),
                ));
            }
        }
    }
    let mut painted = vec![false; (w * h) as usize];
    for (l, t, r, b) in &rects {
        paint(&mut rgba, &mut painted, w, h, (*l, *t, *r, *b));
    }
    let png = encode_png(&rgba, w, h).map_err(|e| VidyaError::Corrupt {
        path: path.clone(),
        detail: format!("PNG encoding failed: {e}"),
    })?;
    let img = PageImage {
        png,
        size: (w, h),
        highlights: rects.len(),
    };
    cache().put(*key, img.clone());
    Ok(img)
}

/// Drawn pictures by key, at most `budget` bytes of PNG, the least recently used leaving
/// first.
#[derive(Debug)]
struct PngCache {
    budget: usize,
    bytes: usize,
    /// Uses so far: a picture's last use orders the evictions.
    tick: u64,
    pictures: HashMap<[u8; 32], (PageImage, u64)>,
}

impl PngCache {
    fn new(budget: usize) -> Self {
        Self {
            budget,
            bytes: 0,
            tick: 0,
            pictures: HashMap::new(),
        }
    }

    fn get(&mut self, key: &[u8; 32]) -> Option<PageImage> {
        self.tick += 1;
        let (img, used) = self.pictures.get_mut(key)?;
        *used = self.tick;
        Some(img.clone())
    }

    /// Keeps `img` (not when it alone is over the budget), then lets the least recently used
    /// pictures go until the cache is within its budget.
    fn put(&mut self, key: [u8; 32], img: PageImage) {
        let size = img.png.len();
        if size > self.budget {
            return;
        }
        self.tick += 1;
        if let Some((old, _)) = self.pictures.insert(key, (img, self.tick)) {
            self.bytes -= old.png.len();
        }
        self.bytes += size;
        while self.bytes > self.budget {
            let Some(oldest) = self
                .pictures
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| *k)
            else {
                break;
            };
            if let Some((gone, _)) = self.pictures.remove(&oldest) {
                self.bytes -= gone.png.len();
            }
        }
    }
}

/// The process's picture cache ([`CACHE_BYTES`]), shared by every library (a key names the
/// file by its content).
fn cache() -> std::sync::MutexGuard<'static, PngCache> {
    static CACHE: OnceLock<Mutex<PngCache>> = OnceLock::new();
    CACHE
        .get_or_init(|| Mutex::new(PngCache::new(CACHE_BYTES)))
        .lock()
        .unwrap_or_else(|p| p.into_inner())
}

/// Whether the file at `path` is still the one that was added: its sha256 is `sha256`. A
/// hash is remembered per path with the file's size and modification time (and on Unix its
/// inode and change time, which no copy tool can set back), so a page after the first of the
/// same file costs a `stat`, not a read of the whole PDF.
///
/// Errors: the file cannot be read (permissions, a disk error).
fn same_file(path: &Path, sha256: &str) -> std::io::Result<bool> {
    type Seen = HashMap<PathBuf, (Stamp, String)>;
    static SEEN: OnceLock<Mutex<Seen>> = OnceLock::new();
    let stamp = stamp(&std::fs::metadata(path)?);
    let seen = SEEN.get_or_init(Default::default);
    let known = seen
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .get(path)
        .filter(|(s, _)| *s == stamp)
        .map(|(_, hash)| hash.clone());
    let hash = match known {
        Some(h) => h,
        None => {
            let h = crate::native::sha256_file(path)?;
            seen.lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(path.to_path_buf(), (stamp, h.clone()));
            h
        }
    };
    Ok(hash.eq_ignore_ascii_case(sha256))
}

/// What says a file is unchanged since it was hashed: size (bytes), modification time, and on
/// Unix inode and change time (seconds, nanoseconds).
type Stamp = (u64, Option<SystemTime>, [i64; 3]);

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    #[cfg(unix)]
    let unix = {
        use std::os::unix::fs::MetadataExt;
        [meta.ino() as i64, meta.ctime(), meta.ctime_nsec()]
    };
    #[cfg(not(unix))]
    let unix = [0; 3];
    (meta.len(), meta.modified().ok(), unix)
}

/// The search windows of `sentences`: runs of [`WINDOW_WORDS`] words (a shorter sentence is
/// one window; the last window ends at the sentence's last word), deduplicated, at most
/// `MAX_WINDOWS` (120).
pub fn windows(sentences: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for s in sentences {
        if out.len() >= MAX_WINDOWS {
            break;
        }
        let words: Vec<&str> = s
            .split_whitespace()
            // `[n]` citation markers are not on the page.
            .filter(|w| {
                !(w.len() > 2
                    && w.starts_with('[')
                    && w.ends_with(']')
                    && w[1..w.len() - 1].bytes().all(|b| b.is_ascii_digit()))
            })
            .map(|w| w.trim_matches(|c: char| matches!(c, '[' | ']' | '“' | '”' | '"')))
            .filter(|w| !w.is_empty())
            .collect();
        if words.is_empty() {
            continue;
        }
        let step = WINDOW_WORDS.min(words.len());
        let mut i = 0;
        loop {
            let end = (i + WINDOW_WORDS).min(words.len());
            let start = end.saturating_sub(step);
            let w = words[start..end].join(" ");
            if seen.insert(w.clone()) {
                out.push(w);
            }
            if end == words.len() || out.len() >= MAX_WINDOWS {
                break;
            }
            i += step;
        }
    }
    out
}

/// Blends the highlight colour over the rectangle (each pixel at most once, so overlapping
/// windows do not darken).
fn paint(rgba: &mut [u8], painted: &mut [bool], w: u32, h: u32, rect: (f32, f32, f32, f32)) {
    let (l, t, r, b) = rect;
    let x0 = l.max(0.0) as u32;
    let y0 = t.max(0.0) as u32;
    let x1 = (r.max(0.0) as u32).min(w);
    let y1 = (b.max(0.0) as u32).min(h);
    let a = HIGHLIGHT[3] as u32;
    for y in y0..y1 {
        for x in x0..x1 {
            let p = (y * w + x) as usize;
            if painted[p] {
                continue;
            }
            painted[p] = true;
            for c in 0..3 {
                let v = rgba[p * 4 + c] as u32;
                rgba[p * 4 + c] = ((v * (255 - a) + HIGHLIGHT[c] as u32 * a) / 255) as u8;
            }
        }
    }
}

fn encode_png(rgba: &[u8], w: u32, h: u32) -> std::result::Result<Vec<u8>, png::EncodingError> {
    let mut out = Vec::new();
    let mut enc = png::Encoder::new(&mut out, w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    let mut writer = enc.write_header()?;
    writer.write_image_data(rgba)?;
    writer.finish()?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_are_searched_in_overlapping_word_windows() {
        let w = windows(&["Plants make food from light [1]".to_string()]);
        assert_eq!(w, vec!["Plants make food from", "make food from light"]);
        let w = windows(&["Cells divide.".into(), "".into(), "Cells divide.".into()]);
        assert_eq!(w, vec!["Cells divide."]);
    }

    #[test]
    fn the_cache_keeps_the_recently_used_pictures_within_its_bytes() {
        let img = |n: usize| PageImage {
            png: vec![0; n],
            size: (1, 1),
            highlights: 0,
        };
        let mut c = PngCache::new(100);
        c.put([1; 32], img(40));
        c.put([2; 32], img(40));
        assert!(c.get(&[1; 32]).is_some(), "used again: 2 is now the oldest");
        c.put([3; 32], img(40));
        assert!(c.get(&[2; 32]).is_none(), "the least recently used left");
        assert!(c.get(&[1; 32]).is_some() && c.get(&[3; 32]).is_some());
        assert_eq!(c.bytes, 80);
        // A picture larger than the whole budget is not kept, and pushes nothing out.
        c.put([4; 32], img(101));
        assert!(c.get(&[4; 32]).is_none());
        assert_eq!(c.bytes, 80);
        // The same key again replaces its picture.
        c.put([1; 32], img(10));
        assert_eq!(c.bytes, 50);
    }

    #[test]
    fn highlight_blends_once_inside_the_image() {
        let (w, h) = (4u32, 3u32);
        let mut rgba = vec![255u8; (w * h * 4) as usize];
        let mut painted = vec![false; (w * h) as usize];
        paint(&mut rgba, &mut painted, w, h, (1.0, 1.0, 10.0, 10.0));
        let once = rgba.clone();
        paint(&mut rgba, &mut painted, w, h, (0.0, 0.0, 3.0, 3.0));
        // (1,1) was painted by the first rectangle and is not darkened again.
        let p = ((w + 1) * 4) as usize;
        assert_eq!(rgba[p..p + 4], once[p..p + 4]);
        assert!(rgba[p + 2] < 255, "blue channel drops under yellow");
        // (0,0) only by the second; the alpha channel is untouched.
        assert!(rgba[2] < 255 && rgba[3] == 255);
    }
}
