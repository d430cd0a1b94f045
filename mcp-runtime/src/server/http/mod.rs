//! The streamable HTTP transport, on axum: `POST /mcp` carries one JSON-RPC message.
//!
//! A request is answered with `application/json`, or with an SSE stream
//! (`text/event-stream`) when it is a call that may notify before its answer (it carries a
//! `progressToken`, or its client asked for log messages) and the client accepts one: the
//! notifications, then the answer. Notifications and responses get 202. No state is kept
//! per connection, so several processes behind an ordinary load balancer serve one tool
//! set. A stateful `initialize` (2025-06-18, 2025-11-25) is answered with an
//! `Mcp-Session-Id`, as clients of those revisions expect; no request is refused for
//! carrying another one, or none. What is kept by session id, in the process that took the
//! requests, is the log level a session set, the capabilities it declared, and the
//! resources it subscribed to; `GET /mcp` with a session id opens the session's stream of
//! notifications (list changes, updates of those resources).
//!
//! At most [`MAX_IN_FLIGHT`] requests are handled at once; further ones wait, their
//! connections held, which slows a flooding client instead of queueing without bound.
//!
//! Guards, in order: an `Origin` that is not allowed (DNS rebinding) gets 403; a missing or
//! wrong bearer token, when one is configured, 401; a client past its rate limit, when one
//! is configured ([`RateLimitConfig`]), 429 with `Retry-After`. These are answered before
//! the body is read. Then a body over the limit gets 413 once it has been read up to the
//! limit, so that a client that sends its whole body before reading the answer gets the
//! 413, not a reset connection.
//!
//! Each request is logged as one line, at `info` on the target [`REQUEST_TARGET`]: the HTTP
//! method and path, the JSON-RPC method and the tool it calls, if any, the status and the
//! time it took until its response began.
//!
//! The body read, a request is admitted with its id known, so that every refusal carries
//! it: an unsupported `MCP-Protocol-Version` gets 400 at every revision. At 2026-07-28 a
//! request whose `_meta`, mirrored headers (`MCP-Protocol-Version`, `Mcp-Method`,
//! `Mcp-Name`, `Mcp-Param-*`) or client capabilities are not as the revision asks gets 400,
//! and a method the revision does not have 404.

use std::convert::Infallible;
use std::io;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, FromRequest, Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use mcp_runtime_core::method::Method;
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

mod limit;

use super::jsonrpc::{Id, Incoming};
use super::listen::Listen;
use super::stateless::{Mirrored, Status};
use super::{MAX_IN_FLIGHT, Notifier, PendingCall, Server, Step};
use limit::{ClientLimiter, rate_limited};
pub use limit::{ParseRateLimitError, RATE_LIMITED, RateLimitConfig};

/// The `tracing` target of the line each HTTP request is logged with, at `info`.
pub const REQUEST_TARGET: &str = "mcp_runtime::http";

/// How the HTTP transport guards its endpoint.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// A bearer token every request must carry in `Authorization`; none by default.
    pub token: Option<String>,
    /// Access tokens from an OAuth authorization server, checked on every request; none by
    /// default. With it, the server publishes its protected resource metadata, and tools
    /// see who calls ([`ToolContext::auth`](crate::ToolContext::auth)).
    #[cfg(feature = "oauth")]
    pub oauth: Option<super::OAuthConfig>,
    /// Origins allowed besides loopback ones (`http://localhost:…`, `http://127.0.0.1:…`,
    /// `http://[::1]:…`), e.g. `https://app.example.com`.
    pub allowed_origins: Vec<String>,
    /// The largest request body accepted, in bytes; 4 MiB by default.
    pub body_limit: usize,
    /// How many requests each client may make, counted by IP address; none by default.
    ///
    /// Off by default because the address is not always the client: behind a reverse proxy
    /// or a load balancer every request comes from the proxy's address, and a limit would
    /// throttle all clients together; on the default loopback address the one client is
    /// the local user. Set it when clients reach the server directly.
    pub rate_limit: Option<RateLimitConfig>,
}

impl HttpConfig {
    /// Whether every request must carry credentials: a bearer token, or an access token.
    pub(crate) fn requires_credentials(&self) -> bool {
        #[cfg(feature = "oauth")]
        if self.oauth.is_some() {
            return true;
        }
        self.token.is_some()
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            token: None,
            #[cfg(feature = "oauth")]
            oauth: None,
            allowed_origins: Vec::new(),
            body_limit: 4 * 1024 * 1024,
            rate_limit: None,
        }
    }
}

