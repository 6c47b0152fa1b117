//! The Ollama client (through `ollama-rs`): lists installed models, checks the chosen one,
//! streams a chat answer token by token with a small explicit context (`num_ctx`) and a low
//! temperature, and turns every failure into an [`LlmError`] a teacher can act on.
//!
//! The only network Vidya uses is this client talking to the Ollama host the user configured
//! (`http://127.0.0.1:11434` by default, or `OLLAMA_HOST`).

use ollama_rs::generation::chat::request::ChatMessageRequest;
use ollama_rs::generation::chat::{ChatMessage, ChatMessageResponse};
use ollama_rs::models::ModelOptions;
use ollama_rs::Ollama;
use serde::Serialize;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio_stream::StreamExt;

/// Ollama's default address.
pub const DEFAULT_HOST: &str = "http://127.0.0.1:11434";
/// Longest a single answer may stream (ms): 10 minutes.
pub const MAX_GENERATION_MS: u64 = 600_000;

/// The default answer model: Llama 3.2 3B (Q4_K_M, ≈2 GB), which fits an 8 GB laptop.
pub const DEFAULT_MODEL: &str = "llama3.2:3b";

/// Default `num_predict`: the longest answer (tokens). The shown answer is cut at
/// [`super::stream_check::MAX_WORDS`] words too.
pub const MAX_TOKENS: i32 = 320;
/// Default `repeat_penalty` (Ollama's own default is 1.1).
pub const REPEAT_PENALTY: f32 = 1.1;
/// Tokens the repeat penalty looks back over (`repeat_last_n`, Ollama's default 64).
pub const REPEAT_LAST_N: i32 = 64;

/// Settings of the answer model.
#[derive(Debug, Clone)]
pub struct LlmConfig {
    /// Base URL of the Ollama server.
    pub host: String,
    /// Model name as Ollama lists it (`llama3.2:3b`).
    pub model: String,
    /// Context window sent as `num_ctx` (tokens). Ollama's own default is larger than needed
    /// and costs memory on 8 GB machines.
    pub num_ctx: u64,
    /// Sampling temperature (low: answers stay close to the sources).
    pub temperature: f32,
    /// Longest answer (tokens, `num_predict`).
    pub max_tokens: i32,
    /// Penalty on tokens the model wrote in its last [`REPEAT_LAST_N`] tokens
    /// (`repeat_penalty`; 1.0 is none). Measured with the real model: docs/evaluation.md.
    pub repeat_penalty: f32,
    /// Time allowed to connect (ms).
    pub connect_timeout_ms: u64,
    /// Time allowed until the first token, model loading included (ms).
    pub first_token_timeout_ms: u64,
    /// Time allowed between two tokens (ms).
    pub idle_timeout_ms: u64,
}

impl Default for LlmConfig {
    fn default() -> Self {
        Self {
            host: host_from_env(),
            model: DEFAULT_MODEL.to_string(),
            num_ctx: 4096,
            temperature: 0.2,
            max_tokens: MAX_TOKENS,
            repeat_penalty: REPEAT_PENALTY,
            connect_timeout_ms: 3_000,
            first_token_timeout_ms: 180_000,
            idle_timeout_ms: 60_000,
        }
    }
}

/// `OLLAMA_HOST` normalised like Ollama does (scheme and port added, `0.0.0.0` → `127.0.0.1`),
/// else [`DEFAULT_HOST`].
pub fn host_from_env() -> String {
    // An unusable value is kept as it is, so that the client reports it (BadHost) instead of
    // silently talking to another address.
    std::env::var("OLLAMA_HOST")
        .ok()
        .filter(|h| !h.trim().is_empty())
        .map(|h| normalize_host(&h).unwrap_or(h))
        .unwrap_or_else(|| DEFAULT_HOST.to_string())
}

