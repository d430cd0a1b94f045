//! An application that reaches the runtime only through its own module.

mod reexport {
    pub use mcp_runtime as rt;
}

mod glob {
    pub use mcp_runtime::*;
}

mod tools {
    use crate::reexport::rt::mcp_tool;

    /// Adds one, through `crate = crate::reexport::rt`.
    #[mcp_tool(namespace = "ui", crate = crate::reexport::rt)]
    pub fn increment(n: i64) -> i64 {
        n + 1
    }

    /// Adds two, through a glob re-export.
    #[mcp_tool(namespace = "ui", crate = crate::glob)]
    pub fn add_two(n: i64) -> Result<i64, crate::glob::ToolError> {
        Ok(n + 2)
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    use reexport::rt::{MCPToolCall, Registry};
    use serde_json::json;

    assert_eq!(tools::increment(1), 2);
    let registry = Registry::global();
    let result = registry.call_blocking(MCPToolCall::new("ui.increment", json!({ "n": 41 }))?);
    assert_eq!(result.data(), json!({ "result": 42 }).as_object());
    let result = registry.call_blocking(MCPToolCall::new("ui.add_two", json!({ "n": 40 }))?);
    assert_eq!(result.data(), json!({ "result": 42 }).as_object());
    let tool = registry.get("ui.increment").expect("registered");
    assert_eq!(
        tool.definition().description(),
        Some("Adds one, through `crate = crate::reexport::rt`.")
    );
    Ok(())
}
