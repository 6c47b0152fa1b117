//! The setup wizard's Ollama steps against the Ollama test server: Ollama absent (with and
//! without its installer on a "USB stick"), installed but stopped (and started), running
//! without models, a `.gguf` model imported offline (blob upload + create, with progress), a
//! model pulled by name with progress, and the errors a teacher can meet on the way.
//!
//! One test function: the wizard reads process-wide settings (`VIDYA_OLLAMA_PROGRAM`,
//! `VIDYA_MEDIA_DIRS`, `XDG_DATA_HOME`), so the steps run in order in one place.

use ollama_test_server::{Behaviour, TestServer};
use std::io::Write;
use std::path::Path;
use vidya_core::app::{App, LlmOverrides};
use vidya_core::setup::{OllamaState, SetupEvent};

fn app_at(lib: &Path, host: &str) -> App {
    App::open(
        lib,
        false,
        LlmOverrides {
            host: Some(host.to_string()),
            model: None,
            extra_hosts: Vec::new(),
        },
    )
    .unwrap()
}

/// A GGUF file as far as Ollama's first check goes: the magic, version 3, then padding.
fn tiny_gguf(path: &Path, bytes: usize) {
    let mut f = std::fs::File::create(path).unwrap();
    f.write_all(b"GGUF\x03\x00\x00\x00").unwrap();
    f.write_all(&vec![0u8; bytes - 8]).unwrap();
}

fn events_of(run: impl FnOnce(&mut dyn FnMut(SetupEvent)) -> bool) -> (bool, Vec<SetupEvent>) {
    let mut events = Vec::new();
    let ok = run(&mut |e| events.push(e));
    (ok, events)
}

fn last_error(events: &[SetupEvent]) -> String {
    match events.last() {
        Some(SetupEvent::Error(e)) => e.message.clone(),
        other => panic!("expected an error event, got {other:?}"),
    }
}

/// Progress values of one phase, in order.
fn progress(events: &[SetupEvent], phase: &str) -> Vec<(u64, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            SetupEvent::Model(p) if p.phase == phase => Some((p.completed, p.total)),
            _ => None,
        })
        .collect()
}

