//! Who may call each route of `vidya serve`, checked before any handler runs.
//!
//! Two roles ([`Role`]):
//! - **teacher**: requests from this machine itself (peer 127.0.0.1, ::1, or one of the
//!   network addresses this machine holds now: read again every [`OWN_ADDRESSES_S`] seconds,
//!   so an address the laptop gave up is a student's device's once it gets it), or from
//!   another device after the teacher PIN (`POST /api/teacher`; the PIN is set on the laptop's
//!   Settings screen). Library changes, settings, setup, the dashboard, every conversation and
//!   the classroom controls are the teacher's alone; naming files on the laptop's disk (an
//!   ingest by path, a model import) is the laptop's alone: another device uploads.
//! - **student**: a device that joined the class with the six-digit join code
//!   (`POST /api/join`); it holds an HttpOnly, SameSite=Strict session cookie and may ask,
//!   follow up, read and delete its own conversations and see the cited page images. Nothing
//!   else.
//!
//! Every API route's least role is declared once, in [`vidya_core::app::roles::ROUTES`]; [`guard`] looks the matched
//! route up before the handler runs and refuses a route that is not declared (fail closed).
//! Wrong join codes and PINs are counted per address: after [`MAX_TRIES`] the address waits
//! [`FIRST_LOCKOUT_S`] seconds, doubling with each further wrong code up to
//! [`MAX_LOCKOUT_S`] (a wait, never a permanent ban); other addresses are not affected. A
//! session (a student's, or the teacher's after the PIN) holds for the address it was made
//! on only: its cookie sent from another address is nobody's. Students exist only in classroom mode
//! (`vidya serve --classroom`); without it the server listens on loopback alone and a request
//! from anywhere but this machine's loopback is anonymous.

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use axum_extra::extract::cookie::CookieJar;
use std::collections::{HashMap, HashSet, VecDeque};
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use vidya_core::app::roles::{role_of, Role};
use vidya_core::store::class_report::Asker;

/// Wrong join codes an address may send before it has to wait.
pub const MAX_TRIES: u32 = 5;
/// The first wait after [`MAX_TRIES`] wrong codes (seconds); it doubles with each further one.
pub const FIRST_LOCKOUT_S: u64 = 30;
/// The longest wait (seconds).
pub const MAX_LOCKOUT_S: u64 = 15 * 60;
/// Wrong teacher PINs all devices together may send before each device is allowed one wrong
/// PIN only (instead of [`MAX_TRIES`]) before it waits: many addresses must not mean many
/// guesses, yet a device that types the right PIN (the teacher's tablet) is never kept out by
/// other devices' guesses. The count starts again after an hour without a wrong PIN.
pub const MAX_PIN_TRIES_ALL: u32 = 20;
/// Questions one device (address) may send per minute.
pub const QUESTIONS_PER_MINUTE: usize = 10;
/// Seconds this machine's own network addresses are used after they were read; then they are
/// read again, so an address the laptop gave up (a DHCP change) stops being the laptop's.
pub const OWN_ADDRESSES_S: u64 = 2;
/// Name of the session cookie.
pub const COOKIE: &str = "vidya_session";
/// Longest device name a student may type (characters).
pub const MAX_NAME_CHARS: usize = 40;
/// Sessions (seats of the class) one device address may hold: joining once more ends its
/// earlier one (a browser that lost its cookie joins again), so a few devices cannot fill
/// the class.
pub const SESSIONS_PER_ADDRESS: usize = 1;
/// Devices one class may have at once (a computer lab, or two classes together, with room):
/// one seat each ([`SESSIONS_PER_ADDRESS`]).
pub const MAX_STUDENTS: usize = 250;
/// A session unused this long ends (seconds): longer than any lesson, shorter than a night.
pub const SESSION_IDLE_S: u64 = 4 * 3600;
/// Largest request body another device may send (bytes): a question, a join, a page request
/// (a question is cut at 2,000 characters; uploads are the teacher's alone).
pub const MAX_OTHER_BODY_BYTES: usize = 64 * 1024;
/// Seconds another device's request body may take to arrive once its head has: a body sent
/// a byte at a time would otherwise hold its connection open for ever.
pub const BODY_READ_S: u64 = 10;

