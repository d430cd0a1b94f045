//! A session's SSE streams, whose events are logged (`sessions::Events`) and carry ids, so
//! that a client whose stream dropped reconnects, to this replica or any other, with
//! `Last-Event-ID`, and receives what it missed, in order and once:
//! - the session's `GET /mcp` stream, read from its log, which the changes of the lists
//!   heard here and the updates of the resources it subscribed to (raised on any replica)
//!   are added to;
//! - a call's stream, its progress, log messages and questions, then its answer, each
//!   added to the call's log as it is sent;
//! - a call's stream resumed (`GET` with the id of one of its events), read from its log
//!   until its answer. When the replica that runs it is gone, and the answer never will
//!   come, the client is answered with an error that says so.
//!
//! From 2025-11-25 on, each stream opens with an event that carries an id and no data, and
//! the time to wait before reconnecting (`retry`), so that even a stream that drops before
//! its first message is resumed where it began.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderName, header};
use axum::response::{IntoResponse, Response};
use serde_json::value::RawValue;
use tokio::sync::{mpsc, watch};
use tokio_util::sync::CancellationToken;

use mcp_runtime_core::method::Method;

use crate::server::jsonrpc::{self, Id};
use crate::server::sessions::{
    Event, EventId, EventKind, Events, GET_STREAM, SessionError, stream_owner,
};

/// How long a client waits before it reconnects a stream that dropped.
const RECONNECT: Duration = Duration::from_millis(500);

/// How often a reader looks at its log though nothing woke it: a wake-up lost while the
/// replicas' channel reconnected delays an event by this much at most.
const LOOK_EVERY: Duration = Duration::from_secs(2);

/// The first revision whose clients read an event without data.
const PRIMING_FROM: &str = "2025-11-25";

/// What a session's call stream is logged in.
pub(super) struct Logging {
    pub(super) events: Arc<Events>,
    pub(super) session: String,
    /// Whether the session's revision takes an event without data.
    pub(super) primes: bool,
}

impl Logging {
    pub(super) fn primes(revision: &str) -> bool {
        revision >= PRIMING_FROM
    }
}

/// An SSE event, as written on the stream.
pub(super) type SseEvent = Bytes;

/// The event `n` of `stream`, sending `data` (one line of JSON).
fn event(stream: &str, n: u64, data: &str) -> SseEvent {
    Bytes::from(format!(
        "id: {}\ndata: {data}\n\n",
        EventId::text(stream, n)
    ))
}

/// An event without id, sending `data` (one line of JSON).
fn unnamed(data: &str) -> SseEvent {
    Bytes::from(format!("data: {data}\n\n"))
}

/// The event that opens a stream at `n`: an id, the time to wait before reconnecting, and
/// an empty data field (which axum's events cannot write).
fn priming(stream: &str, n: u64) -> SseEvent {
    Bytes::from(format!(
        "id: {}\nretry: {}\ndata: \n\n",
        EventId::text(stream, n),
        RECONNECT.as_millis()
    ))
}

/// What keeps an idle stream open through proxies: a comment.
const KEEP_OPEN: &[u8] = b": keep open\n\n";

/// How long a stream may stay silent before it sends [`KEEP_OPEN`].
const KEEP_OPEN_EVERY: Duration = Duration::from_secs(15);

/// The response that sends `events` as an SSE stream, unbuffered by reverse proxies.
pub(super) fn sse<S>(events: S) -> Response
where
    S: futures_util::Stream<Item = Result<SseEvent, Infallible>> + Send + 'static,
{
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
            (HeaderName::from_static("x-accel-buffering"), "no"),
        ],
        Body::from_stream(events),
    )
        .into_response()
}