#[test]
fn wizard_ollama_steps() {
    let work = tempfile::tempdir().unwrap();
    let usb = work.path().join("usb");
    std::fs::create_dir_all(&usb).unwrap();
    // SAFETY: this test binary has this one test; nothing else reads the environment meanwhile.
    unsafe {
        std::env::set_var("XDG_DATA_HOME", work.path().join("data"));
        std::env::set_var("VIDYA_MEDIA_DIRS", &usb);
        std::env::set_var("VIDYA_OLLAMA_PROGRAM", "");
    }
    let lib = work.path().join("library");

    // 1. Ollama absent, no installer anywhere.
    let nothing = "http://127.0.0.1:9";
    let app = app_at(&lib, nothing);
    let r = app.setup_report();
    match &r.ollama {
        OllamaState::Absent {
            installer: None, ..
        } => {}
        other => panic!("absent without installer: {other:?}"),
    }
    assert!(!r.model_installed);
    let err = app.start_ollama().unwrap_err();
    assert!(
        err.message.contains("Ollama is not installed"),
        "{}",
        err.message
    );
    assert!(
        err.message
            .contains(vidya_core::setup::ollama::INSTALLER_NAME),
        "{}",
        err.message
    );

    // 1b. The installer was copied onto the USB stick beside Vidya's: the wizard names it.
    let installer = usb.join(if cfg!(windows) {
        "OllamaSetup.exe"
    } else {
        "ollama-linux-amd64.tgz"
    });
    // A copy cut short is not offered; a real one is tens of MB.
    std::fs::write(&installer, b"installer").unwrap();
    assert!(matches!(
        app.setup_report().ollama,
        OllamaState::Absent {
            installer: None,
            ..
        }
    ));
    std::fs::write(&installer, vec![0u8; 2 << 20]).unwrap();
    match app.setup_report().ollama {
        OllamaState::Absent {
            installer: Some(p), ..
        } => assert_eq!(p, installer),
        other => panic!("absent with installer: {other:?}"),
    }
    let err = app.start_ollama().unwrap_err();
    assert!(
        err.message.contains(&installer.display().to_string()),
        "{}",
        err.message
    );

    // 2. Installed but stopped: the wizard offers to start it, and starting it works. The
    // stand-in `ollama` is a small Python program answering /api/version and /api/tags at the
    // OLLAMA_HOST the wizard passes.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let program = work.path().join("ollama");
        std::fs::write(
            &program,
            r#"#!/usr/bin/env python3
import http.server, json, os, sys
assert sys.argv[1:] == ["serve"], sys.argv
host, port = os.environ["OLLAMA_HOST"].rsplit(":", 1)
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = {"/api/version": {"version": "0.6.0"}, "/api/tags": {"models": []}}.get(self.path)
        self.send_response(200 if body else 404)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(body or {}).encode())
    def log_message(self, *a):
        pass
http.server.HTTPServer((host, int(port)), H).serve_forever()
"#,
        )
        .unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        unsafe { std::env::set_var("VIDYA_OLLAMA_PROGRAM", &program) };
        let host = format!("http://127.0.0.1:{port}");
        let stopped = app_at(&lib, &host);
        match stopped.setup_report().ollama {
            OllamaState::Stopped { program: p, .. } => assert_eq!(p, program),
            other => panic!("stopped: {other:?}"),
        }
        match stopped.start_ollama() {
            Ok(OllamaState::Running { version, .. }) => assert_eq!(version, "0.6.0"),
            other => panic!("started: {other:?}"),
        }
        // Stop the stand-in (it was started detached, as the real one is).
        let _ = std::process::Command::new("pkill")
            .args(["-f", &program.display().to_string()])
            .status();
        unsafe { std::env::set_var("VIDYA_OLLAMA_PROGRAM", "") };
    }

    // 3. Running without models.
    let server = TestServer::start(Behaviour {
        models: Vec::new(),
        pullable: vec![("llama3.2:1b".into(), 1_321_098_329)],
        ..Behaviour::default()
    });
    let app = app_at(&lib, &server.url());
    let r = app.setup_report();
    match &r.ollama {
        OllamaState::Running { models, .. } => assert!(models.is_empty(), "{models:?}"),
        other => panic!("running: {other:?}"),
    }
    assert!(!r.model_installed);
    assert!(
        r.machine.advice.reason.contains("GB of memory"),
        "{:?}",
        r.machine
    );

    // 4. Offline import of a .gguf file found on the USB stick, with progress.
    let gguf = usb.join("Tiny-Test-Model-Q4_K_M.gguf");
    tiny_gguf(&gguf, 3 << 20);
    let r = app.setup_report();
    let found = r
        .gguf_files
        .iter()
        .find(|f| f.path == gguf)
        .unwrap_or_else(|| panic!("the USB stick's model is listed: {:?}", r.gguf_files));
    assert_eq!(found.suggested_name, "tiny-test-model-q4_k_m");
    assert_eq!(found.size_bytes, 3 << 20);
    let (ok, events) = events_of(|emit| app.import_model(&gguf, None, emit));
    assert!(ok, "{events:?}");
    let checking = progress(&events, "checking");
    assert_eq!(checking.last(), Some(&(3 << 20, 3 << 20)), "{events:?}");
    let copying = progress(&events, "copying");
    assert_eq!(copying.last(), Some(&(3 << 20, 3 << 20)), "{events:?}");
    assert!(copying.windows(2).all(|w| w[0].0 <= w[1].0), "{copying:?}");
    assert!(!progress(&events, "creating").is_empty(), "{events:?}");
    match events.last() {
        Some(SetupEvent::Done { model }) => assert_eq!(model, "tiny-test-model-q4_k_m"),
        other => panic!("done: {other:?}"),
    }
    assert_eq!((server.blob_uploads(), server.create_calls()), (1, 1));
    assert!(server
        .models()
        .contains(&"tiny-test-model-q4_k_m:latest".to_string()));
    // The new model is now the answer model, and the wizard sees it installed.
    assert_eq!(app.settings().model, "tiny-test-model-q4_k_m");
    assert!(app.setup_report().model_installed);

    // The same file again: Ollama already has the blob, so nothing is copied twice.
    let (ok, _) = events_of(|emit| app.import_model(&gguf, Some("tiny-again"), emit));
    assert!(ok);
    assert_eq!(server.blob_uploads(), 1);
    assert_eq!(server.create_calls(), 2);

    // A file that is not a GGUF model is refused before Ollama is asked.
    let zip = usb.join("model.gguf.zip.gguf");
    std::fs::write(&zip, b"PK\x03\x04 not a model").unwrap();
    let (ok, events) = events_of(|emit| app.import_model(&zip, None, emit));
    assert!(!ok);
    let msg = last_error(&events);
    assert!(
        msg.contains("is not a GGUF model file") && msg.contains("Fix:"),
        "{msg}"
    );
    assert_eq!(server.create_calls(), 2);
    // A name Ollama or the settings would refuse is refused first; the model stays.
    for bad in ["a".repeat(400), "ab\u{1}cd".into(), "../../etc/x".into()] {
        let (ok, events) = events_of(|emit| app.import_model(&gguf, Some(&bad), emit));
        assert!(!ok);
        assert!(
            last_error(&events).contains("cannot be a model name"),
            "{events:?}"
        );
    }
    assert_eq!(app.settings().model, "tiny-again");
    // A folder, or a pipe named like a model, is refused without reading it.
    let (ok, events) = events_of(|emit| app.import_model(&usb, None, emit));
    assert!(!ok);
    assert!(
        last_error(&events).contains("not a model file"),
        "{events:?}"
    );
    // A file that vanished (USB stick pulled out).
    let (ok, events) = events_of(|emit| app.import_model(&usb.join("gone.gguf"), None, emit));
    assert!(!ok);
    assert!(
        last_error(&events).contains("cannot be opened"),
        "{events:?}"
    );

    // 5. Pull by name with progress (online).
    let (ok, events) = events_of(|emit| app.pull_model("llama3.2:1b", emit));
    assert!(ok, "{events:?}");
    let downloading: Vec<(u64, u64)> = progress(&events, "downloading")
        .into_iter()
        .filter(|(_, total)| *total > 0)
        .collect();
    assert!(downloading.len() >= 5, "{events:?}");
    assert!(
        downloading.windows(2).all(|w| w[0].0 <= w[1].0),
        "{downloading:?}"
    );
    assert_eq!(downloading.last(), Some(&(1_321_098_329, 1_321_098_329)));
    assert!(matches!(events.last(), Some(SetupEvent::Done { model }) if model == "llama3.2:1b"));
    assert_eq!(app.settings().model, "llama3.2:1b");
    assert!(app.setup_report().model_installed);

    // Offline (the name is not in the test server's registry): the message says so and
    // points to the USB import.
    let (ok, events) = events_of(|emit| app.pull_model("llama3.2:3b", emit));
    assert!(!ok);
    let msg = last_error(&events);
    assert!(
        msg.contains("not connected to the internet") && msg.contains(".gguf"),
        "{msg}"
    );
    // The failed pull did not change the answer model.
    assert_eq!(app.settings().model, "llama3.2:1b");

    // Ollama went away mid-setup.
    drop(server);
    let (ok, events) = events_of(|emit| app.pull_model("llama3.2:1b", emit));
    assert!(!ok);
    assert!(
        last_error(&events).contains("Ollama is not running"),
        "{events:?}"
    );
}
