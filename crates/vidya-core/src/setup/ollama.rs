//! Getting an answer model without a terminal: finding Ollama (running, installed but stopped,
//! or absent with its installer on the USB stick), starting it, importing a `.gguf` model file
//! through Ollama's API, and pulling a model by name when online.
//!
//! Protocol: Ollama's REST API (`docs/api.md` of github.com/ollama/ollama): `GET /api/version`,
//! `GET /api/tags`, `HEAD`/`POST /api/blobs/sha256:<hex>` (upload a file by its digest),
//! `POST /api/create` with `{"model", "files": {"<name>.gguf": "sha256:<hex>"}}`, and
//! `POST /api/pull`; the last two stream NDJSON `{"status", "digest"?, "total"?, "completed"?}`
//! objects or `{"error"}`. The GGUF format begins with the magic bytes `GGUF`
//! (github.com/ggml-org/ggml, docs/gguf.md).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::StreamExt;

pub use super::locate::{
    find_gguf_files, find_installer, find_program, media_dirs, model_name_for, GgufFile,
    INSTALLER_NAME,
};

/// Where Ollama stands on this machine.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum OllamaState {
    /// It answers at the configured host.
    Running {
        /// The host asked.
        host: String,
        /// Its version (`/api/version`).
        version: String,
        /// Installed models, as `/api/tags` names them.
        models: Vec<String>,
    },
    /// It is installed here but not running: [`start`] can start it.
    Stopped {
        /// The host asked.
        host: String,
        /// The `ollama` program found.
        program: PathBuf,
    },
    /// Not installed (or not found).
    Absent {
        /// The host asked.
        host: String,
        /// An Ollama installer found beside Vidya's installer, on a USB stick or in Downloads.
        installer: Option<PathBuf>,
    },
}

/// Progress of an import or a pull, sent many times a second at most.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ModelProgress {
    /// `checking` (hashing the file), `copying` (uploading it to Ollama), `creating`,
    /// `downloading` (pull) or `done`.
    pub phase: String,
    /// Ollama's own status line, when it sent one.
    pub status: String,
    /// Bytes done in this phase.
    pub completed: u64,
    /// Bytes in this phase (0 when unknown).
    pub total: u64,
}

/// A failure, worded for the teacher, with the fix.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{0}")]
pub struct SetupError(pub String);

/// Longest wait for any bytes from Ollama once a request is under way (s): Ollama writes a
/// progress line at least every few seconds while it copies, creates or downloads a model.
pub const READ_TIMEOUT_S: u64 = 120;

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(3))
        .read_timeout(Duration::from_secs(READ_TIMEOUT_S))
        .build()
        .unwrap_or_default()
}

/// `host` without a trailing `/` (`http://127.0.0.1:11434/` → `http://127.0.0.1:11434`).
fn base(host: &str) -> &str {
    host.trim().trim_end_matches('/')
}

/// Whether `name` is a model name Ollama accepts and Vidya can store: 1–100 characters of
/// letters, digits, `.`, `_`, `-`, with `/` between namespace parts (pull only) and one
/// optional `:tag` (ollama's `types/model/name.go` allows these).
pub fn valid_model_name(name: &str, allow_namespace: bool) -> bool {
    let (path, tag) = match name.split_once(':') {
        Some((p, t)) => (p, Some(t)),
        None => (name, None),
    };
    let part_ok = |p: &str| {
        !p.is_empty()
            && !p.starts_with(['.', '-'])
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
    };
    name.len() <= 100
        && path.split('/').all(part_ok)
        && (allow_namespace || !path.contains('/'))
        && tag.is_none_or(part_ok)
}

fn rt() -> Result<tokio::runtime::Runtime, SetupError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| SetupError(format!("could not start a background task ({e})")))
}

fn not_running(host: &str) -> SetupError {
    SetupError(format!(
        "Ollama is not running at {host}. Fix: start Ollama (the wizard's Ollama step can start it), then try again"
    ))
}

#[derive(Deserialize)]
struct Version {
    version: String,
}

#[derive(Deserialize)]
struct Tags {
    models: Vec<Tag>,
}

#[derive(Deserialize)]
struct Tag {
    name: String,
}

