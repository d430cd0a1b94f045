//! The streamable HTTP transport, on axum: `POST /mcp` carries one JSON-RPC message.
//!
//! A request is answered with `application/json`, or with an SSE stream
//! (`text/event-stream`) when it is a call that may notify before its answer (it carries a
//! `progressToken`, or its client asked for log messages) and the client accepts one: the
//! notifications, then the answer. Notifications and responses get 202. No state is kept
//! per connection. A stateful `initialize` (2025-06-18, 2025-11-25) is answered with an
//! `Mcp-Session-Id`, as clients of those revisions expect, and the session is kept in
//! [`HttpConfig::sessions`]: this process's memory, or Redis shared by every replica, so
//! that several processes behind an ordinary load balancer serve one session. A session
//! keeps the revision, the capabilities and the `clientInfo` its `initialize` declared, the
//! log level it set, and the resources it subscribed to. A request naming a session the
//! store does not hold (never opened, ended, idle too long, or another OAuth subject's)
//! gets 404, and one without a session id is taken as ever; `DELETE /mcp` ends a session;
//! `GET /mcp` with a session id opens the session's stream of notifications (list changes,
//! updates of those resources) on this process.
//!
//! At most as many requests as [`Server::with_max_in_flight`] says are handled at once,
//! across every transport; one more gets 503 with `Retry-After` and the JSON-RPC error
//! [`BUSY`](crate::server::BUSY), at once, instead of waiting in a queue.
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
//!
//! The router is here; the connections [`serve_http`] accepts are served in `serve.rs`,
//! which hands `POST /mcp` to its handler directly and every other request to the router;
//! the guards are in `guard.rs`, `POST` in `post.rs`, the streams in `sse.rs`, the rate
//! limits in `limit.rs`. What OAuth shares with the transport, the
//! headers read and the JSON answer written, is in `headers.rs` and `reply.rs`, which import
//! nothing of the rest.

use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use mcp_runtime_core::method::Method;
use serde_json::Value;

mod guard;
pub(super) mod headers;
mod idle;
mod limit;
mod logged;
mod post;
pub(super) mod reply;
mod serve;
mod session;
mod sse;

use super::Server;
use super::jsonrpc::Incoming;
use super::sessions::{SessionStore, Streams};
use limit::ClientLimiter;
pub use limit::{ParseRateLimitError, RATE_LIMITED, RateLimitConfig};

/// The `tracing` target of the line each HTTP request is logged with, at `info`.
pub const REQUEST_TARGET: &str = "mcp_runtime::http";

/// The path MCP is served at: routed by the router, and taken straight to its handler by
/// the connections [`serve_http`] serves.
const MCP_PATH: &str = "/mcp";

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
    /// The path the metrics are served at, in the Prometheus text format (`/metrics`, as
    /// `serve --http ADDR --metrics` has it); none by default. They are kept once
    /// [`telemetry::install`](crate::telemetry::install) turned
    /// [`Config::prometheus`](crate::telemetry::Config::prometheus) on; until then the
    /// path answers 404. The guards of `/mcp` (origin, token, rate limit) guard it too.
    pub metrics_path: Option<String>,
    /// Where the sessions of the handshake's revisions are kept: this process's memory by
    /// default, or Redis shared by every replica ([`SessionStore::redis`], feature
    /// `redis`), with their idle time and caps.
    pub sessions: SessionStore,
}

impl HttpConfig {
    /// Whether every request must carry credentials: a bearer token, or an access token.
    #[cfg(feature = "cli")]
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
            metrics_path: None,
            sessions: SessionStore::default(),
        }
    }
}

struct HttpState {
    server: Arc<Server>,
    config: HttpConfig,
    limiter: Option<ClientLimiter>,
    /// The handshake's sessions.
    sessions: SessionStore,
    /// The sessions' streams of notifications this process holds open.
    streams: Arc<Streams>,
    /// The checks of OAuth access tokens, when the server takes them.
    #[cfg(feature = "oauth")]
    verifier: Option<Arc<super::oauth::Verifier>>,
}

