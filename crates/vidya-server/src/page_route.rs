//! `POST /api/page-image`: the cited page as PNG. Each picture is drawn once and kept
//! ([`vidya_core::app::page_image`]'s cache); a picture drawn before is sent at once to
//! anyone. Drawing a new one costs a core for a moment and tens of MB, so another device
//! (a student's, or the teacher's after the PIN) draws one page at a time (one more may wait
//! for it), at most [`PAGE_RENDERS_PER_MINUTE`] a minute, and all other devices together
//! [`RENDERS_AT_ONCE`] at once; a page over a limit gets 429 with `Retry-After`. The laptop
//! itself is never limited.

use crate::access::{self, Caller, Peer};
use crate::{blocking, json_body, status_of, ApiError};
use axum::body::{Body, Bytes};
use axum::extract::{Extension, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use vidya_core::app::page_image::{self, Lookup, PageImage};
use vidya_core::app::{App, PageImageRequest};
use vidya_core::VidyaError;

/// New pictures one other device may have drawn per minute: the cited pages of a few answers
/// (a picture drawn before, for anyone, does not count).
pub const PAGE_RENDERS_PER_MINUTE: usize = 12;

/// Requests for new pictures one other device may have open: one being drawn, one waiting
/// for it (a student who clicks the next citation at once); more get 429.
pub const RENDERS_PER_DEVICE: usize = 2;

/// New pictures all other devices together draw at once (the others wait their turn): one
/// core of the laptop stays for the answer model and the teacher.
pub const RENDERS_AT_ONCE: usize = 1;

/// One other device's drawing: its requests open, its turn, its pictures of the last minute.
#[derive(Debug)]
struct Device {
    open: usize,
    turn: Arc<Semaphore>,
    drawn: VecDeque<Instant>,
}

/// The drawing of other devices ([`PAGE_RENDERS_PER_MINUTE`], [`RENDERS_PER_DEVICE`],
/// [`RENDERS_AT_ONCE`]).
#[derive(Debug)]
pub struct Renders {
    devices: Mutex<HashMap<IpAddr, Device>>,
    all: Arc<Semaphore>,
}

/// Why a device may not draw a new picture now, and when to try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// `one_at_a_time` or `rate_limited`.
    pub kind: &'static str,
    /// Seconds to wait (`Retry-After`).
    pub retry_after_s: u64,
}

/// A device's admitted request: [`Ticket::ready`] waits for its turn. Its place among the
/// device's open requests is given back when it (or the [`Drawing`] it becomes) is dropped.
#[derive(Debug)]
pub struct Ticket {
    renders: Arc<Renders>,
    ip: IpAddr,
    turn: Arc<Semaphore>,
}

/// A device's turn to draw, with a place among all devices' drawings: dropped when the
/// picture is drawn.
#[derive(Debug)]
pub struct Drawing {
    _ticket: Ticket,
    _mine: OwnedSemaphorePermit,
    _all: OwnedSemaphorePermit,
}

impl Renders {
    /// No device drawing yet.
    pub fn new() -> Arc<Self> {
        Arc::new(Self {
            devices: Mutex::new(HashMap::new()),
            all: Arc::new(Semaphore::new(RENDERS_AT_ONCE)),
        })
    }

    fn devices(&self) -> std::sync::MutexGuard<'_, HashMap<IpAddr, Device>> {
        self.devices.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Lets device `ip` draw a new picture at `now`, or says why not: it has
    /// [`RENDERS_PER_DEVICE`] requests open, or drew [`PAGE_RENDERS_PER_MINUTE`] in the
    /// last minute. An admitted request counts towards the minute's pictures.
    pub fn admit(self: &Arc<Self>, ip: IpAddr, now: Instant) -> Result<Ticket, Refusal> {
        let minute = Duration::from_secs(60);
        let mut devices = self.devices();
        // Devices with nothing open and nothing drawn in the last minute are forgotten.
        devices.retain(|_, d| {
            while d
                .drawn
                .front()
                .is_some_and(|t| now.saturating_duration_since(*t) >= minute)
            {
                d.drawn.pop_front();
            }
            d.open > 0 || !d.drawn.is_empty()
        });
        let d = devices.entry(ip).or_insert_with(|| Device {
            open: 0,
            turn: Arc::new(Semaphore::new(1)),
            drawn: VecDeque::new(),
        });
        if d.open >= RENDERS_PER_DEVICE {
            return Err(Refusal {
                kind: "one_at_a_time",
                retry_after_s: 1,
            });
        }
        if d.drawn.len() >= PAGE_RENDERS_PER_MINUTE {
            let oldest = d.drawn.front().copied().unwrap_or(now);
            let left = minute.saturating_sub(now.saturating_duration_since(oldest));
            return Err(Refusal {
                kind: "rate_limited",
                retry_after_s: left.as_secs() + 1,
            });
        }
        d.drawn.push_back(now);
        d.open += 1;
        Ok(Ticket {
            renders: self.clone(),
            ip,
            turn: d.turn.clone(),
        })
    }
}