async fn running(client: &reqwest::Client, host: &str) -> Option<(String, Vec<String>)> {
    let v: Version = client
        .get(format!("{host}/api/version"))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .ok()?
        .json()
        .await
        .ok()?;
    let models = match client
        .get(format!("{host}/api/tags"))
        .timeout(Duration::from_secs(10))
        .send()
        .await
    {
        Ok(r) => r
            .json::<Tags>()
            .await
            .map(|t| t.models.into_iter().map(|m| m.name).collect())
            .unwrap_or_default(),
        Err(_) => Vec::new(),
    };
    Some((v.version, models))
}

/// Finds where Ollama stands: asks `host`, else looks for the program, else for an installer.
pub fn probe(host: &str) -> OllamaState {
    let host = base(host);
    let found = rt().ok().and_then(|rt| rt.block_on(running(&http(), host)));
    match found {
        Some((version, models)) => OllamaState::Running {
            host: host.into(),
            version,
            models,
        },
        None => match find_program() {
            Some(program) => OllamaState::Stopped {
                host: host.into(),
                program,
            },
            None => OllamaState::Absent {
                host: host.into(),
                installer: find_installer(),
            },
        },
    }
}

/// Starts `ollama serve` from `program` in the background (its output goes to
/// `<log dir>/ollama.log`) and waits up to `wait` for it to answer at `host`.
/// Errors: it could not be started, or did not answer in time.
pub fn start(program: &Path, host: &str, wait: Duration) -> Result<(), SetupError> {
    let host = base(host);
    let log_dir = crate::paths::log_dir();
    let log_path = log_dir.join("ollama.log");
    let _ = std::fs::create_dir_all(&log_dir);
    // Without a writable log folder Ollama still starts; its output is dropped.
    let (out, err) = match std::fs::File::create(&log_path).and_then(|f| Ok((f.try_clone()?, f))) {
        Ok((a, b)) => (std::process::Stdio::from(a), std::process::Stdio::from(b)),
        Err(_) => (std::process::Stdio::null(), std::process::Stdio::null()),
    };
    let mut cmd = std::process::Command::new(program);
    cmd.arg("serve")
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .stderr(err);
    if let Ok(url) = url::Url::parse(host) {
        if let (Some(h), Some(p)) = (url.host_str(), url.port_or_known_default()) {
            cmd.env("OLLAMA_HOST", format!("{h}:{p}"));
        }
    }
    let mut child = cmd.spawn().map_err(|e| {
        SetupError(format!(
            "Ollama ({}) could not be started ({e}). Fix: start it from its menu entry, or reinstall Ollama",
            program.display()
        ))
    })?;
    let rt = rt()?;
    // Requests are built outside `block_on`: their timers need the runtime entered.
    let _entered = rt.enter();
    let client = http();
    let deadline = std::time::Instant::now() + wait;
    while std::time::Instant::now() < deadline {
        if rt.block_on(running(&client, host)).is_some() {
            // It keeps running after Vidya exits; reap it on a thread so it never lingers
            // as a zombie while Vidya runs.
            std::thread::spawn(move || child.wait());
            return Ok(());
        }
        if let Ok(Some(status)) = child.try_wait() {
            let said = std::fs::read_to_string(&log_path).unwrap_or_default();
            let last: Vec<&str> = said.lines().rev().take(3).collect();
            let last: Vec<&str> = last.into_iter().rev().collect();
            return Err(SetupError(format!(
                "Ollama stopped at once ({status}){}. Fix: restart the computer and try again; if it happens again, reinstall Ollama",
                if last.is_empty() { String::new() } else { format!(": {}", last.join(" / ")) }
            )));
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    let _ = child.kill();
    let _ = child.wait();
    Err(SetupError(format!(
        "Ollama was started but does not answer at {host} after {} s. Fix: look at {} for the reason, or restart the computer and try again",
        wait.as_secs(),
        log_dir.join("ollama.log").display()
    )))
}

/// A runtime and client for talking to the Ollama at `host`. Errors: it does not answer.
fn session(host: &str) -> Result<(tokio::runtime::Runtime, reqwest::Client), SetupError> {
    let rt = rt()?;
    let client = {
        let _entered = rt.enter();
        http()
    };
    if rt.block_on(running(&client, host)).is_none() {
        return Err(not_running(host));
    }
    Ok((rt, client))
}

/// Reads one NDJSON stream of Ollama status objects, calling `emit` for each, until
/// `"success"`. Errors: an `{"error"}` object or a stream that ends early.
async fn follow(
    resp: reqwest::Response,
    phase: &str,
    emit: &mut dyn FnMut(ModelProgress),
) -> Result<(), String> {
    let status = resp.status();
    let mut stream = resp.bytes_stream();
    let mut buf: Vec<u8> = Vec::new();
    let mut done = false;
    while let Some(chunk) = stream.next().await {
        buf.extend_from_slice(&chunk.map_err(|e| format!("the connection to Ollama broke ({e})"))?);
        while let Some(nl) = buf.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buf.drain(..=nl).collect();
            let line = String::from_utf8_lossy(&line).trim().to_string();
            if line.is_empty() {
                continue;
            }
            let v: serde_json::Value = serde_json::from_str(&line)
                .map_err(|_| format!("Ollama sent something unexpected: {line}"))?;
            if let Some(err) = v.get("error").and_then(|e| e.as_str()) {
                return Err(err.to_string());
            }
            let st = v
                .get("status")
                .and_then(|s| s.as_str())
                .unwrap_or("")
                .to_string();
            if st == "success" {
                done = true;
            }
            emit(ModelProgress {
                phase: if done { "done".into() } else { phase.into() },
                status: st,
                completed: v.get("completed").and_then(|x| x.as_u64()).unwrap_or(0),
                total: v.get("total").and_then(|x| x.as_u64()).unwrap_or(0),
            });
        }
    }
    let rest = String::from_utf8_lossy(&buf).trim().to_string();
    if !rest.is_empty() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&rest) {
            if let Some(err) = v.get("error").and_then(|e| e.as_str()) {
                return Err(err.to_string());
            }
            done |= v.get("status").and_then(|s| s.as_str()) == Some("success");
        }
    }
    if !status.is_success() && !done {
        return Err(format!("Ollama answered {status}"));
    }
    if done {
        Ok(())
    } else {
        Err("Ollama stopped before it finished".into())
    }
}

