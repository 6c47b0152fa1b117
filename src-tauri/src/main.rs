//! Vidya's desktop window (Tauri v2). Every command is a thin wrapper over
//! [`vidya_core::app::App`], run on a blocking worker so the window never freezes; answers
//! and ingest progress stream back over Tauri channels as `{"event", "data"}` objects, the
//! same events `vidya serve` sends as server-sent events. The window loads only the bundled
//! `ui/` under a strict Content-Security-Policy (`tauri.conf.json`), and its capabilities
//! allow nothing but these commands and events (`capabilities/default.json`).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use tauri::ipc::{Channel, InvokeBody, Request, Response};
use tauri::State;
use vidya_core::app::{
    App, AskControl, AskEvent, AskRequest, ErrorBody, Health, IngestEvent, LlmOverrides,
    PageImageRequest, Settings,
};
use vidya_core::setup::{OllamaState, SetupEvent, SetupReport};
use vidya_core::store::stats::LibraryStats;
use vidya_core::store::{BookInfo, Conversation, Turn};
use vidya_core::Library;

mod classroom;
mod report;

/// mimalloc on Windows (see the `mimalloc` entry of Cargo.toml: Wine 8's heap stalls the model
/// load; the Windows build is tested under Wine).
#[cfg(windows)]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The service shared by every command, and when the process started (for the start-up
/// figure).
pub(crate) struct Vidya {
    app: Arc<App>,
    started: Instant,
    classroom: classroom::Classroom,
}

/// A command's result; the error reaches JavaScript as `{kind, message}`.
pub(crate) type CmdResult<T> = Result<T, ErrorBody>;

pub(crate) fn internal(e: impl std::fmt::Display) -> ErrorBody {
    ErrorBody {
        kind: "internal".into(),
        message: format!("internal error: {e}. Please restart Vidya"),
        file: None,
    }
}

/// Runs `f` on a blocking worker.
async fn blocking<T: Send + 'static>(
    state: &State<'_, Vidya>,
    f: impl FnOnce(&App) -> vidya_core::Result<T> + Send + 'static,
) -> CmdResult<T> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || f(&app))
        .await
        .map_err(internal)?
        .map_err(|e| ErrorBody::from(&e))
}

#[tauri::command]
async fn health(state: State<'_, Vidya>) -> CmdResult<Health> {
    blocking(&state, |a| a.health()).await
}

/// Called once by the interface when it can take input: logs the start-up time (ms).
#[tauri::command]
fn ui_ready(state: State<'_, Vidya>) -> u128 {
    let ms = state.started.elapsed().as_millis();
    eprintln!("vidya-desktop: interactive {ms} ms after start");
    tracing::info!(ms, "window interactive");
    ms
}

#[tauri::command]
async fn books(state: State<'_, Vidya>) -> CmdResult<Vec<BookInfo>> {
    blocking(&state, |a| a.books()).await
}

#[tauri::command]
async fn delete_book(state: State<'_, Vidya>, id: i64) -> CmdResult<()> {
    blocking(&state, move |a| a.delete_book(id)).await
}

#[tauri::command]
async fn stats(state: State<'_, Vidya>) -> CmdResult<LibraryStats> {
    blocking(&state, |a| a.stats()).await
}

#[tauri::command]
async fn get_settings(state: State<'_, Vidya>) -> CmdResult<Settings> {
    blocking(&state, |a| Ok(a.settings())).await
}

#[tauri::command]
async fn save_settings(state: State<'_, Vidya>, settings: Settings) -> CmdResult<Settings> {
    blocking(&state, move |a| a.save_settings(&settings)).await
}

#[tauri::command]
async fn conversations(state: State<'_, Vidya>) -> CmdResult<Vec<Conversation>> {
    blocking(&state, |a| a.conversations()).await
}

#[tauri::command]
async fn conversation(state: State<'_, Vidya>, id: i64) -> CmdResult<Vec<Turn>> {
    blocking(&state, move |a| a.conversation(id)).await
}

