//! The error a tool returns, [`ToolError`]: what becomes a failure result's `error`.

use std::fmt;

use serde_json::Value;

use crate::message::{ErrorDetails, ErrorType, MCPErrorDetail};

/// An error a tool returns: a standard error type (or a custom one), a message for the
/// model, and optional details. It becomes the `error` of a failure [`MCPToolResult`].
///
/// ```
/// use mcp_runtime_core::{ErrorType, ToolError};
///
/// let err = ToolError::new(ErrorType::ValidationError, "`b` must not be zero")
///     .with_details(serde_json::json!({ "parameter": "b" }));
/// assert_eq!(err.error_type(), &ErrorType::ValidationError);
///
/// let missing = ToolError::not_found("no order 42");
/// assert_eq!(missing.error_type(), &ErrorType::ResourceNotFound);
///
/// let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
/// assert_eq!(ToolError::from(io).error_type(), &ErrorType::FileNotFoundError);
/// ```
///
/// [`MCPToolResult`]: crate::MCPToolResult
#[derive(Debug, Clone, PartialEq)]
pub struct ToolError {
    error_type: ErrorType,
    message: String,
    details: Option<ErrorDetails>,
}

/// A constructor of [`ToolError`] for each standard error type, so that a tool says "not
/// found" without naming an [`ErrorType`] variant.
macro_rules! standard_errors {
    ($($(#[$doc:meta])* $name:ident => $variant:ident;)*) => {$(
        $(#[$doc])*
        pub fn $name(message: impl Into<String>) -> Self {
            Self::new(ErrorType::$variant, message)
        }
    )*};
}

impl ToolError {
    /// An error of `error_type` with `message`.
    pub fn new(error_type: impl Into<ErrorType>, message: impl Into<String>) -> Self {
        Self {
            error_type: error_type.into(),
            message: message.into(),
            details: None,
        }
    }

    standard_errors! {
        /// A `ValidationError`: the arguments were not acceptable.
        validation => ValidationError;
        /// A `ToolExecutionError`: the tool failed for a reason of its own.
        execution => ToolExecutionError;
        /// A `ResourceNotFound`: what the call names (a record, a user, a page) does not
        /// exist.
        not_found => ResourceNotFound;
        /// A `FileNotFoundError`: a file the call needs does not exist.
        file_not_found => FileNotFoundError;
        /// A `PermissionError`: the tool may not do what the call asks.
        permission_denied => PermissionError;
        /// An `AuthenticationError`: the credentials are missing, wrong or expired.
        unauthenticated => AuthenticationError;
        /// An `ApiLimitExceeded`: a rate limit or quota was reached; the call may be
        /// tried again later.
        rate_limited => ApiLimitExceeded;
        /// A `TimeoutError`: what the tool waited for took too long.
        timeout => TimeoutError;
    }

    /// Adds details: an object, a string, or `null` for none. Other JSON values are kept
    /// under `{"value": …}` so that nothing is lost.
    pub fn with_details(mut self, details: impl Into<Value>) -> Self {
        self.details = ErrorDetails::from_value_lossless(details.into());
        self
    }

    /// Puts `context` before the message: `"<context>: <message>"`.
    ///
    /// ```
    /// use mcp_runtime_core::ToolError;
    ///
    /// let err = ToolError::execution("disk full").context("cannot write `out.txt`");
    /// assert_eq!(err.message(), "cannot write `out.txt`: disk full");
    /// ```
    #[must_use]
    pub fn context(mut self, context: impl fmt::Display) -> Self {
        self.message = format!("{context}: {}", self.message);
        self
    }

    /// The error type.
    pub fn error_type(&self) -> &ErrorType {
        &self.error_type
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The details, if any.
    pub fn details(&self) -> Option<&ErrorDetails> {
        self.details.as_ref()
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.error_type, self.message)
    }
}

impl std::error::Error for ToolError {}

impl From<ToolError> for MCPErrorDetail {
    fn from(err: ToolError) -> Self {
        MCPErrorDetail {
            error_type: err.error_type,
            error_message: err.message,
            error_details: err.details,
        }
    }
}

impl From<MCPErrorDetail> for ToolError {
    fn from(detail: MCPErrorDetail) -> Self {
        Self {
            error_type: detail.error_type,
            message: detail.error_message,
            details: detail.error_details,
        }
    }
}

/// A plain message is a `ToolExecutionError`, so a tool may return `Result<T, String>`.
impl From<String> for ToolError {
    fn from(message: String) -> Self {
        Self::execution(message)
    }
}

/// A plain message is a `ToolExecutionError`.
impl From<&str> for ToolError {
    fn from(message: &str) -> Self {
        Self::execution(message)
    }
}

/// Maps I/O errors to the standard types: `NotFound` → `FileNotFoundError`,
/// `PermissionDenied` → `PermissionError`, `TimedOut` → `TimeoutError`, anything else →
/// `ToolExecutionError`.
impl From<std::io::Error> for ToolError {
    fn from(err: std::io::Error) -> Self {
        use std::io::ErrorKind;
        let error_type = match err.kind() {
            ErrorKind::NotFound => ErrorType::FileNotFoundError,
            ErrorKind::PermissionDenied => ErrorType::PermissionError,
            ErrorKind::TimedOut => ErrorType::TimeoutError,
            _ => ErrorType::ToolExecutionError,
        };
        Self::new(error_type, err.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Error, ErrorKind};

    #[test]
    fn io_errors_map_to_standard_types() {
        let cases = [
            (ErrorKind::NotFound, ErrorType::FileNotFoundError),
            (ErrorKind::PermissionDenied, ErrorType::PermissionError),
            (ErrorKind::TimedOut, ErrorType::TimeoutError),
            (ErrorKind::InvalidData, ErrorType::ToolExecutionError),
        ];
        for (kind, expected) in cases {
            let err = ToolError::from(Error::new(kind, "boom"));
            assert_eq!(err.error_type(), &expected, "{kind:?}");
            assert_eq!(err.message(), "boom");
        }
    }

    #[test]
    fn details_that_are_neither_object_nor_string_are_kept_under_value() {
        let err = ToolError::execution("x").with_details(42);
        assert_eq!(
            err.details(),
            Some(&ErrorDetails::Object(
                serde_json::json!({"value": 42})
                    .as_object()
                    .cloned()
                    .unwrap()
            ))
        );
        assert_eq!(
            ToolError::execution("x")
                .with_details(Value::Null)
                .details(),
            None
        );
    }
}
