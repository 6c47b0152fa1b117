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

/// The folder of the browser interface (`ui/`, its `index.html` inside): `VIDYA_UI_DIR` when
/// set, else `ui/` beside the executable, `../share/vidya/ui` (installed), `../../ui` (a
/// `target/debug` build in the repository), else the repository's `ui/` this build came from.
pub fn ui_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("VIDYA_UI_DIR").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let mut candidates = Vec::new();
    if let Some(exe_dir) = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(std::path::Path::to_path_buf))
    {
        candidates.push(exe_dir.join("ui"));
        candidates.push(exe_dir.join("../share/vidya/ui"));
        candidates.push(exe_dir.join("../../ui"));
    }
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui");
    candidates
        .into_iter()
        .find(|d| d.join("index.html").is_file())
        .unwrap_or(repo)
}
