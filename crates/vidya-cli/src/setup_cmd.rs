//! `vidya setup`: the first-run wizard on the command line, in the six interface languages
//! (the same strings as the window's wizard, `ui/i18n/<lang>.json`). It checks Vidya's bundled
//! files, the library folder, Ollama and the answer model; it can start Ollama, import a
//! `.gguf` model file offline or download one by name (with progress bars), and it asks one test
//! question about the bundled sample chapter.

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use vidya_core::app::{App, LlmOverrides};
use vidya_core::setup::{ModelProgress, OllamaState, ResourceStatus, SetupEvent};

use crate::output;

/// The interface strings of the six languages (compiled in from `ui/i18n/`).
const STRINGS: [(&str, &str); 6] = [
    ("en", include_str!("../../../ui/i18n/en.json")),
    ("hi", include_str!("../../../ui/i18n/hi.json")),
    ("mr", include_str!("../../../ui/i18n/mr.json")),
    ("kn", include_str!("../../../ui/i18n/kn.json")),
    ("te", include_str!("../../../ui/i18n/te.json")),
    ("ta", include_str!("../../../ui/i18n/ta.json")),
];

/// Interface strings of one language, English where a key is missing.
pub struct Strings {
    lang: serde_json::Value,
    english: serde_json::Value,
}

impl Strings {
    /// The strings of `lang` (`en`, `hi`, `mr`, `kn`, `te`, `ta`).
    pub fn new(lang: &str) -> Self {
        let parse = |code: &str| {
            STRINGS
                .iter()
                .find(|(c, _)| *c == code)
                .and_then(|(_, s)| serde_json::from_str(s).ok())
                .unwrap_or(serde_json::Value::Null)
        };
        Self {
            lang: parse(lang),
            english: parse("en"),
        }
    }

    /// The string `key` with `{name}` placeholders filled from `vars`.
    pub fn t(&self, key: &str, vars: &[(&str, String)]) -> String {
        let mut s = self
            .lang
            .get(key)
            .or_else(|| self.english.get(key))
            .and_then(|v| v.as_str())
            .unwrap_or(key)
            .to_string();
        for (k, v) in vars {
            s = s.replace(&format!("{{{k}}}"), v);
        }
        s
    }
}

/// What `vidya setup` was asked to do (its command-line options).
#[derive(clap::Args)]
pub struct SetupArgs {
    /// Language of the messages: en, hi, mr, kn, te or ta.
    #[arg(long, default_value = "en", value_parser = ["en", "hi", "mr", "kn", "te", "ta"], ignore_case = true)]
    pub lang: String,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Ollama address (default: the saved settings, else OLLAMA_HOST, else
    /// http://127.0.0.1:11434).
    #[arg(long)]
    pub host: Option<String>,
    /// Start the installed Ollama first.
    #[arg(long)]
    pub start_ollama: bool,
    /// Add this .gguf model file to Ollama (offline) and make it the answer model.
    #[arg(long, value_name = "FILE.gguf")]
    pub import: Option<PathBuf>,
    /// The model's name in Ollama (default: from the file name).
    #[arg(long, requires = "import")]
    pub name: Option<String>,
    /// Download this model through Ollama (needs internet) and make it the answer model.
    #[arg(long, value_name = "MODEL")]
    pub pull: Option<String>,
    /// Skip the test question.
    #[arg(long)]
    pub no_test: bool,
}

fn gb(bytes: u64) -> String {
    format!("{:.1}", bytes as f64 / 1e9)
}

fn progress_bar(s: &Strings) -> impl FnMut(SetupEvent) + '_ {
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta})")
            .expect("valid template")
            .progress_chars("=> "),
    );
    let mut phase = String::new();
    move |e| match e {
        // The final status line; the `Done` event below says it with the model's name.
        SetupEvent::Model(ModelProgress { phase: p, .. }) if p == "done" => {}
        SetupEvent::Model(ModelProgress {
            phase: p,
            completed,
            total,
            ..
        }) => {
            if p != phase {
                phase = p.clone();
                bar.set_message(s.t(&format!("setup.progress.{p}"), &[]));
                bar.set_length(0);
                bar.set_position(0);
            }
            // Lines without byte counts (Ollama's "verifying", "writing manifest") keep the
            // bar where it is.
            if total > 0 {
                bar.set_length(total);
                bar.set_position(completed.min(total));
            }
        }
        SetupEvent::Done { model } => {
            bar.finish_and_clear();
            output::err_line(s.t("setup.progress.done", &[("model", model)]));
        }
        SetupEvent::Error(err) => {
            bar.finish_and_clear();
            output::err_line(format!("error: {}", err.message));
        }
        _ => {}
    }
}

