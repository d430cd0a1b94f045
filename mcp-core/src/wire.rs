//! The MCP wire, in one place: the JSON-RPC error codes, the protocol revisions and the
//! message size limit that server and client share, and the wire form of a result:
//! `MCPToolResult` as MCP's `CallToolResult`.
//!
//! - **Success**: `data` in `structuredContent` and its JSON in a text block, then the
//!   tool's own content blocks (images, audio, resources), then the explanation (if any) in
//!   a text block.
//! - **Failure**: `isError: true`, and a text block with the text a model reads
//!   (`[FAIL] Tool execution failed:` and `Error: <error_type>: <error_message>`, then
//!   `Output: <explanation>` when there is one), so that it can correct itself; then the
//!   tool's content blocks. No `structuredContent`: MCP's clients check it against the
//!   tool's output schema, which describes the data of a success, and the official
//!   TypeScript SDK turns a mismatch into a protocol error that hides the tool's own.
//!   The `MCPErrorDetail` itself is in the result's `_meta`, under [`ERROR_META`].
//! - **Partial success**: as a success, its data in `structuredContent` (the tool's data,
//!   which its output schema describes and output validation checks, as for a success),
//!   with a text block `<error_type>: <error_message>` after the data, and the
//!   `MCPErrorDetail` under [`ERROR_META`] too.
//!
//! ```
//! use mcp_runtime_core::{wire, ErrorType, MCPErrorDetail, MCPToolResult};
//! use serde_json::json;
//!
//! let failed = MCPToolResult::failure(MCPErrorDetail::new(ErrorType::FileNotFoundError, "no such file"));
//! let sent = wire::call_tool_result(failed);
//! assert_eq!(sent["isError"], true);
//! assert_eq!(
//!     sent["content"][0]["text"],
//!     "[FAIL] Tool execution failed:\nError: FileNotFoundError: no such file"
//! );
//! assert!(sent.get("structuredContent").is_none());
//! assert_eq!(sent["_meta"][wire::ERROR_META]["error_type"], "FileNotFoundError");
//! ```

use serde::Serialize;
use serde_json::{Map, Value};

use crate::content::ContentBlock;
use crate::message::{MCPErrorDetail, MCPToolResult, ToolStatus};
use crate::method::Revision;

/// Invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters, including an unknown tool name.
pub const INVALID_PARAMS: i64 = -32602;
/// An internal error.
pub const INTERNAL_ERROR: i64 = -32603;

/// The error of a missing resource at the handshake's revisions.
pub const RESOURCE_NOT_FOUND: i64 = -32002;

/// The headers of a request do not match its body, or are missing (2026-07-28).
pub const HEADER_MISMATCH: i64 = -32020;

/// A tool needs a client capability that the request did not declare (2026-07-28); its
/// `data.requiredCapabilities` names the missing ones.
pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;

/// An unknown or unsupported protocol version (2026-07-28).
pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

/// A request refused for being past the client's rate limit (HTTP 429); its `data` holds
/// the limit and `retryAfterSeconds`.
pub const RATE_LIMITED: i64 = -32029;

/// A request refused because the server already has as many requests in flight as it takes
/// at once, from this connection or from all (HTTP 503); its `data` holds the `limit`, its
/// `scope` (`connection` or `server`) and `retryAfterSeconds`.
pub const BUSY: i64 = -32030;

/// A request names a session (`Mcp-Session-Id`) the server does not hold: never opened,
/// ended, or idle too long (HTTP 404). Its client opens a new one with `initialize`.
pub const SESSION_NOT_FOUND: i64 = -32001;

/// The store that keeps sessions could not be used (HTTP 503, with `Retry-After`), or the
/// client already holds as many sessions as it may (HTTP 429).
pub const SESSION_UNAVAILABLE: i64 = -32031;

/// The protocol revisions served, newest first (their strings are [`Revision`]'s).
pub const PROTOCOL_VERSIONS: [&str; 3] = [
    Revision::V2026_07_28.as_str(),
    Revision::V2025_11_25.as_str(),
    Revision::V2025_06_18.as_str(),
];

