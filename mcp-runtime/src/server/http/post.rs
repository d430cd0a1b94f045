//! `POST /mcp`: one JSON-RPC message, read within the body's limit, admitted with its id
//! known, and answered: with `application/json`, with an SSE stream for a call that may
//! notify before its answer, or with 202 for a notification or a response.

use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Request};
use axum::handler::Handler;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures_util::future::{BoxFuture, Either};
use mcp_runtime_core::LoggingLevel;
use serde_json::Value;

use super::headers::{SESSION_ID, accepts, mirrored_and_session, session_id};
use super::logged::Logging;
use super::reply::json_response;
use super::session::{session_not_found, session_refusal};
use super::sse::{listen_stream, progress_stream};
use super::{Carried, HttpState};
use crate::auth::{AuthInfo, Caller};
use crate::server::admission::{Admitted, Busy};
use crate::server::fault::Status;
use crate::server::jsonrpc::{Id, Incoming};
use crate::server::sessions::{Change, SessionRecord};
use crate::server::stateless::Mirrored;
use crate::server::{Answer, Opening, Peer, PendingCall, Step, observe};
use crate::telemetry::{ServerOperation, Transport};

/// The handler of `POST /mcp`: its body read within the limit, its message parsed and
/// answered, and what it carried marked on the response for its line in the log.
///
/// A handler of its own rather than a function's: axum's handler for a function splits
/// each request into its head and body for the extractors, puts it together again, and
/// boxes a future around the function's, which this one does not need.
#[derive(Clone, Copy)]
pub(super) struct PostMcp;

impl Handler<PostMcp, Arc<HttpState>> for PostMcp {
    type Future = BoxFuture<'static, Response>;

    fn call(self, request: Request, state: Arc<HttpState>) -> Self::Future {
        match super::guard::admitted(state, request, post) {
            Either::Left(future) => Box::pin(future),
            Either::Right(boxed) => boxed,
        }
    }
}

/// A `POST /mcp` the guards admitted. The request is taken apart before its future is made:
/// the future holds what it reads of it (the headers, the client's address and access),
/// not the request and its head besides, as an `async fn` taking the request would.
fn post(state: Arc<HttpState>, request: Request) -> impl Future<Output = Response> {
    // The headers and what this handler reads of the extensions are taken, not copied as
    // their extractors would.
    let (mut parts, body) = request.into_parts();
    let headers = std::mem::take(&mut parts.headers);
    let address = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    let auth = parts.extensions.get::<Arc<AuthInfo>>().cloned();
    // The rest of the head is not held while the body is read.
    drop(parts);
    async move {
        let body = match read_body(body, state.config.body_limit).await {
            Ok(body) => body,
            // Too large (413), too slow (408), or unreadable (400): said as a JSON-RPC
            // error too.
            Err((status, message)) => {
                let error = crate::server::jsonrpc::error_response(
                    &Id::NONE,
                    crate::server::INVALID_REQUEST,
                    &message,
                    None,
                );
                return json_response(status, error);
            }
        };
        // Request ids are the client's own: a cancellation reaches only calls from its
        // address.
        let client = ClientKey::of(address);
        // The message is moved into its answer, not held while it is awaited.
        let (carried, answering) = match crate::server::parse(&body) {
            Ok(incoming) => (
                Carried::of(&incoming),
                answer(&state, auth, &headers, client.as_str(), incoming),
            ),
            Err(refusal) => {
                return json_response(StatusCode::BAD_REQUEST, refusal.into_response());
            }
        };
        let response = match answering {
            Answering::Now(response) => response,
            Answering::Later(future) => future.await,
        };
        Carried::mark(carried, response)
    }
}

