//! `vidya doctor`: what this machine has of what Vidya needs (native libraries, models,
//! the library, Ollama), each with the fix.

use anyhow::Result;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vidya_core::answer::ollama::{self, LlmConfig, OllamaClient};
use vidya_core::{Library, VidyaError};

/// True when a file can be created (and removed) in `dir`.
fn tempfile_probe(dir: &Path) -> bool {
    let probe = dir.join(format!(".vidya-write-test-{}", std::process::id()));
    let ok = std::fs::write(&probe, b"ok").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// What to do about a missing or damaged native library (the wording of the bundled-file
/// check).
fn native_fix() -> &'static str {
    vidya_core::setup::resources::fix_for(
        vidya_core::paths::is_installed(),
        vidya_core::setup::resources::ResourceKind::Library,
    )
}

pub(crate) fn run(
    library: &Path,
    json: bool,
    host: Option<String>,
    model: String,
) -> Result<ExitCode> {
    let mut problems = Vec::new();
    let mut report = serde_json::Map::new();
    report.insert("library".into(), library.display().to_string().into());
    match Library::open_existing(library) {
        Ok(lib) => {
            let version = lib.schema_version()?;
            let (books, pages, chunks) = lib.counts()?;
            report.insert(
                "database".into(),
                lib.db_path().display().to_string().into(),
            );
            report.insert("schema_version".into(), version.into());
            report.insert("books".into(), books.into());
            report.insert("pages".into(), pages.into());
            report.insert("chunks".into(), chunks.into());
        }
        Err(VidyaError::NoLibrary { .. }) => {
            report.insert("database".into(), serde_json::Value::Null);
        }
        Err(e) => problems.push(format!("library: {e}")),
    }
    // Every bundled file, hashed once (cached): the native libraries below take their verdicts
    // from it, then get a load test; the models, tokenizers and fonts are reported after.
    let bundled = vidya_core::setup::resources::verify(&vidya_core::paths::data_dir());
    let mut natives = Vec::new();
    for entry in vidya_core::native::entries() {
        let found = bundled.files.iter().find(|f| {
            f.kind == vidya_core::setup::resources::ResourceKind::Library
                && f.name == entry.name
                && f.file == entry.file
        });
        let path = found
            .filter(|f| f.status != vidya_core::setup::ResourceStatus::Missing)
            .map(|f| f.path.clone());
        let verified = found.is_some_and(|f| f.status == vidya_core::setup::ResourceStatus::Ok);
        let tried: Vec<PathBuf> = vidya_core::native::search_dirs()
            .into_iter()
            .map(|d| d.join(&entry.file))
            .collect();
        let loads = if entry.name == "pdfium" && path.is_some() {
            vidya_core::ingest::pdf::pdfium()
                .err()
                .map(|e| e.to_string())
        } else {
            None
        };
        let status = match (&path, verified, &loads) {
            // Neural retrieval files are optional until the retrieval stages use them.
            (None, _, _) if entry.group != "core" && !vidya_core::paths::is_installed() => {
                "not installed (cargo xtask setup --models)"
            }
            (None, _, _) => {
                problems.push(format!(
                    "{} is missing (looked in {}). Fix: {}",
                    entry.file,
                    tried
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                    native_fix()
                ));
                "missing"
            }
            (Some(_), _, Some(err)) => {
                problems.push(err.clone());
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
        natives.push(serde_json::json!({
            "name": entry.name, "version": entry.version, "file": entry.file,
            "path": path.map(|p| p.display().to_string()), "status": status, "license": entry.license,
        }));
    }
    report.insert("native".into(), natives.clone().into());
    // Models, tokenizers and fonts (the native libraries are reported above).
    for f in &bundled.files {
        use vidya_core::setup::{resources::ResourceKind, ResourceStatus};
        let counts = f.kind != ResourceKind::Library
            && (f.status == ResourceStatus::Damaged
                || (f.status == ResourceStatus::Missing && bundled.installed));
        if counts {
            problems.extend(f.message.clone());
        }
    }
    let bundled_ok = bundled
        .files
        .iter()
        .filter(|f| f.status == vidya_core::setup::ResourceStatus::Ok)
        .count();
    let bundled_total = bundled.files.len();
    report.insert("resources".into(), serde_json::to_value(&bundled)?);
    // Ollama is optional: without it answers are extractive, so it is reported, not a problem.
    let mut cfg = LlmConfig {
        model: model.clone(),
        ..LlmConfig::default()
    };
    if let Some(h) = host {
        cfg.host = h;
    }
    let ollama_status = match OllamaClient::new(cfg.clone()) {
        Ok(client) => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            match rt.block_on(client.list_models()) {
                Ok(models) => {
                    // Ollama runs but the answer model is missing: answers will fail until it
                    // is pulled, so this is a problem to fix.
                    let same = |m: &String| ollama::same_model(m, &model);
                    if !models.iter().any(same) {
                        problems.push(format!(
                            "the answer model {model} is not installed in Ollama (installed: {}). Fix: `ollama pull {model}`, or choose one with --model / VIDYA_MODEL",
                            if models.is_empty() { "none".to_string() } else { models.join(", ") }
                        ));
                    }
                    serde_json::json!({"host": client.config().host, "running": true, "models": models, "model": model})
                }
                Err(e) => {
                    serde_json::json!({"host": client.config().host, "running": false, "message": e.to_string()})
                }
            }
        }
        Err(e) => serde_json::json!({"host": cfg.host, "running": false, "message": e.to_string()}),
    };
    report.insert("ollama".into(), ollama_status.clone());
    for (what, dir) in [
        ("logs", vidya_core::paths::log_dir()),
        ("traces", vidya_core::trace::trace_dir()),
    ] {
        if !(std::fs::create_dir_all(&dir).is_ok() && tempfile_probe(&dir)) {
            problems.push(format!(
                "the {what} folder {} cannot be written. Fix: make it writable, or point XDG_DATA_HOME (VIDYA_TRACE_DIR for traces) at a writable folder",
                dir.display()
            ));
        }
    }
    report.insert(
        "logs".into(),
        vidya_core::paths::log_dir().display().to_string().into(),
    );
    report.insert(
        "traces".into(),
        vidya_core::trace::trace_dir().display().to_string().into(),
    );
    report.insert("problems".into(), problems.clone().into());
    if json {
        out!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("Vidya {} doctor", env!("CARGO_PKG_VERSION"));
        out!("  library:  {}", library.display());
        match report.get("database").and_then(|d| d.as_str()) {
            Some(db) => {
                out!(
                    "  database: {} (schema v{}; this build writes v{})",
                    db,
                    report["schema_version"],
                    vidya_core::store::schema::SCHEMA_VERSION
                );
                out!(
                    "  books:    {} ({} pages, {} chunks)",
                    report["books"],
                    report["pages"],
                    report["chunks"]
                );
            }
            None if problems.iter().all(|p| !p.starts_with("library:")) => {
                out!("  database: none yet (the first `vidya ingest` creates it here)")
            }
            None => {}
        }
        for n in &natives {
            out!(
                "  {:<9} {} {}",
                format!("{}:", n["name"].as_str().unwrap_or_default()),
                n["status"].as_str().unwrap_or_default(),
                n["path"].as_str().unwrap_or("")
            );
        }
        if ollama_status["running"].as_bool() == Some(true) {
            let models: Vec<String> = ollama_status["models"]
                .as_array()
                .map(|m| {
                    m.iter()
                        .filter_map(|x| x.as_str().map(String::from))
                        .collect()
                })
                .unwrap_or_default();
            out!(
                "  ollama:   running at {} ({})",
                ollama_status["host"].as_str().unwrap_or_default(),
                if models.is_empty() {
                    "no model installed yet".to_string()
                } else {
                    models.join(", ")
                }
            );
        } else {
            out!(
                "  ollama:   not reachable: answers will quote the textbook only. {}",
                ollama_status["message"].as_str().unwrap_or_default()
            );
        }
        out!(
            "  files:    {bundled_ok} of {bundled_total} bundled files present and intact{}",
            if bundled.installed {
                " (installed copy)"
            } else {
                ""
            }
        );
        out!("  logs:     {}", vidya_core::paths::log_dir().display());
        out!("  traces:   {}", vidya_core::trace::trace_dir().display());
        if problems.is_empty() {
            out!("All good.");
        } else {
            out!("Problems:");
            for p in &problems {
                out!("  - {p}");
            }
        }
    }
    Ok(if problems.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
