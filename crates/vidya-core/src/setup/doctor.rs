//! `vidya doctor`'s checks, typed: the library, each native library (found, pinned and
//! loadable), every bundled file, Ollama and the answer model, and the log and trace folders,
//! each problem worded with its fix ([`DoctorReport::check`]).

use super::resources::{self, ResourceKind, ResourceReport, ResourceStatus};
use crate::answer::llm_client::{self, LlmConfig, OllamaClient};
use crate::store::schema::SCHEMA_VERSION;
use crate::{Library, VidyaError};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Everything `vidya doctor` checked (its `--json` output).
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// The library folder.
    pub library: String,
    /// The library's database: absent when it could not be opened (see `problems`), `null`
    /// when there is no library yet.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database: Option<Option<String>>,
    /// The stored library's contents, when it opened.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub contents: Option<LibraryContents>,
    /// Each native library of this platform.
    pub native: Vec<NativeCheck>,
    /// Every bundled file (models, tokenizers, fonts, native libraries).
    pub resources: ResourceReport,
    /// Ollama at the configured host.
    pub ollama: OllamaCheck,
    /// The OCR engine for scanned pages ([`crate::ingest::ocr::engine`]).
    pub ocr: OcrCheck,
    /// The log folder.
    pub logs: String,
    /// The trace folder.
    pub traces: String,
    /// What needs fixing, each with its fix; empty when all is well.
    pub problems: Vec<String>,
}

/// The OCR engine: where it is, its version and languages, or why it was not found.
#[derive(Debug, Clone, Serialize)]
pub struct OcrCheck {
    /// Tesseract was found with at least one of Vidya's languages.
    pub found: bool,
    /// The program's path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// Its `--version` first line ("tesseract 5.3.0").
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// Installed languages (Tesseract codes: "hin", "osd").
    pub languages: Vec<String>,
    /// Why it was not found, with the fix.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl OcrCheck {
    fn check() -> Self {
        match crate::ingest::ocr::engine() {
            Ok(e) => Self {
                found: true,
                program: Some(dunce::simplified(&e.program).display().to_string()),
                version: Some(e.version.clone()),
                languages: e.languages.clone(),
                message: None,
            },
            Err(why) => Self {
                found: false,
                program: None,
                version: None,
                languages: Vec::new(),
                message: Some(why),
            },
        }
    }
}

/// What a stored library holds.
#[derive(Debug, Clone, Serialize)]
pub struct LibraryContents {
    /// The database's schema version (this build writes [`SCHEMA_VERSION`]).
    pub schema_version: i64,
    /// Books stored.
    pub books: i64,
    /// Pages stored.
    pub pages: i64,
    /// Chunks stored.
    pub chunks: i64,
    /// Chunks without their vector or sentence vectors from this version's embedder
    /// ([`crate::embed::model_id`]): an earlier version made them, or the book was added with
    /// vectors off. They are found by word search only until the app's start-up refresh or
    /// `vidya reindex` makes them.
    pub chunks_without_vectors: i64,
}

/// One native library ([`crate::native::entries`]).
#[derive(Debug, Clone, Serialize)]
pub struct NativeCheck {
    /// What it is (`pdfium`, `onnxruntime`).
    pub name: String,
    /// The pinned upstream version.
    pub version: String,
    /// File name.
    pub file: String,
    /// Where it was found.
    pub path: Option<String>,
    /// `ok`, `missing`, `broken` (found but does not load), `unverified` (not the pinned
    /// file) or `not installed (cargo xtask setup --models)` (optional in a source checkout).
    pub status: &'static str,
    /// Its licence.
    pub license: String,
}

