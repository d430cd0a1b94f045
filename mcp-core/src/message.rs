//! The tool-call message model: a tool call, its result and the error detail.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

mod kinds;

pub use kinds::{ErrorDetails, ErrorType};

use crate::content::ContentBlock;
use crate::error::{MessageError, json_type};
use crate::name::ToolName;

/// A tool call: the invocation name and the arguments object.
///
/// Both fields are typed so that a value always satisfies the message model's rules: the name is a
/// valid [`ToolName`] and the arguments are a JSON object. Deserialization rejects unknown
/// top-level fields, as the message model's schema says (`additionalProperties: false`).
///
/// ```
/// use mcp_runtime_core::MCPToolCall;
/// use serde_json::json;
///
/// let call = MCPToolCall::new("calculator.add", json!({ "a": 1, "b": 2 }))?;
/// assert_eq!(call.tool_name, "calculator.add");
///
/// let err = MCPToolCall::new("calculator.add", json!([1, 2])).unwrap_err();
/// assert_eq!(err.field(), "arguments");
/// # Ok::<(), mcp_runtime_core::MessageError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MCPToolCall {
    /// The tool's invocation name, `namespace.tool`.
    pub tool_name: ToolName,
    /// The arguments, as the tool's input schema describes them.
    pub arguments: Map<String, Value>,
}

impl MCPToolCall {
    /// A call of `tool_name` with `arguments`, which must be a JSON object.
    pub fn new(tool_name: &str, arguments: Value) -> Result<Self, MessageError> {
        Ok(Self {
            tool_name: tool_name.parse()?,
            arguments: into_object(arguments, "arguments")?,
        })
    }
}

/// The outcome of a tool call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolStatus {
    /// The tool did what was asked.
    Success,
    /// The tool failed; the result carries an error and no data.
    Failure,
    /// Nothing had to be done.
    NoChangeNeeded,
    /// Part of the work was done; the result may carry both data and an error.
    PartialSuccess,
}

impl ToolStatus {
    /// The status as the message model spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::NoChangeNeeded => "no_change_needed",
            Self::PartialSuccess => "partial_success",
        }
    }

    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "success" => Self::Success,
            "failure" => Self::Failure,
            "no_change_needed" => Self::NoChangeNeeded,
            "partial_success" => Self::PartialSuccess,
            _ => return None,
        })
    }
}

impl fmt::Display for ToolStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The result of a tool call.
///
/// The fields are private so that the message model's rules always hold: a `failure` carries an
/// `error` and no `data`. `data` is a JSON object or absent. All four fields are always
/// serialized, absent ones as `null`, as the message model shows them.
///
/// ```
/// use mcp_runtime_core::{ErrorType, MCPErrorDetail, MCPToolResult, ToolStatus};
/// use serde_json::json;
///
/// let ok = MCPToolResult::success(json!({ "words": 2 })).with_explanation("Counted.");
/// assert_eq!(ok.status(), ToolStatus::Success);
/// assert_eq!(ok.to_string(), "[OK] Tool executed successfully:\n{\"words\":2}\nCounted.");
///
/// let failed = MCPToolResult::failure(MCPErrorDetail::new(ErrorType::FileNotFoundError, "no such file"));
/// assert!(failed.data().is_none());
/// ```
#[derive(Clone)]
pub struct MCPToolResult {
    status: ToolStatus,
    data: Option<Map<String, Value>>,
    /// What a result with data alone lacks, boxed: the common result then moves in 88
    /// bytes, and a failure, an explanation or content blocks cost one allocation more.
    /// Never `Some` of a `Rest` with nothing in it, so that results compare by their parts.
    rest: Option<Box<Rest>>,
}

/// The error, the explanation, the content blocks and the `_meta` of an [`MCPToolResult`].
#[derive(Debug, Clone, Default)]
struct Rest {
    error: Option<MCPErrorDetail>,
    explanation: Option<String>,
    content: Vec<ContentBlock>,
    /// What the wire form's `_meta` carries besides the error detail: notes about the
    /// call (a cached answer's age, say), not part of the result the tool gave.
    meta: Map<String, Value>,
}

impl Rest {
    /// `Some` unless it holds nothing.
    fn boxed(self) -> Option<Box<Self>> {
        let empty = self.error.is_none()
            && self.explanation.is_none()
            && self.content.is_empty()
            && self.meta.is_empty();
        (!empty).then(|| Box::new(self))
    }
}

