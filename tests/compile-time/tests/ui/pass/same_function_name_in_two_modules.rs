use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

mod text {
    use super::mcp_tool;

    /// The length of a text in characters.
    #[mcp_tool(namespace = "ui.text")]
    pub fn length(value: String) -> usize {
        value.chars().count()
    }
}

mod list {
    use super::mcp_tool;

    /// The length of a list.
    #[mcp_tool(namespace = "ui.list")]
    pub fn length(value: Vec<i64>) -> usize {
        value.len()
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(text::length("héllo".into()), 5);
    assert_eq!(list::length(vec![1, 2]), 2);
    let registry = Registry::global();
    let text = registry.call_blocking(MCPToolCall::new(
        "ui.text.length",
        json!({ "value": "héllo" }),
    )?);
    assert_eq!(text.data(), json!({ "result": 5 }).as_object());
    let list = registry.call_blocking(MCPToolCall::new(
        "ui.list.length",
        json!({ "value": [1, 2] }),
    )?);
    assert_eq!(list.data(), json!({ "result": 2 }).as_object());
    let text = registry.get("ui.text.length").expect("registered");
    let list = registry.get("ui.list.length").expect("registered");
    assert_eq!(
        text.definition().input_schema().as_value()["properties"]["value"]["type"],
        "string"
    );
    assert_eq!(
        list.definition().input_schema().as_value()["properties"]["value"]["type"],
        "array"
    );
    assert_ne!(text.location().module_path, list.location().module_path);
    Ok(())
}
