//! The error types of the message model (`ErrorType`) and the free-form details an error
//! carries (`ErrorDetails`).

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

/// The standard error types of the message model, and any custom type as a plain string.
///
/// ```
/// use mcp_runtime_core::ErrorType;
///
/// assert_eq!(ErrorType::from("TimeoutError"), ErrorType::TimeoutError);
/// assert_eq!(ErrorType::from("QuotaExceeded").as_str(), "QuotaExceeded");
/// ```
#[derive(Debug, Clone, Eq)]
pub enum ErrorType {
    /// Input validation failed.
    ValidationError,
    /// A required file was not found.
    FileNotFoundError,
    /// Authentication or authorization failed.
    AuthenticationError,
    /// The requested resource does not exist.
    ResourceNotFound,
    /// The tool failed (generic).
    ToolExecutionError,
    /// An API rate limit was reached.
    ApiLimitExceeded,
    /// The operation timed out.
    TimeoutError,
    /// Permissions were insufficient.
    PermissionError,
    /// Any other type, kept as given. Build it with `ErrorType::from`, which maps the
    /// standard names to their variants.
    Custom(String),
}

impl ErrorType {
    /// The eight standard types, in the message model's order.
    pub const STANDARD: [ErrorType; 8] = [
        Self::ValidationError,
        Self::FileNotFoundError,
        Self::AuthenticationError,
        Self::ResourceNotFound,
        Self::ToolExecutionError,
        Self::ApiLimitExceeded,
        Self::TimeoutError,
        Self::PermissionError,
    ];

    /// The type as a string.
    pub fn as_str(&self) -> &str {
        match self {
            Self::ValidationError => "ValidationError",
            Self::FileNotFoundError => "FileNotFoundError",
            Self::AuthenticationError => "AuthenticationError",
            Self::ResourceNotFound => "ResourceNotFound",
            Self::ToolExecutionError => "ToolExecutionError",
            Self::ApiLimitExceeded => "ApiLimitExceeded",
            Self::TimeoutError => "TimeoutError",
            Self::PermissionError => "PermissionError",
            Self::Custom(s) => s,
        }
    }

    /// Whether this is one of the eight standard types (also when spelled as `Custom`).
    pub fn is_standard(&self) -> bool {
        Self::STANDARD
            .iter()
            .any(|standard| standard.as_str() == self.as_str())
    }
}

impl PartialEq for ErrorType {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl std::hash::Hash for ErrorType {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl From<&str> for ErrorType {
    fn from(s: &str) -> Self {
        Self::STANDARD
            .into_iter()
            .find(|t| t.as_str() == s)
            .unwrap_or_else(|| Self::Custom(s.to_owned()))
    }
}

impl From<String> for ErrorType {
    fn from(s: String) -> Self {
        match Self::from(s.as_str()) {
            Self::Custom(_) => Self::Custom(s),
            standard => standard,
        }
    }
}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorType {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorType {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        String::deserialize(deserializer).map(Self::from)
    }
}

impl JsonSchema for ErrorType {
    fn schema_name() -> Cow<'static, str> {
        "ErrorType".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "A unique code or type for the error.",
            "examples": Self::STANDARD.iter().map(ErrorType::as_str).collect::<Vec<_>>(),
        })
    }

    fn inline_schema() -> bool {
        true
    }
}

/// Extra information about an error: structured (an object) or a string.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum ErrorDetails {
    /// Structured details, e.g. `{"parameter": "prompt"}`.
    Object(Map<String, Value>),
    /// Unstructured details.
    Text(String),
}

impl ErrorDetails {
    /// Details from a JSON value: an object or a string as themselves, `null` as none, any
    /// other value kept under `{"value": …}`.
    pub fn from_value_lossless(value: Value) -> Option<Self> {
        match value {
            Value::Null => None,
            Value::Object(map) => Some(Self::Object(map)),
            Value::String(s) => Some(Self::Text(s)),
            other => Some(Self::Object(Map::from_iter([("value".to_owned(), other)]))),
        }
    }
}

impl From<Map<String, Value>> for ErrorDetails {
    fn from(map: Map<String, Value>) -> Self {
        Self::Object(map)
    }
}

impl From<String> for ErrorDetails {
    fn from(s: String) -> Self {
        Self::Text(s)
    }
}

impl From<&str> for ErrorDetails {
    fn from(s: &str) -> Self {
        Self::Text(s.to_owned())
    }
}