/// Who is calling, as [`guard`] found out (put in the request's extensions).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// This machine: the teacher.
    Teacher,
    /// A joined student, by session token.
    Student(String),
    /// Anyone else.
    Anonymous,
}

/// Where a request comes from, as [`guard`] found out (put in the request's extensions beside
/// the [`Caller`]): the laptop itself, or another device (a PIN teacher is another device).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer {
    /// The peer's address (`None` when the connection's address is unknown).
    pub ip: Option<IpAddr>,
    /// The request comes from this machine itself.
    pub laptop: bool,
}

/// The teacher's session on another device (after the PIN).
#[derive(Debug)]
struct TeacherSession {
    /// The address it was made on: the only one it holds for.
    ip: IpAddr,
    /// Its last request.
    seen: Instant,
}

/// A joined student's device.
#[derive(Debug)]
struct Student {
    name: String,
    /// The address it joined from.
    ip: IpAddr,
    joined: Instant,
    /// Its last request.
    seen: Instant,
    conversations: HashSet<i64>,
    questions: u32,
}

#[derive(Debug, Default)]
struct Failures {
    wrong: u32,
    until: Option<Instant>,
    /// The last wrong one.
    last: Option<Instant>,
}

#[derive(Debug, Default)]
struct Inner {
    code: Option<String>,
    /// When the class running now (or the last one) started, in Unix seconds.
    class_started: Option<i64>,
    students: HashMap<String, Student>,
    /// Sessions of the teacher on another device (after the teacher PIN).
    teachers: HashMap<String, TeacherSession>,
    failures: HashMap<IpAddr, Failures>,
    /// The questions in flight: the session that asked each, and its address (kept when the
    /// session ends meanwhile, so joining again is no second question in flight).
    in_flight: HashMap<String, IpAddr>,
    /// When each address asked its questions of the last minute (kept when its sessions end,
    /// so joining again does not start the count again).
    asked: HashMap<IpAddr, VecDeque<Instant>>,
    /// Wrong teacher PINs from all devices together ([`MAX_PIN_TRIES_ALL`]): never a lockout
    /// of its own, only fewer tries for each device.
    pin_failures: Failures,
}

/// This machine's own network addresses, read again once [`OWN_ADDRESSES_S`] old.
struct OwnAddresses {
    read: Box<dyn Fn() -> Vec<IpAddr> + Send + Sync>,
    /// The last read and when it was made.
    seen: Mutex<Option<(Instant, Vec<IpAddr>)>>,
}

impl std::fmt::Debug for OwnAddresses {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        f.debug_struct("OwnAddresses")
            .field("seen", &*seen)
            .finish_non_exhaustive()
    }
}

impl OwnAddresses {
    /// True when `ip` is one of the addresses held at `now` (read again when the last read is
    /// [`OWN_ADDRESSES_S`] old, or from before `now`'s clock).
    fn holds(&self, ip: IpAddr, now: Instant) -> bool {
        let mut seen = self.seen.lock().unwrap_or_else(|p| p.into_inner());
        let fresh = seen.as_ref().is_some_and(|(at, _)| {
            now.checked_duration_since(*at)
                .is_some_and(|age| age < Duration::from_secs(OWN_ADDRESSES_S))
        });
        if !fresh {
            *seen = Some((now, (self.read)()));
        }
        seen.as_ref().is_some_and(|(_, list)| list.contains(&ip))
    }
}

/// The access state of one server: classroom mode, join code, student sessions, lockouts.
#[derive(Debug)]
pub struct Access {
    classroom: bool,
    own: OwnAddresses,
    /// The address the server listens on (set once the socket is bound).
    listening: std::sync::OnceLock<SocketAddr>,
    inner: Mutex<Inner>,
}

