//! Every operation of the app, declared once: its name (the desktop window's Tauri command
//! and the key the interface's transport, `ui/js/transport.js`, calls it by) and its HTTP
//! route for the browser and the classroom. Tests hold the Tauri shell's command list
//! (`src-tauri/src/main.rs`), the server's route roles ([`super::roles::ROUTES`]) and the
//! transport's routes to this list, so a new operation cannot be wired into one shell and
//! forgotten in another.

/// One operation and how each shell reaches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Operation {
    /// Its name: the Tauri command, and the transport's key for it.
    pub name: &'static str,
    /// True when the desktop window calls it (a Tauri command of that name).
    pub window: bool,
    /// Its HTTP route `(method, axum path pattern)`; `None` for the window only.
    pub http: Option<(&'static str, &'static str)>,
}

const fn op(
    name: &'static str,
    window: bool,
    http: Option<(&'static str, &'static str)>,
) -> Operation {
    Operation { name, window, http }
}

/// Every operation. The window is always the teacher's; who may call each HTTP route is
/// declared in [`super::roles::ROUTES`].
pub const OPERATIONS: &[Operation] = &[
    op("health", true, Some(("GET", "/health"))),
    op("ui_ready", true, None),
    op("books", true, Some(("GET", "/api/books"))),
    op("delete_book", true, Some(("DELETE", "/api/books/{id}"))),
    op("stats", true, Some(("GET", "/api/stats"))),
    op("get_settings", true, Some(("GET", "/api/settings"))),
    op("save_settings", true, Some(("PUT", "/api/settings"))),
    op("conversations", true, Some(("GET", "/api/conversations"))),
    op(
        "conversation",
        true,
        Some(("GET", "/api/conversations/{id}")),
    ),
    op(
        "delete_conversation",
        true,
        Some(("DELETE", "/api/conversations/{id}")),
    ),
    op("page_image", true, Some(("POST", "/api/page-image"))),
    op("ask", true, Some(("POST", "/api/ask"))),
    // The window saves a dropped file first; the browser sends it with the ingest request.
    op("save_upload", true, None),
    op("ingest", true, Some(("POST", "/api/ingest"))),
    op(
        "reindex_book",
        true,
        Some(("POST", "/api/books/{id}/reindex")),
    ),
    op("cancel_ingest", true, Some(("POST", "/api/ingest/cancel"))),
    op("classroom", true, Some(("GET", "/api/classroom"))),
    // Serving the class is started and stopped from the laptop's window only.
    op("classroom_on", true, None),
    op("classroom_off", true, None),
    op(
        "classroom_start",
        true,
        Some(("POST", "/api/classroom/start")),
    ),
    op("classroom_end", true, Some(("POST", "/api/classroom/end"))),
    // The teacher's view of the class (the window saves the CSV in the library; a browser
    // downloads it from its route).
    op("class_report", true, Some(("GET", "/api/class-report"))),
    op(
        "class_report_csv",
        true,
        Some(("GET", "/api/class-report.csv")),
    ),
    op(
        "answer_machines",
        true,
        Some(("GET", "/api/answer-machines")),
    ),
    op("set_pin", true, Some(("PUT", "/api/teacher-pin"))),
    op("setup_report", true, Some(("GET", "/api/setup"))),
    op(
        "setup_start_ollama",
        true,
        Some(("POST", "/api/setup/ollama/start")),
    ),
    op("setup_import", true, Some(("POST", "/api/setup/import"))),
    op("setup_pull", true, Some(("POST", "/api/setup/pull"))),
    op("setup_sample", true, Some(("POST", "/api/setup/sample"))),
    op("setup_done", true, Some(("POST", "/api/setup/done"))),
    // A browser's session in classroom mode (the window has none).
    op("session", false, Some(("GET", "/api/session"))),
    op("join", false, Some(("POST", "/api/join"))),
    op("leave", false, Some(("POST", "/api/leave"))),
    op("teacher_login", false, Some(("POST", "/api/teacher"))),
];

/// The operation named `name`.
pub fn operation(name: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|o| o.name == name)
}

/// The operation whose HTTP route is `method` on `pattern`.
pub fn by_route(method: &str, pattern: &str) -> Option<&'static Operation> {
    OPERATIONS
        .iter()
        .find(|o| o.http == Some((method, pattern)))
}

#[cfg(test)]
mod tests {
    //! The shells held to the list: each reads the source it checks, so a mismatch fails here
    //! on any machine, with no window, server or browser.
    use super::*;
    use std::collections::BTreeSet;

    const TAURI_MAIN: &str = include_str!("../../../../src-tauri/src/main.rs");
    const TRANSPORT: &str = include_str!("../../../../ui/js/transport.js");

    /// The names in `tauri::generate_handler![…]` (a module path dropped).
    fn tauri_commands(main: &str) -> BTreeSet<String> {
        let start = main
            .find("generate_handler![")
            .expect("src-tauri/src/main.rs registers its commands with generate_handler!");
        let list = &main[start + "generate_handler![".len()..];
        let list = &list[..list.find(']').expect("the list ends")];
        list.split(',')
            .map(|n| n.trim().rsplit("::").next().unwrap_or_default().to_string())
            .filter(|n| !n.is_empty())
            .collect()
    }

