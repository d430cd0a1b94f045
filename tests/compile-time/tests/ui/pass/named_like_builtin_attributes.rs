//! Tools named like built-in attributes (`inline`, `path`, `test`, `doc`) register and run
//! as any other: the attribute's placement check finds nothing ambiguous in their names.
//! (One whose signature also names a path from its own name, `fn path(p: path::P)`, is the
//! one case left ambiguous.)

use mcp_runtime::{MCPToolCall, Registry, mcp_tool};
use serde_json::json;

/// Doubles a number; its key `inline` is no path from its name.
#[mcp_tool(namespace = "ui.builtin", inline)]
fn inline(n: i64) -> i64 {
    n * 2
}

/// Names a file.
#[mcp_tool(namespace = "ui.builtin")]
fn path(name: String) -> String {
    format!("./{name}")
}

/// Checks a number.
#[mcp_tool(namespace = "ui.builtin")]
fn test(n: i64) -> bool {
    n > 0
}

/// Describes a number.
#[mcp_tool(namespace = "ui.builtin")]
async fn doc(n: i64) -> String {
    format!("the number {n}")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let registry = Registry::global();
    let call = |name: &str, arguments| -> Result<_, Box<dyn std::error::Error>> {
        Ok(registry.call_blocking(MCPToolCall::new(name, arguments)?))
    };
    let doubled = call("ui.builtin.inline", json!({ "n": 21 }))?;
    assert_eq!(doubled.data(), json!({ "result": 42 }).as_object());
    let named = call("ui.builtin.path", json!({ "name": "a.txt" }))?;
    assert_eq!(named.data(), json!({ "result": "./a.txt" }).as_object());
    let checked = call("ui.builtin.test", json!({ "n": 1 }))?;
    assert_eq!(checked.data(), json!({ "result": true }).as_object());
    let described = call("ui.builtin.doc", json!({ "n": 1 }))?;
    assert_eq!(described.data(), json!({ "result": "the number 1" }).as_object());
    // Plain functions still.
    assert_eq!((inline(2), test(-1)), (4, false));
    Ok(())
}
