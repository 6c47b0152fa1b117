//! The laptop itself: memory (for the answer-model recommendation), and the library folder's
//! free space and write access. Figures come from the `sysinfo` crate.

use serde::Serialize;
use std::path::Path;

/// One GiB in bytes.
pub const GIB: u64 = 1 << 30;

/// Free space below which the library folder is reported as too full (bytes): a textbook of
/// 300 pages takes 10–30 MB in the library, an answer model 1.3–2 GB in Ollama's folder.
pub const LOW_DISK_BYTES: u64 = 2 * GIB;

/// An answer model the wizard can recommend.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct ModelAdvice {
    /// Ollama model name (`llama3.2:3b`); `None` when the laptop is too small for any model
    /// (answers then quote the textbook only).
    pub model: Option<String>,
    /// Download / file size of that model (bytes, Q4_K_M as the Ollama library lists it).
    pub size_bytes: u64,
    /// Why, in one sentence.
    pub reason: String,
}

/// Recommends an answer model from total memory (bytes).
///
/// Sizes are those of the Ollama library's Q4_K_M builds (ollama.com/library/llama3.2: 3B
/// 2.0 GB, 1B 1.3 GB); a model needs about its file size plus 1 GB of context and runtime
/// free, beside Windows and Vidya (≈1 GB). So 8 GB laptops (which report ≈7.6 GiB) run the
/// 3B model, 4–6 GB laptops the 1B model, and smaller ones none.
pub fn recommend_model(total_memory_bytes: u64) -> ModelAdvice {
    let gib = total_memory_bytes as f64 / GIB as f64;
    if gib >= 7.0 {
        ModelAdvice {
            model: Some("llama3.2:3b".into()),
            size_bytes: 2_019_393_189,
            reason: format!(
                "this laptop has {gib:.1} GB of memory: enough for a 3B model (Q4, 2.0 GB)"
            ),
        }
    } else if gib >= 3.5 {
        ModelAdvice {
            model: Some("llama3.2:1b".into()),
            size_bytes: 1_321_098_329,
            reason: format!("this laptop has {gib:.1} GB of memory: a 1B model (Q4, 1.3 GB) fits, a 3B model would be too slow"),
        }
    } else {
        ModelAdvice {
            model: None,
            size_bytes: 0,
            reason: format!("this laptop has {gib:.1} GB of memory: too little for an answer model; Vidya answers by quoting the textbook"),
        }
    }
}

/// The machine and the library folder.
#[derive(Debug, Clone, Serialize)]
pub struct MachineReport {
    /// Total memory (bytes).
    pub total_memory_bytes: u64,
    /// Memory free now (bytes).
    pub available_memory_bytes: u64,
    /// The library folder checked.
    pub library: String,
    /// Free space on the library's disk (bytes); `None` when the disk was not found.
    pub free_disk_bytes: Option<u64>,
    /// Whether a file can be created in the library folder.
    pub library_writable: bool,
    /// The recommendation for this memory.
    pub advice: ModelAdvice,
    /// Problems, each with its fix (the library folder cannot be written).
    pub problems: Vec<String>,
    /// Worth knowing, not blocking (little free disk space: the answer model may live on
    /// another disk), each with its fix.
    pub warnings: Vec<String>,
}

/// Free space on the disk holding `path` (bytes): the mounted disk with the longest mount
/// point that `path` starts with.
pub fn free_disk_bytes(path: &Path) -> Option<u64> {
    let path = nearest_existing(path);
    let disks = sysinfo::Disks::new_with_refreshed_list();
    disks
        .list()
        .iter()
        .filter(|d| path.starts_with(d.mount_point()))
        .max_by_key(|d| d.mount_point().as_os_str().len())
        .map(|d| d.available_space())
}

fn nearest_existing(path: &Path) -> std::path::PathBuf {
    let mut p = dunce::canonicalize(path).ok();
    let mut cur = path.to_path_buf();
    while p.is_none() {
        match cur.parent() {
            Some(parent) => {
                cur = parent.to_path_buf();
                p = dunce::canonicalize(&cur).ok();
            }
            None => return path.to_path_buf(),
        }
    }
    p.unwrap_or_else(|| path.to_path_buf())
}

/// Whether a file can be created in `dir` (created when absent).
pub fn writable(dir: &Path) -> bool {
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let probe = dir.join(format!(".vidya-write-test-{}", std::process::id()));
    let ok = std::fs::write(&probe, b"ok").is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// Checks memory, and the library folder `library`'s disk space and write access.
pub fn check(library: &Path) -> MachineReport {
    let mut sys = sysinfo::System::new();
    sys.refresh_memory();
    let total = sys.total_memory();
    let free_disk = free_disk_bytes(library);
    let library_writable = writable(library);
    let mut problems = Vec::new();
    let mut warnings = Vec::new();
    if !library_writable {
        problems.push(format!(
            "the library folder {} cannot be written. Fix: choose a folder in your user folder (set VIDYA_LIBRARY), or ask for write access to it",
            library.display()
        ));
    }
    if let Some(free) = free_disk.filter(|f| *f < LOW_DISK_BYTES) {
        warnings.push(format!(
            "only {:.1} GB is free on the disk of {}: books and an answer model need about 2 GB. Fix: delete files you do not need, or move the library to a larger disk",
            free as f64 / GIB as f64,
            library.display()
        ));
    }
    MachineReport {
        total_memory_bytes: total,
        available_memory_bytes: sys.available_memory(),
        library: library.display().to_string(),
        free_disk_bytes: free_disk,
        library_writable,
        advice: recommend_model(total),
        problems,
        warnings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recommendation_follows_memory() {
        assert_eq!(
            recommend_model(8 * GIB - 400 * (1 << 20)).model.as_deref(),
            Some("llama3.2:3b")
        );
        assert_eq!(
            recommend_model(4 * GIB).model.as_deref(),
            Some("llama3.2:1b")
        );
        assert_eq!(recommend_model(2 * GIB).model, None);
    }

    #[test]
    fn this_machine_has_memory_and_a_disk() {
        let dir = tempfile::tempdir().unwrap();
        let r = check(&dir.path().join("library"));
        assert!(r.total_memory_bytes > 0);
        assert!(r.library_writable);
        assert!(r.free_disk_bytes.is_some(), "{r:?}");
    }
}
