use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Divides `a` by `b`; fails with a plain message when `b` is zero.
#[mcp_tool(namespace = "ui")]
fn divide(a: i64, b: i64) -> Result<i64, String> {
    a.checked_div(b)
        .ok_or_else(|| format!("cannot divide {a} by zero"))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(divide(6, 3), Ok(2));
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new("ui.divide", json!({ "a": 6, "b": 3 }))?);
    assert_eq!(result.data(), json!({ "result": 2 }).as_object());
    let result = registry.call_blocking(MCPToolCall::new("ui.divide", json!({ "a": 6, "b": 0 }))?);
    let error = result.error().expect("a failure");
    assert_eq!(error.error_message, "cannot divide 6 by zero");
    Ok(())
}
