//! Accepting connections: HTTP/1.1 (hyper) with a header-read timeout and caps on the open
//! connections of other devices, so sockets left idle or fed one byte at a time cannot use
//! up the server's file descriptors and lock the teacher out too.
//!
//! - A connection must send a whole request head within [`ConnectionLimits::header_read`]
//!   of opening, and of its previous response (keep-alive idle time counts): hyper's
//!   `header_read_timeout`, which since hyper 1.6 also bounds the wait between requests
//!   (hyperium/hyper#3185, #3828). A response being written (an answer's event stream) is
//!   never cut by it.
//! - Another device holds at most [`ConnectionLimits::per_address`] connections at once, and
//!   all other devices together at most [`ConnectionLimits::others`], of which devices that
//!   have not joined the class at most [`ConnectionLimits::strangers`] (so the rest stays for
//!   the class whatever other devices on the network open). Once half of
//!   [`ConnectionLimits::others`] are open, a device that holds [`FAIR_SHARE`] or more gets
//!   no more: a few devices cannot take every place (about 43 devices at [`PER_ADDRESS`]
//!   fill the first half, and the second half then serves 128 more at [`FAIR_SHARE`] each).
//!   A connection over a cap is closed at once, before anything is read. This machine (the
//!   teacher) is never capped.
//! - Only HTTP/1.1 is spoken: browsers use HTTP/2 only over TLS, and hyper-util's protocol
//!   detection reads without a timer (anthropics/connect-rust#312).

use crate::access::Access;
use axum::extract::ConnectInfo;
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower_service::Service;

/// Bounds on connections (see the module docs). [`Default`] is what `vidya serve` and the
/// window's classroom mode use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnectionLimits {
    /// Longest wait for a request head, from the connection's opening or its last response.
    pub header_read: Duration,
    /// Most connections one other device may hold open at once.
    pub per_address: usize,
    /// Most connections all other devices together may hold open at once.
    pub others: usize,
    /// Most of those that devices without a student session may hold (devices joining, or
    /// not in the class at all).
    pub strangers: usize,
    /// Most connections one device may open once half of `others` are in use
    /// ([`FAIR_SHARE`]).
    pub fair_share: usize,
}

/// Seconds a connection may take to send a request head ([`ConnectionLimits::header_read`]):
/// a phone on weak Wi-Fi sends one in well under a second; a browser reconnects when an idle
/// keep-alive connection was closed.
pub const HEADER_READ_S: u64 = 15;

/// Connections one other device may hold ([`ConnectionLimits::per_address`]): what a browser
/// opens to one server at most (6 over HTTP/1.1 in Chrome, Firefox and Safari, an answer's
/// event stream among them), under [`OTHERS`] / 60 students; [`FAIR_SHARE`] once the server
/// is half full.
pub const PER_ADDRESS: usize = 6;

/// Connections a device may still open once half of [`OTHERS`] are in use (it keeps those it
/// holds): a page and an answer stream.
pub const FAIR_SHARE: usize = 2;

/// Connections all other devices may hold together ([`ConnectionLimits::others`]): 60
/// students with a page and an answer stream open each use about 2; it stays well under the
/// 1,024 descriptors a Linux process gets by default, leaving room for the library's files and
/// the teacher.
pub const OTHERS: usize = 512;

/// Connections devices without a student session may hold together
/// ([`ConnectionLimits::strangers`]): three quarters of [`OTHERS`], room for 60 devices
/// loading the join page at once (a browser opens up to 6), while 128 stay for the devices
/// that joined.
pub const STRANGERS: usize = OTHERS * 3 / 4;

impl Default for ConnectionLimits {
    fn default() -> Self {
        Self {
            header_read: Duration::from_secs(HEADER_READ_S),
            per_address: PER_ADDRESS,
            others: OTHERS,
            strangers: STRANGERS,
            fair_share: FAIR_SHARE,
        }
    }
}

