//! OCR at ingest: a PDF page with no text layer, a garbage text layer (a font without a
//! Unicode map) or one typed in a legacy font Vidya cannot convert is drawn at [`DPI`] and
//! read by Tesseract ([`engine`]); pages with a good text layer are never OCR'd, so a book may
//! mix both kinds.
//!
//! - [`engine`]: finding and running Tesseract;
//! - [`script`]: which language model reads a page (script detection first);
//! - [`tsv`]: Tesseract's words and boxes → the page's text;
//! - [`pages`]: drawing the pages and reading them in parallel, one Tesseract per core.
//!
//! The words' boxes are stored with the page (`ocr_pages`), so the cited page's picture can
//! highlight the quoted sentences on a scan as it does on a text PDF.

pub mod boxes;
pub mod engine;
pub mod pages;
pub mod script;
pub mod tsv;

pub use engine::{engine, OcrEngine};
use serde::{Deserialize, Serialize};

/// Resolution pages are drawn at for OCR (dots per inch): Tesseract's models are trained on
/// text of 20–40 px x-height, which 300 dpi gives for 9–12 pt print (Tesseract's
/// "ImproveQuality" guide).
pub const DPI: u32 = 300;

/// Tesseract's binarisation for reading a page: `thresholding_method=2` is Sauvola's local
/// threshold (J. Sauvola, M. Pietikäinen, "Adaptive document image binarization", Pattern
/// Recognition 33(2), 2000; Tesseract ≥ 5.0) instead of the default global Otsu. On a phone
/// photo of a page, lit unevenly, Otsu lets Tesseract's layout take a framed text box for a
/// picture and drop it; measured on 200-dpi phone-quality scans of 18 OpenStax pages
/// (`vidya eval --extraction`), English CER 6.25 % → 4.01 % on the tuned set and 1.85 % →
/// 0.30 % on 12 pages it was not tuned on; clean 300-dpi scans and the five Indic scripts
/// within ±0.3 points.
pub const BINARISATION: [&str; 2] = ["-c", "thresholding_method=2"];

/// The longest side of a page drawn for OCR (pixels): a poster-sized page is drawn at a lower
/// resolution rather than as a picture of hundreds of megabytes.
pub const MAX_SIDE_PX: u32 = 4200;

/// A page read with a mean word confidence below this (0–100) gets a quality note for the
/// teacher: at this level about one word in ten is wrong.
pub const LOW_CONFIDENCE: f32 = 75.0;

/// One word Tesseract read, with its box as fractions (0–1) of the page's width and height
/// from the top-left corner.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OcrWord {
    /// The word.
    pub text: String,
    /// Left edge (0–1 of the page width).
    pub left: f32,
    /// Top edge (0–1 of the page height).
    pub top: f32,
    /// Right edge.
    pub right: f32,
    /// Bottom edge.
    pub bottom: f32,
    /// Tesseract's confidence in the word (0–100).
    pub confidence: f32,
}

/// What OCR read on one page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageOcr {
    /// Lines in reading order, a blank line between paragraphs.
    pub text: String,
    /// The words with their boxes, in reading order.
    pub words: Vec<OcrWord>,
    /// Mean word confidence weighted by characters (0–100).
    pub confidence: f32,
    /// The Tesseract language that read it ("hin").
    pub language: String,
}

/// Why a page was OCR'd.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OcrReason {
    /// The page has no text layer (a scan or a photo of a page).
    NoTextLayer,
    /// The text layer is mostly symbols (a font without a Unicode map).
    GarbledText,
    /// The text layer is in a legacy font Vidya cannot convert (Chanakya, …).
    LegacyFont,
}

/// One OCR'd page of a file, for the teacher's report.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrNote {
    /// 1-based page in the file.
    pub pdf_page: u32,
    /// Why it was OCR'd.
    pub reason: OcrReason,
    /// What was read; `None` when OCR failed on this page (the page stays without text). The
    /// text and words themselves travel with the page ([`crate::ingest::source::ExtractedPage`]).
    pub read: Option<OcrRead>,
}

/// The summary of one OCR'd page that the teacher's notes need.
#[derive(Debug, Clone, PartialEq)]
pub struct OcrRead {
    /// Tesseract language the page was read with ("hin").
    pub language: String,
    /// Mean word confidence, 0–100 (weighted by characters).
    pub confidence: f32,
    /// Letters, digits and Indic signs in the text read ([`crate::ingest::quality`]).
    pub letters: usize,
}