/// Ollama as the doctor found it. Ollama is optional (answers are extractive without it), so
/// only a missing answer model is a problem.
#[derive(Debug, Clone, Serialize)]
pub struct OllamaCheck {
    /// The host asked.
    pub host: String,
    /// Whether it answered.
    pub running: bool,
    /// Installed models, when running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub models: Option<Vec<String>>,
    /// The answer model in use, when running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Why it could not be reached.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl DoctorReport {
    /// Checks everything for the library at `library`, Ollama at `host` (the default when
    /// `None`) and the answer model `model`. Never fails: what cannot be checked is a problem.
    pub fn check(library: &Path, host: Option<String>, model: &str) -> Self {
        let mut problems = Vec::new();
        let (database, contents) = check_library(library, &mut problems);
        // Every bundled file, hashed once (cached): the native libraries take their verdicts
        // from it, then get a load test.
        let bundled = resources::verify(&crate::paths::data_dir());
        let native = crate::native::entries()
            .iter()
            .map(|e| check_native(e, &bundled, &mut problems))
            .collect();
        // Models, tokenizers and fonts (the native libraries are counted above).
        for f in &bundled.files {
            let counts = f.kind != ResourceKind::Library
                && (f.status == ResourceStatus::Damaged
                    || (f.status == ResourceStatus::Missing && bundled.installed));
            if counts {
                problems.extend(f.message.clone());
            }
        }
        problems.extend(vector_problem(contents.as_ref(), &bundled));
        let ollama = check_ollama(host, model, &mut problems);
        let ocr = OcrCheck::check();
        let (logs, traces) = (crate::paths::log_dir(), crate::trace::trace_dir());
        // Both live in the library folder: checked once it exists (never created by a check).
        for (what, dir) in [("logs", &logs), ("traces", &traces)] {
            let checkable = dir.parent().is_some_and(Path::is_dir);
            if checkable && !(std::fs::create_dir_all(dir).is_ok() && can_write(dir)) {
                problems.push(format!(
                    "the {what} folder {} cannot be written. Fix: make the library folder writable (VIDYA_TRACE_DIR puts traces elsewhere)",
                    dir.display()
                ));
            }
        }
        Self {
            library: library.display().to_string(),
            database,
            contents,
            native,
            resources: bundled,
            ollama,
            ocr,
            logs: logs.display().to_string(),
            traces: traces.display().to_string(),
            problems,
        }
    }

    /// Bundled files present and intact, and all of them.
    pub fn bundled_ok(&self) -> (usize, usize) {
        let ok = self
            .resources
            .files
            .iter()
            .filter(|f| f.status == ResourceStatus::Ok)
            .count();
        (ok, self.resources.files.len())
    }

    /// The report for a person, one line per check, then the problems (or "All good.").
    pub fn to_text(&self) -> String {
        let mut out = vec![
            format!("Vidya {} doctor", env!("CARGO_PKG_VERSION")),
            format!("  library:  {}", self.library),
        ];
        match (&self.database, &self.contents) {
            (Some(Some(db)), Some(c)) => {
                out.push(format!(
                    "  database: {db} (schema v{}; this build writes v{SCHEMA_VERSION})",
                    c.schema_version
                ));
                out.push(format!(
                    "  books:    {} ({} pages, {} chunks)",
                    c.books, c.pages, c.chunks
                ));
                if c.chunks > 0 {
                    out.push(format!(
                        "  vectors:  {} of {} chunks searched by meaning{}",
                        c.chunks - c.chunks_without_vectors,
                        c.chunks,
                        if embedder_installed(&self.resources) {
                            ""
                        } else {
                            " (the embedder is not installed)"
                        }
                    ));
                }
            }
            (Some(None), _) => {
                out.push("  database: none yet (the first `vidya ingest` creates it here)".into())
            }
            _ => {}
        }
        for n in &self.native {
            out.push(format!(
                "  {:<9} {} {}",
                format!("{}:", n.name),
                n.status,
                n.path.as_deref().unwrap_or("")
            ));
        }
        let o = &self.ollama;
        match &o.models {
            Some(models) if o.running => out.push(format!(
                "  ollama:   running at {} ({})",
                o.host,
                if models.is_empty() {
                    "no model installed yet".to_string()
                } else {
                    models.join(", ")
                }
            )),
            _ => out.push(format!(
                "  ollama:   not reachable: answers will quote the textbook only. {}",
                o.message.as_deref().unwrap_or_default()
            )),
        }
        out.push(match (&self.ocr.program, &self.ocr.message) {
            (Some(program), _) => format!(
                "  ocr:      ok {} ({}) {program}",
                self.ocr.version.as_deref().unwrap_or("tesseract"),
                self.ocr.languages.join(", ")
            ),
            (None, why) => format!(
                "  ocr:      not found: scanned pages cannot be read. {}",
                why.as_deref().unwrap_or_default()
            ),
        });
        let (ok, total) = self.bundled_ok();
        out.push(format!(
            "  files:    {ok} of {total} bundled files present and intact{}",
            if self.resources.installed {
                " (installed copy)"
            } else {
                ""
            }
        ));
        out.push(format!("  logs:     {}", self.logs));
        out.push(format!("  traces:   {}", self.traces));
        if self.problems.is_empty() {
            out.push("All good.".into());
        } else {
            out.push("Problems:".into());
            out.extend(self.problems.iter().map(|p| format!("  - {p}")));
        }
        out.join("\n")
    }
}

