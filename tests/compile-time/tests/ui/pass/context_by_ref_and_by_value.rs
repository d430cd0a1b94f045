use mcp_runtime::{MCPToolCall, Registry, ToolContext, mcp_tool};
use serde_json::json;

/// Prefixes a text with the tool's name; the context comes first, by reference.
#[mcp_tool(namespace = "ui")]
fn context_first(ctx: &ToolContext, text: String) -> String {
    format!("{}: {text}", ctx.tool_name())
}

/// The same, the context last and by value.
#[mcp_tool(namespace = "ui")]
fn context_last(text: String, times: u32, ctx: ToolContext) -> String {
    format!("{}: {}", ctx.tool_name(), text.repeat(times as usize))
}

/// The context between two arguments, by reference.
#[mcp_tool(namespace = "ui")]
fn context_between(a: i64, ctx: &mcp_runtime::ToolContext, b: i64) -> String {
    format!("{} {}", ctx.tool_name(), a + b)
}

fn properties(name: &str) -> Vec<String> {
    let tool = Registry::global().get(name).expect("registered");
    let schema = serde_json::to_value(tool.definition().input_schema()).unwrap();
    schema["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .cloned()
        .collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.context_first",
        json!({ "text": "hi" }),
    )?);
    assert_eq!(
        result.data(),
        json!({ "result": "ui.context_first: hi" }).as_object()
    );
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.context_last",
        json!({ "text": "ab", "times": 2 }),
    )?);
    assert_eq!(
        result.data(),
        json!({ "result": "ui.context_last: abab" }).as_object()
    );
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.context_between",
        json!({ "a": 1, "b": 2 }),
    )?);
    assert_eq!(
        result.data(),
        json!({ "result": "ui.context_between 3" }).as_object()
    );
    // The context is never an argument.
    assert_eq!(properties("ui.context_first"), ["text"]);
    assert_eq!(properties("ui.context_last"), ["text", "times"]);
    assert_eq!(properties("ui.context_between"), ["a", "b"]);
    Ok(())
}
