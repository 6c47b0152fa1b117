//! Who may call each route of `vidya serve`: the one declaration of every API route's least
//! role, read by the server's access check (`crates/vidya-server/src/access.rs`, for `vidya serve` and the window's classroom mode)
//! before any handler runs, and walked by the tests that prove each teacher route refuses
//! students and anonymous devices.
//!
//! The teacher is this machine (the desktop window over Tauri IPC, or a browser on the laptop
//! itself); a student is a device that joined the class with its code. The desktop window's
//! IPC commands are the teacher's by construction (only the window can call them).

/// The least role a route needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Anyone who can reach the server (join, who am I, the interface's files).
    Anyone,
    /// A joined student, or the teacher.
    Student,
    /// The teacher only.
    Teacher,
}

/// Every API route (method, axum path pattern) with the least role that may call it. A route
/// missing here is refused to everyone, the teacher included.
pub const ROUTES: &[(&str, &str, Role)] = &[
    ("GET", "/api/session", Role::Anyone),
    ("POST", "/api/join", Role::Anyone),
    ("POST", "/api/leave", Role::Anyone),
    ("POST", "/api/teacher", Role::Anyone),
    ("PUT", "/api/teacher-pin", Role::Teacher),
    ("POST", "/api/ask", Role::Student),
    ("POST", "/api/page-image", Role::Student),
    ("GET", "/api/conversations", Role::Student),
    ("GET", "/api/conversations/{id}", Role::Student),
    ("DELETE", "/api/conversations/{id}", Role::Student),
    ("GET", "/health", Role::Teacher),
    ("POST", "/api/ingest", Role::Teacher),
    ("POST", "/api/ingest/cancel", Role::Teacher),
    ("GET", "/api/books", Role::Teacher),
    ("DELETE", "/api/books/{id}", Role::Teacher),
    ("POST", "/api/books/{id}/reindex", Role::Teacher),
    ("GET", "/api/stats", Role::Teacher),
    ("GET", "/api/class-report", Role::Teacher),
    ("GET", "/api/class-report.csv", Role::Teacher),
    ("GET", "/api/answer-machines", Role::Teacher),
    ("GET", "/api/settings", Role::Teacher),
    ("PUT", "/api/settings", Role::Teacher),
    ("GET", "/api/setup", Role::Teacher),
    ("POST", "/api/setup/ollama/start", Role::Teacher),
    ("POST", "/api/setup/import", Role::Teacher),
    ("POST", "/api/setup/pull", Role::Teacher),
    ("POST", "/api/setup/sample", Role::Teacher),
    ("POST", "/api/setup/done", Role::Teacher),
    ("GET", "/api/classroom", Role::Teacher),
    ("POST", "/api/classroom/start", Role::Teacher),
    ("POST", "/api/classroom/end", Role::Teacher),
];

/// The declared least role of `method` (upper case, e.g. `"GET"`) on the axum route
/// `pattern` (e.g. `"/api/books/{id}"`), if any.
pub fn role_of(method: &str, pattern: &str) -> Option<Role> {
    ROUTES
        .iter()
        .find(|(m, p, _)| *m == method && *p == pattern)
        .map(|(_, _, r)| *r)
}
