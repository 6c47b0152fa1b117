//! Per-turn trace log: one JSON object per line in `<library>/traces/trace.YYYY-MM-DD.jsonl`
//! (daily files, 14 kept, rotated by `tracing-appender`). `VIDYA_TRACE_DIR` overrides the
//! folder. A trace holds the question, the rewritten query, the candidates with scores, the
//! quoted sentences, the prompt size, the model, time to first token, total time and the
//! post-check decisions.

use std::io::{BufRead, Write};
use std::path::PathBuf;

/// Days of trace files kept.
pub const KEEP_FILES: usize = 14;

/// The trace folder.
pub fn trace_dir() -> PathBuf {
    std::env::var_os("VIDYA_TRACE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(crate::paths::trace_home)
}

/// Appends one trace record. Errors: the folder cannot be created or written.
pub fn write(record: &serde_json::Value) -> std::io::Result<()> {
    let dir = trace_dir();
    std::fs::create_dir_all(&dir)?;
    let mut appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("trace")
        .filename_suffix("jsonl")
        .max_log_files(KEEP_FILES)
        .build(&dir)
        .map_err(std::io::Error::other)?;
    let mut line = serde_json::to_string(record).map_err(std::io::Error::other)?;
    line.push('\n');
    appender.write_all(line.as_bytes())?;
    appender.flush()
}

/// The last `n` trace records, oldest first (across files, newest file last).
pub fn last(n: usize) -> std::io::Result<Vec<serde_json::Value>> {
    let dir = trace_dir();
    let mut files: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(rd) => rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .is_some_and(|f| f.to_string_lossy().starts_with("trace"))
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    files.sort();
    let mut out = Vec::new();
    for f in files.iter().rev() {
        let lines: Vec<String> = std::io::BufReader::new(std::fs::File::open(f)?)
            .lines()
            .collect::<Result<_, _>>()?;
        for l in lines.iter().rev() {
            if let Ok(v) = serde_json::from_str(l) {
                out.push(v);
                if out.len() == n {
                    out.reverse();
                    return Ok(out);
                }
            }
        }
    }
    out.reverse();
    Ok(out)
}