/// Chunks without vectors from this version's embedder, with the fix; a problem only when
/// the embedder is installed to make them (without it, word search is what there is).
fn vector_problem(contents: Option<&LibraryContents>, bundled: &ResourceReport) -> Option<String> {
    let c = contents.filter(|c| c.chunks_without_vectors > 0)?;
    embedder_installed(bundled).then(|| format!(
        "{} of {} chunk(s) have no vectors from this version's embedder, so they are found by their words only. Fix: start Vidya (the window, or `vidya serve`), which prepares them in the background, or run `vidya reindex`",
        c.chunks_without_vectors, c.chunks
    ))
}

/// Whether every file of the embedder ([`crate::embed::MODEL_DIR`]) is present and intact.
fn embedder_installed(bundled: &ResourceReport) -> bool {
    let mut files = bundled
        .files
        .iter()
        .filter(|f| f.name == crate::embed::MODEL_DIR)
        .peekable();
    files.peek().is_some() && files.all(|f| f.status == ResourceStatus::Ok)
}

/// The library's database and contents (see [`DoctorReport::database`]).
fn check_library(
    library: &Path,
    problems: &mut Vec<String>,
) -> (Option<Option<String>>, Option<LibraryContents>) {
    let opened = Library::open_existing(library).and_then(|lib| {
        let schema_version = lib.schema_version()?;
        let (books, pages, chunks) = lib.counts()?;
        let chunks_without_vectors = lib.chunks_to_embed_count(&crate::embed::model_id())?;
        let contents = LibraryContents {
            schema_version,
            books,
            pages,
            chunks,
            chunks_without_vectors,
        };
        Ok((lib.db_path().display().to_string(), contents))
    });
    match opened {
        Ok((db, contents)) => (Some(Some(db)), Some(contents)),
        Err(VidyaError::NoLibrary { .. }) => (Some(None), None),
        Err(e) => {
            problems.push(format!("library: {e}"));
            (None, None)
        }
    }
}

/// What to do about a missing or damaged native library (the bundled-file check's wording).
fn native_fix() -> &'static str {
    resources::fix_for(crate::paths::is_installed(), ResourceKind::Library)
}