#[tauri::command]
async fn delete_conversation(state: State<'_, Vidya>, id: i64) -> CmdResult<()> {
    blocking(&state, move |a| a.delete_conversation(id)).await
}

/// The cited page as PNG bytes (an `ArrayBuffer` in JavaScript).
#[tauri::command]
async fn page_image(state: State<'_, Vidya>, request: PageImageRequest) -> CmdResult<Response> {
    let img = blocking(&state, move |a| a.page_image(&request)).await?;
    Ok(Response::new(img.png))
}

/// Answers a question, streaming [`AskEvent`]s to `on_event` (tokens, then the answer or an
/// error).
#[tauri::command]
async fn ask(
    state: State<'_, Vidya>,
    request: AskRequest,
    on_event: Channel<AskEvent>,
) -> CmdResult<()> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let tokens = on_event.clone();
        let mut on_token = move |t: &str| {
            let _ = tokens.send(AskEvent::Token {
                text: t.to_string(),
            });
        };
        let (queue, sources) = (on_event.clone(), on_event.clone());
        let ctl = AskControl {
            teacher: true,
            on_queue: &mut move |ahead| {
                let _ = queue.send(AskEvent::Queued { ahead });
            },
            cancel: None,
            on_sources: &mut move |c: &[vidya_core::answer::Citation], quotes: Option<&str>| {
                let _ = sources.send(AskEvent::Sources {
                    citations: c.to_vec(),
                    quotes: quotes.map(str::to_string),
                });
            },
            // The window's questions are the teacher's: never pre-empted.
            on_restart: &mut || {},
        };
        let last = match app.ask_with(&request, &mut on_token, ctl) {
            Ok(a) => AskEvent::Answer(Box::new(a)),
            Err(e) => AskEvent::Error(ErrorBody::from(&e)),
        };
        let _ = on_event.send(last);
    })
    .await
    .map_err(internal)
}

/// Keeps a dropped or picked file (raw bytes; its name JSON-encoded in the `x-file-name`
/// header) in the library's uploads folder and returns its path for [`ingest`].
#[tauri::command]
async fn save_upload(state: State<'_, Vidya>, request: Request<'_>) -> CmdResult<String> {
    let InvokeBody::Raw(bytes) = request.body() else {
        return Err(internal("the file was not sent as bytes"));
    };
    let name: String = request
        .headers()
        .get("x-file-name")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| serde_json::from_str(v).ok())
        .unwrap_or_default();
    let bytes = bytes.clone();
    let path = blocking(&state, move |a| a.save_upload(&name, &bytes)).await?;
    Ok(path.to_string_lossy().to_string())
}

/// Ingests files (uploads kept by [`save_upload`], or paths), streaming [`IngestEvent`]s.
/// An upload that cannot be read is deleted again.
#[tauri::command]
async fn ingest(
    state: State<'_, Vidya>,
    paths: Vec<PathBuf>,
    on_event: Channel<IngestEvent>,
) -> CmdResult<bool> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        let uploads = app
            .library_dir()
            .join(vidya_core::app::uploads::UPLOADS_DIR);
        let uploaded = paths.iter().all(|p| p.parent() == Some(uploads.as_path()));
        app.ingest(&paths, None, uploaded, &mut |e| {
            let _ = on_event.send(e);
        })
    })
    .await
    .map_err(internal)
}

#[tauri::command]
async fn reindex_book(
    state: State<'_, Vidya>,
    id: i64,
    on_event: Channel<IngestEvent>,
) -> CmdResult<bool> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        app.reindex_book(id, &mut |e| {
            let _ = on_event.send(e);
        })
    })
    .await
    .map_err(internal)
}

/// The first-run wizard's report (bundled files, memory and disk, Ollama, models, `.gguf` files
/// found).
#[tauri::command]
async fn setup_report(state: State<'_, Vidya>) -> CmdResult<SetupReport> {
    blocking(&state, |a| Ok(a.setup_report())).await
}