impl PartialEq for MCPToolResult {
    fn eq(&self, other: &Self) -> bool {
        self.status == other.status
            && self.data == other.data
            && self.error() == other.error()
            && self.explanation() == other.explanation()
            && self.content() == other.content()
    }
}

impl std::fmt::Debug for MCPToolResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MCPToolResult")
            .field("status", &self.status)
            .field("data", &self.data)
            .field("error", &self.error())
            .field("explanation", &self.explanation())
            .field("content", &self.content())
            .finish()
    }
}

impl MCPToolResult {
    /// A `success` carrying `data`. An object is the data itself; `null` means no data; any
    /// other value is wrapped as `{"result": value}`, the same rule as for output schemas.
    #[inline]
    pub fn success(data: impl Into<Value>) -> Self {
        Self::success_data(data_object(data.into()))
    }

    /// A `success` carrying `data` as it is, an object or no data: what
    /// [`MCPToolResult::success`] makes of a value already taken apart, without putting
    /// it back into a `Value` first.
    ///
    /// ```
    /// use mcp_runtime_core::MCPToolResult;
    /// use serde_json::json;
    ///
    /// let data = json!({ "words": 2 }).as_object().cloned();
    /// assert_eq!(MCPToolResult::success_data(data), MCPToolResult::success(json!({ "words": 2 })));
    /// assert_eq!(MCPToolResult::success_data(None), MCPToolResult::no_data());
    /// ```
    #[inline]
    pub fn success_data(data: Option<Map<String, Value>>) -> Self {
        Self {
            status: ToolStatus::Success,
            data,
            rest: None,
        }
    }

    /// A `success` without data: for a tool that answers with content blocks only.
    pub fn no_data() -> Self {
        Self::success_data(None)
    }

    /// A `failure` carrying `error`.
    #[inline]
    pub fn failure(error: impl Into<MCPErrorDetail>) -> Self {
        Self {
            status: ToolStatus::Failure,
            data: None,
            rest: Some(Box::new(Rest {
                error: Some(error.into()),
                ..Rest::default()
            })),
        }
    }

    /// A `no_change_needed` result without data.
    pub fn no_change_needed() -> Self {
        Self {
            status: ToolStatus::NoChangeNeeded,
            data: None,
            rest: None,
        }
    }

    /// A `partial_success`: the data of the part that was done and the error that stopped
    /// the rest. `data` follows the same rule as [`MCPToolResult::success`].
    pub fn partial_success(data: impl Into<Value>, error: impl Into<MCPErrorDetail>) -> Self {
        Self {
            status: ToolStatus::PartialSuccess,
            data: data_object(data.into()),
            rest: Some(Box::new(Rest {
                error: Some(error.into()),
                ..Rest::default()
            })),
        }
    }

    /// A result from its four parts, checked against the message model's rules.
    pub fn from_parts(
        status: ToolStatus,
        data: Option<Map<String, Value>>,
        error: Option<MCPErrorDetail>,
        explanation: Option<String>,
    ) -> Result<Self, MessageError> {
        if status == ToolStatus::Failure {
            if error.is_none() {
                return Err(MessageError::FailureWithoutError);
            }
            if data.is_some() {
                return Err(MessageError::FailureWithData);
            }
        }
        Ok(Self {
            status,
            data,
            rest: Rest {
                error,
                explanation,
                content: Vec::new(),
                meta: Map::new(),
            }
            .boxed(),
        })
    }

    /// Sets the human-readable explanation.
    #[must_use]
    pub fn with_explanation(mut self, explanation: impl Into<String>) -> Self {
        self.rest_mut().explanation = Some(explanation.into());
        self
    }

    /// Adds a content block: an image, audio, a resource or text, shown besides the data.
    #[must_use]
    pub fn with_content(mut self, block: ContentBlock) -> Self {
        self.rest_mut().content.push(block);
        self
    }