struct HttpState {
    server: Arc<Server>,
    config: HttpConfig,
    /// Requests handled at once; more wait for a place, their connections held.
    in_flight: Arc<Semaphore>,
    limiter: Option<ClientLimiter>,
    /// The log levels the handshake's sessions set.
    sessions: super::sessions::Sessions,
    /// The checks of OAuth access tokens, when the server takes them.
    #[cfg(feature = "oauth")]
    verifier: Option<Arc<super::oauth::Verifier>>,
}

/// The axum router serving `server` at `/mcp`.
///
/// A rate limit needs the client's address: serve the router with
/// [`Router::into_make_service_with_connect_info::<SocketAddr>`](Router::into_make_service_with_connect_info),
/// as [`serve_http`] does. Without it, every request counts against one shared allowance.
pub fn router(server: Arc<Server>, config: HttpConfig) -> Router {
    let body_limit = config.body_limit;
    #[cfg(feature = "oauth")]
    let verifier = config
        .oauth
        .clone()
        .map(|oauth| Arc::new(super::oauth::Verifier::new(oauth)));
    let state = Arc::new(HttpState {
        server,
        limiter: config.rate_limit.map(ClientLimiter::new),
        config,
        in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
        sessions: super::sessions::Sessions::default(),
        #[cfg(feature = "oauth")]
        verifier,
    });
    #[allow(unused_mut)]
    let mut router = Router::new().route("/mcp", post(post_mcp).get(get_mcp).delete(no_stream));
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &state.verifier {
        router = verifier.routes(router);
    }
    router
        .layer(DefaultBodyLimit::max(body_limit))
        // The guards answer before the body is read, or its limit checked; the same layer
        // logs every request, those the guards refuse too.
        .layer(middleware::from_fn_with_state(Arc::clone(&state), guard))
        .with_state(state)
}

/// What a `POST` carried, for its line in the log.
#[derive(Clone)]
struct Carried {
    method: String,
    tool: Option<String>,
}

impl Carried {
    /// What `incoming` carries, when requests are logged.
    fn of(incoming: &Incoming) -> Option<Self> {
        if !tracing::enabled!(target: REQUEST_TARGET, tracing::Level::INFO) {
            return None;
        }
        let (method, tool) = match incoming {
            // A call without a name logs none.
            Incoming::Call { params, .. } => (
                Method::ToolsCall.as_str(),
                params.name.as_ref().map(|name| match name {
                    Value::String(name) => name.clone(),
                    other => other.to_string(),
                }),
            ),
            Incoming::Request { method, .. } | Incoming::Notification { method, .. } => {
                (method.as_str(), None)
            }
            Incoming::Cancelled { .. } => (Method::Cancelled.as_str(), None),
            Incoming::Response { .. } => ("(response)", None),
        };
        Some(Self {
            method: method.to_owned(),
            tool,
        })
    }

    /// `response`, carrying what its request carried for the log.
    fn mark(carried: Option<Self>, mut response: Response) -> Response {
        if let Some(carried) = carried {
            response.extensions_mut().insert(carried);
        }
        response
    }
}

/// The guards of every request, before its body is read ([`guarded`]), and its one line in
/// the log: what it asked, its status and how long it took. One layer does both, as each
/// layer costs every request a future of its own.
async fn guard(State(state): State<Arc<HttpState>>, request: Request, next: Next) -> Response {
    if !tracing::enabled!(target: REQUEST_TARGET, tracing::Level::INFO) {
        return guarded(&state, request, next).await;
    }
    let started = Instant::now();
    let http_method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = guarded(&state, request, next).await;
    let carried = response.extensions().get::<Carried>();
    tracing::info!(
        target: REQUEST_TARGET,
        method = carried.map(|carried| tracing::field::display(&carried.method)),
        tool = carried
            .and_then(|carried| carried.tool.as_deref())
            .map(tracing::field::display),
        status = response.status().as_u16(),
        latency = ?started.elapsed(),
        "{http_method} {path}",
    );
    response
}

/// Serves `server` over HTTP on `address` until the process is asked to stop (Ctrl-C or
/// SIGTERM); requests in flight are answered first. `bound` is told the address bound
/// (useful with port 0).
pub async fn serve_http(
    server: Arc<Server>,
    address: SocketAddr,
    config: HttpConfig,
    bound: impl FnOnce(SocketAddr),
) -> io::Result<()> {
    let listener = tokio::net::TcpListener::bind(address).await?;
    bound(listener.local_addr()?);
    let service = router(server, config).into_make_service_with_connect_info::<SocketAddr>();
    axum::serve(listener, service)
        .with_graceful_shutdown(super::stop_signal())
        .await
}

