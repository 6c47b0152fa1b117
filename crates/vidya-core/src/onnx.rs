//! ONNX Runtime, shared by every model Vidya runs (the embedder, the cross-encoder reranker).
//!
//! ONNX Runtime is loaded dynamically (`ort` with `load-dynamic`) from the library pinned in
//! `resources/manifest.toml`, by absolute path, so that a stale copy elsewhere on the machine
//! never wins. ONNX Runtime allows one environment per process: it is created on first use and
//! shared by every session.

use crate::error::{Result, VidyaError};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Threads one model session uses for one run (the target laptops have 2–4 cores).
pub const INTRA_THREADS: usize = 2;

/// A [`VidyaError::ModelMissing`] with `detail`.
pub(crate) fn missing(detail: impl Into<String>) -> VidyaError {
    VidyaError::ModelMissing {
        detail: detail.into(),
    }
}

/// The process's ONNX Runtime environment, created on first use from the pinned library.
///
/// Errors: [`VidyaError::ModelMissing`] when the manifest has no ONNX Runtime for this
/// platform, the library is not installed, or it cannot be loaded.
pub fn environment() -> Result<&'static ort::environment::Environment> {
    static ENV: OnceLock<std::result::Result<ort::environment::Environment, String>> =
        OnceLock::new();
    ENV.get_or_init(|| {
        let located = crate::native::locate("onnxruntime")
            .ok_or("resources/manifest.toml has no ONNX Runtime for this platform")?;
        let lib = located
            .path
            .ok_or_else(|| format!("{} is not installed", located.entry.wheel.file))?;
        init(&lib)
    })
    .as_ref()
    .map_err(|e| missing(e.clone()))
}

/// Turns ONNX Runtime's own telemetry off before the runtime is loaded: since 1.29 its Linux
/// and macOS builds carry Microsoft's 1DS telemetry, which at environment creation writes a
/// device id and a `ProcessInfo` event (OS, CPU, program path) to
/// `~/.cache/Microsoft/DeveloperTools/.onnxruntime/` and uploads them when the machine is
/// online. `ORT_DISABLE_TELEMETRY=1` (onnxruntime PR #27379) stops all of it; the API switch
/// ([`ort::environment::EnvironmentBuilder::with_telemetry`]) comes too late for that first
/// event. Call it at the start of `main`, before other threads run (it sets an environment
/// variable of this process); [`environment`] calls it too.
pub fn opt_out_of_runtime_telemetry() {
    if std::env::var_os("ORT_DISABLE_TELEMETRY").is_none() {
        std::env::set_var("ORT_DISABLE_TELEMETRY", "1");
    }
}

fn init(lib: &Path) -> std::result::Result<ort::environment::Environment, String> {
    opt_out_of_runtime_telemetry();
    ort::init_from(lib)
        .map_err(|e| format!("{} could not be loaded ({e})", lib.display()))?
        .with_name("vidya")
        // ONNX Runtime's telemetry is on by default (OrtApi::EnableTelemetryEvents): it
        // queues usage events for Microsoft. Nothing leaves the machine, so it is off.
        .with_telemetry(false)
        .build()
        .map_err(|e| format!("ONNX Runtime did not start ({e})"))
}

/// Opens an ONNX model file as a session with [`INTRA_THREADS`] threads.
///
/// Errors: [`VidyaError::ModelMissing`] naming the file when it is damaged or not a model.
pub fn session(model: &Path) -> Result<ort::session::Session> {
    session_with_threads(model, INTRA_THREADS)
}

/// Opens an ONNX model file as a session whose runs use `threads` threads (ONNX Runtime's
/// intra-op pool; 1 runs on the calling thread).
///
/// Errors: as [`session`].
pub fn session_with_threads(model: &Path, threads: usize) -> Result<ort::session::Session> {
    let env = environment()?;
    // Inputs vary in length from run to run: ONNX Runtime's memory pattern cache and CPU
    // arena would keep the largest allocation of every shape (1.4–2.2 GB resident while
    // embedding Biology 2e), so both are off and memory is returned after each run.
    ort::session::Session::builder(env)
        .and_then(|b| b.with_intra_threads(threads.max(1)).map_err(Into::into))
        .and_then(|b| b.with_memory_pattern(false).map_err(Into::into))
        .and_then(|b| {
            b.with_execution_providers([ort::ep::CPU::default()
                .with_arena_allocator(false)
                .build()])
                .map_err(Into::into)
        })
        .and_then(|mut b| b.commit_from_file(model))
        .map_err(|e| missing(format!("{} is damaged ({e})", model.display())))
}

/// Where a model folder named `name` is looked for, in order: `$VIDYA_MODELS_DIR/<name>`,
/// `models/<name>` in each [`crate::paths::install_roots`] folder, and (not for an installed
/// copy) the source checkout's `resources/models/<name>`.
pub fn model_dirs(name: &str) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("VIDYA_MODELS_DIR").filter(|d| !d.is_empty()) {
        dirs.push(PathBuf::from(d).join(name));
    }
    for root in crate::paths::install_roots() {
        dirs.push(root.join("models").join(name));
    }
    if !crate::paths::is_installed() {
        dirs.push(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../resources/models")
                .join(name),
        );
    }
    dirs
}