/// How long a request's body may take to arrive once its headers have: a client that sends
/// it a byte at a time, or never ends it, is answered 408 and its connection closed, rather
/// than holding them for ever. (The headers have their own timeout:
/// [`super::serve::HEADER_READ_TIMEOUT`].)
pub(super) const BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// The body of a request, read whole when it is at most `limit` bytes and arrives within
/// [`BODY_READ_TIMEOUT`]; else its status, 413, 408 or 400, and what was wrong. What a
/// client sent up to the limit is read, so that it is not cut off mid-write and gets the
/// answer. (Read here rather than under a body-limit layer, which would cost every request a
/// service cloned and a future boxed.)
async fn read_body(body: axum::body::Body, limit: usize) -> Result<Bytes, (StatusCode, String)> {
    let too_large = || {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("the request body is larger than the limit of {limit} bytes"),
        )
    };
    // A body that came with its headers is read at once, with no timer made for it.
    let mut reading = std::pin::pin!(axum::body::to_bytes(body, limit));
    let at_once = std::future::poll_fn(|cx| Poll::Ready(reading.as_mut().poll(cx))).await;
    let read = match at_once {
        Poll::Ready(read) => Ok(read),
        Poll::Pending => tokio::time::timeout(BODY_READ_TIMEOUT, reading).await,
    };
    let Ok(read) = read else {
        return Err((
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "the request body did not arrive within {} s of its headers",
                BODY_READ_TIMEOUT.as_secs()
            ),
        ));
    };
    read.map_err(|error| {
        let past_limit = std::error::Error::source(&error)
            .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
        if past_limit {
            too_large()
        } else {
            (
                StatusCode::BAD_REQUEST,
                format!("the request body could not be read: {error}"),
            )
        }
    })
}

/// How a request is answered: at once, or by a future, boxed. Most calls without a
/// session need nothing awaited; the handler's future, moved whole through every layer
/// around it, would otherwise hold the largest of the others' and copy it at each move.
enum Answering<'a> {
    Now(Response),
    Later(Pin<Box<dyn Future<Output = Response> + Send + 'a>>),
}

impl<'a> Answering<'a> {
    fn later(future: impl Future<Output = Response> + Send + 'a) -> Self {
        Self::Later(Box::pin(future))
    }
}

/// The answer to `incoming`, a message read from a `POST` by `client`.
fn answer<'a>(
    state: &'a Arc<HttpState>,
    auth: Option<Arc<AuthInfo>>,
    headers: &'a HeaderMap,
    client: &'a str,
    incoming: Incoming,
) -> Answering<'a> {
    let (mirrored, named) = mirrored_and_session(headers);
    let opening = crate::server::opening(&incoming);
    let message = Message {
        incoming,
        mirrored,
        opening,
    };
    // The session a message names must be open, and its caller's; an `initialize` opens a
    // new one whatever it names.
    let Some(id) = named.filter(|_| message.opening.is_none()) else {
        return answer_in(state, auth, headers, client, message, None);
    };
    if let Some(found) = state.sessions.load_now(id) {
        return match super::session::admitted(found, auth.as_deref()) {
            Ok(record) => answer_in(state, auth, headers, client, message, Some((id, record))),
            Err(refused) => Answering::Now(refused.response()),
        };
    }
    Answering::later(async move {
        let record = match super::session::open_session(state, id, auth.as_deref()).await {
            Ok(record) => record,
            Err(refusal) => return refusal,
        };
        match answer_in(state, auth, headers, client, message, Some((id, record))) {
            Answering::Now(response) => response,
            Answering::Later(future) => future.await,
        }
    })
}

/// A message as read, with what its headers and its method say of it.
struct Message<'a> {
    incoming: Incoming,
    mirrored: Mirrored<'a>,
    opening: Option<Opening>,
}

/// The answer to `message` from `client`, in `session` when it names one.
fn answer_in<'a>(
    state: &'a Arc<HttpState>,
    auth: Option<Arc<AuthInfo>>,
    headers: &'a HeaderMap,
    client: &'a str,
    Message {
        incoming,
        mirrored,
        opening,
    }: Message<'a>,
    session: Option<(&'a str, Arc<SessionRecord>)>,
) -> Answering<'a> {
    if !matches!(incoming, Incoming::Request { .. } | Incoming::Call { .. }) {
        return Answering::later(take_unanswered(state, client, incoming, mirrored));
    }
    let change = session.as_ref().and_then(|_| change_of(&incoming));
    let peer = peer(state, session.as_ref(), client, auth.clone());
    // The session's id and revision, for a call's stream that is logged.
    let logged = session
        .as_ref()
        .map(|(id, record)| (*id, Logging::primes(&record.revision)));
    let session = session.map(|(id, _)| id);
    let operation = observe::begin(&incoming, Transport::Tcp, session, Some(&mirrored), None);
    let pending = match state.server.begin_for(incoming, &peer, Some(&mirrored)) {
        Step::Answered(Some(answer)) => {
            observe::answered(operation, &answer);
            let settled = Settled {
                session,
                change,
                opening,
            };
            // Most answers need nothing more: they are sent as they are.
            if settled.is_plain(&answer) {
                return Answering::Now(answered(answer));
            }
            return Answering::later(async move {
                settle(state, answer, settled, auth.as_deref(), client).await
            });
        }
        Step::Answered(None) => {
            observe::end(operation, None);
            return Answering::Now(StatusCode::ACCEPTED.into_response());
        }
        // A listen stream lasts as long as the client keeps it: it takes no place among
        // the requests handled at once.
        Step::Listen(listen) => {
            observe::succeeded(operation);
            return Answering::Now(listen_stream(
                &state.server,
                (&listen, client),
                state.streams.until_stop(),
            ));
        }
        Step::Await(awaiting) => return Answering::later(awaited(state, awaiting, operation)),
        Step::Call(pending) => pending,
    };
    let permit = match state.server.admit(None) {
        Ok(permit) => permit,
        Err(busy) => return Answering::Now(busy_response(&pending.id, busy, operation)),
    };
    let logging = logged.map(|(session, primes)| Logging {
        events: Arc::clone(state.sessions.events()),
        session: session.to_owned(),
        primes,
    });
    Answering::later(run_call(
        state,
        pending,
        headers,
        (permit, operation),
        logging,
    ))
}