/// The revisions negotiated by `initialize`, newest first.
pub const HANDSHAKE_VERSIONS: [&str; 2] = [
    Revision::V2025_11_25.as_str(),
    Revision::V2025_06_18.as_str(),
];

/// The stateless revision: no handshake, the version in every request's `_meta`.
pub const STATELESS_VERSION: &str = Revision::V2026_07_28.as_str();

/// The key of a 2026-07-28 request's `_meta` that holds the capabilities its client
/// declares.
pub const CLIENT_CAPABILITIES_META: &str = "io.modelcontextprotocol/clientCapabilities";

/// The key of a server's request's `_meta` that names the client's request it was sent
/// during: its JSON-RPC id, as the client sent it. Over a transport with one stream for
/// everything (stdio), it is how a client with several requests in flight tells whose
/// elicitation, sampling or roots request this is.
pub const RELATED_REQUEST_META: &str = "io.github.mcp-runtime/relatedRequestId";

/// The largest message read, in bytes, by a server or a client: a longer one is refused,
/// so that the other side cannot make it buffer without bound.
pub const MAX_MESSAGE_BYTES: usize = 16 * 1024 * 1024;

/// The key of a result's `_meta` that holds the [`MCPErrorDetail`] of a failure or a
/// partial success: `{"_meta": {"io.github.mcp-runtime/error": {"error_type": …,
/// "error_message": …, "error_details": …}}}`.
///
/// A key of MCP's `_meta` is a prefix of dot-separated labels in reverse DNS notation, a
/// `/`, and a name; prefixes whose second label is `modelcontextprotocol` or `mcp`
/// (`io.modelcontextprotocol/`) are MCP's own. `io.github.mcp-runtime` is this project's
/// (`mcp-runtime.github.io`, its GitHub organization).
pub const ERROR_META: &str = "io.github.mcp-runtime/error";

/// MCP's `CallToolResult`, ready to serialize: built from an [`MCPToolResult`] without an
/// intermediate JSON object, so a server writes it straight into its response.
///
/// ```
/// use mcp_runtime_core::{wire::CallToolResult, MCPToolResult};
/// use serde_json::json;
///
/// let wire = CallToolResult::from(MCPToolResult::success(json!({ "sum": 3 })));
/// assert_eq!(
///     serde_json::to_string(&wire).unwrap(),
///     r#"{"structuredContent":{"sum":3},"content":[{"type":"text","text":"{\"sum\":3}"}],"isError":false}"#
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CallToolResult {
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured_content: Option<Value>,
    content: Vec<ContentBlock>,
    #[serde(rename = "isError")]
    is_error: bool,
    #[serde(rename = "_meta", skip_serializing_if = "Map::is_empty")]
    meta: Map<String, Value>,
}

impl CallToolResult {
    /// Whether the call failed (`isError`).
    pub fn is_error(&self) -> bool {
        self.is_error
    }

    /// Adds `value` to the result's `_meta` under `key`, beside the error detail a failure
    /// keeps there ([`ERROR_META`]).
    ///
    /// ```
    /// use mcp_runtime_core::{wire::CallToolResult, MCPToolResult};
    /// use serde_json::json;
    ///
    /// let wire = CallToolResult::from(MCPToolResult::no_data()).with_meta("com.example/trace", json!("t-1"));
    /// assert_eq!(
    ///     serde_json::to_value(&wire).unwrap()["_meta"],
    ///     json!({ "com.example/trace": "t-1" })
    /// );
    /// ```
    #[must_use]
    pub fn with_meta(mut self, key: impl Into<String>, value: Value) -> Self {
        self.meta.insert(key.into(), value);
        self
    }
}

impl From<MCPToolResult> for CallToolResult {
    fn from(result: MCPToolResult) -> Self {
        if result.status() == ToolStatus::Failure {
            return failure(result);
        }
        // Taken apart rather than borrowed: the data moves into the wire form uncloned.
        let parts = result.into_parts();
        let mut content = Vec::with_capacity(1 + parts.content.len());
        let mut structured_content = None;
        if let Some(data) = parts.data {
            content.push(ContentBlock::text(
                serde_json::to_string(&data).unwrap_or_default(),
            ));
            structured_content = Some(Value::Object(data));
        }
        let mut meta = parts.meta;
        if let Some(error) = parts.error {
            content.push(ContentBlock::text(stated(&error)));
            if parts.status == ToolStatus::PartialSuccess {
                meta.insert(ERROR_META.to_owned(), detail_value(&error));
            }
        }
        content.extend(parts.content);
        if let Some(explanation) = parts.explanation {
            content.push(ContentBlock::text(explanation));
        }
        Self {
            structured_content,
            content,
            is_error: false,
            meta,
        }
    }
}

