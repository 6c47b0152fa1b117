//! Reading a file's pages by OCR in parallel: the calling thread draws each page with pdfium
//! (pdfium is not thread-safe) and hands the picture to a pool of workers, one Tesseract
//! process each ([`workers`]).
//!
//! Language per page: the file's language so far (from the book's text layer, the teacher, or
//! the pages read before) is tried first; a page that then reads with a confidence below
//! [`RECHECK_CONFIDENCE`], and the first page when nothing is known, has its script detected
//! by Tesseract's OSD ([`super::script`]). Devanagari text is read again as Marathi when it
//! reads as Marathi ([`super::script::devanagari_language`]).

use super::engine::{pgm, OcrEngine};
use super::script::{devanagari_language, language_of_script, parse_osd, MIN_SCRIPT_CONFIDENCE};
use super::{tsv, PageOcr, BINARISATION, DPI, MAX_SIDE_PX};
use crate::error::{Result, VidyaError};
use pdfium_render::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel};
use std::sync::{Arc, Mutex};

/// A page read in the file's language with a mean confidence below this (0–100) has its
/// script detected and is read again when the script differs.
pub const RECHECK_CONFIDENCE: f32 = 65.0;

/// Tesseract processes run at once: one per core, at most 3 (each takes 120–250 MB at
/// 300 dpi, and the ingest's peak must stay within 600 MiB on an 8 GB laptop).
pub fn workers() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 3)
}

/// A page drawn for OCR: grey pixels row by row, its size, and the resolution it was drawn at.
struct Picture {
    grey: Vec<u8>,
    width: u32,
    height: u32,
    dpi: u32,
}

/// Draws page `index` (0-based) of `doc` in grey at [`DPI`] (lower for pages whose longest
/// side would pass [`MAX_SIDE_PX`]). Errors: pdfium cannot draw it.
fn draw(doc: &PdfDocument, index: usize) -> std::result::Result<Picture, String> {
    let page = doc
        .pages()
        .get(index as i32)
        .map_err(|e| format!("page {} could not be opened: {e}", index + 1))?;
    let (w_pt, h_pt) = (page.width().value.max(1.0), page.height().value.max(1.0));
    let dpi = DPI
        .min((MAX_SIDE_PX as f32 * 72.0 / w_pt.max(h_pt)) as u32)
        .max(72);
    let width = (w_pt * dpi as f32 / 72.0).round().max(1.0) as i32;
    let bitmap = page
        .render_with_config(
            &PdfRenderConfig::new()
                .set_target_width(width)
                .use_grayscale_rendering(true),
        )
        .map_err(|e| format!("page {} could not be drawn: {e}", index + 1))?;
    let (width, height) = (bitmap.width() as u32, bitmap.height() as u32);
    let grey = bitmap
        .as_rgba_bytes()
        .chunks_exact(4)
        .map(|p| ((p[0] as u32 * 299 + p[1] as u32 * 587 + p[2] as u32 * 114) / 1000) as u8)
        .collect();
    Ok(Picture {
        grey,
        width,
        height,
        dpi,
    })
}

fn read_as(engine: &OcrEngine, pic: &[u8], p: &Picture, lang: &str) -> Result<PageOcr> {
    if !engine.has(lang) {
        return Err(VidyaError::Ocr {
            detail: format!(
                "the OCR data for '{lang}' is not installed (Debian: sudo apt install tesseract-ocr-{lang})"
            ),
        });
    }
    let [c, method] = BINARISATION;
    let out = engine.run(pic, p.dpi, &["-l", lang, "--psm", "3", c, method, "tsv"])?;
    Ok(tsv::parse(&out, p.width, p.height, lang))
}

/// The page's language by its script (OSD) and OSD's confidence in that script, `None` when
/// OSD is not installed, finds no script, or finds one Vidya does not read.
fn detect(engine: &OcrEngine, pic: &[u8], p: &Picture) -> Option<(&'static str, f32)> {
    if !engine.has("osd") {
        return None;
    }
    let out = engine.run(pic, p.dpi, &["--psm", "0", "-l", "osd"]).ok()?;
    let (script, conf) = parse_osd(&out)?;
    language_of_script(&script).map(|l| (l, conf))
}

fn same_script(a: &str, b: &str) -> bool {
    a == b || (matches!(a, "hin" | "mar") && matches!(b, "hin" | "mar"))
}

