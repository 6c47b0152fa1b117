//! Logging through `tracing`: stderr (warnings by default, more with -v) and a daily-rotated
//! log file in the per-user data folder (`<data>/logs/vidya.log.YYYY-MM-DD`, 7 files kept).

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::{fmt, layer::SubscriberExt, util::SubscriberInitExt, EnvFilter, Layer};

/// Installs the subscribers; keep the returned guard alive until exit so the file is flushed.
pub fn init(verbose: u8) -> Option<WorkerGuard> {
    let level = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let stderr_filter =
        EnvFilter::try_from_env("VIDYA_LOG").unwrap_or_else(|_| EnvFilter::new(level));
    use std::io::IsTerminal;
    let stderr = fmt::layer()
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::stderr().is_terminal())
        .with_filter(stderr_filter);
    // The log folder is inside the library: never created before the library itself is (a
    // mistyped --library must not leave a folder behind), so a new library's first ingest logs
    // to stderr only.
    let dir = vidya_core::paths::log_dir();
    let library_exists = dir.parent().is_some_and(std::path::Path::is_dir);
    let file = library_exists
        .then(|| std::fs::create_dir_all(&dir).ok())
        .flatten()
        .and_then(|_| {
            tracing_appender::rolling::Builder::new()
                .rotation(tracing_appender::rolling::Rotation::DAILY)
                .filename_prefix("vidya.log")
                .max_log_files(7)
                .build(&dir)
                .ok()
        });
    match file {
        Some(appender) => {
            let (writer, guard) = tracing_appender::non_blocking(appender);
            let file_layer = fmt::layer()
                .with_writer(writer)
                .with_ansi(false)
                .with_filter(EnvFilter::new("info"));
            tracing_subscriber::registry()
                .with(stderr)
                .with(file_layer)
                .init();
            Some(guard)
        }
        None => {
            tracing_subscriber::registry().with(stderr).init();
            None
        }
    }
}
