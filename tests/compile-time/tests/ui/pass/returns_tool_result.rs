use mcp_runtime::{MCPToolCall, MCPToolResult, Registry, ToolStatus, mcp_tool};
use serde_json::json;

/// Creates a directory unless it exists.
#[mcp_tool(namespace = "ui")]
fn ensure_dir(exists: bool) -> MCPToolResult {
    if exists {
        MCPToolResult::no_change_needed().with_explanation("the directory already exists")
    } else {
        MCPToolResult::success(json!({ "created": true }))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.ensure_dir",
        json!({ "exists": true }),
    )?);
    assert_eq!(result.status(), ToolStatus::NoChangeNeeded);
    assert_eq!(result.explanation(), Some("the directory already exists"));
    assert_eq!(
        result,
        MCPToolResult::no_change_needed().with_explanation("the directory already exists")
    );
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.ensure_dir",
        json!({ "exists": false }),
    )?);
    assert_eq!(result.data(), json!({ "created": true }).as_object());
    // An `MCPToolResult` has no output schema.
    let tool = registry.get("ui.ensure_dir").expect("registered");
    assert!(tool.definition().output_schema().is_none());
    Ok(())
}
