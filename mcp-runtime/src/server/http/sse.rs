//! The answers that stream, as SSE events: a session's notifications (`GET /mcp`), a listen
//! stream, and a call's progress before its answer. Each asks reverse proxies not to buffer
//! it.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::{Extension, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use mcp_runtime_core::method::Method;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::HttpState;
use super::headers::{accepts, named_session};
use super::session::{open_session, session_not_found, session_refusal};
use crate::auth::AuthInfo;
use crate::server::jsonrpc::{self, Id};
use crate::server::listen::Listen;
use crate::server::{Notifier, PendingCall, Server, observe};
use crate::telemetry::ServerOperation;

/// A session's stream of notifications (the handshake's revisions): the changes of the
/// lists, and updates of the resources the session subscribed to, as SSE events, until the
/// client hangs up or the session ends. A request without a session id gets no stream; one
/// naming a session that is not open, or not its caller's, gets 404.
pub(super) async fn get_mcp(
    State(state): State<Arc<HttpState>>,
    auth: Option<Extension<Arc<AuthInfo>>>,
    headers: HeaderMap,
) -> Response {
    let Some(session) = named_session(&headers) else {
        return no_stream().await;
    };
    if !accepts(&headers, "text/event-stream") {
        return (
            StatusCode::NOT_ACCEPTABLE,
            "a session's stream is text/event-stream: accept it",
        )
            .into_response();
    }
    let auth = auth.map(|Extension(auth)| auth);
    let record = match open_session(&state, session, auth.as_deref()).await {
        Ok(record) => record,
        Err(refusal) => return refusal,
    };
    let (send, receiver) = notices();
    let guard = Arc::new(state.server.hear_changes(send));
    let ended = state.streams.attach(session, &guard, &record.subscriptions);
    notice_stream(receiver, (guard, ended), Behind::Resync)
}

/// `DELETE /mcp`: ends the session it names, on every replica that shares the store (204);
/// its stream here closes. A session that is not open, or not the caller's, gets 404.
pub(super) async fn end_session(
    State(state): State<Arc<HttpState>>,
    auth: Option<Extension<Arc<AuthInfo>>>,
    headers: HeaderMap,
) -> Response {
    let Some(session) = named_session(&headers) else {
        return (
            StatusCode::BAD_REQUEST,
            "DELETE /mcp ends the session its Mcp-Session-Id names: name one",
        )
            .into_response();
    };
    let auth = auth.map(|Extension(auth)| auth);
    if let Err(refusal) = open_session(&state, session, auth.as_deref()).await {
        return refusal;
    }
    match state.sessions.end(session).await {
        Ok(true) => {
            state.streams.end(session);
            StatusCode::NO_CONTENT.into_response()
        }
        Ok(false) => session_not_found(),
        Err(error) => session_refusal(&error),
    }
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
    notice_stream(
        receiver,
        (guard, CancellationToken::new()),
        Behind::End(listen.id.clone()),
    )
}

/// The most notices a stream queues for a client that has not read them.
const QUEUED: usize = 64;

/// Where a stream's notices are queued, and where they are read; the queue says when a
/// client too slow to read lost one.
fn notices() -> (Notifier, Queue) {
    let (sender, receiver) = mpsc::channel::<String>(QUEUED);
    let lost = Arc::new(AtomicBool::new(false));
    let losing = Arc::clone(&lost);
    let send: Notifier = Arc::new(move |message| {
        if sender.try_send(message).is_err() {
            losing.store(true, Ordering::Relaxed);
        }
    });
    (send, Queue { receiver, lost })
}

/// A stream's queued notices, and whether one was lost because the queue was full.
struct Queue {
    receiver: mpsc::Receiver<String>,
    lost: Arc<AtomicBool>,
}

/// What a stream does once its client fell behind and lost notices: never nothing.
enum Behind {
    /// A session's stream (the handshake's revisions) goes on, after telling the client
    /// that every list changed: whatever it missed, reading them again catches up.
    Resync,
    /// A listen stream (2026-07-28) ends, as the server tears the subscription down:
    /// `notifications/cancelled` naming it says why, then the stream closes, and the
    /// client listens again.
    End(Id),
}

impl Behind {
    /// The notices a stream sends once its client has read what was queued before it fell
    /// behind; whether the stream ends after them.
    fn notices(&self) -> (Vec<String>, bool) {
        match self {
            Self::Resync => {
                let changed = [
                    Method::ToolsListChanged,
                    Method::PromptsListChanged,
                    Method::ResourcesListChanged,
                ];
                let notices = changed
                    .iter()
                    .map(|method| jsonrpc::notification(method, json!({})))
                    .collect();
                (notices, false)
            }
            Self::End(id) => {
                let reason = format!(
                    "the client fell more than {QUEUED} notifications behind this stream, so \
                     some were lost: listen again, and read again what it tells of"
                );
                let cancelled = jsonrpc::notification(
                    &Method::Cancelled,
                    json!({ "requestId": id, "reason": reason }),
                );
                (vec![cancelled], true)
            }
        }
    }
}

/// The notices of `queue` as SSE events, with a comment every so often to keep idle
/// connections open, for as long as the client keeps the stream; `guard` (the listener)
/// lives as long. A client that fell behind gets what `behind` sends once it has read
/// what was queued. The stream ends, too, once `ended` is cancelled (its session ended).
fn notice_stream<G: Send + Sync + 'static>(
    queue: Queue,
    (guard, ended): (G, CancellationToken),
    behind: Behind,
) -> Response {
    struct Reading<G> {
        queue: Queue,
        guard: Option<G>,
        ended: CancellationToken,
        behind: Behind,
        then: std::vec::IntoIter<String>,
    }
    let reading = Reading {
        queue,
        guard: Some(guard),
        ended,
        behind,
        then: Vec::new().into_iter(),
    };
    let events = futures_util::stream::unfold(reading, |mut reading| async move {
        let event = |message: String| Ok::<_, Infallible>(Event::default().data(message));
        loop {
            if let Some(message) = reading.then.next() {
                return Some((event(message), reading));
            }
            // The stream ended, its last notices sent.
            reading.guard.as_ref()?;
            if reading.queue.lost.load(Ordering::Relaxed) {
                match reading.queue.receiver.try_recv() {
                    Ok(message) => return Some((event(message), reading)),
                    Err(_) => {
                        reading.queue.lost.store(false, Ordering::Relaxed);
                        let (notices, ends) = reading.behind.notices();
                        if ends {
                            reading.guard = None;
                        }
                        reading.then = notices.into_iter();
                        continue;
                    }
                }
            }
            let message = tokio::select! {
                message = reading.queue.receiver.recv() => message?,
                () = reading.ended.cancelled() => return None,
            };
            return Some((event(message), reading));
        }
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
    (permit, operation): (crate::server::admission::Admitted, Option<ServerOperation>),
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
