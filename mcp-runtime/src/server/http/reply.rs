//! The JSON answer, as the transport and OAuth's refusals write it: this module imports
//! nothing of the transport's, so both can use it.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

/// A response of `status` whose body is `body`, a JSON text.
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
