use std::time::Duration;

use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

fn my_layer() -> tower::timeout::TimeoutLayer {
    tower::timeout::TimeoutLayer::new(Duration::from_secs(5))
}

mod limits {
    pub fn one_at_a_time() -> tower::limit::ConcurrencyLimitLayer {
        tower::limit::ConcurrencyLimitLayer::new(1)
    }
}

/// Adds two numbers, within five seconds.
#[mcp_tool(namespace = "ui", layer = my_layer)]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Doubles a number, one call at a time.
#[mcp_tool(namespace = "ui", layer = limits::one_at_a_time, inline)]
fn double(n: i64) -> i64 {
    n * 2
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new("ui.add", json!({ "a": 2, "b": 3 }))?);
    assert_eq!(result.data(), json!({ "result": 5 }).as_object());
    let result = registry.call_blocking(MCPToolCall::new("ui.double", json!({ "n": 4 }))?);
    assert_eq!(result.data(), json!({ "result": 8 }).as_object());
    // The function stays callable as Rust.
    assert_eq!(add(1, 1), 2);
    Ok(())
}