/// Starts the installed Ollama; its state once it answers, or the error with the fix.
#[tauri::command]
async fn setup_start_ollama(state: State<'_, Vidya>) -> Result<OllamaState, ErrorBody> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || app.start_ollama())
        .await
        .map_err(|e| ErrorBody {
            kind: "internal".into(),
            message: e.to_string(),
            file: None,
        })?
}

/// Adds a `.gguf` file to Ollama (offline), streaming progress.
#[tauri::command]
async fn setup_import(
    state: State<'_, Vidya>,
    path: PathBuf,
    name: Option<String>,
    on_event: Channel<SetupEvent>,
) -> CmdResult<bool> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        app.import_model(&path, name.as_deref(), &mut |e| {
            let _ = on_event.send(e);
        })
    })
    .await
    .map_err(internal)
}

/// Downloads a model through Ollama (needs internet), streaming progress.
#[tauri::command]
async fn setup_pull(
    state: State<'_, Vidya>,
    model: String,
    on_event: Channel<SetupEvent>,
) -> CmdResult<bool> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        app.pull_model(&model, &mut |e| {
            let _ = on_event.send(e);
        })
    })
    .await
    .map_err(internal)
}

/// Asks the test question about the bundled sample chapter, streaming the answer.
#[tauri::command]
async fn setup_sample(
    state: State<'_, Vidya>,
    lang: Option<String>,
    on_event: Channel<SetupEvent>,
) -> CmdResult<bool> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || {
        app.sample_question(lang, &mut |e| {
            let _ = on_event.send(e);
        })
    })
    .await
    .map_err(internal)
}

/// Records that the wizard was finished or skipped (`false` opens it again at start).
#[tauri::command]
async fn setup_done(state: State<'_, Vidya>, done: bool) -> CmdResult<()> {
    blocking(&state, move |a| a.set_setup_done(done)).await
}

#[tauri::command]
fn cancel_ingest(state: State<'_, Vidya>) -> bool {
    state.app.cancel_ingest()
}

fn main() {
    vidya_core::onnx::opt_out_of_runtime_telemetry();
    let started = Instant::now();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VIDYA_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .init();
    let library = std::env::var_os("VIDYA_LIBRARY")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(Library::default_dir);
    vidya_core::paths::keep_logs_with_library(&library);
    let app = match App::open(&library, true, LlmOverrides::default()) {
        Ok(a) => a,
        Err(e) => {
            eprintln!(
                "Vidya cannot open its library at {}: {e}",
                library.display()
            );
            std::process::exit(1);
        }
    };
    let app = Arc::new(app);
    {
        // The indexes and models load while the window opens: the first answer is not slower.
        // Vectors an earlier version made are made again first (the window shows how far).
        let app = app.clone();
        std::thread::spawn(move || {
            app.refresh_vectors();
            app.warm_up();
        });
    }
    let result = tauri::Builder::default()
        .manage(Vidya {
            app,
            started,
            classroom: classroom::Classroom::default(),
        })
        .invoke_handler(tauri::generate_handler![
            health,
            ui_ready,
            books,
            delete_book,
            stats,
            report::class_report,
            report::class_report_csv,
            report::answer_machines,
            get_settings,
            save_settings,
            conversations,
            conversation,
            delete_conversation,
            page_image,
            ask,
            save_upload,
            ingest,
            reindex_book,
            cancel_ingest,
            classroom::classroom,
            classroom::classroom_on,
            classroom::classroom_off,
            classroom::classroom_start,
            classroom::classroom_end,
            classroom::set_pin,
            setup_report,
            setup_start_ollama,
            setup_import,
            setup_pull,
            setup_sample,
            setup_done
        ])
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("Vidya's window could not start: {e}. On Linux it needs WebKitGTK 4.1 (libwebkit2gtk-4.1-0)");
        std::process::exit(1);
    }
}
