//! The MCP wire form of a result: `MCPToolResult` as MCP's `CallToolResult`, in one place.
//!
//! Success: `data` in `structuredContent` and its JSON in a text block, then the tool's own
//! content blocks (images, audio, resources), then the explanation (if any) in a text block. Failure: `isError: true`, a text block with the error type and message,
//! and the `MCPErrorDetail` in `structuredContent`, so a model can correct itself.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::content::ContentBlock;
use crate::message::{MCPToolResult, ToolStatus};

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
}

impl CallToolResult {
    /// Whether the call failed (`isError`).
    pub fn is_error(&self) -> bool {
        self.is_error
    }
}

impl From<MCPToolResult> for CallToolResult {
    fn from(result: MCPToolResult) -> Self {
        // Taken apart rather than borrowed: the data moves into the wire form uncloned.
        let parts = result.into_parts();
        let mut content = Vec::with_capacity(1 + parts.content.len());
        let is_error = parts.status == ToolStatus::Failure;
        let error_text = |error: &crate::MCPErrorDetail| {
            ContentBlock::text(format!("{}: {}", error.error_type, error.error_message))
        };
        let mut structured_content = None;
        match parts.error {
            Some(error) if is_error => {
                content.push(error_text(&error));
                structured_content = Some(serde_json::to_value(&error).unwrap_or(Value::Null));
            }
            error => {
                if let Some(data) = parts.data {
                    content.push(ContentBlock::text(
                        serde_json::to_string(&data).unwrap_or_default(),
                    ));
                    structured_content = Some(Value::Object(data));
                }
                if let Some(error) = error {
                    content.push(error_text(&error));
                }
            }
        }
        content.extend(parts.content);
        if let Some(explanation) = parts.explanation {
            content.push(ContentBlock::text(explanation));
        }
        Self {
            structured_content,
            content,
            is_error,
        }
    }
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
/// - `isError: true` is a `failure`: its `structuredContent` when that is an
///   `MCPErrorDetail`, otherwise a `ToolExecutionError` whose message is the text blocks.
/// - Otherwise a `success`, its data the `structuredContent` (an object, or any other value
///   as `{"result": value}`).
/// - The content blocks follow, all but the text block that only mirrors the data as JSON
///   (the form this crate's servers, and the specification, recommend).
///
/// The wire has no place for `no_change_needed`, `partial_success` or the explanation, so
/// they come back as a success with the text blocks as content.
///
/// ```
/// use mcp_runtime_core::{wire, MCPToolResult};
/// use serde_json::json;
///
/// let sent = MCPToolResult::success(json!({ "sum": 3 }));
/// let back = wire::tool_result_from_wire(wire::call_tool_result(sent.clone()));
/// assert_eq!(back, sent);
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
    let texts = |blocks: &[ContentBlock]| {
        blocks
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let mut outcome = if is_error {
        let detail = structured
            .and_then(|value| serde_json::from_value::<crate::MCPErrorDetail>(value).ok());
        match detail {
            Some(detail) => {
                // The text block that states the detail is the detail.
                let stated = format!("{}: {}", detail.error_type, detail.error_message);
                blocks.retain(
                    |block| !matches!(block, ContentBlock::Text { text } if *text == stated),
                );
                MCPToolResult::failure(detail)
            }
            None => {
                let message = texts(&blocks);
                blocks.retain(|block| !matches!(block, ContentBlock::Text { .. }));
                let message = if message.is_empty() {
                    "the tool failed and said nothing more".to_owned()
                } else {
                    message
                };
                MCPToolResult::failure(crate::MCPErrorDetail::new(
                    crate::ErrorType::ToolExecutionError,
                    message,
                ))
            }
        }
    } else {
        match structured {
            Some(data) => {
                let mirror = serde_json::to_string(&data).unwrap_or_default();
                if let Some(at) = blocks.iter().position(
                    |block| matches!(block, ContentBlock::Text { text } if *text == mirror),
                ) {
                    blocks.remove(at);
                }
                MCPToolResult::success(data)
            }
            None => MCPToolResult::no_data(),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{ErrorType, MCPErrorDetail};
    use serde_json::json;

    #[test]
    fn failure_carries_the_error_detail_and_is_error() {
        let result = MCPToolResult::failure(
            MCPErrorDetail::new(ErrorType::FileNotFoundError, "no such file").with_details("a.txt"),
        )
        .with_explanation("Check the path.");
        let wire = call_tool_result(result);
        assert_eq!(wire["isError"], true);
        assert_eq!(
            wire["content"],
            json!([
                { "type": "text", "text": "FileNotFoundError: no such file" },
                { "type": "text", "text": "Check the path." },
            ])
        );
        assert_eq!(
            wire["structuredContent"],
            json!({ "error_type": "FileNotFoundError", "error_message": "no such file", "error_details": "a.txt" })
        );
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
            MCPToolResult::no_data().with_content(crate::ContentBlock::text("just text")),
        ];
        for sent in results {
            assert_eq!(tool_result_from_wire(call_tool_result(sent.clone())), sent);
        }
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