    /// Adds `value` under `key` to the `_meta` of the result's wire form (MCP's
    /// `CallToolResult`): a note about the call, such as a cache's, that is not part of the
    /// result itself. Results compare without it.
    ///
    /// ```
    /// use mcp_runtime_core::{wire::CallToolResult, MCPToolResult};
    /// use serde_json::json;
    ///
    /// let result = MCPToolResult::success(json!({ "sum": 3 }))
    ///     .with_meta("com.example/cache", json!({ "hit": true }));
    /// assert_eq!(result, MCPToolResult::success(json!({ "sum": 3 })));
    /// let wire = serde_json::to_value(CallToolResult::from(result)).unwrap();
    /// assert_eq!(wire["_meta"], json!({ "com.example/cache": { "hit": true } }));
    /// ```
    #[must_use]
    pub fn with_meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.rest_mut().meta.insert(key.into(), value);
        self
    }

    /// What [`MCPToolResult::with_meta`] added.
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.rest
            .as_ref()
            .map(|rest| &rest.meta)
            .filter(|meta| !meta.is_empty())
    }

    /// The content blocks.
    pub fn content(&self) -> &[ContentBlock] {
        self.rest.as_ref().map_or(&[], |rest| &rest.content)
    }

    /// The boxed parts, boxed now if they were not.
    fn rest_mut(&mut self) -> &mut Rest {
        self.rest.get_or_insert_with(Box::default)
    }

    /// The parts, moved out, for the wire mapping.
    pub(crate) fn into_parts(self) -> ResultParts {
        let rest = self.rest.map(|rest| *rest).unwrap_or_default();
        ResultParts {
            status: self.status,
            data: self.data,
            error: rest.error,
            explanation: rest.explanation,
            content: rest.content,
            meta: rest.meta,
        }
    }

    /// The status.
    #[inline]
    pub fn status(&self) -> ToolStatus {
        self.status
    }

    /// Whether the status is `success`.
    pub fn is_success(&self) -> bool {
        self.status == ToolStatus::Success
    }

    /// The data object, if any.
    #[inline]
    pub fn data(&self) -> Option<&Map<String, Value>> {
        self.data.as_ref()
    }

    /// The error, if any.
    #[inline]
    pub fn error(&self) -> Option<&MCPErrorDetail> {
        self.rest.as_ref()?.error.as_ref()
    }

    /// The explanation, if any.
    pub fn explanation(&self) -> Option<&str> {
        self.rest.as_ref()?.explanation.as_deref()
    }
}

/// The fields of an [`MCPToolResult`], moved out of it.
pub(crate) struct ResultParts {
    pub(crate) status: ToolStatus,
    pub(crate) data: Option<Map<String, Value>>,
    pub(crate) error: Option<MCPErrorDetail>,
    pub(crate) explanation: Option<String>,
    pub(crate) content: Vec<ContentBlock>,
    pub(crate) meta: Map<String, Value>,
}

#[inline]
fn data_object(data: Value) -> Option<Map<String, Value>> {
    match data {
        Value::Null => None,
        Value::Object(map) => Some(map),
        other => Some(Map::from_iter([("result".to_owned(), other)])),
    }
}

/// Detailed error information of a failed call.
///
/// ```
/// use mcp_runtime_core::{ErrorType, MCPErrorDetail};
/// use serde_json::json;
///
/// let detail = MCPErrorDetail::new(ErrorType::ResourceNotFound, "The requested resource could not be located.")
///     .with_details(json!({ "resource_id": "xyz-123" }).as_object().cloned().unwrap());
/// assert_eq!(detail.error_type.as_str(), "ResourceNotFound");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MCPErrorDetail {
    /// Machine-readable category of the error.
    pub error_type: ErrorType,
    /// Human-readable explanation of what went wrong.
    pub error_message: String,
    /// Structured or unstructured extra information.
    pub error_details: Option<ErrorDetails>,
}

impl MCPErrorDetail {
    /// An error of `error_type` with `error_message` and no details.
    pub fn new(error_type: impl Into<ErrorType>, error_message: impl Into<String>) -> Self {
        Self {
            error_type: error_type.into(),
            error_message: error_message.into(),
            error_details: None,
        }
    }

    /// Sets the details.
    #[must_use]
    pub fn with_details(mut self, details: impl Into<ErrorDetails>) -> Self {
        self.error_details = Some(details.into());
        self
    }
}

// Serialization: all fields always present (absent ones as null), as in the message model's examples.

impl Serialize for MCPToolResult {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let content = self.content();
        let fields = if content.is_empty() { 4 } else { 5 };
        let mut s = serializer.serialize_struct("MCPToolResult", fields)?;
        s.serialize_field("status", &self.status)?;
        s.serialize_field("data", &self.data)?;
        s.serialize_field("error", &self.error())?;
        s.serialize_field("explanation", &self.explanation())?;
        // Only when there are blocks, so that the message model's messages keep their exact form.
        if !content.is_empty() {
            s.serialize_field("content", content)?;
        }
        s.end()
    }
}

