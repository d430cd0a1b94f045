//! The session a request names, looked up in the store, and the answers that refuse it:
//! 404 for a session that is not open (or not the caller's), 503 while the store is
//! unavailable, 429 for a client that holds as many as it may.

use std::sync::Arc;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use mcp_runtime_core::wire::{SESSION_NOT_FOUND, SESSION_UNAVAILABLE};

use super::HttpState;
use super::reply::json_response;
use crate::auth::AuthInfo;
use crate::server::jsonrpc::Id;
use crate::server::sessions::{SessionError, SessionRecord};

/// The session `id`, when it is open and the caller's (whose access token names
/// `auth`'s subject); else the response that refuses the request: 404 for a session that
/// is not open or not the caller's alike, 503 while the store is unavailable.
pub(super) async fn open_session(
    state: &HttpState,
    id: &str,
    auth: Option<&AuthInfo>,
) -> Result<Arc<SessionRecord>, Response> {
    admitted(state.sessions.load(id).await, auth).map_err(|refused| refused.response())
}

/// The session found, `found`, when it is the caller's (whose access token names `auth`'s
/// subject); else why it is refused.
pub(super) fn admitted(
    found: Result<Option<Arc<SessionRecord>>, SessionError>,
    auth: Option<&AuthInfo>,
) -> Result<Arc<SessionRecord>, Refused> {
    let subject = auth.and_then(AuthInfo::subject);
    match found {
        Ok(Some(record)) if record.belongs_to(subject) => Ok(record),
        Ok(_) => Err(Refused::NotFound),
        Err(error) => Err(Refused::Store(error)),
    }
}

/// Why a request's session is refused.
pub(super) enum Refused {
    /// Not open, or not the caller's: the two are not told apart.
    NotFound,
    /// The store failed, or the client holds as many sessions as it may.
    Store(SessionError),
}

impl Refused {
    /// The response that refuses the request: 404, or as [`session_refusal`] says.
    pub(super) fn response(&self) -> Response {
        match self {
            Self::NotFound => session_not_found(),
            Self::Store(error) => session_refusal(error),
        }
    }
}

/// 404 for a request that names a session the server does not hold.
pub(super) fn session_not_found() -> Response {
    let error = crate::server::jsonrpc::error_response(
        &Id::NONE,
        SESSION_NOT_FOUND,
        "no such session: it was never opened, has ended, or was idle too long; open a new \
         one with initialize",
        None,
    );
    json_response(StatusCode::NOT_FOUND, error)
}

/// The response to a request the session store could not serve: 503 with `Retry-After`
/// while it is unavailable, 429 for a client that holds as many sessions as it may.
pub(super) fn session_refusal(error: &SessionError) -> Response {
    let status = match error {
        SessionError::TooManyForClient { .. } | SessionError::Full(_) => {
            StatusCode::TOO_MANY_REQUESTS
        }
        _ => {
            tracing::warn!(%error, "a request was refused: the session store failed");
            StatusCode::SERVICE_UNAVAILABLE
        }
    };
    let body = crate::server::jsonrpc::error_response(
        &Id::NONE,
        SESSION_UNAVAILABLE,
        &error.to_string(),
        None,
    );
    let mut response = json_response(status, body);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}
