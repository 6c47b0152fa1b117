//! The OCR engine: Tesseract 5 run as a program, one process per page, with the page picture
//! on its standard input and TSV (words with boxes and confidences) on its standard output.
//!
//! Tesseract (Apache-2.0, <https://github.com/tesseract-ocr/tesseract>) reads all six
//! languages with its LSTM models (`eng`, `hin`, `mar`, `tel`, `tam`, `kan` traineddata), and
//! `osd` tells the script of a page. It is run as a program rather than linked so that a page
//! that makes it crash or hang costs that page, never the app.
//!
//! Where it is looked for, in order: `$VIDYA_TESSERACT` (the program; its `tessdata` is then
//! `$TESSDATA_PREFIX` or the folder the program reports); `ocr/tesseract[.exe]` with
//! `ocr/tessdata/` in an install folder ([`crate::paths::install_roots`]); `tesseract` on the
//! `PATH` (Debian: `apt install tesseract-ocr tesseract-ocr-hin …`, the .deb depends on them).

use crate::error::{Result, VidyaError};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// Languages Vidya reads, as Tesseract's traineddata names.
pub const LANGUAGES: [&str; 6] = ["eng", "hin", "mar", "tel", "tam", "kan"];

/// A page that takes longer than this (seconds) is given up (its Tesseract is killed); a
/// 300-dpi page takes 4–9 s on a 2-core laptop.
pub const PAGE_TIMEOUT_S: u64 = 120;

/// A located Tesseract with the languages its `tessdata` folder holds.
#[derive(Debug, Clone)]
pub struct OcrEngine {
    /// The program.
    pub program: PathBuf,
    /// The `tessdata` folder passed to it (`None`: its built-in default).
    pub tessdata: Option<PathBuf>,
    /// Traineddata names found (`"hin"`, `"osd"`, …).
    pub languages: Vec<String>,
    /// Its version line ("tesseract 5.3.0").
    pub version: String,
}

static ENGINE: OnceLock<std::result::Result<OcrEngine, String>> = OnceLock::new();

/// The process-wide engine, located on first use. Errors: a sentence saying what is missing
/// and how to install it (for the teacher's message).
pub fn engine() -> std::result::Result<&'static OcrEngine, String> {
    ENGINE.get_or_init(locate).as_ref().map_err(Clone::clone)
}

fn exe(name: &str) -> String {
    if cfg!(windows) {
        format!("{name}.exe")
    } else {
        name.to_string()
    }
}

/// Finds Tesseract (see the module docs). Errors: not found, or found without any of
/// [`LANGUAGES`].
pub fn locate() -> std::result::Result<OcrEngine, String> {
    let mut candidates: Vec<(PathBuf, Option<PathBuf>)> = Vec::new();
    if let Some(p) = std::env::var_os("VIDYA_TESSERACT").filter(|p| !p.is_empty()) {
        let data = std::env::var_os("TESSDATA_PREFIX").map(PathBuf::from);
        candidates.push((PathBuf::from(p), data));
    }
    for root in crate::paths::install_roots() {
        let dir = root.join("ocr");
        candidates.push((dir.join(exe("tesseract")), Some(dir.join("tessdata"))));
    }
    if let Ok(p) = which::which("tesseract") {
        candidates.push((p, std::env::var_os("TESSDATA_PREFIX").map(PathBuf::from)));
    }
    let mut why = "Tesseract was not found".to_string();
    for (program, tessdata) in candidates {
        if !program.is_file() {
            continue;
        }
        match probe(&program, tessdata.as_deref()) {
            Ok(e) if LANGUAGES.iter().any(|l| e.languages.iter().any(|x| x == l)) => return Ok(e),
            Ok(e) => {
                why = format!(
                    "{} has none of the languages Vidya reads ({})",
                    e.program.display(),
                    LANGUAGES.join(", ")
                )
            }
            Err(e) => why = e,
        }
    }
    let fix = if cfg!(windows) {
        "Vidya's installer puts it in the ocr folder of Vidya's install folder: install Vidya again"
    } else {
        "On Debian or Ubuntu: sudo apt install tesseract-ocr tesseract-ocr-hin tesseract-ocr-mar tesseract-ocr-tel tesseract-ocr-tam tesseract-ocr-kan"
    };
    Err(format!("{why}. {fix}"))
}