/// A refusal, as the API's `{"error": {"kind", "message"}}`.
pub fn refuse(status: StatusCode, kind: &str, message: impl Into<String>) -> Response {
    (
        status,
        Json(serde_json::json!({"error": {"kind": kind, "message": message.into()}})),
    )
        .into_response()
}

/// Six random digits (from the operating system's generator).
fn new_code() -> String {
    let mut b = [0u8; 8];
    getrandom::fill(&mut b).expect("the operating system's random generator");
    format!("{:06}", u64::from_le_bytes(b) % 1_000_000)
}

/// 128 random bits as hex: a session token.
fn new_token() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the operating system's random generator");
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Invisible characters a name may not hold: bidirectional embeddings, overrides and
/// isolates (which can make a name read as another on the teacher's screen), zero-width
/// spaces, word joiners and the byte-order mark. The zero-width joiner and non-joiner
/// (U+200C, U+200D) stay: Indic scripts need them. Source: Unicode UAX #9 (bidi controls)
/// and the `Cf` characters of UTS #39's restricted list.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}' | '\u{17B5}'
        | '\u{180B}'..='\u{180F}' | '\u{200B}' | '\u{200E}' | '\u{200F}'
        | '\u{2028}'..='\u{202E}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{206F}'
        | '\u{3164}' | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}'
        | '\u{1D173}'..='\u{1D17A}' | '\u{E0000}'..='\u{E0FFF}')
}

/// The device name a student typed: control and invisible characters ([`is_invisible`])
/// removed, runs of spaces made one, trimmed, at most [`MAX_NAME_CHARS`] characters. `None`
/// when no visible letter or digit is left.
pub fn clean_name(name: &str) -> Option<String> {
    let visible: String = name
        .chars()
        .filter(|c| !c.is_control() && !is_invisible(*c))
        .collect();
    let n: String = visible
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(MAX_NAME_CHARS)
        .collect();
    let n = n.trim_end().to_string();
    n.chars().any(char::is_alphanumeric).then_some(n)
}

/// True when a session last used at `seen` has ended for idleness ([`SESSION_IDLE_S`]).
fn idle(seen: Instant, now: Instant) -> bool {
    now.duration_since(seen) > Duration::from_secs(SESSION_IDLE_S)
}

/// Ends the sessions left idle ([`SESSION_IDLE_S`]).
fn sweep(inner: &mut Inner, now: Instant) {
    inner.students.retain(|_, s| !idle(s.seen, now));
    inner.teachers.retain(|_, t| !idle(t.seen, now));
    // Wrong codes are remembered while they matter: a day without one forgets them.
    inner.failures.retain(|_, f| {
        f.last
            .is_some_and(|t| now.duration_since(t) < Duration::from_secs(24 * 3600))
    });
}

/// What a locked-out device was typing: the class code or the teacher PIN (the refusal says
/// what to do next).
#[derive(Clone, Copy)]
enum Typing {
    Code,
    Pin,
}

/// The refusal for an address that sent too many wrong codes or PINs, while it must wait.
fn locked(inner: &mut Inner, ip: IpAddr, now: Instant, typing: Typing) -> Option<Response> {
    let until = inner.failures.get(&ip)?.until.filter(|u| *u > now)?;
    let wait = (until - now).as_secs() + 1;
    let next = match typing {
        Typing::Code => "then type the code on your teacher's screen",
        Typing::Pin => "then type the PIN again (other devices are not affected; the laptop itself needs no PIN)",
    };
    Some(refuse(
        StatusCode::TOO_MANY_REQUESTS,
        "locked",
        format!("too many wrong codes or PINs from this device: wait {wait} s, {next}"),
    ))
}