/// Open connections of other devices: by address, in all, and of devices without a session.
#[derive(Debug, Default)]
struct Counts {
    by_ip: HashMap<IpAddr, usize>,
    total: usize,
    strangers: usize,
}

/// Open connections of other devices.
#[derive(Debug)]
struct Open {
    limits: ConnectionLimits,
    counts: Mutex<Counts>,
}

/// One admitted connection of another device: its place is given back when dropped.
#[derive(Debug)]
struct Slot {
    open: Arc<Open>,
    ip: IpAddr,
    /// Counted among the strangers' connections (the device had no session when it came).
    stranger: bool,
}

impl Open {
    fn new(limits: ConnectionLimits) -> Arc<Self> {
        Arc::new(Self {
            limits,
            counts: Mutex::new(Counts::default()),
        })
    }

    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A place for a connection from `ip` (`joined`: a student's session is open there), or
    /// `None` when a cap is reached (its own, all together, the strangers', or its fair
    /// share once half the places are taken).
    fn admit(self: &Arc<Self>, ip: IpAddr, joined: bool) -> Option<Slot> {
        let mut c = self.counts();
        let mine = c.by_ip.get(&ip).copied().unwrap_or(0);
        let crowded = c.total >= self.limits.others / 2;
        if mine >= self.limits.per_address
            || c.total >= self.limits.others
            || (!joined && c.strangers >= self.limits.strangers)
            || (crowded && mine >= self.limits.fair_share)
        {
            return None;
        }
        c.by_ip.insert(ip, mine + 1);
        c.total += 1;
        c.strangers += !joined as usize;
        Some(Slot {
            open: self.clone(),
            ip,
            stranger: !joined,
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut c = self.open.counts();
        c.total = c.total.saturating_sub(1);
        if self.stranger {
            c.strangers = c.strangers.saturating_sub(1);
        }
        if let Some(n) = c.by_ip.get_mut(&self.ip) {
            *n -= 1;
            if *n == 0 {
                c.by_ip.remove(&self.ip);
            }
        }
    }
}

/// Errors of `accept` that concern one connection only (the listener goes on at once).
fn one_connection_only(e: &std::io::Error) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        e.kind(),
        ConnectionRefused | ConnectionAborted | ConnectionReset
    )
}

/// Serves `router` on `listener` until `stop` resolves, then lets open requests finish (the
/// caller bounds how long: dropping this future closes every connection it opened).
///
/// Errors: none in practice; an `accept` failure (out of descriptors) is logged and retried
/// after 100 ms, as axum's own `serve` does.
pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    access: Arc<Access>,
    limits: ConnectionLimits,
    stop: impl std::future::Future<Output = ()>,
) -> std::io::Result<()> {
    let open = Open::new(limits);
    let graceful = GracefulShutdown::new();
    // Every connection's task: aborted together if this future is dropped.
    let mut tasks = tokio::task::JoinSet::new();
    tokio::pin!(stop);
    loop {
        let (stream, peer) = tokio::select! {
            _ = &mut stop => break,
            Some(_) = tasks.join_next() => continue,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) if one_connection_only(&e) => continue,
                Err(e) => {
                    tracing::warn!("cannot accept a connection: {e}");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    continue;
                }
            },
        };
        let slot = if access.is_local(peer.ip()) {
            None
        } else {
            match open.admit(peer.ip(), access.has_student_at(peer.ip())) {
                Some(s) => Some(s),
                None => {
                    tracing::debug!("refused a connection from {peer}: too many open");
                    continue;
                }
            }
        };
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            req.extensions_mut().insert(ConnectInfo(peer));
            let mut router = router.clone();
            async move { router.call(req).await }
        });
        let mut http = hyper::server::conn::http1::Builder::new();
        http.timer(TokioTimer::new())
            .header_read_timeout(limits.header_read);
        let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
        tasks.spawn(async move {
            let _slot = slot;
            if let Err(e) = conn.await {
                tracing::debug!("connection from {peer} ended: {e}");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(per_address: usize, others: usize) -> ConnectionLimits {
        ConnectionLimits {
            header_read: Duration::from_secs(1),
            per_address,
            others,
            strangers: others,
            fair_share: per_address,
        }
    }

    #[test]
    fn each_address_and_all_together_are_capped_and_places_come_back() {
        let open = Open::new(limits(2, 3));
        let a: IpAddr = "192.168.1.10".parse().unwrap();
        let b: IpAddr = "192.168.1.11".parse().unwrap();
        let a1 = open.admit(a, false).unwrap();
        let _a2 = open.admit(a, false).unwrap();
        assert!(open.admit(a, false).is_none(), "a third from one address");
        let b1 = open.admit(b, false).unwrap();
        assert!(open.admit(b, false).is_none(), "a fourth in all");
        drop(b1);
        let _b1 = open.admit(b, false).unwrap();
        drop(a1);
        let _a3 = open
            .admit(a, false)
            .expect("a closed connection gives its place back");
        assert_eq!(open.counts().total, 3, "{:?}", open.counts());
    }

    #[test]
    fn devices_that_did_not_join_cannot_take_the_places_kept_for_the_class() {
        let open = Open::new(ConnectionLimits {
            strangers: 4,
            ..limits(2, 6)
        });
        let strangers: Vec<Slot> = (0..10u8)
            .filter_map(|i| open.admit(IpAddr::from([10, 0, 0, i]), false))
            .collect();
        assert_eq!(
            strangers.len(),
            4,
            "devices without a session stop at their share"
        );
        // A student who joined still gets in, up to the whole cap.
        let student: IpAddr = "10.0.1.1".parse().unwrap();
        let s1 = open.admit(student, true).unwrap();
        let _s2 = open.admit(student, true).unwrap();
        assert!(
            open.admit("10.0.1.2".parse().unwrap(), true).is_none(),
            "all 6 in use"
        );
        // A stranger's place given back is a stranger's again; the student's is anyone's.
        drop(strangers);
        drop(s1);
        assert_eq!(open.counts().strangers, 0);
        assert_eq!(open.counts().total, 1);
    }

    #[test]
    fn addresses_with_nothing_open_are_forgotten() {
        let open = Open::new(limits(3, 100));
        for i in 0..50u8 {
            drop(open.admit(IpAddr::from([10, 0, 0, i]), i % 2 == 0).unwrap());
        }
        let c = open.counts();
        assert!(
            c.by_ip.is_empty() && c.total == 0 && c.strangers == 0,
            "{c:?}"
        );
    }

    #[test]
    fn a_few_devices_cannot_take_every_connection() {
        let open = Open::new(ConnectionLimits::default());
        let mut held = Vec::new();
        // Joined devices, each opening as many connections as it is let (the probe: 64
        // devices × 8 reached the cap of 512), then 86 more.
        for i in 0..150u8 {
            let ip = IpAddr::from([10, 7, 0, i]);
            let before = held.len();
            while let Some(s) = open.admit(ip, true) {
                held.push(s);
            }
            assert!(
                held.len() - before <= PER_ADDRESS,
                "device {i} holds {}",
                held.len() - before
            );
        }
        assert!(held.len() < OTHERS, "{} of {OTHERS}", held.len());
        // Another student, and a device that comes to join, still get in.
        assert!(open.admit(IpAddr::from([10, 7, 1, 1]), true).is_some());
        assert!(open.admit(IpAddr::from([10, 7, 1, 2]), false).is_some());
    }

    /// A classroom server on 127.0.0.1 over an empty library in a temporary folder (kept
    /// while the second value lives).
    async fn classroom_server(limits: ConnectionLimits) -> (crate::Server, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let app =
            Arc::new(vidya_core::app::App::open(dir.path(), false, Default::default()).unwrap());
        let bind = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
        let server = crate::Server::start_with(app, bind, true, dir.path(), limits)
            .await
            .unwrap();
        (server, dir)
    }

    /// Reads until the server closes the socket; `None` if it is still open after 20 s.
    async fn closed_by_server(sock: &mut tokio::net::TcpStream) -> Option<Vec<u8>> {
        use tokio::io::AsyncReadExt;
        let mut got = Vec::new();
        let read = sock.read_to_end(&mut got);
        match tokio::time::timeout(Duration::from_secs(20), read).await {
            Ok(_) => Some(got),
            Err(_) => None,
        }
    }

    /// A TCP connection to `port` on 127.0.0.1 from `from` (another loopback address: another
    /// device, as the server sees it).
    async fn connect(from: &str, port: u16) -> tokio::net::TcpStream {
        let sock = tokio::net::TcpSocket::new_v4().unwrap();
        sock.bind(format!("{from}:0").parse().unwrap()).unwrap();
        sock.connect(std::net::SocketAddr::from(([127, 0, 0, 1], port)))
            .await
            .unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn idle_and_surplus_connections_are_closed_and_the_teacher_still_gets_in() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (server, _dir) = classroom_server(limits(3, 100)).await;
        let port = server.addr().port();

        // A device opens its three and a fourth: the fourth is closed before anything is read.
        let mut idle = Vec::new();
        for _ in 0..3 {
            idle.push(connect("127.0.0.7", port).await);
        }
        let mut fourth = connect("127.0.0.7", port).await;
        let _ = fourth
            .write_all(b"GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .await;
        assert_eq!(
            closed_by_server(&mut fourth).await,
            Some(vec![]),
            "over the cap"
        );

        // The teacher is not capped and is served meanwhile.
        let url = format!("http://127.0.0.1:{port}/api/session");
        let session: serde_json::Value = reqwest::get(&url).await.unwrap().json().await.unwrap();
        assert_eq!(session["role"], "teacher");

        // A keep-alive connection that went quiet after its answer is closed too.
        let mut kept = connect("127.0.0.8", port).await;
        kept.write_all(b"GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .await
            .unwrap();
        let mut first = [0u8; 12];
        kept.read_exact(&mut first).await.unwrap();
        assert_eq!(&first, b"HTTP/1.1 200");

        // Sockets that send nothing (or half a request head) are closed by the header timeout.
        idle[0].write_all(b"GET / HTTP/1.1\r\nHo").await.unwrap();
        for sock in &mut idle {
            assert!(
                closed_by_server(sock).await.is_some(),
                "an idle socket stays open"
            );
        }
        assert!(
            closed_by_server(&mut kept).await.is_some(),
            "an idle keep-alive stays open"
        );

        // Their places are free again.
        let mut again = connect("127.0.0.7", port).await;
        again
            .write_all(b"GET /api/session HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let answer = closed_by_server(&mut again).await.unwrap();
        assert!(
            answer.starts_with(b"HTTP/1.1 200"),
            "{}",
            String::from_utf8_lossy(&answer)
        );
        server.stop().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_body_sent_a_byte_at_a_time_is_refused_and_its_connection_freed() {
        use tokio::io::AsyncWriteExt;
        let (server, _dir) = classroom_server(limits(2, 100)).await;
        let port = server.addr().port();
        let mut slow = connect("127.0.0.9", port).await;
        slow.write_all(
            b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
        )
        .await
        .unwrap();
        let answer = closed_by_server(&mut slow)
            .await
            .expect("the slow body is cut off");
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        // Too large for another device: refused before it is read.
        let mut big = connect("127.0.0.9", port).await;
        big.write_all(
            b"POST /api/join HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000000\r\nConnection: close\r\n\r\n",
        )
        .await
        .unwrap();
        let answer = closed_by_server(&mut big).await.unwrap();
        assert!(
            answer.starts_with(b"HTTP/1.1 413"),
            "{}",
            String::from_utf8_lossy(&answer)
        );
        server.stop().await;
    }
}
