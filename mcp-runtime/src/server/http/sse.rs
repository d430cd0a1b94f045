//! The answers that stream, as SSE events: a session's notifications (`GET /mcp`), a listen
//! stream, and a call's progress before its answer. Each asks reverse proxies not to buffer
//! it.

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use mcp_runtime_core::method::Method;
use serde_json::json;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::HttpState;
use super::headers::{accepts, named_session};
use super::logged::{self, Logging, Start};
use super::session::{open_session, session_not_found, session_refusal};
use crate::auth::AuthInfo;
use crate::server::jsonrpc::{self, Id};
use crate::server::listen::Listen;
use crate::server::sessions::{EventId, EventKind, Events, GET_STREAM, Read};
use crate::server::{Notifier, PendingCall, Server, observe};
use crate::telemetry::ServerOperation;

/// A session's stream of notifications (the handshake's revisions): the changes of the
/// lists, and updates of the resources the session subscribed to, as SSE events with ids,
/// until the client hangs up or the session ends. A client that names the last event it
/// received (`Last-Event-ID`) gets the events after it first: of this stream, or of a
/// call's stream that dropped before its answer. A request without a session id gets no
/// stream; one naming a session that is not open, or not its caller's, gets 404.
pub(super) async fn get_mcp(State(state): State<Arc<HttpState>>, request: Request) -> Response {
    super::guard::admitted(state, request, |state, request| async move {
        let (parts, _) = request.into_parts();
        let auth = parts.extensions.get::<Arc<AuthInfo>>().cloned();
        session_stream(&state, auth, parts.headers).await
    })
    .await
}

/// A session's stream, asked for with `headers` by the holder of `auth`.
async fn session_stream(
    state: &Arc<HttpState>,
    auth: Option<Arc<AuthInfo>>,
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
    let resume = match headers.get(LAST_EVENT_ID) {
        None => None,
        Some(value) => match value.to_str().ok().and_then(EventId::parse) {
            Some(id) => Some(id),
            None => {
                return (
                    StatusCode::BAD_REQUEST,
                    "`Last-Event-ID` names no event this server sent: reconnect without it",
                )
                    .into_response();
            }
        },
    };
    let record = match open_session(state, session, auth.as_deref()).await {
        Ok(record) => record,
        Err(refusal) => return refusal,
    };
    let events = Arc::clone(state.sessions.events());
    if let Some(id) = resume.clone().filter(|id| id.stream != GET_STREAM) {
        return logged::call_stream_resumed(events, session, id).await;
    }
    // Watched before it is read: what is added after this read wakes the stream, which
    // need not read again what this read gave.
    let watcher = events.watch(session, GET_STREAM);
    // From the event named, or from the log's end; events the client missed that are no
    // longer kept make it read the lists again.
    let start = match events
        .read(session, GET_STREAM, resume.as_ref().map(|id| id.n))
        .await
    {
        Ok(read) => start_of(resume.as_ref(), read),
        Err(error) => return session_refusal(&error),
    };
    let (send, queue) = notices();
    let guard = Arc::new(state.server.hear_changes(send));
    let ended = state.streams.attach(session, &guard);
    tokio::spawn(log_notices(queue, Arc::clone(&events), session.to_owned()));
    let primes = Logging::primes(&record.revision);
    let lifetime = state.sessions.limits().stream_lifetime;
    logged::session_stream(
        (events, watcher),
        session,
        start,
        (primes, (ended, lifetime), Box::new(guard)),
    )
}

/// Where a session's stream starts, from what its log's first read gave: after the event
/// `resume` names, or at the log's end; events the client missed that are no longer kept
/// make it read the lists again.
fn start_of(resume: Option<&EventId>, read: Option<Read>) -> Start {
    match (resume, read) {
        (Some(id), Some(read)) => {
            let after = id.n.min(read.last);
            Start {
                after,
                missed: read.lost && read.last >= id.n,
                already: read
                    .events
                    .into_iter()
                    .filter(|event| event.n > after)
                    .collect(),
            }
        }
        (Some(id), None) => Start {
            after: 0,
            missed: id.n > 0,
            already: Vec::new(),
        },
        (None, read) => Start {
            after: read.map_or(0, |read| read.last),
            missed: false,
            already: Vec::new(),
        },
    }
}

/// The header a reconnecting client names the last event it received in.
const LAST_EVENT_ID: &str = "last-event-id";