/// Counts a wrong PIN for all devices together ([`MAX_PIN_TRIES_ALL`]); true when so many
/// were typed in the last hour that each device gets one try only.
fn pin_failed(inner: &mut Inner, now: Instant) -> bool {
    let f = &mut inner.pin_failures;
    if f.last
        .is_some_and(|t| now.duration_since(t) > Duration::from_secs(3600))
    {
        *f = Failures::default();
    }
    let many = f.wrong >= MAX_PIN_TRIES_ALL;
    f.wrong += 1;
    f.last = Some(now);
    many
}

/// Counts a wrong code or PIN from `ip`; from the `tries`th on, the address waits.
fn failed(inner: &mut Inner, ip: IpAddr, now: Instant, tries: u32) {
    let f = inner.failures.entry(ip).or_default();
    f.wrong += 1;
    f.last = Some(now);
    if f.wrong >= tries {
        let doublings = (f.wrong - tries).min(10);
        let secs = (FIRST_LOCKOUT_S << doublings).min(MAX_LOCKOUT_S);
        f.until = Some(now + Duration::from_secs(secs));
    }
}

impl Access {
    /// Access for a server; `classroom` starts a class (a fresh join code). `own` are this
    /// machine's network addresses (requests from them are the teacher's), fixed (tests;
    /// [`Access::reading`] follows the addresses the machine holds).
    pub fn new(classroom: bool, own: Vec<IpAddr>) -> Self {
        Self::reading(classroom, move || own.clone())
    }