/// Runs the wizard over the library in `library`. Exit status 1 when a bundled file or the
/// library folder has a problem, or an asked-for action failed; 2 for an address that is not
/// a web address.
pub fn run(library: &Path, a: SetupArgs) -> Result<ExitCode> {
    let mut a = a;
    a.lang = a.lang.to_lowercase();
    let s = Strings::new(&a.lang);
    if let Some(h) = &a.host {
        match vidya_core::answer::llm_client::normalize_host(h) {
            Ok(n) => a.host = Some(n),
            Err(why) => {
                output::err_line(format!(
                    "error: the Ollama address '{h}' is not a web address ({why}). Fix: use one like http://127.0.0.1:11434"
                ));
                return Ok(ExitCode::from(2));
            }
        }
    }
    let app = App::open(
        library,
        true,
        LlmOverrides {
            host: a.host.clone(),
            model: None,
            extra_hosts: Vec::new(),
        },
    )?;
    let (actions, mut failed) = run_actions(&app, &a, &s);
    let report = app.setup_report();
    if !a.json {
        print_report(&s, &report)?;
    }
    let test = if a.no_test {
        serde_json::Value::Null
    } else {
        let (ok, test) = test_question(&app, &a, &s)?;
        failed |= !ok;
        test
    };
    let mut problems = report.problems();
    failed |= !problems.is_empty();
    if !failed {
        if let Err(e) = save_settings(&app, library, a.host.as_deref()) {
            failed = true;
            problems.push(format!(
                "the settings could not be saved ({e}). Fix: make the library folder writable"
            ));
            if !a.json {
                output::err_line(format!("error: {}", problems.last().expect("pushed")));
            }
        }
    }
    if a.json {
        out!(
            "{}",
            serde_json::to_string_pretty(&serde_json::json!({
                "report": report, "problems": problems, "actions": actions, "test": test,
            }))?
        );
    } else if !failed {
        out!(
            "\n6. {}\n   {}",
            s.t("setup.step.done", &[]),
            s.t("setup.done.text_cli", &[])
        );
    }
    Ok(if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The actions asked for (start Ollama, import a file, pull a model), in that order: what each
/// did (for `--json`), and whether one failed.
fn run_actions(app: &App, a: &SetupArgs, s: &Strings) -> (Vec<serde_json::Value>, bool) {
    let mut failed = false;
    let mut actions = Vec::new();
    if a.start_ollama {
        if !a.json {
            output::err_line(s.t("setup.ollama.starting", &[]));
        }
        match app.start_ollama() {
            Ok(state) => actions.push(serde_json::json!({"start_ollama": state})),
            Err(e) => {
                failed = true;
                if !a.json {
                    output::err_line(format!("error: {}", e.message));
                }
                actions.push(serde_json::json!({"start_ollama": {"error": e}}));
            }
        }
    }
    if let Some(file) = &a.import {
        let name = a.name.as_deref();
        let (ok, action) = model_action("import", a, s, &mut |emit| {
            app.import_model(file, name, emit)
        });
        failed |= !ok;
        actions.push(action);
    }
    if let Some(model) = &a.pull {
        let (ok, action) = model_action("pull", a, s, &mut |emit| app.pull_model(model, emit));
        failed |= !ok;
        actions.push(action);
    }
    (actions, failed)
}

/// Where a setup action sends its events.
type Emit<'a> = dyn FnMut(SetupEvent) + 'a;

/// Runs one model action (`what`: `import` or `pull`) with a progress bar (unless `--json`):
/// whether it worked, and `{what: {"ok", "result"}}` with its last event.
fn model_action(
    what: &str,
    a: &SetupArgs,
    s: &Strings,
    act: &mut dyn FnMut(&mut Emit<'_>) -> bool,
) -> (bool, serde_json::Value) {
    let mut last = None;
    let mut bar = progress_bar(s);
    let ok = act(&mut |e| {
        if !a.json {
            bar(e.clone());
        }
        if !matches!(e, SetupEvent::Model(_)) {
            last = Some(e);
        }
    });
    (ok, serde_json::json!({ what: {"ok": ok, "result": last} }))
}

/// Step 5: the test question about the bundled sample chapter, its answer streamed (unless
/// `--json`): whether it was answered, and the answer (or `{"error"}`) for `--json`.
fn test_question(app: &App, a: &SetupArgs, s: &Strings) -> Result<(bool, serde_json::Value)> {
    if !a.json {
        out!(
            "\n5. {}\n   {}",
            s.t("setup.step.test", &[]),
            s.t("setup.test.intro", &[])
        );
        out!("> {}", vidya_core::setup::sample::SAMPLE_QUESTION);
    }
    let (tx, rx) = std::sync::mpsc::channel::<SetupEvent>();
    let lang = Some(a.lang.clone());
    let printing = !a.json;
    let (ok, last) = std::thread::scope(|scope| {
        let worker = scope.spawn(move || {
            app.sample_question(lang, &mut |e| {
                let _ = tx.send(e);
            })
        });
        let mut last = None;
        let mut said_reading = false;
        for e in rx {
            if printing {
                match &e {
                    SetupEvent::Reading(_) if !said_reading => {
                        said_reading = true;
                        output::err_line(s.t("setup.test.reading", &[]))
                    }
                    SetupEvent::Token { text } => {
                        let t: String = text
                            .chars()
                            .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
                            .collect();
                        let _ = output::text(&t);
                    }
                    _ => {}
                }
            }
            if matches!(e, SetupEvent::Answer(_) | SetupEvent::Error(_)) {
                last = Some(e);
            }
        }
        (worker.join().unwrap_or(false), last)
    });
    let test = match &last {
        Some(SetupEvent::Answer(ans)) => {
            if !a.json {
                print_test_answer(s, ans)?;
            }
            serde_json::to_value(ans)?
        }
        Some(SetupEvent::Error(e)) => {
            if !a.json {
                out!("error: {}", e.message);
            }
            serde_json::json!({ "error": e })
        }
        _ => serde_json::Value::Null,
    };
    Ok((ok, test))
}

/// The test answer's text (when the model's was not streamed), its sources and the verdict.
fn print_test_answer(s: &Strings, ans: &vidya_core::answer::TutorAnswer) -> Result<()> {
    let model_text = ans.status.is_model_text();
    if !model_text {
        out!("{}", ans.base.answer);
    }
    out!("");
    for c in &ans.base.citations {
        out!(
            "  [{}] {} · {} · {}",
            c.n,
            c.book,
            c.chapter,
            s.t("sources.page", &[("page", c.page_label.clone())])
        );
    }
    out!(
        "{}",
        if model_text {
            s.t("setup.test.ok", &[])
        } else {
            s.t("setup.test.extractive", &[])
        }
    );
    Ok(())
}

/// Marks the wizard done, and makes the address it worked with the app's (the window and
/// `vidya ask` read the saved settings).
fn save_settings(app: &App, library: &Path, host: Option<&str>) -> vidya_core::Result<()> {
    app.set_setup_done(true)?;
    if let Some(host) = host {
        let mut s = vidya_core::app::Settings::load(library);
        s.ollama_host = host.to_string();
        s.save(library)?;
    }
    Ok(())
}

/// `[OK]`, or `[<otherwise>]` (`setup.status.problem` or `setup.status.optional`).
fn badge(ok: bool, otherwise: &str, s: &Strings) -> String {
    format!(
        "[{}]",
        s.t(if ok { "setup.status.ok" } else { otherwise }, &[])
    )
}

/// Steps 1 to 4 of the wizard: bundled files, library folder, Ollama, answer model.
fn print_report(s: &Strings, r: &vidya_core::setup::SetupReport) -> Result<()> {
    out!("{}", s.t("setup.title", &[]));
    print_files(s, r)?;
    print_library(s, r)?;
    print_ollama(s, r)?;
    print_model(s, r)
}

/// Step 1: the bundled files, and each one that is missing or damaged.
fn print_files(s: &Strings, r: &vidya_core::setup::SetupReport) -> Result<()> {
    let files_ok = r.resources.all_ok();
    out!(
        "\n1. {} {}",
        s.t("setup.step.files", &[]),
        badge(files_ok, "setup.status.problem", s)
    );
    if files_ok {
        out!(
            "   {}",
            s.t(
                "setup.files.ok",
                &[("count", r.resources.files.len().to_string())]
            )
        );
    } else {
        out!("   {}", s.t("setup.files.bad", &[]));
        for f in r
            .resources
            .files
            .iter()
            .filter(|f| f.status != ResourceStatus::Ok)
        {
            out!("   - {}", f.message.clone().unwrap_or_default());
        }
    }
    Ok(())
}

/// Step 2: the library folder, its free space and the laptop's memory.
fn print_library(s: &Strings, r: &vidya_core::setup::SetupReport) -> Result<()> {
    let m = &r.machine;
    let lib_ok = m.problems.is_empty();
    out!(
        "\n2. {} {}",
        s.t("setup.step.library", &[]),
        badge(lib_ok, "setup.status.problem", s)
    );
    out!(
        "   {}",
        s.t(
            "setup.library.ok",
            &[
                ("path", m.library.clone()),
                (
                    "free",
                    m.free_disk_bytes.map(gb).unwrap_or_else(|| "?".into())
                ),
            ]
        )
    );
    for p in &m.problems {
        out!("   - {p}");
    }
    for w in &m.warnings {
        out!("   ! {w}");
    }
    out!(
        "   {}",
        s.t("setup.memory", &[("gb", gb(m.total_memory_bytes))])
    );
    Ok(())
}

/// Step 3: Ollama running, stopped (how to start it) or absent (where its installer is).
fn print_ollama(s: &Strings, r: &vidya_core::setup::SetupReport) -> Result<()> {
    let running = matches!(r.ollama, OllamaState::Running { .. });
    out!(
        "\n3. {} {}",
        s.t("setup.step.ollama", &[]),
        badge(running, "setup.status.optional", s)
    );
    match &r.ollama {
        OllamaState::Running { version, .. } => out!(
            "   {}",
            s.t("setup.ollama.running", &[("version", version.clone())])
        ),
        OllamaState::Stopped { program, .. } => {
            out!("   {}", s.t("setup.ollama.stopped", &[]));
            out!("   ({}; vidya setup --start-ollama)", program.display());
        }
        OllamaState::Absent { installer, .. } => {
            out!("   {}", s.t("setup.ollama.absent", &[]));
            match installer {
                Some(i) => out!(
                    "   {}",
                    s.t(
                        "setup.ollama.installer_cli",
                        &[("path", i.display().to_string())]
                    )
                ),
                None => out!(
                    "   {}",
                    s.t(
                        "setup.ollama.no_installer_cli",
                        &[("file", r.ollama_installer_name.to_string())]
                    )
                ),
            }
            // Ollama's archive for Linux is unpacked, not run (its manual install).
            if r.ollama_installer_name.ends_with(".tgz") {
                let file = match installer {
                    Some(i) => i.display().to_string(),
                    None => r.ollama_installer_name.to_string(),
                };
                out!("   (sudo tar -C /usr -xzf {file}; ollama serve)");
            }
        }
    }
    Ok(())
}

/// Step 4: the recommended model, the installed ones, and `.gguf` files found.
fn print_model(s: &Strings, r: &vidya_core::setup::SetupReport) -> Result<()> {
    let m = &r.machine;
    out!(
        "\n4. {} {}",
        s.t("setup.step.model", &[]),
        badge(r.model_installed, "setup.status.optional", s)
    );
    match &m.advice.model {
        Some(model) => out!(
            "   {}",
            s.t(
                "setup.model.recommended",
                &[("model", model.clone()), ("size", gb(m.advice.size_bytes))]
            )
        ),
        None => out!("   {}", s.t("setup.model.none_fits", &[])),
    }
    // The window has buttons for this step; the terminal names its options.
    if !r.model_installed {
        if let Some(model) = &m.advice.model {
            out!("   (vidya setup --import FILE.gguf; with internet: vidya setup --pull {model})");
        }
    }
    if let OllamaState::Running { models, .. } = &r.ollama {
        if models.is_empty() {
            out!("   {}", s.t("setup.model.none_installed", &[]));
        } else {
            out!(
                "   {} {}",
                s.t("setup.model.installed", &[]),
                models.join(", ")
            );
        }
        if r.model_installed {
            out!(
                "   {}",
                s.t("setup.model.current", &[("model", r.model.clone())])
            );
        } else {
            out!(
                "   {}",
                s.t("setup.model.current_missing", &[("model", r.model.clone())])
            );
        }
    }
    if !r.gguf_files.is_empty() {
        out!("   {}", s.t("setup.model.found_files", &[]));
        for f in &r.gguf_files {
            // File names come from a USB stick: shown, never offered as a command to paste.
            let shown: String = f
                .path
                .display()
                .to_string()
                .chars()
                .map(|c| if c.is_control() { '?' } else { c })
                .collect();
            out!("   - {shown} ({} GB)", gb(f.size_bytes));
        }
        out!("   (vidya setup --import FILE.gguf)");
    }
    Ok(())
}
