//! The guards of every request, answered before its body is read, and its one line in the
//! log. In order: an `Origin` that is not allowed (DNS rebinding) gets 403; a missing or
//! wrong bearer token, when one is configured, 401; a client past its rate limit, when one
//! is configured, 429 with `Retry-After`; then, with OAuth, a request without a good access
//! token 401.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::future::{BoxFuture, Either};

use super::headers::bearer;
use super::limit::rate_limited;
use super::{Carried, HttpState, REQUEST_TARGET};

/// The guards of every request, before its body is read ([`guarded`]), and its one line in
/// the log: what it asked, its status and how long it took. The layer around the routes
/// other than `/mcp`; `/mcp`'s handlers call [`admitted`] themselves, as a layer costs every
/// request a service cloned and futures boxed.
pub(super) async fn guard(
    State(state): State<Arc<HttpState>>,
    request: Request,
    next: Next,
) -> Response {
    admitted(state, request, |_, request| next.run(request)).await
}

/// The answer to a request: its handler's own future when the guards admit it at once, any
/// other boxed.
pub(super) type Admitted<Fut> = Either<Fut, BoxFuture<'static, Response>>;

/// The answer of `handler` to `request`, once the guards admit it ([`guarded`]), and its one
/// line in the log. Without the line or OAuth, the guards are passed or refused before
/// anything is awaited, and the answer is the handler's own future: each layer around the
/// request's future moves it whole, so none is added to it.
pub(super) fn admitted<Fut>(
    state: Arc<HttpState>,
    request: Request,
    handler: impl FnOnce(Arc<HttpState>, Request) -> Fut + Send + 'static,
) -> Admitted<Fut>
where
    Fut: Future<Output = Response> + Send + 'static,
{
    let logs = tracing::enabled!(target: REQUEST_TARGET, tracing::Level::INFO);
    #[cfg(feature = "oauth")]
    let verifies = state.verifier.is_some();
    #[cfg(not(feature = "oauth"))]
    let verifies = false;
    if logs || verifies {
        return Either::Right(Box::pin(logged(state, request, handler, logs)));
    }
    if let Some(refusal) = refusal(&state, &request) {
        return Either::Right(Box::pin(std::future::ready(refusal)));
    }
    Either::Left(handler(state, request))
}

/// [`admitted`], awaiting the OAuth guard if there is one, with its line in the log if
/// `logs`.
async fn logged<Fut>(
    state: Arc<HttpState>,
    request: Request,
    handler: impl FnOnce(Arc<HttpState>, Request) -> Fut,
    logs: bool,
) -> Response
where
    Fut: Future<Output = Response>,
{
    if !logs {
        return guarded(state, request, handler).await;
    }
    let started = Instant::now();
    let http_method = request.method().clone();
    let path = request.uri().path().to_owned();
    let response = guarded(state, request, handler).await;
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

/// The guards of every request, before its body is read; then `handler`'s answer.
#[allow(unused_mut)]
async fn guarded<Fut>(
    state: Arc<HttpState>,
    mut request: Request,
    handler: impl FnOnce(Arc<HttpState>, Request) -> Fut,
) -> Response
where
    Fut: Future<Output = Response>,
{
    if let Some(refusal) = refusal(&state, &request) {
        return refusal;
    }
    #[cfg(feature = "oauth")]
    if let Some(verifier) = &state.verifier {
        if let Some(refusal) = Box::pin(verifier.admit(&mut request)).await {
            return before_the_body(&request, refusal);
        }
    }
    handler(state, request).await
}

/// The refusal of `request` by the guards that need no access token, if one refuses it
/// ([`refused`]), said before its body is read.
fn refusal(state: &HttpState, request: &Request) -> Option<Response> {
    let client = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |ConnectInfo(peer)| {
            peer.ip()
        });
    // The OAuth metadata is public, and any web page may read it.
    #[cfg(feature = "oauth")]
    let any_origin = state
        .verifier
        .as_ref()
        .is_some_and(|verifier| verifier.is_metadata(request.uri().path()));
    #[cfg(not(feature = "oauth"))]
    let any_origin = false;
    refused(state, request.headers(), client, any_origin)
        .map(|refusal| before_the_body(request, refusal))
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

/// The refusal of a request by the guards that need no access token, if one refuses it: an
/// `Origin` that is not allowed (403) unless `any_origin` may send it, a missing or wrong
/// bearer token (401), a client past its rate limit (429).
fn refused(
    state: &HttpState,
    headers: &HeaderMap,
    client: IpAddr,
    any_origin: bool,
) -> Option<Response> {
    if let Some(origin) = headers.get(header::ORIGIN).filter(|_| !any_origin) {
        let allowed = origin.to_str().is_ok_and(|origin| {
            is_loopback_origin(origin) || state.config.allowed_origins.iter().any(|o| o == origin)
        });
        if !allowed {
            return Some((StatusCode::FORBIDDEN, "this origin is not allowed").into_response());
        }
    }
    if let Some(token) = &state.config.token {
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
    if let Some(limiter) = &state.limiter {
        if let Err(wait) = limiter.check(client) {
            return Some(rate_limited(&limiter.config, wait));
        }
    }
    None
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

    #[test]
    fn tokens_are_compared_whole() {
        assert!(same_secret("s3cret", "s3cret"));
        for wrong in ["", "s3cre", "s3cret ", "S3cret", "s3creT"] {
            assert!(!same_secret(wrong, "s3cret"), "{wrong}");
        }
    }
}