/// The guards of every request, before its body is read.
#[allow(unused_mut)]
async fn guarded(state: &HttpState, mut request: Request, next: Next) -> Response {
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |ConnectInfo(peer)| {
            peer.ip()
        });
    if let Some(refusal) = state.guard(request.headers(), client) {
        return before_the_body(&request, refusal);
    }
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &state.verifier {
        if let Some(refusal) = verifier.admit(&mut request).await {
            return before_the_body(&request, refusal);
        }
    }
    next.run(request).await
}

/// `refusal`, the answer to `request` given before its body is read. The server closes an
/// HTTP/1 connection whose request body is left unread, unannounced: a client that sent
/// its next request on it, such as an OAuth client fetching the metadata after a 401,
/// would lose it. So the answer says `Connection: close` when the request has a body.
fn before_the_body(request: &Request, mut refusal: Response) -> Response {
    let headers = request.headers();
    let has_body = headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .is_some_and(|length| length.as_bytes() != b"0");
    if has_body && request.version() <= axum::http::Version::HTTP_11 {
        refusal
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
    }
    refusal
}

/// A session's stream of notifications (the handshake's revisions): the changes of the
/// lists, and updates of the resources the session subscribed to, as SSE events, until the
/// client hangs up. A request without a session id gets no stream.
async fn get_mcp(State(state): State<Arc<HttpState>>, headers: HeaderMap) -> Response {
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
async fn no_stream() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, HeaderValue::from_static("POST"))],
        "this server answers POST /mcp only",
    )
        .into_response()
}

async fn post_mcp(State(state): State<Arc<HttpState>>, request: Request) -> Response {
    // The headers and what this handler reads of the extensions are taken, not copied as
    // their extractors would; the body's limit reads the rest of the extensions.
    let (mut parts, body) = request.into_parts();
    let headers = std::mem::take(&mut parts.headers);
    let address = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(peer)| peer.ip());
    let auth = parts.extensions.get::<Arc<crate::AuthInfo>>().cloned();
    let body = match Bytes::from_request(Request::from_parts(parts, body), &state).await {
        Ok(body) => body,
        // Too large (413), or unreadable: said as a JSON-RPC error too.
        Err(rejection) => {
            let message = match rejection.status() {
                StatusCode::PAYLOAD_TOO_LARGE => format!(
                    "the request body is larger than the limit of {} bytes",
                    state.config.body_limit
                ),
                _ => format!(
                    "the request body could not be read: {}",
                    rejection.body_text()
                ),
            };
            let error =
                super::jsonrpc::error_response(&Id::NONE, super::INVALID_REQUEST, &message, None);
            return json_response(rejection.status(), error);
        }
    };
    // Request ids are the client's own: a cancellation reaches only calls from its address.
    let client = address.map_or_else(String::new, client_key);
    let incoming = match super::parse(&body) {
        Ok(incoming) => incoming,
        Err(refusal) => return json_response(StatusCode::BAD_REQUEST, refusal.into_response()),
    };
    let carried = Carried::of(&incoming);
    let response = answer(&state, auth, &headers, &client, incoming).await;
    Carried::mark(carried, response)
}