/// One native library: found and pinned (from the bundled-file check), and, for pdfium,
/// loadable.
fn check_native(
    entry: &crate::native::NativeEntry,
    bundled: &ResourceReport,
    problems: &mut Vec<String>,
) -> NativeCheck {
    let found = bundled.files.iter().find(|f| {
        f.kind == ResourceKind::Library && f.name == entry.name && f.file == entry.wheel.file
    });
    let path = found
        .filter(|f| f.status != ResourceStatus::Missing)
        .map(|f| f.path.clone());
    let verified = found.is_some_and(|f| f.status == ResourceStatus::Ok);
    let loads = if entry.name == "pdfium" && path.is_some() {
        crate::ingest::pdf::pdfium().err().map(|e| e.to_string())
    } else {
        None
    };
    let status = match (&path, verified, loads) {
        // Neural retrieval files are optional until the retrieval stages use them.
        (None, _, _) if entry.group != "core" && !crate::paths::is_installed() => {
            "not installed (cargo xtask setup --models)"
        }
        (None, _, _) => {
            let tried: Vec<String> = crate::native::search_dirs()
                .into_iter()
                .map(|d| d.join(&entry.wheel.file).display().to_string())
                .collect();
            problems.push(format!(
                "{} is missing (looked in {}). Fix: {}",
                entry.wheel.file,
                tried.join(", "),
                native_fix()
            ));
            "missing"
        }
        (Some(_), _, Some(err)) => {
            problems.push(err);
            "broken"
        }
        (Some(p), false, None) => {
            problems.push(format!(
                "{} is not the pinned version (sha256 differs from resources/manifest.toml). Fix: {}",
                p.display(),
                native_fix()
            ));
            "unverified"
        }
        (Some(_), true, None) => "ok",
    };
    NativeCheck {
        name: entry.name.clone(),
        version: entry.version.clone(),
        file: entry.wheel.file.clone(),
        path: path.map(|p: PathBuf| p.display().to_string()),
        status,
        license: entry.license.clone(),
    }
}

/// Ollama at `host` (the default when `None`): running and with `model`, or why not.
fn check_ollama(host: Option<String>, model: &str, problems: &mut Vec<String>) -> OllamaCheck {
    let mut cfg = LlmConfig {
        model: model.to_string(),
        ..LlmConfig::default()
    };
    if let Some(h) = host {
        cfg.host = h;
    }
    let unreachable = |host: String, message: String| OllamaCheck {
        host,
        running: false,
        models: None,
        model: None,
        message: Some(message),
    };
    let client = match OllamaClient::new(cfg.clone()) {
        Ok(c) => c,
        Err(e) => return unreachable(cfg.host, e.to_string()),
    };
    let host = client.config().host.clone();
    let listed = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("could not start a background task ({e})"))
        .and_then(|rt| rt.block_on(client.list_models()).map_err(|e| e.to_string()));
    match listed {
        Ok(models) => {
            // Ollama runs but the answer model is missing: answers fail until it is pulled.
            if !models.iter().any(|m| llm_client::same_model(m, model)) {
                problems.push(format!(
                    "the answer model {model} is not installed in Ollama (installed: {}). Fix: `ollama pull {model}`, or choose one with --model / VIDYA_MODEL",
                    if models.is_empty() { "none".to_string() } else { models.join(", ") }
                ));
            }
            OllamaCheck {
                host,
                running: true,
                models: Some(models),
                model: Some(model.to_string()),
                message: None,
            }
        }
        Err(message) => unreachable(host, message),
    }
}