/// Checks that `path` is a GGUF file (magic bytes) and returns its size (bytes).
fn check_gguf(path: &Path) -> Result<u64, SetupError> {
    if path.as_os_str().is_empty() {
        return Err(SetupError(
            "no model file was given. Fix: choose a .gguf file".into(),
        ));
    }
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(SetupError(format!(
            "{} is a folder or a device, not a model file. Fix: choose the .gguf file itself",
            path.display()
        )));
    }
    let mut f = std::fs::File::open(path).map_err(|e| {
        SetupError(format!(
            "{} cannot be opened ({e}). Fix: check that the USB stick is still plugged in, and choose the file again",
            path.display()
        ))
    })?;
    let mut magic = [0u8; 4];
    let len = f.metadata().map(|m| m.len()).unwrap_or(0);
    if f.read_exact(&mut magic).is_err() || &magic != b"GGUF" {
        return Err(SetupError(format!(
            "{} is not a GGUF model file (it may be damaged, cut short, or another kind of file). Fix: copy a complete GGUF model file again, for example Llama-3.2-3B-Instruct-Q4_K_M.gguf",
            path.display()
        )));
    }
    Ok(len)
}

/// sha256 of `path` (hex), reporting progress.
fn hash_with_progress(
    path: &Path,
    total: u64,
    emit: &mut dyn FnMut(ModelProgress),
) -> Result<String, SetupError> {
    let mut f = std::fs::File::open(path)
        .map_err(|e| SetupError(format!("{} cannot be read ({e})", path.display())))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    let mut last = std::time::Instant::now();
    loop {
        let n = f.read(&mut buf).map_err(|e| {
            SetupError(format!(
                "{} cannot be read ({e}). Fix: copy the file to this computer first",
                path.display()
            ))
        })?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        done += n as u64;
        if last.elapsed() > Duration::from_millis(200) {
            last = std::time::Instant::now();
            emit(ModelProgress {
                phase: "checking".into(),
                status: String::new(),
                completed: done,
                total,
            });
        }
    }
    emit(ModelProgress {
        phase: "checking".into(),
        status: String::new(),
        completed: done,
        total,
    });
    Ok(hex::encode(h.finalize()))
}