/// A failure's wire form: the text a model reads (the explanation in it), the tool's
/// content blocks, and the detail in `_meta`.
#[cold]
fn failure(result: MCPToolResult) -> CallToolResult {
    // The content blocks follow as themselves, not in the text.
    let text = result.text_before_content();
    let parts = result.into_parts();
    let mut content = Vec::with_capacity(1 + parts.content.len());
    content.push(ContentBlock::text(text));
    content.extend(parts.content);
    let mut meta = parts.meta;
    if let Some(error) = &parts.error {
        meta.insert(ERROR_META.to_owned(), detail_value(error));
    }
    CallToolResult {
        structured_content: None,
        content,
        is_error: true,
        meta,
    }
}

/// The text block of a partial success's error, and of a failure from servers of this
/// framework that sent the detail in `structuredContent`.
fn stated(error: &MCPErrorDetail) -> String {
    format!("{}: {}", error.error_type, error.error_message)
}

fn detail_value(error: &MCPErrorDetail) -> Value {
    // An error detail is strings and JSON values: it always serializes.
    serde_json::to_value(error).unwrap_or(Value::Null)
}

/// `result` as the `result` object of a `tools/call` response.
///
/// ```
/// use mcp_runtime_core::{wire, MCPToolResult};
/// use serde_json::json;
///
/// let wire = wire::call_tool_result(MCPToolResult::success(json!({ "sum": 3 })));
/// assert_eq!(wire["structuredContent"], json!({ "sum": 3 }));
/// assert_eq!(wire["content"][0], json!({ "type": "text", "text": "{\"sum\":3}" }));
/// assert_eq!(wire["isError"], false);
/// ```
pub fn call_tool_result(result: MCPToolResult) -> Map<String, Value> {
    match serde_json::to_value(CallToolResult::from(result)) {
        Ok(Value::Object(wire)) => wire,
        // A struct of JSON values always serializes to an object.
        _ => Map::new(),
    }
}