/// What an answered request's response still depends on: the session it named, what it
/// changes of it, and the session it opens.
struct Settled<'a> {
    session: Option<&'a str>,
    change: Option<SessionChange>,
    opening: Option<Opening>,
}

impl Settled<'_> {
    /// Whether `answer` is sent as it is: no scope refused, no change to keep, no session
    /// opened (what [`settle`] does otherwise).
    fn is_plain(&self, answer: &Answer) -> bool {
        answer.scopes_needed.is_empty()
            && self.change.is_none()
            && !(self.opening.is_some() && answer.opens_session)
    }
}

/// The response to a request answered at once that needs more than its text sent (boxed
/// by its caller, which sends the others at once): refused for want of scopes, or with the
/// change it made kept in its session (a subscription the server refused, to a resource the
/// caller may not read, is not kept), or the session it opened.
async fn settle(
    state: &HttpState,
    answer: Answer,
    settled: Settled<'_>,
    auth: Option<&AuthInfo>,
    client: &str,
) -> Response {
    if !answer.scopes_needed.is_empty() {
        return insufficient_scope(state, answer);
    }
    if let (Some(session), Some(change)) = (settled.session, settled.change) {
        if let Err(refusal) = keep(state, session, change.as_change()).await {
            return refusal;
        }
    }
    // Only an `initialize` opens a session, and awaits its store.
    match settled.opening.filter(|_| answer.opens_session) {
        Some(opening) => open_new(state, answer, opening, auth, client).await,
        None => answered(answer),
    }
}

/// A request that awaits: it takes a place among the requests in flight, or is refused at
/// once past the server's bound, so that a flood gets answers, not a queue.
async fn awaited(
    state: &HttpState,
    awaiting: Box<crate::server::catalog::Awaiting>,
    operation: Option<ServerOperation>,
) -> Response {
    let _permit = match state.server.admit(None) {
        Ok(permit) => permit,
        Err(busy) => return busy_response(&awaiting.id, busy, operation),
    };
    let answer = observe::scoped(&operation, state.server.finish_awaiting(awaiting)).await;
    observe::end(operation, Some(&answer));
    json_response(StatusCode::OK, answer)
}

/// 503 for a request refused because the server has as many in flight as it takes, with
/// `Retry-After` and the JSON-RPC error that names the bound.
fn busy_response(id: &Id, busy: Busy, operation: Option<ServerOperation>) -> Response {
    let answer = crate::server::fault_response(id, busy.fault());
    observe::end(operation, Some(&answer));
    let mut response = json_response(StatusCode::SERVICE_UNAVAILABLE, answer);
    response.headers_mut().insert(
        axum::http::header::RETRY_AFTER,
        axum::http::HeaderValue::from(Busy::RETRY_AFTER_SECONDS),
    );
    response
}