/// The answer to `incoming`, a message read from a `POST` by `client`.
async fn answer(
    state: &Arc<HttpState>,
    auth: Option<Arc<crate::AuthInfo>>,
    headers: &HeaderMap,
    client: &str,
    incoming: Incoming,
) -> Response {
    let mirrored = mirrored(headers);
    if !matches!(incoming, Incoming::Request { .. } | Incoming::Call { .. }) {
        // A notification or a response: nothing to answer, unless its version is unknown.
        if let Some(version) = mirrored
            .version
            .filter(|version| !super::PROTOCOL_VERSIONS.contains(version))
        {
            let fault = super::unsupported_version(&Value::String(version.to_owned()));
            return json_response(
                StatusCode::BAD_REQUEST,
                super::fault_response(&Id::NONE, fault),
            );
        }
        state
            .server
            .dispatch_for(
                incoming,
                None,
                &super::Peer {
                    client,
                    ..super::Peer::default()
                },
                None,
            )
            .await;
        return StatusCode::ACCEPTED.into_response();
    }
    // Backpressure: past MAX_IN_FLIGHT requests, the next waits here for a place.
    let Ok(permit) = Arc::clone(&state.in_flight).acquire_owned().await else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    // The handshake's sessions set a log level once, for the requests that follow.
    let session = headers
        .get(SESSION_ID)
        .and_then(|value| value.to_str().ok());
    if let (Some(session), Some(level)) = (session, super::sets_level(&incoming)) {
        state.sessions.set_log_level(session, level);
    }
    if let (Some(session), Some((uri, on))) = (session, super::subscribes(&incoming)) {
        state.sessions.subscribe(session, &uri, on);
    }
    let declared = super::declared_capabilities(&incoming);
    let known = session.and_then(|session| state.sessions.get(session));
    let peer = super::Peer {
        client,
        log_level: known.as_ref().and_then(|known| known.log_level),
        capabilities: known.and_then(|known| known.capabilities),
        auth,
        hide_unauthorized: state.hides_unauthorized(),
    };
    let pending = match state.server.begin_for(incoming, &peer, Some(&mirrored)) {
        Step::Answered(Some(answer)) if !answer.scopes_needed.is_empty() => {
            return insufficient_scope(state, answer);
        }
        Step::Answered(Some(answer)) => {
            let status = match answer.status {
                Status::Ok => StatusCode::OK,
                Status::BadRequest => StatusCode::BAD_REQUEST,
                Status::NotFound => StatusCode::NOT_FOUND,
            };
            let mut response = json_response(status, answer.text);
            if answer.opens_session {
                if let Some(session) = session_id() {
                    if let (Some(capabilities), Ok(id)) = (declared, session.to_str()) {
                        state.sessions.set_capabilities(id, capabilities);
                    }
                    response.headers_mut().insert(SESSION_ID, session);
                }
            }
            return response;
        }
        Step::Answered(None) => return StatusCode::ACCEPTED.into_response(),
        // A listen stream lasts as long as the client keeps it: it takes no place among
        // the requests handled at once.
        Step::Listen(listen) => return listen_stream(&state.server, &listen, client),
        Step::Await(awaiting) => {
            let _permit = permit;
            let answer = state.server.finish_awaiting(awaiting).await;
            return json_response(StatusCode::OK, answer);
        }
        Step::Call(pending) => pending,
    };
    if pending.reports() && accepts(headers, "text/event-stream") {
        return progress_stream(Arc::clone(&state.server), pending, permit);
    }
    let _permit = permit;
    match state.server.finish(pending, None).await {
        Some(answer) => json_response(StatusCode::OK, answer),
        // A call the client cancelled: nothing to answer.
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// The client's address as its requests are keyed by: an IPv4 address is written without
/// the formatting machinery, which would cost each request more than its tool.
fn client_key(address: IpAddr) -> String {
    let IpAddr::V4(address) = address else {
        return address.to_string();
    };
    let mut key = String::with_capacity(15);
    for (place, octet) in address.octets().into_iter().enumerate() {
        if place > 0 {
            key.push('.');
        }
        if octet >= 100 {
            key.push(char::from(b'0' + octet / 100));
        }
        if octet >= 10 {
            key.push(char::from(b'0' + octet / 10 % 10));
        }
        key.push(char::from(b'0' + octet % 10));
    }
    key
}

/// 403 for a caller without every scope a request needs, with the challenge that names
/// them (RFC 6750 §3.1), so that its client can ask for them.
fn insufficient_scope(state: &HttpState, answer: super::Answer) -> Response {
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &state.verifier {
        return verifier.insufficient_scope(answer.scopes_needed);
    }
    let _ = state;
    json_response(StatusCode::FORBIDDEN, answer.text)
}

/// The header of the session id the handshake's streamable HTTP may assign at `initialize`.
const SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// A new session id: 128 random bits, in hex, which the client echoes. Any process behind
/// a load balancer takes any request, with the id or without it, and none is ever refused
/// for it; only a log level is kept by it.
fn session_id() -> Option<HeaderValue> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
    HeaderValue::from_str(&hex).ok()
}

/// What a request mirrors from its body into headers (2026-07-28): read, not yet checked.
fn mirrored(headers: &HeaderMap) -> Mirrored<'_> {
    // Names made once: a name given as text is checked and lowered at every look-up.
    const VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");
    const METHOD: HeaderName = HeaderName::from_static("mcp-method");
    const NAME: HeaderName = HeaderName::from_static("mcp-name");
    let text = |name: &HeaderName| headers.get(name).and_then(|value| value.to_str().ok());
    Mirrored {
        version: text(&VERSION),
        method: text(&METHOD),
        name: text(&NAME),
        params: headers
            .iter()
            .filter_map(|(name, value)| {
                // Header names arrive in lower case.
                let param = name.as_str().strip_prefix("mcp-param-")?;
                Some((param, value.to_str().ok()))
            })
            .collect(),
    }
}

impl HttpState {
    /// Whether listings show each caller only what its scopes let it use.
    fn hides_unauthorized(&self) -> bool {
        #[cfg(feature = "oauth")]
        if let Some(verifier) = &self.verifier {
            return verifier.hides_unauthorized();
        }
        false
    }