impl Ticket {
    /// Waits for the device's turn (its earlier picture drawn) and a place among all devices'
    /// drawings.
    pub async fn ready(self) -> Drawing {
        let mine = self
            .turn
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        let all = self
            .renders
            .all
            .clone()
            .acquire_owned()
            .await
            .expect("the semaphore is never closed");
        Drawing {
            _ticket: self,
            _mine: mine,
            _all: all,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(d) = self.renders.devices().get_mut(&self.ip) {
            d.open = d.open.saturating_sub(1);
        }
    }
}

/// The 429 for a [`Refusal`]: the API's error object and `Retry-After`.
fn refused(r: &Refusal) -> Response {
    let message = match r.kind {
        "one_at_a_time" => "a page for this device is still being drawn: wait for it, then open the next one".to_string(),
        _ => format!(
            "this device opened {PAGE_RENDERS_PER_MINUTE} new pages in the last minute: wait {} s, then open the page again (the quoted sentences are the page's own words)",
            r.retry_after_s
        ),
    };
    let mut res = access::refuse(StatusCode::TOO_MANY_REQUESTS, r.kind, message);
    if let Ok(v) = HeaderValue::from_str(&r.retry_after_s.to_string()) {
        res.headers_mut().insert(header::RETRY_AFTER, v);
    }
    res
}

/// `POST /api/page-image` (see the module docs).
pub(crate) async fn page_image(
    State(app): State<Arc<App>>,
    Extension(caller): Extension<Caller>,
    Extension(peer): Extension<Peer>,
    Extension(renders): Extension<Arc<Renders>>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let req: PageImageRequest =
        json_body(&body, r#"{"book_id": 1, "page": 0, "highlight": ["…"]}"#)?;
    let student = caller != Caller::Teacher;
    let dir = app.library_dir().to_path_buf();
    let looked = blocking(move || {
        let lib = vidya_core::Library::open(&dir)?;
        page_image::lookup(
            &lib,
            req.book_id,
            req.page,
            &req.highlight,
            req.width.unwrap_or(page_image::DEFAULT_WIDTH_PX),
        )
    })
    .await;
    let source = match looked {
        Ok(Lookup::Drawn(img)) => return Ok(png(img)),
        Ok(Lookup::ToDraw(source)) => source,
        // Where the library keeps its files is the teacher's to know.
        Err(ApiError(e)) if student => return Ok(page_refused_to_student(&e)),
        Err(e) => return Err(e),
    };
    let drawing = if peer.laptop {
        None
    } else {
        // (No address known: limited as one device.)
        let ip = peer.ip.unwrap_or(IpAddr::from([0, 0, 0, 0]));
        match renders.admit(ip, Instant::now()) {
            Ok(ticket) => Some(ticket.ready().await),
            Err(r) => return Ok(refused(&r)),
        }
    };
    // The turn is held by the drawing itself: a device that hangs up does not get a second
    // drawing going beside it.
    let drawn = blocking(move || {
        let _turn = drawing;
        page_image::draw(&source)
    })
    .await;
    match drawn {
        Ok(img) => Ok(png(img)),
        Err(ApiError(e)) if student => Ok(page_refused_to_student(&e)),
        Err(e) => Err(e),
    }
}

fn png(img: PageImage) -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/png"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        Body::from(img.png),
    )
        .into_response()
}

/// A page-image error as a student's device sees it: the kind and status the teacher would
/// get, with the engine's message for students ([`VidyaError::NoPageImage`]'s `student`: no
/// path, no fix only the teacher can make).
fn page_refused_to_student(e: &VidyaError) -> Response {
    let (status, message) = match e {
        VidyaError::NoPageImage { student, .. } => (StatusCode::NOT_FOUND, student.clone()),
        VidyaError::NoSuchBook(_) => (
            StatusCode::NOT_FOUND,
            "that book is no longer in the library: ask your teacher".to_string(),
        ),
        _ => (
            status_of(e),
            "this page cannot be drawn: the quoted sentences are the page's words; tell your teacher".to_string(),
        ),
    };
    access::refuse(status, e.kind(), message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_device_draws_one_page_at_a_time_and_a_few_a_minute() {
        let r = Renders::new();
        let a: IpAddr = "10.0.0.1".parse().unwrap();
        let b: IpAddr = "10.0.0.2".parse().unwrap();
        let t0 = Instant::now();
        let first = r.admit(a, t0).unwrap();
        let second = r.admit(a, t0).unwrap();
        // A third while one is drawn and one waits.
        assert_eq!(r.admit(a, t0).unwrap_err().kind, "one_at_a_time");
        // Another device is not held back.
        let other = r.admit(b, t0).unwrap();
        drop(other);
        // The first draws; the second waits for it (the device's turn).
        let drawing = first.ready().await;
        let waiting = tokio::spawn(second.ready());
        tokio::task::yield_now().await;
        assert!(
            !waiting.is_finished(),
            "drew beside the device's other page"
        );
        drop(drawing);
        drop(waiting.await.unwrap());
        // At most PAGE_RENDERS_PER_MINUTE in a minute (two were admitted above).
        for i in 2..PAGE_RENDERS_PER_MINUTE {
            drop(r.admit(a, t0 + Duration::from_secs(i as u64)).unwrap());
        }
        let over = r.admit(a, t0 + Duration::from_secs(30)).unwrap_err();
        assert_eq!(over.kind, "rate_limited");
        assert_eq!(
            over.retry_after_s, 31,
            "the first leaves the minute in 30 s"
        );
        assert!(r.admit(a, t0 + Duration::from_secs(60)).is_ok());
        // Devices with nothing open or drawn are forgotten.
        let later = t0 + Duration::from_secs(3600);
        drop(r.admit(b, later).unwrap());
        assert_eq!(r.devices().len(), 1, "{:?}", r.devices());
    }
}
