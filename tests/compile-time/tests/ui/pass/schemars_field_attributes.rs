use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Repeats a short code.
#[mcp_tool(namespace = "ui")]
fn repeat_code(
    /// How often, 1 to 10.
    #[schemars(range(min = 1, max = 10))]
    count: u8,
    /// At most five characters, starting with `a`.
    #[schemars(length(max = 5), regex(pattern = r"^a"))]
    code: String,
    /// A separator.
    #[schemars(example = &"-")]
    separator: String,
) -> String {
    vec![code; count as usize].join(&separator)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let tool = registry.get("ui.repeat_code").expect("registered");
    let schema = serde_json::to_value(tool.definition().input_schema())?;
    let properties = &schema["properties"];
    assert_eq!(properties["count"]["minimum"], 1, "{schema}");
    assert_eq!(properties["count"]["maximum"], 10, "{schema}");
    assert_eq!(properties["code"]["maxLength"], 5, "{schema}");
    assert_eq!(properties["code"]["pattern"], "^a", "{schema}");
    assert_eq!(
        properties["separator"]["examples"],
        json!(["-"]),
        "{schema}"
    );
    assert_eq!(properties["count"]["description"], "How often, 1 to 10.");

    let result = registry.call_blocking(MCPToolCall::new(
        "ui.repeat_code",
        json!({ "count": 2, "code": "ab", "separator": "-" }),
    )?);
    assert_eq!(result.data(), json!({ "result": "ab-ab" }).as_object());
    Ok(())
}