/// A notification or a response, which gets 202 and no answer, unless its version is
/// unknown.
async fn take_unanswered(
    state: &HttpState,
    client: &str,
    incoming: Incoming,
    mirrored: Mirrored<'_>,
) -> Response {
    if let Some(version) = mirrored
        .version
        .filter(|version| !crate::server::PROTOCOL_VERSIONS.contains(version))
    {
        let fault = crate::server::unsupported_version(&Value::String(version.to_owned()));
        return json_response(
            StatusCode::BAD_REQUEST,
            crate::server::fault_response(&Id::NONE, fault),
        );
    }
    // A response to a request a tool of another replica sent goes on to that replica.
    if let Incoming::Response {
        id: Some(id),
        outcome,
    } = &incoming
    {
        if let Some(key) = id.as_string() {
            if !state.server.deliver_response(&key, outcome.clone()) {
                state.streams.relay_response(&key, outcome);
            }
            return StatusCode::ACCEPTED.into_response();
        }
    }
    state
        .server
        .dispatch_for(
            incoming,
            None,
            &Peer {
                client,
                ..Peer::default()
            },
            None,
        )
        .await;
    StatusCode::ACCEPTED.into_response()
}

/// What a request changes of its session, once the server accepted it.
enum SessionChange {
    Level(LoggingLevel),
    Subscribe(String, bool),
}

impl SessionChange {
    fn as_change(&self) -> Change<'_> {
        match self {
            Self::Level(level) => Change::Level(*level),
            Self::Subscribe(uri, on) => Change::Subscribe(uri, *on),
        }
    }
}

/// What `incoming` changes of its session: the log level it sets, or the resource it
/// subscribes to or unsubscribes from.
fn change_of(incoming: &Incoming) -> Option<SessionChange> {
    if let Some(level) = crate::server::sets_level(incoming) {
        return Some(SessionChange::Level(level));
    }
    crate::server::subscribes(incoming).map(|(uri, on)| SessionChange::Subscribe(uri, on))
}

/// Keeps `change` for `session`, and tells its stream here of a subscription.
async fn keep(state: &HttpState, session: &str, change: Change<'_>) -> Result<(), Response> {
    match state.sessions.change(session, change).await {
        Ok(true) => {
            match change {
                Change::Subscribe(uri, on) => state.streams.subscribe(session, uri, on),
                Change::Level(_) => state.streams.changed(session),
            }
            Ok(())
        }
        // Ended (on another replica, say) since this request found it.
        Ok(false) => Err(session_not_found()),
        Err(error) => Err(session_refusal(&error)),
    }
}

/// Who sends a request: `client`, with what its session keeps and its access token says.
fn peer<'a>(
    state: &HttpState,
    session: Option<&(&'a str, Arc<SessionRecord>)>,
    client: &'a str,
    auth: Option<Arc<AuthInfo>>,
) -> Peer<'a> {
    Peer {
        client,
        session: session.map(|(id, _)| *id),
        log_level: session.and_then(|(_, record)| record.log_level),
        capabilities: session.and_then(|(_, record)| record.capabilities.clone()),
        auth,
        hide_unauthorized: state.hides_unauthorized(),
    }
}

/// The response carrying `answer`, at its status.
fn answered(answer: Answer) -> Response {
    let status = match answer.status {
        Status::Ok => StatusCode::OK,
        Status::BadRequest => StatusCode::BAD_REQUEST,
        Status::NotFound => StatusCode::NOT_FOUND,
    };
    json_response(status, answer.text)
}

/// The response carrying `answer`, which opens a session: with a new session id, kept with
/// what its `initialize` declared, for `client` (as its access token's subject, if any).
async fn open_new(
    state: &HttpState,
    answer: Answer,
    opening: Opening,
    auth: Option<&AuthInfo>,
    client: &str,
) -> Response {
    let mut response = answered(answer);
    let Some(session) = session_id() else {
        return response;
    };
    let subject = auth.and_then(AuthInfo::subject).map(str::to_owned);
    let record = SessionRecord {
        revision: opening.revision.to_owned(),
        capabilities: opening.capabilities,
        client_info: opening.client_info,
        log_level: None,
        subscriptions: std::collections::BTreeSet::new(),
        client: match &subject {
            Some(subject) => Caller::Subject(subject.as_str().into()),
            None => Caller::Address(client.into()),
        }
        .key(),
        subject,
    };
    let id = session.to_str().unwrap_or_default();
    if let Err(error) = state.sessions.open(id, record).await {
        return session_refusal(&error);
    }
    response.headers_mut().insert(SESSION_ID, session);
    response
}