/// Asks `program` for its version and languages (`--list-langs`, whose first line names the
/// tessdata folder).
fn probe(program: &Path, tessdata: Option<&Path>) -> std::result::Result<OcrEngine, String> {
    let mut c = Command::new(program);
    c.arg("--list-langs");
    if let Some(d) = tessdata {
        c.env("TESSDATA_PREFIX", d);
    }
    let out = c
        .output()
        .map_err(|e| format!("{} could not be started: {e}", program.display()))?;
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    let mut lines = text.lines();
    let head = lines.next().unwrap_or_default();
    let folder = head
        .split('"')
        .nth(1)
        .map(|f| PathBuf::from(f.trim_end_matches(['/', '\\'])));
    let languages: Vec<String> = lines
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.contains(' '))
        .map(String::from)
        .collect();
    let version = Command::new(program)
        .arg("--version")
        .output()
        .map(|o| {
            String::from_utf8_lossy(&o.stdout)
                .lines()
                .next()
                .unwrap_or_default()
                .to_string()
        })
        .unwrap_or_default();
    Ok(OcrEngine {
        program: program.to_path_buf(),
        tessdata: tessdata.map(Path::to_path_buf).or(folder),
        languages,
        version,
    })
}

impl OcrEngine {
    /// Whether the traineddata `lang` ("hin") is installed.
    pub fn has(&self, lang: &str) -> bool {
        self.languages.iter().any(|l| l == lang)
    }

    /// Runs Tesseract on a greyscale picture (`pgm`: a binary PGM, see [`pgm`]) at `dpi` with
    /// `args` after the input and output names, and returns its standard output.
    ///
    /// One thread per process (`OMP_THREAD_LIMIT=1`): pages are read in parallel by the
    /// caller instead, which is faster on 2–4 cores than Tesseract's own threads.
    ///
    /// Errors: [`VidyaError::Ocr`] when it cannot start, fails, or runs past
    /// [`PAGE_TIMEOUT_S`].
    pub fn run(&self, pgm: &[u8], dpi: u32, args: &[&str]) -> Result<String> {
        let mut c = Command::new(&self.program);
        c.args(["stdin", "stdout", "--dpi", &dpi.to_string()])
            .args(args)
            .env("OMP_THREAD_LIMIT", "1")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(d) = &self.tessdata {
            c.env("TESSDATA_PREFIX", d);
        }
        #[cfg(windows)]
        {
            use std::os::windows::process::CommandExt;
            // CREATE_NO_WINDOW: no console window flashes up per page.
            c.creation_flags(0x0800_0000);
        }
        let fail = |detail: String| VidyaError::Ocr { detail };
        let mut child = c.spawn().map_err(|e| {
            fail(format!(
                "{} could not be started: {e}",
                self.program.display()
            ))
        })?;
        {
            let mut stdin = child.stdin.take().expect("stdin is piped");
            // Tesseract reads the whole picture before it writes anything, so writing it all
            // first cannot dead-lock on a full output pipe.
            stdin
                .write_all(pgm)
                .map_err(|e| fail(format!("the page could not be handed to Tesseract: {e}")))?;
        }
        let (tx, rx) = std::sync::mpsc::channel();
        let pid = child.id();
        let waiter = std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        let out = match rx.recv_timeout(Duration::from_secs(PAGE_TIMEOUT_S)) {
            Ok(r) => r.map_err(|e| fail(format!("Tesseract stopped: {e}")))?,
            Err(_) => {
                kill(pid);
                let _ = waiter.join();
                return Err(fail(format!(
                    "Tesseract took more than {PAGE_TIMEOUT_S} s on one page"
                )));
            }
        };
        let _ = waiter.join();
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            return Err(fail(format!(
                "Tesseract failed ({}): {}",
                out.status,
                err.lines().last().unwrap_or_default()
            )));
        }
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Ends a Tesseract that ran past its time.
fn kill(pid: u32) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
    }
    #[cfg(windows)]
    {
        let _ = Command::new("taskkill")
            .args(["/F", "/PID", &pid.to_string()])
            .status();
    }
}

/// A binary PGM (Netpbm P5, 8-bit grey) of `grey` (`width` × `height` bytes, row by row):
/// Leptonica reads it from memory without decoding, so nothing is spent compressing a PNG.
pub fn pgm(grey: &[u8], width: u32, height: u32) -> Vec<u8> {
    let mut out = format!("P5\n{width} {height}\n255\n").into_bytes();
    out.extend_from_slice(grey);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgm_header_then_pixels() {
        let p = pgm(&[0, 255, 7, 9], 2, 2);
        assert_eq!(&p[..11], b"P5\n2 2\n255\n");
        assert_eq!(&p[11..], &[0, 255, 7, 9]);
    }
}