/// Creates the Ollama model `name` from the `.gguf` file at `path`, offline: the file is
/// hashed, uploaded as a blob unless Ollama already has it (`HEAD /api/blobs/<digest>`), then
/// `POST /api/create` with `files`. `emit` receives progress (`checking`, `copying`,
/// `creating`, `done`).
///
/// Errors (worded with their fix): not a GGUF file, unreadable file, Ollama not running, the
/// upload refused, Ollama refusing the file (`invalid file magic`, unsupported model).
pub fn import_gguf(
    host: &str,
    path: &Path,
    name: &str,
    emit: &mut dyn FnMut(ModelProgress),
) -> Result<(), SetupError> {
    let total = check_gguf(path)?;
    let name = name.trim();
    if !valid_model_name(name, false) {
        return Err(SetupError(format!(
            "\"{}\" cannot be a model name. Fix: use up to 100 letters, digits, '.', '-' or '_' (for example {})",
            name.escape_debug(),
            model_name_for(path)
        )));
    }
    let host = base(host);
    let (rt, client) = session(host)?;
    // Requests are built outside `block_on`: their timers need the runtime entered.
    let _entered = rt.enter();
    let digest = format!("sha256:{}", hash_with_progress(path, total, emit)?);
    let blob_url = format!("{host}/api/blobs/{digest}");
    let have = rt
        .block_on(client.head(&blob_url).send())
        .map(|r| r.status().is_success())
        .unwrap_or(false);
    if !have {
        let sent = Arc::new(AtomicU64::new(0));
        let body = file_body(path, sent.clone())?;
        let upload = client.post(&blob_url).body(body).send();
        let result = rt.block_on(async {
            tokio::pin!(upload);
            let mut tick = tokio::time::interval(Duration::from_millis(250));
            loop {
                tokio::select! {
                    r = &mut upload => return r,
                    _ = tick.tick() => emit(ModelProgress {
                        phase: "copying".into(), status: String::new(),
                        completed: sent.load(Ordering::Relaxed), total,
                    }),
                }
            }
        });
        let resp = result.map_err(|e| {
            SetupError(format!("copying the model into Ollama failed ({e}). Fix: check that Ollama is still running and that its disk has {:.1} GB free", total as f64 / 1e9))
        })?;
        if !resp.status().is_success() {
            let status = resp.status();
            let text = rt.block_on(resp.text()).unwrap_or_default();
            return Err(SetupError(format!(
                "Ollama refused the model file ({status}: {}). Fix: copy the .gguf file again; it may be damaged",
                ollama_error(&text)
            )));
        }
        emit(ModelProgress {
            phase: "copying".into(),
            status: String::new(),
            completed: total,
            total,
        });
    }
    // Ollama takes the key as a relative path: a plain name, whatever the file was called.
    let file_name = format!("{}.gguf", model_name_for(path));
    let req = serde_json::json!({"model": name, "files": {file_name: digest}, "stream": true});
    emit(ModelProgress {
        phase: "creating".into(),
        status: "creating model".into(),
        completed: 0,
        total: 0,
    });
    let resp = rt
        .block_on(client.post(format!("{host}/api/create")).json(&req).send())
        .map_err(|_| not_running(host))?;
    rt.block_on(follow(resp, "creating", emit)).map_err(|e| {
        SetupError(format!(
            "Ollama could not make a model from {} ({}). Fix: use a GGUF chat model that your Ollama version supports, such as Llama 3.2 1B or 3B Instruct (Q4_K_M)",
            path.display(),
            ollama_error(&e)
        ))
    })
}

fn ollama_error(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(String::from))
        .unwrap_or_else(|| text.trim().to_string())
}

/// A request body streaming `path` in 1 MiB pieces, counting bytes read into `sent`.
fn file_body(path: &Path, sent: Arc<AtomicU64>) -> Result<reqwest::Body, SetupError> {
    let file = std::fs::File::open(path)
        .map_err(|e| SetupError(format!("{} cannot be read ({e})", path.display())))?;
    let (tx, rx) = tokio::sync::mpsc::channel::<std::io::Result<Vec<u8>>>(2);
    std::thread::spawn(move || {
        let mut file = file;
        loop {
            let mut buf = vec![0u8; 1 << 20];
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    buf.truncate(n);
                    sent.fetch_add(n as u64, Ordering::Relaxed);
                    if tx.blocking_send(Ok(buf)).is_err() {
                        break;
                    }
                }
                Err(e) => {
                    let _ = tx.blocking_send(Err(e));
                    break;
                }
            }
        }
    });
    Ok(reqwest::Body::wrap_stream(
        tokio_stream::wrappers::ReceiverStream::new(rx),
    ))
}