/// MCP's `CallToolResult`, as any server sends it, as an [`MCPToolResult`]: the mapping of
/// [`CallToolResult::from`] run backwards.
///
/// - `isError: true` is a `failure`: the `MCPErrorDetail` in `_meta` under [`ERROR_META`],
///   or else (as servers of this framework sent it before) in `structuredContent`, its
///   text block left out and the explanation taken back from it; a failure without either
///   (any other server's) is a `ToolExecutionError` whose message is the text blocks.
/// - Otherwise a `success`, its data the `structuredContent` (an object, or any other value
///   as `{"result": value}`); a `partial_success` when `_meta` holds an error detail.
/// - The content blocks follow, all but the text block that only mirrors the data as JSON
///   (the form this crate's servers, and the specification, recommend).
///
/// The wire has no place for `no_change_needed`, nor for the explanation of a result that
/// did not fail: they come back as a success (or a partial success) with the text blocks
/// as content.
///
/// ```
/// use mcp_runtime_core::{wire, ErrorType, MCPErrorDetail, MCPToolResult};
/// use serde_json::json;
///
/// let sent = MCPToolResult::success(json!({ "sum": 3 }));
/// let back = wire::tool_result_from_wire(wire::call_tool_result(sent.clone()));
/// assert_eq!(back, sent);
///
/// let failed = MCPToolResult::failure(MCPErrorDetail::new(ErrorType::TimeoutError, "too slow"))
///     .with_explanation("Try a smaller input.");
/// assert_eq!(wire::tool_result_from_wire(wire::call_tool_result(failed.clone())), failed);
///
/// let plain = json!({ "content": [{ "type": "text", "text": "hi" }] });
/// let plain = wire::tool_result_from_wire(plain.as_object().cloned().unwrap());
/// assert!(plain.is_success());
/// assert!(plain.data().is_none());
/// assert_eq!(plain.content().len(), 1);
/// ```
pub fn tool_result_from_wire(mut result: Map<String, Value>) -> MCPToolResult {
    let mut blocks: Vec<ContentBlock> = Vec::new();
    let mut unreadable = 0usize;
    if let Some(Value::Array(content)) = result.remove("content") {
        blocks.reserve(content.len());
        for block in content {
            match serde_json::from_value::<ContentBlock>(block) {
                Ok(block) => blocks.push(block),
                Err(_) => unreadable += 1,
            }
        }
    }
    let structured = result
        .remove("structuredContent")
        .filter(|value| !value.is_null());
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let detail = result
        .get_mut("_meta")
        .and_then(Value::as_object_mut)
        .and_then(|meta| meta.remove(ERROR_META))
        .and_then(|value| serde_json::from_value::<MCPErrorDetail>(value).ok());
    let mut outcome = if is_error {
        let detail = detail.or_else(|| {
            structured.and_then(|value| serde_json::from_value::<MCPErrorDetail>(value).ok())
        });
        match detail {
            Some(detail) => {
                let explanation = take_failure_text(&mut blocks, &detail);
                let failure = MCPToolResult::failure(detail);
                match explanation {
                    Some(explanation) => failure.with_explanation(explanation),
                    None => failure,
                }
            }
            None => foreign_failure(&mut blocks),
        }
    } else {
        if let Some(data) = &structured {
            let mirror = serde_json::to_string(data).unwrap_or_default();
            remove_text(&mut blocks, |text| *text == mirror);
        }
        let data = structured.unwrap_or(Value::Null);
        match detail {
            Some(detail) => {
                let stated = stated(&detail);
                remove_text(&mut blocks, |text| *text == stated);
                MCPToolResult::partial_success(data, detail)
            }
            None => MCPToolResult::success(data),
        }
    };
    for block in blocks {
        outcome = outcome.with_content(block);
    }
    if unreadable > 0 {
        outcome = outcome.with_explanation(format!(
            "{unreadable} content block(s) of a kind this client does not know were left out"
        ));
    }
    outcome
}

/// Removes the text block that states `detail`, and gives back the explanation it holds:
/// the text of [`CallToolResult::from`] (`[FAIL] …`, then `Output: <explanation>` when
/// there is one), or the `<error_type>: <error_message>` of servers that sent the detail
/// in `structuredContent`.
fn take_failure_text(blocks: &mut Vec<ContentBlock>, detail: &MCPErrorDetail) -> Option<String> {
    let rendered = MCPToolResult::failure(detail.clone()).to_string();
    let with_output = format!("{rendered}\nOutput: ");
    let stated = stated(detail);
    let at = blocks.iter().position(|block| {
        matches!(block, ContentBlock::Text { text }
            if *text == rendered || *text == stated || text.starts_with(&with_output))
    })?;
    match blocks.remove(at) {
        ContentBlock::Text { text } => text.strip_prefix(&with_output).map(str::to_owned),
        _ => None,
    }
}

