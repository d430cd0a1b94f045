//! The answers that stream, as SSE events: a session's notifications (`GET /mcp`), a listen
//! stream, and a call's progress before its answer. Each asks reverse proxies not to buffer
//! it.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, mpsc};

use super::HttpState;
use super::headers::{SESSION_ID, accepts};
use crate::server::listen::Listen;
use crate::server::{Notifier, PendingCall, Server, observe};
use crate::telemetry::ServerOperation;

/// A session's stream of notifications (the handshake's revisions): the changes of the
/// lists, and updates of the resources the session subscribed to, as SSE events, until the
/// client hangs up. A request without a session id gets no stream.
pub(super) async fn get_mcp(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
    let Some(session) = headers
        .get(SESSION_ID)
        .and_then(|value| value.to_str().ok())
    else {
        return no_stream().await;
    };
    if !accepts(&headers, "text/event-stream") {
        return (
            StatusCode::NOT_ACCEPTABLE,
            "a session's stream is text/event-stream: accept it",
        )
            .into_response();
    }
    let (send, receiver) = notices();
    let guard = Arc::new(state.server.hear_changes(send));
    state.sessions.stream(session, &guard);
    notice_stream(receiver, guard)
}

/// No stream without a session: clients get answers on their POSTs.
pub(super) async fn no_stream() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, HeaderValue::from_static("POST"))],
        "this server answers POST /mcp only",
    )
        .into_response()
}

/// A `subscriptions/listen` stream: its acknowledgement, then the changes it asked for, as
/// SSE events, with a comment every so often to keep idle connections open. It ends when
/// the client hangs up.
pub(super) fn listen_stream(server: &Server, listen: &Listen, client: &str) -> Response {
    let (send, receiver) = notices();
    let guard = server.listen(listen, client, send);
    notice_stream(receiver, guard)
}

/// Where a stream's notices are queued, and where they are read. A client too slow to read
/// loses a change notice only while one is already waiting: each tells the same thing,
/// that the list (or the resource) is to be read again.
fn notices() -> (Notifier, mpsc::Receiver<String>) {
    let (sender, receiver) = mpsc::channel::<String>(64);
    let send: Notifier = Arc::new(move |message| {
        let _ = sender.try_send(message);
    });
    (send, receiver)
}

/// The notices of `receiver` as SSE events, with a comment every so often to keep idle
/// connections open, for as long as the client keeps the stream; `guard` (the listener)
/// lives as long.
fn notice_stream<G: Send + 'static>(receiver: mpsc::Receiver<String>, guard: G) -> Response {
    let events =
        futures_util::stream::unfold((receiver, guard), |(mut receiver, guard)| async move {
            let message = receiver.recv().await?;
            Some((
                Ok::<_, Infallible>(Event::default().data(message)),
                (receiver, guard),
            ))
        });
    let mut response = Sse::new(events)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response();
    unbuffered(&mut response);
    response
}

/// Asks reverse proxies (nginx) to pass an SSE stream's events on at once.
fn unbuffered(response: &mut Response) {
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
}

/// The progress notifications of a call as they come, then its answer, as SSE events.
pub(super) fn progress_stream(
    server: Arc<Server>,
    pending: Box<PendingCall>,
    (permit, operation): (OwnedSemaphorePermit, Option<ServerOperation>),
) -> Response {
    let (sender, receiver) = mpsc::channel::<String>(64);
    let notify: Notifier = {
        let sender = sender.clone();
        // A client too slow to read loses progress reports, never the answer.
        Arc::new(move |message| {
            let _ = sender.try_send(message);
        })
    };
    tokio::spawn(async move {
        let answer = observe::scoped(&operation, server.finish(pending, Some(notify))).await;
        observe::end(operation, answer.as_deref());
        if let Some(answer) = answer {
            let _ = sender.send(answer).await;
        }
        drop(permit);
    });
    let events = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let message = receiver.recv().await?;
        Some((
            Ok::<_, Infallible>(Event::default().data(message)),
            receiver,
        ))
    });
    let mut response = Sse::new(events).into_response();
    unbuffered(&mut response);
    response
}