/// Normalises a host setting the way Ollama reads `OLLAMA_HOST`: `localhost`, `0.0.0.0:11434`,
/// `http://10.0.0.5:8080/` → `http://HOST:PORT` (scheme `http` and port 11434 when missing,
/// `0.0.0.0` → `127.0.0.1`, user names, passwords and paths dropped).
///
/// Errors: a text that is not a usable http(s) address (bad characters, no host, a port above
/// 65535), with the reason.
pub fn normalize_host(h: &str) -> Result<String, String> {
    let h = h.trim();
    let with_scheme = if h.contains("://") {
        h.to_string()
    } else {
        format!("http://{h}")
    };
    let url = reqwest::Url::parse(&with_scheme).map_err(|e| e.to_string())?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!(
            "the scheme must be http or https, not {}",
            url.scheme()
        ));
    }
    let host = match url.host() {
        Some(url::Host::Domain(d)) if !d.is_empty() => d.to_string(),
        Some(url::Host::Ipv4(ip)) if ip.is_unspecified() => "127.0.0.1".to_string(),
        Some(url::Host::Ipv4(ip)) => ip.to_string(),
        Some(url::Host::Ipv6(ip)) if ip.is_unspecified() => "[::1]".to_string(),
        Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
        _ => return Err("it names no host".into()),
    };
    let port = url.port().unwrap_or(11434);
    Ok(format!("{}://{host}:{port}", url.scheme()))
}

/// Why the model could not answer, in words a teacher can act on.
#[derive(Debug, Clone, thiserror::Error, Serialize)]
#[serde(tag = "kind", content = "detail", rename_all = "snake_case")]
pub enum LlmError {
    /// Nothing listens at the host.
    #[error("Ollama is not running at {host}. Start it: open the Ollama app (on Windows: Start menu → Ollama), or run `ollama serve` in a terminal. If Ollama is not installed, install it from https://ollama.com (or from an Ollama installer copied beside Vidya's) and run `ollama pull llama3.2:3b` once while online")]
    NotRunning {
        /// The host tried.
        host: String,
    },
    /// The chosen model is not installed.
    #[error("the model {model} is not installed in Ollama. Run `ollama pull {model}` once while online, or choose an installed model (the app's Settings, or --model){}", installed_list(.installed))]
    ModelMissing {
        /// The model asked for.
        model: String,
        /// Models that are installed.
        installed: Vec<String>,
    },
    /// The address setting is not a usable address.
    #[error("the Ollama address '{host}' is not valid ({reason}). Use a form like http://127.0.0.1:11434 (the app's Settings, or --host / OLLAMA_HOST on the command line)")]
    BadHost {
        /// The setting as given.
        host: String,
        /// Why it is not usable.
        reason: String,
    },
    /// Something that is not Ollama answers at the host.
    #[error("something other than Ollama answers at {host} ({detail}). Check the Ollama address (default {DEFAULT_HOST}; the app's Settings, or --host / OLLAMA_HOST)")]
    NotOllama {
        /// The host.
        host: String,
        /// What came back.
        detail: String,
    },
    /// Connecting or waiting took too long.
    #[error("Ollama at {host} did not answer within {seconds} s ({stage}). A firewall may block the port, or the model is still loading on a slow computer: try again in a minute, or choose a smaller model")]
    Timeout {
        /// The host.
        host: String,
        /// Seconds waited.
        seconds: u64,
        /// What was awaited.
        stage: String,
    },
    /// Ollama answered with an error.
    #[error("Ollama reported an error: {message}. Restart Ollama; if it keeps happening, the computer may be short of memory: close other programs or choose a smaller model")]
    Server {
        /// Ollama's message.
        message: String,
    },
    /// The student or the app stopped the answer.
    #[error("the answer was stopped")]
    Cancelled,
}

fn installed_list(installed: &[String]) -> String {
    if installed.is_empty() {
        " (no model is installed yet)".to_string()
    } else {
        format!(" (installed: {})", installed.join(", "))
    }
}