/// Runs a call, holding its place among the requests handled at once: its progress and
/// its answer as an SSE stream when it may report and the client takes one, else its
/// answer alone.
async fn run_call(
    state: &HttpState,
    pending: Box<PendingCall>,
    headers: &HeaderMap,
    (permit, operation): (Admitted, Option<ServerOperation>),
    logging: Option<Logging>,
) -> Response {
    if pending.reports() && accepts(headers, "text/event-stream") {
        return progress_stream(
            Arc::clone(&state.server),
            pending,
            (permit, operation),
            logging,
        );
    }
    let _permit = permit;
    let answer = observe::scoped(&operation, state.server.finish(pending, None)).await;
    observe::end(operation, answer.as_deref());
    match answer {
        Some(answer) => json_response(StatusCode::OK, answer),
        // A call the client cancelled: nothing to answer.
        None => StatusCode::ACCEPTED.into_response(),
    }
}
/// The client's address as its requests are keyed by, written on the stack: its text is
/// at most 45 bytes, and a copy on the heap would cost each request more than its tool. An
/// IPv4 address is written without the formatting machinery, for the same reason.
struct ClientKey {
    text: [u8; 45],
    len: usize,
}

impl ClientKey {
    /// The key of a client at `address`; empty when the address is not known.
    fn of(address: Option<IpAddr>) -> Self {
        let mut key = Self {
            text: [0; 45],
            len: 0,
        };
        match address {
            None => {}
            Some(IpAddr::V4(address)) => {
                for (place, octet) in address.octets().into_iter().enumerate() {
                    if place > 0 {
                        key.push(b'.');
                    }
                    if octet >= 100 {
                        key.push(b'0' + octet / 100);
                    }
                    if octet >= 10 {
                        key.push(b'0' + octet / 10 % 10);
                    }
                    key.push(b'0' + octet % 10);
                }
            }
            Some(address @ IpAddr::V6(_)) => {
                let mut rest = &mut key.text[..];
                // The longest text of an IPv6 address fits.
                if std::io::Write::write_fmt(&mut rest, format_args!("{address}")).is_ok() {
                    key.len = 45 - rest.len();
                }
            }
        }
        key
    }

    fn push(&mut self, byte: u8) {
        self.text[self.len] = byte;
        self.len += 1;
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.text[..self.len]).unwrap_or_default()
    }
}

/// 403 for a caller without every scope a request needs, with the challenge that names
/// them (RFC 6750 §3.1), so that its client can ask for them.
fn insufficient_scope(state: &HttpState, answer: Answer) -> Response {
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &state.verifier {
        return verifier.insufficient_scope(answer.scopes_needed);
    }
    let _ = state;
    json_response(StatusCode::FORBIDDEN, answer.text)
}

#[cfg(test)]
mod tests {
    use std::net::Ipv4Addr;

    use super::*;

    #[test]
    fn a_client_is_keyed_by_its_address_as_written() {
        let mut octets = [0u8, 1, 9, 10, 99, 100, 101, 199, 200, 255]
            .into_iter()
            .cycle();
        for _ in 0..200 {
            let address = IpAddr::V4(Ipv4Addr::new(
                octets.next().unwrap(),
                octets.nth(3).unwrap(),
                octets.nth(6).unwrap(),
                octets.next().unwrap(),
            ));
            assert_eq!(ClientKey::of(Some(address)).as_str(), address.to_string());
        }
        let v6 = "2001:db8::1".parse().unwrap();
        assert_eq!(ClientKey::of(Some(v6)).as_str(), "2001:db8::1");
        // The longest text an IPv6 address has.
        let longest: IpAddr = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255"
            .parse()
            .unwrap();
        let text = longest.to_string();
        assert_eq!(ClientKey::of(Some(longest)).as_str(), text);
        assert_eq!(ClientKey::of(None).as_str(), "");
    }
}

#[cfg(test)]
mod sizes {
    use super::*;

    /// A request's future is moved through every layer around the handler: each kilobyte it
    /// holds costs every request a kilobyte copied several times over (it was 15 KB, a
    /// third of a request's instructions, before what the fast path does not await was
    /// boxed).
    #[test]
    fn the_handlers_future_stays_small() {
        let server = Arc::new(crate::server::Server::new(
            crate::Registry::builder().build().unwrap(),
        ));
        let state = super::super::test_state(server);
        // What the handler boxes: the guards' answer, or the future that answers.
        let handler =
            super::super::guard::admitted(state, Request::new(axum::body::Body::empty()), post);
        let size = std::mem::size_of_val(&handler);
        assert!(size < 1024, "the handler's future takes {size} bytes");
    }
}
