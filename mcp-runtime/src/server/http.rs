//! The streamable HTTP transport, on axum: `POST /mcp` carries one JSON-RPC message.
//!
//! A request is answered with `application/json`, or with an SSE stream
//! (`text/event-stream`) when it is a call carrying a `progressToken` and the client accepts
//! one: the progress notifications, then the answer. Notifications and responses get 202.
//! No state is kept per connection or session, so several processes behind an ordinary
//! load balancer serve one tool set.
//!
//! At most [`MAX_IN_FLIGHT`] requests are handled at once; further ones wait, their
//! connections held, which slows a flooding client instead of queueing without bound.
//!
//! Guards, in order: an `Origin` that is not allowed (DNS rebinding) gets 403; a missing
//! or wrong bearer token, when one is configured, 401; an unsupported
//! `MCP-Protocol-Version` 400; a body over the limit 413.

use std::convert::Infallible;
use std::io;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};

use super::jsonrpc::Incoming;
use super::{MAX_IN_FLIGHT, Notifier, PROTOCOL_VERSIONS, STATELESS_VERSION, Server};

/// How the HTTP transport guards its endpoint.
#[derive(Debug, Clone)]
pub struct HttpConfig {
    /// A bearer token every request must carry in `Authorization`; none by default.
    pub token: Option<String>,
    /// Origins allowed besides loopback ones (`http://localhost:…`, `http://127.0.0.1:…`,
    /// `http://[::1]:…`), e.g. `https://app.example.com`.
    pub allowed_origins: Vec<String>,
    /// The largest request body accepted, in bytes; 4 MiB by default.
    pub body_limit: usize,
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self {
            token: None,
            allowed_origins: Vec::new(),
            body_limit: 4 * 1024 * 1024,
        }
    }
}

struct HttpState {
    server: Arc<Server>,
    config: HttpConfig,
    /// Requests handled at once; more wait for a place, their connections held.
    in_flight: Arc<Semaphore>,
}

/// The axum router serving `server` at `/mcp`.
pub fn router(server: Arc<Server>, config: HttpConfig) -> Router {
    let body_limit = config.body_limit;
    Router::new()
        .route("/mcp", post(post_mcp).get(no_stream).delete(no_stream))
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(Arc::new(HttpState {
            server,
            config,
            in_flight: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
        }))
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
    axum::serve(listener, router(server, config))
        .with_graceful_shutdown(super::stop_signal())
        .await
}

/// This server offers no stream of its own: clients get answers on their POSTs.
async fn no_stream() -> Response {
    (
        StatusCode::METHOD_NOT_ALLOWED,
        [(header::ALLOW, HeaderValue::from_static("POST"))],
        "this server answers POST /mcp only",
    )
        .into_response()
}

async fn post_mcp(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(refusal) = state.guard(&headers) {
        return refusal;
    }
    let incoming = match super::parse(&body) {
        Ok(incoming) => incoming,
        Err(refusal) => return json_response(StatusCode::BAD_REQUEST, refusal.into_response()),
    };
    let streams_progress = match &incoming {
        Incoming::Request { id, method, params } => {
            if let Some(refusal) =
                check_stateless_request(&headers, id, method, params.get("_meta"), None)
            {
                return refusal;
            }
            false
        }
        Incoming::Call { id, params } => {
            let name = params
                .name
                .as_ref()
                .and_then(Value::as_str)
                .unwrap_or_default();
            let meta = params.meta.as_ref();
            if let Some(refusal) =
                check_stateless_request(&headers, id, "tools/call", meta, Some(name))
            {
                return refusal;
            }
            meta.and_then(|meta| meta.get("progressToken")).is_some()
                && accepts(&headers, "text/event-stream")
        }
        _ => {
            state.server.dispatch(incoming, None).await;
            return StatusCode::ACCEPTED.into_response();
        }
    };
    // Backpressure: past MAX_IN_FLIGHT requests, the next waits here for a place.
    let Ok(permit) = Arc::clone(&state.in_flight).acquire_owned().await else {
        return StatusCode::SERVICE_UNAVAILABLE.into_response();
    };
    if streams_progress {
        return progress_stream(Arc::clone(&state.server), incoming, permit);
    }
    let _permit = permit;
    match state.server.dispatch(incoming, None).await {
        Some(answer) => json_response(StatusCode::OK, answer),
        // A call the client cancelled: nothing to answer.
        None => StatusCode::ACCEPTED.into_response(),
    }
}

impl HttpState {
    fn guard(&self, headers: &HeaderMap) -> Option<Response> {
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
            let presented = headers
                .get(header::AUTHORIZATION)
                .and_then(|value| value.to_str().ok())
                .and_then(|value| value.strip_prefix("Bearer "));
            if presented != Some(token.as_str()) {
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
        if let Some(version) = headers.get("mcp-protocol-version") {
            let version = version.to_str().unwrap_or_default();
            if !PROTOCOL_VERSIONS.contains(&version) {
                let fault = super::unsupported_version(&Value::String(version.to_owned()));
                return Some(json_response(
                    StatusCode::BAD_REQUEST,
                    super::fault_response(&Value::Null, fault),
                ));
            }
        }
        None
    }
}

/// The checks a 2026-07-28 request gets on HTTP: its `_meta` protocol version is one this
/// server speaks (-32022 otherwise), and the `Mcp-Method` and, for a call, `Mcp-Name`
/// headers are present and match the body (`HeaderMismatchError`, -32020, otherwise).
fn check_stateless_request(
    headers: &HeaderMap,
    id: &Value,
    method: &str,
    meta: Option<&Value>,
    tool: Option<&str>,
) -> Option<Response> {
    let refuse = |fault| {
        Some(json_response(
            StatusCode::BAD_REQUEST,
            super::fault_response(id, fault),
        ))
    };
    let version = match super::requested_version(meta) {
        Ok(version) => version,
        Err(fault) => return refuse(fault),
    };
    let header_version = headers
        .get("mcp-protocol-version")
        .and_then(|value| value.to_str().ok());
    if version != Some(STATELESS_VERSION) && header_version != Some(STATELESS_VERSION) {
        return None;
    }
    let header = |name: &str| headers.get(name).and_then(|value| value.to_str().ok());
    let mismatch = |message: String| refuse((HEADER_MISMATCH, message, None));
    if header("mcp-method") != Some(method) {
        return mismatch(format!(
            "the `Mcp-Method` header must be present and say `{method}`, as the body does"
        ));
    }
    if let Some(name) = tool {
        if header("mcp-name") != Some(name) {
            return mismatch(format!(
                "the `Mcp-Name` header must be present and say `{name}`, as the body does"
            ));
        }
    }
    None
}

/// The headers of a request do not match its body, or are missing (2026-07-28).
pub const HEADER_MISMATCH: i64 = -32020;

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

fn json_response(status: StatusCode, body: String) -> Response {
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

/// The progress notifications of a call as they come, then its answer, as SSE events.
fn progress_stream(
    server: Arc<Server>,
    incoming: Incoming,
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
        if let Some(answer) = server.dispatch(incoming, Some(notify)).await {
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
    Sse::new(events).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