impl LlmError {
    /// A stable machine-readable name.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::NotRunning { .. } => "not_running",
            Self::ModelMissing { .. } => "model_missing",
            Self::NotOllama { .. } => "not_ollama",
            Self::BadHost { .. } => "bad_host",
            Self::Timeout { .. } => "timeout",
            Self::Server { .. } => "server",
            Self::Cancelled => "cancelled",
        }
    }
}

/// What the model streamed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Generated {
    /// The text received.
    pub text: String,
    /// True when Ollama sent its final `done` object; false when the stream broke off (the
    /// text is what arrived before).
    pub complete: bool,
    /// True when the answer machine failed mid-answer (it stopped sending, the stream ended
    /// without Ollama's final message, the connection broke), not when Vidya cut a runaway
    /// answer.
    #[serde(default)]
    pub broken: bool,
    /// Why generation stopped, as Ollama reports it (`stop`, `length`), or the failure.
    pub stop_reason: Option<String>,
    /// Time to first token (ms).
    pub ttft_ms: Option<f64>,
    /// Total generation time (ms).
    pub total_ms: f64,
    /// Prompt tokens Ollama counted.
    pub prompt_tokens: Option<u64>,
    /// Answer tokens Ollama counted.
    pub answer_tokens: Option<u64>,
}

/// A client for one Ollama host.
#[derive(Debug, Clone)]
pub struct OllamaClient {
    config: LlmConfig,
    ollama: Ollama,
}

/// True when `body` is Ollama's error shape, `{"error": "…"}`.
fn is_ollama_error(body: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .is_some_and(|v| v["error"].is_string())
}

fn error_message(body: &str) -> String {
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v["error"].as_str().map(String::from))
        .unwrap_or_else(|| body.trim().chars().take(200).collect())
}

/// True when two Ollama model names mean the same model (`llama3.2` is `llama3.2:latest`).
pub fn same_model(a: &str, b: &str) -> bool {
    let strip = |s: &str| s.strip_suffix(":latest").unwrap_or(s).to_string();
    strip(a) == strip(b)
}

