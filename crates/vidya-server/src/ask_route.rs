//! `POST /api/ask`: a question, answered as one JSON object (`"stream": false`) or as an
//! event stream (`sources`, `queued`, `token` (a student's answer pre-empted by the teacher's
//! question: `restart`, `queued` again and the tokens from the start), then `answer` or `error`). A student's
//! question counts against their session's limits; closing the stream, or hanging up on a
//! `"stream": false` request, cancels the question. A student's answered question is
//! recorded with their name and device for the teacher's class report.

use crate::access::{Access, Caller};
use crate::{blocking, check_owner, event, json_body, sse, ApiError};
use axum::body::Bytes;
use axum::extract::{Extension, State};
use axum::response::sse::Event;
use axum::response::{IntoResponse, Response};
use axum::Json;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc;
use vidya_core::answer::TutorAnswer;
use vidya_core::app::{App, AskControl, AskEvent, AskRequest, ErrorBody};
use vidya_core::store::class_report::Asker;

/// A student's question in flight: ends it (and records its conversation) when dropped.
struct InFlight {
    access: Arc<Access>,
    token: Option<String>,
    conversation: Option<i64>,
    /// The student who asks, and when (Unix seconds), for the class report.
    asker: Option<(Asker, i64)>,
}

impl InFlight {
    /// Records the asking student with the answer's turn (the teacher's class report); a
    /// failure is logged, never the student's problem.
    fn record(&self, app: &App, answer: &TutorAnswer) {
        let (Some((who, at)), Some(turn)) = (&self.asker, answer.turn_id) else {
            return;
        };
        if let Err(e) = app.record_class_question(turn, who, *at) {
            tracing::warn!(error = %e, "could not record the question for the class report");
        }
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if let Some(t) = &self.token {
            self.access.end_question(t, self.conversation);
        }
    }
}

/// Sets its flag when dropped: the handler of a `stream: false` question was dropped
/// because its client hung up (or it ended; then the flag is no longer read).
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// `POST /api/ask` (see the crate docs): checks the request and the caller's right to ask,
/// then answers it whole ([`answer_whole`]) or as an event stream ([`answer_streamed`]).
pub async fn ask(
    State(app): State<Arc<App>>,
    Extension(access): Extension<Arc<Access>>,
    Extension(caller): Extension<Caller>,
    body: Bytes,
) -> Result<Response, ApiError> {
    let req: AskRequest = json_body(&body, r#"{"question": "..."}"#)?;
    app.check_request(&req)?;
    let token = match &caller {
        Caller::Student(t) => {
            if let Some(id) = req.conversation {
                check_owner(&access, &caller, id)?;
            }
            if let Err(refused) = access.begin_question(t) {
                return Ok(refused);
            }
            Some(t.clone())
        }
        _ => None,
    };
    let asker = token
        .as_deref()
        .and_then(|t| access.asker_of(t))
        .map(|who| (who, vidya_core::app::class_report::unix_now()));
    let flight = InFlight {
        access,
        token,
        conversation: req.conversation,
        asker,
    };
    let who = Who {
        teacher: matches!(caller, Caller::Teacher),
        student: matches!(caller, Caller::Student(_)),
    };
    if req.stream.unwrap_or(true) {
        Ok(answer_streamed(app, req, flight, who))
    } else {
        answer_whole(app, req, flight, who).await
    }
}

/// Who asks: the teacher (ahead of every student in the queue) or a student (whose answer is
/// shown as [`crate::student_view`] allows).
#[derive(Clone, Copy)]
struct Who {
    teacher: bool,
    student: bool,
}

/// `"stream": false`: the answer as one JSON object. The client hanging up (hyper drops this
/// future) takes the question out of the queue, or stops the model mid-answer.
async fn answer_whole(
    app: Arc<App>,
    req: AskRequest,
    flight: InFlight,
    who: Who,
) -> Result<Response, ApiError> {
    let cancel = Arc::new(AtomicBool::new(false));
    let _hung_up = CancelOnDrop(cancel.clone());
    let answer = blocking(move || {
        let mut flight = flight;
        let answer = app.ask_with(
            &req,
            &mut |_| {},
            AskControl {
                teacher: who.teacher,
                on_queue: &mut |_| {},
                cancel: Some(cancel),
                on_sources: &mut |_, _| {},
                // Nothing was sent yet: the answer is simply written again.
                on_restart: &mut || {},
            },
        )?;
        flight.conversation = answer.conversation_id.or(flight.conversation);
        flight.record(&app, &answer);
        Ok(answer)
    })
    .await?;
    let answer = if who.student {
        crate::student_view::answer(answer)
    } else {
        answer
    };
    Ok(Json(answer).into_response())
}

/// The answer as an event stream: `sources` (with the quotes to show at once), `queued`,
/// `token`, `restart`, then `answer` or `error`. Closing the stream (the page closed, the
/// student pressed Cancel) takes the question out of the queue or stops the model.
fn answer_streamed(app: Arc<App>, req: AskRequest, flight: InFlight, who: Who) -> Response {
    let (tx, rx) = mpsc::unbounded_channel::<Event>();
    let cancel = Arc::new(AtomicBool::new(false));
    // Dropped when the answer is done, so the watcher lets go of its sender and the stream
    // can end.
    let (done_tx, done_rx) = tokio::sync::oneshot::channel::<()>();
    {
        let (tx, cancel) = (tx.clone(), cancel.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = tx.closed() => cancel.store(true, Ordering::SeqCst),
                _ = done_rx => {}
            }
        });
    }
    tokio::task::spawn_blocking(move || {
        let _done = done_tx;
        let mut flight = flight;
        let send = |e: AskEvent| {
            let _ = tx.send(event(&e));
        };
        let mut on_token = |t: &str| {
            send(AskEvent::Token {
                text: t.to_string(),
            })
        };
        let mut on_queue = |ahead: usize| send(AskEvent::Queued { ahead });
        let mut on_sources = |c: &[vidya_core::answer::Citation], quotes: Option<&str>| {
            send(AskEvent::Sources {
                citations: c.to_vec(),
                quotes: quotes.map(str::to_string),
            })
        };
        let mut on_restart = || send(AskEvent::Restart);
        let ctl = AskControl {
            teacher: who.teacher,
            on_queue: &mut on_queue,
            cancel: Some(cancel),
            on_sources: &mut on_sources,
            on_restart: &mut on_restart,
        };
        let last = match app.ask_with(&req, &mut on_token, ctl) {
            Ok(a) => {
                flight.conversation = a.conversation_id.or(flight.conversation);
                flight.record(&app, &a);
                AskEvent::Answer(Box::new(if who.student {
                    crate::student_view::answer(a)
                } else {
                    a
                }))
            }
            Err(e) if who.student => {
                AskEvent::Error(crate::student_view::error_body(ErrorBody::from(&e)))
            }
            Err(e) => AskEvent::Error(ErrorBody::from(&e)),
        };
        // The question ends (its conversation recorded as the student's) before the page
        // hears of it: a page that opens the conversation at once finds it.
        drop(flight);
        send(last);
    });
    sse(rx)
}
