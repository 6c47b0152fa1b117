//! Settings → Classroom: the window turns classroom mode on and off. On, Vidya serves the
//! school network with [`vidya_server::Server`] over the window's own app service, so the
//! class shares the window's model queue (the teacher's questions in the window go first) and
//! its answer cache; students join with the code the window shows and may only ask. Off (the
//! default, and whenever the window closes) nothing listens.

use crate::{CmdResult, Vidya};
use std::net::{Ipv4Addr, SocketAddr};
use tauri::State;
use vidya_core::app::ErrorBody;
use vidya_server::classroom::ClassroomInfo;
use vidya_server::Server;

/// The port students type, the same as `vidya serve`'s; when another program holds it, any
/// free port (the window shows the address either way).
pub const PORT: u16 = 8765;

/// The classroom server while classroom mode is on.
#[derive(Default)]
pub struct Classroom {
    server: tokio::sync::Mutex<Option<Server>>,
}

impl Classroom {
    /// When the class running now (or the last one of this classroom mode) started, in Unix
    /// seconds; `None` while classroom mode is off.
    pub async fn class_started(&self) -> Option<i64> {
        self.server
            .lock()
            .await
            .as_ref()
            .and_then(|s| s.access().class_started())
    }
}

fn classroom_error(message: String) -> ErrorBody {
    ErrorBody {
        kind: "classroom".into(),
        message,
        file: None,
    }
}

/// The classroom now (`on: false` while classroom mode is off).
#[tauri::command]
pub async fn classroom(state: State<'_, Vidya>) -> CmdResult<ClassroomInfo> {
    let guard = state.classroom.server.lock().await;
    Ok(guard
        .as_ref()
        .map_or_else(ClassroomInfo::off, Server::classroom_info))
}

/// Turns classroom mode on: listens on the local network (port [`PORT`], or a free one) and
/// starts a class with a new join code. Already on: the class as it is. Errors: no port
/// could be opened (the message says what to check).
#[tauri::command]
pub async fn classroom_on(state: State<'_, Vidya>) -> CmdResult<ClassroomInfo> {
    let mut guard = state.classroom.server.lock().await;
    if let Some(s) = guard.as_ref() {
        return Ok(s.classroom_info());
    }
    let ui = vidya_core::paths::ui_dir();
    let any = |port| SocketAddr::new(Ipv4Addr::UNSPECIFIED.into(), port);
    let server = match Server::start(state.app.clone(), any(PORT), true, &ui).await {
        Ok(s) => s,
        Err(first) => Server::start(state.app.clone(), any(0), true, &ui)
            .await
            .map_err(|e| {
                classroom_error(format!(
                    "Vidya could not open a network port for the class ({first}; {e}). Check that this laptop is connected to the school network, then try again."
                ))
            })?,
    };
    // For a teacher who started the window from a terminal (and the window's test).
    eprintln!(
        "vidya-desktop: classroom mode on at port {} ({})",
        server.addr().port(),
        server.classroom_info().addresses.join(", ")
    );
    let info = server.classroom_info();
    *guard = Some(server);
    Ok(info)
}

/// Turns classroom mode off: the class ends (students' pages say so) and nothing listens any
/// more.
#[tauri::command]
pub async fn classroom_off(state: State<'_, Vidya>) -> CmdResult<ClassroomInfo> {
    let server = state.classroom.server.lock().await.take();
    if let Some(s) = server {
        s.stop().await;
        eprintln!("vidya-desktop: classroom mode off");
    }
    Ok(ClassroomInfo::off())
}

/// A new class with a new join code (students of the last class join again). Errors:
/// classroom mode is off.
#[tauri::command]
pub async fn classroom_start(state: State<'_, Vidya>) -> CmdResult<ClassroomInfo> {
    let guard = state.classroom.server.lock().await;
    let server = guard.as_ref().ok_or_else(|| {
        classroom_error("classroom mode is off: turn it on in Settings → Classroom".into())
    })?;
    server.access().start_class();
    Ok(server.classroom_info())
}

/// Ends the class: the code stops working and every student's page says so; Vidya keeps
/// listening for the next class.
#[tauri::command]
pub async fn classroom_end(state: State<'_, Vidya>) -> CmdResult<ClassroomInfo> {
    let guard = state.classroom.server.lock().await;
    Ok(match guard.as_ref() {
        Some(s) => {
            s.access().end_class();
            s.classroom_info()
        }
        None => ClassroomInfo::off(),
    })
}

/// Sets (`Some`) or removes (`None`) the teacher PIN other devices sign in with; teachers
/// signed in on other devices must sign in again. → `{"pin_set": bool}`. Errors: a PIN that is
/// not 4 to 12 digits.
#[tauri::command]
pub async fn set_pin(state: State<'_, Vidya>, pin: Option<String>) -> CmdResult<serde_json::Value> {
    let app = state.app.clone();
    tauri::async_runtime::spawn_blocking(move || app.set_teacher_pin(pin.as_deref()))
        .await
        .map_err(crate::internal)?
        .map_err(|e| ErrorBody::from(&e))?;
    if let Some(s) = state.classroom.server.lock().await.as_ref() {
        s.access().end_teacher_sessions();
    }
    Ok(serde_json::json!({"pin_set": state.app.teacher_pin_set()}))
}
