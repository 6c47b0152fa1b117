//! Where things are on this machine, for the setup wizard: the `ollama` program, the folders a
//! teacher's USB stick or downloads may be in, and Ollama's offline installer and `.gguf`
//! model files there.

use serde::Serialize;
use std::path::{Path, PathBuf};

/// A `.gguf` model file found where a teacher would have put it.
#[derive(Debug, Clone, Serialize)]
pub struct GgufFile {
    /// Absolute path.
    pub path: PathBuf,
    /// Size (bytes).
    pub size_bytes: u64,
    /// The Ollama name the import would give it ([`model_name_for`]).
    pub suggested_name: String,
}

/// The `ollama` program: on `PATH`, else where Ollama's installers put it
/// (`%LOCALAPPDATA%\Programs\Ollama\ollama.exe` on Windows, `/usr/local/bin/ollama` on Linux).
/// `VIDYA_OLLAMA_PROGRAM` overrides (an empty value means "not installed").
pub fn find_program() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("VIDYA_OLLAMA_PROGRAM") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    if let Ok(p) = which::which("ollama") {
        return Some(p);
    }
    let mut known = Vec::new();
    if let Some(local) = std::env::var_os("LOCALAPPDATA") {
        known.push(PathBuf::from(local).join("Programs/Ollama/ollama.exe"));
    }
    known.push(PathBuf::from("/usr/local/bin/ollama"));
    known.push(PathBuf::from("/usr/bin/ollama"));
    known.into_iter().find(|p| p.is_file())
}

/// Folders a teacher's USB stick or downloads may be in, most likely first: the folder Vidya's
/// installer ran from (recorded by the Windows installer in `installer-source.txt`), the
/// install folder, `VIDYA_MEDIA_DIRS` (separated like `PATH`), removable drives
/// (`/media/<user>/*`, `/run/media/<user>/*`, drive letters D: to Z:), and Downloads.
pub fn media_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for root in crate::paths::install_roots() {
        if let Ok(s) = std::fs::read_to_string(root.join("installer-source.txt")) {
            let s = s.trim().trim_start_matches('\u{feff}');
            if !s.is_empty() {
                dirs.push(PathBuf::from(s));
            }
        }
    }
    if let Some(v) = std::env::var_os("VIDYA_MEDIA_DIRS") {
        dirs.extend(std::env::split_paths(&v));
    }
    if let Some(first) = crate::paths::install_roots().into_iter().next() {
        dirs.push(first);
    }
    if cfg!(windows) {
        for letter in b'D'..=b'Z' {
            let d = PathBuf::from(format!("{}:\\", letter as char));
            if d.is_dir() {
                dirs.push(d);
            }
        }
    } else {
        let user = std::env::var("USER").unwrap_or_default();
        for base in [format!("/media/{user}"), format!("/run/media/{user}")] {
            if let Ok(rd) = std::fs::read_dir(&base) {
                dirs.extend(rd.flatten().map(|e| e.path()).filter(|p| p.is_dir()));
            }
        }
    }
    if let Some(d) =
        directories::UserDirs::new().and_then(|u| u.download_dir().map(Path::to_path_buf))
    {
        dirs.push(d);
    }
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| d.is_dir() && seen.insert(d.clone()));
    dirs
}

/// Files in `dirs` and their direct subfolders that `keep` accepts (by lower-case file name).
fn files_in(dirs: &[PathBuf], keep: &dyn Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for d in dirs {
        let Ok(rd) = std::fs::read_dir(d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                if let Ok(sub) = std::fs::read_dir(&p) {
                    out.extend(sub.flatten().map(|s| s.path()).filter(|s| {
                        s.is_file()
                            && keep(
                                &s.file_name()
                                    .unwrap_or_default()
                                    .to_string_lossy()
                                    .to_lowercase(),
                            )
                    }));
                }
            } else if p.is_file() && keep(&e.file_name().to_string_lossy().to_lowercase()) {
                out.push(p);
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The file name of Ollama's offline installer for this platform, as ollama.com publishes it.
pub const INSTALLER_NAME: &str = if cfg!(windows) {
    "OllamaSetup.exe"
} else {
    "ollama-linux-amd64.tgz"
};

/// Ollama's installer in [`media_dirs`]: `OllamaSetup*.exe` on Windows, `ollama-linux-*.tgz`
/// (or `.tar.zst`) on Linux.
pub fn find_installer() -> Option<PathBuf> {
    let windows = cfg!(windows);
    files_in(&media_dirs(), &|n: &str| {
        if windows {
            n.starts_with("ollamasetup") && n.ends_with(".exe")
        } else {
            n.starts_with("ollama-linux") && (n.ends_with(".tgz") || n.ends_with(".tar.zst"))
        }
    })
    .into_iter()
    // A copy cut short (0 bytes, a failed download) is not offered.
    .find(|p| std::fs::metadata(p).is_ok_and(|m| m.len() > 1 << 20))
}

/// `.gguf` files in [`media_dirs`], largest first.
pub fn find_gguf_files() -> Vec<GgufFile> {
    let mut found: Vec<GgufFile> = files_in(&media_dirs(), &|n: &str| n.ends_with(".gguf"))
        .into_iter()
        .map(|p| GgufFile {
            size_bytes: std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0),
            suggested_name: model_name_for(&p),
            path: p,
        })
        .collect();
    found.sort_by_key(|f| std::cmp::Reverse(f.size_bytes));
    found
}

/// The Ollama model name an imported file gets: its file name without `.gguf`, lower case,
/// with characters Ollama does not accept in names (anything but `a-z 0-9 . _ -`) as `-`
/// (`Llama-3.2-3B-Instruct-Q4_K_M.gguf` → `llama-3.2-3b-instruct-q4_k_m`).
pub fn model_name_for(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let name: String = stem
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '-'
            }
        })
        .collect();
    let name = name.trim_matches(|c| c == '-' || c == '.').to_string();
    if name.is_empty() {
        "imported-model".into()
    } else {
        name
    }
}
