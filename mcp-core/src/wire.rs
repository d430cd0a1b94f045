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
/// use mcp_core::{wire::CallToolResult, MCPToolResult};
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
/// use mcp_core::{wire, MCPToolResult};
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
    fn success_without_data_has_no_structured_content() {
        let wire = call_tool_result(MCPToolResult::no_change_needed());
        assert_eq!(wire["content"], json!([]));
        assert!(wire.get("structuredContent").is_none());
        assert_eq!(wire["isError"], false);
    }
}