/// Reads one picture: the file's language `known` first when there is one, else the script
/// OSD trusts (confidence ≥ [`MIN_SCRIPT_CONFIDENCE`]), else English. A page that then reads
/// with a confidence below [`RECHECK_CONFIDENCE`] is read again in the script OSD guesses,
/// however unsure, and the better-read version is kept (a wrong model reads with a low
/// confidence, so the comparison is safe). Devanagari that reads as Marathi is read as Marathi.
fn read_one(engine: &OcrEngine, p: &Picture, known: Option<&'static str>) -> Result<PageOcr> {
    let pic = pgm(&p.grey, p.width, p.height);
    let mut guess = match known {
        Some(_) => None,
        None => detect(engine, &pic, p),
    };
    let trusted = guess
        .filter(|(_, conf)| *conf >= MIN_SCRIPT_CONFIDENCE)
        .map(|(l, _)| l);
    let first = known.or(trusted).unwrap_or("eng");
    let mut page = read_as(engine, &pic, p, first)?;
    if page.confidence < RECHECK_CONFIDENCE {
        if known.is_some() {
            guess = detect(engine, &pic, p);
        }
        if let Some((other, _)) = guess.filter(|(l, _)| !same_script(l, first)) {
            if let Ok(again) = read_as(engine, &pic, p, other) {
                if again.confidence > page.confidence {
                    page = again;
                }
            }
        }
    }
    if matches!(page.language.as_str(), "hin" | "mar") {
        let want = devanagari_language(&page.text);
        if want != page.language && engine.has(want) {
            page = read_as(engine, &pic, p, want)?;
        }
    }
    Ok(page)
}

/// Reads the pages `indices` (0-based) of `doc` by OCR, in parallel, and returns each one's
/// result in the same order (an error for a page that could not be drawn or read: the caller
/// leaves that page without text). `language` is the Tesseract language to try first
/// ("hin"), from the book's text layer or the teacher. `on_progress(done, total)` is called
/// as pages finish.
///
/// Errors: [`VidyaError::Cancelled`] when `cancel` is set (the running pages finish first,
/// within [`super::engine::PAGE_TIMEOUT_S`]).
pub fn read_pages(
    engine: &OcrEngine,
    doc: &PdfDocument,
    indices: &[usize],
    language: Option<&'static str>,
    cancel: Option<&AtomicBool>,
    on_progress: &mut dyn FnMut(usize, usize),
) -> Result<Vec<Result<PageOcr>>> {
    let total = indices.len();
    let stop = || cancel.is_some_and(|c| c.load(Ordering::Relaxed));
    let known: Arc<Mutex<Option<&'static str>>> = Arc::new(Mutex::new(language));
    let mut results: Vec<Option<Result<PageOcr>>> = (0..total).map(|_| None).collect();
    let workers = workers().min(total.max(1));
    std::thread::scope(|s| -> Result<()> {
        let (job_tx, job_rx) = sync_channel::<(usize, Picture)>(workers);
        let job_rx = Arc::new(Mutex::new(job_rx));
        let (res_tx, res_rx) = channel::<(usize, Result<PageOcr>)>();
        for _ in 0..workers {
            let (job_rx, res_tx, known) = (job_rx.clone(), res_tx.clone(), known.clone());
            s.spawn(move || loop {
                let job = job_rx.lock().map(|rx| rx.recv());
                let Ok(Ok((k, picture))) = job else { break };
                if stop() {
                    let _ = res_tx.send((k, Err(VidyaError::Cancelled)));
                    continue;
                }
                let guess = *known.lock().unwrap_or_else(|e| e.into_inner());
                let result = read_one(engine, &picture, guess);
                if let Ok(page) = &result {
                    // A page that read well teaches the next pages its language.
                    if page.confidence >= RECHECK_CONFIDENCE {
                        let read = super::script::language_of_text(&page.text);
                        let lang = super::engine::LANGUAGES
                            .iter()
                            .find(|l| **l == page.language)
                            .filter(|l| read.is_some_and(|r| same_script(r, l)));
                        if let Some(l) = lang {
                            *known.lock().unwrap_or_else(|e| e.into_inner()) = Some(*l);
                        }
                    }
                }
                let _ = res_tx.send((k, result));
            });
        }
        drop(res_tx);
        let mut done = 0;
        // A page skipped because of a cancel is not done: the progress stops where it was.
        let mut take = |(k, r): (usize, Result<PageOcr>), done: &mut usize| {
            let skipped = matches!(r, Err(VidyaError::Cancelled));
            results[k] = Some(r);
            if !skipped {
                *done += 1;
                on_progress(*done, total);
            }
        };
        for (k, &index) in indices.iter().enumerate() {
            if stop() {
                break;
            }
            match draw(doc, index) {
                Ok(picture) => {
                    if job_tx.send((k, picture)).is_err() {
                        break;
                    }
                }
                Err(detail) => take((k, Err(VidyaError::Ocr { detail })), &mut done),
            }
            while let Ok(r) = res_rx.try_recv() {
                take(r, &mut done);
            }
        }
        drop(job_tx);
        for r in res_rx {
            take(r, &mut done);
        }
        Ok(())
    })?;
    if stop() {
        return Err(VidyaError::Cancelled);
    }
    Ok(results
        .into_iter()
        .map(|r| r.unwrap_or(Err(VidyaError::Cancelled)))
        .collect())
}
