//! Classroom mode's routes: who am I, joining with the code, leaving, and the teacher's
//! classroom controls (the address to type, its QR code, the join code, who is connected).
//! The rules of who may call what are in [`super::access`].

use super::access::{self, Access, Caller};
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Extension, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use vidya_core::app::App;

/// The addresses a student types for a server listening on `bind`: with 0.0.0.0,
/// `http://IP:PORT` for each of this machine's IPv4 network addresses (loopback and
/// link-local left out); with one address, that one (a loopback `bind` reaches this machine
/// only). The loopback address when nothing else is left.
pub fn addresses(bind: IpAddr, port: u16) -> Vec<String> {
    if !bind.is_unspecified() {
        return vec![match bind {
            IpAddr::V6(v6) => format!("http://[{v6}]:{port}"),
            v4 => format!("http://{v4}:{port}"),
        }];
    }
    let mut out: Vec<String> = local_ip_address::list_afinet_netifas()
        .map(|l| {
            l.into_iter()
                .filter_map(|(_, ip)| match ip {
                    IpAddr::V4(v4) if !v4.is_loopback() && !v4.is_link_local() => {
                        Some(format!("http://{v4}:{port}"))
                    }
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out.dedup();
    if out.is_empty() {
        out.push(format!("http://127.0.0.1:{port}"));
    }
    out
}

/// What the teacher tells the class, for a terminal: the address, a QR code of it (text art in
/// `qr`) and the join code.
pub fn announcement(access: &Access, addr: SocketAddr, qr: QrStyle) -> String {
    let list = addresses(addr.ip(), addr.port());
    let code = access.code().unwrap_or_default();
    let mut text = format!(
        "Classroom mode is on. Students open {} in a browser and type the join code {code}.",
        list.join(" or ")
    );
    if addr.ip().is_loopback() {
        text.push_str(&format!(
            "\nNote: --bind {} listens on this machine only, so other devices cannot reach it; leave --bind out to serve the school network.",
            addr.ip()
        ));
    }
    if let Some(art) = qr_text(&list[0], qr) {
        text.push_str(&format!("\nOr scan this with a phone:\n{art}"));
    }
    text.push_str("\nOnly this laptop (or a device signed in with the teacher PIN) can change the library or the settings; students can ask, and see their own conversations.");
    text
}

/// ANSI SGR: black on white, then back to the terminal's colours.
const BLACK_ON_WHITE: &str = "\x1b[30;47m";
const RESET: &str = "\x1b[0m";

/// How the text QR code is drawn. A phone reads dark modules on a light ground (most scanners
/// fail on an inverted code), so the drawing depends on where it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QrStyle {
    /// Dark modules as glyphs, each line in ANSI black on white: right on any terminal that
    /// shows colours, dark or light.
    Ansi,
    /// Dark modules as glyphs, no colours: for a file or a light terminal.
    DarkOnLight,
    /// Light modules as glyphs, no colours: for a dark terminal that takes no colours
    /// (`NO_COLOR`).
    LightOnDark,
}

/// A QR code of `text` as text art, two modules per character, with its quiet zone, drawn in
/// `style`.
pub fn qr_text(text: &str, style: QrStyle) -> Option<String> {
    use qrcode::render::unicode::Dense1x2;
    let qr = qrcode::QrCode::new(text.as_bytes()).ok()?;
    let (dark, light) = match style {
        QrStyle::LightOnDark => (Dense1x2::Light, Dense1x2::Dark),
        _ => (Dense1x2::Dark, Dense1x2::Light),
    };
    let art = qr
        .render::<Dense1x2>()
        .dark_color(dark)
        .light_color(light)
        .build();
    Some(match style {
        QrStyle::Ansi => art
            .lines()
            .map(|l| format!("{BLACK_ON_WHITE}{l}{RESET}"))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => art,
    })
}

/// The classroom as the teacher's screen shows it: `GET /api/classroom`, and the desktop
/// window's `classroom` command.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ClassroomInfo {
    /// Classroom mode is on (the server listens for the class).
    pub on: bool,
    /// The join code of the class now (6 digits); `None` between classes.
    pub code: Option<String>,
    /// The addresses students type (`http://IP:PORT`, see [`addresses`]).
    pub addresses: Vec<String>,
    /// Who is connected: `{"name", "questions", "joined_s"}` each.
    pub students: Vec<serde_json::Value>,
    /// Questions the class asked in the last minute.
    pub questions_per_minute: usize,
    /// An SVG of the first address's QR code (200 px or more).
    pub qr_svg: Option<String>,
}

impl ClassroomInfo {
    /// Classroom mode off (nothing is served to the class).
    pub fn off() -> Self {
        Self {
            on: false,
            code: None,
            addresses: Vec::new(),
            students: Vec::new(),
            questions_per_minute: 0,
            qr_svg: None,
        }
    }

    /// The classroom of `access`.
    pub fn of(access: &Access) -> Self {
        let list = match access.listening() {
            Some(addr) if access.classroom() => addresses(addr.ip(), addr.port()),
            _ => Vec::new(),
        };
        let qr_svg = list.first().and_then(|a| {
            qrcode::QrCode::new(a.as_bytes()).ok().map(|q| {
                q.render::<qrcode::render::svg::Color>()
                    .min_dimensions(200, 200)
                    .build()
            })
        });
        Self {
            on: access.classroom(),
            code: access.code(),
            addresses: list,
            students: access.students(),
            questions_per_minute: access.questions_last_minute(),
            qr_svg,
        }
    }
}

/// `GET /api/session` → `{"role": "teacher"|"student"|"none", "name"?, "classroom",
/// "pin_set"?}` (`pin_set`, for the teacher: whether a teacher PIN is set).
pub async fn session(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    Extension(caller): Extension<Caller>,
) -> Json<serde_json::Value> {
    Json(match &caller {
        Caller::Teacher => serde_json::json!({
            "role": "teacher",
            "classroom": access.classroom(),
            "pin_set": app.teacher_pin_set(),
        }),
        Caller::Student(t) => serde_json::json!({
            "role": "student",
            "name": access.name_of(t),
            "classroom": true,
        }),
        Caller::Anonymous => serde_json::json!({"role": "none", "classroom": access.classroom()}),
    })
}

/// Body of `POST /api/join`.
#[derive(serde::Deserialize)]
struct JoinRequest {
    code: String,
    name: String,
}

/// `POST /api/join` `{"code", "name"}` → `{"role": "student", "name"}` with the session
/// cookie (HttpOnly, SameSite=Strict). Refusals: see [`Access::join`].
pub async fn join(
    Extension(access): Extension<Arc<Access>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> Response {
    let Ok(req) = serde_json::from_slice::<JoinRequest>(&body) else {
        return access::refuse(
            StatusCode::BAD_REQUEST,
            "bad_option",
            r#"the request body must be JSON like {"code": "123456", "name": "Asha"}"#,
        );
    };
    match access.join(peer.ip(), &req.code, &req.name) {
        Ok(token) => {
            let name = access.name_of(&token);
            with_cookie(
                Json(serde_json::json!({"role": "student", "name": name})).into_response(),
                &token,
            )
        }
        Err(refused) => refused,
    }
}

/// `res` setting the session cookie to `value` with `extra` attributes (HttpOnly,
/// SameSite=Strict, the whole site).
fn set_session_cookie(mut res: Response, value: &str, extra: &str) -> Response {
    let cookie = format!(
        "{}={value}; HttpOnly; SameSite=Strict; Path=/{extra}",
        access::COOKIE
    );
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        res.headers_mut().insert(header::SET_COOKIE, v);
    }
    res
}

/// The session cookie for `token`.
fn with_cookie(res: Response, token: &str) -> Response {
    set_session_cookie(res, token, "")
}

/// Body of `POST /api/teacher` and `PUT /api/teacher-pin`.
#[derive(serde::Deserialize)]
struct PinRequest {
    pin: Option<String>,
}

/// `POST /api/teacher` `{"pin"}`: the teacher on another device → `{"role": "teacher"}` with
/// a session cookie. 404 when no PIN is set or classroom mode is off; 403 wrong PIN; 429
/// after five wrong codes or PINs from this address.
#[allow(clippy::result_large_err)] // the refusal is the response itself
pub async fn teacher(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    body: Bytes,
) -> Response {
    let Ok(PinRequest { pin: Some(pin) }) = serde_json::from_slice::<PinRequest>(&body) else {
        return access::refuse(
            StatusCode::BAD_REQUEST,
            "bad_option",
            r#"the request body must be JSON like {"pin": "2468"}"#,
        );
    };
    if !access.classroom() || !app.teacher_pin_set() {
        return access::refuse(
            StatusCode::NOT_FOUND,
            "no_pin",
            "no teacher PIN is set: set one on the Settings screen of the laptop that runs Vidya",
        );
    }
    let result = tokio::task::spawn_blocking(move || {
        access.teacher_login(peer.ip(), || app.check_teacher_pin(&pin))
    })
    .await;
    match result {
        Ok(Ok(token)) => with_cookie(
            Json(serde_json::json!({"role": "teacher"})).into_response(),
            &token,
        ),
        Ok(Err(refused)) => refused,
        Err(e) => crate::task_stopped(e).into_response(),
    }
}

/// `PUT /api/teacher-pin` `{"pin": "2468" | null}` (teacher): sets or removes the PIN; every
/// teacher session on another device ends. → `{"pin_set": bool}`.
pub async fn set_pin(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    body: Bytes,
) -> Response {
    let Ok(req) = serde_json::from_slice::<PinRequest>(&body) else {
        return access::refuse(
            StatusCode::BAD_REQUEST,
            "bad_option",
            r#"the request body must be JSON like {"pin": "2468"} (or {"pin": null} to remove it)"#,
        );
    };
    let setter = app.clone();
    let result =
        tokio::task::spawn_blocking(move || setter.set_teacher_pin(req.pin.as_deref())).await;
    match result {
        Ok(Ok(())) => {
            access.end_teacher_sessions();
            Json(serde_json::json!({"pin_set": app.teacher_pin_set()})).into_response()
        }
        // The engine error's own status: a PIN of the wrong form is 400, no randomness 500.
        Ok(Err(e)) => crate::ApiError(e).into_response(),
        Err(e) => crate::task_stopped(e).into_response(),
    }
}

/// `POST /api/leave`: ends this device's student session (the cookie is cleared).
pub async fn leave(
    Extension(access): Extension<Arc<Access>>,
    Extension(caller): Extension<Caller>,
) -> Response {
    if let Caller::Student(t) = &caller {
        access.leave(t);
    }
    set_session_cookie(
        Json(serde_json::json!({"role": "none"})).into_response(),
        "",
        "; Max-Age=0",
    )
}

/// `GET /api/classroom` (teacher) → `{"on", "code", "addresses", "students": [{"name",
/// "questions", "joined_s"}], "questions_per_minute", "qr_svg"}` (`qr_svg`: an SVG of the first address's QR code).
pub async fn info(Extension(access): Extension<Arc<Access>>) -> Json<ClassroomInfo> {
    Json(ClassroomInfo::of(&access))
}

/// `POST /api/classroom/start` (teacher): a new class with a new code → as `GET`. 404
/// outside classroom mode.
pub async fn start(Extension(access): Extension<Arc<Access>>) -> Response {
    if access.start_class().is_none() {
        return access::refuse(
            StatusCode::NOT_FOUND,
            "no_classroom",
            "classroom mode is off: start Vidya with `vidya serve --classroom`",
        );
    }
    info(Extension(access)).await.into_response()
}

/// `POST /api/classroom/end` (teacher): the code stops working and every student's page says
/// the class has ended.
pub async fn end(Extension(access): Extension<Arc<Access>>) -> Json<ClassroomInfo> {
    access.end_class();
    info(Extension(access)).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_qr_code_is_drawn_dark_on_light_whatever_the_terminal() {
        let art = qr_text("http://192.168.1.5:8765", QrStyle::Ansi).unwrap();
        let lines: Vec<&str> = art.lines().collect();
        assert!(lines.len() > 10);
        for l in &lines {
            assert!(l.starts_with(BLACK_ON_WHITE) && l.ends_with(RESET), "{l:?}");
        }
        // The quiet zone is light (spaces on the white background), the finder patterns dark.
        let first = lines[0]
            .trim_start_matches(BLACK_ON_WHITE)
            .trim_end_matches(RESET);
        assert!(first.chars().all(|c| c == ' '), "{first:?}");
        assert!(art.contains('█'));
        // Without colours: the glyphs are the dark modules, or on a dark terminal the light
        // ones (the quiet zone is then drawn).
        let plain = qr_text("http://192.168.1.5:8765", QrStyle::DarkOnLight).unwrap();
        assert!(!plain.contains('\x1b') && plain.lines().next().unwrap().trim().is_empty());
        let inverted = qr_text("http://192.168.1.5:8765", QrStyle::LightOnDark).unwrap();
        assert!(inverted.lines().next().unwrap().chars().all(|c| c == '█'));
    }
}