    /// Access for a server whose own network addresses `read` returns: read when first
    /// needed and again once [`OWN_ADDRESSES_S`] old.
    pub fn reading(
        classroom: bool,
        read: impl Fn() -> Vec<IpAddr> + Send + Sync + 'static,
    ) -> Self {
        Self {
            classroom,
            own: OwnAddresses {
                read: Box::new(read),
                seen: Mutex::new(None),
            },
            listening: std::sync::OnceLock::new(),
            inner: Mutex::new(Inner {
                code: classroom.then(new_code),
                class_started: classroom.then(vidya_core::app::class_report::unix_now),
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Records the address the server listens on (the first call wins).
    pub fn set_listening(&self, addr: SocketAddr) {
        let _ = self.listening.set(addr);
    }

    /// The address the server listens on, once bound.
    pub fn listening(&self) -> Option<SocketAddr> {
        self.listening.get().copied()
    }

    /// True in classroom mode.
    pub fn classroom(&self) -> bool {
        self.classroom
    }

    /// The join code of the class running now (`None`: no class).
    pub fn code(&self) -> Option<String> {
        self.lock().code.clone()
    }

    /// Starts a class with a new join code (students of an earlier class must join again).
    /// Returns the code, or `None` outside classroom mode.
    pub fn start_class(&self) -> Option<String> {
        if !self.classroom {
            return None;
        }
        let mut inner = self.lock();
        inner.students.clear();
        inner.code = Some(new_code());
        inner.class_started = Some(vidya_core::app::class_report::unix_now());
        inner.code.clone()
    }

    /// Ends the class: the code stops working and every student session ends.
    pub fn end_class(&self) {
        let mut inner = self.lock();
        inner.code = None;
        inner.students.clear();
    }

    /// True when a student joined the class from `ip` (their session is still open).
    pub fn has_student_at(&self, ip: IpAddr) -> bool {
        self.lock().students.values().any(|s| s.ip == ip)
    }

    /// True when `ip` is this machine: loopback, or a network address it holds now.
    pub fn is_local(&self, ip: IpAddr) -> bool {
        self.is_local_at(ip, Instant::now())
    }

    /// [`Access::is_local`] at `now` (the own addresses are read again when
    /// [`OWN_ADDRESSES_S`] old).
    pub fn is_local_at(&self, ip: IpAddr, now: Instant) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
            v4 => v4,
        };
        ip == IpAddr::from([127, 0, 0, 1])
            || ip == IpAddr::from(std::net::Ipv6Addr::LOCALHOST)
            || self.own.holds(ip, now)
    }

    /// Who sent a request from `peer` with these cookies. A session's cookie counts only
    /// from the address the session was made on.
    pub fn caller(&self, peer: Option<IpAddr>, jar: &CookieJar) -> Caller {
        self.caller_and_peer(peer, jar).0
    }

    /// [`Access::caller`], and where the request comes from.
    pub fn caller_and_peer(&self, peer: Option<IpAddr>, jar: &CookieJar) -> (Caller, Peer) {
        let now = Instant::now();
        if peer.is_some_and(|ip| self.is_local_at(ip, now)) {
            return (
                Caller::Teacher,
                Peer {
                    ip: peer,
                    laptop: true,
                },
            );
        }
        let from = Peer {
            ip: peer,
            laptop: false,
        };
        let (Some(c), Some(ip)) = (jar.get(COOKIE), peer) else {
            return (Caller::Anonymous, from);
        };
        (self.caller_at(c.value(), ip, now), from)
    }

    /// Who holds session `token` from `ip` at `now`: nobody when the session was made on
    /// another address (it stays its own device's), or was idle too long (then it ends
    /// here). Its use counts as activity.
    fn caller_at(&self, token: &str, ip: IpAddr, now: Instant) -> Caller {
        let mut inner = self.lock();
        if let Some(t) = inner.teachers.get_mut(token) {
            if t.ip != ip {
                return Caller::Anonymous;
            }
            if !idle(t.seen, now) {
                t.seen = now;
                return Caller::Teacher;
            }
            inner.teachers.remove(token);
        } else if let Some(s) = inner.students.get_mut(token) {
            if s.ip != ip {
                return Caller::Anonymous;
            }
            if !idle(s.seen, now) {
                s.seen = now;
                return Caller::Student(token.to_string());
            }
            inner.students.remove(token);
        }
        Caller::Anonymous
    }

    /// The teacher signs in from another device: `check` is the PIN check, run only when the
    /// address is not locked out (after [`MAX_TRIES`] wrong codes or PINs; after one wrong PIN
    /// once all devices together typed [`MAX_PIN_TRIES_ALL`] wrong ones within the hour).
    /// Other addresses' wrong PINs never keep this one out. Returns the session token, which
    /// holds for `ip` only. Errors (already a response): locked out (429), wrong PIN (403).
    #[allow(clippy::result_large_err)]
    pub fn teacher_login(
        &self,
        ip: IpAddr,
        check: impl FnOnce() -> bool,
    ) -> Result<String, Response> {
        let now = Instant::now();
        {
            // Counted as wrong before the (slow) check runs, under the same lock as the
            // lockout test: guesses sent at once cannot all pass the lockout together.
            let mut inner = self.lock();
            if let Some(refused) = locked(&mut inner, ip, now, Typing::Pin) {
                return Err(refused);
            }
            let tries = if pin_failed(&mut inner, now) {
                1
            } else {
                MAX_TRIES
            };
            failed(&mut inner, ip, now, tries);
        }
        if !check() {
            return Err(refuse(
                StatusCode::FORBIDDEN,
                "wrong_pin",
                "that is not the teacher PIN: the PIN is set on the Settings screen of the laptop that runs Vidya",
            ));
        }
        let mut inner = self.lock();
        inner.failures.remove(&ip);
        // The right PIN: this guess was not wrong after all.
        inner.pin_failures.wrong = inner.pin_failures.wrong.saturating_sub(1);
        let token = new_token();
        sweep(&mut inner, now);
        inner
            .teachers
            .insert(token.clone(), TeacherSession { ip, seen: now });
        Ok(token)
    }

    /// Ends every teacher session on other devices (the PIN changed).
    pub fn end_teacher_sessions(&self) {
        self.lock().teachers.clear();
    }

    /// Joins the class from `ip` with `code` as the device `name`. Returns the session token,
    /// which holds for `ip` only. An address holds at most [`SESSIONS_PER_ADDRESS`] sessions
    /// (seats): joining once more ends its least recently used one. Errors (already a response): no class (404), locked out
    /// (429, with the wait), wrong code (403), no name (400), [`MAX_STUDENTS`] devices
    /// joined already (503).
    #[allow(clippy::result_large_err)]
    pub fn join(&self, ip: IpAddr, code: &str, name: &str) -> Result<String, Response> {
        self.join_at(ip, code, name, Instant::now())
    }

    #[allow(clippy::result_large_err)]
    fn join_at(
        &self,
        ip: IpAddr,
        code: &str,
        name: &str,
        now: Instant,
    ) -> Result<String, Response> {
        let mut inner = self.lock();
        let Some(right) = inner.code.clone() else {
            return Err(refuse(
                StatusCode::NOT_FOUND,
                "no_class",
                "no class is running: ask your teacher to start the class in Vidya",
            ));
        };
        if let Some(refused) = locked(&mut inner, ip, now, Typing::Code) {
            return Err(refused);
        }
        if code.trim() != right {
            failed(&mut inner, ip, now, MAX_TRIES);
            return Err(refuse(
                StatusCode::FORBIDDEN,
                "wrong_code",
                "that is not the class code: type the six digits on your teacher's screen",
            ));
        }
        let Some(name) = clean_name(name) else {
            return Err(refuse(
                StatusCode::BAD_REQUEST,
                "bad_option",
                "type a name for this device (your name or the computer's), so your teacher knows who asks",
            ));
        };
        // Joining does not clear wrong codes or PINs counted for this address: the class code
        // is no key to more PIN guesses.
        sweep(&mut inner, now);
        let mut mine: Vec<(Instant, String)> = inner
            .students
            .iter()
            .filter(|(_, s)| s.ip == ip)
            .map(|(t, s)| (s.seen, t.clone()))
            .collect();
        mine.sort();
        let over = (mine.len() + 1).saturating_sub(SESSIONS_PER_ADDRESS);
        for (_, t) in mine.into_iter().take(over) {
            inner.students.remove(&t);
        }
        if inner.students.len() >= MAX_STUDENTS {
            return Err(refuse(
                StatusCode::SERVICE_UNAVAILABLE,
                "class_full",
                format!("the class is full ({MAX_STUDENTS} devices): ask your teacher to end the class and start it again"),
            ));
        }
        let token = new_token();
        inner.students.insert(
            token.clone(),
            Student {
                name,
                ip,
                joined: now,
                seen: now,
                conversations: HashSet::new(),
                questions: 0,
            },
        );
        Ok(token)
    }

    /// Ends one session (a student's, or the teacher's on another device).
    pub fn leave(&self, token: &str) {
        let mut inner = self.lock();
        inner.students.remove(token);
        inner.teachers.remove(token);
    }

    /// The device name of a student session.
    pub fn name_of(&self, token: &str) -> Option<String> {
        self.lock().students.get(token).map(|s| s.name.clone())
    }

    /// Who holds a student session, for the teacher's class report: the name typed when
    /// joining, the device (its address) and when the class started.
    pub fn asker_of(&self, token: &str) -> Option<Asker> {
        let inner = self.lock();
        inner.students.get(token).map(|s| Asker {
            student: s.name.clone(),
            device: device_id(s.ip),
            class_started: inner.class_started,
        })
    }

    /// When the class running now, or the last one, started (Unix seconds); `None` outside
    /// classroom mode.
    pub fn class_started(&self) -> Option<i64> {
        self.lock().class_started
    }

    /// True when the student owns conversation `id`.
    pub fn owns(&self, token: &str, id: i64) -> bool {
        self.lock()
            .students
            .get(token)
            .is_some_and(|s| s.conversations.contains(&id))
    }

    /// Marks a student's question as in flight. One question in flight and
    /// [`QUESTIONS_PER_MINUTE`] a minute are counted per address (over all its sessions).
    /// Errors (already a response): a question is still being answered, or more than
    /// [`QUESTIONS_PER_MINUTE`] in the last minute (429); the session ended (401).
    #[allow(clippy::result_large_err)]
    pub fn begin_question(&self, token: &str) -> Result<(), Response> {
        let now = Instant::now();
        let mut inner = self.lock();
        let Some(s) = inner.students.get(token) else {
            return Err(ended());
        };
        let ip = s.ip;
        // Counted per address, over all its sessions: joining again is no way round them.
        if inner.in_flight.values().any(|asking| *asking == ip) {
            return Err(refuse(
                StatusCode::TOO_MANY_REQUESTS,
                "one_at_a_time",
                "your last question is still being answered: wait for it, then ask the next one",
            ));
        }
        let asked = inner.asked.entry(ip).or_default();
        while asked
            .front()
            .is_some_and(|t| now.duration_since(*t) > Duration::from_secs(60))
        {
            asked.pop_front();
        }
        if asked.len() >= QUESTIONS_PER_MINUTE {
            return Err(refuse(
                StatusCode::TOO_MANY_REQUESTS,
                "rate_limited",
                format!("at most {QUESTIONS_PER_MINUTE} questions a minute: wait a little, then ask again"),
            ));
        }
        asked.push_back(now);
        inner.in_flight.insert(token.to_string(), ip);
        let s = inner.students.get_mut(token).expect("looked up above");
        s.questions += 1;
        Ok(())
    }

    /// Ends a student's question; records the conversation it belongs to as theirs.
    pub fn end_question(&self, token: &str, conversation: Option<i64>) {
        let mut inner = self.lock();
        inner.in_flight.remove(token);
        if let Some(s) = inner.students.get_mut(token) {
            s.conversations.extend(conversation);
        }
    }

    /// The conversations a student owns.
    pub fn conversations_of(&self, token: &str) -> HashSet<i64> {
        self.lock()
            .students
            .get(token)
            .map(|s| s.conversations.clone())
            .unwrap_or_default()
    }

    /// Questions the class asked in the last 60 s (every joined device together).
    pub fn questions_last_minute(&self) -> usize {
        let now = Instant::now();
        let mut inner = self.lock();
        // Addresses with nothing in the last minute are forgotten here.
        inner.asked.retain(|_, asked| {
            asked.retain(|t| now.duration_since(*t) <= Duration::from_secs(60));
            !asked.is_empty()
        });
        inner.asked.values().map(VecDeque::len).sum()
    }

    /// The joined devices: `{"name", "questions", "joined_s"}` (seconds since joining).
    pub fn students(&self) -> Vec<serde_json::Value> {
        let mut inner = self.lock();
        sweep(&mut inner, Instant::now());
        let mut list: Vec<serde_json::Value> = inner
            .students
            .values()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "questions": s.questions,
                    "joined_s": s.joined.elapsed().as_secs(),
                })
            })
            .collect();
        list.sort_by_key(|v| v["name"].as_str().unwrap_or_default().to_lowercase());
        list
    }
}

/// A device as the class report names it: its network address (an IPv4 address mapped into
/// IPv6 written as IPv4).
pub fn device_id(ip: IpAddr) -> String {
    match ip {
        IpAddr::V6(v6) => v6
            .to_ipv4_mapped()
            .map_or_else(|| v6.to_string(), |v4| v4.to_string()),
        v4 => v4.to_string(),
    }
}

/// The refusal for a student whose session ended (the teacher ended the class).
pub fn ended() -> Response {
    refuse(
        StatusCode::UNAUTHORIZED,
        "class_ended",
        "the class has ended, or you have not joined it: type the code on your teacher's screen",
    )
}

mod guard;
pub use guard::guard;

#[cfg(test)]
mod tests;