/// True when a file can be created (and removed) in `dir`.
fn can_write(dir: &Path) -> bool {
    let probe = dir.join(format!(".vidya-write-test-{}", std::process::id()));
    let ok = std::fs::write(&probe, b"ok").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_none_yet_and_a_damaged_one_is_a_problem() {
        let dir = tempfile::tempdir().unwrap();
        let mut problems = Vec::new();
        let (db, contents) = check_library(&dir.path().join("nothing-here"), &mut problems);
        assert_eq!((db, contents.is_none()), (Some(None), true));
        assert!(problems.is_empty());
        // A database file that is not SQLite.
        let broken = dir.path().join("broken");
        std::fs::create_dir(&broken).unwrap();
        std::fs::write(
            broken.join(crate::store::DB_FILE),
            b"not a database at all, sorry",
        )
        .unwrap();
        let (db, _) = check_library(&broken, &mut problems);
        assert_eq!(db, None);
        assert!(problems[0].starts_with("library: "), "{problems:?}");
        // A real one: its contents.
        let real = dir.path().join("real");
        drop(Library::open(&real).unwrap());
        let (db, contents) = check_library(&real, &mut Vec::new());
        assert!(db.unwrap().unwrap().ends_with(crate::store::DB_FILE));
        let c = contents.unwrap();
        assert_eq!(
            (c.schema_version, c.books, c.chunks),
            (SCHEMA_VERSION, 0, 0)
        );
    }

    /// Stale or missing vectors are a problem with its fix when the embedder is installed,
    /// and only a note on the `vectors:` line when it is not.
    #[test]
    fn chunks_without_vectors_are_a_problem_only_when_the_embedder_can_make_them() {
        let e5 = |status| resources::ResourceCheck {
            name: crate::embed::MODEL_DIR.into(),
            file: crate::embed::MODEL_FILE.into(),
            kind: ResourceKind::Model,
            required: false,
            path: "/models/multilingual-e5-small/model_int8.onnx".into(),
            status,
            size_bytes: 0,
            message: None,
        };
        let contents = |without| LibraryContents {
            schema_version: SCHEMA_VERSION,
            books: 1,
            pages: 37,
            chunks: 126,
            chunks_without_vectors: without,
        };
        let installed = ResourceReport {
            files: vec![e5(ResourceStatus::Ok)],
            installed: false,
        };
        let missing = ResourceReport {
            files: vec![e5(ResourceStatus::Missing)],
            installed: false,
        };
        let p = vector_problem(Some(&contents(126)), &installed).unwrap();
        assert!(p.starts_with("126 of 126 chunk(s) have no vectors"), "{p}");
        assert!(p.contains("run `vidya reindex`"), "{p}");
        assert_eq!(vector_problem(Some(&contents(0)), &installed), None);
        assert_eq!(vector_problem(Some(&contents(126)), &missing), None);
        assert_eq!(vector_problem(None, &installed), None);
        assert!(!embedder_installed(&ResourceReport {
            files: Vec::new(),
            installed: false
        }));
    }

    #[test]
    fn the_text_names_each_part_and_the_json_keeps_its_keys() {
        let report = DoctorReport {
            library: "/books".into(),
            database: Some(None),
            contents: None,
            native: vec![NativeCheck {
                name: "pdfium".into(),
                version: "7350".into(),
                file: "libpdfium.so".into(),
                path: Some("/opt/vidya/native/libpdfium.so".into()),
                status: "ok",
                license: "BSD-3-Clause".into(),
            }],
            resources: ResourceReport {
                files: Vec::new(),
                installed: false,
            },
            ollama: OllamaCheck {
                host: "http://127.0.0.1:9".into(),
                running: false,
                models: None,
                model: None,
                message: Some("Ollama is not running".into()),
            },
            ocr: OcrCheck {
                found: false,
                program: None,
                version: None,
                languages: Vec::new(),
                message: Some("Tesseract was not found".into()),
            },
            logs: "/logs".into(),
            traces: "/traces".into(),
            problems: vec!["the answer model is missing. Fix: pull it".into()],
        };
        let text = report.to_text();
        for line in [
            "  database: none yet",
            "  pdfium:   ok /opt/vidya/native/libpdfium.so",
            "  ollama:   not reachable: answers will quote the textbook only. Ollama is not running",
            "  files:    0 of 0 bundled files present and intact",
            "Problems:\n  - the answer model is missing. Fix: pull it",
        ] {
            assert!(text.contains(line), "{line:?} not in\n{text}");
        }
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["database"].is_null() && json.get("books").is_none());
        assert_eq!(json["native"][0]["status"], "ok");
        assert_eq!(json["ollama"]["running"], false);
        assert!(json["ollama"].get("models").is_none());
        let stored = DoctorReport {
            database: Some(Some("/books/library.sqlite3".into())),
            contents: Some(LibraryContents {
                schema_version: 7,
                books: 2,
                pages: 1069,
                chunks: 5021,
                chunks_without_vectors: 21,
            }),
            problems: Vec::new(),
            ..report
        };
        let json = serde_json::to_value(&stored).unwrap();
        assert_eq!(
            (json["books"].as_i64(), json["schema_version"].as_i64()),
            (Some(2), Some(7))
        );
        let text = stored.to_text();
        assert!(
            text.contains("  books:    2 (1069 pages, 5021 chunks)")
                && text.contains(
                    "  vectors:  5000 of 5021 chunks searched by meaning (the embedder is not installed)"
                ),
            "{text}"
        );
        assert!(text.ends_with("All good."), "{text}");
    }
}