/// Downloads the model `name` through Ollama (`POST /api/pull`), which needs the internet.
/// `emit` receives `downloading` progress (bytes of the current layer) and finally `done`.
///
/// Errors: Ollama not running; offline or unknown name (worded: connect, or import a `.gguf`
/// file from a USB stick instead).
pub fn pull(host: &str, name: &str, emit: &mut dyn FnMut(ModelProgress)) -> Result<(), SetupError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(SetupError(
            "no model name was given. Fix: type a name such as llama3.2:1b".into(),
        ));
    }
    if !valid_model_name(name, true) {
        return Err(SetupError(format!(
            "\"{}\" is not a model name. Fix: type a name as ollama.com/library shows it, such as llama3.2:1b",
            name.escape_debug()
        )));
    }
    let host = base(host);
    let (rt, client) = session(host)?;
    // Requests are built outside `block_on`: their timers need the runtime entered.
    let _entered = rt.enter();
    let resp = rt
        .block_on(
            client
                .post(format!("{host}/api/pull"))
                .json(&serde_json::json!({"model": name, "stream": true}))
                .send(),
        )
        .map_err(|_| not_running(host))?;
    rt.block_on(follow(resp, "downloading", emit)).map_err(|e| {
        let offline = e.contains("dial tcp") || e.contains("no such host") || e.contains("lookup");
        if offline {
            SetupError(format!(
                "{name} could not be downloaded: this computer is not connected to the internet ({e}). Fix: connect and try again, or import a .gguf model file from a USB stick"
            ))
        } else {
            SetupError(format!(
                "{name} could not be downloaded ({e}). Fix: check the name on ollama.com/library (for example llama3.2:1b), or import a .gguf file"
            ))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_from_file_names() {
        assert_eq!(
            model_name_for(Path::new("/m/Llama-3.2-3B-Instruct-Q4_K_M.gguf")),
            "llama-3.2-3b-instruct-q4_k_m"
        );
        assert_eq!(model_name_for(Path::new("मॉडल.gguf")), "imported-model");
        assert_eq!(
            model_name_for(Path::new("my model (1).gguf")),
            "my-model--1"
        );
    }

    #[test]
    fn model_names_follow_ollamas_rules() {
        for ok in ["llama3.2:1b", "tiny-model", "a.b_c-d:q4_k_m"] {
            assert!(valid_model_name(ok, false), "{ok}");
        }
        assert!(valid_model_name("library/llama3.2:1b", true));
        for bad in [
            "",
            " ",
            "a b",
            "../../etc/x",
            "a:b:c",
            "मॉडल",
            "-x",
            "a\u{1}b",
            &"a".repeat(101),
        ] {
            assert!(!valid_model_name(bad, true), "{bad:?}");
        }
        assert!(!valid_model_name("user/model", false));
    }

    #[test]
    fn a_folder_or_fifo_is_refused_without_reading_it() {
        let dir = tempfile::tempdir().unwrap();
        let err = import_gguf("http://127.0.0.1:9", dir.path(), "x", &mut |_| {}).unwrap_err();
        assert!(err.0.contains("not a model file"), "{err}");
        #[cfg(unix)]
        {
            let fifo = dir.path().join("pipe.gguf");
            assert!(std::process::Command::new("mkfifo")
                .arg(&fifo)
                .status()
                .unwrap()
                .success());
            let err = import_gguf("http://127.0.0.1:9", &fifo, "x", &mut |_| {}).unwrap_err();
            assert!(err.0.contains("not a model file"), "{err}");
        }
    }

    #[test]
    fn a_file_that_is_not_gguf_is_refused_before_ollama_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("notes.gguf");
        std::fs::write(&f, b"PK\x03\x04 zip").unwrap();
        let err = import_gguf("http://127.0.0.1:9", &f, "x", &mut |_| {}).unwrap_err();
        assert!(err.0.contains("is not a GGUF model file"), "{err}");
    }
}