impl OllamaClient {
    /// A client for `config.host`. Errors: the host is not a valid URL ([`LlmError::NotOllama`]).
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        if config.model.trim().is_empty() {
            return Err(LlmError::ModelMissing {
                model: "(none)".into(),
                installed: Vec::new(),
            });
        }
        let host = normalize_host(&config.host).map_err(|reason| LlmError::BadHost {
            host: config.host.clone(),
            reason,
        })?;
        let client = reqwest_client(config.connect_timeout_ms);
        let (base, port) = host.rsplit_once(':').expect("normalize_host adds a port");
        let ollama = Ollama::builder()
            .host(base)
            .port(port.parse().expect("normalize_host writes a valid port"))
            .reqwest_client(client)
            .build();
        Ok(Self {
            config: LlmConfig { host, ..config },
            ollama,
        })
    }

    /// The settings in use (host normalised).
    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    fn classify(&self, e: ollama_rs::error::OllamaError) -> LlmError {
        use ollama_rs::error::OllamaError as E;
        let host = self.config.host.clone();
        match e {
            E::ReqwestError(re) => {
                if re.is_timeout() {
                    LlmError::Timeout {
                        host,
                        seconds: self.config.connect_timeout_ms / 1000,
                        stage: "connecting".into(),
                    }
                } else if re.is_connect() {
                    // A refused connection is immediate; a firewall that drops packets times out.
                    let text = format!("{re:?}");
                    if text.contains("timed out") || text.contains("TimedOut") {
                        LlmError::Timeout {
                            host,
                            seconds: self.config.connect_timeout_ms / 1000,
                            stage: "connecting".into(),
                        }
                    } else {
                        LlmError::NotRunning { host }
                    }
                } else {
                    LlmError::NotOllama {
                        host,
                        detail: re.to_string(),
                    }
                }
            }
            E::JsonError(j) => LlmError::NotOllama {
                host,
                detail: format!("unexpected reply: {j}"),
            },
            E::InternalError(i) => classify_message(&self.config.model, &i.message),
            // A body that is not Ollama's `{"error": …}` JSON (an HTML page, nothing at all)
            // comes from another web server at that address.
            E::Other(body) if !is_ollama_error(&body) => LlmError::NotOllama {
                host,
                detail: if body.trim().is_empty() {
                    "an empty reply".into()
                } else {
                    format!(
                        "it sent: {}",
                        body.split_whitespace()
                            .take(12)
                            .collect::<Vec<_>>()
                            .join(" ")
                    )
                },
            },
            E::Other(body) => classify_message(&self.config.model, &error_message(&body)),
            other => LlmError::Server {
                message: other.to_string(),
            },
        }
    }

    /// Names of the installed models (`/api/tags`).
    pub async fn list_models(&self) -> Result<Vec<String>, LlmError> {
        let fut = self.ollama.list_local_models();
        let models = tokio::time::timeout(
            Duration::from_millis(self.config.connect_timeout_ms.max(1000) * 3),
            fut,
        )
        .await
        .map_err(|_| LlmError::Timeout {
            host: self.config.host.clone(),
            seconds: self.config.connect_timeout_ms * 3 / 1000,
            stage: "listing models".into(),
        })?
        .map_err(|e| self.classify(e))?;
        Ok(models.into_iter().map(|m| m.name).collect())
    }

    /// Checks that Ollama runs and the configured model is installed.
    pub async fn check_model(&self) -> Result<(), LlmError> {
        let installed = self.list_models().await?;
        if installed.iter().any(|m| same_model(m, &self.config.model)) {
            Ok(())
        } else {
            Err(LlmError::ModelMissing {
                model: self.config.model.clone(),
                installed,
            })
        }
    }

    /// Streams a chat answer for `system` + `user`, calling `on_token` with each piece.
    /// Any of the `cancel` flags set to true stops it within [`CANCEL_POLL_MS`], before the
    /// first word or while streaming (returns [`LlmError::Cancelled`]; the caller tells which
    /// flag it was, e.g. the student's Cancel or the teacher's question pre-empting). A stream that breaks off after some
    /// text returns `Ok` with `complete: false` and the text kept.
    pub async fn chat_stream(
        &self,
        system: &str,
        user: &str,
        on_token: &mut (dyn FnMut(&str) + Send),
        cancel: &[Arc<AtomicBool>],
    ) -> Result<Generated, LlmError> {
        self.chat_stream_until(system, user, on_token, cancel, &AtomicBool::new(false))
            .await
    }

    /// [`OllamaClient::chat_stream`], ended early when `finish` is set (by the caller's
    /// check of the streamed text, [`super::stream_check`]): the answer so far is kept as
    /// complete, `stop_reason` "finished early", and the connection closed so that Ollama
    /// stops writing.
    pub async fn chat_stream_until(
        &self,
        system: &str,
        user: &str,
        on_token: &mut (dyn FnMut(&str) + Send),
        cancel: &[Arc<AtomicBool>],
        finish: &AtomicBool,
    ) -> Result<Generated, LlmError> {
        let t0 = Instant::now();
        let req = self.chat_request(system, user);
        let first_timeout = Duration::from_millis(self.config.first_token_timeout_ms);
        let timeout_err = |stage: &str, ms: u64| LlmError::Timeout {
            host: self.config.host.clone(),
            seconds: ms / 1000,
            stage: stage.into(),
        };
        // Cancelling drops the request, which closes the connection: Ollama stops at once,
        // even before its first word (a slow laptop model may take many seconds to it).
        let send = tokio::time::timeout(first_timeout, self.ollama.send_chat_messages_stream(req));
        let mut stream = tokio::select! {
            sent = send => sent
                .map_err(|_| {
                    timeout_err("waiting for the model", self.config.first_token_timeout_ms)
                })?
                .map_err(|e| self.classify(e))?,
            _ = until_cancelled(cancel) => return Err(LlmError::Cancelled),
        };
        let mut out = Generated::default();
        let mut pieces = 0usize;
        loop {
            if any_set(cancel) {
                return Err(LlmError::Cancelled);
            }
            let wait = if out.ttft_ms.is_none() {
                first_timeout.saturating_sub(t0.elapsed())
            } else {
                Duration::from_millis(self.config.idle_timeout_ms)
            };
            let next = tokio::select! {
                next = tokio::time::timeout(wait, stream.next()) => next,
                _ = until_cancelled(cancel) => return Err(LlmError::Cancelled),
            };
            let next = match next {
                Ok(n) => n,
                Err(_) if out.text.is_empty() => {
                    return Err(timeout_err(
                        "waiting for the first word",
                        self.config.first_token_timeout_ms,
                    ))
                }
                Err(_) => {
                    out.stop_reason = Some("the model stopped sending words".into());
                    out.broken = true;
                    break;
                }
            };
            match next {
                None => {
                    if !out.complete {
                        out.stop_reason.get_or_insert_with(|| {
                            "the stream ended without Ollama's final message".into()
                        });
                        out.broken = true;
                    }
                    break;
                }
                Some(Err(())) => {
                    out.stop_reason = Some("the connection to Ollama broke".into());
                    out.broken = true;
                    break;
                }
                Some(Ok(resp)) => {
                    pieces += 1;
                    if self.add_piece(&mut out, resp, pieces, t0, on_token) {
                        break;
                    }
                    if finish.load(Ordering::SeqCst) {
                        out.complete = true;
                        out.stop_reason = Some("finished early".into());
                        break;
                    }
                }
            }
        }
        out.total_ms = t0.elapsed().as_secs_f64() * 1e3;
        if out.text.is_empty() && !out.complete {
            return Err(LlmError::Server {
                message: out.stop_reason.unwrap_or_else(|| "no answer".into()),
            });
        }
        Ok(out)
    }

    /// The chat request: the `system` and `user` messages with the configured context size
    /// (tokens), temperature and answer length (tokens).
    fn chat_request(&self, system: &str, user: &str) -> ChatMessageRequest {
        let options = ModelOptions::default()
            .num_ctx(self.config.num_ctx)
            .temperature(self.config.temperature)
            .repeat_penalty(self.config.repeat_penalty)
            .repeat_last_n(REPEAT_LAST_N)
            .num_predict(self.config.max_tokens);
        ChatMessageRequest::new(
            self.config.model.clone(),
            vec![
                ChatMessage::system(system.to_string()),
                ChatMessage::user(user.to_string()),
            ],
        )
        .options(options)
    }

    /// Adds the `pieces`-th streamed response to `out` (its text also to `on_token`; `t0`: when
    /// the request was sent): true when the answer ended, at Ollama's final message or when a
    /// server that ignores `num_predict` went past `max_tokens` + 64 pieces or
    /// [`MAX_GENERATION_MS`].
    fn add_piece(
        &self,
        out: &mut Generated,
        resp: ChatMessageResponse,
        pieces: usize,
        t0: Instant,
        on_token: &mut (dyn FnMut(&str) + Send),
    ) -> bool {
        if pieces > self.config.max_tokens.max(1) as usize + 64
            || t0.elapsed() > Duration::from_millis(MAX_GENERATION_MS)
        {
            out.stop_reason = Some("the model did not stop, so Vidya stopped it".into());
            return true;
        }
        let piece = resp.message.content;
        if !piece.is_empty() {
            if out.ttft_ms.is_none() {
                out.ttft_ms = Some(t0.elapsed().as_secs_f64() * 1e3);
            }
            on_token(&piece);
            out.text.push_str(&piece);
        }
        if !resp.done {
            return false;
        }
        out.complete = true;
        if let Some(f) = resp.final_data {
            out.prompt_tokens = Some(f.prompt_eval_count);
            out.answer_tokens = Some(f.eval_count);
        }
        out.stop_reason = Some("stop".into());
        // Ollama stops at num_predict tokens with done_reason "length"; ollama-rs drops
        // done_reason, so the token count tells.
        if out
            .answer_tokens
            .is_some_and(|n| n >= self.config.max_tokens.max(1) as u64)
        {
            out.complete = false;
            out.stop_reason = Some(format!(
                "it reached the length limit of {} tokens",
                self.config.max_tokens
            ));
        }
        true
    }

    /// A whole (non-streamed) reply, for short internal prompts such as the follow-up rewrite.
    pub async fn complete(&self, prompt: &str) -> Result<String, LlmError> {
        let mut sink = |_: &str| {};
        let g = self
            .chat_stream(
                "You rewrite questions. Reply with one question only.",
                prompt,
                &mut sink,
                &[],
            )
            .await?;
        Ok(g.text)
    }
}

