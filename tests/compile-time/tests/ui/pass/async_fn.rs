use mcp_runtime::{MCPToolCall, Registry, ToolError, mcp_tool};
use serde_json::json;

/// Echoes a text after yielding once.
#[mcp_tool(namespace = "ui")]
async fn echo_later(text: String) -> String {
    std::future::ready(()).await;
    text
}

/// Fails after an await when the text is empty.
#[mcp_tool(namespace = "ui")]
async fn shout_later(text: String) -> Result<String, ToolError> {
    std::future::ready(()).await;
    if text.is_empty() {
        return Err(ToolError::validation("nothing to shout"));
    }
    Ok(text.to_uppercase())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let result =
        registry.call_blocking(MCPToolCall::new("ui.echo_later", json!({ "text": "hi" }))?);
    assert_eq!(result.data(), json!({ "result": "hi" }).as_object());
    let result =
        registry.call_blocking(MCPToolCall::new("ui.shout_later", json!({ "text": "hi" }))?);
    assert_eq!(result.data(), json!({ "result": "HI" }).as_object());
    let result = registry.call_blocking(MCPToolCall::new("ui.shout_later", json!({ "text": "" }))?);
    assert_eq!(
        result.error().expect("a failure").error_message,
        "nothing to shout"
    );
    // Still a plain async function.
    let future = echo_later("plain".to_owned());
    drop(future);
    Ok(())
}
