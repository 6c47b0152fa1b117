//! Per-user folders (from the `directories` crate).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The per-user data folder: `~/.local/share/vidya` on Linux, `%APPDATA%\Vidya\data` on
/// Windows, `~/Library/Application Support/Vidya` on macOS; `./.vidya` when the system reports
/// no home folder.
pub fn data_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "Vidya")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".vidya"))
}

static LIBRARY: OnceLock<PathBuf> = OnceLock::new();

/// Keeps this process's log files and per-turn traces inside `library` (`<library>/logs`,
/// `<library>/traces`), so that they go where the library goes: onto a USB stick with
/// `--library`, and into the teacher's backup of the library folder. Call once at start with
/// the library the program opened; later calls are ignored. Until called, the default
/// library's folder is used.
pub fn keep_logs_with_library(library: &Path) {
    let _ = LIBRARY.set(library.to_path_buf());
}

/// The library whose folder holds the logs and traces ([`keep_logs_with_library`]; else the
/// default library, [`crate::store::Library::default_dir`]).
fn logs_home() -> PathBuf {
    LIBRARY
        .get()
        .cloned()
        .unwrap_or_else(crate::store::Library::default_dir)
}

/// The folder for rotating log files: `<library>/logs` ([`keep_logs_with_library`]).
pub fn log_dir() -> PathBuf {
    logs_home().join("logs")
}

/// The folder for per-turn trace files: `<library>/traces` ([`keep_logs_with_library`]).
pub fn trace_home() -> PathBuf {
    logs_home().join("traces")
}

/// Folders an installed Vidya keeps its bundled files in, in order: the executable's folder
/// (the Windows install folder), then `../lib/Vidya` and `../lib/vidya` beside it (the .deb
/// puts the programs in `/usr/bin` and the files in `/usr/lib/Vidya`). Each may hold
/// `native/`, `models/<name>/`, `ui/` and `sample/`.
pub fn install_roots() -> Vec<PathBuf> {
    let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(std::path::Path::to_path_buf))
    else {
        return Vec::new();
    };
    vec![
        exe_dir.clone(),
        exe_dir.join("../lib/Vidya"),
        exe_dir.join("../lib/vidya"),
    ]
}

/// Whether this executable runs from an installed copy: an [`install_roots`] folder holds one
/// of the bundled folders (`native/`, `models/`, `sample/`, `licenses/`), so an install that
/// lost one of them still counts as installed. An installed copy uses only its own files: the source-checkout
/// fallbacks (for `cargo run` and the tests) are off, so a damaged install is reported rather
/// than hidden by a checkout on the same machine.
pub fn is_installed() -> bool {
    install_roots().iter().any(|r| {
        ["native", "models", "sample", "licenses"]
            .iter()
            .any(|d| r.join(d).is_dir())
    })
}

/// The folder of the browser interface (`ui/`, its `index.html` inside): `VIDYA_UI_DIR` when
/// set, else `ui/` in an [`install_roots`] folder, `../../ui` (a
/// `target/debug` build in the repository), else the repository's `ui/` this build came from.
pub fn ui_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("VIDYA_UI_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let mut candidates: Vec<PathBuf> = install_roots().iter().map(|r| r.join("ui")).collect();
    if is_installed() {
        let first = candidates.first().cloned().unwrap_or_default();
        return candidates
            .into_iter()
            .find(|d| d.join("index.html").is_file())
            .unwrap_or(first);
    }
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(std::path::Path::to_path_buf))
    {
        candidates.push(exe_dir.join("../../ui"));
    }
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui");
    candidates
        .into_iter()
        .find(|d| d.join("index.html").is_file())
        .unwrap_or(repo)
}