/// A failure of a server that sent no `MCPErrorDetail`: a `ToolExecutionError` whose
/// message is the text blocks, taken out of `blocks`.
fn foreign_failure(blocks: &mut Vec<ContentBlock>) -> MCPToolResult {
    let message = blocks
        .iter()
        .filter_map(|block| match block {
            ContentBlock::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    blocks.retain(|block| !matches!(block, ContentBlock::Text { .. }));
    let message = if message.is_empty() {
        "the tool failed and said nothing more".to_owned()
    } else {
        message
    };
    MCPToolResult::failure(MCPErrorDetail::new(
        crate::ErrorType::ToolExecutionError,
        message,
    ))
}

/// Removes the first text block whose text `is` says.
fn remove_text(blocks: &mut Vec<ContentBlock>, is: impl Fn(&String) -> bool) {
    if let Some(at) = blocks
        .iter()
        .position(|block| matches!(block, ContentBlock::Text { text } if is(text)))
    {
        blocks.remove(at);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorType, MCPErrorDetail};
    use serde_json::json;

    #[test]
    fn failure_is_error_with_the_text_a_model_reads_and_the_detail_in_meta() {
        let result = MCPToolResult::failure(
            MCPErrorDetail::new(ErrorType::FileNotFoundError, "no such file").with_details("a.txt"),
        )
        .with_explanation("Check the path.")
        .with_content(crate::ContentBlock::image("AAAA", "image/png"));
        let wire = call_tool_result(result);
        assert_eq!(
            Value::Object(wire),
            json!({
                "content": [
                    {
                        "type": "text",
                        "text": "[FAIL] Tool execution failed:\nError: FileNotFoundError: no such file (a.txt)\nOutput: Check the path.",
                    },
                    { "type": "image", "data": "AAAA", "mimeType": "image/png" },
                ],
                "isError": true,
                "_meta": {
                    "io.github.mcp-runtime/error": {
                        "error_type": "FileNotFoundError",
                        "error_message": "no such file",
                        "error_details": "a.txt",
                    },
                },
            })
        );
    }

    #[test]
    fn the_error_meta_key_is_a_valid_meta_key_outside_mcp_s_own_prefixes() {
        let (prefix, name) = ERROR_META.split_once('/').unwrap();
        let labels: Vec<&str> = prefix.split('.').collect();
        assert!(labels.len() >= 2, "{prefix}");
        for label in &labels {
            let first = label.chars().next().unwrap();
            let last = label.chars().last().unwrap();
            assert!(
                first.is_ascii_alphabetic() && last.is_ascii_alphanumeric(),
                "{label}"
            );
            assert!(
                label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-'),
                "{label}"
            );
        }
        assert!(
            !["modelcontextprotocol", "mcp"].contains(&labels[1]),
            "{prefix}"
        );
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()),
            "{name}"
        );
    }

    #[test]
    fn partial_success_keeps_its_data_and_puts_the_error_in_meta() {
        let error = MCPErrorDetail::new(ErrorType::PermissionError, "cannot write d.txt");
        let wire = call_tool_result(MCPToolResult::partial_success(
            json!({ "copied": 3 }),
            error.clone(),
        ));
        assert_eq!(wire["isError"], false);
        assert_eq!(wire["structuredContent"], json!({ "copied": 3 }));
        assert_eq!(
            wire["content"],
            json!([
                { "type": "text", "text": "{\"copied\":3}" },
                { "type": "text", "text": "PermissionError: cannot write d.txt" },
            ])
        );
        assert_eq!(
            wire["_meta"][ERROR_META],
            serde_json::to_value(&error).unwrap()
        );
    }

    #[test]
    fn a_warning_of_no_change_needed_is_told_in_text_and_sends_no_meta() {
        let result: MCPToolResult = serde_json::from_value(json!({
            "status": "no_change_needed",
            "error": { "error_type": "X", "error_message": "warn" },
        }))
        .unwrap();
        let wire = call_tool_result(result);
        assert_eq!(
            Value::Object(wire),
            json!({ "content": [{ "type": "text", "text": "X: warn" }], "isError": false })
        );
    }

    #[test]
    fn meta_added_by_the_server_sits_beside_the_error_detail() {
        let failed =
            MCPToolResult::failure(MCPErrorDetail::new(ErrorType::TimeoutError, "too slow"));
        let wire = CallToolResult::from(failed.clone())
            .with_meta("io.modelcontextprotocol/serverInfo", json!({ "name": "s" }));
        let Value::Object(wire) = serde_json::to_value(&wire).unwrap() else {
            unreachable!()
        };
        assert_eq!(
            wire["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "s"
        );
        assert_eq!(tool_result_from_wire(wire), failed);
    }

    #[test]
    fn content_blocks_follow_the_data() {
        let result = MCPToolResult::success(json!({ "n": 1 }))
            .with_content(crate::ContentBlock::image("AAAA", "image/png"))
            .with_content(crate::ContentBlock::resource_text(
                "test://r",
                "text/plain",
                "hi",
            ));
        let wire = call_tool_result(result);
        assert_eq!(
            wire["content"],
            json!([
                { "type": "text", "text": "{\"n\":1}" },
                { "type": "image", "data": "AAAA", "mimeType": "image/png" },
                { "type": "resource", "resource": { "uri": "test://r", "mimeType": "text/plain", "text": "hi" } },
            ])
        );
    }

    #[test]
    fn the_wire_form_comes_back_as_it_was_sent() {
        let results = [
            MCPToolResult::success(json!({ "n": 1 }))
                .with_content(crate::ContentBlock::image("AAAA", "image/png")),
            MCPToolResult::failure(
                MCPErrorDetail::new(ErrorType::FileNotFoundError, "no such file")
                    .with_details("a.txt"),
            ),
            MCPToolResult::failure(
                MCPErrorDetail::new(ErrorType::ValidationError, "bad `a`").with_details(
                    json!({ "errors": [{ "path": "/a" }] })
                        .as_object()
                        .cloned()
                        .unwrap(),
                ),
            )
            .with_explanation("Output: a line that looks like the text's own\nand another")
            .with_content(crate::ContentBlock::image("AAAA", "image/png")),
            MCPToolResult::partial_success(
                json!({ "copied": 3 }),
                MCPErrorDetail::new(ErrorType::PermissionError, "cannot write d.txt"),
            ),
            MCPToolResult::partial_success(
                Value::Null,
                MCPErrorDetail::new(ErrorType::PermissionError, "nothing written"),
            ),
            MCPToolResult::no_data().with_content(crate::ContentBlock::text("just text")),
        ];
        for sent in results {
            assert_eq!(tool_result_from_wire(call_tool_result(sent.clone())), sent);
        }
    }

    #[test]
    fn a_failure_with_the_detail_in_structured_content_still_reads() {
        // As servers of this framework sent a failure before the detail moved to `_meta`.
        let wire = json!({
            "structuredContent": { "error_type": "FileNotFoundError", "error_message": "no such file", "error_details": "a.txt" },
            "content": [
                { "type": "text", "text": "FileNotFoundError: no such file" },
                { "type": "text", "text": "Check the path." },
            ],
            "isError": true,
        });
        let result = tool_result_from_wire(wire.as_object().cloned().unwrap());
        assert_eq!(
            result,
            MCPToolResult::failure(
                MCPErrorDetail::new(ErrorType::FileNotFoundError, "no such file")
                    .with_details("a.txt")
            )
            .with_content(crate::ContentBlock::text("Check the path."))
        );
    }

    #[test]
    fn a_failure_whose_meta_holds_no_detail_is_read_from_its_text() {
        let wire = json!({
            "content": [{ "type": "text", "text": "boom" }],
            "isError": true,
            "_meta": { "io.github.mcp-runtime/error": "not a detail", "com.example/x": 1 },
        });
        let result = tool_result_from_wire(wire.as_object().cloned().unwrap());
        let error = result.error().unwrap();
        assert_eq!(error.error_type, ErrorType::ToolExecutionError);
        assert_eq!(error.error_message, "boom");
    }

    #[test]
    fn a_foreign_failure_is_a_tool_execution_error_with_its_text() {
        let wire = json!({
            "isError": true,
            "content": [{ "type": "text", "text": "boom" }, { "type": "text", "text": "again" }],
        });
        let result = tool_result_from_wire(wire.as_object().cloned().unwrap());
        let error = result.error().unwrap();
        assert_eq!(error.error_type, ErrorType::ToolExecutionError);
        assert_eq!(error.error_message, "boom\nagain");
        assert!(result.content().is_empty());
    }

    #[test]
    fn a_scalar_structured_content_is_wrapped_and_unknown_blocks_are_told() {
        let wire = json!({
            "structuredContent": 7,
            "content": [{ "type": "hologram", "data": "?" }],
        });
        let result = tool_result_from_wire(wire.as_object().cloned().unwrap());
        assert_eq!(result.data().unwrap()["result"], 7);
        assert!(result.explanation().unwrap().contains("1 content block"));
    }

    #[test]
    fn success_without_data_has_no_structured_content() {
        let wire = call_tool_result(MCPToolResult::no_change_needed());
        assert_eq!(wire["content"], json!([]));
        assert!(wire.get("structuredContent").is_none());
        assert_eq!(wire["isError"], false);
    }
}
