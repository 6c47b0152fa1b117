//! Per-user folders (from the `directories` crate).

use std::path::PathBuf;

/// The per-user data folder: `~/.local/share/vidya` on Linux, `%APPDATA%\Vidya\data` on
/// Windows, `~/Library/Application Support/Vidya` on macOS; `./.vidya` when the system reports
/// no home folder.
pub fn data_dir() -> PathBuf {
    directories::ProjectDirs::from("", "", "Vidya")
        .map(|d| d.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".vidya"))
}

/// The folder for rotating log files: `<data dir>/logs`.
pub fn log_dir() -> PathBuf {
    data_dir().join("logs")
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
