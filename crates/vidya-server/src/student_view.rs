//! What a student's device is told when something fails, in classroom mode: the kind and the
//! HTTP status the teacher would get, with a message a student can act on. Messages written
//! for the teacher (a command to run, a file's path, a setup step) stay on the teacher's
//! screen; a student is sent to the teacher instead.
//!
//! [`rewrite`] does it for every JSON error a student's request gets (the access guard calls
//! it); [`error_body`] for an error event in an answer's stream; [`answer`] for the note of
//! an answer the model could not write.

use axum::body::Body;
use axum::http::header;
use axum::response::Response;
use vidya_core::answer::TutorAnswer;
use vidya_core::app::ErrorBody;

/// The most bytes of an error body read to rewrite it (error bodies are a few hundred).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// The message a student sees for an error of `kind` whose message (for the teacher) is
/// `message`: unchanged when it is about the student's own request (an empty or too long
/// question, a full queue, a wrong code), else a sentence that sends them to the teacher.
pub fn message(kind: &str, message: &str) -> String {
    match kind {
        "empty_library" | "no_library" => {
            "There are no textbooks in Vidya yet: ask your teacher to add them.".into()
        }
        "no_such_book" => "That book is no longer in the library: ask your teacher.".into(),
        "no_such_conversation" => {
            "That conversation is no longer here: ask your question again.".into()
        }
        // The library, the models, the files, or Vidya itself: the teacher's to fix.
        "model_missing" | "pdfium_missing" | "reranker_broken" | "database" | "schema_too_new"
        | "internal" | "io" | "encrypted" | "corrupt" | "scanned" | "garbled_text"
        | "legacy_font" | "unsupported" | "empty" | "wrong_type" => {
            "Vidya on your teacher's laptop cannot do this right now: tell your teacher (the laptop shows what to fix).".into()
        }
        _ => message.to_string(),
    }
}

/// [`message`] applied to an error event.
pub fn error_body(mut e: ErrorBody) -> ErrorBody {
    e.message = message(&e.kind, &e.message);
    e.file = None;
    e
}

/// An answer as a student's device gets it: without the pipeline's notes on stages that are
/// off, and when the model could not write one, with a note and an error that say so without
/// the teacher's fix (a command, an address).
pub fn answer(mut a: TutorAnswer) -> TutorAnswer {
    // Stages that are off, with the command that turns them on: the teacher's to read.
    a.base.retrieval.notes.clear();
    if let Some(problem) = &mut a.llm_error {
        problem.message = "The tutor model on your teacher's laptop could not answer: tell your teacher (the laptop shows what to fix).".into();
        a.note = Some("The quotes above are your textbook's answer; the tutor could not write one of its own this time.".into());
    }
    a
}

/// A JSON error response (`{"error": {"kind", "message"}}`) with its message made a
/// student's ([`message`]); any other response unchanged.
pub async fn rewrite(resp: Response) -> Response {
    let is_json = resp
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    if !(resp.status().is_client_error() || resp.status().is_server_error()) || !is_json {
        return resp;
    }
    let (mut parts, body) = resp.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, MAX_ERROR_BODY).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let mut json: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => return Response::from_parts(parts, Body::from(bytes)),
    };
    let kind = json["error"]["kind"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    if let Some(m) = json["error"]["message"].as_str() {
        json["error"]["message"] = message(&kind, m).into();
    }
    let body = serde_json::to_vec(&json).unwrap_or_else(|_| bytes.to_vec());
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;
    use axum::response::IntoResponse;

    #[test]
    fn the_teachers_fix_stays_on_the_teachers_screen() {
        let for_teacher = vidya_core::VidyaError::EmptyLibrary.to_string();
        assert!(for_teacher.contains("vidya ingest"));
        let shown = message("empty_library", &for_teacher);
        assert!(
            !shown.contains("vidya") && shown.contains("teacher"),
            "{shown}"
        );
        let db = message("database", "the library database at /home/t/lib failed: …");
        assert!(!db.contains("/home") && db.contains("teacher"), "{db}");
        // About the student's own request: unchanged.
        let q = vidya_core::VidyaError::EmptyQuestion.to_string();
        assert_eq!(message("empty_question", &q), q);
        assert_eq!(message("one_at_a_time", "wait for it"), "wait for it");
        // A request too large is the student's own (the question or the name).
        assert_eq!(message("too_large", "at most 64 KB"), "at most 64 KB");
    }

    #[tokio::test]
    async fn a_json_error_is_rewritten_and_anything_else_left_alone() {
        let err = (
            StatusCode::NOT_FOUND,
            axum::Json(serde_json::json!({"error": {"kind": "no_such_conversation", "message": "`vidya conversations` lists them"}})),
        )
            .into_response();
        let out = rewrite(err).await;
        assert_eq!(out.status(), StatusCode::NOT_FOUND);
        let body = axum::body::to_bytes(out.into_body(), 1 << 16)
            .await
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["error"]["kind"], "no_such_conversation");
        assert!(
            !v["error"]["message"].as_str().unwrap().contains("vidya"),
            "{v}"
        );
        // A success is not touched.
        let ok = (StatusCode::OK, "fine").into_response();
        let body = axum::body::to_bytes(rewrite(ok).await.into_body(), 64)
            .await
            .unwrap();
        assert_eq!(&body[..], b"fine");
    }
}