/// A call's messages, `(message, last)`, each added to a new log of `logging`'s session as
/// it comes, then sent with its id. The log is written whether or not the client still
/// reads, so that it finds the answer when it reconnects. When `close` is cancelled (the
/// tool ended the stream), what was sent is flushed and the stream ends; the messages that
/// follow go to the log alone, for the client to read when it reconnects.
pub(super) fn call_stream(
    messages: mpsc::Receiver<(String, bool)>,
    id: &Id,
    logging: Logging,
    close: Option<CancellationToken>,
) -> Response {
    let stream = logging.events.call_stream();
    let request = format!(r#"{{"request":{}}}"#, id.written().unwrap_or("null"));
    let (out, sent) = mpsc::channel::<SseEvent>(64);
    let log = CallLog {
        logging,
        stream,
        out: Some(out),
    };
    tokio::spawn(log.run(request, messages, close));
    sse(futures_util::stream::unfold(sent, |mut sent| async move {
        let event = match tokio::time::timeout(KEEP_OPEN_EVERY, sent.recv()).await {
            Ok(event) => event?,
            Err(_) => Bytes::from_static(KEEP_OPEN),
        };
        Some((Ok(event), sent))
    }))
}

/// The log of a call's stream, and where its events go while the client reads it.
struct CallLog {
    logging: Logging,
    stream: String,
    /// `None` once the stream was ended.
    out: Option<mpsc::Sender<SseEvent>>,
}

impl CallLog {
    /// Logs the stream's opening (`request`, its call's id), then each of `messages`, and
    /// sends each until `close` is cancelled.
    async fn run(
        mut self,
        request: String,
        mut messages: mpsc::Receiver<(String, bool)>,
        mut close: Option<CancellationToken>,
    ) {
        match self.append(EventKind::Prime, &request).await {
            Ok(n) if self.logging.primes => self.try_send(priming(&self.stream, n)),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "a call's stream is not kept for resuming"),
        }
        loop {
            let received = match &close {
                Some(token) => tokio::select! {
                    biased;
                    received = messages.recv() => received,
                    () = token.cancelled() => {
                        // Its client resumes from the log, which the priming event named.
                        self.out = None;
                        close = None;
                        continue;
                    }
                },
                None => messages.recv().await,
            };
            let Some((message, last)) = received else {
                break;
            };
            self.log_and_send(message, last).await;
        }
    }

    /// Logs `message`, then sends it with its id if the stream is still open.
    async fn log_and_send(&self, message: String, last: bool) {
        let kind = if last {
            EventKind::Last
        } else {
            EventKind::Message
        };
        let logged = self.append(kind, &message).await;
        let Some(out) = &self.out else {
            if let Err(error) = logged {
                tracing::warn!(%error, "a call's message, sent after its stream ended, is lost");
            }
            return;
        };
        let sent_event = match logged {
            Ok(n) => event(&self.stream, n, &message),
            // Sent all the same: a message is not held back for want of its log.
            Err(error) => {
                tracing::warn!(%error, "a call's message is not kept for resuming");
                unnamed(&message)
            }
        };
        if last {
            let _ = out.send(sent_event).await;
        } else {
            // A client too slow to read loses progress here, and reads it from the log.
            let _ = out.try_send(sent_event);
        }
    }

    async fn append(&self, kind: EventKind, message: &str) -> Result<u64, SessionError> {
        let Logging {
            events, session, ..
        } = &self.logging;
        events.append(session, &self.stream, kind, message).await
    }

    fn try_send(&self, event: SseEvent) {
        if let Some(out) = &self.out {
            let _ = out.try_send(event);
        }
    }
}

/// What reads a stream's log for a client, from after the event it last received.
struct Reader {
    events: Arc<Events>,
    session: String,
    stream: String,
    after: u64,
    watcher: watch::Receiver<()>,
    /// Cancelled when the session ends.
    ended: CancellationToken,
    /// When the stream closes, its lifetime over, if it has one.
    closes: Option<tokio::time::Instant>,
    /// What lives as long as the client reads (the session's listener).
    _keep: Option<Box<dyn Send + Sync>>,
    /// The events read, not yet sent.
    ready: VecDeque<SseEvent>,
    /// Whether the call's answer is among them: the stream ends after it.
    done: bool,
    /// How long the stream has been silent.
    silent: Duration,
    /// Whether the log was just read, with the watcher made before: the first look waits
    /// for it to grow instead of reading it again.
    read: bool,
}

/// The log of `session`'s `GET` stream, read after `after`, until the session ends, the
/// client hangs up, or its `lifetime` is over; `keep` lives as long. A client that
/// reconnected after events it missed were dropped is first told that every list changed
/// (`missed`): reading them again catches it up.
pub(super) fn session_stream(
    (events, watcher): (Arc<Events>, watch::Receiver<()>),
    session: &str,
    start: Start,
    (primes, (ended, lifetime), keep): (
        bool,
        (CancellationToken, Option<Duration>),
        Box<dyn Send + Sync>,
    ),
) -> Response {
    let mut ready = VecDeque::new();
    if primes {
        ready.push_back(priming(GET_STREAM, start.after));
    }
    if start.missed {
        ready.extend(lists_changed().iter().map(|message| unnamed(message)));
    }
    let mut reader = Reader {
        events,
        session: session.to_owned(),
        stream: GET_STREAM.to_owned(),
        after: start.after,
        watcher,
        ended,
        closes: lifetime.map(|lifetime| tokio::time::Instant::now() + lifetime),
        _keep: Some(keep),
        ready,
        done: false,
        silent: Duration::ZERO,
        read: true,
    };
    reader.take(start.already);
    reader.respond()
}

/// Where a session's stream starts: after the event `after`, with the events the read that
/// found it gave after it (`already`), and whether events the client missed were dropped.
pub(super) struct Start {
    pub(super) after: u64,
    pub(super) missed: bool,
    pub(super) already: Vec<Event>,
}