#[cfg(test)]
fn test_state(server: Arc<Server>) -> Arc<HttpState> {
    let config = HttpConfig::default();
    Arc::new(HttpState {
        server,
        limiter: None,
        sessions: config.sessions.clone(),
        config,
        streams: Arc::default(),
        #[cfg(feature = "oauth")]
        verifier: None,
    })
}

/// The axum router serving `server` at `/mcp`.
///
/// A rate limit needs the client's address: serve the router with
/// [`Router::into_make_service_with_connect_info::<SocketAddr>`](Router::into_make_service_with_connect_info),
/// or give each request its `ConnectInfo<SocketAddr>` as [`serve_http`] does. Without it,
/// every request counts against one shared allowance.
///
/// Its streams of notifications (a session's `GET /mcp`, a `subscriptions/listen` stream)
/// last as long as their clients, which never hang up: a graceful shutdown would wait for
/// them for ever. [`stoppable_router`] gives the router with what ends them.
pub fn router(server: Arc<Server>, config: HttpConfig) -> Router {
    routes(server, config).0
}

/// The axum router serving `server` at `/mcp`, as [`router`] makes it, and what ends its
/// streams of notifications when the application stops.
///
/// ```no_run
/// # async fn run(server: std::sync::Arc<mcp_runtime::server::Server>) -> std::io::Result<()> {
/// use std::net::SocketAddr;
/// use mcp_runtime::server::{self, HttpConfig};
///
/// let (mcp, streams) = server::stoppable_router(server, HttpConfig::default());
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// axum::serve(listener, mcp.into_make_service_with_connect_info::<SocketAddr>())
///     .with_graceful_shutdown(async move {
///         let _ = tokio::signal::ctrl_c().await;
///         // The requests in flight are answered; the streams end, their clients
///         // reconnect elsewhere, and the server returns.
///         streams.stop();
///     })
///     .await
/// # }
/// ```
pub fn stoppable_router(server: Arc<Server>, config: HttpConfig) -> (Router, StopStreams) {
    let (router, state) = routes(server, config);
    (router, StopStreams(Arc::clone(&state.streams)))
}

/// Ends the streams of notifications of a router ([`stoppable_router`]).
#[derive(Debug, Clone)]
pub struct StopStreams(Arc<Streams>);

impl StopStreams {
    /// Ends every stream of notifications the router holds open, and each one opened
    /// after: their clients reconnect from the last event they read, to another replica or
    /// to the server once it is back. Requests are still answered.
    pub fn stop(&self) {
        self.0.stop();
    }
}

/// The router serving `server`, and the state its `/mcp` handlers share.
fn routes(server: Arc<Server>, config: HttpConfig) -> (Router, Arc<HttpState>) {
    #[cfg(feature = "oauth")]
    let verifier = config
        .oauth
        .clone()
        .map(|oauth| Arc::new(super::oauth::Verifier::new(oauth)));
    let streams = Arc::new(Streams::default());
    config.sessions.share(&server, &streams);
    let state = Arc::new(HttpState {
        server,
        limiter: config.rate_limit.map(ClientLimiter::new),
        sessions: config.sessions.clone(),
        config,
        streams,
        #[cfg(feature = "oauth")]
        verifier,
    });
    // `/mcp`'s handlers guard and log their requests themselves; a layer does it for the
    // other routes (the OAuth metadata, the metrics, and the paths served by none).
    #[allow(unused_mut)]
    let mut others = Router::new().fallback(not_found);
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &state.verifier {
        others = verifier.routes(others);
    }
    if let Some(path) = &state.config.metrics_path {
        match check_metrics_path(path) {
            Ok(()) => others = others.route(path, get(metrics)),
            Err(error) => tracing::warn!(%error, "the metrics are not served"),
        }
    }
    let others = others.layer(middleware::from_fn_with_state(
        Arc::clone(&state),
        guard::guard,
    ));
    let router = Router::new()
        .route(
            MCP_PATH,
            post(post::PostMcp)
                .get(sse::get_mcp)
                .delete(sse::end_session)
                .fallback(method_not_allowed),
        )
        .merge(others)
        .with_state(Arc::clone(&state));
    (router, state)
}

