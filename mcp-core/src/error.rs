//! A message that breaks the message model's rules, and the helpers its texts are made with.

use serde_json::Value;
use std::borrow::Cow;

use crate::name::ToolNameError;

/// A message that breaks one of the message model's rules. Each variant names the field at fault, so
/// the text says what was wrong and where.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MessageError {
    /// A required field is absent.
    #[error("`{field}` is required")]
    MissingField {
        /// Path of the missing field, e.g. `tool_name` or `error.error_message`.
        field: &'static str,
    },
    /// A field holds a value of the wrong JSON type.
    #[error("`{field}` must be {expected}, found {found}")]
    WrongType {
        /// Path of the field.
        field: &'static str,
        /// What the field must hold.
        expected: &'static str,
        /// The JSON type found instead (never the value itself).
        found: &'static str,
    },
    /// A field that the message does not define.
    #[error("unknown field `{name}`{}", in_parent(parent))]
    UnknownField {
        /// Path of the object holding the field; empty at the top level.
        parent: &'static str,
        /// The unknown field's name.
        name: String,
    },
    /// `tool_name` is not a valid invocation name.
    #[error("`tool_name` {0}")]
    ToolName(#[from] ToolNameError),
    /// `status` is none of the four the message model defines.
    #[error(
        "`status` must be one of \"success\", \"failure\", \"no_change_needed\", \"partial_success\"; found {found:?}"
    )]
    UnknownStatus {
        /// The rejected status string.
        found: String,
    },
    /// A failure result without an `error`.
    #[error("`error` is required when `status` is \"failure\"")]
    FailureWithoutError,
    /// A failure result that carries `data`.
    #[error("`data` must be absent or null when `status` is \"failure\"")]
    FailureWithData,
}

impl MessageError {
    /// The path of the field at fault, e.g. `tool_name`, `data`, `error.error_details`, or
    /// the unknown field itself (`extra`, `error.extra`).
    pub fn field(&self) -> Cow<'_, str> {
        match self {
            Self::MissingField { field } | Self::WrongType { field, .. } => Cow::Borrowed(field),
            Self::UnknownField { parent: "", name } => Cow::Borrowed(name),
            Self::UnknownField { parent, name } => Cow::Owned(format!("{parent}.{name}")),
            Self::ToolName(_) => Cow::Borrowed("tool_name"),
            Self::UnknownStatus { .. } => Cow::Borrowed("status"),
            Self::FailureWithoutError => Cow::Borrowed("error"),
            Self::FailureWithData => Cow::Borrowed("data"),
        }
    }
}

fn in_parent(parent: &str) -> String {
    if parent.is_empty() {
        String::new()
    } else {
        format!(" in `{parent}`")
    }
}

/// `token` escaped as one segment of a JSON pointer (RFC 6901: `~` as `~0`, `/` as `~1`),
/// borrowed when it has neither.
///
/// ```
/// use mcp_runtime_core::pointer_token;
///
/// assert_eq!(pointer_token("a/b~c"), "a~1b~0c");
/// assert!(matches!(pointer_token("plain"), std::borrow::Cow::Borrowed("plain")));
/// ```
pub fn pointer_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

/// The JSON type of `value` (`"a string"`, `"an object"`, …), for error messages that must
/// not echo the value.
pub fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