/// A call's stream in `session`, resumed after the event `id` names: read from its log
/// until its answer; 404 when the log is no longer kept.
pub(super) async fn call_stream_resumed(
    events: Arc<Events>,
    session: &str,
    EventId { stream, n }: EventId,
) -> Response {
    // Watched before it is read: what is added after this read wakes the stream, which
    // need not read again what this read gave.
    let watcher = events.watch(session, &stream);
    let read = match events.read(session, &stream, Some(n)).await {
        Ok(Some(read)) => read,
        Ok(None) => {
            return (
                axum::http::StatusCode::NOT_FOUND,
                "the events of this stream are no longer kept (past their age or their \
                 count): send the request again",
            )
                .into_response();
        }
        Err(error) => return super::session::session_refusal(&error),
    };
    let mut reader = Reader {
        events,
        session: session.to_owned(),
        stream,
        after: n,
        watcher,
        ended: CancellationToken::new(),
        closes: None,
        _keep: None,
        ready: VecDeque::new(),
        done: false,
        silent: Duration::ZERO,
        read: true,
    };
    reader.take(read.events);
    reader.respond()
}

/// Waits until `at`, or for ever.
async fn closing(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// `notifications/*/list_changed` for each list: what a session's stream sends when it
/// cannot send what it missed.
pub(super) fn lists_changed() -> Vec<String> {
    [
        Method::ToolsListChanged,
        Method::PromptsListChanged,
        Method::ResourcesListChanged,
    ]
    .iter()
    .map(|method| jsonrpc::notification(method, serde_json::json!({})))
    .collect()
}

impl Reader {
    fn respond(self) -> Response {
        sse(futures_util::stream::unfold(
            self,
            |mut reader| async move {
                loop {
                    if let Some(event) = reader.ready.pop_front() {
                        return Some((Ok::<_, Infallible>(event), reader));
                    }
                    if reader.done || !reader.fill().await {
                        return None;
                    }
                }
            },
        ))
    }

    fn is_call(&self) -> bool {
        self.stream != GET_STREAM
    }

    /// Makes ready to send the events `logged`, read from the log after the last taken,
    /// through a call's answer.
    fn take(&mut self, logged: Vec<Event>) {
        for logged in logged {
            self.after = logged.n;
            match logged.kind {
                EventKind::Prime => {}
                EventKind::Message => {
                    self.ready
                        .push_back(event(&self.stream, logged.n, &logged.data));
                }
                EventKind::Last => {
                    self.ready
                        .push_back(event(&self.stream, logged.n, &logged.data));
                    self.done = true;
                    break;
                }
            }
        }
    }

    /// Reads what follows in the log, or waits until it may have grown; false once the
    /// session ended, or the stream's lifetime is over.
    async fn fill(&mut self) -> bool {
        // A log just read, and watched since, is not read again until it grows.
        if !std::mem::take(&mut self.read) && self.look().await {
            return true;
        }
        tokio::select! {
            _ = self.watcher.changed() => {}
            () = self.ended.cancelled() => return false,
            () = closing(self.closes) => return false,
            () = tokio::time::sleep(LOOK_EVERY) => {
                if self.is_call() {
                    self.answer_if_abandoned().await;
                }
                self.silent += LOOK_EVERY;
                if self.silent >= KEEP_OPEN_EVERY {
                    self.ready.push_back(Bytes::from_static(KEEP_OPEN));
                }
            }
        }
        true
    }

    /// Reads what follows in the log: true when there is something to send, or the stream
    /// is done.
    async fn look(&mut self) -> bool {
        match self
            .events
            .read(&self.session, &self.stream, Some(self.after))
            .await
        {
            Ok(Some(read)) => {
                if read.lost && !self.is_call() {
                    self.ready
                        .extend(lists_changed().iter().map(|message| unnamed(message)));
                }
                if read.last < self.after {
                    // The log began again: all it holds is new.
                    self.after = 0;
                    return true;
                }
                self.take(read.events);
                !self.ready.is_empty() || self.done
            }
            // A call's log gone: its events outlived their age. A session's: nothing new.
            Ok(None) if self.is_call() => {
                self.done = true;
                true
            }
            Ok(None) => false,
            Err(error) => {
                tracing::warn!(%error, "a stream's events cannot be read yet");
                false
            }
        }
    }

    /// Answers the call with an error when the replica that ran it is gone and never
    /// answered: the client would wait for ever.
    async fn answer_if_abandoned(&self) {
        if self.events.alive(stream_owner(&self.stream)).await {
            return;
        }
        let Ok(Some(read)) = self.events.read(&self.session, &self.stream, Some(0)).await else {
            return;
        };
        if read
            .events
            .iter()
            .any(|logged| logged.kind == EventKind::Last)
        {
            return;
        }
        #[derive(serde::Deserialize)]
        struct Prime {
            request: Box<RawValue>,
        }
        let id = read
            .events
            .iter()
            .find(|logged| logged.kind == EventKind::Prime)
            .and_then(|logged| serde_json::from_str::<Prime>(&logged.data).ok())
            .and_then(|prime| Id::of(&prime.request))
            .unwrap_or(Id::NONE);
        let answer = jsonrpc::error_response(
            &id,
            crate::server::INTERNAL_ERROR,
            "the server replica that ran this call stopped before it answered: whether the \
             call took effect is not known",
            None,
        );
        if let Err(error) = self
            .events
            .append(&self.session, &self.stream, EventKind::Last, &answer)
            .await
        {
            tracing::warn!(%error, "an abandoned call could not be answered yet");
        }
    }
}
