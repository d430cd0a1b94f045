use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// The answer to everything.
#[mcp_tool(namespace = "ui")]
fn answer() -> u32 {
    42
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(answer(), 42);
    let registry = Registry::global();
    let tool = registry.get("ui.answer").expect("registered");
    let schema = serde_json::to_value(tool.definition().input_schema())?;
    assert_eq!(
        schema,
        json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {},
            "additionalProperties": false,
        })
    );
    let result = registry.call_blocking(MCPToolCall::new("ui.answer", json!({}))?);
    assert_eq!(result.data(), json!({ "result": 42 }).as_object());
    // An argument the tool does not take is refused.
    let result = registry.call_blocking(MCPToolCall::new("ui.answer", json!({ "x": 1 }))?);
    assert!(result.error().is_some(), "{result:?}");
    Ok(())
}
