use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;

/// A shape, tagged by `kind`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Shape {
    /// A circle.
    Circle { radius: f64 },
    /// A rectangle.
    Rectangle { width: f64, height: f64 },
}

/// The area of a shape.
#[mcp_tool(namespace = "ui")]
fn area(shape: Shape) -> f64 {
    match shape {
        Shape::Circle { radius } => std::f64::consts::PI * radius * radius,
        Shape::Rectangle { width, height } => width * height,
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.area",
        json!({ "shape": { "kind": "rectangle", "width": 2.0, "height": 3.0 } }),
    )?);
    assert_eq!(result.data(), json!({ "result": 6.0 }).as_object());
    let result = registry.call_blocking(MCPToolCall::new(
        "ui.area",
        json!({ "shape": { "kind": "triangle" } }),
    )?);
    assert!(result.error().is_some(), "{result:?}");

    // The schema carries the enum's variants with their tag.
    let tool = registry.get("ui.area").expect("registered");
    let schema = serde_json::to_value(tool.definition().input_schema())?;
    let text = schema.to_string();
    for needle in [r#""kind""#, r#""circle""#, r#""rectangle""#, r#""radius""#] {
        assert!(text.contains(needle), "{needle} missing from {schema}");
    }
    Ok(())
}