/// 404 for a path nothing is served at.
async fn not_found() -> Response {
    axum::http::StatusCode::NOT_FOUND.into_response()
}

/// 405 for a method `/mcp` does not take, guarded and logged as the others.
async fn method_not_allowed(
    axum::extract::State(state): axum::extract::State<Arc<HttpState>>,
    request: axum::extract::Request,
) -> Response {
    guard::admitted(state, request, |_, _| async {
        (
            axum::http::StatusCode::METHOD_NOT_ALLOWED,
            [(
                axum::http::header::ALLOW,
                axum::http::HeaderValue::from_static("GET, POST, DELETE"),
            )],
        )
            .into_response()
    })
    .await
}

/// A path the metrics cannot be served at.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MetricsPathError {
    /// It does not begin with `/`.
    #[error("the metrics path `{0}` must begin with `/`, as `/metrics` does")]
    NotAbsolute(String),
    /// It is the MCP endpoint's.
    #[error("the metrics path `{0}` is the MCP endpoint's; choose another, such as `/metrics`")]
    TakenByMcp(String),
    /// It holds what a route reads as a parameter (`{`, `}`, `*`, `:`), or a space.
    #[error("the metrics path `{0}` may not hold `{{`, `}}`, `*`, `:` or spaces")]
    Pattern(String),
}

/// Whether the metrics can be served at `path`: it begins with `/`, is not `/mcp`, and
/// holds nothing a route would read as a parameter.
///
/// ```
/// use mcp_runtime::server::{MetricsPathError, check_metrics_path};
///
/// assert_eq!(check_metrics_path("/metrics"), Ok(()));
/// assert!(matches!(check_metrics_path("metrics"), Err(MetricsPathError::NotAbsolute(_))));
/// ```
pub fn check_metrics_path(path: &str) -> Result<(), MetricsPathError> {
    if !path.starts_with('/') {
        return Err(MetricsPathError::NotAbsolute(path.to_owned()));
    }
    if path == MCP_PATH {
        return Err(MetricsPathError::TakenByMcp(path.to_owned()));
    }
    if path
        .chars()
        .any(|c| matches!(c, '{' | '}' | '*' | ':') || c.is_whitespace())
    {
        return Err(MetricsPathError::Pattern(path.to_owned()));
    }
    Ok(())
}

/// `GET` of the metrics path: the metrics in the Prometheus text format, or 404 while
/// they are not kept.
async fn metrics() -> Response {
    match crate::telemetry::prometheus_text() {
        Some(text) => (
            [(
                axum::http::header::CONTENT_TYPE,
                crate::telemetry::PROMETHEUS_CONTENT_TYPE,
            )],
            text,
        )
            .into_response(),
        None => axum::http::StatusCode::NOT_FOUND.into_response(),
    }
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
    let (router, state) = routes(server, config);
    serve::serve(listener, router, state, super::stop_signal()).await
}

/// Makes `connection` send each write at once (`TCP_NODELAY`). An event stream is written
/// in parts (its head, then each event); with Nagle's algorithm a part waits for the
/// client's acknowledgement of the one before, which a client delays by up to 40 ms, so
/// that every streamed answer on a kept-alive connection would take that long.
fn no_delay(connection: &tokio::net::TcpStream) {
    if let Err(err) = connection.set_nodelay(true) {
        tracing::debug!(error = %err, "TCP_NODELAY could not be set on a connection");
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
}

#[cfg(test)]
mod tests {
    #[tokio::test]
    async fn every_connection_sends_its_writes_at_once() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        let _client = tokio::net::TcpStream::connect(address).await.unwrap();
        let (connection, _) = listener.accept().await.unwrap();
        assert!(
            !connection.nodelay().unwrap(),
            "Nagle's algorithm is on at first"
        );
        super::no_delay(&connection);
        assert!(connection.nodelay().unwrap(), "Nagle's algorithm is off");
    }
}
