use super::*;

#[test]
fn faults_on_this_side_are_500_and_the_callers_mistakes_400() {
    assert_eq!(
        status_of(&VidyaError::Internal("x".into())),
        StatusCode::INTERNAL_SERVER_ERROR
    );
    assert_eq!(
        status_of(&VidyaError::BadOption("x".into())),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(
        status_of(&VidyaError::EmptyQuestion),
        StatusCode::BAD_REQUEST
    );
    assert_eq!(status_of(&VidyaError::NoSuchBook(3)), StatusCode::NOT_FOUND);
    assert_eq!(
        status_of(&VidyaError::Busy("x".into())),
        StatusCode::SERVICE_UNAVAILABLE
    );
    let file = || std::path::PathBuf::from("a.pdf");
    assert_eq!(
        status_of(&VidyaError::Encrypted { path: file() }),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    assert_eq!(
        status_of(&VidyaError::io(file(), std::io::Error::other("disk"))),
        StatusCode::INTERNAL_SERVER_ERROR
    );
    // The body names the kind, so the interface can word it.
    assert_eq!(
        error_json(&VidyaError::Internal("x".into()))["error"]["kind"],
        "internal"
    );
}

#[test]
fn only_loopback_host_names_are_local() {
    for h in ["127.0.0.1:8765", "localhost:1", "[::1]:8765", "localhost"] {
        assert!(is_local_host(h), "{h}");
    }
    for h in [
        "evil.example:8765",
        "192.168.1.5:8765",
        "",
        "127.0.0.1.evil.example",
    ] {
        assert!(!is_local_host(h), "{h}");
    }
}

/// The status of one raw HTTP/1.1 `request` to 127.0.0.1:`port`.
async fn raw_status(port: u16, request: &str) -> u16 {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    s.write_all(request.as_bytes()).await.unwrap();
    let mut head = vec![0u8; 12];
    s.read_exact(&mut head).await.unwrap();
    String::from_utf8_lossy(&head[9..12]).parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_classroom_server_starts_with_a_code_and_stops_listening() {
    let dir = tempfile::tempdir().unwrap();
    let app = Arc::new(App::open(dir.path(), false, Default::default()).unwrap());
    let any: SocketAddr = "0.0.0.0:0".parse().unwrap();
    // Without classroom mode the network is refused, with the way to turn it on.
    let refused = Server::start(app.clone(), any, false, dir.path())
        .await
        .unwrap_err()
        .to_string();
    assert!(refused.contains("--classroom"), "{refused}");

    let server = Server::start(app, any, true, dir.path()).await.unwrap();
    let info = server.classroom_info();
    assert!(info.on);
    let code = info.code.clone().unwrap();
    assert!(
        code.len() == 6 && code.bytes().all(|b| b.is_ascii_digit()),
        "{code}"
    );
    assert!(
        !info.addresses.is_empty() && info.qr_svg.is_some(),
        "{info:?}"
    );
    let url = format!("http://127.0.0.1:{}/api/session", server.addr().port());
    let session: serde_json::Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
    assert_eq!(session["role"], "teacher", "{session}");
    assert_eq!(session["classroom"], true, "{session}");
    // A request line with an absolute target is for the host it names, whatever the
    // Host header says.
    let raw = |target: &str| {
        format!(
            "GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n",
            port = server.addr().port()
        )
    };
    let port = server.addr().port();
    assert_eq!(
        raw_status(port, &raw("http://evil.example/api/session")).await,
        403
    );
    assert_eq!(
        raw_status(port, &raw(&format!("http://127.0.0.1:{port}/api/session"))).await,
        200
    );
    assert_eq!(raw_status(port, &raw("/api/session")).await, 200);
    // A second Host line after this server's own, or a second Origin, is refused.
    let twice = |extra: &str| {
        format!(
            "GET /api/session HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}\r\nConnection: close\r\n\r\n"
        )
    };
    assert_eq!(raw_status(port, &twice("Host: evil.example")).await, 400);
    assert_eq!(
        raw_status(
            port,
            &twice(&format!(
                "Origin: http://127.0.0.1:{port}\r\nOrigin: http://evil.example"
            ))
        )
        .await,
        400
    );
    assert_eq!(
        raw_status(port, &twice(&format!("Origin: http://127.0.0.1:{port}"))).await,
        200
    );
    let access = server.access().clone();
    server.stop().await;
    assert_eq!(access.code(), None, "stopping ends the class");
    assert!(
        reqwest::get(&url).await.is_err(),
        "nothing listens any more"
    );
}

/// The status and the body of one raw HTTP/1.1 `request` to 127.0.0.1:`port` (the server
/// closes the connection after it).
async fn raw_answer(port: u16, request: &[u8]) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    s.write_all(request).await.unwrap();
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got).await;
    let text = String::from_utf8_lossy(&got).to_string();
    let status = text.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn odd_request_targets_get_a_clear_refusal_not_a_server_fault() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("index.html"), "<p>hi</p>").unwrap();
    let app = Arc::new(App::open(dir.path(), false, Default::default()).unwrap());
    let server = Server::start(app, "127.0.0.1:0".parse().unwrap(), true, dir.path())
        .await
        .unwrap();
    let port = server.addr().port();
    let get = |target: String| {
        format!("GET {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n\r\n")
            .into_bytes()
    };
    // Authority form (meant for CONNECT through a proxy).
    let (st, body) = raw_answer(port, &get(format!("127.0.0.1:{port}"))).await;
    assert_eq!(st, 400, "{body}");
    assert!(
        body.contains("bad_request") && body.contains("GET /"),
        "{body}"
    );
    // Static paths of 8 to 60 KB.
    for len in [8 * 1024, 20 * 1024, 60 * 1024] {
        let (st, body) = raw_answer(port, &get(format!("/{}", "a".repeat(len)))).await;
        assert_eq!(st, 414, "{len}: {body}");
        assert!(body.contains("too_long"), "{body}");
        let (st, body) = raw_answer(port, &get(format!("/{}", "ab/".repeat(len / 3)))).await;
        assert_eq!(st, 414, "{len}: {body}");
    }
    // A file name longer than any file system allows is simply not there.
    let (st, body) = raw_answer(port, &get(format!("/{}.js", "a".repeat(300)))).await;
    assert_eq!(st, 404, "{body}");
    // The interface itself is still served.
    let (st, body) = raw_answer(port, &get("/".into())).await;
    assert_eq!(st, 200, "{body}");
    server.stop().await;
}