    fn guard(&self, headers: &HeaderMap, client: IpAddr) -> Option<Response> {
        if let Some(origin) = headers.get(header::ORIGIN) {
            let allowed = origin.to_str().is_ok_and(|origin| {
                is_loopback_origin(origin)
                    || self.config.allowed_origins.iter().any(|o| o == origin)
            });
            if !allowed {
                return Some((StatusCode::FORBIDDEN, "this origin is not allowed").into_response());
            }
        }
        if let Some(token) = &self.config.token {
            let presented = bearer(
                headers
                    .get(header::AUTHORIZATION)
                    .and_then(|value| value.to_str().ok()),
            );
            if !presented.is_some_and(|presented| same_secret(presented, token)) {
                return Some(
                    (
                        StatusCode::UNAUTHORIZED,
                        [(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"))],
                        "a valid bearer token is required",
                    )
                        .into_response(),
                );
            }
        }
        if let Some(limiter) = &self.limiter {
            if let Err(wait) = limiter.check(client) {
                return Some(rate_limited(&limiter.config, wait));
            }
        }
        None
    }
}

/// The token of an `Authorization: Bearer …` header; the scheme's name in any case, as
/// RFC 9110 has it.
pub(crate) fn bearer(authorization: Option<&str>) -> Option<&str> {
    let (scheme, token) = authorization?.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Whether the token `presented` is `expected`, in a time that does not tell how much of
/// it matched.
fn same_secret(presented: &str, expected: &str) -> bool {
    let (presented, expected) = (presented.as_bytes(), expected.as_bytes());
    let difference = presented
        .iter()
        .zip(expected)
        .fold(0u8, |difference, (a, b)| difference | (a ^ b));
    presented.len() == expected.len() && std::hint::black_box(difference) == 0
}

/// `http://localhost:…`, `http://127.0.0.1:…`, `http://[::1]:…` (any scheme, any port).
fn is_loopback_origin(origin: &str) -> bool {
    let Some((_, rest)) = origin.split_once("://") else {
        return false;
    };
    let host = match rest.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => rest.split([':', '/']).next().unwrap_or_default(),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1")
}

fn accepts(headers: &HeaderMap, media_type: &str) -> bool {
    headers
        .get_all(header::ACCEPT)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .any(|value| {
            value
                .split(',')
                .any(|part| part.trim().starts_with(media_type))
        })
}

pub(crate) fn json_response(status: StatusCode, body: String) -> Response {
    (
        status,
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        )],
        body,
    )
        .into_response()
}

/// A `subscriptions/listen` stream: its acknowledgement, then the changes it asked for, as
/// SSE events, with a comment every so often to keep idle connections open. It ends when
/// the client hangs up.
fn listen_stream(server: &Server, listen: &Listen, client: &str) -> Response {
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
fn progress_stream(
    server: Arc<Server>,
    pending: Box<PendingCall>,
    permit: OwnedSemaphorePermit,
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
        if let Some(answer) = server.finish(pending, Some(notify)).await {
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

#[cfg(test)]
mod tests {
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
            assert_eq!(client_key(address), address.to_string());
        }
        let v6 = "2001:db8::1".parse().unwrap();
        assert_eq!(client_key(v6), "2001:db8::1");
    }

    #[test]
    fn loopback_origins_are_told_from_others() {
        for origin in [
            "http://localhost:6274",
            "http://127.0.0.1",
            "https://[::1]:8080",
            "http://localhost",
        ] {
            assert!(is_loopback_origin(origin), "{origin}");
        }
        for origin in [
            "http://evil.example",
            "http://localhost.evil.example",
            "null",
            "http://127.0.0.2",
        ] {
            assert!(!is_loopback_origin(origin), "{origin}");
        }
    }

    #[test]
    fn tokens_are_compared_whole() {
        assert!(same_secret("s3cret", "s3cret"));
        for wrong in ["", "s3cre", "s3cret ", "S3cret", "s3creT"] {
            assert!(!same_secret(wrong, "s3cret"), "{wrong}");
        }
    }

    #[test]
    fn the_bearer_scheme_is_matched_in_any_case_and_a_token_is_required() {
        assert_eq!(bearer(Some("Bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("bearer abc")), Some("abc"));
        assert_eq!(bearer(Some("BEARER  abc ")), Some("abc"));
        assert_eq!(bearer(Some("Basic abc")), None);
        assert_eq!(bearer(Some("Bearer ")), None);
        assert_eq!(bearer(Some("Bearer")), None);
        assert_eq!(bearer(None), None);
    }
}
