//! The access check every request passes before its handler ([`guard`]): who calls, whether
//! the route's declared role lets them, and another device's body read within its limits.

use super::*;

/// Middleware: finds the caller, refuses a route the caller's role may not call (403 for
/// anonymous or student callers of teacher routes, 401 for anonymous callers of student
/// routes, 403 for an undeclared route), and hands the [`Caller`] and the [`Peer`] to the
/// handler.
pub async fn guard(State(access): State<Arc<Access>>, mut req: Request, next: Next) -> Response {
    let pattern = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string());
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0.ip());
    let jar = CookieJar::from_headers(req.headers());
    let (caller, from) = access.caller_and_peer(peer, &jar);
    let need = match pattern.as_deref() {
        // Unknown /api/ paths, and the bare prefix, answer 404 to anyone.
        Some("/api" | "/api/" | "/api/{*rest}") => Some(Role::Anyone),
        // HEAD is a GET without its body (axum answers it with the GET route).
        Some(p) if req.method() == axum::http::Method::HEAD => role_of("GET", p),
        Some(p) => role_of(req.method().as_str(), p),
        None => None,
    };
    let allowed = match (need, &caller) {
        (None, _) if pattern.as_deref().is_some_and(is_declared_path) => {
            return refuse(
                StatusCode::METHOD_NOT_ALLOWED,
                "method_not_allowed",
                format!("{} is not a method of this route", req.method()),
            )
        }
        (None, _) => {
            return refuse(
                StatusCode::FORBIDDEN,
                "forbidden",
                "this route has no declared role, so nobody may call it",
            )
        }
        (Some(Role::Anyone), _) | (Some(_), Caller::Teacher) => true,
        (Some(Role::Student), Caller::Student(_)) => true,
        _ => false,
    };
    if !allowed {
        return match (need, &caller) {
            (Some(Role::Student), Caller::Anonymous) => ended(),
            _ => refuse(
                StatusCode::FORBIDDEN,
                "forbidden",
                "only the teacher can do this, on the laptop that runs Vidya",
            ),
        };
    }
    if caller != Caller::Teacher {
        req = match read_body(req).await {
            Ok(r) => r,
            Err(refused) => return refused,
        };
    }
    let student = matches!(caller, Caller::Student(_));
    req.extensions_mut().insert(caller);
    req.extensions_mut().insert(from);
    let resp = next.run(req).await;
    if student {
        // The teacher's fixes (commands, paths) stay on the teacher's screen.
        crate::student_view::rewrite(resp).await
    } else {
        resp
    }
}

/// Reads another device's request body whole, within [`BODY_READ_S`] and
/// [`MAX_OTHER_BODY_BYTES`]. Errors (already a response): too large (413), too slow (408),
/// the connection broke (400).
async fn read_body(req: Request) -> Result<Request, Response> {
    let too_large = || {
        refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            "the request is too large (at most 64 KB from another device; a question may be at most 2,000 characters, a name 40)",
        )
    };
    let declared = req
        .headers()
        .get(axum::http::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_OTHER_BODY_BYTES as u64) {
        return Err(too_large());
    }
    let (parts, body) = req.into_parts();
    let read = axum::body::to_bytes(body, MAX_OTHER_BODY_BYTES);
    match tokio::time::timeout(Duration::from_secs(BODY_READ_S), read).await {
        Ok(Ok(bytes)) => Ok(Request::from_parts(parts, axum::body::Body::from(bytes))),
        Ok(Err(_)) if declared.is_none() => Err(too_large()),
        Ok(Err(_)) => Err(refuse(
            StatusCode::BAD_REQUEST,
            "bad_request",
            "the request broke off: check the connection to the teacher's laptop and try again",
        )),
        Err(_) => Err(refuse(
            StatusCode::REQUEST_TIMEOUT,
            "timeout",
            "the request took too long to arrive: check the connection to the teacher's laptop and try again",
        )),
    }
}

/// True when some method of the route `pattern` is declared.
fn is_declared_path(pattern: &str) -> bool {
    vidya_core::app::roles::ROUTES
        .iter()
        .any(|(_, p, _)| *p == pattern)
}