// Deserialization reads a JSON object and takes each field out of it, so that every rule is
// checked here, every error names its field, and a field nobody asked for is refused by name.

/// The fields of one message, taken out one by one; what is left at the end is unknown.
struct Fields {
    map: Map<String, Value>,
    path: &'static str,
}

impl Fields {
    fn new(map: Map<String, Value>, path: &'static str) -> Self {
        Self { map, path }
    }

    /// The field's value if present (`null` included).
    fn take(&mut self, name: &str) -> Option<Value> {
        self.map.remove(name)
    }

    /// Refuses whatever field was not taken.
    fn finish(self) -> Result<(), MessageError> {
        match self.map.into_iter().next() {
            None => Ok(()),
            Some((name, _)) => Err(MessageError::UnknownField {
                parent: self.path,
                name,
            }),
        }
    }
}

fn required(value: Option<Value>, field: &'static str) -> Result<Value, MessageError> {
    value.ok_or(MessageError::MissingField { field })
}

fn into_string(value: Value, field: &'static str) -> Result<String, MessageError> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(MessageError::WrongType {
            field,
            expected: "a string",
            found: json_type(&other),
        }),
    }
}

fn into_object(value: Value, field: &'static str) -> Result<Map<String, Value>, MessageError> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(MessageError::WrongType {
            field,
            expected: "a JSON object",
            found: json_type(&other),
        }),
    }
}

/// `null` (or absent) as `None`, anything else through `convert`.
fn optional<T>(
    value: Option<Value>,
    convert: impl FnOnce(Value) -> Result<T, MessageError>,
) -> Result<Option<T>, MessageError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(value) => convert(value).map(Some),
    }
}

impl TryFrom<Map<String, Value>> for MCPToolCall {
    type Error = MessageError;

    fn try_from(map: Map<String, Value>) -> Result<Self, MessageError> {
        let mut fields = Fields::new(map, "");
        let tool_name = into_string(
            required(fields.take("tool_name"), "tool_name")?,
            "tool_name",
        )?;
        let tool_name = ToolName::new(tool_name)?;
        let arguments = into_object(
            required(fields.take("arguments"), "arguments")?,
            "arguments",
        )?;
        fields.finish()?;
        Ok(Self {
            tool_name,
            arguments,
        })
    }
}

/// Field paths of an error detail: top-level, or nested as a result's `error`.
struct DetailPaths {
    object: &'static str,
    error_type: &'static str,
    error_message: &'static str,
    error_details: &'static str,
}

const TOP_LEVEL_DETAIL: DetailPaths = DetailPaths {
    object: "",
    error_type: "error_type",
    error_message: "error_message",
    error_details: "error_details",
};

const NESTED_DETAIL: DetailPaths = DetailPaths {
    object: "error",
    error_type: "error.error_type",
    error_message: "error.error_message",
    error_details: "error.error_details",
};

impl MCPErrorDetail {
    fn from_object(map: Map<String, Value>, paths: &DetailPaths) -> Result<Self, MessageError> {
        let mut fields = Fields::new(map, paths.object);
        let error_type = into_string(
            required(fields.take("error_type"), paths.error_type)?,
            paths.error_type,
        )?;
        let error_message = into_string(
            required(fields.take("error_message"), paths.error_message)?,
            paths.error_message,
        )?;
        let error_details = optional(fields.take("error_details"), |value| match value {
            Value::Object(map) => Ok(ErrorDetails::Object(map)),
            Value::String(s) => Ok(ErrorDetails::Text(s)),
            other => Err(MessageError::WrongType {
                field: paths.error_details,
                expected: "an object, a string or null",
                found: json_type(&other),
            }),
        })?;
        fields.finish()?;
        Ok(Self {
            error_type: ErrorType::from(error_type),
            error_message,
            error_details,
        })
    }
}

impl TryFrom<Map<String, Value>> for MCPErrorDetail {
    type Error = MessageError;

    fn try_from(map: Map<String, Value>) -> Result<Self, MessageError> {
        Self::from_object(map, &TOP_LEVEL_DETAIL)
    }
}

impl TryFrom<Map<String, Value>> for MCPToolResult {
    type Error = MessageError;