fn classify_message(model: &str, message: &str) -> LlmError {
    if message.contains("not found") && (message.contains("model") || message.contains(model)) {
        LlmError::ModelMissing {
            model: model.to_string(),
            installed: Vec::new(),
        }
    } else {
        LlmError::Server {
            message: message.to_string(),
        }
    }
}

fn reqwest_client(connect_timeout_ms: u64) -> reqwest::Client {
    reqwest::Client::builder()
        .connect_timeout(Duration::from_millis(connect_timeout_ms))
        .no_proxy()
        .build()
        .unwrap_or_default()
}

/// How often a streaming answer checks its cancel flag (ms).
pub const CANCEL_POLL_MS: u64 = 100;

fn any_set(flags: &[Arc<AtomicBool>]) -> bool {
    flags.iter().any(|f| f.load(Ordering::Relaxed))
}

/// Resolves once any of `flags` is true (checked every [`CANCEL_POLL_MS`]); never without a
/// flag.
async fn until_cancelled(flags: &[Arc<AtomicBool>]) {
    if flags.is_empty() {
        return std::future::pending().await;
    }
    while !any_set(flags) {
        tokio::time::sleep(Duration::from_millis(CANCEL_POLL_MS)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts() {
        let ok = |h: &str| normalize_host(h).unwrap();
        assert_eq!(ok("localhost"), "http://localhost:11434");
        assert_eq!(ok("0.0.0.0:11434"), "http://127.0.0.1:11434");
        assert_eq!(ok("http://10.1.2.3:8080/"), "http://10.1.2.3:8080");
        assert_eq!(
            ok("http://user:secret@127.0.0.1:1/api/../x"),
            "http://127.0.0.1:1"
        );
        assert_eq!(ok("[::1]:11434"), "http://[::1]:11434");
        for bad in [
            "::::",
            "http://",
            "ftp://x",
            "http://127.0.0.1:70000",
            "http://[::1",
            "http://a b",
            "http://256.1.1.1",
        ] {
            assert!(normalize_host(bad).is_err(), "{bad} accepted");
            let e = OllamaClient::new(LlmConfig {
                host: bad.into(),
                ..LlmConfig::default()
            })
            .unwrap_err();
            assert_eq!(e.kind(), "bad_host", "{bad}");
        }
    }

    #[test]
    fn messages() {
        let e = LlmError::ModelMissing {
            model: "llama3.2:3b".into(),
            installed: vec!["qwen2.5:1.5b".into()],
        };
        assert!(e.to_string().contains("ollama pull llama3.2:3b"));
        assert!(e.to_string().contains("qwen2.5:1.5b"));
        assert!(LlmError::NotRunning {
            host: DEFAULT_HOST.into()
        }
        .to_string()
        .contains("ollama serve"));
        assert!(same_model("llama3.2:latest", "llama3.2"));
    }
}
