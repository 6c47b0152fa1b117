//! `vidya serve`: the HTTP API and the browser interface ([`vidya_server`]) until Ctrl-C, with
//! the address (and in classroom mode the join code and a QR code) printed for the teacher.

use anyhow::Result;
use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use vidya_core::app::{App, LlmOverrides};
use vidya_server::{classroom, Server};

/// Serves `library` at `bind` until Ctrl-C. `classroom` turns classroom mode on (students
/// join with a code). Errors: `bind` is not loopback without `classroom`, the address is
/// taken, the library folder cannot be created.
pub fn run(
    library: &Path,
    bind: SocketAddr,
    overrides: LlmOverrides,
    embed: bool,
    classroom: bool,
) -> Result<ExitCode> {
    // Before the library is opened (and created): a refused address leaves nothing behind.
    vidya_server::check_bind(bind, classroom)?;
    let app = Arc::new(App::open(library, embed, overrides)?);
    let ui = vidya_core::paths::ui_dir();
    if !ui.join("index.html").is_file() {
        crate::output::err_line(format!(
            "note: the browser interface was not found in {} (set VIDYA_UI_DIR); the API works without it",
            ui.display()
        ));
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = Server::start(app.clone(), bind, classroom, &ui).await?;
        crate::output::err_line(if classroom {
            format!(
                "Vidya is serving {} at {} on this laptop, and to the class on port {} (Ctrl-C stops it)",
                library.display(),
                server.local_url(),
                server.addr().port()
            )
        } else {
            format!(
                "Vidya is serving {} at {} (Ctrl-C stops it)",
                library.display(),
                server.local_url()
            )
        });
        if classroom {
            // Through anstream: the QR code's colours reach a terminal (Windows' console
            // included); a file gets it dark on light, a terminal without colours
            // (NO_COLOR) light on dark, as most terminals are.
            let err = anstream::stderr();
            let qr = match (
                err.current_choice() != anstream::ColorChoice::Never,
                std::io::stderr().is_terminal(),
            ) {
                (true, _) => classroom::QrStyle::Ansi,
                (false, true) => classroom::QrStyle::LightOnDark,
                (false, false) => classroom::QrStyle::DarkOnLight,
            };
            let _ = writeln!(
                err.lock(),
                "{}",
                classroom::announcement(server.access(), server.addr(), qr)
            );
        }
        let background = app.clone();
        let started = tokio::task::spawn_blocking(move || {
            // Vectors an earlier version made are made again first (the page shows how far).
            let updated = background.refresh_vectors();
            if updated > 0 {
                crate::output::err_line(format!(
                    "Updated the search of {updated} passage(s) for this version of Vidya."
                ));
            }
            background.warm_up();
        });
        let served = server
            .serve_until(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await;
        // The start-up work stops within a second, keeping what it finished; a book being
        // added is cancelled.
        app.close();
        let _ = started.await;
        served?;
        // Ctrl-C (on Windows also closing the console): say so, so a teacher knows it stopped.
        crate::output::err_line("Vidya stopped serving; the library is saved.");
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
