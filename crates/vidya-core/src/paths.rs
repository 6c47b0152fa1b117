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