/// Adds the notices heard for `session`'s stream to its log, until its listener is dropped;
/// when some were lost (the log could not keep up), that every list changed.
async fn log_notices(mut queue: Queue, events: Arc<Events>, session: String) {
    while let Some(message) = queue.receiver.recv().await {
        let mut messages = vec![message];
        if queue.lost.swap(false, Ordering::Relaxed) {
            messages.extend(logged::lists_changed());
        }
        for message in messages {
            if let Err(error) = events
                .append(&session, GET_STREAM, EventKind::Message, &message)
                .await
            {
                tracing::warn!(%error, "a session's notification is lost");
            }
        }
    }
}

/// `DELETE /mcp`: ends the session it names, on every replica that shares the store (204);
/// its stream here closes. A session that is not open, or not the caller's, gets 404.
pub(super) async fn end_session(State(state): State<Arc<HttpState>>, request: Request) -> Response {
    super::guard::admitted(state, request, |state, request| async move {
        let (parts, _) = request.into_parts();
        let auth = parts.extensions.get::<Arc<AuthInfo>>().cloned();
        end(&state, auth, parts.headers).await
    })
    .await
}

/// Ends the session `headers` name, for the holder of `auth`.
async fn end(state: &HttpState, auth: Option<Arc<AuthInfo>>, headers: HeaderMap) -> Response {
    let Some(session) = named_session(&headers) else {
        return (
            StatusCode::BAD_REQUEST,
            "DELETE /mcp ends the session its Mcp-Session-Id names: name one",
        )
            .into_response();
    };
    if let Err(refusal) = open_session(state, session, auth.as_deref()).await {
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
/// the client hangs up, or once `ended` is cancelled (the server stops).
pub(super) fn listen_stream(
    server: &Server,
    (listen, client): (&Listen, &str),
    ended: CancellationToken,
) -> Response {
    let (send, receiver) = notices();
    let guard = server.listen(listen, client, send);
    notice_stream(receiver, (guard, ended), Behind(listen.id.clone()))
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

/// What a listen stream does once its client fell behind and lost notices (2026-07-28): it
/// ends, as the server tears the subscription down: `notifications/cancelled` naming it
/// says why, then the stream closes, and the client listens again.
struct Behind(Id);

impl Behind {
    /// The notices a stream sends once its client has read what was queued before it fell
    /// behind.
    fn notices(&self) -> Vec<String> {
        let reason = format!(
            "the client fell more than {QUEUED} notifications behind this stream, so some \
             were lost: listen again, and read again what it tells of"
        );
        let cancelled = jsonrpc::notification(
            &Method::Cancelled,
            json!({ "requestId": self.0, "reason": reason }),
        );
        vec![cancelled]
    }
}

/// The notices of `queue` as SSE events, with a comment every so often to keep idle
/// connections open, for as long as the client keeps the stream; `guard` (the listener)
/// lives as long. A client that fell behind gets what `behind` sends once it has read
/// what was queued, and the stream ends. It ends, too, once `ended` is cancelled.
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
                        reading.guard = None;
                        reading.then = reading.behind.notices().into_iter();
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
    unbuffered(
        Sse::new(events)
            .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
            .into_response(),
    )
}

/// `response`, with reverse proxies (nginx) asked to pass its events on at once.
fn unbuffered(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The progress notifications of a call as they come, then its answer, as SSE events: with
/// ids, kept for a client that reconnects, in a session (`logging`).
pub(super) fn progress_stream(
    server: Arc<Server>,
    mut pending: Box<PendingCall>,
    (permit, operation): (crate::server::admission::Admitted, Option<ServerOperation>),
    logging: Option<Logging>,
) -> Response {
    let (sender, receiver) = mpsc::channel::<(String, bool)>(64);
    let notify: Notifier = {
        let sender = sender.clone();
        // A client too slow to read loses progress reports, never the answer.
        Arc::new(move |message| {
            let _ = sender.try_send((message, false));
        })
    };
    let id = pending.id.clone();
    // A stream its client can resume (it opened with an event id) the tool may end.
    let close = logging
        .as_ref()
        .filter(|logging| logging.primes)
        .map(|_| CancellationToken::new());
    pending.stream_close.clone_from(&close);
    tokio::spawn(async move {
        let answer = observe::scoped(&operation, server.finish(pending, Some(notify))).await;
        observe::end(operation, answer.as_deref());
        if let Some(answer) = answer {
            let _ = sender.send((answer, true)).await;
        }
        drop(permit);
    });
    if let Some(logging) = logging {
        return logged::call_stream(receiver, &id, logging, close);
    }
    let events = futures_util::stream::unfold(receiver, |mut receiver| async move {
        let (message, _) = receiver.recv().await?;
        Some((
            Ok::<_, Infallible>(Event::default().data(message)),
            receiver,
        ))
    });
    unbuffered(Sse::new(events).into_response())
}