    /// The literal string arguments of every call of `f(` in `js` (`'…'` or `` `…` ``), with
    /// `${…}` made `{id}`.
    fn literal_args(js: &str, f: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (at, _) in js.match_indices(f) {
            let rest = &js[at + f.len()..];
            let Some(q) = rest.chars().next().filter(|c| matches!(c, '\'' | '`')) else {
                continue;
            };
            let body = &rest[1..];
            let Some(end) = body.find(q) else { continue };
            out.push(template_to_pattern(&body[..end]));
        }
        out
    }

    fn template_to_pattern(s: &str) -> String {
        let mut out = String::new();
        let mut rest = s;
        while let Some(i) = rest.find("${") {
            out.push_str(&rest[..i]);
            out.push_str("{id}");
            rest = &rest[i..];
            rest = &rest[rest.find('}').map_or(rest.len(), |j| j + 1)..];
        }
        out.push_str(rest);
        // A query string is not part of the route.
        out.split('?').next().unwrap_or_default().to_string()
    }

    /// `key: (…) => ['METHOD', 'path' …` entries of the transport's `routes` object.
    fn transport_routes(js: &str) -> Vec<(String, String, String)> {
        let start = js
            .find("const routes = {")
            .expect("transport.js has its routes");
        let block = &js[start..];
        let block = &block[..block.find("\n};").expect("the routes end")];
        block
            .lines()
            .filter_map(|l| {
                let (key, rest) = l.trim().split_once(':')?;
                let rest = &rest[rest.find("=> [")? + 4..];
                let method = rest.split('\'').nth(1)?.to_string();
                let after = &rest[rest.find(',')? + 1..];
                let path = literal_args(after.trim_start(), "").into_iter().next()?;
                Some((key.trim().to_string(), method, path))
            })
            .collect()
    }

    #[test]
    fn names_and_routes_are_each_declared_once() {
        let names: BTreeSet<&str> = OPERATIONS.iter().map(|o| o.name).collect();
        assert_eq!(names.len(), OPERATIONS.len(), "a name is declared twice");
        let routes: BTreeSet<_> = OPERATIONS.iter().filter_map(|o| o.http).collect();
        assert_eq!(
            routes.len(),
            OPERATIONS.iter().filter(|o| o.http.is_some()).count(),
            "a route is declared twice"
        );
        assert!(OPERATIONS.iter().all(|o| o.window || o.http.is_some()));
    }

    #[test]
    fn every_http_operation_has_a_role_and_every_role_an_operation() {
        for o in OPERATIONS {
            if let Some((m, p)) = o.http {
                assert!(
                    super::super::roles::role_of(m, p).is_some(),
                    "{} ({m} {p}) has no role in roles::ROUTES: the server would refuse it",
                    o.name
                );
            }
        }
        for (m, p, _) in super::super::roles::ROUTES {
            assert!(
                by_route(m, p).is_some(),
                "{m} {p} has a role but is no operation of the app"
            );
        }
    }

    #[test]
    fn the_desktop_window_registers_exactly_the_window_operations() {
        let registered = tauri_commands(TAURI_MAIN);
        let declared: BTreeSet<String> = OPERATIONS
            .iter()
            .filter(|o| o.window)
            .map(|o| o.name.to_string())
            .collect();
        assert_eq!(registered, declared);
        // The reader itself finds module paths and the last name.
        assert_eq!(
            tauri_commands("x.invoke_handler(tauri::generate_handler![a, m::b,\n c\n])"),
            ["a", "b", "c"].map(String::from).into()
        );
    }

    #[test]
    fn the_interface_calls_only_declared_operations_by_their_routes() {
        let routes = transport_routes(TRANSPORT);
        assert!(routes.len() >= 15, "{routes:?}");
        for (key, method, path) in &routes {
            let o =
                operation(key).unwrap_or_else(|| panic!("transport.js calls {key}, no operation"));
            assert_eq!(
                o.http,
                Some((method.as_str(), path.as_str())),
                "transport.js sends {key} as {method} {path}"
            );
        }
        for name in literal_args(TRANSPORT, "tauriStream(")
            .into_iter()
            .chain(literal_args(TRANSPORT, "tauri.core.invoke("))
        {
            assert!(
                operation(&name).is_some_and(|o| o.window),
                "transport.js invokes {name}, which is no window operation"
            );
        }
        for path in literal_args(TRANSPORT, "postStream(")
            .into_iter()
            .chain(literal_args(TRANSPORT, "fetch("))
        {
            assert!(
                by_route("POST", &path).is_some(),
                "transport.js posts to {path}, which is no operation's route"
            );
        }
        // Every window operation the interface names is reachable from a browser too, unless
        // it is declared window-only.
        for o in OPERATIONS.iter().filter(|o| o.window && o.http.is_some()) {
            let (_, path) = o.http.expect("filtered");
            let by_key = routes.iter().any(|(k, _, _)| k == o.name);
            let by_path = TRANSPORT.contains(&format!("'{path}'"))
                || TRANSPORT.contains(&format!("`{}", path.split("{id}").next().unwrap_or(path)));
            assert!(
                by_key || by_path,
                "{} has a route but transport.js never sends it",
                o.name
            );
        }
    }
}
