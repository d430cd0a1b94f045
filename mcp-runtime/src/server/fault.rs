//! The JSON-RPC errors the server answers with, and the requests it refuses before taking
//! them up: a [`Fault`] is an error object's code, message and data; a [`Refusal`] is a
//! fault with the HTTP status it goes with.

use serde_json::Value;

use super::jsonrpc::{self, Id};
use crate::tasks::engine::TaskFault;

/// Which HTTP status an answer goes with. Over stdio there is none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Status {
    /// 200: an answer, a result or a JSON-RPC error about the request's content.
    Ok,
    /// 400: a request the server refuses to take up (2026-07-28).
    BadRequest,
    /// 404: a method the server does not have (2026-07-28).
    NotFound,
}

/// A JSON-RPC error to answer with: code, message and optional data.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct Fault {
    /// The error code, e.g. [`jsonrpc::INVALID_PARAMS`].
    pub(crate) code: i64,
    /// The error message, sent as it is.
    pub(crate) message: String,
    /// The error's `data`, left out of the answer when `None`.
    pub(crate) data: Option<Value>,
}

impl Fault {
    /// A fault with `code` and `message`, without data.
    pub(crate) fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// This fault, carrying `data`.
    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// -32602: the request's parameters are wrong.
    pub(crate) fn invalid_params(message: impl Into<String>) -> Self {
        Self::new(jsonrpc::INVALID_PARAMS, message)
    }

    /// -32601: the server has no such method.
    pub(crate) fn method_not_found(message: impl Into<String>) -> Self {
        Self::new(jsonrpc::METHOD_NOT_FOUND, message)
    }

    /// -32600: the message is not a request the server takes.
    pub(crate) fn invalid_request(message: impl Into<String>) -> Self {
        Self::new(jsonrpc::INVALID_REQUEST, message)
    }

    /// -32603: the server failed while answering.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        Self::new(jsonrpc::INTERNAL_ERROR, message)
    }

    /// The JSON-RPC error response to `id` carrying this fault.
    pub(crate) fn response(self, id: &Id) -> String {
        jsonrpc::error_response(id, self.code, &self.message, self.data)
    }
}

/// A request refused before it was taken up: the error, and the HTTP status it goes with.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{fault}")]
pub(crate) struct Refusal {
    /// The JSON-RPC error to answer with.
    pub(crate) fault: Fault,
    /// The HTTP status the answer goes with.
    pub(crate) status: Status,
}

impl Refusal {
    /// `fault`, answered with `status`.
    pub(crate) fn new(fault: Fault, status: Status) -> Self {
        Self { fault, status }
    }

    /// `fault`, answered with 400 Bad Request.
    pub(crate) fn bad_request(fault: Fault) -> Self {
        Self::new(fault, Status::BadRequest)
    }
}

impl From<TaskFault> for Fault {
    fn from(fault: TaskFault) -> Self {
        Self::new(fault.code(), fault.to_string())
    }
}
