use std::collections::HashMap;
use std::path::PathBuf;

use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Summarises a collection of things.
#[mcp_tool(namespace = "ui")]
fn summarise(
    scores: HashMap<String, u32>,
    names: Vec<String>,
    root: PathBuf,
    limit: Option<usize>,
) -> String {
    let total: u32 = scores.values().sum();
    let names: Vec<String> = names
        .into_iter()
        .take(limit.unwrap_or(usize::MAX))
        .collect();
    format!("{total} {} {}", names.join(","), root.join("x").display())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let tool = registry.get("ui.summarise").expect("registered");
    let schema = serde_json::to_value(tool.definition().input_schema())?;
    let properties = &schema["properties"];
    assert_eq!(properties["scores"]["type"], "object", "{schema}");
    assert_eq!(
        properties["scores"]["additionalProperties"]["type"], "integer",
        "{schema}"
    );
    assert_eq!(properties["names"]["type"], "array", "{schema}");
    assert_eq!(properties["names"]["items"]["type"], "string", "{schema}");
    assert_eq!(properties["root"]["type"], "string", "{schema}");
    assert_eq!(
        schema["required"],
        json!(["scores", "names", "root"]),
        "{schema}"
    );

    let result = registry.call_blocking(MCPToolCall::new(
        "ui.summarise",
        json!({ "scores": { "a": 1, "b": 2 }, "names": ["x", "y", "z"], "root": "/tmp", "limit": 2 }),
    )?);
    assert_eq!(
        result.data(),
        json!({ "result": "3 x,y /tmp/x" }).as_object()
    );
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.summarise",
        json!({ "scores": {}, "names": ["x"], "root": "r" }),
    )?);
    assert_eq!(result.data(), json!({ "result": "0 x r/x" }).as_object());
    Ok(())
}
