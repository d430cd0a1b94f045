//! An associated function registered as its error message says, through a free function
//! that calls it; registrations inside function bodies, where the items beside the
//! function are in scope as they are in a module; and a tool named like the crate its
//! signature names.

use mcp_runtime::{MCPToolCall, Registry, mcp_prompt, mcp_resource, mcp_tool};
use serde_json::json;

struct Calc;

impl Calc {
    fn add(a: i64, b: i64) -> i64 {
        a + b
    }
}

/// Adds two numbers.
#[mcp_tool(namespace = "ui.calc")]
fn add(a: i64, b: i64) -> i64 {
    Calc::add(a, b)
}

/// Echoes a JSON value.
#[mcp_tool(namespace = "ui.calc")]
fn serde_json(value: serde_json::Value) -> serde_json::Value {
    value
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// Subtracts a number from another.
    #[mcp_tool(namespace = "ui.calc")]
    async fn sub(a: i64, b: i64) -> i64 {
        a - b
    }

    {
        /// A number, as a resource.
        #[mcp_resource(uri_template = "ui://numbers/{n}")]
        fn number(n: u32) -> String {
            n.to_string()
        }

        /// Repeats a word.
        #[mcp_prompt]
        fn repeated(word: String) -> String {
            format!("{word} {word}")
        }
    }

    let registry = Registry::global();
    let sum = registry.call_blocking(MCPToolCall::new("ui.calc.add", json!({ "a": 2, "b": 3 }))?);
    assert_eq!(sum.data(), json!({ "result": 5 }).as_object());
    let difference =
        registry.call_blocking(MCPToolCall::new("ui.calc.sub", json!({ "a": 2, "b": 3 }))?);
    assert_eq!(difference.data(), json!({ "result": -1 }).as_object());
    let echoed = registry.call_blocking(MCPToolCall::new(
        "ui.calc.serde_json",
        json!({ "value": { "a": 1 } }),
    )?);
    assert_eq!(echoed.data(), json!({ "result": { "a": 1 } }).as_object());
    assert!(
        registry
            .resource_templates()
            .any(|template| template.uri_template() == "ui://numbers/{n}")
    );
    assert!(registry.prompt("repeated").is_some());
    Ok(())
}