    fn try_from(map: Map<String, Value>) -> Result<Self, MessageError> {
        let mut fields = Fields::new(map, "");
        let status = into_string(required(fields.take("status"), "status")?, "status")?;
        let status =
            ToolStatus::parse(&status).ok_or(MessageError::UnknownStatus { found: status })?;
        let data = optional(fields.take("data"), |value| into_object(value, "data"))?;
        let error = optional(fields.take("error"), |value| {
            MCPErrorDetail::from_object(into_object(value, "error")?, &NESTED_DETAIL)
        })?;
        let explanation = optional(fields.take("explanation"), |value| {
            into_string(value, "explanation")
        })?;
        let content = optional(fields.take("content"), |value| {
            let found = match &value {
                Value::Array(_) => "an array holding a block of another form",
                other => json_type(other),
            };
            serde_json::from_value::<Vec<ContentBlock>>(value).map_err(|_| MessageError::WrongType {
                field: "content",
                expected: "an array of content blocks (text, image, audio, resource, resource_link)",
                found,
            })
        })?
        .unwrap_or_default();
        fields.finish()?;
        let mut result = Self::from_parts(status, data, error, explanation)?;
        if !content.is_empty() {
            result.rest_mut().content = content;
        }
        Ok(result)
    }
}

macro_rules! deserialize_from_object {
    ($($ty:ty),*) => {$(
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let map = Map::<String, Value>::deserialize(deserializer)?;
                Self::try_from(map).map_err(D::Error::custom)
            }
        }
    )*};
}

deserialize_from_object!(MCPToolCall, MCPToolResult, MCPErrorDetail);

// Schemas: written out, because the rules above are more than the field types say.

impl JsonSchema for MCPToolCall {
    fn schema_name() -> Cow<'static, str> {
        "MCPToolCall".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "MCP Tool Call",
            "description": "Standard structure for an AI agent to call a tool.",
            "type": "object",
            "properties": {
                "tool_name": generator.subschema_for::<ToolName>(),
                "arguments": {
                    "type": "object",
                    "description": "An object containing the arguments for the tool. The schema for this object is defined by the specific tool being called.",
                    "additionalProperties": true,
                },
            },
            "required": ["tool_name", "arguments"],
            "additionalProperties": false,
        })
    }
}

impl JsonSchema for ToolStatus {
    fn schema_name() -> Cow<'static, str> {
        "ToolStatus".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "type": "string",
            "description": "The outcome of the tool execution.",
            "enum": ["success", "failure", "no_change_needed", "partial_success"],
        })
    }

    fn inline_schema() -> bool {
        true
    }
}

impl JsonSchema for MCPErrorDetail {
    fn schema_name() -> Cow<'static, str> {
        "MCPErrorDetail".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "title": "MCP Error Detail",
            "description": "Standard structure for detailed error information in MCP responses.",
            "type": "object",
            "properties": {
                "error_type": generator.subschema_for::<ErrorType>(),
                "error_message": {
                    "type": "string",
                    "description": "A descriptive message explaining the error.",
                },
                "error_details": {
                    "description": "Optional structured details or a string containing more info about the error.",
                    "type": ["object", "string", "null"],
                },
            },
            "required": ["error_type", "error_message"],
            "additionalProperties": false,
        })
    }
}

impl JsonSchema for MCPToolResult {
    fn schema_name() -> Cow<'static, str> {
        "MCPToolResult".into()
    }

    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let error = generator.subschema_for::<MCPErrorDetail>();
        json_schema!({
            "title": "MCP Tool Result",
            "description": "Standard structure for a tool to return results to an AI agent.",
            "type": "object",
            "properties": {
                "status": generator.subschema_for::<ToolStatus>(),
                "data": {
                    "type": ["object", "null"],
                    "description": "The output data from the tool if successful. Schema is tool-specific.",
                    "additionalProperties": true,
                },
                "error": {
                    "description": "Details of the error if execution failed.",
                    "anyOf": [error, { "type": "null" }],
                },
                "explanation": {
                    "type": ["string", "null"],
                    "description": "Optional human-readable explanation of the result.",
                },
                "content": {
                    "type": "array",
                    "description": "Content blocks besides the data: text, image, audio, resource, resource_link.",
                    "items": { "type": "object", "required": ["type"] },
                },
            },
            "required": ["status"],
            "additionalProperties": false,
            "if": { "properties": { "status": { "const": "failure" } }, "required": ["status"] },
            "then": {
                "required": ["error"],
                "properties": {
                    "error": { "type": "object" },
                    "data": { "type": "null" },
                },
            },
        })
    }
}
